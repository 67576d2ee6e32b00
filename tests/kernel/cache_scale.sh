#!/usr/bin/env bash
# The verdict cache scales with the cgroups that send through a rule and
# stays bounded: 2,000 cgroups (1,000 matching, 1,000 not) sending in turn
# fill it, after a few rounds a whole round costs no judgement (a table of
# 128 verdicts would judge nearly every datagram), and verdicts stay exact
# while verdicts are evicted, tables grow, and every cgroup is recreated.
# Then 20,000 cgroups through one rule: the table of its netns's verdict
# cache stops at its bound for one block of rules, 128 KiB (cache_bytes),
# and at 256 KiB once rules fill two blocks; the verdicts stay exact.
# vm-batch: alone
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

J=/sys/module/xt_cgroup2/parameters/judgements
B=/sys/module/xt_cgroup2/parameters/cache_bytes
[[ -r $J && -r $B ]] || { fail "no $J or $B"; finish; }
N=1000
P=9940
DST=10.99.0.2
# Datagrams to a dummy device go nowhere, cheaply, and need no listener.
ip link add cg2sink type dummy && ip addr add 10.99.0.1/24 dev cg2sink &&
	ip link set cg2sink up || { fail "dummy device"; finish; }
# names [PREFIX]: the cgroups, matching and not in turn (one mkdir: forks
# are slow under TCG).
names() { paste -d '\n' <(seq -f "${1:-}m%.0f" 1 $N) <(seq -f "${1:-}n%.0f" 1 $N); }
mkdir "$CG/scale" && (cd "$CG/scale" && mkdir $(names)) || fail "mkdir scale/*"
dirs() { names "$CG/scale/"; }
iptables -A OUTPUT -p udp -d $DST --dport $P -m cgroup2 --path 'scale/m*' \
	-m comment --comment cache

# round WANT: every cgroup sends one datagram; the rule must have counted
# WANT in all; prints the judgements the round cost.
round() {
	local before out
	before=$(cat "$J")
	out=$(dirs | cgspray $DST $P $((2 * N)) 1) || fail "cgspray: $out"
	expect "$2: counted exactly" "$1" "$(counter iptables OUTPUT cache)"
	sleep 1 # tables grow in a work item
	echo $(($(cat "$J") - before)) >/tmp/judged
}

# settle TAG SENT: rounds until one costs no judgement (at most 6); the
# rounds before it may judge cgroups whose verdicts were evicted.
settle() {
	local r sent=$2 judged=
	for ((r = 1; r <= 6; r++)); do
		sent=$((sent + N))
		round $sent "$1, round $r"
		judged+=" $(cat /tmp/judged)"
		[[ $(cat /tmp/judged) == 0 ]] && break
	done
	expect "$1: a whole round from cached verdicts (judgements per round:$judged)" 0 "$(cat /tmp/judged)"
	SENT=$sent
}

round $N "first round"
judged=$(cat /tmp/judged)
((judged >= 2 * N)) && pass "first round: every cgroup judged ($judged)" ||
	fail "first round: every cgroup judged (want >= $((2 * N)), got $judged)"
settle "2,000 cgroups" $N
bytes=$(cat "$B")
((bytes > 1024 && bytes <= 131072)) && pass "the table grew, within its bound ($bytes bytes)" ||
	fail "the table grew, within its bound (want 1025..131072, got $bytes)"

(cd "$CG/scale" && rmdir $(names) && mkdir $(names)) || fail "recreate scale/*"
round $((SENT + N)) "after recreating every cgroup"
judged=$(cat /tmp/judged)
((judged >= 2 * N)) && pass "recreated cgroups judged anew ($judged)" ||
	fail "recreated cgroups judged anew (want >= $((2 * N)), got $judged)"
settle "recreated cgroups" $((SENT + N))

# The bound: 20,000 cgroups through one new rule; 11,111 of them match
# 'wide/c1*' (c1, c10..c19, c100..c199, c1000..c1999, c10000..c19999).
iptables -F OUTPUT
expect "no rule, no table" 0 "$(cat "$B")"
W=20000
mkdir "$CG/wide" && (cd "$CG/wide" && mkdir $(seq -f 'c%.0f' 1 $W)) || fail "mkdir wide/c1..c$W"
iptables -A OUTPUT -p udp -d $DST --dport $P -m cgroup2 --path 'wide/c1*' \
	-m comment --comment wide
# One cgspray for six rounds: joining 20,000 cgroups is what takes long on
# a debug kernel.  Before each round (and after the last) the counters and
# cache_bytes are saved, with a second for the table to grow in between.
# Before round 4 come 8 rules more, 'wide/c2*' to 'wide/c9*' (1,112 and
# 1,111 cgroups), ids 1 to 8: the last is in a second block of the cache,
# whose bound doubles to 256 KiB: one slot per cgroup and block.
cat >/tmp/wide_hook <<EOF
r=\$CGSPRAY_ROUND
iptables-save -c -t filter >/tmp/wide.\$r
cat $B >/tmp/wide.bytes.\$r
if ((r == 4)); then
	for d in 2 3 4 5 6 7 8 9; do
		iptables -A OUTPUT -p udp -d $DST --dport $P -m cgroup2 \\
			--path "wide/c\$d*" -m comment --comment "w\$d" || exit 1
	done
fi
sleep 1
EOF
wide_count() { sed -n "s/^\[\([0-9]*\):.*--comment ${2:-wide}\$/\1/p" "$1"; }
out=$(seq -f "$CG/wide/c%.0f" 1 $W |
	CGSPRAY_BEFORE="bash /tmp/wide_hook" cgspray $DST $P $W 6) || fail "cgspray: $out"
iptables-save -c -t filter >/tmp/wide.7
for r in 1 2 3 4 5 6; do
	expect "20,000 cgroups, round $r: counted exactly" $((r * 11111)) \
		"$(wide_count /tmp/wide.$((r + 1)))"
done
expect "20,000 cgroups, one rule: the table stops at its bound" 131072 "$(cat /tmp/wide.bytes.4)"
for d in 2 3 4 5 6 7 8 9; do
	want=$((d == 2 ? 1112 : 1111))
	expect "8 rules more, wide/c$d*: counted exactly in 3 rounds" $((3 * want)) \
		"$(wide_count /tmp/wide.7 "w$d")"
done
expect "20,000 cgroups, rules in two blocks: the table stops at twice the bound" 262144 "$(cat "$B")"
iptables -F OUTPUT

# The limit (cache_limit) of a network namespace other than the initial
# one: it bounds what a tenant's caches hold.  At 8 KiB a table may grow
# from 1 KiB to 4 KiB (1 + 4 <= 8 while both live) but never to 16 KiB;
# verdicts stay exact while the rule judges more often.
L=/sys/module/xt_cgroup2/parameters/cache_limit
echo 8192 >"$L" || fail "set $L"
netns_add tenant
tipt() { in_ns tenant iptables "$@"; }
in_ns tenant ip link add cg2sink type dummy &&
	in_ns tenant ip addr add 10.99.0.1/24 dev cg2sink &&
	in_ns tenant ip link set cg2sink up || fail "dummy device in tenant"
tipt -A OUTPUT -p udp -d $DST --dport $P -m cgroup2 --path 'scale/m*' \
	-m comment --comment capped
for r in 1 2 3 4; do
	out=$(dirs | in_ns tenant cgspray $DST $P $((2 * N)) 1) || fail "cgspray: $out"
	expect "cache_limit 8 KiB, round $r: counted exactly" $((r * N)) \
		"$(counter tipt OUTPUT capped)"
	sleep 1
done
expect "cache_limit 8 KiB: the table grew once, then stopped" 4096 "$(cat "$B")"
tipt -F OUTPUT
echo $((64 << 20)) >"$L"
finish
