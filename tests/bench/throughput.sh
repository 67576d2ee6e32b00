#!/usr/bin/env bash
# Datagrams per second through OUTPUT as rules pile up, run in the VM by
# "make bench": 0, 1, 10, 100 and 1,000 rules of each kind, every one
# matching the sender (a process at depth 3) and none ending the chain, so
# each packet meets them all.  Kinds: in-tree -m cgroup, ours literal, ours
# glob (iptables-restore; identical rules share one compiled rule and
# cache, as in-tree ones share their cgroup), ours "distinct" (the literal
# plus a pattern of the rule's own, so that none share), nft "socket
# cgroupv2 level 3" with the path and with a cgroupsv2 set that nft-cgroupd
# fills; and 100 patterns packed into two -m cgroup2 rules.  Datagrams go
# to a dummy device, which drops them for the price of a free.  Every
# configuration takes its turn in each of ROUNDS rounds (tests/bench/lib.sh)
# and reports its median.
. "$(dirname "$0")/../lib/vmtest.sh"
. "$(dirname "$0")/lib.sh"
need_module
modprobe xt_cgroup

N=${BENCH_PACKETS:-10000}
ROUNDS=${BENCH_ROUNDS:-3}
COUNTS=(1 10 100 1000)
P=9960
DST=10.98.1.2
SENDER=tp.slice/app.slice/web.service
KINDS=(none)
for n in "${COUNTS[@]}"; do
	for k in intree literal glob distinct nft_literal nft_set; do KINDS+=("$k:$n"); done
done
KINDS+=(packed:100)
mkcg "$SENDER"
ip link add cg2tp type dummy && ip addr add 10.98.1.1/24 dev cg2tp &&
	ip link set cg2tp up || { fail "dummy device"; finish; }

# xt_match KIND I: the match of xt rule I (from 0) of KIND, in $m (no
# subshell: it runs once per rule).
xt_match() {
	case $1 in
	intree) m="-m cgroup --path /$SENDER" ;;
	literal) m="-m cgroup2 --path $SENDER" ;;
	glob) m="-m cgroup2 --path tp.slice/*/web.service" ;;
	distinct) m="-m cgroup2 --path $SENDER --path tp.slice/unused$2" ;;
	esac
}

# packed_rules: 100 patterns in two rules, 50 each; only the last matches.
packed_rules() {
	local r i
	for r in 0 1; do
		printf -- '-A OUTPUT -p udp -d %s --dport %d -m cgroup2' $DST $P
		for ((i = 0; i < 49; i++)); do printf ' --path tp.slice/other%d.service' $((r * 50 + i)); done
		echo " --path $SENDER"
	done
}

# ruleset KIND N: the rules as a file for iptables-restore or nft -f.
ruleset() {
	local i m
	case $1 in
	nft_*)
		[[ $1 == nft_set ]] && m=@s || m="\"$SENDER\""
		echo "table inet tp { set s { type cgroupsv2; }"
		echo "chain out { type filter hook output priority 0;"
		for ((i = 0; i < $2; i++)); do
			echo "ip daddr $DST udp dport $P socket cgroupv2 level 3 $m counter"
		done
		printf "}\n}\n"
		;;
	*)
		echo '*filter'
		echo ':OUTPUT ACCEPT [0:0]'
		if [[ $1 == packed ]]; then
			packed_rules
		else
			for ((i = 0; i < $2; i++)); do
				xt_match "$1" "$i"
				echo "-A OUTPUT -p udp -d $DST --dport $P $m"
			done
		fi
		echo COMMIT
		;;
	esac
}

# load KIND:N: only the rules of KIND:N in place (none: no rules).
load() {
	iptables -F OUTPUT
	nft delete table inet tp 2>/dev/null
	case $1 in
	none) ;;
	nft_set:*)
		nft -f "/tmp/tp.$1" &&
			nft-cgroupd --once "inet:tp:s=tp.slice/*/web.service" 2>/tmp/tp.err ;;
	nft_*) nft -f "/tmp/tp.$1" ;;
	# 50 patterns a rule, 1.2 KiB: revision 0's room
	packed:*) XT_CGROUP2_REVISION=0 iptables-restore "/tmp/tp.$1" ;;
	*) iptables-restore "/tmp/tp.$1" ;;
	esac
}

# pps KIND ROUND: datagrams per second of one run of N from the sender,
# pinned to CPU 1; fails (reason on stderr) unless all were sent.
pps() {
	local t0 t1 out
	t0=${EPOCHREALTIME/./}
	out=$(taskset -c 1 cg2net --cgroup "$SENDER" send udp $DST $P --count "$N")
	t1=${EPOCHREALTIME/./}
	[[ $out == "sent $N" ]] || { echo "send under $1: $out" >&2; return 1; }
	echo $((N * 1000000 / (t1 - t0)))
}

for kind in "${KINDS[@]:1}"; do ruleset "${kind%:*}" "${kind#*:}" >"/tmp/tp.$kind"; done
# Every rule saw every packet: check one configuration of each family.
load literal:10 && pps literal:10 1 >/dev/null
expect "each of 10 cgroup2 rules counted every datagram" "$((10 * N))" \
	"$(iptables-save -c | sed -n 's/^\[\([0-9]*\):.*cgroup2.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')"
load nft_set:10 && pps nft_set:10 1 >/dev/null
expect "each of 10 nft set rules counted every datagram" "$((10 * N))" \
	"$(nft list table inet tp | sed -n 's/.*counter packets \([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')"
interleave load pps
nft delete table inet tp 2>/dev/null

x() { echo "$(($1 * 100 / $2 / 100)).$(printf '%02d' $(($1 * 100 / $2 % 100)))"; }
echo "CSV throughput,rules,in-tree pps,cgroup2 literal pps,cgroup2 glob pps,cgroup2 distinct pps,nft literal pps,nft set pps"
echo "CSV throughput,0,${med[none]},${med[none]},${med[none]},${med[none]},${med[none]},${med[none]}"
for n in "${COUNTS[@]}"; do
	echo "CSV throughput,$n,${med[intree:$n]},${med[literal:$n]},${med[glob:$n]},${med[distinct:$n]},${med[nft_literal:$n]},${med[nft_set:$n]}"
done
for kind in "${KINDS[@]}"; do
	printf 'BENCH throughput %-16s median %6d datagrams/s (runs:%s)\n' "$kind" "${med[$kind]}" "${runs[$kind]}"
done
echo "BENCH throughput: 100 patterns in two cgroup2 rules $(x "${med[packed:100]}" "${med[intree:100]}")x the datagrams/s of 100 in-tree rules (goal >= 1.5x);" \
	"1,000 rules: literal $(x "${med[literal:1000]}" "${med[intree:1000]}")x, glob $(x "${med[glob:1000]}" "${med[intree:1000]}")x," \
	"distinct $(x "${med[distinct:1000]}" "${med[intree:1000]}")x in-tree"
finish
