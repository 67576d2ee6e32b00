#!/usr/bin/env bash
# First-packet cost of a never-seen cgroup under the most expensive rule
# the state budget admits, as a ratio to a plain literal rule, run in the
# VM by "make bench".  Each round sends one datagram from each of N fresh
# cgroups (three levels of 200-byte names, as hostile users can make) under
# each kind of rule, kinds taking turns; the process start and the send are
# in both, so the ratio shows what judging the cgroup adds.
. "$(dirname "$0")/../lib/vmtest.sh"
. "$(dirname "$0")/lib.sh"
need_module

N=${BENCH_CGROUPS:-20}
ROUNDS=${BENCH_ROUNDS:-5}
P=9961
name() { printf "$1%.0s" $(seq 199); printf '%s' "$2"; }
stars() { printf "*$1%.0s" $(seq 127); }
# "braces": the rule that cost seconds per cgroup before the compiled
# matcher (brace groups, a star, a 960-byte bracket; two such patterns).
braces="**/$(printf '{a,a}%.0s' $(seq 8))*[$(printf 'a%.0s' $(seq 960))]b"
declare -A rule=(
	[literal]="--path bench.slice/web.service"
	[worst]="--path **/$(stars '?')b --path **/$(stars a)c"
	[braces]="--path $braces --path ${braces/%b/c}"
)
KINDS=(${BENCH_KINDS:-literal worst braces})
A=$(name a a)
udp_sink 127.0.0.1 $P
mkcg bench.slice/web.service

# us_per_cgroup KIND ROUND: N fresh cgroups, one datagram each.
us_per_cgroup() {
	local i cg t0 t1
	for ((i = 0; i < N; i++)); do mkcg "f$1$2/$A/${A:0:190}$i"; done
	t0=${EPOCHREALTIME/./}
	for ((i = 0; i < N; i++)); do
		cg="f$1$2/$A/${A:0:190}$i"
		[[ $(udp_from "$cg" 127.0.0.1 $P) == "sent 1" ]] || return 1
	done
	t1=${EPOCHREALTIME/./}
	echo $(((t1 - t0) / N))
}

load_rule() {
	iptables -F OUTPUT
	# shellcheck disable=SC2086
	iptables -A OUTPUT -p udp --dport $P -m cgroup2 ${rule[$1]}
}

interleave load_rule us_per_cgroup
for kind in "${KINDS[@]}"; do
	printf 'BENCH first packet, %-7s rule: median %6d us per fresh cgroup (runs:%s)\n' \
		"$kind" "${med[$kind]}" "${runs[$kind]}"
done
for kind in "${KINDS[@]:1}"; do
	printf 'BENCH first packet, %s rule / literal rule: %d.%02dx (goal: at most 3x)\n' \
		"$kind" $((med[$kind] / med[literal])) $((med[$kind] * 100 / med[literal] % 100))
done
finish
