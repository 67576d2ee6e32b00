#!/usr/bin/env bash
# leakcheck.sh COMMAND...: run COMMAND in the debug-kernel VM, then remove
# every rule, unload the project's modules and let kmemleak look for what
# they left behind.  Prints "PASS leakcheck ..." or "FAIL leakcheck ...";
# exits with COMMAND's status, or 1 if it passed but the unload or the scan
# did not.  make check-debug wraps each kernel test in it (tests/check).
set -uo pipefail
KMEMLEAK=/sys/kernel/debug/kmemleak
MODULES=(xt_CGROUP2LOG xt_cgroup2)

kmemleak() { echo "$1" >"$KMEMLEAK"; }

# Forget what the boot left: only the test's leaks are of interest.
start_clean() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	if [[ ! -w $KMEMLEAK ]]; then
		echo "FAIL leakcheck (no $KMEMLEAK: this kernel has no kmemleak)"
		exit 1
	fi
	kmemleak scan
	kmemleak clear
}

# Drop every rule that could hold the modules: both iptables back ends,
# every table, and whatever nft tables remain.
remove_rules() {
	local ipt t ns
	# Rules in named netns (invert.sh's router, translate.sh's) hold the
	# module too: the namespaces go first, with their rules.
	for ns in $(ip netns list 2>/dev/null | cut -d' ' -f1); do
		ip netns del "$ns"
	done
	for ipt in iptables-legacy ip6tables-legacy; do
		for t in filter mangle raw nat; do
			"$ipt" -w -t "$t" -F 2>/dev/null
			"$ipt" -w -t "$t" -X 2>/dev/null
		done
	done
	nft flush ruleset 2>/dev/null
	nft -n list ruleset 2>/dev/null | grep -q . && nft flush ruleset
}

# rmmod MODULE unless it is not loaded; true when it is gone.  nf_tables
# drops a deleted rule's references, and a deleted netns its rules, from
# work items (slow under KASAN): give them 20 s.
unload() {
	local i
	for ((i = 0; i < 20; i++)); do
		grep -q "^$1 " /proc/modules || return 0
		rmmod "$1" 2>/dev/null && return 0
		sleep 1
	done
	rmmod "$1"
}

# kmemleak reports an object only once its checksum is stable across two
# scans and it is older than 5 s.
scan_for_leaks() {
	sleep 6
	kmemleak scan
	kmemleak scan
	cat "$KMEMLEAK"
}

start_clean
"$@"
rc=$?
remove_rules
bad=0
for m in "${MODULES[@]}"; do
	if ! out=$(unload "$m" 2>&1); then
		echo "FAIL leakcheck (rmmod $m after removing every rule: $out)"
		bad=1
	fi
done
leaks=$(scan_for_leaks)
if [[ -n $leaks ]]; then
	echo "FAIL leakcheck ($(grep -c '^unreferenced object' <<<"$leaks") kmemleak reports after unloading)"
	head -n 80 <<<"$leaks"
	bad=1
elif ((!bad)); then
	echo "PASS leakcheck (rules removed, modules unloaded, kmemleak clean)"
fi
((rc == 0 && bad)) && rc=1
exit "$rc"
