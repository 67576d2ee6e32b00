#!/usr/bin/env bash
# Per-packet cost of -m cgroup2 beside the in-tree -m cgroup, run in the VM
# by "make bench".  One process in a cgroup four levels deep sends UDP
# datagrams over loopback through R rules that do not match, then one that
# does; the time per datagram is compared with no rules at all.  Under TCG
# the absolute numbers mean little; the ratios are the point.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
modprobe xt_cgroup

N=${BENCH_PACKETS:-200000}
R=${BENCH_RULES:-20}
P=9970
SENDER=bench.slice/app.slice/web.service/worker
mkcg "$SENDER"
for ((i = 0; i < R; i++)); do mkcg "bench.slice/other$i.service"; done
udp_sink 127.0.0.1 $P

# ns_per_packet: best of three runs of N datagrams, in ns per datagram.
ns_per_packet() {
	local best= t0 t1 out d
	for _ in 1 2 3; do
		t0=${EPOCHREALTIME/./}
		out=$(cg2net --cgroup "$SENDER" send udp 127.0.0.1 $P --count "$N")
		t1=${EPOCHREALTIME/./}
		[[ $out == "sent $N" ]] || fail "bench send ($out)"
		d=$(((t1 - t0) * 1000 / N))
		[[ -z $best || $d -lt $best ]] && best=$d
	done
	echo "$best"
}

# load KIND: R rules that do not match the sender, then one that does, in
# OUTPUT; KIND is intree, literal (ours) or glob (ours, two globs per rule).
load() {
	local kind=$1 i
	iptables -F OUTPUT
	for ((i = 0; i < R; i++)); do
		case $kind in
		intree) iptables -A OUTPUT -p udp --dport $P -m cgroup --path "bench.slice/other$i.service" ;;
		literal) iptables -A OUTPUT -p udp --dport $P -m cgroup2 --path "bench.slice/other$i.service" ;;
		glob) iptables -A OUTPUT -p udp --dport $P -m cgroup2 --path "bench.slice/other$i.*" \
			--path "bench.slice/**/x$i" ;;
		esac
	done
	case $kind in
	intree) iptables -A OUTPUT -p udp --dport $P -m cgroup --path bench.slice/app.slice ;;
	literal) iptables -A OUTPUT -p udp --dport $P -m cgroup2 --path bench.slice/app.slice ;;
	glob) iptables -A OUTPUT -p udp --dport $P -m cgroup2 --path 'bench.slice/*.slice/{web,api}.service' ;;
	esac
}

iptables -F OUTPUT
base=$(ns_per_packet)
printf 'BENCH %-44s %6s ns/packet\n' "no rules" "$base"
for kind in intree literal glob; do
	load $kind
	t=$(ns_per_packet)
	printf 'BENCH %-44s %6s ns/packet  (+%s ns over no rules)\n' \
		"$((R + 1)) rules, $kind" "$t" "$((t - base))"
	eval "cost_$kind=$((t - base))"
done
iptables -F OUTPUT
if ((cost_intree > 0)); then
	printf 'BENCH cgroup2 literal / in-tree cost: %s%%; glob / in-tree: %s%%\n' \
		"$((cost_literal * 100 / cost_intree))" "$((cost_glob * 100 / cost_intree))"
fi
finish
