#!/usr/bin/env bash
# Kernel-side sources must be checkpatch-clean (one PASS/FAIL line per file).
cd "$(dirname "$0")/.."
rc=0
for f in kmod/xt_cgroup2_*.[ch] kmod/xt_CGROUP2LOG.c lib/cgroup2_pattern.c lib/cgroup2_pattern.h include/uapi/*.h; do
	if out=$(scripts/checkpatch "$f" 2>&1); then
		echo "PASS $f"
	else
		echo "FAIL $f"
		echo "$out"
		rc=1
	fi
done
exit $rc
