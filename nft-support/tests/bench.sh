#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# nft-cgroupd benchmarks: mkdir-to-set latency (median, p99 over 1,000
# cgroups) and the initial sync of 10,000 cgroups.  Reports, never fails
# on the goals (p99 < 10 ms, initial sync < 1 s).
. "$(dirname "$0")/lib.sh"
setup
B=$HERE/cgbench
[ -x "$B" ] || { echo "no $B: run make first"; exit 1; }
N=${BENCH_N:-1000}
M=${BENCH_SYNC:-10000}

new_ns lat; std_table $((LVL + 2))
mkdir -p "$ROOT/lat"
start_daemon bench-lat 'inet:t:s=lat/*' || { echo "daemon did not start"; exit 1; }
# the daemon logs at -v: keep its logging out of the measurement
stop_daemon
ip netns exec "$NS" "$D" --cgroup-root "$ROOT" 'inet:t:s=lat/*' 2>"$TMPD/lat.log" &
DPID=$!; PIDS+=("$DPID")
wait_until 5 grep -qs "initial sync" "$TMPD/lat.log"
echo "== latency ($N cgroups, created one after the other)"
nsx "$B" "$ROOT/lat" "$N" t s || echo "latency benchmark failed"
stop_daemon

new_ns sync; std_table $((LVL + 3))
echo "== initial sync of $M cgroups"
mkdir -p "$ROOT/sync"
per=100
dirs=$(( (M + per - 1) / per ))
eval "mkdir \"\$ROOT\"/sync/d{1..$dirs}"
for i in $(seq 1 $dirs); do
	eval "mkdir \"\$ROOT\"/sync/d$i/c{1..$per}"
done
t0=$(date +%s%N)
nsx "$D" --once --cgroup-root "$ROOT" 'inet:t:s=sync/*/*' 2>"$TMPD/sync.log"
rc=$?
t1=$(date +%s%N)
n=$(set_ids inet:t:s | wc -l)
echo "exit $rc, $n ids in the set; wall time of --once: $(( (t1 - t0) / 1000000 )) ms"
grep "initial sync" "$TMPD/sync.log" | sed 's/^nft-cgroupd: /daemon: /'
# a second run: set already full, only the read-back and the diff
t0=$(date +%s%N)
nsx "$D" --once --cgroup-root "$ROOT" 'inet:t:s=sync/*/*' 2>"$TMPD/sync2.log"
t1=$(date +%s%N)
echo "resync with the set already in place: $(( (t1 - t0) / 1000000 )) ms"
echo "goals: p99 < 10 ms, initial sync < 1 s"
