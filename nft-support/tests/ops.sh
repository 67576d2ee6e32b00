# SPDX-License-Identifier: GPL-2.0 OR MIT
# nft-cgroupd operations tests (sourced by run.sh): --check, sd_notify
# STATUS=, the reload protocol, the SIGUSR1 dump, the allow-list recipe.

# check_run NAME ARGS...: nft-cgroupd --check in the test's netns; sets
# CK_OUT (stdout and stderr) and CK_RC.
check_run() {
	CK_OUT=$(nsx "$D" --check --cgroup-root "$ROOT" "$@" 2>&1)
	CK_RC=$?
}

# expect_check NAME RC PATTERN...: CK_RC is RC and CK_OUT has every line.
expect_check() {
	local name=$1 rc=$2 p
	shift 2
	if [ "$CK_RC" != "$rc" ]; then
		fail "$name" "exit $CK_RC, want $rc: $CK_OUT"
		return
	fi
	for p in "$@"; do
		if ! grep -qxF -- "$p" <<<"$CK_OUT"; then
			fail "$name" "no line \"$p\" in: $CK_OUT"
			return
		fi
	done
	pass "$name"
}

t_check() {
	new_ns ck; std_table $((LVL + 2))
	mkdir -p "$ROOT/ck/a" "$ROOT/ck/b" "$ROOT/other"
	local a b c
	a=$(stat -c %i "$ROOT/ck/a"); b=$(stat -c %i "$ROOT/ck/b")
	check_run 'inet:t:s=ck/*'
	expect_check "check: an empty set: what would be added, exit 1" 1 \
		"inet:t:s: would add 2, remove 0 (holds 0 ids, wants 2)" \
		"  + $a /ck/a" "  + $b /ck/b"
	set_is inet:t:s && pass "check: commits nothing" ||
		fail "check: commits nothing" "set has $(set_ids inet:t:s | tr '\n' ' ')"
	nsx "$D" --once --cgroup-root "$ROOT" 'inet:t:s=ck/*' 2>/dev/null
	check_run 'inet:t:s=ck/*'
	expect_check "check: in sync, exit 0" 0 "inet:t:s: in sync (2 ids)"
	rmdir "$ROOT/ck/b"; mkdir "$ROOT/ck/c"
	c=$(stat -c %i "$ROOT/ck/c")
	check_run 'inet:t:s=ck/*'
	expect_check "check: a gone cgroup and a new one" 1 \
		"inet:t:s: would add 1, remove 1 (holds 2 ids, wants 2)" \
		"  + $c /ck/c" "  - $b (no live cgroup)"
	# a live cgroup that is in the set but no longer matches
	check_run 'inet:t:s=ck/c'
	expect_check "check: a live id that no longer matches shows its path" 1 \
		"  + $c /ck/c" "  - $a /ck/a" "  - $b (no live cgroup)"
	[ "$(set_ids inet:t:s)" = "$(printf '%s\n' "$a" "$b" | sort -n)" ] &&
		pass "check: still commits nothing" ||
		fail "check: still commits nothing" "set has $(set_ids inet:t:s | tr '\n' ' ')"
	check_run 'inet:t:s=ck/*' 'inet:t:nope=other'
	expect_check "check: a missing set is trouble, exit 2" 2 \
		"inet:t:nope: cannot check: set nope not found in table t" \
		"inet:t:s: would add 1, remove 1 (holds 2 ids, wants 2)"
	nsx nft add set inet t m '{ type cgroupsv2; flags timeout; }'
	check_run 'inet:t:m=other'
	expect_check "check: a refused set type is trouble, exit 2" 2 \
		"inet:t:m: cannot check: the set has flags timeout: its elements would expire and the set empty itself; it must be a plain set of \`type cgroupsv2\`"
	CK_OUT=$(nsx "$D" --check --cgroup-root "$ROOT/none" 'inet:t:s=x' 2>&1)
	CK_RC=$?
	expect_check "check: a missing cgroup root is trouble, exit 2" 2 \
		"nft-cgroupd: $ROOT/none: No such file or directory"
}

# notify_sink SOCKET OUT: a NOTIFY_SOCKET receiver (cgbench's: no python3
# in the test VM) writing each message to OUT; sets SINK.
notify_sink() {
	"$HERE/cgbench" --notify-sink "$1" "$2" &
	SINK=$!
	PIDS+=("$SINK")
	wait_until 5 test -S "$1"
}

# assert_notified NAME LINE: OUT gets the exact line within 5 s.
assert_notified() {
	if wait_until 5 grep -qxF -- "$2" "$NOTIFY_OUT"; then
		pass "$1"
	else
		fail "$1" "no \"$2\" in: $(tr '\n' '|' < "$NOTIFY_OUT")"
		return 1
	fi
}

# notified_times LINE N: OUT holds the exact line N times.
notified_times() {
	[ "$(grep -cxF -- "$1" "$NOTIFY_OUT")" = "$2" ]
}

# notified_times_atleast LINE N: OUT holds the exact line N times or more.
notified_times_atleast() {
	[ "$(grep -cxF -- "$1" "$NOTIFY_OUT")" -ge "$2" ]
}

# Microseconds since boot, from /proc/uptime (bash arithmetic: 64 bits).
uptime_usec() {
	local up rest
	read -r up rest < /proc/uptime
	echo $(( ${up%.*} * 1000000 + 10#${up#*.} * 10000 ))
}

t_notify() {
	new_ns nt; std_table $((LVL + 2))
	mkdir -p "$ROOT/nt/a"
	local sock=$TMPD/nt.sock
	NOTIFY_OUT=$TMPD/nt.out
	notify_sink "$sock" "$NOTIFY_OUT"
	DLOG=$TMPD/nt.log
	NOTIFY_SOCKET=$sock ip netns exec "$NS" "$D" --retry-interval 0.2 --cgroup-root "$ROOT" \
		'inet:t:s=nt/*' 'inet:t:late=nt/*' >"$DLOG" 2>&1 &
	DPID=$!
	PIDS+=("$DPID")
	assert_notified "notify: STATUS= names the set that waits and why" \
		"STATUS=2 sets: 1 in sync, 1 waiting (inet:t:late: set late not found in table t); 1 ids"
	nsx nft add set inet t late '{ type cgroupsv2; }'
	assert_notified "notify: STATUS= follows the set's recovery" \
		"STATUS=2 sets: 2 in sync; 2 ids"
	kill -USR1 "$DPID"
	assert_log "sigusr1: the summary line" "state: 2 sets: 2 in sync; 2 ids"
	assert_log "sigusr1: one line per set" "state: set inet:t:late: in sync; holds 1 ids, wants 1"
	assert_log "sigusr1: the bindings" "state:   binding inet:t:s=nt/\* (argument 1)"
	# (other tests' directories share $ROOT: the count is theirs too)
	assert_log "sigusr1: the tree" "state: cgroup root $ROOT: [0-9]* cgroups, all watched"
	alive "$DPID" && pass "sigusr1: the daemon goes on" ||
		fail "sigusr1: the daemon goes on"
	# the reload protocol: RELOADING=1 with MONOTONIC_USEC=, then READY=1
	local after usec
	kill -HUP "$DPID"
	# (the count is read at each try: a slow reload, as under ASan, ends late)
	if wait_until 5 grep -qx "MONOTONIC_USEC=[0-9]*" "$NOTIFY_OUT" &&
		wait_until 5 notified_times READY=1 2; then
		pass "reload: RELOADING=1 + MONOTONIC_USEC=, then READY=1"
	else
		fail "reload: RELOADING=1 + MONOTONIC_USEC=, then READY=1" "$(tr '\n' '|' < "$NOTIFY_OUT")"
	fi
	grep -A1 -x RELOADING=1 "$NOTIFY_OUT" | grep -qx "MONOTONIC_USEC=[0-9]*" &&
		pass "reload: MONOTONIC_USEC= in the RELOADING=1 message" ||
		fail "reload: MONOTONIC_USEC= in the RELOADING=1 message" "$(tr '\n' '|' < "$NOTIFY_OUT")"
	after=$(uptime_usec)
	usec=$(sed -n 's/^MONOTONIC_USEC=//p' "$NOTIFY_OUT" | head -1)
	# CLOCK_MONOTONIC stops in suspend, /proc/uptime does not: usec <= after
	[ -n "$usec" ] && [ "$usec" -le "$after" ] && [ "$usec" -gt 0 ] &&
		pass "reload: MONOTONIC_USEC= is CLOCK_MONOTONIC in microseconds" ||
		fail "reload: MONOTONIC_USEC= is CLOCK_MONOTONIC in microseconds" "$usec not in (0, $after]"
	kill -TERM "$DPID"
	wait "$DPID"
	echo "daemon exit status $?" >>"$DLOG"
	assert_notified "notify: STOPPING=1 on SIGTERM" "STOPPING=1" || cat "$DLOG" >&2
}

# The shipped unit, as `make install` writes it, checked by systemd's own
# tools (Debian 12's systemd 252 has verify and security --offline).
UNIT_EXPOSURE_MAX=20	# systemd-analyze's 0-100 scale: 2.0 "OK"
t_unit() {
	local src=${UNIT_SRC:-$HERE/../nft-cgroupd.service.in} man=$HERE/../nft-cgroupd.8
	if ! command -v systemd-analyze >/dev/null || [ ! -f "$src" ] || [ ! -f "$man" ]; then
		echo "SKIP unit: systemd-analyze or the unit's source is not here"
		return
	fi
	local dir=$TMPD/unit out score
	mkdir -p "$dir/man/man8"
	cp "$man" "$dir/man/man8/"
	sed -e "s|@sbindir@/nft-cgroupd|$(readlink -f "$D")|" -e 's|@sysconfdir@|/etc|g' \
		"$src" > "$dir/nft-cgroupd.service"
	out=$(MANPATH=$dir/man systemd-analyze verify "$dir/nft-cgroupd.service" 2>&1) &&
		[ -z "$out" ] && pass "unit: systemd-analyze verify is clean" ||
		fail "unit: systemd-analyze verify is clean" "$out"
	out=$(systemd-analyze security --offline=yes "$dir/nft-cgroupd.service" 2>&1)
	score=$(sed -n 's/.*Overall exposure level for nft-cgroupd.service: \([0-9.]*\).*/\1/p' <<<"$out")
	systemd-analyze security --offline=yes --threshold=$UNIT_EXPOSURE_MAX \
		"$dir/nft-cgroupd.service" >/dev/null 2>&1 &&
		pass "unit: exposure $score is at most $((UNIT_EXPOSURE_MAX / 10)).$((UNIT_EXPOSURE_MAX % 10))" ||
		fail "unit: exposure at most $((UNIT_EXPOSURE_MAX / 10)).$((UNIT_EXPOSURE_MAX % 10))" "exposure $score"
	local want missing=
	for want in ProtectKernelTunables= ProtectKernelModules= ProtectKernelLogs= \
		ProtectClock= ProtectHostname= PrivateDevices= RestrictNamespaces=~user \
		LockPersonality= MemoryDenyWriteExecute= RestrictRealtime= \
		RestrictSUIDSGID= SystemCallArchitectures= SystemCallFilter=~@privileged \
		UMask= ProtectControlGroups= NoNewPrivileges=; do
		grep -q "^✓ $want " <<<"$out" || missing+=" $want"
	done
	[ -z "$missing" ] && pass "unit: every hardening setting of the issue is in effect" ||
		fail "unit: every hardening setting of the issue is in effect" "not:$missing"
	grep -q '^PrivateTmp=' "$src" && fail "unit: no PrivateTmp=" || pass "unit: no PrivateTmp="
	grep -qx 'After=.*firewalld.service.*' "$src" && grep -qx 'Type=notify' "$src" &&
		grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$src" &&
		pass "unit: after firewalld, Type=notify with a SIGHUP reload" ||
		fail "unit: after firewalld, Type=notify with a SIGHUP reload"
	grep -qx 'WatchdogSec=[1-9][0-9]*s' "$src" && pass "unit: WatchdogSec= restarts a stuck daemon" ||
		fail "unit: WatchdogSec= restarts a stuck daemon"
}

# The allow-list recipe of nft-support/README.md,
# docs/recipes/nft-allow-list.md and the man page, as written: its
# ruleset is tests/allowlist.nft, which t_allowlist checks against the
# docs where they are (not in the test VM).  It is loaded, and the daemon
# run, in a cgroup namespace rooted at the test's directory, so that its
# `level 2` and `system.slice/web.service` mean there what they say.
ALLOW_BINDING='inet:egress:allowed=system.slice/web.service'
ALLOW_CONNECTIONS=20

# doc_block FILE: the ruleset "table inet egress { ... }" in FILE, without
# the 4-space Markdown indent (man pages have none).
doc_block() {
	sed -n '/^\(    \)\{0,1\}table inet egress {$/,/^\(    \)\{0,1\}}$/p' "$1" | sed 's/^    //'
}

# in_root CMD...: run CMD in the netns, in $ROOT's cgroup namespace.
in_root() {
	nsx bash -c 'echo $$ > "$0/cgroup.procs" && exec unshare -C "$@"' "$ROOT" "$@"
}

# connect_from CGROUP PORT: one TCP connection with an echoed byte; prints
# cg2net's result line.
connect_from() {
	nsx "$CG2NET" --root "$ROOT" --cgroup "$1" connect tcp 127.0.0.1 "$2" \
		--timeout 3000 --send x 2>/dev/null
}

# serve PORT COUNT: a listener for COUNT connections, in a cgroup that is
# not in the set (the SYN-ACKs come from its request sockets anyway).
serve() {
	local ready=$TMPD/ready.$1
	nsx "$CG2NET" --root "$ROOT" --cgroup srv listen tcp 127.0.0.1 "$1" \
		--count "$2" --timeout $(( $2 * 4000 + 5000 )) --ready-file "$ready" \
		> "$TMPD/serve.$1" 2>&1 &
	PIDS+=("$!")
	wait_until 5 test -s "$ready"
}

allowlist_docs() {
	local doc rec=$HERE/allowlist.nft found=0 src
	for src in "$HERE/../README.md" "$HERE/../../docs/recipes/nft-allow-list.md" "$HERE/../nft-cgroupd.8"; do
		[ -f "$src" ] || continue
		found=$((found + 1))
		# the man page writes ' as \(aq
		doc=$TMPD/$(basename "$src")
		sed "s/\\\\(aq/'/g" "$src" > "$doc"
		if [ "$(doc_block "$doc")" = "$(cat "$rec")" ] &&
			grep -qF "nft-cgroupd '$ALLOW_BINDING'" "$doc"; then
			pass "allowlist: $(realpath --relative-to="$HERE/../.." "$src") has the tested recipe"
		else
			fail "allowlist: $(realpath --relative-to="$HERE/../.." "$src") has the tested recipe" \
				"$(diff <(doc_block "$doc") "$rec" | head -20)"
		fi
	done
	[ $found = 0 ] && echo "SKIP allowlist: docs (not installed here; checked on the host)"
}

t_allowlist() {
	CG2NET=$(command -v cg2net || echo "$HERE/../../tests/tools/bin/cg2net")
	if [ ! -x "$CG2NET" ]; then
		echo "SKIP allowlist: no cg2net (make -C tests/tools)"
		return
	fi
	allowlist_docs
	new_ns al
	mkdir -p "$ROOT/system.slice/web.service" "$ROOT/system.slice/other.service" "$ROOT/srv"
	in_root nft -f "$HERE/allowlist.nft" || { fail "allowlist: the ruleset loads"; return; }
	in_root "$D" --once --cgroup-root "$ROOT" "$ALLOW_BINDING" 2>/dev/null
	assert_set "allowlist: the daemon fills the set" inet:egress:allowed "$ROOT/system.slice/web.service"
	local i ok=0 out
	serve 5001 $ALLOW_CONNECTIONS
	for i in $(seq $ALLOW_CONNECTIONS); do
		out=$(connect_from system.slice/web.service 5001)
		[ "$out" = "connected reply 1" ] && ok=$((ok + 1))
	done
	[ $ok = $ALLOW_CONNECTIONS ] && pass "allowlist: $ALLOW_CONNECTIONS connections from the allowed cgroup" ||
		fail "allowlist: $ALLOW_CONNECTIONS connections from the allowed cgroup" "$ok made it; last: $out"
	serve 5002 1
	out=$(connect_from system.slice/other.service 5002)
	[ "$out" = refused ] && pass "allowlist: another cgroup is refused at once" ||
		fail "allowlist: another cgroup is refused at once" "$out"
	# the same ruleset without the ct line: the handshake fails
	nsx nft flush ruleset
	grep -v 'ct state established,related accept' "$HERE/allowlist.nft" > "$TMPD/noct.nft"
	in_root nft -f "$TMPD/noct.nft"
	in_root "$D" --once --cgroup-root "$ROOT" "$ALLOW_BINDING" 2>/dev/null
	serve 5003 1
	out=$(connect_from system.slice/web.service 5003)
	case $out in
	connected*) fail "allowlist: without the ct line the handshake fails" "$out" ;;
	*) pass "allowlist: without the ct line the handshake fails" ;;
	esac
}
