#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host self-test of the test tools (cg2net, xt_cgroup2_raw) against the
# in-tree xt_cgroup match, so they can be trusted before they test ours.
# Runs in its own network and mount namespaces (iptables-legacy tables are
# per netns: the host's are never touched), with its own cgroup2 mount and
# cgroups; all removed on exit.  Prints PASS/FAIL per check and a summary;
# exits 1 if any check failed, 4 if it cannot run here.
#
#   tests/tools/selftest.sh [-v]      (as root; builds the tools first)

set -u

here=$(cd "$(dirname "$0")" && pwd)
bin=$here/bin
cg2net=$bin/cg2net
raw=$bin/xt_cgroup2_raw
verbose=0
[ "${1:-}" = -v ] && verbose=1

skip() { echo "SKIP: $*"; exit 4; }

# ---- re-run inside fresh namespaces ---------------------------------------
if [ -z "${CG2_SELFTEST_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || skip "needs root"
	for t in unshare nsenter ip iptables-legacy ip6tables-legacy; do
		command -v $t >/dev/null || skip "$t not found"
	done
	if command -v make >/dev/null; then
		make -s -C "$here" >/dev/null || { echo "FAIL build"; exit 1; }
	fi
	[ -x "$cg2net" ] && [ -x "$raw" ] && [ -x "$bin/cgspray" ] ||
		skip "tools not built in $bin"
	CG2_SELFTEST_NS=1 exec unshare --net --mount --propagation private \
		/bin/bash "$0" "$@"
fi

work=$(mktemp -d /tmp/cg2selftest.XXXXXX)
mnt=$work/cgroup2
cg=cg2selftest.$$			# under the cgroup2 root
peer=					# pid holding the second netns
bgpids=()
passed=0
failed=0

cleanup() {
	local p

	for p in "${bgpids[@]}" $peer; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	if mountpoint -q "$mnt"; then
		rmdir "$mnt/$cg"/fresh/f* "$mnt/$cg/fresh" 2>/dev/null
		rmdir "$mnt/$cg/allowed" "$mnt/$cg/denied" "$mnt/$cg" 2>/dev/null
		umount "$mnt"
	fi
	rm -rf "$work"
}
trap cleanup EXIT

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# expect NAME RC LINE CMD...: CMD prints exactly LINE and exits with RC.
expect() {
	local name=$1 want_rc=$2 want=$3 out rc
	shift 3

	out=$("$@" 2>"$work/stderr")
	rc=$?
	[ $verbose = 1 ] && sed 's/^/    /' "$work/stderr"
	if [ "$out" = "$want" ] && [ $rc = "$want_rc" ]; then
		pass "$name"
	else
		fail "$name" "got '$out' rc $rc, want '$want' rc $want_rc ($(tr '\n' ' ' <"$work/stderr"))"
	fi
}

# expect_match NAME REGEX CMD...: some line of CMD's output matches REGEX.
expect_match() {
	local name=$1 re=$2 out
	shift 2

	out=$("$@" 2>&1)
	if grep -qE -- "$re" <<<"$out"; then
		pass "$name"
	else
		fail "$name" "no line matching '$re' in: $(tr '\n' '|' <<<"$out")"
	fi
}

# listen NAME [PREFIX...] -- CG2NET-ARGS...: start a cg2net server in the
# background and wait for its ready file; then `listened NAME LINE RC`.
listen() {
	local name=$1 i prefix=()
	shift
	while [ "$1" != -- ]; do prefix+=("$1"); shift; done
	shift

	rm -f "$work/$name.ready"
	"${prefix[@]}" "$cg2net" "$@" --ready-file "$work/$name.ready" \
		>"$work/$name.out" 2>"$work/$name.err" &
	echo $! >"$work/$name.pid"
	bgpids+=($!)
	for i in $(seq 500); do
		[ -s "$work/$name.ready" ] && return 0
		kill -0 "$(cat "$work/$name.pid")" 2>/dev/null || break
		sleep 0.01
	done
	fail "$name listener" "not ready: $(cat "$work/$name.err")"
	return 1
}

listened() {
	local name=$1 want=$2 want_rc=$3 rc out

	wait "$(cat "$work/$name.pid")"
	rc=$?
	out=$(cat "$work/$name.out")
	if [ "$out" = "$want" ] && [ $rc = "$want_rc" ]; then
		pass "$name listener"
	else
		fail "$name listener" "got '$out' rc $rc, want '$want' rc $want_rc ($(tr '\n' ' ' <"$work/$name.err"))"
	fi
}

# Packet counter of the first rule of CHAIN: counter CMD CHAIN.
counter() {
	"$1" -L "$2" -v -x -n | awk 'NR == 3 { print $1 }'
}

# ---- setup ----------------------------------------------------------------
ip link set lo up
mkdir -p "$mnt"
mount -t cgroup2 none "$mnt" || skip "cannot mount cgroup2"
mkdir "$mnt/$cg" "$mnt/$cg/allowed" "$mnt/$cg/denied" ||
	skip "cannot create cgroups under $mnt"
A=(--root "$mnt" --cgroup "$cg/allowed")
D=(--root "$mnt" --cgroup "/$cg/denied")	# leading '/' is fine
ipt=iptables-legacy
ip6t=ip6tables-legacy

# ---- cg2net: command line and setup errors --------------------------------
expect "cg2net no mode is a usage error" 64 "error: usage" "$cg2net"
expect "cg2net bad proto is a usage error" 64 "error: usage" \
	"$cg2net" connect udp 127.0.0.1 1
expect "cg2net bad address is a usage error" 64 "error: usage" \
	"$cg2net" connect tcp ::1 1
expect "cg2net missing cgroup is a setup error" 65 \
	"error: cannot join cgroup $cg/nothere" \
	"$cg2net" --root "$mnt" --cgroup "$cg/nothere" connect tcp 127.0.0.1 1
expect "cg2net joins without --root (mountinfo)" 1 "refused" \
	"$cg2net" --cgroup "$cg/allowed" connect tcp 127.0.0.1 1
expect "cg2net missing netns is a setup error" 65 \
	"error: cannot enter netns $work/nons" \
	"$cg2net" --netns "$work/nons" send udp 127.0.0.1 9
# --netns enters it: a new netns's lo is down, so 127.0.0.1 is unreachable.
unshare --net sleep 60 &
bgpids+=($!)
for i in $(seq 100); do
	[ "$(readlink /proc/$!/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
	sleep 0.01
done
expect "cg2net --netns enters the netns" 4 "unreachable" \
	"$cg2net" --netns "/proc/$!/ns/net" send udp 127.0.0.1 9

# The cgroup really is joined: a cgroup.procs reader sees the pid.
"$cg2net" "${A[@]}" listen tcp 127.0.0.1 7000 --timeout 2000 \
	--ready-file "$work/join.ready" >/dev/null 2>&1 &
jpid=$!
bgpids+=($jpid)
for i in $(seq 500); do [ -s "$work/join.ready" ] && break; sleep 0.01; done
if grep -qx "$jpid" "$mnt/$cg/allowed/cgroup.procs"; then
	pass "cg2net --cgroup moves the process"
else
	fail "cg2net --cgroup moves the process" "pid $jpid not in $cg/allowed"
fi
kill $jpid; wait $jpid 2>/dev/null

# ---- cg2net without rules -------------------------------------------------
listen tcp-plain -- listen tcp 127.0.0.1 7001 --timeout 3000 &&
expect "tcp connect to a listener: connected" 0 "connected" \
	"$cg2net" "${A[@]}" connect tcp 127.0.0.1 7001 &&
listened tcp-plain "accepted 1" 0

expect "tcp connect to a closed port: refused" 1 "refused" \
	"$cg2net" connect tcp 127.0.0.1 7002

listen tcp-echo -- listen tcp 127.0.0.1 7003 --count 2 --timeout 3000 &&
expect "tcp --send gets the echo back" 0 "connected reply 5" \
	"$cg2net" connect tcp 127.0.0.1 7003 --send hello &&
expect "tcp second connection of --count 2" 0 "connected" \
	"$cg2net" connect tcp 127.0.0.1 7003 &&
listened tcp-echo "accepted 2" 0

# connect --count: the connections at once, a result line each
listen tcp-many -- listen tcp 127.0.0.1 7008 --count 5 --timeout 5000 &&
expect "tcp connect --count 5 --send: five echoes" 0 \
	"$(printf 'connected reply 5\n%.0s' 1 2 3 4 5 | head -c -1)" \
	"$cg2net" "${A[@]}" connect tcp 127.0.0.1 7008 --count 5 --send hello &&
listened tcp-many "accepted 5" 0
expect "tcp connect --count 3 to a closed port: three refusals, exit 1" 1 \
	"$(printf 'refused\n%.0s' 1 2 3 | head -c -1)" \
	"$cg2net" connect tcp 127.0.0.1 7009 --count 3
expect "connect --count 257 is a usage error" 64 "error: usage" \
	"$cg2net" connect tcp 127.0.0.1 7009 --count 257
expect "connect --count 2 --sport is a usage error" 64 "error: usage" \
	"$cg2net" connect tcp 127.0.0.1 7009 --count 2 --sport 7010

listen udp-plain -- listen udp 127.0.0.1 7004 --count 3 --timeout 3000 &&
expect "udp send --count 3" 0 "sent 3" \
	"$cg2net" "${D[@]}" send udp 127.0.0.1 7004 --count 3 --payload x &&
listened udp-plain "received 3" 0

listen udp-short -- listen udp 127.0.0.1 7005 --count 2 --timeout 1500 &&
expect "udp send one of two" 0 "sent 1" \
	"$cg2net" send udp 127.0.0.1 7005 &&
listened udp-short "received 1" 2

listen tcp-none -- listen tcp 127.0.0.1 7006 --timeout 200 &&
listened tcp-none "accepted 0" 2

expect "udp to a closed port: refused" 1 "refused" \
	"$cg2net" send udp 127.0.0.1 7007 --count 2

listen tcp6-plain -- listen tcp6 ::1 7008 --timeout 3000 &&
expect "tcp6 connect: connected" 0 "connected" \
	"$cg2net" "${D[@]}" connect tcp6 ::1 7008 &&
listened tcp6-plain "accepted 1" 0

listen ready-port -- listen tcp 127.0.0.1 0 --timeout 100 &&
if [ "$(cat "$work/ready-port.ready")" -gt 0 ] 2>/dev/null; then
	pass "ready file holds the bound port"
else
	fail "ready file holds the bound port" "'$(cat "$work/ready-port.ready")'"
fi
listened ready-port "accepted 0" 2

# ---- cg2net against -m cgroup --path rules in OUTPUT ----------------------
$ipt -A OUTPUT -p tcp --dport 7010 -m cgroup --path "$cg/denied" -j DROP
$ipt -A OUTPUT -p tcp --dport 7011 -m cgroup --path "$cg/denied" \
	-j REJECT --reject-with tcp-reset
$ipt -A OUTPUT -p tcp --dport 7012 -m cgroup --path "$cg/denied" \
	-j REJECT --reject-with icmp-host-unreachable
$ipt -A OUTPUT -p udp --dport 7013 -m cgroup --path "$cg/denied" -j DROP
$ipt -A OUTPUT -p udp --dport 7014 -m cgroup --path "$cg/denied" -j REJECT
$ipt -A OUTPUT -p tcp --sport 40001 -j DROP
$ipt -A OUTPUT -p udp --sport 40002 -j DROP

listen drop -- listen tcp 127.0.0.1 7010 --timeout 3000 &&
expect "OUTPUT DROP: denied cgroup times out" 2 "timeout" \
	"$cg2net" "${D[@]}" connect tcp 127.0.0.1 7010 --timeout 300 &&
expect "OUTPUT DROP: allowed cgroup connects" 0 "connected" \
	"$cg2net" "${A[@]}" connect tcp 127.0.0.1 7010 &&
listened drop "accepted 1" 0
# The listener is gone: refused, not dropped, so not in the denied cgroup.
expect "no --cgroup stays outside the denied cgroup" 1 "refused" \
	"$cg2net" connect tcp 127.0.0.1 7010 --timeout 300
c=$(counter $ipt OUTPUT)
[ "$c" = 1 ] && pass "DROP rule counted exactly the denied SYN" ||
	fail "DROP rule counted exactly the denied SYN" "counter $c"

listen reset -- listen tcp 127.0.0.1 7011 --timeout 3000 &&
expect "OUTPUT REJECT tcp-reset: denied cgroup refused" 1 "refused" \
	"$cg2net" "${D[@]}" connect tcp 127.0.0.1 7011 &&
expect "OUTPUT REJECT tcp-reset: allowed cgroup connects" 0 "connected" \
	"$cg2net" "${A[@]}" connect tcp 127.0.0.1 7011 &&
listened reset "accepted 1" 0

expect "OUTPUT REJECT host-unreachable: unreachable" 4 "unreachable" \
	"$cg2net" "${D[@]}" connect tcp 127.0.0.1 7012

listen udrop -- listen udp 127.0.0.1 7013 --timeout 3000 &&
expect "OUTPUT DROP udp: denied cgroup blocked" 3 \
	"blocked: Operation not permitted" \
	"$cg2net" "${D[@]}" send udp 127.0.0.1 7013 &&
expect "OUTPUT DROP udp: allowed cgroup sent" 0 "sent 1" \
	"$cg2net" "${A[@]}" send udp 127.0.0.1 7013 &&
listened udrop "received 1" 0

expect "OUTPUT REJECT udp: denied cgroup blocked" 3 \
	"blocked: Operation not permitted" \
	"$cg2net" "${D[@]}" send udp 127.0.0.1 7014 --count 3

expect "--sport tcp: DROP on source port times out" 2 "timeout" \
	"$cg2net" connect tcp 127.0.0.1 7015 --sport 40001 --timeout 300
expect "--sport tcp: other source port refused" 1 "refused" \
	"$cg2net" connect tcp 127.0.0.1 7015 --sport 40003
expect "--sport udp: DROP on source port blocked" 3 \
	"blocked: Operation not permitted" \
	"$cg2net" send udp 127.0.0.1 7016 --sport 40002
listen sport-busy -- listen tcp 0.0.0.0 40004 --timeout 5000 &&
expect "--sport in use is a setup error" 65 \
	"error: bind source port 40004: Address already in use" \
	"$cg2net" connect tcp 127.0.0.1 7016 --sport 40004 &&
expect "--sport busy listener still there" 0 "connected" \
	"$cg2net" connect tcp 127.0.0.1 40004 &&
listened sport-busy "accepted 1" 0

$ip6t -A OUTPUT -p tcp --dport 7020 -m cgroup --path "$cg/denied" \
	-j REJECT --reject-with tcp-reset
listen tcp6-reset -- listen tcp6 ::1 7020 --timeout 3000 &&
expect "ip6 OUTPUT REJECT: denied cgroup refused" 1 "refused" \
	"$cg2net" "${D[@]}" connect tcp6 ::1 7020 &&
expect "ip6 OUTPUT REJECT: allowed cgroup connects" 0 "connected" \
	"$cg2net" "${A[@]}" connect tcp6 ::1 7020 &&
listened tcp6-reset "accepted 1" 0
$ipt -F
$ip6t -F

# ---- cg2net listen: INPUT over veth (early demux sets the socket) ---------
unshare --net sleep 600 &
peer=$!
for i in $(seq 500); do
	[ "$(readlink /proc/$peer/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
	sleep 0.01
done
P=(nsenter -t "$peer" -n)
if ip link add name cg2st0 type veth peer name cg2st1 2>/dev/null &&
   ip link set cg2st1 netns "$peer"; then
	ip addr add 10.199.0.1/24 dev cg2st0
	ip link set cg2st0 up
	"${P[@]}" ip addr add 10.199.0.2/24 dev cg2st1
	"${P[@]}" ip link set cg2st1 up
	"${P[@]}" ip link set lo up
	"${P[@]}" $ipt -A INPUT -p tcp --dport 7030 \
		-m cgroup --path "$cg/denied" -j DROP

	listen in-allowed "${P[@]}" -- "${A[@]}" listen tcp 10.199.0.2 7030 \
		--timeout 3000 &&
	expect "INPUT: allowed server echoes" 0 "connected reply 5" \
		"$cg2net" connect tcp 10.199.0.2 7030 --send hello --timeout 1000 &&
	listened in-allowed "accepted 1" 0

	listen in-denied "${P[@]}" -- "${D[@]}" listen tcp 10.199.0.2 7030 \
		--timeout 1000 &&
	expect "INPUT: denied server's data dropped" 2 "connected noreply" \
		"$cg2net" connect tcp 10.199.0.2 7030 --send hello --timeout 500 &&
	listened in-denied "accepted 1" 0
	c=$("${P[@]}" $ipt -L INPUT -v -x -n | awk 'NR == 3 { print $1 }')
	[ "${c:-0}" -ge 1 ] && pass "INPUT rule matched the denied data" ||
		fail "INPUT rule matched the denied data" "counter '$c'"
else
	fail "veth setup" "cannot create a veth pair"
fi

# ---- cgspray fresh: make, join, send once, come back ----------------------
# The in-tree match needs its cgroup to exist: the parent, all three below.
mkdir "$mnt/$cg/fresh"
$ipt -I OUTPUT 1 -p udp --dport 7020 -m cgroup --path "$cg/fresh"
spray() { CGROUP2_MNT=$mnt "$bin/cgspray" 127.0.0.1 7020 fresh; }
printf '%s\n' "$mnt/$cg/fresh/f1" "$mnt/$cg/fresh/f2" "$mnt/$cg/fresh/f3" >"$work/fresh"
expect_match "cgspray fresh: three cgroups made and judged" \
	'^3 fresh cgroups, [0-9]+ ns/cgroup$' spray <"$work/fresh"
c=$(counter $ipt OUTPUT)
[ "$c" = 3 ] && pass "cgspray fresh: one datagram from inside each" ||
	fail "cgspray fresh: one datagram from inside each" "counter $c"
rmdir "$mnt/$cg/fresh/f1" "$mnt/$cg/fresh/f2" "$mnt/$cg/fresh/f3" &&
	pass "cgspray fresh: made its three cgroups" ||
	fail "cgspray fresh: made its three cgroups" "rmdir failed"
expect_match "cgspray fresh: a cgroup that exists is an error" \
	'^cgspray: cannot make and join .*/fresh: File exists$' \
	spray <<<"$mnt/$cg/fresh"
expect "cgspray fresh: no cgroups is an error" 1 "" spray </dev/null
expect "cgspray: \"fresh\" is no COUNT" 64 "" "$bin/cgspray" 127.0.0.1 7020 fresh 3 </dev/null
rmdir "$mnt/$cg/fresh"
$ipt -D OUTPUT 1

# ---- xt_cgroup2_raw: cgroup2 blob construction (no kernel) ----------------
expect "raw --dump packs patterns" 0 \
	"$(printf '00000000''0200''0500''6100626300'; printf '0%.0s' $(seq 4102))" \
	"$raw" --dump --patterns a bc
d=$("$raw" --dump --patterns a bc --no-nul --trailing-garbage --flags 0x80000001)
[ "${d:0:24}" = 010000800200040061006263 ] && [ "${d:24:4}" = 4747 ] &&
[ "${d:4110:2}" = 47 ] && [ "${d:4112:16}" = 0000000000000000 ] &&
	pass "raw --dump: --no-nul, --trailing-garbage, --flags" ||
	fail "raw --dump: --no-nul, --trailing-garbage, --flags" "${d:0:40}..."
d=$("$raw" --dump --pattern-bytes 2f610000 --count 9 --len 4096)
[ "${d:0:16}" = 0000000009000010 ] && [ "${d:16:8}" = 2f610000 ] &&
	pass "raw --dump: --pattern-bytes, --count, --len" ||
	fail "raw --dump: --pattern-bytes, --count, --len" "${d:0:40}..."
d=$("$raw" --dump --data-size 8 --patterns abc)
[ "$d" = 0000000001000400 ] && pass "raw --dump: --data-size truncates" ||
	fail "raw --dump: --data-size truncates" "$d"
expect "raw --patterns with --pattern-bytes is a usage error" 64 \
	"error: usage" "$raw" --patterns a --pattern-bytes 00
expect "raw bad hex is a usage error" 64 "error: usage" "$raw" --raw-data 0g
expect "raw missing table is a setup error" 65 \
	"error: IPv4 table 'nosuch' (get info): No such file or directory" \
	"$raw" --table nosuch --flush

# ---- xt_cgroup2_raw: table layout proven with the in-tree cgroup match ----
hexpath() { printf '01000000'; printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
ok=$(hexpath "$cg/allowed")
bad=$(hexpath "$cg/nothere")
cgv2=(--match cgroup --revision 2 --raw-data)

expect "raw cgroup v2 blob in OUTPUT accepted" 0 "accepted" "$raw" "${cgv2[@]}" "$ok"
expect_match "raw rule shows in iptables-legacy -S" \
	"^-A OUTPUT -m cgroup --path \"?$cg/allowed\"? -j ACCEPT$" $ipt -S OUTPUT
expect "raw replace over a table with a rule" 0 "accepted" \
	"$raw" --hook input "${cgv2[@]}" "$ok"
expect_match "raw rule in INPUT" \
	"^-A INPUT -m cgroup --path \"?$cg/allowed\"? -j ACCEPT$" $ipt -S INPUT
[ "$($ipt -S | wc -l)" = 4 ] && pass "raw replace left one rule" ||
	fail "raw replace left one rule" "$($ipt -S | tr '\n' '|')"
expect "raw path that does not exist: EINVAL" 1 "rejected: Invalid argument" \
	"$raw" "${cgv2[@]}" "$bad"
expect "raw cgroup in FORWARD: EINVAL" 1 "rejected: Invalid argument" \
	"$raw" --hook forward "${cgv2[@]}" "$ok"
expect "raw wrong match size: EINVAL" 1 "rejected: Invalid argument" \
	"$raw" --data-size 520 "${cgv2[@]}" "$ok"
expect "raw unknown revision: EPROTOTYPE" 1 \
	"rejected: Protocol wrong type for socket" \
	"$raw" --match cgroup --revision 9 --data-size 528 --raw-data "$ok"
expect "raw unknown match: ENOENT" 1 "rejected: No such file or directory" \
	"$raw" --match cg2nosuch --data-size 8
expect_match "raw rejected replace left the table alone" \
	"^-A INPUT -m cgroup" $ipt -S INPUT
expect "raw postrouting goes to mangle" 0 "accepted" \
	"$raw" --hook postrouting "${cgv2[@]}" "$ok"
expect_match "raw rule in mangle POSTROUTING" \
	"^-A POSTROUTING -m cgroup --path \"?$cg/allowed\"? -j ACCEPT$" \
	$ipt -t mangle -S POSTROUTING
expect "raw -6 blob accepted" 0 "accepted" "$raw" -6 "${cgv2[@]}" "$ok"
expect_match "raw -6 rule shows in ip6tables-legacy -S" \
	"^-A OUTPUT -m cgroup --path \"?$cg/allowed\"? -j ACCEPT$" $ip6t -S OUTPUT
expect "raw -6 path that does not exist: EINVAL" 1 \
	"rejected: Invalid argument" "$raw" -6 "${cgv2[@]}" "$bad"

# The blob's rule really filters: ACCEPT of the allowed cgroup, then DROP
# (appended by iptables-legacy, which has to parse our blob to do so).
expect "raw cgroup v2 blob in OUTPUT again" 0 "accepted" "$raw" "${cgv2[@]}" "$ok"
$ipt -A OUTPUT -p tcp --dport 7040 -j DROP
listen raw-acc -- listen tcp 127.0.0.1 7040 --timeout 3000 &&
expect "raw rule's ACCEPT lets the allowed cgroup through" 0 "connected" \
	"$cg2net" "${A[@]}" connect tcp 127.0.0.1 7040 &&
expect "raw rule does not match the denied cgroup" 2 "timeout" \
	"$cg2net" "${D[@]}" connect tcp 127.0.0.1 7040 --timeout 300 &&
listened raw-acc "accepted 1" 0
$ipt -F OUTPUT
expect "raw -6 hook input replaces OUTPUT rule" 0 "accepted" \
	"$raw" -6 --hook input "${cgv2[@]}" "$ok"

# Host: no module, so ENOENT.  VM guest: the module loads on demand.
if grep -qx cgroup2 /proc/net/ip_tables_matches ||
   modinfo xt_cgroup2 >/dev/null 2>&1; then
	expect "raw cgroup2 blob with the module: accepted" 0 "accepted" \
		"$raw" --patterns a
	expect_match "raw cgroup2 rule shows in iptables-legacy -S" \
		"^-A OUTPUT -m cgroup2 " $ipt -S OUTPUT
else
	expect "raw cgroup2 blob without the module: ENOENT" 1 \
		"rejected: No such file or directory" "$raw" --patterns a
fi

expect "raw --flush" 0 "accepted" "$raw" --flush
[ "$($ipt -S)" = "$(printf -- '-P INPUT ACCEPT\n-P FORWARD ACCEPT\n-P OUTPUT ACCEPT')" ] &&
	pass "raw --flush leaves three ACCEPT policies" ||
	fail "raw --flush leaves three ACCEPT policies" "$($ipt -S | tr '\n' '|')"
expect "raw -6 --flush" 0 "accepted" "$raw" -6 --flush
[ "$($ip6t -S | wc -l)" = 3 ] && pass "raw -6 --flush empties the table" ||
	fail "raw -6 --flush empties the table" "$($ip6t -S | tr '\n' '|')"
expect "raw --flush mangle" 0 "accepted" "$raw" --table mangle --flush
[ "$($ipt -t mangle -S | grep -c '^-A')" = 0 ] &&
	pass "raw --flush mangle removes the rule" ||
	fail "raw --flush mangle removes the rule" "$($ipt -t mangle -S | tr '\n' '|')"

echo "$passed passed, $failed failed"
[ $failed = 0 ]
