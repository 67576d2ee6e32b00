#!/usr/bin/env bash
# The rules of a netns keep their verdicts side by side, 128 to a verdict
# cache, each under an id (kmod/xt_cgroup2_cache.c).  129 rules that each
# match one cgroup of 130, plus one that matches them all: every datagram
# is counted by its own rule only, across blocks of ids and two caches,
# and the root cgroup's verdicts, none, are cached in every block too.
# Then the 129 are deleted and 129 new ones take their ids, each matching
# the cgroup its id's rule matched and the one after: an id given out
# while a table still held its old rule's verdicts would count one, not
# two.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

J=/sys/module/xt_cgroup2/parameters/judgements
B=/sys/module/xt_cgroup2/parameters/cache_bytes
R=/sys/module/xt_cgroup2/parameters/rules
N=130
P=9950
DST=10.99.2.2
ip link add cg2ids type dummy && ip addr add 10.99.2.1/24 dev cg2ids &&
	ip link set cg2ids up || { fail "dummy device"; finish; }
mkdir "$CG/ids" && (cd "$CG/ids" && mkdir $(seq -f 'p%.0f' 1 $N)) ||
	{ fail "mkdir ids/p1..p$N"; finish; }
ipt() { iptables-legacy -w "$@"; }
ipt -A OUTPUT -p udp -d $DST --dport $P -m cgroup2 --path 'ids/*' \
	-m comment --comment keep &&
	ipt -N ids && ipt -A OUTPUT -p udp -d $DST --dport $P -j ids ||
	{ fail "the keeper and chain ids"; finish; }

# load PAIRS: rules r1..r(N-1) in chain ids, rule rK matching ids/pK, and
# if PAIRS is 1 also ids/p(K+1).
load() {
	local k path
	{
		echo '*filter'
		for ((k = 1; k < N; k++)); do
			path=ids/p$k
			(($1)) && path="ids/p{$k,$((k + 1))}"
			echo "-A ids -m cgroup2 --path $path -m comment --comment r$k"
		done
		echo COMMIT
	} | iptables-legacy-restore -w --noflush
}
# counts: "keep COUNT" then "rK COUNT" for each rule in chain ids.
counts() {
	iptables-legacy-save -c -t filter |
		sed -n 's/^\[\([0-9]*\):.*--comment \([a-z0-9]*\).*/\2 \1/p'
}
# settle PAIRS: a datagram from each cgroup, round after round, until a
# round costs no judgement (at most 8; tables grow in a work item, empty);
# then rule rK must have counted one datagram per round for each of its
# cgroups (1 + PAIRS), and the keeper every datagram.
settle() {
	local r out before judged= want k
	for ((r = 1; r <= 8; r++)); do
		before=$(cat "$J")
		out=$(seq -f "$CG/ids/p%.0f" 1 $N | cgspray $DST $P $N 1) ||
			fail "cgspray: $out"
		judged+=" $(($(cat "$J") - before))"
		((${judged##* } == 0)) && break
		sleep 1
	done
	expect "pairs $1: a whole round from cached verdicts (judgements:$judged)" 0 "${judged##* }"
	want="keep $((N * r))"
	for ((k = 1; k < N; k++)); do
		want+=$'\n'"r$k $(((1 + $1) * r))"
	done
	expect "pairs $1, $r rounds: each rule counted its own cgroups only" "$want" "$(counts)"
}

load 0 || fail "rules r1..r$((N - 1)) for ids/p1..p$((N - 1))"
expect "$N rules compiled" $N "$(cat "$R")"
expect "$N rules: two verdict caches, new" 2048 "$(cat "$B")"
settle 0
# The root cgroup: judged by every rule once, then from its cached slots
# (its serial number, 0, is what an empty slot holds).
rj=
for i in 1 2; do
	before=$(cat "$J")
	out=$(echo "$CG" | cgspray $DST $P 1 1) || fail "cgspray from the root: $out"
	rj+=" $(($(cat "$J") - before))"
done
expect "the root cgroup: judged by all $N rules, then cached" " $N 0" "$rj"

ipt -F ids || fail "flush chain ids"
expect "the keeper left" 1 "$(cat "$R")"
kept=$(cat "$B")
load 1 || fail "rules r1..r$((N - 1)) for ids/p{1,2}..p{$((N - 1)),$N}"
# The keeper's cache gave its ids out again with a new table of the same
# size; the last two rules made a cache of their own again.
expect "ids given out again: the keeper's cache and one new" $((kept + 1024)) "$(cat "$B")"
# The new rules' counters start at 0, the keeper's again too.
ipt -Z OUTPUT || fail "zero counters"
settle 1
ipt -D OUTPUT -p udp -d $DST --dport $P -j ids && ipt -F ids && ipt -X ids &&
	ipt -F OUTPUT || fail "remove the rules"
expect "no rule: no verdict cache" 0 "$(cat "$B")"
finish
