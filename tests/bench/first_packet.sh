#!/usr/bin/env bash
# First-packet cost of never-seen cgroups under the costliest rules the
# budget admits, as a ratio to a plain literal rule, run in the VM by
# "make bench".  What a user who makes cgroups only to have them judged
# does, as fast as one process can ("cgspray fresh", no fork): make a
# cgroup, join it, send one datagram from a new socket.  The cgroups are
# at depths 3 and 8: a short name, 200-byte ones, and the new cgroup's own
# of 191 to 193 bytes.  Each round makes N of them under each kind of
# rule, kinds taking turns; the making and joining is in every kind, so
# the ratio is what judging adds to the cheapest way to have a cgroup
# judged.
. "$(dirname "$0")/../lib/vmtest.sh"
. "$(dirname "$0")/lib.sh"
need_module
# Patterns go through unquoted expansions: no pathname expansion.
set -f

N=${BENCH_CGROUPS:-100}
ROUNDS=${BENCH_ROUNDS:-5}
read -ra DEPTHS <<<"${BENCH_DEPTHS:-3 8}"
P=9961
# The costliest rules of all, some a KiB long: revision 0's room.
export XT_CGROUP2_REVISION=0
A=$(name a a)
# "braces": the rule that cost seconds per cgroup before the compiled
# matcher (brace groups, a star, a 960-byte bracket; two such patterns).
braces="**/$(repeat '{a,a}' 8)*[$(repeat a 960)]b"
declare -A rule=(
	[literal]="--path bench.slice/web.service"
	[braces]="--path $braces --path ${braces/%b/c}"
	[nfa]=$(paths "$NFA_WORST")
)
KINDS=(literal braces nfa costliest)
udp_sink 127.0.0.1 $P

# us_per_cgroup KIND ROUND: N fresh cgroups at depth D, one datagram each.
us_per_cgroup() {
	local parent=fp$D$1$2 i out
	for ((i = 2; i < D; i++)); do parent+="/$A"; done
	mkcg "$parent"
	# The list first: cgspray's clock runs while it reads.
	for ((i = 0; i < N; i++)); do echo "$CG/$parent/${A:0:190}$i"; done >/tmp/fp.dirs
	out=$(cgspray 127.0.0.1 $P fresh </tmp/fp.dirs) || return 1
	[[ $out =~ ^$N\ fresh\ cgroups,\ ([0-9]+)\ ns/cgroup$ ]] || return 1
	# Every datagram reached the rule, and no fresh cgroup matched it.
	[[ $(iptables -nvxL OUTPUT | awk 'NR > 2 { printf "%s ", $1 }') == "$N 0 " ]] || return 1
	echo $((BASH_REMATCH[1] / 1000))
}

load_rule() {
	iptables -F OUTPUT &&
	iptables -A OUTPUT -p udp --dport $P &&
	# shellcheck disable=SC2086
	iptables -A OUTPUT -p udp --dport $P -m cgroup2 ${rule[$1]}
}

for D in "${DEPTHS[@]}"; do
	[[ -v WIDE[$D] ]] || { fail "no costliest rule known for depth $D (lib.sh WIDE)"; continue; }
	rule[costliest]=$(paths "${WIDE[$D]}")
	runs=() med=()
	interleave load_rule us_per_cgroup
	for kind in "${KINDS[@]}"; do
		printf 'BENCH first packet depth %d, %-9s rule: median %6d us per fresh cgroup (runs:%s)\n' \
			"$D" "$kind" "${med[$kind]}" "${runs[$kind]}"
	done
	for kind in "${KINDS[@]:1}"; do
		printf 'BENCH first packet depth %d, %s rule / literal rule: %d.%02dx (goal: at most 3x)\n' \
			"$D" "$kind" $((med[$kind] / med[literal])) $((med[$kind] * 100 / med[literal] % 100))
	done
done
finish
