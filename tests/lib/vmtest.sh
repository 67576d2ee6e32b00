# shellcheck shell=bash
# Helpers for the kernel tests (tests/kernel/*.sh), sourced inside the VM.
# Each check prints "PASS name" or "FAIL name (why)"; finish exits non-zero
# if any failed.
set -uo pipefail

TEST=$(basename "$0" .sh)
CG=${CGROUP2_MNT:-/sys/fs/cgroup}
_fails=0

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; _fails=$((_fails + 1)); }

# expect NAME WANT GOT
expect() {
	if [[ $3 == "$2" ]]; then pass "$1"; else fail "$1 (want '$2', got '$3')"; fi
}

# expect_ok NAME CMD...: CMD must succeed; expect_fail NAME CMD...: must fail.
expect_ok() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then pass "$name"; else fail "$name ($out)"; fi
}
expect_fail() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then fail "$name (succeeded: $out)"; else pass "$name"; fi
}

# counter IPTABLES CHAIN TAG [TABLE]: packet count of the rule carrying
# "-m comment --comment TAG" in CHAIN.
counter() {
	"$1" -w -t "${4:-filter}" -L "$2" -v -x -n |
		awk -v tag="/* $3 */" 'index($0, tag) { print $1; found = 1; exit }
				       END { if (!found) print "missing" }'
}

# mkcg PATH...: create cgroups (relative to the cgroup2 mount).
mkcg() {
	local p
	for p; do mkdir -p "$CG/$p" || fail "mkdir $p"; done
}

# udp_from CGROUP ADDR PORT [COUNT]: send COUNT datagrams from a process in
# CGROUP ("" = the root); prints cg2net's result line.
udp_from() {
	local fam=udp
	[[ $2 == *:* ]] && fam=udp6
	cg2net ${1:+--cgroup "$1"} send "$fam" "$2" "$3" --count "${4:-1}"
}

# udp_sink ADDR PORT: a UDP listener that absorbs datagrams (so senders see
# "sent N", not ICMP-refused) until the test ends.
udp_sink() {
	local fam=udp ready
	[[ $1 == *:* ]] && fam=udp6
	ready=$(mktemp -u /tmp/sink.XXXXXX)
	cg2net listen "$fam" "$1" "$2" --count 1000000 --timeout 600000 \
		--ready-file "$ready" >/dev/null 2>&1 &
	_bg+=($!)
	wait_for_file "$ready" || fail "udp sink on $1 port $2 did not start"
}

# wait_for_file FILE [TENTHS]: poll until FILE exists (default 10 s).
wait_for_file() {
	local i
	for ((i = 0; i < ${2:-100}; i++)); do
		[[ -e $1 ]] && return 0
		sleep 0.1
	done
	return 1
}

_bg=()
_cleanup() {
	local p
	for p in "${_bg[@]}"; do kill "$p" 2>/dev/null; done
}
trap _cleanup EXIT

need_module() {
	modprobe xt_cgroup2 || { fail "modprobe xt_cgroup2"; finish; }
}

finish() {
	exit $((_fails > 0))
}
