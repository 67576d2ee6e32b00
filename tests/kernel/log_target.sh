#!/usr/bin/env bash
# The CGROUP2LOG target: real traffic from processes in several cgroups,
# logged through nf_log_syslog (LOG mode); each line names the sender's
# cgroup path exactly and its id (the cgroup directory's inode number).
# Under one glob rule and without the match; long paths cut from the left;
# forwarded packets and the kernel's RST log CGROUP=-; a rule inserted from
# a cgroup namespace logs paths relative to it; INPUT names the receiver;
# rmmod fails while a rule exists.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach
P=9301
mkcg svc/web.service svc/api.service svc/cron.scope user.slice/user-1000.slice/session-2.scope

# line TAG: the one new kernel log line holding TAG (e.g. "SPT=40001 "),
# without its timestamp, from $LOG (set by grab).
grab() { LOG=$(dmesg_new | sed 's/^\[[^]]*\] //'); }
line() { grep -F -- "$1" <<<"$LOG" | head -n 1; }
nlines() { grep -cF -- "$1" <<<"$LOG"; }
id() { stat -c %i "$CG/$1"; }
# head of a line up to OUT=DEV: the part the target makes plus IN=/OUT=
lhead() { grep -oE '^.* OUT=[^ ]*' <<<"$1"; }

u=(-p udp -d 127.0.0.1)
expect_ok "insert: -m cgroup2 --path 'svc/*.service' -j CGROUP2LOG" \
	iptables-legacy -w -A OUTPUT "${u[@]}" --dport $P -m cgroup2 --path 'svc/*.service' \
	-j CGROUP2LOG --log-prefix 'svc: '
expect_ok "insert: -j CGROUP2LOG alone (level info, uid)" \
	iptables-legacy -w -A OUTPUT "${u[@]}" --dport $((P + 1)) \
	-j CGROUP2LOG --log-prefix 'all: ' --log-level info --log-uid
expect_grep "iptables-save prints the rules" \
	'^-A OUTPUT .*--dport 9302 -j CGROUP2LOG --log-prefix "all: " --log-level 6 --log-uid$' \
	"$(iptables-legacy-save -t filter)"

dmesg_clear
cg2net --cgroup svc/web.service send udp 127.0.0.1 $P --sport 40001 >/dev/null
cg2net --cgroup svc/api.service send udp 127.0.0.1 $P --sport 40002 >/dev/null
cg2net --cgroup svc/cron.scope send udp 127.0.0.1 $P --sport 40003 >/dev/null
cg2net --cgroup svc/web.service send udp 127.0.0.1 $((P + 1)) --sport 40004 >/dev/null
cg2net --cgroup user.slice/user-1000.slice/session-2.scope send udp 127.0.0.1 $((P + 1)) \
	--sport 40005 >/dev/null
cg2net send udp 127.0.0.1 $((P + 1)) --sport 40006 >/dev/null
grab
expect "glob rule: web.service named, with its id" \
	"svc: CGROUP=svc/web.service CGROUP_ID=$(id svc/web.service) IN= OUT=lo" \
	"$(lhead "$(line 'SPT=40001 ')")"
expect "glob rule: api.service named, with its id" \
	"svc: CGROUP=svc/api.service CGROUP_ID=$(id svc/api.service) IN= OUT=lo" \
	"$(lhead "$(line 'SPT=40002 ')")"
expect "glob rule: cron.scope does not match, is not logged" 0 "$(nlines 'SPT=40003 ')"
expect "target alone: web.service" \
	"all: CGROUP=svc/web.service CGROUP_ID=$(id svc/web.service) IN= OUT=lo" \
	"$(lhead "$(line 'SPT=40004 ')")"
expect "target alone: a user session" \
	"all: CGROUP=user.slice/user-1000.slice/session-2.scope CGROUP_ID=$(id user.slice/user-1000.slice/session-2.scope) IN= OUT=lo" \
	"$(lhead "$(line 'SPT=40005 ')")"
expect "target alone: the root cgroup is /" \
	"all: CGROUP=/ CGROUP_ID=$(id .) IN= OUT=lo" "$(lhead "$(line 'SPT=40006 ')")"
expect_grep "--log-uid: UID and GID logged after the header" 'SPT=40004 .* UID=0 GID=0' "$LOG"
expect "one line per packet and rule" 5 "$(grep -c 'CGROUP=' <<<"$LOG")"

# IPv6, iptables-nft (nft_compat), and --log-level by name
expect_ok "insert (ip6tables-nft)" ip6tables-nft -w -A OUTPUT -p udp -d ::1 --dport $P \
	-m cgroup2 --path 'svc/*.service' -j CGROUP2LOG --log-prefix 'v6: ' --log-level debug
expect_grep "ip6tables-nft-save prints the rule" \
	'-m cgroup2 --path "svc/\*\.service" -j CGROUP2LOG --log-prefix "v6: " --log-level 7$' \
	"$(ip6tables-nft-save -t filter 2>/dev/null)"
dmesg_clear
cg2net --cgroup svc/api.service send udp6 ::1 $P --sport 40011 >/dev/null
cg2net --cgroup svc/cron.scope send udp6 ::1 $P --sport 40012 >/dev/null
grab
expect "IPv6 (nft): api.service" \
	"v6: CGROUP=svc/api.service CGROUP_ID=$(id svc/api.service) IN= OUT=lo" \
	"$(lhead "$(line 'SPT=40011 ')")"
expect "IPv6 (nft): cron.scope not logged" 0 "$(nlines 'SPT=40012 ')"

# Long paths keep their end: "..." then the rest from a '/'.
long=svc/$(printf 'a%.0s' {1..40}).slice/$(printf 'b%.0s' {1..40}).slice/app-firefox-1234.scope
mkcg "$long"
huge=svc/$(printf 'c%.0s' {1..200})
mkcg "$huge"
# cut PREFIX PATH ID: what the target must print for PATH (see the man page)
cut() {
	local room=$((128 - ${#1} - ${#3} - 19)) p=$2 t i
	if ((${#p} <= room - 1)); then printf '%s' "$p"; return; fi
	t=${p: -$((room - 1))}
	for ((i = 3; i < ${#t}; i++)); do
		[[ ${t:i:1} == / ]] && { printf '...%s' "${t:i}"; return; }
	done
	printf '...%s' "${t:3}"
}
dmesg_clear
cg2net --cgroup "$long" send udp 127.0.0.1 $((P + 1)) --sport 40021 >/dev/null
cg2net --cgroup "$huge" send udp 127.0.0.1 $((P + 1)) --sport 40022 >/dev/null
grab
want=$(cut 'all: ' "$long" "$(id "$long")")
expect "long path: cut from the left at a '/'" \
	"all: CGROUP=$want CGROUP_ID=$(id "$long") IN= OUT=lo" "$(lhead "$(line 'SPT=40021 ')")"
expect_grep "long path: ends with the scope, starts with .../" \
	'^all: CGROUP=\.\.\./[a-z./-]*/app-firefox-1234\.scope CGROUP_ID=' "$(line 'SPT=40021 ')"
want=$(cut 'all: ' "$huge" "$(id "$huge")")
expect "a name too long alone: its end after ..." \
	"all: CGROUP=$want CGROUP_ID=$(id "$huge") IN= OUT=lo" "$(lhead "$(line 'SPT=40022 ')")"
expect_grep "the whole prefix is within 127 bytes" \
	"^.{1,127}IN= OUT=lo " "$(line 'SPT=40022 ')"

# INPUT: the receiving socket (looked up on loopback) names the receiver.
expect_ok "insert INPUT rule" iptables-legacy -w -A INPUT -p udp --dport $((P + 2)) \
	-j CGROUP2LOG --log-prefix 'in: '
bg_listen rx --cgroup svc/api.service listen udp 127.0.0.1 $((P + 2)) --count 1
dmesg_clear
cg2net --cgroup svc/web.service send udp 127.0.0.1 $((P + 2)) --sport 40031 >/dev/null
grab
expect "INPUT: the receiver's cgroup (api.service)" \
	"in: CGROUP=svc/api.service CGROUP_ID=$(id svc/api.service) IN=lo OUT=" \
	"$(lhead "$(line 'SPT=40031 ')")"

# The kernel's RST for a closed port: CGROUP=-; the SYN names its sender.
expect_ok "insert: log SYN and RST" iptables-legacy -w -A OUTPUT -p tcp -d 127.0.0.1 \
	-j CGROUP2LOG --log-prefix 'tcp: ' --log-tcp-sequence
dmesg_clear
cg2net --cgroup svc/web.service connect tcp 127.0.0.1 $((P + 3)) --sport 40041 >/dev/null 2>&1
grab
expect "SYN from web.service" \
	"tcp: CGROUP=svc/web.service CGROUP_ID=$(id svc/web.service) IN= OUT=lo" \
	"$(lhead "$(grep -F 'SPT=40041 ' <<<"$LOG" | grep -F ' SYN ' | head -n 1)")"
expect "the kernel's RST: CGROUP=-" "tcp: CGROUP=- IN= OUT=lo" \
	"$(lhead "$(grep -F 'DPT=40041 ' <<<"$LOG" | grep -F ' RST ' | head -n 1)")"
expect_grep "--log-tcp-sequence: SEQ logged" 'SPT=40041 .*SEQ=[0-9]+' "$LOG"

# Forwarded: this host routes between two netns; FORWARD logs CGROUP=-.
netns_add a b
veth_ns a 10.71.1.1/24 10.71.1.2/24 veth0
veth_ns b 10.71.2.1/24 10.71.2.2/24 veth1
in_ns a ip route add default via 10.71.1.1 || fail "route in a"
in_ns b ip route add default via 10.71.2.1 || fail "route in b"
sysctl -qw net.ipv4.ip_forward=1
drop_unreach in_ns b
expect_ok "insert FORWARD rule" iptables-legacy -w -A FORWARD -p udp --dport $((P + 4)) \
	-j CGROUP2LOG --log-prefix 'fwd: '
expect_ok "insert POSTROUTING rule (mangle)" iptables-legacy -w -t mangle -A POSTROUTING \
	-p udp --dport $((P + 4)) -j CGROUP2LOG --log-prefix 'post: '
dmesg_clear
in_ns a cg2net --cgroup svc/web.service send udp 10.71.2.2 $((P + 4)) --sport 40051 >/dev/null
grab
expect "FORWARD: CGROUP=-" "fwd: CGROUP=- IN=veth0 OUT=veth1" "$(lhead "$(line 'SPT=40051 ')")"
expect "POSTROUTING, forwarded: CGROUP=-" "post: CGROUP=- IN=veth0 OUT=veth1" \
	"$(lhead "$(grep -F 'post: ' <<<"$LOG" | grep -F 'SPT=40051 ' | head -n 1)")"

# A rule inserted inside a cgroup namespace rooted at /ns1 (iptables-nft
# adds it alone: an outside iptables-legacy change would re-check every
# legacy rule from outside, see cgroupns.sh).
mkcg ns1/app app
inside() {
	bash -c 'echo $$ >"$1/ns1/cgroup.procs" || exit 99
		 shift
		 exec unshare -Cm --propagation private bash -c '\''
			umount -l "$0" && mount -t cgroup2 none "$0" || exit 98
			exec "$@"'\'' "$@"' - "$CG" "$CG" "$@"
}
expect_ok "insert from inside the cgroup namespace (nft)" inside iptables-nft -w -A OUTPUT \
	"${u[@]}" --dport $((P + 5)) -j CGROUP2LOG --log-prefix 'ns: '
dmesg_clear
cg2net --cgroup ns1/app send udp 127.0.0.1 $((P + 5)) --sport 40061 >/dev/null
cg2net --cgroup ns1 send udp 127.0.0.1 $((P + 5)) --sport 40062 >/dev/null
cg2net --cgroup app send udp 127.0.0.1 $((P + 5)) --sport 40063 >/dev/null
grab
expect "namespace: /ns1/app logs as app" \
	"ns: CGROUP=app CGROUP_ID=$(id ns1/app) IN= OUT=lo" "$(lhead "$(line 'SPT=40061 ')")"
expect "namespace: its root /ns1 logs as /" \
	"ns: CGROUP=/ CGROUP_ID=$(id ns1) IN= OUT=lo" "$(lhead "$(line 'SPT=40062 ')")"
expect "namespace: /app, outside it, logs CGROUP=-" \
	"ns: CGROUP=- IN= OUT=lo" "$(lhead "$(line 'SPT=40063 ')")"

# Module in use while rules exist, like the match's.
expect_fail "rmmod with CGROUP2LOG rules fails" rmmod xt_cgroup2
iptables-legacy -w -F OUTPUT; iptables-legacy -w -F INPUT; iptables-legacy -w -F FORWARD
iptables-legacy -w -t mangle -F POSTROUTING
expect_fail "rmmod with nft rules left fails" rmmod xt_cgroup2
iptables-nft -w -F OUTPUT; ip6tables-nft -w -F OUTPUT
sleep 1
expect_ok "rmmod once all rules are gone" rmmod xt_cgroup2
finish
