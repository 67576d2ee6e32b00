# SPDX-License-Identifier: GPL-2.0 OR MIT
# Per-path accounting: real datagrams counted by a set declared with
# `counter`, summed across rmdir + mkdir (a new cgroup id) and across daemon
# restarts.  Sourced by run.sh (uses lib.sh).

# A table "t" with a counted set "s" and a rule at level $1.
acct_table() {
	nsx nft -f - <<-EOT
	table inet t {
		set s { type cgroupsv2; counter; }
		chain o {
			type filter hook output priority 0;
			socket cgroupv2 level $1 @s counter
		}
	}
	EOT
}

# send_n N CGDIR [GAP]: N datagrams of 1 byte (29 bytes with IPv4 + UDP
# headers), each from a socket of its own, all from one process in CGDIR
# (two execs a datagram cost 0.15 s under TCG); with GAP, GAP seconds
# apart (a read that times out on the nap FIFO: no exec either).
send_n() {
	nap 0	# makes the FIFO
	# shellcheck disable=SC2016 # expanded by the inner shell
	nsx bash -c 'echo $$ > "$1/cgroup.procs" || exit
		[ -n "$3" ] && exec {gap}<>"$4"
		for ((i = 0; i < $2; i++)); do
			printf x > /dev/udp/127.0.0.1/9
			[ -n "$3" ] && read -r -t "$3" -u "$gap" _
		done
		exit 0' _ "$2" "$1" "${3:-}" "$TMPD/nap" 2>/dev/null
}

acct_stats() { nsx "$D" --state-dir "$STATE" --stats "$@" 2>&1; }

# stats_has NAME PATH ID PACKETS RESTARTS: the --stats table row of PATH.
stats_has() {
	local name=$1 path=$2 id=$3 pk=$4 rs=$5 out row
	out=$(acct_stats inet:t:s)
	row=$(awk -v p="$path" '$6 == p' <<<"$out")
	if [ "$(awk '{print $1, $2, $3, $4, $5}' <<<"$row")" = "inet:t:s $id $pk $((pk * 29)) $rs" ]; then
		pass "$name"
	else
		fail "$name" "want inet:t:s $id $pk $((pk * 29)) $rs $path in: $out"
	fi
}

stats_packets_are() {
	acct_stats inet:t:s | awk -v p="$1" -v n="$2" '$6 == p && $3 == n {f = 1} END {exit !f}'
}

# wait_stats_packets PATH N: until the totals of PATH reach N packets.
wait_stats_packets() { wait_until 5 stats_packets_are "$1" "$2"; }

# resets: did the daemon of $DLOG read with NFT_MSG_GETSETELEM_RESET?
resets() { grep -q "kernel has NFT_MSG_GETSETELEM_RESET" "$DLOG"; }

# prom_packets FILE PATH: the packets total of PATH in the metrics file.
prom_packets() {
	sed -n "s|^nft_cgroupd_packets_total{set=\"inet:t:s\",path=\"$2\"} ||p" "$1" 2>/dev/null
}
prom_is() { [ "$(prom_packets "$1" "$2")" = "$3" ]; }

# prom_stays FILE PATH N: the daemon's readings reach N packets for PATH,
# and stay there for a second (several readings).
prom_stays() {
	wait_until 5 prom_is "$@" && sleep 1 && prom_is "$@"
}

# nft_cgpath DIR: DIR as nft names a cgroupsv2 element, a path below
# /sys/fs/cgroup on the same hierarchy (nft reads ids back only so).
nft_cgpath() {
	local rel=${1#"$MNT"/} base
	for base in /sys/fs/cgroup /sys/fs/cgroup/unified; do
		[ "$(stat -f -c %T "$base" 2>/dev/null)" = cgroup2fs ] || continue
		[ "$(stat -c %i "$base/$rel" 2>/dev/null)" = "$(stat -c %i "$1")" ] || continue
		base=${base#/sys/fs/cgroup}
		echo "${base#/}${base:+/}$rel"
		return 0
	done
	return 1
}

# nft_cg ARGS...: nft in the test's network namespace, seeing the host's
# /sys (ip netns exec mounts a sysfs of its own: no /sys/fs/cgroup there).
nft_cg() { nsenter --net="/run/netns/$NS" nft "$@"; }

# restore_table LEVEL [ELEMENT PACKETS]: what `nft -f` of a dump of
# acct_table does: the ruleset made anew, ELEMENT (an nft_cgpath) with the
# counter the dump held (29 bytes a packet).
restore_table() {
	local elems=
	[ $# -gt 1 ] && elems="elements = { \"$2\" counter packets $3 bytes $(($3 * 29)) }"
	nft_cg -f - <<-EOT
	flush ruleset
	table inet t {
		set s { type cgroupsv2; counter; $elems }
		chain o {
			type filter hook output priority 0;
			socket cgroupv2 level $1 @s counter
		}
	}
	EOT
}

t_acct_restart() {
	new_ns acct; acct_table $((LVL + 1))
	STATE=$TMPD/acct-state	# made by the daemon, as without StateDirectory=
	mkdir -p "$ROOT/svc" "$ROOT/other"
	# No periodic reading for an hour: the counts of an id that leaves
	# come from the reading just before its delete.
	local args=(--state-dir "$STATE" --stats-interval 3600 --metrics-file "$TMPD/acct.prom" 'inet:t:s=svc')
	start_daemon acct1 "${args[@]}" || { fail "acct: daemon started"; return; }
	assert_set "acct: set filled" inet:t:s "$ROOT/svc"
	send_n 3 "$ROOT/svc"; send_n 2 "$ROOT/other"
	rmdir "$ROOT/svc"; mkdir "$ROOT/svc"
	assert_set "acct: new id after rmdir + mkdir" inet:t:s "$ROOT/svc"
	send_n 2 "$ROOT/svc"
	wait_stats_packets /svc 5
	stats_has "acct: rmdir + mkdir: one total, one restart" /svc "$(stat -c %i "$ROOT/svc")" 5 1
	[ "$(stat -c %a "$STATE") $(stat -c %a "$STATE/state")" = "700 600" ] &&
		pass "acct: state directory made, private" ||
		fail "acct: state directory made, private" "$(ls -ld "$STATE" "$STATE/state" 2>&1)"

	# stopped: traffic on the old id, then a restart of the service
	stop_daemon
	send_n 1 "$ROOT/svc"
	local old=$(stat -c %i "$ROOT/svc")
	rmdir "$ROOT/svc"; mkdir "$ROOT/svc"
	local out=$(nsx "$D" --cgroup-root "$ROOT" --list inet:t:s 2>&1) since=3
	resets && since=1	# the daemon's last reading reset the counter
	[ "$out" = "$old (no live cgroup) packets $since bytes $((since * 29))" ] &&
		pass "acct: --list flags a stale id, with its counter" ||
		fail "acct: --list flags a stale id, with its counter" "$out"
	start_daemon acct2 "${args[@]}"
	assert_set "acct: second run: new id" inet:t:s "$ROOT/svc"
	send_n 1 "$ROOT/svc"
	wait_stats_packets /svc 7
	stats_has "acct: daemon restart: totals kept, traffic while stopped counted" /svc \
		"$(stat -c %i "$ROOT/svc")" 7 2
	out=$(nsx "$D" --cgroup-root "$ROOT" --list inet:t:s 2>&1)
	[ "$out" = "$(stat -c %i "$ROOT/svc") /svc packets 1 bytes 29" ] &&
		pass "acct: --list prints id, path and counter" ||
		fail "acct: --list prints id, path and counter" "$out"
	out=$(acct_stats --json inet:t:s)
	[ "$out" = "[{\"set\":\"inet:t:s\",\"path\":\"/svc\",\"id\":$(stat -c %i "$ROOT/svc"),\"packets\":7,\"bytes\":203,\"restarts\":2}]" ] &&
		pass "acct: --stats --json" || fail "acct: --stats --json" "$out"

	# a crash: the element keeps counting, the saved reading is not lost
	kill -KILL "$DPID"; wait "$DPID" 2>/dev/null
	send_n 2 "$ROOT/svc"
	args[3]=0.5	# now the periodic reading, for the metrics
	start_daemon acct3 "${args[@]}"
	wait_stats_packets /svc 9
	stats_has "acct: after SIGKILL: nothing lost, nothing twice" /svc "$(stat -c %i "$ROOT/svc")" 9 2
	wait_until 5 grep -qx 'nft_cgroupd_packets_total{set="inet:t:s",path="/svc"} 9' "$TMPD/acct.prom" &&
		grep -qx 'nft_cgroupd_bytes_total{set="inet:t:s",path="/svc"} 261' "$TMPD/acct.prom" &&
		grep -qx 'nft_cgroupd_restarts_total{set="inet:t:s",path="/svc"} 2' "$TMPD/acct.prom" &&
		grep -qx 'nft_cgroupd_live{set="inet:t:s",path="/svc"} 1' "$TMPD/acct.prom" &&
		pass "acct: --metrics-file in Prometheus text format" ||
		fail "acct: --metrics-file in Prometheus text format" "$(cat "$TMPD/acct.prom" 2>&1)"
	# no id changes now: only the periodic reading brings this one in
	send_n 1 "$ROOT/svc"
	# (the state file is written just after the metrics file: wait for both)
	local id=$(stat -c %i "$ROOT/svc") elem="4 116"
	resets && elem="0 0"
	wait_until 5 grep -qx 'nft_cgroupd_packets_total{set="inet:t:s",path="/svc"} 10' "$TMPD/acct.prom" &&
		wait_until 5 grep -q "^p $id $id 2 6 174 4 116 $elem 0 0 /svc\$" "$STATE/state" &&
		pass "acct: periodic reading: metrics and state file follow the traffic" ||
		fail "acct: periodic reading: metrics and state file follow the traffic" "$(cat "$STATE/state" "$TMPD/acct.prom" 2>&1)"
	stop_daemon
}

t_acct_badstate() {
	new_ns accb; acct_table $((LVL + 1))
	STATE=$TMPD/acct-bad
	mkdir -p "$STATE" "$ROOT/bsvc"
	printf 'nft-cgroupd-state 2\nset inet:t:s\np 1 2 3\np 0 5 0 4 116 0 0 1 /kept\n' > "$STATE/state"
	start_daemon accb --state-dir "$STATE" --stats-interval 0.5 'inet:t:s=bsvc' ||
		{ fail "acct: starts with a corrupt state file"; return; }
	assert_log "acct: corrupt state reported with file:line" \
		"accounting state $STATE/state:3: expected 8 numbers, then the path; line dropped, the rest kept"
	send_n 2 "$ROOT/bsvc"
	wait_stats_packets /bsvc 2
	stats_has "acct: counts again after a corrupt state" /bsvc "$(stat -c %i "$ROOT/bsvc")" 2 0
	stats_has "acct: a bad line costs only that line" /kept - 4 0
	[ ! -e "$STATE/state.bad" ] && pass "acct: a bad line does not set the file aside" ||
		fail "acct: a bad line does not set the file aside" "$(ls "$STATE")"
	stop_daemon
	printf 'hello\n' > "$STATE/state"
	start_daemon accb2 --state-dir "$STATE" 'inet:t:s=bsvc'
	assert_log "acct: a file that is no state file is set aside" \
		"accounting state $STATE/state:1: not an nft-cgroupd state file (version 1, 2 or 3); set aside as $STATE/state.bad"
	stop_daemon
}

lock_taken() { ! flock -n -s "$1" true; }

# --stats while the daemon holds readings it has not saved yet: the one
# before a delete (saved a second later), and, where readings reset the
# counters (Linux 6.5), every reading until its save (here a full re-read
# after a change by someone else).  --stats waits for
# the save (DIR/state.lock): it never shows less than was counted.
t_acct_consistent() {
	new_ns accc; acct_table $((LVL + 2))
	STATE=$TMPD/accc-state
	mkdir -p "$ROOT/cs/gone"
	start_daemon accc --state-dir "$STATE" --stats-interval 3600 'inet:t:s=cs/*' ||
		{ fail "acct consistent: daemon started"; return; }
	assert_set "acct consistent: set filled" inet:t:s "$ROOT/cs/gone"
	wait_until 5 grep -qs ' /cs/gone$' "$STATE/state"
	send_n 3 "$ROOT/cs/gone"
	rmdir "$ROOT/cs/gone"
	wait_until 5 set_is inet:t:s
	local out=$(acct_stats inet:t:s)
	[ "$(awk '$6 == "/cs/gone" {print $3}' <<<"$out")" = 3 ] &&
		pass "acct consistent: --stats just after a delete shows its last reading" ||
		fail "acct consistent: --stats just after a delete shows its last reading" "$out"
	stop_daemon

	# An element added by someone else: the daemon reads the whole set
	# again (resetting the counters where readings reset them), saves
	# a second later, and deletes the element.
	mkdir -p "$ROOT/cs/busy" "$ROOT/foreign"
	local cg
	cg=$(nft_cgpath "$ROOT/foreign") ||
		{ fail "acct consistent: nft names the test's cgroups (cgroup2 at /sys/fs/cgroup)"; return; }
	start_daemon accc2 --state-dir "$STATE" --stats-interval 3600 'inet:t:s=cs/*'
	assert_set "acct consistent: set filled again" inet:t:s "$ROOT/cs/busy"
	send_n 2 "$ROOT/cs/busy"
	wait_stats_packets /cs/busy 2
	nft_cg add element inet t s "{ \"$cg\" }"
	wait_until 5 set_is inet:t:s "$ROOT/cs/busy"
	out=$(acct_stats inet:t:s)
	[ "$(awk '$6 == "/cs/busy" {print $3}' <<<"$out")" = 2 ] &&
		pass "acct consistent: --stats just after a full re-read shows every packet" ||
		fail "acct consistent: --stats just after a full re-read shows every packet" "$out"

	# a reader that keeps the lock stops no reading of the daemon
	nsx flock -s "$STATE/state.lock" sleep 3 & PIDS+=($!)
	rmdir "$ROOT/cs/busy"
	assert_set "acct consistent: a reader holding the lock does not stop the daemon" inet:t:s
	stop_daemon
	# a lock held for good: --stats gives up after 3 s and says so
	nsx flock -x "$STATE/state.lock" sleep 5 & PIDS+=($!)
	wait_until 5 lock_taken "$STATE/state.lock"
	out=$(acct_stats inet:t:s)
	grep -q "^inet:t:s .* 2 *58 .*/cs/busy$" <<<"$out" &&
		grep -q "state.lock: the daemon has held readings unsaved for 3 s; the totals may lack them" <<<"$out" &&
		pass "acct consistent: a lock held for good: --stats warns and shows the saved totals" ||
		fail "acct consistent: a lock held for good: --stats warns and shows the saved totals" "$out"
}

# A reader holding the lock costs the daemon one wait of 0.1 s until its
# next save, not one a set: with 4 counted sets read every 0.5 s, a 3 s
# hold waits at most once a round (7 rounds at most), where a wait a set
# was 4 a round.
t_acct_lock_once() {
	new_ns accl
	nsx nft -f - <<-EOT
	table inet t {
		set a { type cgroupsv2; counter; }
		set b { type cgroupsv2; counter; }
		set c { type cgroupsv2; counter; }
		set d { type cgroupsv2; counter; }
	}
	EOT
	STATE=$TMPD/accl-state
	mkdir -p "$ROOT/lk/x"
	start_daemon accl --state-dir "$STATE" --stats-interval 0.5 \
		'inet:t:a=lk/*' 'inet:t:b=lk/*' 'inet:t:c=lk/*' 'inet:t:d=lk/*' ||
		{ fail "acct lock once: daemon started"; return; }
	wait_until 5 test -e "$STATE/state.lock" ||
		{ fail "acct lock once: the daemon made its lock"; stop_daemon; return; }
	local before waits
	before=$(grep -c 'reading unlocked' "$DLOG")
	nsx flock -s "$STATE/state.lock" sleep 3
	waits=$(($(grep -c 'reading unlocked' "$DLOG") - before))
	((waits >= 1 && waits <= 7)) &&
		pass "acct lock once: a reader holding the lock costs one wait a round, not one a set" ||
		fail "acct lock once: a reader holding the lock costs one wait a round, not one a set" \
			"$waits unlocked readings in 3 s"
	stop_daemon
}

# A cgroup name may hold any byte but '/' and newline (a tab, ESC, a
# backslash): its path is saved and read back, and every total survives.
t_acct_names() {
	new_ns accn; acct_table $((LVL + 2))
	STATE=$TMPD/acct-names
	local odd=$'a\tb\e[1m\\x09\r' out
	mkdir -p "$ROOT/nm/plain" "$ROOT/nm/$odd"
	local args=(--state-dir "$STATE" --stats-interval 3600 'inet:t:s=nm/**')
	start_daemon accn1 "${args[@]}" || { fail "acct names: daemon started"; return; }
	assert_set "acct names: set filled" inet:t:s "$ROOT/nm" "$ROOT/nm/plain" "$ROOT/nm/$odd"
	send_n 2 "$ROOT/nm/plain"; send_n 3 "$ROOT/nm/$odd"
	stop_daemon
	start_daemon accn2 "${args[@]}"
	send_n 1 "$ROOT/nm/plain"
	stop_daemon
	# the tab splits --stats' columns: sum the packets of every row
	out=$(acct_stats inet:t:s)
	[ "$(awk '$1 == "inet:t:s" {n += $3} END {print n + 0}' <<<"$out")" = 6 ] &&
		awk '$1 == "inet:t:s" && $6 == "/nm/plain" && $3 == 3 {f = 1} END {exit !f}' <<<"$out" &&
		[ ! -e "$STATE/state.bad" ] && ! grep -q "set aside\|dropped" "$DLOG" &&
		pass "acct names: a control byte in a name keeps every total across a restart" ||
		fail "acct names: a control byte in a name keeps every total across a restart" \
			"$out $(ls "$STATE"; cat "$DLOG")"
	# in the file: a backslash doubled, control bytes as \xHH
	local id=$(stat -c %i "$ROOT/nm/$odd") elem="3 87"
	resets && elem="0 0"
	grep -qxF "p $id $id 0 0 0 3 87 $elem 0 0 /nm/a\\x09b\\x1b[1m\\\\x09\\x0d" "$STATE/state" &&
		pass "acct names: the odd path is saved escaped, with its own total" ||
		fail "acct names: the odd path is saved escaped, with its own total" "$(cat -A "$STATE/state")"
}

# A path of 4,096 bytes or more is accounted under its own path, not "/":
# two cgroups 22 names of 200 bytes below "dp", each its own total.
t_acct_deep() {
	new_ns accd; acct_table $((LVL + 24))
	STATE=$TMPD/acct-deep
	local n=$(printf 'x%.0s' $(seq 200)) i out
	mkdir -p "$ROOT/dp"
	(cd "$ROOT/dp" && for i in $(seq 22); do mkdir "$n" && cd "$n" || exit; done && mkdir a b) ||
		{ fail "acct deep: 4,400-byte paths made"; return; }
	# deep_send LEAF COUNT: datagrams from dp/<22 names>/LEAF
	deep_send() {
		local k
		for ((k = 0; k < $2; k++)); do
			nsx bash -c "cd '$ROOT/dp' && for ((i = 0; i < 22; i++)); do cd '$n' || exit; done &&
				echo \$\$ > '$1/cgroup.procs' && printf x > /dev/udp/127.0.0.1/9" 2>/dev/null
		done
	}
	start_daemon accd --state-dir "$STATE" --stats-interval 3600 'inet:t:s=dp/**' ||
		{ fail "acct deep: daemon started"; return; }
	deep_send a 2; deep_send b 3
	stop_daemon
	out=$(acct_stats inet:t:s)
	local want="/dp$(printf "/$n%.0s" $(seq 22))"
	[ "$(awk -v p="$want/a" '$6 == p {print $3, $5}' <<<"$out")" = "2 0" ] &&
		[ "$(awk -v p="$want/b" '$6 == p {print $3, $5}' <<<"$out")" = "3 0" ] &&
		! awk '$6 == "/" {f = 1} END {exit !f}' <<<"$out" &&
		pass "acct deep: a 4,400-byte path counted under its own path" ||
		fail "acct deep: a 4,400-byte path counted under its own path" "$(cut -c1-120 <<<"$out")"
}

# Zombie ids: a cgroup removed while the daemon was stopped, then a firewall
# reload empties the set; at the next start nobody deletes that id, yet its
# path must be idle (evictable), with its total kept.
t_acct_zombie() {
	new_ns accz; acct_table $((LVL + 2))
	STATE=$TMPD/acct-zombie
	mkdir -p "$ROOT/zb/a" "$ROOT/zb/b"
	local args=(--state-dir "$STATE" --stats-interval 3600 'inet:t:s=zb/*')
	start_daemon accz1 "${args[@]}" || { fail "acct zombie: daemon started"; return; }
	assert_set "acct zombie: set filled" inet:t:s "$ROOT/zb/a" "$ROOT/zb/b"
	send_n 2 "$ROOT/zb/a"; send_n 1 "$ROOT/zb/b"
	stop_daemon
	rmdir "$ROOT/zb/a"
	nsx nft delete table inet t; acct_table $((LVL + 2))	# a firewall reload
	start_daemon accz2 "${args[@]}"
	assert_set "acct zombie: refilled after the reload" inet:t:s "$ROOT/zb/b"
	stop_daemon
	stats_has "acct zombie: a path whose id left while stopped is idle, its total kept" /zb/a - 2 0
	stats_has "acct zombie: the live path is live, its reading folded" /zb/b "$(stat -c %i "$ROOT/zb/b")" 1 0
}

# The metrics file in a directory others can write to (a textfile
# collector's): a FIFO or a file planted at the old fixed temporary name
# PATH.tmp is never opened.  With WATCHDOG_USEC set, the loop sends
# WATCHDOG=1 (the unit's WatchdogSec=).
t_acct_metrics_tmp() {
	new_ns accm; acct_table $((LVL + 1))
	mkdir -p "$ROOT/msvc"
	local prom=$TMPD/mt.prom fifo=$TMPD/mf.prom
	echo planted >"$prom.tmp"
	chown 65534 "$prom.tmp"; chmod 0666 "$prom.tmp"
	start_daemon accm --state-dir "$TMPD/mt-state" --stats-interval 0.2 --metrics-file "$prom" \
		'inet:t:s=msvc' || { fail "metrics tmp: daemon started" "$(cat "$DLOG")"; return; }
	wait_until 5 grep -qs '^nft_cgroupd_live{set="inet:t:s",path="/msvc"} 1$' "$prom" &&
		pass "metrics tmp: written beside a file planted at PATH.tmp" ||
		fail "metrics tmp: written beside a file planted at PATH.tmp" "$(cat "$DLOG")"
	[ "$(stat -c '%u %a %F' "$prom" 2>&1)" = "0 644 regular file" ] &&
		pass "metrics tmp: the file is the daemon's own, mode 0644" ||
		fail "metrics tmp: the file is the daemon's own, mode 0644" "$(stat -c '%U %a %F' "$prom" 2>&1)"
	[ "$(cat "$prom.tmp") $(stat -c %u "$prom.tmp")" = "planted 65534" ] &&
		pass "metrics tmp: the planted file is left alone" ||
		fail "metrics tmp: the planted file is left alone" "$(ls -l "$prom.tmp")"
	stop_daemon

	new_ns accm2; acct_table $((LVL + 2))
	mkfifo "$fifo.tmp"
	local sock=$TMPD/mt.sock
	NOTIFY_OUT=$TMPD/mt.out
	notify_sink "$sock" "$NOTIFY_OUT"
	DLOG=$TMPD/mtf.log
	NOTIFY_SOCKET=$sock WATCHDOG_USEC=400000 ip netns exec "$NS" "$D" -v --retry-interval 0.2 \
		--cgroup-root "$ROOT" --state-dir "$TMPD/mf-state" --stats-interval 0.2 \
		--metrics-file "$fifo" 'inet:t:s=msvc/*' >"$DLOG" 2>&1 &
	DPID=$!
	PIDS+=("$DPID")
	mkdir "$ROOT/msvc/a"
	assert_set "metrics tmp: the daemon keeps syncing" inet:t:s "$ROOT/msvc/a"
	wait_until 5 grep -qs '^nft_cgroupd_live{set="inet:t:s",path="/msvc/a"} 1$' "$fifo" &&
		pass "metrics tmp: written beside a FIFO planted at PATH.tmp" ||
		fail "metrics tmp: written beside a FIFO planted at PATH.tmp" "$(cat "$DLOG")"
	wait_until 5 notified_times_atleast WATCHDOG=1 3 &&
		pass "metrics tmp: WATCHDOG=1 from the loop, every half period" ||
		fail "metrics tmp: WATCHDOG=1 from the loop, every half period" "$(tr '\n' '|' <"$NOTIFY_OUT")"
	kill -TERM "$DPID"
	if wait_until 5 exited "$DPID"; then
		wait "$DPID"
		local rc=$?
		[ $rc = 0 ] && pass "metrics tmp: exits 0 on SIGTERM" ||
			fail "metrics tmp: exits 0 on SIGTERM" "rc=$rc"
	else
		fail "metrics tmp: exits 0 on SIGTERM" "still running after 5 s: $(cat /proc/"$DPID"/wchan 2>/dev/null)"
		kill -KILL "$DPID"; wait "$DPID" 2>/dev/null
	fi
	[ -p "$fifo.tmp" ] && pass "metrics tmp: the planted FIFO is left alone" ||
		fail "metrics tmp: the planted FIFO is left alone" "$(ls -l "$fifo.tmp" 2>&1)"
}

# Cgroup names of any bytes (every byte 0x01-0xff but '/' and newline, alone
# and all in one name, invalid and overlong UTF-8, surrogates, C1 and
# terminal controls, backslash escapes that look like ours): each output is
# read by a real parser for its format, and must give back every name.
# --stats reads the state file: C0 controls included, they survive it.
t_hostile_names() {
	local py=/usr/bin/python3 names=$HERE/names.py out
	if ! "$py" -c 'import prometheus_client' 2>/dev/null; then
		echo "SKIP hostile names: no python3-prometheus-client here (the test VM; checked on the host)"
		return
	fi
	new_ns hn; acct_table $((LVL + 3))
	nsx nft add set inet t w '{ type cgroupsv2; }'
	mkdir -p "$ROOT/hx/all"
	"$py" "$names" make "$ROOT/hx/all" ||
		{ fail "hostile names: made"; return; }
	local n=$(ls "$ROOT/hx/all" | wc -l) prom=$TMPD/hn.prom
	start_daemon hn --state-dir "$TMPD/hn-state" --stats-interval 0.2 --metrics-file "$prom" \
		'inet:t:s=hx/all/*' || { fail "hostile names: daemon started" "$(cat "$DLOG")"; return; }
	wait_until 10 eval '[ "$(grep -c "^nft_cgroupd_live.* 1\$" "$prom" 2>/dev/null)" = "$n" ]'
	out=$("$py" "$names" prom "$prom" /hx/all "$ROOT/hx/all" 2>&1) &&
		pass "hostile names: Prometheus' parser reads the metrics file, every name once" ||
		fail "hostile names: Prometheus' parser reads the metrics file, every name once" "$(tail -c 600 <<<"$out")"
	nsx "$D" --cgroup-root "$ROOT" --list inet:t:s >"$TMPD/hn.list" 2>&1
	out=$("$py" "$names" table "$TMPD/hn.list" /hx/all "$ROOT/hx/all" 2>&1) &&
		pass "hostile names: --list, no raw control byte, every name once" ||
		fail "hostile names: --list, no raw control byte, every name once" "$(tail -c 600 <<<"$out")"
	nsx "$D" --check --cgroup-root "$ROOT" 'inet:t:w=hx/all/*' >"$TMPD/hn.check" 2>&1
	out=$("$py" "$names" table "$TMPD/hn.check" /hx/all "$ROOT/hx/all" 2>&1) &&
		pass "hostile names: --check, no raw control byte, every name once" ||
		fail "hostile names: --check, no raw control byte, every name once" "$(tail -c 600 <<<"$out")"
	stop_daemon
	# The log names cgroups too: a binding warned as matching nothing
	# names the cgroup that matches it later, with no raw control byte.
	mkdir -p "$ROOT/hx/late"
	start_daemon hn-log 'inet:t:w=hx/late/*' ||
		{ fail "hostile names: log: daemon started" "$(cat "$DLOG")"; return; }
	"$py" "$names" make "$ROOT/hx/late" || { fail "hostile names: log: made"; return; }
	wait_until 10 eval '[ "$(grep -c "matches a cgroup now" "$DLOG")" -ge 1 ]'
	grep -q "matches a cgroup now: /hx/late/" "$DLOG" &&
		! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$DLOG" &&
		pass "hostile names: the log names the cgroup, no raw control byte" ||
		fail "hostile names: the log names the cgroup, no raw control byte" "$(tail -c 600 "$DLOG" | cat -v)"
	stop_daemon

	STATE=$TMPD/hn-state
	acct_stats --json inet:t:s >"$TMPD/hn.json"
	out=$("$py" "$names" json "$TMPD/hn.json" /hx/all "$ROOT/hx/all" 2>&1) &&
		pass "hostile names: python's json reads --stats --json, every name once" ||
		fail "hostile names: python's json reads --stats --json, every name once" "$(tail -c 600 <<<"$out")"
	acct_stats inet:t:s >"$TMPD/hn.stats"
	out=$("$py" "$names" table "$TMPD/hn.stats" /hx/all "$ROOT/hx/all" 2>&1) &&
		pass "hostile names: --stats table, no raw control byte, every name once" ||
		fail "hostile names: --stats table, no raw control byte, every name once" "$(tail -c 600 <<<"$out")"
}

# Nothing counted twice (issue 27 item 5): a counter restored by `nft -f`
# from a dump is not traffic, whether the set is made anew under the
# running daemon, restored before the daemon binds its ids (a boot), or
# named by a state file of another boot or another set.
t_acct_restore() {
	new_ns accr; acct_table $((LVL + 1))
	mkdir -p "$ROOT/rs"
	local cg prom=$TMPD/accr.prom id
	cg=$(nft_cgpath "$ROOT/rs") ||
		{ fail "acct restore: nft names the test's cgroups (cgroup2 at /sys/fs/cgroup)"; return; }
	id=$(stat -c %i "$ROOT/rs")
	start_daemon accr --state-dir "$TMPD/accr-state" --stats-interval 0.2 \
		--metrics-file "$prom" 'inet:t:s=rs' || { fail "acct restore: daemon started"; return; }
	send_n 3 "$ROOT/rs"
	wait_until 5 prom_is "$prom" /rs 3
	# a dump now would hold "counter packets 3"; 2 more, then it is restored
	send_n 2 "$ROOT/rs"
	wait_until 5 prom_is "$prom" /rs 5
	restore_table $((LVL + 1)) "$cg" 3 || fail "acct restore: nft -f"
	assert_log "acct restore: a set made anew is noticed" \
		"inet:t:s: the set was made anew (handles [0-9]* [0-9]*): this reading is a baseline, not counted"
	send_n 1 "$ROOT/rs"
	prom_stays "$prom" /rs 6 &&
		pass "acct restore: nft -f of a dump: its counter not counted again (5 + 1)" ||
		fail "acct restore: nft -f of a dump: its counter not counted again (5 + 1)" \
			"$(prom_packets "$prom" /rs) packets"
	stop_daemon

	# a set restored with its counters before the daemon binds the id: a
	# boot (nftables.service), the state file lost
	restore_table $((LVL + 1)) "$cg" 40 || fail "acct restore: nft -f"
	start_daemon accr2 --state-dir "$TMPD/accr2-state" --stats-interval 0.2 \
		--metrics-file "$prom" 'inet:t:s=rs'
	# its first reading is the baseline: traffic before it is not counted
	wait_until 5 prom_is "$prom" /rs 0
	send_n 2 "$ROOT/rs"
	prom_stays "$prom" /rs 2 &&
		pass "acct restore: an element found in the set counts from the daemon's first reading" ||
		fail "acct restore: an element found in the set counts from the daemon's first reading" \
			"$(prom_packets "$prom" /rs) packets, want 2 (the restored 40 not counted)"
	stop_daemon

	# a state file of another boot: its live id is no longer that path's
	local st=$TMPD/accr3-state boot
	mkdir -p "$st"
	printf 'nft-cgroupd-state 3\nboot 00000000-0000-4000-8000-000000000000\nset inet:t:s\np %s %s 0 0 0 5 145 5 145 0 0 /rs\n' \
		"$id" "$id" >"$st/state"
	restore_table $((LVL + 1)) "$cg" 40 || fail "acct restore: nft -f"
	start_daemon accr3 --state-dir "$st" --stats-interval 0.2 --metrics-file "$prom" 'inet:t:s=rs'
	assert_log "acct restore: a state file of another boot is noticed" \
		"accounting state $st/state: saved in another boot: its ids departed, totals kept"
	wait_until 5 prom_is "$prom" /rs 5
	send_n 2 "$ROOT/rs"
	prom_stays "$prom" /rs 7 &&
		pass "acct restore: state of another boot: totals kept, the element a baseline (5 + 2)" ||
		fail "acct restore: state of another boot: totals kept, the element a baseline (5 + 2)" \
			"$(prom_packets "$prom" /rs) packets"
	stop_daemon

	# this boot, but the set's handle is not the one the state names
	st=$TMPD/accr4-state
	boot=$(cat /proc/sys/kernel/random/boot_id)
	mkdir -p "$st"
	printf 'nft-cgroupd-state 3\nboot %s\nset inet:t:s\nhandle 999999 999999\np %s %s 0 0 0 5 145 5 145 0 0 /rs\n' \
		"$boot" "$id" "$id" >"$st/state"
	restore_table $((LVL + 1)) "$cg" 40 || fail "acct restore: nft -f"
	start_daemon accr4 --state-dir "$st" --stats-interval 0.2 --metrics-file "$prom" 'inet:t:s=rs'
	wait_until 5 prom_is "$prom" /rs 5
	send_n 2 "$ROOT/rs"
	prom_stays "$prom" /rs 7 &&
		pass "acct restore: state of another set handle: the element a baseline (5 + 2)" ||
		fail "acct restore: state of another set handle: the element a baseline (5 + 2)" \
			"$(prom_packets "$prom" /rs) packets"
	grep -q "^handle [0-9]* [0-9]*$" "$st/state" && ! grep -q "^handle 999999 999999$" "$st/state" &&
		grep -qx "boot $boot" "$st/state" &&
		pass "acct restore: the state file names this boot and the set's handle" ||
		fail "acct restore: the state file names this boot and the set's handle" "$(cat "$st/state")"
	stop_daemon
}

# Inside one set: an element flushed and added back with an older counter
# by someone else (`nft -f` of "flush set" + elements of a dump), and an
# element deleted by someone else: confirmed gone by reading it alone,
# made again by the daemon, counted from zero.
t_acct_flushed() {
	new_ns accf; acct_table $((LVL + 1))
	mkdir -p "$ROOT/fl"
	local cg prom=$TMPD/accf.prom
	cg=$(nft_cgpath "$ROOT/fl") ||
		{ fail "acct flushed: nft names the test's cgroups (cgroup2 at /sys/fs/cgroup)"; return; }
	start_daemon accf --state-dir "$TMPD/accf-state" --stats-interval 0.2 \
		--metrics-file "$prom" 'inet:t:s=fl' || { fail "acct flushed: daemon started"; return; }
	send_n 3 "$ROOT/fl"
	wait_until 5 prom_is "$prom" /fl 3
	nft_cg delete element inet t s "{ \"$cg\" }" || fail "acct flushed: nft delete element"
	assert_log "acct flushed: an absent id is read alone, confirmed gone" \
		"inet:t:s: id $(stat -c %i "$ROOT/fl") is gone from the set (read alone)"
	assert_set "acct flushed: the daemon adds it again" inet:t:s "$ROOT/fl"
	send_n 2 "$ROOT/fl"
	prom_stays "$prom" /fl 5 &&
		pass "acct flushed: an element made again by the daemon counts from zero (3 + 2)" ||
		fail "acct flushed: an element made again by the daemon counts from zero (3 + 2)" \
			"$(prom_packets "$prom" /fl) packets"
	if resets; then
		# the element's counter is 0 after each reading: a restored one
		# cannot be told from traffic (documented in nft-cgroupd(8))
		stop_daemon
		return
	fi
	nft_cg -f - <<-EOT || fail "acct flushed: nft -f"
	flush set inet t s
	add element inet t s { "$cg" counter packets 1 bytes 29 }
	EOT
	send_n 1 "$ROOT/fl"
	prom_stays "$prom" /fl 6 &&
		pass "acct flushed: an element put back with an older counter is a baseline (5 + 1)" ||
		fail "acct flushed: an element put back with an older counter is a baseline (5 + 1)" \
			"$(prom_packets "$prom" /fl) packets"
	stop_daemon
}

# Many readings while traffic flows: every packet counted exactly once,
# through NFT_MSG_GETSETELEM_RESET where the kernel has it (Linux 6.5),
# else by comparing with the last reading.  Readings of --stats and
# --list (which reset nothing) go on at the same time.
t_acct_exact() {
	new_ns acce; acct_table $((LVL + 2))
	mkdir -p "$ROOT/ex/a" "$ROOT/ex/b" "$ROOT/ex/c"
	local prom=$TMPD/acce.prom k want=0 i c
	start_daemon acce --state-dir "$TMPD/acce-state" --stats-interval 0.05 \
		--metrics-file "$prom" 'inet:t:s=ex/*' || { fail "acct exact: daemon started"; return; }
	k=$(uname -r); k=${k%%[!0-9.]*}
	[ "${k%%.*}" -gt 6 ] || { [ "${k%%.*}" = 6 ] && [ "$(cut -d. -f2 <<<"$k")" -ge 5 ]; } && want=1
	[ "$(grep -c "kernel has NFT_MSG_GETSETELEM_RESET" "$DLOG")" = $want ] &&
		[ "$(grep -c "kernel lacks NFT_MSG_GETSETELEM_RESET" "$DLOG")" = $((1 - want)) ] &&
		pass "acct exact: GETSETELEM_RESET used iff the kernel ($k) is 6.5 or later" ||
		fail "acct exact: GETSETELEM_RESET used iff the kernel ($k) is 6.5 or later" "$(grep GETSETELEM_RESET "$DLOG")"
	local busy=()
	for c in a b c; do
		# 60 datagrams 50 ms apart, while the daemon reads every 50 ms
		send_n 60 "$ROOT/ex/$c" 0.05 &
		busy+=($!)
	done
	( for ((i = 0; i < 20; i++)); do acct_stats inet:t:s >/dev/null; nsx "$D" --list inet:t:s >/dev/null 2>&1; done ) &
	busy+=($!)
	wait "${busy[@]}"
	for c in a b c; do
		prom_stays "$prom" "/ex/$c" 60 ||
			{ fail "acct exact: 180 datagrams over many readings, each counted once" \
				"/ex/$c: $(prom_packets "$prom" "/ex/$c") packets, want 60"; stop_daemon; return; }
	done
	[ "$(counter o)" = 180 ] &&
		pass "acct exact: 180 datagrams over many readings, each counted once" ||
		fail "acct exact: 180 datagrams over many readings, each counted once" "rule counter $(counter o)"
	stop_daemon
}
