# shellcheck shell=bash
# Helpers for the benchmarks (tests/bench/*.sh), sourced in the VM after
# tests/lib/vmtest.sh.  Kinds of rules take turns over ROUNDS rounds, so
# drift of the emulated machine hits all of them alike; each kind reports
# the median of its rounds.

median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }

# interleave LOAD MEASURE: in each of ROUNDS rounds, for each kind in
# KINDS, "LOAD KIND" installs its rules and "MEASURE KIND ROUND" prints one
# figure.  The figures are in runs[KIND], their median in med[KIND].
declare -A runs med
interleave() {
	local r kind t
	for ((r = 1; r <= ROUNDS; r++)); do
		for kind in "${KINDS[@]}"; do
			"$1" "$kind" || { fail "load the $kind rules"; finish; }
			t=$("$2" "$kind" "$r") || { fail "measure under $kind"; finish; }
			runs[$kind]+=" $t"
		done
	done
	iptables -F OUTPUT
	for kind in "${KINDS[@]}"; do
		# shellcheck disable=SC2086
		med[$kind]=$(median ${runs[$kind]})
	done
}

# repeat TEXT N: TEXT N times (nothing for N = 0, unlike printf over seq).
repeat() {
	local i
	for ((i = 0; i < $2; i++)); do printf '%s' "$1"; done
}
# name C END: a 200-byte cgroup name, as hostile users can make: 199 C, END.
name() { repeat "$1" 199; printf '%s' "$2"; }
# paths PATTERNS: the match options for a list of patterns (under set -f).
paths() {
	local p
	for p in $1; do printf -- '--path %s ' "$p"; done
}

# The costliest accepted rule of the NFA matcher (globs of stars after "**").
NFA_WORST="**/$(repeat '*?' 127)b **/$(repeat '*a' 127)c"
# The costliest rule a search over "**/" + "*a/" x K + "*X" found for fresh
# cgroups at depths 2, 3 and 8 (host step counter, rule budget: 512
# states, 64 patterns; the names: a short one, then 200-byte ones of "a",
# the last ending in a digit): as many patterns as fit, each reading names
# to their ends at every alignment that leaves room for the rest.  X: no
# name ends in it.  Depth 3's is depth 2's.
ENDS=({b..z} {A..Z} - _ @ + = '~' % '^' : . , '#' '&')
wide() {
	local n=$2 i globs
	globs=$(repeat '/*a' "$1")
	for ((i = 0; i < n; i++)); do printf '**%s/*%s ' "$globs" "${ENDS[i]}"; done
}
declare -A WIDE=([2]="$(wide 0 64)" [8]="$(wide 2 56)")
WIDE[3]=${WIDE[2]}
