#!/usr/bin/env bash
# Several --path in one rule: a packet matches when any pattern matches; one
# "!" before the first --path inverts the whole set; a "!" before a later
# --path is refused by the extension, on both back ends.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach

P=9401
mkcg a/x b/c/d g1 h xa123456 b123456 c12345
r=(-p udp -d 127.0.0.1 --dport $P -m cgroup2)
expect_ok "insert three patterns" iptables-legacy -w -A OUTPUT "${r[@]}" \
	--path a --path b/c --path 'g*' -m comment --comment any
expect_ok "insert inverted pair" iptables-legacy -w -A OUTPUT "${r[@]}" \
	! --path a --path b/c -m comment --comment none
# 64 patterns, only the last one matches: every pattern is looked at.
many=()
for i in $(seq 63); do many+=(--path "n$i"); done
expect_ok "insert 64 patterns" iptables-legacy -w -A OUTPUT "${r[@]}" "${many[@]}" --path h \
	-m comment --comment last-of-64
# Past the automaton's budget (4^7 states): judged pattern by pattern.
expect_ok "insert a rule past the automaton's budget" iptables-legacy -w -A OUTPUT \
	"${r[@]}" --path '*a??????' --path '*b??????' --path '*c??????' \
	-m comment --comment budget
expect_ok "insert 2 patterns (nft)" iptables-nft -w -A OUTPUT "${r[@]}" \
	--path a --path 'b/*' -m comment --comment any-nft
expect_ok "insert inverted pair (nft)" iptables-nft -w -A OUTPUT "${r[@]}" \
	! --path a --path 'b/*' -m comment --comment none-nft

# "!" on a later --path: refused before anything reaches the kernel.
for ipt in iptables-legacy iptables-nft; do
	out=$($ipt -w -A OUTPUT -m cgroup2 --path a ! --path b 2>&1)
	expect "$ipt refuses ! on the second --path (status)" 2 $?
	expect_grep "$ipt says where the ! goes" \
		'cgroup2: "!" before the second or a later --path' "$out"
	out=$($ipt -w -A OUTPUT -m cgroup2 ! --path a ! --path b 2>&1)
	expect "$ipt refuses two !" 2 $?
done
expect "nothing extra in legacy OUTPUT" 4 "$(iptables-legacy -w -S OUTPUT | grep -c cgroup2)"

expect_grep "save form of the inverted set" \
	'-m cgroup2 ! --path a --path "b/c" -m comment --comment none' "$(iptables-legacy-save -t filter)"

sends a 127.0.0.1 $P 1
sends a/x 127.0.0.1 $P 2
sends b 127.0.0.1 $P 4
sends b/c 127.0.0.1 $P 8
sends b/c/d 127.0.0.1 $P 16
sends g1 127.0.0.1 $P 32
sends h 127.0.0.1 $P 64
sends "" 127.0.0.1 $P 128
sends xa123456 127.0.0.1 $P 256
sends b123456 127.0.0.1 $P 512
sends c12345 127.0.0.1 $P 1024

snap iptables-legacy OUTPUT
expect "a, b/c, g*: a a/x b/c b/c/d g1 (1+2+8+16+32)" 59 "$(snapc any)"
expect "! a, b/c: b g1 h, the root and the rest (4+32+64+128+256+512+1024)" 2020 "$(snapc none)"
expect "64th pattern h matches" 64 "$(snapc last-of-64)"
expect "past the budget: xa123456 b123456, not c12345 (256+512)" 768 "$(snapc budget)"
snap iptables-nft OUTPUT
expect "nft a, b/*: a a/x b/c b/c/d (1+2+8+16)" 27 "$(snapc any-nft)"
expect "nft ! a, b/*: b g1 h root and the rest (4+32+64+128+256+512+1024)" 2020 "$(snapc none-nft)"
# Every compiled rule but the one past the budget is one automaton.
rules=$(cat /sys/module/xt_cgroup2/parameters/rules)
expect "automata: all $rules compiled rules but one" $((rules - 1)) \
	"$(cat /sys/module/xt_cgroup2/parameters/automata 2>&1)"
finish
