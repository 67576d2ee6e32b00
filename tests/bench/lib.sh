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
