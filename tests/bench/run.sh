#!/usr/bin/env bash
# Every VM benchmark, one after another in one boot ("make bench"); each
# script prints its BENCH lines (and CSV lines for tests/bench/report) and
# PASS/FAIL lines.  Exits non-zero if one failed.
cd "$(dirname "$0")" || exit 1
rc=0
for b in kbench throughput sidebyside match_cost first_packet many_cgroups control_plane syn_flood; do
	echo "=== $b (started at ${SECONDS}s)"
	bash "./$b.sh" || rc=1
done
echo "=== done after ${SECONDS}s"
exit $rc
