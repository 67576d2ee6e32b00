#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# nft-cgroupd benchmarks, per tree size: 0 (the small tree), then each of
# BENCH_SIZES (default "10000 100000") cgroups matching the pattern:
#   - initial sync: wall time of --once and its own "initial sync" figures
#     (scan, total), then the resync with the set already full;
#   - the daemon's peak RSS (VmHWM) after its own initial sync (empty set);
#   - mkdir-to-set latency (tests/cgbench: BENCH_N, default 1,000, new
#     cgroups one after the other) with that tree and full set in place;
#   - drain: rmdir of all SIZE cgroups until the set is empty.
# One "BENCH nft-cgroupd size=SIZE key=value..." line per size; with
# BENCH_OUT=DIR also DIR/results.md and DIR/results.csv (BENCH_NOTE, if
# set, goes into results.md).  Reports, never fails on the goals (p99 <
# 10 ms, initial sync of 10,000 < 1 s).
. "$(dirname "$0")/lib.sh"
setup
B=$HERE/cgbench
[ -x "$B" ] || { echo "no $B: run make first"; exit 1; }
N=${BENCH_N:-1000}
SIZES="0 ${BENCH_SIZES:-10000 100000}"
SPEC=inet:t:s
KEYS=(mkdir_ms initial_sync_ms sync_scan_ms sync_total_ms resync_ms rss_kib
      lat_median_us lat_p99_us lat_max_us rm_lat_p99_us rmdir_ms drain_ms)
LINES=()		# the BENCH lines, for the results files
declare -A R		# the current size's figures, by key

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# make_tree: $SIZE cgroups $DIR/dI/cJ, 100 per dI (the pattern's */*).
make_tree() {
	mkdir "$DIR" &&
	awk -v d="$DIR" -v n="$SIZE" 'BEGIN {
		for (i = 0; i * 100 < n; i++) print d "/d" i
		for (j = 0; j < n; j++) print d "/d" int(j / 100) "/c" j
	}' | xargs -r -d '\n' mkdir
}

set_empty() { ! nsx nft list set inet t s | grep -q elements; }

# once LOG: one --once run; its wall time in ms on stdout.
once() {
	local t0
	t0=$(date +%s%N)
	nsx "$D" --once --cgroup-root "$ROOT" "$SPEC=$PAT" 2>"$TMPD/$1" ||
		echo "--once failed: $(tail -3 "$TMPD/$1")" >&2
	ms_since "$t0"
}

# (a) --once into the empty set, then again with the set full.
bench_sync() {
	local n
	R[initial_sync_ms]=$(once once.log)
	read -r "R[sync_scan_ms]" "R[sync_total_ms]" < <(sed -n \
		's/.*initial sync:.* scan \([0-9.]*\) ms, total \([0-9.]*\) ms.*/\1 \2/p' \
		"$TMPD/once.log")
	n=$(set_ids "$SPEC" | grep -c '^[0-9]')
	[ "$n" = "$SIZE" ] || echo "after --once: $n ids in the set, want $SIZE"
	R[resync_ms]=$(once resync.log)
}

# The daemon, without -v (its logging kept out of the latencies), started
# on an empty set; waits for its initial sync.  Sets DPID, DLOG.
start_quiet() {
	nsx nft flush set inet t s
	DLOG=$TMPD/daemon$SIZE.log
	ip netns exec "$NS" "$D" --cgroup-root "$ROOT" "$SPEC=$PAT" 2>"$DLOG" &
	DPID=$!
	PIDS+=("$DPID")
	wait_until 600 grep -qs "initial sync" "$DLOG"
}

# (c) the daemon's peak RSS after its initial sync.
bench_rss() { R[rss_kib]=$(awk '/^VmHWM:/ { print $2 }' "/proc/$DPID/status"); }

# us FIGURE WHAT: cgbench's FIGURE (median, p99, max) in ms on the WHAT
# line, in us.
us() {
	awk -v f="$1" -v w="$2" 'index($0, w) == 1 {
		for (i = 1; i < NF; i++) if ($i == f) printf "%.0f\n", $(i + 1) * 1000
	}' "$TMPD/cgbench$SIZE.out"
}

# (b) mkdir/rmdir-to-set latency of $N new cgroups beside the big tree.
bench_latency() {
	mkdir "$DIR/lat" || return 1
	nsx "$B" "$DIR/lat" "$N" t s >"$TMPD/cgbench$SIZE.out" ||
		{ echo "latency benchmark failed"; return 1; }
	sed 's/^/  /' "$TMPD/cgbench$SIZE.out"
	R[lat_median_us]=$(us median "mkdir returned")
	R[lat_p99_us]=$(us p99 "mkdir returned")
	R[lat_max_us]=$(us max "mkdir returned")
	R[rm_lat_p99_us]=$(us p99 "rmdir returned")
}

# (c) rmdir of the whole tree, until the set is empty.
bench_drain() {
	local t0
	t0=$(date +%s%N)
	find "$DIR" -mindepth 1 -depth -type d -exec rmdir {} +
	R[rmdir_ms]=$(ms_since "$t0")
	wait_until 600 set_empty || echo "set not empty 600 s after the rmdir"
	R[drain_ms]=$(ms_since "$t0")
}

report_line() {
	local k line="BENCH nft-cgroupd size=$SIZE"
	for k in "${KEYS[@]}"; do line+=" $k=${R[$k]:--}"; done
	echo "$line"
	LINES+=("$line")
}

bench_size() {
	SIZE=$1 DIR=$ROOT/big$1 PAT="big$1/*/*"
	local t0
	R=()
	echo "== $SIZE cgroups matching $PAT"
	new_ns "s$SIZE" && std_table $((LVL + 3)) || return 1
	t0=$(date +%s%N)
	make_tree || { echo "cannot create $SIZE cgroups"; return 1; }
	R[mkdir_ms]=$(ms_since "$t0")
	bench_sync
	if start_quiet; then
		sed 's/^nft-cgroupd: /  daemon: /' "$DLOG"
		bench_rss
		bench_latency
		[ "$SIZE" = 0 ] || bench_drain
		grep -h "overflow\|lost" "$DLOG" | sed 's/^nft-cgroupd: /  daemon: /'
	else
		echo "daemon did not finish its initial sync: $(tail -3 "$DLOG")"
	fi
	stop_daemon
	report_line
	ip netns del "$NS"
}

md_row() { local x out="|"; for x; do out+=" $x |"; done; echo "$out"; }
csv_row() { local IFS=,; echo "$*"; }

# The BENCH lines as results.md (a table) and results.csv in $BENCH_OUT.
write_results() {
	local l v md=$BENCH_OUT/results.md csv=$BENCH_OUT/results.csv
	mkdir -p "$BENCH_OUT" || return 1
	cat >"$md" <<-EOT
	# nft-cgroupd by tree size

	Host: $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(date -u '+%F %H:%M UTC').${BENCH_NOTE:+
	$BENCH_NOTE}

	size: cgroups matching the pattern before the run (0: only the $N of the
	latency run); lat: mkdir returned -> id in set, rm_lat: rmdir returned ->
	id gone (tests/cgbench, $N cgroups beside the tree, full set in place);
	rss: the daemon's VmHWM after its initial sync; drain: first rmdir of
	the tree -> set empty.

	EOT
	md_row size "${KEYS[@]}" >>"$md"
	md_row "${KEYS[@]/*/---}" --- >>"$md"
	csv_row size "${KEYS[@]}" >"$csv"
	for l in "${LINES[@]}"; do
		read -ra v <<<"$(sed 's/[a-z_0-9]*=//g' <<<"${l#BENCH nft-cgroupd }")"
		md_row "${v[@]}" >>"$md"
		csv_row "${v[@]}" >>"$csv"
	done
	echo "results in $md and $csv"
}

for s in $SIZES; do
	bench_size "$s"
done
echo "goals: p99 < 10 ms, initial sync of 10,000 < 1 s"
[ -z "$BENCH_OUT" ] || write_results
