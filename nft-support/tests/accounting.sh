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

# send_n N CGDIR: N datagrams of 1 byte (29 bytes with IPv4 + UDP headers).
send_n() {
	local i
	for ((i = 0; i < $1; i++)); do send_from "$2"; done
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
	local out=$(nsx "$D" --cgroup-root "$ROOT" --list inet:t:s 2>&1)
	[ "$out" = "$old (no live cgroup) packets 3 bytes 87" ] &&
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
	local id=$(stat -c %i "$ROOT/svc")
	wait_until 5 grep -qx 'nft_cgroupd_packets_total{set="inet:t:s",path="/svc"} 10' "$TMPD/acct.prom" &&
		wait_until 5 grep -q "^p $id $id 2 6 174 4 116 0 /svc\$" "$STATE/state" &&
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
		"accounting state $STATE/state:1: not an nft-cgroupd state file (version 1 or 2); set aside as $STATE/state.bad"
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
	local id=$(stat -c %i "$ROOT/nm/$odd")
	grep -qxF "p $id $id 0 0 0 3 87 0 /nm/a\\x09b\\x1b[1m\\\\x09\\x0d" "$STATE/state" &&
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
			nsx bash -c "cd '$ROOT/dp' && for i in \$(seq 22); do cd '$n' || exit; done &&
				echo \$\$ > '$1/cgroup.procs' && exec printf x > /dev/udp/127.0.0.1/9" 2>/dev/null
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
	if wait_until 5 eval '! kill -0 "$DPID" 2>/dev/null'; then
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
# (The --stats names hold no C0 control: the state file's own escaping is
# issue 27 item 1.)
t_hostile_names() {
	local py=/usr/bin/python3 names=$HERE/names.py out
	if ! "$py" -c 'import prometheus_client' 2>/dev/null; then
		echo "SKIP hostile names: no python3-prometheus-client here (the test VM; checked on the host)"
		return
	fi
	new_ns hn; acct_table $((LVL + 3))
	nsx nft add set inet t w '{ type cgroupsv2; }'
	mkdir -p "$ROOT/hx/all" "$ROOT/hx/txt"
	"$py" "$names" make "$ROOT/hx/all" && "$py" "$names" make "$ROOT/hx/txt" --no-c0 ||
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

	STATE=$TMPD/hn-txt
	start_daemon hn2 --state-dir "$STATE" --stats-interval 0.2 'inet:t:s=hx/txt/*' ||
		{ fail "hostile names: second daemon started" "$(cat "$DLOG")"; return; }
	n=$(ls "$ROOT/hx/txt" | wc -l)
	wait_until 10 eval '[ "$(acct_stats --json inet:t:s | grep -c "\"path\":\"/hx/txt/")" = "$n" ]'
	stop_daemon
	acct_stats --json inet:t:s >"$TMPD/hn.json"
	out=$("$py" "$names" json "$TMPD/hn.json" /hx/txt "$ROOT/hx/txt" 2>&1) &&
		pass "hostile names: python's json reads --stats --json, every name once" ||
		fail "hostile names: python's json reads --stats --json, every name once" "$(tail -c 600 <<<"$out")"
	acct_stats inet:t:s >"$TMPD/hn.stats"
	out=$("$py" "$names" table "$TMPD/hn.stats" /hx/txt "$ROOT/hx/txt" 2>&1) &&
		pass "hostile names: --stats table, no raw control byte, every name once" ||
		fail "hostile names: --stats table, no raw control byte, every name once" "$(tail -c 600 <<<"$out")"
}
