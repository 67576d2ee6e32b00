#!/usr/bin/env bash
# CGROUP2LOG in NFLOG mode, read by a real ulogd2 (NFLOG -> BASE -> IFINDEX
# -> IP2STR -> PRINTPKT -> LOGEMU, to a file): each packet's line names
# its sender's cgroup path and id, in the prefix ulogd prints first.  The
# host's ulogd2 package is copied in by tests/vm/run; without it: SKIP.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach
P=9401
G=7
mkcg svc/web.service svc/api.service svc/cron.scope

OUT=$BG_DIR/ulogd.pkts
if ! ulogd_start $G "$OUT"; then
	skip "ulogd2 reads NFLOG mode" "no ulogd in the VM: apt-get install ulogd2 on the host"
	finish
fi

expect_ok "insert: -m cgroup2 --path 'svc/*.service' -j CGROUP2LOG --nflog-group $G" \
	iptables-legacy -w -A OUTPUT -p udp -d 127.0.0.1 --dport $P -m cgroup2 \
	--path 'svc/*.service' -j CGROUP2LOG --log-prefix 'nf: ' --nflog-group $G --nflog-size 128
expect_ok "insert (ip6tables-nft): the target alone" ip6tables-nft -w -A OUTPUT -p udp -d ::1 \
	--dport $P -j CGROUP2LOG --log-prefix 'nf6: ' --nflog-group $G --nflog-threshold 1
expect_grep "iptables-save prints the NFLOG mode" \
	'-j CGROUP2LOG --log-prefix "nf: " --nflog-group 7 --nflog-size 128$' \
	"$(iptables-legacy-save -t filter)"

cg2net --cgroup svc/web.service send udp 127.0.0.1 $P --sport 40101 >/dev/null
cg2net --cgroup svc/api.service send udp 127.0.0.1 $P --sport 40102 >/dev/null
cg2net --cgroup svc/cron.scope send udp 127.0.0.1 $P --sport 40103 >/dev/null
cg2net --cgroup svc/cron.scope send udp6 ::1 $P --sport 40104 >/dev/null
cg2net send udp6 ::1 $P --sport 40105 >/dev/null
for i in $(seq 50); do
	[[ $(grep -c 'CGROUP=' "$OUT" 2>/dev/null) -ge 4 ]] && break
	sleep 0.1
done
id() { stat -c %i "$CG/$1"; }
# the prefix and IN=/OUT= of the ulogd line for TAG, after its timestamp
got() { grep -F -- "$1" "$OUT" 2>/dev/null | head -n 1 | grep -oE '(nf|nf6): .* OUT=[^ ]*'; }
expect "ulogd: web.service" "nf: CGROUP=svc/web.service CGROUP_ID=$(id svc/web.service) IN= OUT=lo" \
	"$(got 'SPT=40101 ')"
expect "ulogd: api.service" "nf: CGROUP=svc/api.service CGROUP_ID=$(id svc/api.service) IN= OUT=lo" \
	"$(got 'SPT=40102 ')"
expect "ulogd: cron.scope does not match" 0 "$(grep -c 'SPT=40103 ' "$OUT" 2>/dev/null)"
expect "ulogd, IPv6: cron.scope" "nf6: CGROUP=svc/cron.scope CGROUP_ID=$(id svc/cron.scope) IN= OUT=lo" \
	"$(got 'SPT=40104 ')"
expect "ulogd, IPv6: the root cgroup" "nf6: CGROUP=/ CGROUP_ID=$(id .) IN= OUT=lo" \
	"$(got 'SPT=40105 ')"
expect "nothing in the kernel log (NFLOG mode)" 0 "$(dmesg | grep -c 'CGROUP=')"
iptables-legacy -w -F OUTPUT
ip6tables-nft -w -F OUTPUT
finish
