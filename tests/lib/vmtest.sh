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
	local SNAP

	snap "$1" "$2" "${4:-}"
	snapc "$3"
}

# mkcg PATH...: create cgroups (relative to the cgroup2 mount), in one
# mkdir (an exec is tens of ms under TCG); a failure names each missing.
mkcg() {
	local p
	[ $# -gt 0 ] || return 0
	mkdir -p -- "${@/#/$CG/}" 2>/dev/null && return 0
	for p; do [ -d "$CG/$p" ] || fail "mkdir $p"; done
}

# udp_from CGROUP ADDR PORT [COUNT]: send COUNT datagrams from a process in
# CGROUP ("" = the root); prints cg2net's result line.
udp_from() {
	local fam=udp
	[[ $2 == *:* ]] && fam=udp6
	cg2net ${1:+--cgroup "$1"} send "$fam" "$2" "$3" --count "${4:-1}"
}

# udp_sink ADDR PORT [COUNT]: a UDP listener that absorbs up to COUNT
# datagrams (default a million; so senders see "sent N", not ICMP-refused)
# until the test ends.
udp_sink() {
	local fam=udp ready
	[[ $1 == *:* ]] && fam=udp6
	ready=$(mktemp -u /tmp/sink.XXXXXX)
	cg2net listen "$fam" "$1" "$2" --count "${3:-1000000}" --timeout 600000 \
		--ready-file "$ready" >/dev/null 2>&1 &
	_bg+=($!)
	wait_for_file "$ready" || fail "udp sink on $1 port $2 did not start"
}

# wait_for_file FILE [TENTHS]: poll until FILE exists (default 10 s).
wait_for_file() {
	local i
	for ((i = 0; i < ${2:-100}; i++)); do
		[[ -e $1 ]] && return 0
		nap 0.1
	done
	return 1
}

# nap SECONDS: sleep without an exec.  Under TCG an exec of sleep(1) costs
# about 60 ms of CPU, more than the naps of the polling loops here, and
# the kernel tests spend their time in execs (tests/README.md): a read
# that times out on a FIFO that nobody writes costs none.
_nap_fd=
nap() {
	if [[ -z $_nap_fd ]]; then
		# (A subshell that naps first makes the FIFO, or finds it.)
		[[ -p $BG_DIR/nap ]] || mkfifo "$BG_DIR/nap" 2>/dev/null
		exec {_nap_fd}<>"$BG_DIR/nap" || { sleep "$1"; return 0; }
	fi
	read -r -t "$1" -u "$_nap_fd" _
	return 0
}

# lines_match REGEX TEXT: some line of TEXT matches the extended REGEX, as
# with grep -qE (the same regcomp(3) syntax), but without its exec.
lines_match() {
	local line
	while IFS= read -r line; do
		[[ $line =~ $1 ]] && return 0
	done <<<"$2"
	return 1
}

# matching REGEX TEXT: the lines of TEXT that match the extended REGEX, as
# grep -E prints them; count_matching REGEX TEXT: how many (grep -cE).
matching() {
	local line
	while IFS= read -r line; do
		[[ $line =~ $1 ]] && printf '%s\n' "$line"
	done <<<"$2"
	return 0
}
count_matching() {
	local line n=0
	while IFS= read -r line; do
		[[ $line =~ $1 ]] && n=$((n + 1))
	done <<<"$2"
	echo "$n"
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

# --- added for the kernel tests beyond first light ---------------------------

# skip NAME WHY: a check that cannot run here, with the reason.
skip() { echo "SKIP $1 ($2)"; }

# drop_unreach [PREFIX...]: drop the ICMP port unreachable errors the kernel
# sends back for datagrams to closed ports (raw OUTPUT, iptables-legacy, v4
# and v6), so that cg2net send reports "sent N" for N datagrams and every
# datagram still crosses OUTPUT, POSTROUTING, PREROUTING and INPUT.  PREFIX
# runs the commands elsewhere, e.g. "in_ns peer".
drop_unreach() {
	"$@" iptables-legacy -w -t raw -A OUTPUT -p icmp --icmp-type port-unreachable \
		-j DROP || fail "drop_unreach: iptables-legacy raw OUTPUT"
	"$@" ip6tables-legacy -w -t raw -A OUTPUT -p ipv6-icmp \
		--icmpv6-type port-unreachable -j DROP ||
		fail "drop_unreach: ip6tables-legacy raw OUTPUT"
}

# netns_add NAME...: named network namespaces with lo up; in_ns NAME CMD...
# runs CMD there.  nsenter, not "ip netns exec": that remounts /sys and so
# hides the cgroup2 mount under /sys/fs/cgroup.  cg2net enters the netns
# itself (--netns): one exec instead of two, 60 ms less under TCG.
netns_add() {
	local n
	for n; do
		ip netns add "$n" || { fail "ip netns add $n"; continue; }
		ip -n "$n" link set lo up || fail "lo up in $n"
	done
}
in_ns() {
	local n=$1
	shift
	if [[ $1 == cg2net ]]; then
		cg2net --netns "$n" "${@:2}"
	else
		nsenter --net="/run/netns/$n" "$@"
	fi
}

# veth_ns NS ADDR PEERADDR [DEV]: a veth pair DEV (default veth0) here with
# ADDR (CIDR), its peer "eth0" in netns NS with PEERADDR; IPv6 addresses get
# nodad, so they are usable at once.
veth_ns() {
	local ns=$1 a=$2 pa=$3 dev=${4:-veth0} opt=()
	[[ $a == *:* ]] && opt=(nodad)
	ip link add "$dev" type veth peer name eth0 netns "$ns" &&
		ip addr add "$a" dev "$dev" "${opt[@]}" &&
		ip link set "$dev" up &&
		ip -n "$ns" addr add "$pa" dev eth0 "${opt[@]}" &&
		ip -n "$ns" link set eth0 up || fail "veth $dev to $ns"
}

# peer_dual_stack: netns "peer" behind veth0, IPv4 10.9.0.1/24 and IPv6
# fd00::1/64 here, 10.9.0.2/24 and fd00::2/64 on its eth0 (no DAD: usable
# at once): the two-stack peer of the TCP tests.
peer_dual_stack() {
	netns_add peer
	veth_ns peer 10.9.0.1/24 10.9.0.2/24
	ip addr add fd00::1/64 dev veth0 nodad &&
		ip -n peer addr add fd00::2/64 dev eth0 nodad || fail "IPv6 addresses"
}

# bg_listen NAME [PREFIX... --] CG2NET-ARGS...: start "cg2net CG2NET-ARGS
# --ready-file" in the background (PREFIX before it, e.g. in_ns peer) and
# wait until it listens; the bound port is then in $BG_DIR/NAME.port.
# bg_result NAME waits for it and prints its result line.
BG_DIR=$(mktemp -d /tmp/vmtest.XXXXXX)
bg_listen() {
	local name=$1 prefix=() i
	shift
	if [[ " $* " == *" -- "* ]]; then
		while [[ $1 != -- ]]; do prefix+=("$1"); shift; done
		shift
	fi
	: >"$BG_DIR/$name.port"	# emptied, not removed: rm is an exec
	"${prefix[@]}" cg2net "$@" --ready-file "$BG_DIR/$name.port" \
		>"$BG_DIR/$name.out" 2>"$BG_DIR/$name.err" &
	echo $! >"$BG_DIR/$name.pid"
	for ((i = 0; i < 500; i++)); do
		[[ -s $BG_DIR/$name.port ]] && return 0
		kill -0 $! 2>/dev/null || break
		nap 0.02
	done
	fail "listener $name not ready ($(tr '\n' ' ' <"$BG_DIR/$name.err"))"
	return 1
}
bg_port() { cat "$BG_DIR/$1.port" 2>/dev/null; }
# bg_stop NAME: end a bg_listen listener and wait for it (its port is
# free).  (Listeners in another netns run under nsenter, which execs
# cg2net: in_ns, a function, would leave a subshell between $! and cg2net.)
bg_stop() {
	local pid
	read -r pid <"$BG_DIR/$1.pid"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}
# clients N MS CMD...: N connections at once, "CMD --send hello --timeout
# MS --count N" (cg2net connect: a process each, forked, not an exec of
# cg2net and ip netns exec each: 90 ms a client under TCG); print how many
# got their echo.
clients() {
	local n=$1 ms=$2
	shift 2
	"$@" --send hello --timeout "$ms" --count "$n" 2>/dev/null | grep -c '^connected reply 5$'
}
bg_result() {
	# Often called in $(...), a subshell that cannot wait for the listener:
	# wait for its one result line instead (written as it exits), 15 s at most.
	local i
	for ((i = 0; i < 300; i++)); do
		[[ -s $BG_DIR/$1.out ]] && break
		nap 0.05
	done
	cat "$BG_DIR/$1.out"
}

# dmesg_clear; dmesg_new: the kernel messages since the last dmesg_clear.
dmesg_clear() { dmesg -c >/dev/null; }
dmesg_new() { dmesg -c; }

# expect_grep NAME REGEX TEXT: some line of TEXT matches the extended REGEX.
expect_grep() {
	if lines_match "$2" "$3"; then pass "$1"
	else fail "$1 (no line matching '$2' in: $(tr '\n' '|' <<<"$3"))"; fi
}
# expect_nogrep NAME REGEX TEXT: no line of TEXT matches REGEX.
expect_nogrep() {
	if lines_match "$2" "$3"; then
		fail "$1 (unexpected '$2' in: $(tr '\n' '|' <<<"$3"))"
	else pass "$1"; fi
}

# expect_rc NAME RC CMD...: CMD exits with status RC exactly.
expect_rc() {
	local name=$1 want=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if ((rc == want)); then pass "$name"
	else fail "$name (want status $want, got $rc: $(tr '\n' ' ' <<<"$out"))"; fi
}

# snap IPTABLES CHAIN [TABLE]: list CHAIN once into $SNAP; snapc TAG then
# prints the packet count of the rule tagged TAG in it, as counter does.
# (iptables-nft's note that legacy tables exist too is noise here.)
snap() {
	SNAP=$("$1" -w -t "${3:-filter}" -L "$2" -v -x -n \
		2> >(grep -v '^# Warning: iptables-legacy tables present' >&2))
}
# (Builtins only: an awk a counter cost 60 ms under TCG.)
snapc() {
	local line count
	while IFS= read -r line; do
		[[ $line == *"/* $1 */"* ]] || continue
		read -r count _ <<<"$line"
		echo "$count"
		return
	done <<<"$SNAP"
	echo missing
}

# sends CGROUP ADDR PORT COUNT: like udp_from, but a failure is a FAIL of
# its own (the tests assert the counters, not each send).
sends() {
	local out
	out=$(udp_from "$@" 2>&1)
	out=${out##*$'\n'}
	[[ $out == "sent ${4:-1}" ]] || fail "send from '${1:-/}' to $2 $3 (got '$out')"
}

# nflog_bound GROUP: a process listens on NFLOG group GROUP (the first
# field of nfnetlink_log's lines).
nflog_bound() {
	local group _
	while read -r group _; do
		[[ $group == "$1" ]] && return 0
	done 2>/dev/null </proc/net/netfilter/nfnetlink_log
	return 1
}

# ulogd_start GROUP OUT: a real ulogd2 reading NFLOG group GROUP (NFLOG ->
# BASE -> IFINDEX -> IP2STR -> PRINTPKT -> LOGEMU) into the file OUT, ready
# once nfnetlink_log has the group; returns 1 without ulogd in the VM (the
# host's ulogd2 package is copied in by tests/vm/run).
ulogd_start() {
	local g=$1 out=$2 d=/usr/lib/x86_64-linux-gnu/ulogd i
	command -v ulogd >/dev/null || return 1
	cat >"$BG_DIR/ulogd.conf" <<-EOC
	[global]
	logfile="$BG_DIR/ulogd.log"
	loglevel=3
	plugin="$d/ulogd_inppkt_NFLOG.so"
	plugin="$d/ulogd_raw2packet_BASE.so"
	plugin="$d/ulogd_filter_IFINDEX.so"
	plugin="$d/ulogd_filter_IP2STR.so"
	plugin="$d/ulogd_filter_PRINTPKT.so"
	plugin="$d/ulogd_output_LOGEMU.so"
	stack=log1:NFLOG,base1:BASE,ifi1:IFINDEX,ip2str1:IP2STR,print1:PRINTPKT,emu1:LOGEMU

	[log1]
	group=$g

	[emu1]
	file="$out"
	sync=1
	EOC
	ulogd -c "$BG_DIR/ulogd.conf" >"$BG_DIR/ulogd.out" 2>&1 &
	_bg+=($!)
	for ((i = 0; i < 100; i++)); do
		nflog_bound "$g" && break
		nap 0.1
	done
	expect_ok "ulogd2 binds NFLOG group $g" nflog_bound "$g"
}
