#!/usr/bin/env bash
# Per-datagram cost as the number of sending cgroups grows (1, 100, 1,000,
# 10,000), run in the VM by "make bench".  cgspray opens one UDP socket in
# each cgroup and sends BENCH_PACKETS datagrams per round, taking the
# sockets in turn, to a dummy device (cheap to sink).  R rules with the
# literal -m cgroup2 --path many, which every sender matches, and a second
# pattern of each rule's own, so that each keeps its own verdicts (identical
# rules would share them: kmod/xt_cgroup2_share.c), sit in a
# chain that OUTPUT jumps to in "on" rounds and not in "off" rounds; the
# rules stay (iptables-nft), so their verdict caches stay warm.  After WARM
# warm-up rounds, on and off take turns; each reports its median, and the
# match cost is on - off.  The goal: the cost at 10,000 cgroups at most
# 1.5x the cost at one.  The judgements column counts verdict cache misses
# in the measured rounds.
. "$(dirname "$0")/../lib/vmtest.sh"
. "$(dirname "$0")/lib.sh"
need_module

COUNT=${BENCH_PACKETS:-50000}
ROUNDS=${BENCH_ROUNDS:-5}
R=${BENCH_CHAIN_RULES:-100}
WARM=2
SIZES=(1 100 1000 10000)
DST=10.99.1.2
P=9930
J=/sys/module/xt_cgroup2/parameters/judgements
B=/sys/module/xt_cgroup2/parameters/cache_bytes
ip link add cg2bench type dummy && ip addr add 10.99.1.1/24 dev cg2bench &&
	ip link set cg2bench up || { fail "dummy device"; finish; }
mkdir "$CG/many" && (cd "$CG/many" && mkdir $(seq -f 'c%.0f' 1 "${SIZES[-1]}")) ||
	{ fail "mkdir many/c*"; finish; }
{
	echo '*filter'
	echo ':cg2bench - [0:0]'
	for ((i = 1; i <= R; i++)); do
		echo "-A cg2bench -p udp -d $DST --dport $P -m cgroup2 --path many --path unused$i"
	done
	echo COMMIT
} | iptables-restore --noflush || { fail "the $R rules in chain cg2bench"; finish; }

# The hook cgspray runs before each round: warm-up rounds and odd measured
# rounds "on", even ones "off"; notes the judgements when measuring starts.
cat >/tmp/many_toggle <<EOF
r=\$CGSPRAY_ROUND
iptables -D OUTPUT -j cg2bench 2>/dev/null
((r == $WARM + 1)) && cat $J >/tmp/many_j0
((r <= $WARM || (r - $WARM) % 2 == 1)) && iptables -A OUTPUT -j cg2bench
exit 0
EOF

echo "CSV many_cgroups,cgroups,on_ns,off_ns,match_ns,match_ratio,judgements,cache_bytes"
for n in "${SIZES[@]}"; do
	out=$(seq -f "$CG/many/c%.0f" 1 "$n" |
		CGSPRAY_BEFORE="bash /tmp/many_toggle" cgspray $DST $P "$COUNT" $((WARM + 2 * ROUNDS))) ||
		{ fail "cgspray from $n cgroups: $out"; continue; }
	judged=$(($(cat $J) - $(cat /tmp/many_j0)))
	on=() off=()
	while read -r _ r _ _ ns _; do
		r=${r%:}
		((r <= WARM)) && continue
		if (((r - WARM) % 2)); then on+=("$ns"); else off+=("$ns"); fi
	done < <(grep '^round ' <<<"$out")
	mon=$(median "${on[@]}") moff=$(median "${off[@]}")
	match[n]=$(((mon - moff) / R))
	((n == 1)) && base=${match[1]}
	ratio=$(awk -v a="${match[n]}" -v b="$base" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
	printf 'BENCH %5d cgroups: on %6d off %6d ns/datagram, %d rules: %5d ns per match (%sx the cost at 1), %d judgements, cache %d bytes (on:%s off:%s)\n' \
		"$n" "$mon" "$moff" "$R" "${match[n]}" "$ratio" "$judged" "$(cat $B)" \
		"$(printf ' %s' "${on[@]}")" "$(printf ' %s' "${off[@]}")"
	echo "CSV many_cgroups,$n,$mon,$moff,${match[n]},$ratio,$judged,$(cat $B)"
done
iptables -D OUTPUT -j cg2bench 2>/dev/null
iptables -F cg2bench && iptables -X cg2bench
((base > 0)) || fail "the rules cost nothing measurable at 1 cgroup; raise BENCH_CHAIN_RULES"
finish
