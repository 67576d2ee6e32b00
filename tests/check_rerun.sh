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

echo "$ok passed, $bad failed"
((bad == 0))
