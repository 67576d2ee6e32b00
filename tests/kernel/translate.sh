#!/usr/bin/env bash
# iptables-translate, ip6tables-translate and iptables-restore-translate of
# rules with literal --path, end to end: the translation, loaded as printed
# with nft -f into a fresh table (netns xl, resp. xr for the restore), counts
# exactly the packets that the same rule counts through iptables-nft (netns
# ipt, resp. ir), for the same datagrams sent from the same cgroups in both.
# A glob, or an inverted rule (nft's "!=" skips sockets above the rule's
# level, which "! --path" matches), is not translated (nft # ..., a note
# naming nft-cgroupd on stderr); a translation carries the note that it
# binds early.  nft list ruleset shows a CGROUP2LOG rule of iptables-nft as
# "xt target CGROUP2LOG", not as its lossy translation.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

NOTE="cgroup2: path resolved once at load: no late binding, lost on restart"
mkcg svc/web.service/worker svc/db.service svc/other.service
netns_add xl ipt xr ir
for n in xl ipt xr ir; do drop_unreach in_ns "$n"; done
# the nft CLI resolves the paths under /sys/fs/cgroup, which is the cgroup2
# mount in this (pure) VM: the translations below can be loaded
expect "cgroup2 is at /sys/fs/cgroup, where nft looks" /sys/fs/cgroup "$CG"

# fresh base chains for the translated rules of iptables-translate
in_ns xl nft -f - <<-'EOF' || fail "fresh ip and ip6 filter tables in xl"
	add table ip filter
	add chain ip filter OUTPUT { type filter hook output priority 0; }
	add table ip6 filter
	add chain ip6 filter OUTPUT { type filter hook output priority 0; }
EOF

# xlate NAME TRANSLATE-CMD RULE...: translate RULE, check the output is one
# "nft 'add rule ...'" command with our note, add its rule to the nft -f
# file for netns xl, and add RULE itself with iptables-nft in netns ipt.
: >/tmp/xl.nft
xlate() {
	local name=$1 cmd=$2 out ipt=iptables-nft w=()
	shift 2
	[[ $cmd == ip6* ]] && ipt=ip6tables-nft
	out=$("$cmd" -A OUTPUT "$@" 2>/tmp/xlate.err)
	expect "$name: $cmd succeeds, quietly" "0 " "$? $(cat /tmp/xlate.err)"
	expect_grep "$name: translated to a native socket cgroupv2 rule" \
		"^nft 'add rule ip6? filter OUTPUT .* socket cgroupv2 level [0-9]+ " "$out"
	expect_grep "$name: the translation carries the late-binding note" \
		" comment \"$NOTE\"'\$" "$out"
	eval "w=($out)"
	if ((${#w[@]} == 2)) && [[ ${w[0]} == nft ]]; then
		printf '%s\n' "${w[1]}" >>/tmp/xl.nft
	else
		fail "$name: output is one nft command ($out)"
	fi
	expect_ok "$name: iptables-nft takes the rule" in_ns ipt "$ipt" -w -A OUTPUT "$@"
}

# send_both CGROUP ADDR PORT COUNT: the same datagrams, in both netns pairs.
send_both() {
	local cg=$1 a=$2 p=$3 n=$4 fam=udp ns out
	[[ $a == *:* ]] && fam=udp6
	for ns in "${PAIR[@]}"; do
		out=$(in_ns "$ns" cg2net ${cg:+--cgroup "$cg"} send "$fam" "$a" "$p" \
			--count "$n" 2>&1)
		out=${out##*$'\n'}	# the result line: the last
		[[ $out == "sent $n" ]] || fail "send from '${cg:-/}' to $a $p in $ns (got '$out')"
	done
}

# traffic PORT ADDR: the same mix to every rule, from six cgroups: at the
# rules' level 2 (web, db, other), below it (web/worker), above it (svc,
# the root).
traffic() {
	send_both svc/web.service "$2" "$1" 2
	send_both svc/web.service/worker "$2" "$1" 1
	send_both svc/db.service "$2" "$1" 3
	send_both svc/other.service "$2" "$1" 4
	send_both svc "$2" "$1" 5
	send_both "" "$2" "$1" 6
}

# pk NS FAMILY PORT: packets of the one rule on PORT in FAMILY filter OUTPUT.
pk() {
	in_ns "$1" nft list chain "$2" filter OUTPUT 2>/dev/null |
		awk -v p="dport $3 " 'index($0, p) { n++; for (i = 1; i < NF; i++)
			if ($i == "packets") c = $(i + 1) }
			END { print n == 1 ? c : n ? "several" : "missing" }'
}

# same NAME FAMILY PORT WANT: both rules on PORT count WANT packets.
same() {
	local x i
	x=$(pk "${PAIR[0]}" "$2" "$3")
	i=$(pk "${PAIR[1]}" "$2" "$3")
	expect "$1: iptables-nft rule counts $4" "$4" "$i"
	expect "$1: its nft translation counts the same" "$4" "$x"
}

v4=(-p udp -d 127.0.0.1 --dport)
v6=(-p udp -d ::1 --dport)
xlate "single" iptables-translate "${v4[@]}" 9901 -m cgroup2 --path svc/web.service -j ACCEPT
xlate "set" iptables-translate "${v4[@]}" 9902 -m cgroup2 --path svc/web.service \
	--path svc/db.service -j ACCEPT
xlate "ipv6 single" ip6tables-translate "${v6[@]}" 9905 -m cgroup2 --path svc/web.service -j ACCEPT
expect_grep "set: translated to an anonymous set of both paths" \
	'dport 9902 socket cgroupv2 level 2 \{ "svc/web.service", "svc/db.service" \} counter accept ' \
	"$(cat /tmp/xl.nft)"
expect_ok "nft -f loads the translations as printed" in_ns xl nft -f /tmp/xl.nft

rs=$(in_ns xl nft list ruleset)
expect "nft lists three translated rules, each with the note" 3 \
	"$(grep -c "socket cgroupv2 level 2 .* comment \"$NOTE\"" <<<"$rs")"
expect_nogrep "nft resolved every path (no xt match in xl)" 'xt match' "$rs"

# untranslated NAME TRANSLATE-CMD PORT RULE...: the translation is a
# comment, the note says why, and iptables-nft takes the rule.
untranslated() {
	local name=$1 cmd=$2 port=$3 ipt=iptables-nft out
	shift 3
	[[ $cmd == ip6* ]] && ipt=ip6tables-nft
	out=$("$cmd" -A OUTPUT "$@" 2>/tmp/xlate.err)
	expect_grep "$name: left as a comment" "^nft # -A OUTPUT .*--dport $port " "$out"
	expect_grep "$name: the note says inverted rules have no exact nft form" \
		'^cgroup2: rule not translated: .*inverted match exactly.*nft-cgroupd' "$(cat /tmp/xlate.err)"
	expect_ok "$name: iptables-nft takes the rule" in_ns ipt "$ipt" -w -A OUTPUT "$@"
}
untranslated "inverted" iptables-translate 9903 "${v4[@]}" 9903 -m cgroup2 ! --path svc/web.service -j ACCEPT
untranslated "inverted set" iptables-translate 9904 "${v4[@]}" 9904 -m cgroup2 ! --path svc/web.service \
	--path svc/db.service -j ACCEPT
untranslated "ipv6 inverted" ip6tables-translate 9906 "${v6[@]}" 9906 -m cgroup2 ! --path svc/db.service -j ACCEPT

PAIR=(xl ipt)
for p in 9901 9902 9903 9904; do traffic $p 127.0.0.1; done
for p in 9905 9906; do traffic $p ::1; done
# The subtree below a named cgroup matches; a cgroup above the rule's level
# (svc, the root) has no ancestor at that level.
same "single (web and below)" ip 9901 3
same "set (web and below, db)" ip 9902 6
same "ipv6 single" ip6 9905 3
# What a "!=" translation would have lost: svc (5) and the root (6).
expect "inverted: iptables-nft counts all but web and below" 18 "$(pk ipt ip 9903)"
expect "inverted set: iptables-nft counts other, svc and the root" 15 "$(pk ipt ip 9904)"
expect "ipv6 inverted: iptables-nft counts all but db" 18 "$(pk ipt ip6 9906)"

# A glob has no nft form: not translated, and the note says what to use.
for cmd in iptables-translate ip6tables-translate; do
	out=$("$cmd" -A OUTPUT -p udp --dport 9907 -m cgroup2 --path 'svc/*.service' -j ACCEPT \
		2>/tmp/xlate.err)
	expect "$cmd: a glob is left as a comment" \
		"nft # -A OUTPUT -p udp --dport 9907 -m cgroup2 --path svc/*.service -j ACCEPT" \
		"$(sed 's/ *$//' <<<"$out")"
	expect_grep "$cmd: the note on stderr names nft-cgroupd" \
		'^cgroup2: rule not translated: .*glob pattern.*nft-cgroupd' "$(cat /tmp/xlate.err)"
	out=$("$cmd" -A OUTPUT -m cgroup2 --path 'svc/**' -j ACCEPT 2>/tmp/xlate.err)
	expect "$cmd: a ** pattern is left as a comment" \
		"nft # -A OUTPUT -m cgroup2 --path svc/** -j ACCEPT" "$(sed 's/ *$//' <<<"$out")"
	expect_grep "$cmd: the ** note names nft-cgroupd" \
		'^cgroup2: rule not translated: .*"\*\*" pattern.*nft-cgroupd' "$(cat /tmp/xlate.err)"
done

# iptables-restore-translate of a saved ruleset; its output is an nft -f
# file as it is.  The glob rule becomes a comment line: only iptables-nft
# has it.
cat >/tmp/saved <<-'EOF'
	*filter
	:INPUT ACCEPT [0:0]
	:FORWARD ACCEPT [0:0]
	:OUTPUT ACCEPT [0:0]
	-A OUTPUT -p udp -d 127.0.0.1 --dport 9911 -m cgroup2 --path svc/web.service -j ACCEPT
	-A OUTPUT -p udp -d 127.0.0.1 --dport 9912 -m comment --comment db+web -m cgroup2 --path svc/db.service --path svc/web.service -j ACCEPT
	-A OUTPUT -p udp -d 127.0.0.1 --dport 9913 -m cgroup2 ! --path svc/other.service -j ACCEPT
	-A OUTPUT -p udp -d 127.0.0.1 --dport 9914 -m cgroup2 --path "svc/*.service" -j ACCEPT
	COMMIT
EOF
iptables-restore-translate -f /tmp/saved >/tmp/xr.nft 2>/tmp/xlate.err
expect "iptables-restore-translate succeeds" 0 $?
tr=$(cat /tmp/xr.nft)
expect_grep "restore: the literal rule translated with the note" \
	"^add rule ip filter OUTPUT ip daddr 127.0.0.1 udp dport 9911 socket cgroupv2 level 2 \"svc/web.service\" counter accept comment \"$NOTE\"\$" "$tr"
expect_grep "restore: the set rule keeps its comment, merged with the note" \
	"^add rule ip filter OUTPUT .*dport 9912 socket cgroupv2 level 2 \\{ \"svc/db.service\", \"svc/web.service\" \\} counter accept comment \"db\\+web; $NOTE\"\$" "$tr"
expect_grep "restore: the inverted rule left as a comment line" \
	"^# .*-A OUTPUT .*--dport 9913 -m cgroup2 .*--path [\"']?svc/other.service[\"']? -j ACCEPT" "$tr"
expect_nogrep "restore: no rule for the inverted one" '^add rule .*dport 9913' "$tr"
expect_grep "restore: the glob rule left as a comment line" \
	"^# .*-A OUTPUT .*--dport 9914 -m cgroup2 --path [\"']?svc/\\*\\.service[\"']? -j ACCEPT" "$tr"
expect_nogrep "restore: no rule for the glob" '^add rule .*dport 9914' "$tr"
expect_grep "restore: the note on stderr names nft-cgroupd" \
	'^cgroup2: rule not translated: .*glob pattern.*nft-cgroupd' "$(cat /tmp/xlate.err)"
expect_ok "restore: nft -f loads the translation as printed" in_ns xr nft -f /tmp/xr.nft
expect_ok "restore: iptables-nft-restore loads the saved rules" in_ns ir iptables-nft-restore /tmp/saved

PAIR=(xr ir)
for p in 9911 9912 9913 9914; do traffic $p 127.0.0.1; done
same "restore: literal" ip 9911 3
same "restore: set" ip 9912 6
expect "restore: iptables-nft's inverted rule counts all but other" 17 "$(pk ir ip 9913)"
expect "restore: nft has no inverted rule" missing "$(pk xr ip 9913)"
expect "restore: iptables-nft's glob rule counts web, db, other and below" 10 "$(pk ir ip 9914)"
expect "restore: nft has no glob rule" missing "$(pk xr ip 9914)"

# nft lists the rules of iptables-nft through the extensions' xlate too:
# there CGROUP2LOG, like cgroup2, must stay "xt target CGROUP2LOG", never
# a plain "log" that, saved and loaded again, would log without CGROUP=.
netns_add lg
expect_ok "iptables-nft takes a CGROUP2LOG rule" in_ns lg iptables-nft -w -A OUTPUT \
	-p udp --dport 9921 -j CGROUP2LOG --log-prefix "svc: " --log-level info
rs=$(in_ns lg nft list ruleset 2>/tmp/nft.err)
expect_grep "nft lists the CGROUP2LOG rule as xt target CGROUP2LOG" \
	'udp dport 9921 counter packets 0 bytes 0 xt target CGROUP2LOG$' "$rs"
expect_nogrep "nft never lists it as a plain log statement" ' log( |$)' "$rs"
expect_nogrep "nft list prints no CGROUP2LOG translation note" CGROUP2LOG "$(cat /tmp/nft.err)"
expect_grep "iptables-nft-save still has the target and its options" \
	'^-A OUTPUT -p udp -m udp --dport 9921 -j CGROUP2LOG --log-prefix "svc: " --log-level 6$' \
	"$(in_ns lg iptables-nft-save -t filter 2>/dev/null)"
finish
