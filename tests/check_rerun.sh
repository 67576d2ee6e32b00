#!/usr/bin/env bash
# tests/check runs a VM test once more when the VM died of an int3 oops in
# the kernel's own text (an emulator flake, see emulator_flake there), and
# in no other case.  Fake VM runs stand in for tests/vm/run: each prints
# the output of its Nth call from a list.
# shellcheck source=tests/check disable=SC2154,SC2034 # log, counters: check's
. "$(dirname "$0")/check"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$log"' EXIT
ok=0 bad=0
pass() { echo "PASS $1"; ok=$((ok + 1)); }
fail() { echo "FAIL $1${2:+: $2}"; bad=$((bad + 1)); }

flake='vm: no exit status from guest (kernel panic)
   [    3.644046] Oops: int3: 0000 [#1] SMP NOPTI
   [    3.645510]  udpv6_connect+0x82/0xa0'
ours="$flake
   [    3.645600]  xt_cgroup2_mt+0x10/0x90 [xt_cgroup2]"
other='vm: no exit status from guest (kernel panic)
   [    3.644046] BUG: kernel NULL pointer dereference, address: 0000000000000008'

# fake_vm NAME: print the output of this call's turn from $tmp/NAME.N
# (N counts calls) and exit with the status in its first line.
fake_vm() {
	local n
	n=$(($(cat "$tmp/$1.calls" 2>/dev/null || echo 0) + 1))
	echo "$n" >"$tmp/$1.calls"
	{ read -r rc; cat; } <"$tmp/$1.$n"
	return "$rc"
}

# expect NAME PASSED FAILED CALLS INFOS FIRST-OUTPUT [SECOND-OUTPUT]: each
# output is "STATUS\nTEXT".
expect() {
	local name=$1 want_p=$2 want_f=$3 want_calls=$4 want_info=$5 infos
	printf '%s\n' "$6" >"$tmp/$name.1"
	[ -z "${7:-}" ] || printf '%s\n' "$7" >"$tmp/$name.2"
	passed=0 failed=0 skipped=0
	run "fake/$name" fake_vm "$name" >"$tmp/$name.out"
	infos=$(grep -c '^INFO fake/.*emulator flake' "$tmp/$name.out")
	if [ "$passed/$failed/$(cat "$tmp/$name.calls")/$infos" = "$want_p/$want_f/$want_calls/$want_info" ]; then
		pass "$name"
	else
		fail "$name" "passed/failed/calls/notes $passed/$failed/$(cat "$tmp/$name.calls")/$infos, want $want_p/$want_f/$want_calls/$want_info"
	fi
}

expect int3-in-kernel-text-runs-again 1 0 2 1 "125
$flake" "0
PASS the second run"
expect int3-twice-fails 0 1 2 1 "125
$flake" "125
$flake"
expect int3-with-our-frame-fails-at-once 0 1 1 0 "125
$ours" "0
PASS never run"
expect other-panic-fails-at-once 0 1 1 0 "125
$other" "0
PASS never run"
expect int3-after-a-status-fails-at-once 0 1 1 0 "3
$flake" "0
PASS never run"
expect failed-check-not-run-again 0 1 1 0 "1
FAIL a check" "0
PASS never run"

# Batches (several kernel tests a boot, tests/vm/batch): each test's
# lines under its own name, a kernel report failing the test it came in,
# the emulator-flake retry per test, and a new boot for the tests after
# one the VM died in or one that left the guest dirty.
# expect_batch NAME PASSED FAILED CALLS INFOS LINES FIRST [SECOND]: the
# batch of tests a b c; LINES (a regex) must match the report's PASS and
# FAIL lines, joined by "|".
expect_batch() {
	local name=$1 want=$2/$3/$4/$5 lines=$6 got
	printf '%s\n' "$7" >"$tmp/$name.1"
	[ -z "${8:-}" ] || printf '%s\n' "$8" >"$tmp/$name.2"
	passed=0 failed=0 skipped=0
	spawn_batch k/ @t 300 a b c -- fake_vm "$name"
	drain >"$tmp/$name.out"
	got=$passed/$failed/$(cat "$tmp/$name.calls")/$(grep -c '^INFO k/.*emulator flake' "$tmp/$name.out")
	local seen
	seen=$(grep -E '^(PASS|FAIL) ' "$tmp/$name.out" | cut -d : -f 1 | tr '\n' '|')
	if [[ $got == "$want" && $seen =~ ^$lines$ ]]; then
		pass "$name"
	else
		fail "$name" "passed/failed/calls/notes $got, want $want; lines $seen"
	fi
}
b_ok() { printf 'XT_BATCH_BEGIN %s\nPASS %s one\nPASS %s two\nXT_BATCH_END %s 0 1500\n' "$1" "$1" "$1" "$1"; }
b_crash() { printf 'XT_BATCH_BEGIN %s\nPASS %s before the crash\n%s\n' "$1" "$1" "$2"; }
expect_batch batch-each-test-its-own 3 2 1 0 'PASS k/a@t\|PASS k/a@t\|FAIL k/b@t\|PASS k/c@t\|FAIL k/c@t\|' "0
$(b_ok a)
XT_BATCH_BEGIN b
FAIL b one
XT_BATCH_END b 1 20
XT_BATCH_BEGIN c
PASS c one
FAIL kernel log: a problem while c ran
XT_BATCH_END c 3 20"
expect_batch batch-int3-runs-that-test-again 6 0 2 1 'PASS k/a@t\|PASS k/a@t\|PASS k/b@t\|PASS k/b@t\|PASS k/c@t\|PASS k/c@t\|' "125
$(b_ok a)
$(b_crash b "$flake")" "0
$(b_ok b)
$(b_ok c)"
expect_batch batch-other-panic-fails-that-test 5 1 2 0 'PASS k/a@t\|PASS k/a@t\|PASS k/b@t\|FAIL k/b@t\|PASS k/c@t\|PASS k/c@t\|' "125
$(b_ok a)
$(b_crash b "$other")" "0
$(b_ok c)"
expect_batch batch-dirty-guest-new-boot 6 0 2 0 'PASS k/a@t\|PASS k/a@t\|PASS k/b@t\|PASS k/b@t\|PASS k/c@t\|PASS k/c@t\|' "0
$(b_ok a)
XT_BATCH_DIRTY a: modules: xt_cgroup2" "0
$(b_ok b)
$(b_ok c)"
expect_batch batch-runner-fails-after-the-tests 6 1 1 0 'PASS k/a@t\|PASS k/a@t\|PASS k/b@t\|PASS k/b@t\|PASS k/c@t\|PASS k/c@t\|FAIL vm/batch@t\|' "3
$(b_ok a)
$(b_ok b)
$(b_ok c)
vm: kernel problems in the kernel log (command exited 0):"
grep -q 'INFO k/b@t: .*a: modules: xt_cgroup2\|INFO k/a@t: a: modules: xt_cgroup2' "$tmp/batch-dirty-guest-new-boot.out" &&
	pass "batch: a dirty guest is said" ||
	fail "batch: a dirty guest is said" "$(grep INFO "$tmp/batch-dirty-guest-new-boot.out")"
awk -F '\t' '$2 == "k/a@t" && $1 == 2 { a = 1 } $2 ~ /^boots k\/\(3 tests\)@t$/ && $3 == 1 { b = 1 } END { exit !(a && b) }' "$log/times" &&
	pass "batch: each test timed, and the boots" ||
	fail "batch: each test timed, and the boots" "$(tr '\n' ';' <"$log/times")"
: >"$log/times"

# The job pool: reports come in the order the jobs were started, whatever
# finished first; at most CHECK_JOBS jobs run at once, host jobs one at a
# time; each job's time reaches the table.
# busy_job LANE SECONDS NAME: note how many jobs (and host jobs) run beside
# this one, sleep, then pass.
busy_job() {
	local n
	exec 8>"$tmp/pool.lock"
	flock 8
	n=$(($(cat "$tmp/pool.all" 2>/dev/null || echo 0) + 1)); echo $n >"$tmp/pool.all"
	echo $n >>"$tmp/pool.peak.all"
	if [[ $1 == host ]]; then
		n=$(($(cat "$tmp/pool.host" 2>/dev/null || echo 0) + 1)); echo $n >"$tmp/pool.host"
		echo $n >>"$tmp/pool.peak.host"
	fi
	flock -u 8
	sleep "$2"
	flock 8
	echo $(($(cat "$tmp/pool.all") - 1)) >"$tmp/pool.all"
	[[ $1 == host ]] && echo $(($(cat "$tmp/pool.host") - 1)) >"$tmp/pool.host"
	flock -u 8
	echo "PASS $3"
}
passed=0 failed=0 skipped=0
: >"$log/times"
CHECK_JOBS=2
# spawn reports what has finished while it waits for room: all of it
# is the run's report (a loaded machine finishes k/v1 before h3 starts).
{
	spawn vm k/v1@t busy_job vm 1.5 slow
	spawn host h1 busy_job host 0.3 quick
	spawn host h2 busy_job host 0.3 quick
	spawn vm k/v2@t busy_job vm 0.2 quick
	spawn host h3 busy_job host 0.3 quick
	drain
} >"$tmp/pool.out"
order=$(sed -n 's/^PASS \([^:]*\):.*/\1/p' "$tmp/pool.out" | tr '\n' ' ')
[[ $order == "k/v1@t h1 h2 k/v2@t h3 " ]] && pass "pool: reports in the order started" ||
	fail "pool: reports in the order started" "got '$order'"
peak_all=$(sort -n "$tmp/pool.peak.all" | tail -n 1)
peak_host=$(sort -n "$tmp/pool.peak.host" | tail -n 1)
[[ $peak_all == 2 ]] && pass "pool: two jobs at once with CHECK_JOBS=2" ||
	fail "pool: two jobs at once with CHECK_JOBS=2" "peak $peak_all"
[[ $peak_host == 1 ]] && pass "pool: host jobs one at a time" ||
	fail "pool: host jobs one at a time" "peak $peak_host"
[[ $passed == 5 && $(wc -l <"$log/times") == 5 ]] && awk -F '\t' '$2 == "k/v1@t" && $1 >= 1 && $3 == 1 { ok = 1 } END { exit !ok }' "$log/times" &&
	pass "pool: every job counted and timed" ||
	fail "pool: every job counted and timed" "passed $passed, times: $(tr '\n' ';' <"$log/times")"
table=$(time_table 10)
grep -q '^| host | 3 | ' <<<"$table" && grep -q '^| kernel t | 2 | ' <<<"$table" &&
	pass "pool: time table sums jobs per group" ||
	fail "pool: time table sums jobs per group" "$(tr '\n' ';' <<<"$table")"
# The queues: host jobs (one at a time) run beside VM jobs, VM jobs take
# the other slot and never both while host jobs wait; each queue starts in
# its order.
qjob() {
	echo "start $1" >>"$tmp/queue.events"
	busy_job "$2" "$3" "$1"
	echo "end $1" >>"$tmp/queue.events"
}
: >"$log/times"
: >"$tmp/queue.events"
rm -f "$tmp/pool.peak.all" "$tmp/pool.peak.host" "$tmp/pool.all" "$tmp/pool.host"
{
	enqueue host spawn host h1 qjob h1 host 0.6
	enqueue host spawn host h2 qjob h2 host 0.6
	enqueue vm spawn vm k/v1@t qjob v1 vm 1.5
	enqueue vm spawn vm k/v2@t qjob v2 vm 0.2
	enqueue vm spawn vm k/v3@t qjob v3 vm 0.2
	run_queues
	drain
} >"$tmp/queue.out"
starts=$(sed -n 's/^start //p' "$tmp/queue.events" | tr '\n' ' ')
order=$(sed -n 's/^PASS \([^:]*\):.*/\1/p' "$tmp/queue.out" | tr '\n' ' ')
[[ $starts == "h1 v1 h2 v2 v3 " && $order == "h1 k/v1@t h2 k/v2@t k/v3@t " ]] &&
	pass "queue: host and VM jobs side by side, each queue in order" ||
	fail "queue: host and VM jobs side by side, each queue in order" "started: $starts; reported: $order"
awk '/^end v1$/ { ended = 1 } /^start h2$/ && !ended { ok = 1 } END { exit !ok }' "$tmp/queue.events" &&
	pass "queue: the second host job starts while a VM job runs" ||
	fail "queue: the second host job starts while a VM job runs" "$(tr '\n' ';' <"$tmp/queue.events")"
[[ $(sort -n "$tmp/pool.peak.all" | tail -n 1) == 2 && $(sort -n "$tmp/pool.peak.host" | tail -n 1) == 1 ]] &&
	pass "queue: two jobs at most, one host job" ||
	fail "queue: two jobs at most, one host job" "peaks $(sort -n "$tmp/pool.peak.all" | tail -n 1) $(sort -n "$tmp/pool.peak.host" | tail -n 1)"

# A job's CPU seconds: what its processes used (2e7 awk steps: about 0.5 s
# here, at least one second rounded for any machine 3x slower), not its
# wall time (1 s asleep: 0).
: >"$log/times"
{
	spawn host burn awk 'BEGIN { for (i = 0; i < 6e7; i++) x += i }'
	spawn host nap sleep 1
	drain
} >/dev/null
awk -F '\t' '$2 == "burn" && $4 >= 1 { b = 1 } $2 == "nap" && $4 == 0 { n = 1 } END { exit !(b && n) }' "$log/times" &&
	pass "pool: the CPU seconds of each job" ||
	fail "pool: the CPU seconds of each job" "$(tr '\n' ';' <"$log/times")"

echo "$ok passed, $bad failed"
((bad == 0))
