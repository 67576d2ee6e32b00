# SPDX-License-Identifier: GPL-2.0 OR MIT
# Helpers for the nft-cgroupd tests: a private cgroup2 mount, one network
# namespace per test, bounded polling, PASS/FAIL accounting.

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
D=${NFT_CGROUPD:-$HERE/../nft-cgroupd}
PASSED=0
FAILED=0
NSES=()
PIDS=()
MOUNTS=()	# unmounted by cleanup
DEEP=()		# chains made by tests/deeptree: too deep for find | rmdir
SYSCTL_RESTORE=
WMEM_RESTORE=
RMEM_RESTORE=

pass() { echo "PASS $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1${2:+: $2}"; FAILED=$((FAILED + 1)); }
skip_all() { echo "SKIP: $1"; exit 4; }

# kill_tree DIR: end every process left in cgroup DIR and below (a
# listener started through a backgrounded nsx outlives the shell that PIDS
# holds), so that the cgroups can be removed.
kill_tree() {
	local i
	[ -e "$1/cgroup.kill" ] || return 0
	echo 1 > "$1/cgroup.kill" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		grep -q '^populated 0' "$1/cgroup.events" 2>/dev/null && return 0
		nap 0.1
	done
}

cleanup() {
	local p ns
	[ -n "$SYSCTL_RESTORE" ] && echo "$SYSCTL_RESTORE" > /proc/sys/fs/inotify/max_queued_events
	[ -n "$WMEM_RESTORE" ] && echo "$WMEM_RESTORE" > /proc/sys/net/core/wmem_max
	[ -n "$RMEM_RESTORE" ] && echo "$RMEM_RESTORE" > /proc/sys/net/core/rmem_max
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; kill -CONT "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	for ns in "${NSES[@]}"; do ip netns del "$ns" 2>/dev/null; done
	for p in "${DEEP[@]}"; do "$HERE/deeptree" rm "$p" 2>/dev/null; done
	for p in "${MOUNTS[@]}"; do umount "$p" 2>/dev/null; done
	if [ -n "$ROOT" ] && [ -d "$ROOT" ]; then
		kill_tree "$ROOT"
		find "$ROOT" -depth -type d -exec rmdir {} + 2>/dev/null
	fi
	if [ -n "$MNT" ]; then
		umount "$MNT" 2>/dev/null && rmdir "$MNT"
	fi
	[ -n "$TMPD" ] && rm -rf "$TMPD"
}

setup() {
	[ "$(id -u)" = 0 ] || skip_all "needs root"
	command -v nft >/dev/null || skip_all "nft not installed"
	command -v ip >/dev/null || skip_all "iproute2 not installed"
	[ -x "$D" ] || { echo "no $D: run make first"; exit 1; }
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	TMPD=$(mktemp -d /tmp/nftcg-test.XXXXXX)
	MNT=$TMPD/cg
	mkdir "$MNT"
	mount -t cgroup2 none "$MNT" || skip_all "cannot mount cgroup2"
	# Our own directory in the (shared) hierarchy.  It sits at level 1 below
	# our cgroup namespace root, so rule levels are pattern depth + 1.
	ROOT=$MNT/nftcg-test.$$
	mkdir "$ROOT"
	LVL=1
}

# new_ns NAME: a network namespace with lo up; sets NS.
new_ns() {
	USERNS_PID=
	NS=nftcg-$$-$1
	ip netns add "$NS" || return 1
	NSES+=("$NS")
	ip -n "$NS" link set lo up
}

# nsx CMD...: run CMD in the test's network namespace.
nsx() {
	if [ -n "$USERNS_PID" ]; then
		nsenter -t "$USERNS_PID" -U -n --preserve-credentials "$@"
	else
		ip netns exec "$NS" "$@"
	fi
}

# start_userns_daemon LOGNAME SETUP ARGS...: nft-cgroupd in a user and a
# network namespace of its own (unshare -Ur --net: no SO_*BUFFORCE there,
# and its own inotify limits), after the shell commands SETUP ran in them;
# sets DPID and DLOG, and nsx enters them until the next new_ns.
start_userns_daemon() {
	DLOG=$TMPD/$1.log
	local setup=$2
	shift 2
	unshare -Ur --net bash -c "ip link set lo up && $setup && exec \"\$0\" \"\$@\"" \
		"$D" -v --retry-interval 0.2 --cgroup-root "$ROOT" "$@" > "$DLOG" 2>&1 &
	DPID=$!
	PIDS+=("$DPID")
	USERNS_PID=$DPID
	wait_until 5 grep -qs "initial sync" "$DLOG"
}

# A table "t" with set "s" (cgroupsv2) and a counting rule at level $1.
std_table() {
	nsx nft -f - <<-EOT
	table inet t {
		set s { type cgroupsv2; }
		chain o {
			type filter hook output priority 0;
			socket cgroupv2 level $1 @s counter
		}
	}
	EOT
}

# start_daemon LOGNAME ARGS...: runs nft-cgroupd in $NS; sets DPID, DLOG.
start_daemon() {
	DLOG=$TMPD/$1.log
	shift
	# not through nsx: $! must be the daemon itself (ip netns exec execs it)
	ip netns exec "$NS" "$D" -v --retry-interval 0.2 --cgroup-root "$ROOT" "$@" > "$DLOG" 2>&1 &
	DPID=$!
	PIDS+=("$DPID")
	wait_until 5 grep -qs "initial sync" "$DLOG"
}

# alive PID: PID still runs.  kill -0 alone also finds a process that has
# exited but that this shell has not reaped yet: bash reaps at its next
# fork, and the waits here fork nothing (see nap), so a daemon that exits
# stays a zombie until the next command that forks.
alive() {
	local stat
	kill -0 "$1" 2>/dev/null || return 1
	read -r stat <"/proc/$1/stat" 2>/dev/null || return 1
	stat=${stat##*) }
	[[ ${stat%% *} != Z ]]
}
exited() { ! alive "$1"; }

stop_daemon() {
	kill "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
}

# nap SECONDS: sleep without an exec.  In a VM under TCG an exec of
# sleep(1) costs about 60 ms of CPU, far more than a 10 ms nap: a read
# that times out on a FIFO nobody writes costs none.  (The kernel tests'
# tests/lib/vmtest.sh has the same; this directory runs on its own.)
NAP_FD=
nap() {
	if [ -z "$NAP_FD" ]; then
		[ -p "$TMPD/nap" ] || mkfifo "$TMPD/nap" 2>/dev/null
		exec {NAP_FD}<>"$TMPD/nap" || { sleep "$1"; return 0; }
	fi
	read -r -t "$1" -u "$NAP_FD" _
	return 0
}

# WAIT_SCALE: how many times slower than a real machine this one may be;
# every wait_until limit is multiplied by it.  tests/check sets 8 for its
# TCG guest, where a daemon's 30,000-id initial sync alone takes 10 s.
WAIT_SCALE=${WAIT_SCALE:-2}

# wait_until SECONDS CMD...: poll CMD every 10 ms for SECONDS x WAIT_SCALE
# of wall time.  (Not a count of polls: that made the limit depend on what
# CMD costs, 5 s for a builtin test and 35 s for a grep under TCG.)
wait_until() {
	local deadline=$((${EPOCHREALTIME/./} + $1 * WAIT_SCALE * 1000000))
	shift
	until "$@"; do
		((${EPOCHREALTIME/./} < deadline)) || return 1
		nap 0.01
	done
	return 0
}

# the ids only: --list prints "ID PATH [packets N bytes M]"
set_ids() { nsx "$D" --list "$1" 2>&1 | cut -d' ' -f1; }
ids_of() { [ $# -gt 0 ] && stat -c %i "$@" | sort -n; }

# set_is SPEC DIR...: does the set hold exactly the ids of these dirs?
set_is() {
	local spec=$1
	shift
	[ "$(set_ids "$spec")" = "$(ids_of "$@")" ]
}

# assert_set NAME SPEC DIR...: wait up to 5 s for the exact content.
assert_set() {
	local name=$1 spec=$2
	shift 2
	if wait_until 5 set_is "$spec" "$@"; then
		pass "$name"
	else
		fail "$name" "set $spec has [$(set_ids "$spec" | tr '\n' ' ')], want [$(ids_of "$@" | tr '\n' ' ')]"
	fi
}

# send_from CGDIR: one UDP datagram from a process in that cgroup (bash's
# own printf and /dev/udp: no exec more, 60 ms under TCG).
send_from() {
	nsx bash -c "echo \$\$ > '$1/cgroup.procs' && printf x > /dev/udp/127.0.0.1/9" 2>/dev/null
}

# counter CHAIN [INDEX]: packets of the INDEX-th (1-based) counter in the chain.
counter() {
	nsx nft list chain inet t "$1" | grep -o 'packets [0-9]*' |
		sed -n "${2:-1}p" | cut -d' ' -f2
}

assert_counter() {
	local name=$1 chain=$2 idx=$3 want=$4 got
	got=$(counter "$chain" "$idx")
	if [ "$got" = "$want" ]; then pass "$name"; else fail "$name" "counter $got, want $want"; fi
}

assert_log() {
	local name=$1 pattern=$2
	if wait_until 5 grep -q -- "$pattern" "$DLOG"; then
		pass "$name"
	else
		fail "$name" "no \"$pattern\" in log: $(tail -5 "$DLOG")"
	fi
}

summary() {
	# a build with -fsanitize=... reports into the daemon logs
	local bad
	bad=$(grep -l -E "AddressSanitizer|LeakSanitizer|runtime error:" "$TMPD"/*.log "$TMPD"/*.err 2>/dev/null)
	if [ -n "$bad" ]; then
		fail "sanitizers" "$(cat $bad | head -40)"
	fi
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" = 0 ]
}
