#!/usr/bin/env bash
# SYN flood through INPUT rules, run in the VM (tests/bench/README.md):
# raw SYNs from a peer netns over veth to a listener in srv.service
# through no rules and through R rules (-m cgroup2 --path otherN.service,
# none matching, so every rule looks the listener up and judges every
# SYN), then DROP, so that TCP's own work does not drown the rules'.  The
# receiving side runs in the sender's system call (veth), so the sender's
# rate is the flood's.  The kinds take turns over rounds; each reports the
# median SYNs per second, and the rules' ratio to none.
# SYN_FLOOD_KO="A.ko B.ko": the rules once under each of these builds of
# the module, in turn (insmod before each measurement), to compare them.
. "$(dirname "$0")/../lib/vmtest.sh"
. "$(dirname "$0")/lib.sh"
need_module

N=${BENCH_SYNS:-20000}
R=${BENCH_RULES:-10}
ROUNDS=${BENCH_ROUNDS:-5}
KINDS=(none)
read -ra KOS <<<"${SYN_FLOOD_KO:-}"
if ((${#KOS[@]})); then
	for ((i = 0; i < ${#KOS[@]}; i++)); do KINDS+=("rules$i"); done
else
	KINDS+=(rules)
fi
P=9000
mkcg srv.service
for ((i = 0; i < R; i++)); do mkcg "other$i.service"; done
netns_add peer
veth_ns peer 10.9.0.1/24 10.9.0.2/24
sysctl -qw net.core.netdev_max_backlog=100000 || fail "sysctl"
# The peer drops the SYN-ACKs (it would answer each with a reset).
in_ns peer iptables-legacy -w -t raw -A PREROUTING -p tcp -j DROP || fail "peer raw rule"
bg_listen srv --cgroup srv.service listen tcp 10.9.0.1 $P --timeout 3600000

# ruleset KIND: an iptables-legacy-restore file with KIND's INPUT rules,
# and a counter of the SYNs that reached INPUT.
ruleset() {
	local i
	echo '*filter'
	echo ':INPUT ACCEPT [0:0]'
	echo "-A INPUT -p tcp --syn --dport $P -m comment --comment syns"
	if [[ $1 == rules* ]]; then
		for ((i = 0; i < R; i++)); do
			echo "-A INPUT -p tcp --dport $P -m cgroup2 --path other$i.service"
		done
	fi
	echo "-A INPUT -p tcp --dport $P -j DROP"
	echo COMMIT
}

# syns_per_s: one flood of N SYNs, the sender pinned to CPU 1.
syns_per_s() {
	local out ns
	out=$(in_ns peer taskset -c 1 synflood 10.9.0.2 10.9.0.1 $P "$N") ||
		{ echo "synflood: $out" >&2; return 1; }
	ns=$(sed -n 's/^ns //p' <<<"$out")
	[[ $out == "sent $N"* && -n $ns ]] || { echo "synflood: $out" >&2; return 1; }
	echo $((N * 1000000000 / ns))
}

# load_rules KIND: KIND's rules; rulesI first loads the module KOS[I].
load_rules() {
	if [[ $1 == rules[0-9]* ]]; then
		iptables-legacy -w -F INPUT && rmmod xt_cgroup2 &&
			insmod "${KOS[${1#rules}]}" || return 1
	fi
	iptables-legacy-restore "/tmp/bench.syn.$1"
}

for kind in "${KINDS[@]}"; do ruleset "$kind" >"/tmp/bench.syn.$kind"; done
# Warm up: neighbour resolution; then check that the flood arrives whole.
in_ns peer synflood 10.9.0.2 10.9.0.1 $P 1000 >/dev/null || fail "warm-up flood"
load_rules "${KINDS[-1]}" && iptables-legacy -w -Z INPUT
syns_per_s "${KINDS[-1]}" >/dev/null
expect "every SYN reached INPUT" "$N" "$(counter iptables-legacy INPUT syns)"
interleave load_rules syns_per_s
echo "CSV syn_flood,kind,syns_per_s,ratio to none"
for kind in "${KINDS[@]}"; do
	ratio=$(awk -v a="${med[$kind]}" -v b="${med[none]}" 'BEGIN { printf "%.3f", a / b }')
	echo "CSV syn_flood,$kind,${med[$kind]},$ratio"
	[[ $kind == none ]] ||
		echo "BENCH syn_flood: $R INPUT rules ($kind${KOS:+: ${KOS[${kind#rules}]}}): ${med[$kind]} SYN/s, ${ratio}x none (${med[none]} SYN/s)"
done
kill "$(cat "$BG_DIR/srv.pid")" 2>/dev/null
finish
