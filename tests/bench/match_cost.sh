#!/usr/bin/env bash
# Per-packet cost of -m cgroup2 beside the in-tree -m cgroup, run in the VM
# by "make bench".  A process in a cgroup four levels deep sends UDP over
# loopback through R rules that do not match it and one that does: no
# rules, in-tree literals, ours with literals, ours with two globs per
# rule.  The kinds take turns over several rounds and each reports its
# median, so drift of the emulated machine hits all of them alike; under
# TCG the absolute numbers mean little, the ratios are the point.
. "$(dirname "$0")/../lib/vmtest.sh"
. "$(dirname "$0")/lib.sh"
need_module
modprobe xt_cgroup

N=${BENCH_PACKETS:-100000}
R=${BENCH_RULES:-100}
ROUNDS=${BENCH_ROUNDS:-5}
KINDS=(none intree literal glob)
P=9970
SENDER=bench.slice/app.slice/web.service/worker
mkcg "$SENDER"
for ((i = 0; i < R; i++)); do mkcg "bench.slice/other$i.service"; done
udp_sink 127.0.0.1 $P $((ROUNDS * ${#KINDS[@]} * N + 1))

# ruleset KIND: an iptables-restore file with the rules of KIND in OUTPUT.
ruleset() {
	local i m
	echo '*filter'
	echo ':OUTPUT ACCEPT [0:0]'
	for ((i = 0; i <= R; i++)); do
		m=
		case $1/$((i < R)) in
		intree/1) m="-m cgroup --path bench.slice/other$i.service" ;;
		literal/1) m="-m cgroup2 --path bench.slice/other$i.service" ;;
		glob/1) m="-m cgroup2 --path bench.slice/other$i.* --path bench.slice/**/x$i" ;;
		intree/0) m="-m cgroup --path bench.slice/app.slice" ;;
		literal/0) m="-m cgroup2 --path bench.slice/app.slice" ;;
		glob/0) m="-m cgroup2 --path bench.slice/*.slice/{web,api}.service" ;;
		esac
		[[ -n $m ]] && echo "-A OUTPUT -p udp --dport $P $m"
	done
	echo COMMIT
}

# ns_per_packet: one run of N datagrams from the sender, pinned to CPU 1,
# in ns per datagram; fails (reason on stderr) unless all were sent.
ns_per_packet() {
	local t0 t1 out
	t0=${EPOCHREALTIME/./}
	out=$(taskset -c 1 cg2net --cgroup "$SENDER" send udp 127.0.0.1 $P --count "$N")
	t1=${EPOCHREALTIME/./}
	[[ $out == "sent $N" ]] || { echo "bench send: $out" >&2; return 1; }
	echo $(((t1 - t0) * 1000 / N))
}

load_rules() { iptables-restore "/tmp/bench.$1"; }

for kind in "${KINDS[@]}"; do ruleset "$kind" >"/tmp/bench.$kind"; done
interleave load_rules ns_per_packet
for kind in "${KINDS[@]}"; do
	rules=$((R + 1))
	[[ $kind == none ]] && rules=0
	printf 'BENCH %-8s %3d rules: median %6d ns/packet, +%6d over none (runs:%s)\n' \
		"$kind" "$rules" "${med[$kind]}" $((med[$kind] - med[none])) "${runs[$kind]}"
done
cost() { echo $(((med[$1] - med[none]) * 100 / (med[intree] - med[none]))); }
if ((med[intree] > med[none])); then
	printf 'BENCH extra cost vs in-tree: cgroup2 literal %s%%, cgroup2 glob %s%%\n' \
		"$(cost literal)" "$(cost glob)"
else
	fail "in-tree rules cost nothing measurable; raise BENCH_RULES or BENCH_PACKETS"
fi
finish
