#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# nft-cgroupd behaviour tests: each in its own network namespace, against a
# private cgroup2 mount.  Prints PASS/FAIL per check and a summary.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ops.sh"
setup

t_once() {
	new_ns once; std_table $((LVL + 2))
	nsx nft add set inet t w '{ type cgroupsv2; }'
	mkdir -p "$ROOT/once/a" "$ROOT/once/b" "$ROOT/once/a/deeper" "$ROOT/other"
	if nsx "$D" --once --cgroup-root "$ROOT" 'inet:t:s=once/*' 'inet:t:w=once' 2>"$TMPD/once.err"; then
		pass "once: exit status 0"
	else
		fail "once: exit status 0" "$(cat "$TMPD/once.err")"
	fi
	assert_set "once: set holds exactly once/*" inet:t:s "$ROOT/once/a" "$ROOT/once/b"
	assert_set "once: second set holds once" inet:t:w "$ROOT/once"
	if nsx "$D" --once --cgroup-root "$ROOT" 'inet:t:s=once/*' 'inet:t:nosuch=once' 2>"$TMPD/once2.err"; then
		fail "once: missing set gives non-zero exit"
	else
		pass "once: missing set gives non-zero exit"
	fi
	grep -q "binding inet:t:nosuch=once (argument 2): set nosuch not found in table t" "$TMPD/once2.err" &&
		pass "once: error names the binding" || fail "once: error names the binding" "$(cat "$TMPD/once2.err")"
	# cgroupsv2 elements are 64-bit ids in host byte order: nft prints the
	# path when it finds the id under /sys/fs/cgroup, else the number.
	local out id
	out=$(nsx nft list set inet t w)
	id=$(stat -c %i "$ROOT/once")
	if grep -q -e "$id" -e "nftcg-test.$$/once\"" <<<"$out"; then
		pass "once: nft reads the id back (host byte order)"
	else
		fail "once: nft reads the id back (host byte order)" "$out"
	fi
	send_from "$ROOT/once/a"; send_from "$ROOT/other"; send_from "$ROOT/once/a/deeper"
	assert_counter "once: traffic from once/a and below counted, not other" o 1 2
}

t_late() {
	new_ns late; std_table $((LVL + 2))
	mkdir -p "$ROOT/late"
	start_daemon late 'inet:t:s=late/*' || { fail "late: daemon started" "$(cat "$DLOG")"; return; }
	assert_set "late: empty at start" inet:t:s
	mkdir "$ROOT/late/x"
	assert_set "late: created cgroup appears" inet:t:s "$ROOT/late/x"
	send_from "$ROOT/late/x"; send_from "$ROOT/late"
	assert_counter "late: traffic from late/x counted, from late not" o 1 1
	# rmdir + mkdir: the new cgroup has a new id that replaces the old one
	local old
	old=$(stat -c %i "$ROOT/late/x")
	rmdir "$ROOT/late/x"
	assert_set "late: removed cgroup disappears" inet:t:s
	# deletes use NFT_MSG_DESTROYSETELEM from Linux 6.3 on, DELSETELEM before
	local k=$(uname -r) old_kernel=0
	k=${k%%[!0-9.]*}
	[ "${k%%.*}" -lt 6 ] || { [ "${k%%.*}" = 6 ] && [ "$(cut -d. -f2 <<<"$k")" -lt 3 ]; } && old_kernel=1
	if [ "$(grep -c "kernel lacks NFT_MSG_DESTROYSETELEM, using DELSETELEM" "$DLOG")" = $old_kernel ]; then
		pass "late: DELSETELEM fallback used iff the kernel ($k) is older than 6.3"
	else
		fail "late: DELSETELEM fallback used iff the kernel ($k) is older than 6.3" "$(grep -i setelem "$DLOG")"
	fi
	mkdir "$ROOT/late/x"
	[ "$(stat -c %i "$ROOT/late/x")" != "$old" ] && pass "late: recreated cgroup has a new id" ||
		fail "late: recreated cgroup has a new id"
	assert_set "late: new id replaces the old" inet:t:s "$ROOT/late/x"
	send_from "$ROOT/late/x"
	assert_counter "late: traffic from the recreated cgroup counted" o 1 2
	# both within one burst: no event read in between
	rmdir "$ROOT/late/x"; mkdir "$ROOT/late/x"
	assert_set "late: rmdir+mkdir in one burst" inet:t:s "$ROOT/late/x"
	stop_daemon
}

t_deep() {
	new_ns deep
	# "**" has no fixed depth: one rule per level (here up to 8 below deep)
	local rules= l
	for l in $(seq $((LVL + 1)) $((LVL + 9))); do
		rules+="socket cgroupv2 level $l @s counter accept"$'\n'
	done
	nsx nft -f - <<-EOT
	table inet t {
		set s { type cgroupsv2; }
		set f { type cgroupsv2; }
		chain o {
			type filter hook output priority 0;
			$rules
		}
	}
	EOT
	mkdir -p "$ROOT/deep"
	start_daemon deep 'inet:t:s=deep/**' 'inet:t:f=deep/*/*/*/*/*/f' || { fail "deep: daemon started"; return; }
	mkdir -p "$ROOT/deep/a/b/c/d/e/f/g/h"
	local p=$ROOT/deep dirs=("$ROOT/deep")
	for l in a b c d e f g h; do p=$p/$l; dirs+=("$p"); done
	assert_set "deep: mkdir -p burst, every level in deep/**" inet:t:s "${dirs[@]}"
	assert_set "deep: fixed-depth pattern at level 7" inet:t:f "$ROOT/deep/a/b/c/d/e/f"
	send_from "$ROOT/deep/a/b/c/d/e/f/g/h"
	assert_counter "deep: level rule matches once (accept ends the chain)" o 1 1
	find "$ROOT/deep/a" -depth -type d -exec rmdir {} +
	assert_set "deep: subtree removal" inet:t:s "$ROOT/deep"
	stop_daemon
}

t_abyss() {
	new_ns abyss
	nsx nft -f - <<-EOT
	table inet t {
		set s { type cgroupsv2; }
		set w { type cgroupsv2; }
		set c { type cgroupsv2; }
		set e { type cgroupsv2; }
	}
	EOT
	# the depth cap: level 64 (abyss and 63 levels) and all below it are
	# judged as level 64; no pattern that needs level 65 matches
	local c64=abyss c65 i fs=$TMPD/abyss-fs
	for ((i = 0; i < 63; i++)); do c64+=/*; done
	c65=$c64/*
	# deeper than the ~1,960 levels where a recursive walk runs out of
	# stack.  Plain directories on a tmpfs, as in bigsync: the walk does
	# not care, and each cgroup mkdir costs in its depth (2,000 nested
	# cgroups took 16 s under TCG, 2,000 directories 0.1 s).
	mkdir "$fs" && mount -t tmpfs none "$fs" || { fail "abyss: tmpfs mounted"; return; }
	MOUNTS+=("$fs")
	mkdir -p "$fs/abyss" "$fs/shallow"
	"$HERE/deeptree" mk "$fs/abyss" 2000 || { fail "abyss: 2,000 levels created"; return; }
	local rc n
	nsx "$D" --once --cgroup-root "$fs" 'inet:t:s=abyss/**' 'inet:t:w=shallow' \
		"inet:t:c=$c64/**" "inet:t:e=$c65/**" 2>"$TMPD/abyss.err"
	rc=$?
	[ $rc = 0 ] && pass "abyss: --once survives a tree 2,000 levels deep" ||
		fail "abyss: --once survives a tree 2,000 levels deep" "rc=$rc $(tail -3 "$TMPD/abyss.err")"
	n=$(set_ids inet:t:s | wc -l)
	[ "$n" = 256 ] && pass "abyss: followed down to 256 levels, no deeper" ||
		fail "abyss: followed down to 256 levels, no deeper" "$n ids"
	n=$(set_ids inet:t:c | wc -l)
	[ "$n" = 193 ] && pass "abyss: levels 64 to 256 judged as level 64" ||
		fail "abyss: levels 64 to 256 judged as level 64" "$n ids"
	n=$(set_ids inet:t:e | wc -l)
	[ "$n" = 0 ] && pass "abyss: a pattern that needs level 65 never matches" ||
		fail "abyss: a pattern that needs level 65 never matches" "$n ids"
	[ "$(grep -c "more than 256 levels below the root" "$TMPD/abyss.err")" = 1 ] &&
		grep -q "$fs/abyss/d/d/d/d/.*: more than 256" "$TMPD/abyss.err" &&
		pass "abyss: the limit is reported once, naming the path" ||
		fail "abyss: the limit is reported once, naming the path" "$(head -c 300 "$TMPD/abyss.err")"
	# the daemon on cgroups, beside a tree past its 256 levels
	mkdir -p "$ROOT/abyss" "$ROOT/shallow"
	DEEP+=("$ROOT/abyss")
	"$HERE/deeptree" mk "$ROOT/abyss" 300 || { fail "abyss: 300 levels created"; return; }
	start_daemon abyss 'inet:t:s=abyss/**' 'inet:t:w=shallow/*' || { fail "abyss: daemon started"; return; }
	mkdir "$ROOT/shallow/x"
	assert_set "abyss: the daemon keeps working beside the deep tree" inet:t:w "$ROOT/shallow/x"
	# a deep tree that appears at once: one event, then the walk below it
	mkdir "$ROOT/abyss2"
	DEEP+=("$ROOT/abyss2")
	# (300 levels: past the daemon's 256, where its walk stops; the 2,000
	# above are for a recursive walk's stack.  Each level costs an mkdir
	# and an rmdir: 2,000 took 10 s more under TCG.)
	kill -STOP "$DPID"
	"$HERE/deeptree" mk "$ROOT/abyss2" 300
	kill -CONT "$DPID"
	assert_log "abyss: a deep tree made while stopped is walked, to the limit" "abyss2/d/d/.*too deep, not followed"
	"$HERE/deeptree" rm "$ROOT/abyss"
	"$HERE/deeptree" rm "$ROOT/abyss2"
	assert_set "abyss: the deep tree removed" inet:t:s "$ROOT/abyss"
	alive "$DPID" && pass "abyss: daemon alive" || fail "abyss: daemon alive" "$(tail -3 "$DLOG")"
	stop_daemon
}

t_burst() {
	new_ns burst; std_table $((LVL + 2))
	mkdir -p "$ROOT/burst"
	start_daemon burst 'inet:t:s=burst/web-*' || { fail "burst: daemon started"; return; }
	# one mkdir (and one rmdir) for all: a burst also where fork is slow (TCG)
	local i dirs=()
	for i in $(seq 1 300); do dirs+=("$ROOT/burst/web-$i" "$ROOT/burst/db-$i"); done
	mkdir "${dirs[@]}"
	assert_set "burst: 300 of 600 created in a burst" inet:t:s "$ROOT"/burst/web-*/
	send_from "$ROOT/burst/web-17"; send_from "$ROOT/burst/db-17"
	assert_counter "burst: traffic from web-17 counted, db-17 not" o 1 1
	rmdir "${dirs[@]}"
	assert_set "burst: all removed in a burst" inet:t:s
	stop_daemon
}

t_thousand() {
	new_ns k; std_table $((LVL + 3))
	mkdir -p "$ROOT/k"
	start_daemon k 'inet:t:s=k/*/*' || { fail "thousand: daemon started"; return; }
	local i j dirs=()
	for i in $(seq 1 10); do
		dirs+=("$ROOT/k/$i")
		for j in $(seq 1 100); do dirs+=("$ROOT/k/$i/$j"); done
	done
	mkdir "${dirs[@]}"
	assert_set "thousand: 1,000 cgroups at depth 2" inet:t:s "$ROOT"/k/*/*/
	# root gets the 8 MiB it asks for: the cap, not the buffer, pages it
	grep -q "up to 4096 ids per transaction" "$DLOG" &&
		pass "thousand: at most 4,096 ids per transaction" ||
		fail "thousand: at most 4,096 ids per transaction" "$(grep -m1 "send buffer" "$DLOG")"
	dirs=()
	for i in $(seq 1 5); do
		for j in $(seq 1 100); do dirs+=("$ROOT/k/$i/$j"); done
	done
	rmdir "${dirs[@]}"
	assert_set "thousand: 500 removed" inet:t:s "$ROOT"/k/*/*/
	send_from "$ROOT/k/7/42"; send_from "$ROOT/k/7"
	assert_counter "thousand: traffic from k/7/42 counted" o 1 1
	stop_daemon
}

t_bigsync() {
	new_ns big
	# 30,000 ids: 600 KB of elements, paged by the send buffer a daemon
	# gets in a user namespace (no SO_SNDBUFFORCE): net.core.wmem_max
	# doubled, here 64 KiB, below the cap of 4,096 ids per transaction.
	# Plain directories on a tmpfs: the daemon does not care, and they
	# come and go faster than cgroups.
	local fake=$TMPD/fake n per
	mkdir "$fake"
	mount -t tmpfs none "$fake" || { fail "bigsync: tmpfs mounted"; return; }
	MOUNTS+=("$fake")
	(cd "$fake" && seq 30000 | xargs mkdir)
	# wmem_max is global: lowered only until the daemon has its socket
	# the same for the event socket's receive buffer: our own echo of
	# 30,000 elements would overflow it, were it not filtered out
	WMEM_RESTORE=$(cat /proc/sys/net/core/wmem_max)
	RMEM_RESTORE=$(cat /proc/sys/net/core/rmem_max)
	echo 32768 > /proc/sys/net/core/wmem_max
	echo 212992 > /proc/sys/net/core/rmem_max
	DLOG=$TMPD/big.log
	unshare -Ur --net bash -c 'ip link set lo up && nft add table inet t &&
		nft add set inet t s "{ type cgroupsv2; }" && exec "$0" "$@"' \
		"$D" -v --cgroup-root "$fake" 'inet:t:s=*' > "$DLOG" 2>&1 &
	DPID=$!
	PIDS+=("$DPID")
	USERNS_PID=$DPID
	wait_until 10 grep -qs -e "send buffer" -e "initial sync" "$DLOG"
	echo "$WMEM_RESTORE" > /proc/sys/net/core/wmem_max
	echo "$RMEM_RESTORE" > /proc/sys/net/core/rmem_max
	WMEM_RESTORE= RMEM_RESTORE=
	wait_until 10 grep -qs "initial sync" "$DLOG" || { fail "bigsync: daemon started" "$(tail -3 "$DLOG")"; return; }
	per=$(sed -n 's/.*send buffer 65536 bytes: up to \([0-9]*\) ids per transaction.*/\1/p' "$DLOG")
	[ -n "$per" ] && [ "$per" -gt 1000 ] && [ "$per" -lt 4096 ] &&
		pass "bigsync: a 64 KiB send buffer pages by $per ids" ||
		fail "bigsync: a 64 KiB send buffer pages by 1,000 to 4,095 ids" "$(grep -m1 "send buffer" "$DLOG")"
	n=$(set_ids inet:t:s | wc -l)
	[ "$n" = 30000 ] && pass "bigsync: 30,000 ids added with a 64 KiB send buffer" ||
		fail "bigsync: 30,000 ids added with a 64 KiB send buffer" "$n ids; $(grep -m1 -i -e error -e binding "$DLOG" | cut -c1-200)"
	sleep 0.2	# the first events, if any, are read
	grep -q -e "events lost" -e "changed by someone else" "$DLOG" &&
		fail "bigsync: our own echo does not overflow the event socket" "$(grep -m1 -e "events lost" -e "changed by" "$DLOG")" ||
		pass "bigsync: our own echo does not overflow the event socket"
	(cd "$fake" && seq 30000 | xargs rmdir)
	if wait_until 10 eval '[ -z "$(set_ids inet:t:s)" ]'; then
		pass "bigsync: 30,000 ids removed"
	else
		fail "bigsync: 30,000 ids removed" "$(set_ids inet:t:s | wc -l) left"
	fi
	stop_daemon
}

# start_with_queue LIMIT LOGNAME ARGS...: start_daemon with an inotify
# queue of LIMIT events (the limit is taken at inotify_init(): set only
# around the start).
start_with_queue() {
	local limit=$1
	shift
	SYSCTL_RESTORE=$(cat /proc/sys/fs/inotify/max_queued_events)
	echo "$limit" > /proc/sys/fs/inotify/max_queued_events
	start_daemon "$@"
	echo "$SYSCTL_RESTORE" > /proc/sys/fs/inotify/max_queued_events
	SYSCTL_RESTORE=
}

t_overflow() {
	new_ns ovf; std_table $((LVL + 2))
	mkdir -p "$ROOT/ovf"
	start_with_queue 16 ovf 'inet:t:s=ovf/*'
	kill -STOP "$DPID"
	local i dirs=()
	for i in $(seq 1 200); do dirs+=("$ROOT/ovf/c$i"); done
	mkdir "${dirs[@]}"
	rmdir "${dirs[@]:0:50}"
	kill -CONT "$DPID"
	assert_log "overflow: queue overflow detected" "inotify queue overflow"
	assert_set "overflow: rescan reconciles" inet:t:s "$ROOT"/ovf/c*/
	mkdir "$ROOT/ovf/after"
	assert_set "overflow: watching again after the rescan" inet:t:s "$ROOT"/ovf/c*/ "$ROOT/ovf/after"
	stop_daemon
}

# A backlog of inotify events (churn in the tree while the daemon was
# stopped): the daemon works through it a bounded share per turn of its
# loop, committing as it goes and handling signals between shares, instead
# of draining all of it first.  SIGTERM then ends it after one share: the
# cgroup made before the backlog is in the set, the one made after is not.
t_backlog() {
	new_ns bl; std_table $((LVL + 2))
	mkdir -p "$ROOT/bl"
	start_with_queue 1000000 bl 'inet:t:s=bl/m*'
	kill -STOP "$DPID"
	mkdir "$ROOT/bl/m-first"
	local i
	for i in 1 2; do
		(cd "$ROOT/bl" && mkdir c{1..20000} && rmdir c{1..20000})
	done
	mkdir "$ROOT/bl/m-last"
	local t0=$EPOCHREALTIME
	kill -TERM "$DPID"
	kill -CONT "$DPID"
	wait "$DPID"
	echo "INFO backlog: 80002 events queued; exit $(awk -v a="$t0" -v b="$EPOCHREALTIME" \
		'BEGIN { printf "%.0f", (b - a) * 1000 }') ms after SIGTERM" >&2
	set_is inet:t:s "$ROOT/bl/m-first" &&
		pass "backlog: SIGTERM handled after one bounded share of the backlog, committed" ||
		fail "backlog: SIGTERM handled after one bounded share of the backlog, committed" \
			"set has [$(set_ids inet:t:s | tr '\n' ' ')], want only m-first $(stat -c %i "$ROOT/bl/m-first")"
}

t_degraded() {
	new_ns dg
	mkdir -p "$ROOT/dg/b"
	# one inotify watch (a user namespace has its own limit): the root's;
	# dg/b has none, so only a periodic rescan finds what is made in it
	start_userns_daemon dg 'echo 1 > /proc/sys/user/max_inotify_watches &&
		nft add table inet t && nft add set inet t s "{ type cgroupsv2; }"' \
		--rescan-interval 1 --cgroup-root "$ROOT/dg" 'inet:t:s=b/*' ||
		{ fail "degraded: daemon started" "$(cat "$DLOG")"; return; }
	assert_log "degraded: the watch limit is reported" "inotify watch limit reached"
	# a mkdir or rmdir in the root every 0.2 s: more often than the interval
	( while :; do mkdir "$ROOT/dg/c"; nap 0.1; rmdir "$ROOT/dg/c"; nap 0.1; done ) &
	local churn=$!
	PIDS+=("$churn")
	mkdir "$ROOT/dg/b/x"
	assert_set "degraded: the rescan comes despite a busy tree" inet:t:s "$ROOT/dg/b/x"
	kill "$churn"
	wait "$churn" 2>/dev/null
	rmdir "$ROOT/dg/c" 2>/dev/null
	[ "$(grep -c "inotify watch limit reached" "$DLOG")" = 1 ] &&
		pass "degraded: the limit is reported once" ||
		fail "degraded: the limit is reported once" "$(grep -c "limit reached" "$DLOG") times"
	stop_daemon
}

t_rootloss() {
	new_ns rl; std_table $((LVL + 2))
	mkdir -p "$ROOT/rl/a" "$ROOT/rl2/x" "$TMPD/bind" "$TMPD/moved"
	# the daemon in a private mount namespace, its root a bind mount there
	DLOG=$TMPD/rl.log
	ip netns exec "$NS" unshare -m --propagation private sh -c \
		'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$ROOT" "$TMPD/bind" \
		"$D" -v --cgroup-root "$TMPD/bind" 'inet:t:s=rl/*' > "$DLOG" 2>&1 &
	DPID=$!
	PIDS+=("$DPID")
	wait_until 5 grep -qs "initial sync" "$DLOG" || { fail "rootloss: daemon started" "$(cat "$DLOG")"; return; }
	local mnt="nsenter -t $DPID -m"
	$mnt mount -t tmpfs none "$TMPD/bind"
	mkdir "$ROOT/rl/b"
	assert_set "rootloss: a mount over the root path changes nothing" inet:t:s "$ROOT/rl/a" "$ROOT/rl/b"
	$mnt umount "$TMPD/bind"
	$mnt mount --move "$TMPD/bind" "$TMPD/moved"
	mkdir "$ROOT/rl/c"
	assert_set "rootloss: a moved mount changes nothing" inet:t:s "$ROOT/rl/a" "$ROOT/rl/b" "$ROOT/rl/c"
	$mnt umount -l "$TMPD/moved"
	local rc=
	wait_until 5 exited "$DPID" && { wait "$DPID"; rc=$?; }
	[ "$rc" = 1 ] && grep -q "cgroup root $TMPD/bind was unmounted; exiting" "$DLOG" &&
		pass "rootloss: unmount: exit 1 with a message" ||
		fail "rootloss: unmount: exit 1 with a message" "rc=$rc $(tail -2 "$DLOG")"
	set_is inet:t:s "$ROOT/rl/a" "$ROOT/rl/b" "$ROOT/rl/c" &&
		pass "rootloss: unmount: the set keeps its content" ||
		fail "rootloss: unmount: the set keeps its content" "$(set_ids inet:t:s | tr '\n' ' ')"
	# the root directory itself removed
	nsx nft add set inet t w '{ type cgroupsv2; }'
	start_daemon rl2 --cgroup-root "$ROOT/rl2" 'inet:t:w=x' || { fail "rootloss: daemon started"; return; }
	rmdir "$ROOT/rl2/x" "$ROOT/rl2"
	rc=
	wait_until 5 exited "$DPID" && { wait "$DPID"; rc=$?; }
	[ "$rc" = 1 ] && grep -q "cgroup root $ROOT/rl2 is gone" "$DLOG" &&
		pass "rootloss: root removed: exit 1 with a message" ||
		fail "rootloss: root removed: exit 1 with a message" "rc=$rc $(tail -2 "$DLOG")"
}

t_sighup() {
	new_ns hup; std_table $((LVL + 2))
	mkdir -p "$ROOT/hup/a1" "$ROOT/hup/a2" "$ROOT/hup/b1"
	local conf=$TMPD/hup.conf
	printf '# test\n\ninet:t:s=hup/a*\n' > "$conf"
	start_daemon hup --config "$conf" || { fail "sighup: daemon started"; return; }
	assert_set "sighup: first config" inet:t:s "$ROOT/hup/a1" "$ROOT/hup/a2"
	printf 'inet:t:s=hup/b*\n  # indented comment\ninet:t:s=hup/a2\n' > "$conf"
	kill -HUP "$DPID"
	assert_set "sighup: new config, stale ids removed" inet:t:s "$ROOT/hup/b1" "$ROOT/hup/a2"
	printf 'inet:t:s=hup/[b\n' > "$conf"
	kill -HUP "$DPID"
	assert_log "sighup: bad config names file:line" "$conf:1: pattern \"hup/\[b\" has an unterminated"
	mkdir "$ROOT/hup/b2"
	assert_set "sighup: bad config keeps the old bindings" inet:t:s "$ROOT/hup/b1" "$ROOT/hup/b2" "$ROOT/hup/a2"
	stop_daemon
}

# A reload keeps what the daemon learnt about the sets whose bindings it
# did not change: a level warning is not repeated, a set that went away
# before the reload is still a firewall restart (notice), not an error.
t_reload_state() {
	new_ns hk
	nsx nft -f - <<-EOT
	table inet t {
		set s { type cgroupsv2; }
		set w { type cgroupsv2; }
		chain o {
			type filter hook output priority 0;
			socket cgroupv2 level $((LVL + 1)) @s counter
		}
	}
	EOT
	mkdir -p "$ROOT/hk/a"
	local conf=$TMPD/hk.conf
	printf 'inet:t:s=hk/*\ninet:t:w=hk/*\n' > "$conf"
	: > "$TMPD/hk.log"
	JOURNAL_STREAM=$(stat -c %d:%i "$TMPD/hk.log") start_daemon hk --config "$conf" ||
		{ fail "reload state: daemon started"; return; }
	assert_log "reload state: the wrong level is reported" "binding inet:t:s=hk/\* ($conf:1): .*never matches"
	assert_set "reload state: w filled" inet:t:w "$ROOT/hk/a"
	# The table's set w goes, as in a firewall restart: a notice.
	nsx nft delete set inet t w
	assert_log "reload state: the set gone is logged" "<5>binding inet:t:w=hk/\* ($conf:2): set w not found"
	# The same bindings, one line further down: no binding changed.
	printf '# moved\ninet:t:s=hk/*\ninet:t:w=hk/*\n' > "$conf"
	kill -HUP "$DPID"
	assert_log "reload state: reloaded" "reloading $conf"
	mkdir "$ROOT/hk/b"
	assert_set "reload state: s follows the tree after the reload" inet:t:s "$ROOT/hk/a" "$ROOT/hk/b"
	[ "$(grep -c "never matches" "$DLOG")" = 1 ] &&
		pass "reload state: the level warning is not repeated" ||
		fail "reload state: the level warning is not repeated" "$(grep "never matches" "$DLOG")"
	! grep -q "^<3>.*not found" "$DLOG" &&
		pass "reload state: the missing set is still a notice after the reload" ||
		fail "reload state: the missing set is still a notice after the reload" "$(grep "not found" "$DLOG")"
	nsx nft add set inet t w '{ type cgroupsv2; }'
	assert_set "reload state: w refilled when back" inet:t:w "$ROOT/hk/a" "$ROOT/hk/b"
	# A changed binding is a new one: its level is checked and reported.
	printf 'inet:t:s=hk/[ab]\ninet:t:w=hk/*\n' > "$conf"
	kill -HUP "$DPID"
	assert_log "reload state: a changed binding is checked anew" "binding inet:t:s=hk/\[ab\] ($conf:1): .*never matches"
	stop_daemon
}

t_missing() {
	new_ns miss; std_table $((LVL + 2))
	mkdir -p "$ROOT/miss/x"
	start_daemon miss 'inet:t:later=miss/*' 'inet:t:s=miss/*' || { fail "missing: daemon started"; return; }
	assert_log "missing: error names the binding" "binding inet:t:later=miss/\* (argument 1): set later not found in table t"
	mkdir "$ROOT/miss/y"
	assert_set "missing: other binding keeps working" inet:t:s "$ROOT/miss/x" "$ROOT/miss/y"
	nsx nft add set inet t later '{ type cgroupsv2; }'
	assert_set "missing: set created later gets filled" inet:t:later "$ROOT/miss/x" "$ROOT/miss/y"
	assert_log "missing: recovery logged" "inet:t:later: in sync again"
	# the first sync failed, but a requested stop is no failure
	kill -TERM "$DPID"
	wait "$DPID"
	local rc=$?
	[ $rc = 0 ] && pass "missing: SIGTERM exits 0 after a failed first sync" ||
		fail "missing: SIGTERM exits 0 after a failed first sync" "rc=$rc"
}

t_wrongtype() {
	new_ns wt; std_table $((LVL + 2))
	nsx nft add set inet t v4 '{ type ipv4_addr; }'
	nsx nft add map inet t m '{ type cgroupsv2 : verdict; }'
	mkdir -p "$ROOT/wt/x"
	start_daemon wt 'inet:t:v4=wt/*' 'inet:t:m=wt/*' 'inet:t:s=wt/*' || { fail "wrongtype: daemon started"; return; }
	assert_log "wrongtype: type mismatch explained" "binding inet:t:v4=wt/\* (argument 1): the set has key type 7 of 4 bytes; it must be \`type cgroupsv2\`"
	assert_log "wrongtype: map refused" "binding inet:t:m=wt/\* (argument 2): the set is a map"
	assert_set "wrongtype: other binding keeps working" inet:t:s "$ROOT/wt/x"
	stop_daemon
	# flags whose sets would not keep what the daemon puts in them
	nsx nft -f - <<-EOT
	table inet t {
		set tm { type cgroupsv2; timeout 1s; }
		set ft { type cgroupsv2; flags timeout; }
		set dy { type cgroupsv2; flags dynamic; }
		set iv { type cgroupsv2; flags interval; }
		set cn { type cgroupsv2; counter; }
	}
	EOT
	start_daemon wt2 'inet:t:tm=wt/*' 'inet:t:ft=wt/*' 'inet:t:dy=wt/*' 'inet:t:iv=wt/*' 'inet:t:cn=wt/*' ||
		{ fail "wrongtype: daemon started"; return; }
	assert_log "wrongtype: timeout refused" "binding inet:t:tm=wt/\* (argument 1): the set has flags timeout: its elements would expire"
	assert_log "wrongtype: flags timeout refused" "binding inet:t:ft=wt/\* (argument 2): the set has flags timeout"
	assert_log "wrongtype: dynamic refused" "binding inet:t:dy=wt/\* (argument 3): the set has flags dynamic"
	assert_log "wrongtype: interval refused" "binding inet:t:iv=wt/\* (argument 4): the set has flags interval"
	assert_set "wrongtype: per-element counters are fine" inet:t:cn "$ROOT/wt/x"
	set_is inet:t:tm && set_is inet:t:dy && pass "wrongtype: refused sets left alone" ||
		fail "wrongtype: refused sets left alone"
	stop_daemon
}

t_restart() {
	new_ns rs; std_table $((LVL + 2))
	mkdir -p "$ROOT/rs/a" "$ROOT/rs/b" "$ROOT/rs/c"
	start_daemon rs1 'inet:t:s=rs/*' || { fail "restart: daemon started"; return; }
	assert_set "restart: first run" inet:t:s "$ROOT"/rs/a "$ROOT"/rs/b "$ROOT"/rs/c
	stop_daemon
	rmdir "$ROOT/rs/a" "$ROOT/rs/b"
	mkdir "$ROOT/rs/d"
	set_is inet:t:s "$ROOT/rs/c" && fail "restart: stale ids remain while stopped" ||
		pass "restart: stale ids remain while stopped"
	start_daemon rs2 'inet:t:s=rs/*'
	assert_set "restart: reconciled, stale ids removed" inet:t:s "$ROOT/rs/c" "$ROOT/rs/d"
	grep -q "added 1, removed 2" "$DLOG" && pass "restart: only the difference applied" ||
		fail "restart: only the difference applied" "$(grep added "$DLOG")"
	stop_daemon
}

t_external() {
	new_ns ext; std_table $((LVL + 2))
	mkdir -p "$ROOT/ext/a" "$ROOT/ext/b"
	# JOURNAL_STREAM names the log file: messages carry their priority, "<N>"
	: > "$TMPD/ext.log"
	JOURNAL_STREAM=$(stat -c %d:%i "$TMPD/ext.log") start_daemon ext 'inet:t:s=ext/*' || { fail "external: daemon started"; return; }
	assert_set "external: filled" inet:t:s "$ROOT/ext/a" "$ROOT/ext/b"
	nsx nft flush set inet t s
	assert_set "external: refilled after nft flush set" inet:t:s "$ROOT/ext/a" "$ROOT/ext/b"
	nsx nft flush ruleset
	std_table $((LVL + 2))
	assert_set "external: refilled after a firewall reload" inet:t:s "$ROOT/ext/a" "$ROOT/ext/b"
	send_from "$ROOT/ext/b"
	assert_counter "external: traffic counted after the reload" o 1 1
	# a firewall restart: the table gone for a while is no error
	nsx nft delete table inet t
	assert_log "external: the table gone is logged" "table inet t not found"
	grep -q "^<5>binding inet:t:s=ext/\* (argument 1): table inet t not found" "$DLOG" &&
		! grep -q "^<3>.*not found" "$DLOG" &&
		pass "external: at notice level, not error" ||
		fail "external: at notice level, not error" "$(grep "not found" "$DLOG")"
	std_table $((LVL + 2))
	assert_set "external: refilled after a restart" inet:t:s "$ROOT/ext/a" "$ROOT/ext/b"
	stop_daemon
}

t_noevents() {
	new_ns ne; std_table $((LVL + 2))
	mkdir -p "$ROOT/ne/a"
	NFT_CGROUPD_TEST_NO_EVENTS=1 start_daemon ne --rescan-interval 1 'inet:t:s=ne/*' ||
		{ fail "noevents: daemon started"; return; }
	assert_log "noevents: the warning says what happens" "sets changed by others are re-read every 1 s"
	assert_set "noevents: filled" inet:t:s "$ROOT/ne/a"
	nsx nft flush set inet t s
	assert_set "noevents: a flush by others is undone by the periodic reconcile" inet:t:s "$ROOT/ne/a"
	stop_daemon
}

t_levels() {
	new_ns lv
	nsx nft -f - <<-EOT
	table inet t {
		set s { type cgroupsv2; }
		chain o { type filter hook output priority 0; }
	}
	EOT
	mkdir -p "$ROOT/lv/a"
	start_daemon lv 'inet:t:s=lv/*' || { fail "levels: daemon started"; return; }
	nsx nft add rule inet t o socket cgroupv2 level $((LVL + 1)) @s counter
	assert_log "levels: a rule at the wrong level is reported" "binding inet:t:s=lv/\* (argument 1): the rules on @s use socket cgroupv2 level $((LVL + 1)), which never matches this pattern: it needs level $((LVL + 2))"
	nsx nft add rule inet t o socket cgroupv2 level $((LVL + 2)) @s counter
	send_from "$ROOT/lv/a"
	assert_counter "levels: the right level matches" o 2 1
	[ "$(grep -c "never matches" "$DLOG")" = 1 ] && pass "levels: reported once" ||
		fail "levels: reported once" "$(grep "never matches" "$DLOG")"
	stop_daemon
}

t_systemd() {
	new_ns sd; std_table $((LVL + 2))
	mkdir -p "$ROOT/sd/a"
	local sock=$TMPD/notify.sock out=$TMPD/notify.out
	# the receiver: python3, or where there is none (the test VM) cgbench's
	if ! command -v python3 >/dev/null && [ -x "$HERE/cgbench" ]; then
		"$HERE/cgbench" --notify-sink "$sock" "$out" &
	else
	python3 - "$sock" "$out" <<-'EOP' &
	import socket, sys
	s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
	s.bind(sys.argv[1])
	s.settimeout(10)
	with open(sys.argv[2], "w") as f:
	    while True:
	        try:
	            m = s.recv(4096).decode()
	        except socket.timeout:
	            break
	        f.write(m + "\n"); f.flush()
	        if m == "STOPPING=1":
	            break
	EOP
	fi
	local py=$!
	PIDS+=("$py")
	wait_until 5 test -S "$sock"
	DLOG=$TMPD/sd.log
	NOTIFY_SOCKET=$sock ip netns exec "$NS" "$D" --cgroup-root "$ROOT" 'inet:t:s=sd/*' >"$DLOG" 2>&1 &
	DPID=$!
	PIDS+=("$DPID")
	wait_until 5 grep -qs "READY=1" "$out" && pass "systemd: READY=1 after the initial sync" ||
		fail "systemd: READY=1 after the initial sync" "$(cat "$out" 2>/dev/null)"
	set_is inet:t:s "$ROOT/sd/a" && pass "systemd: set filled when READY=1 is sent" ||
		fail "systemd: set filled when READY=1 is sent"
	kill -TERM "$DPID"
	wait "$DPID"
	local rc=$?
	[ $rc = 0 ] && pass "systemd: SIGTERM exits 0" || fail "systemd: SIGTERM exits 0" "rc=$rc"
	wait_until 5 grep -qs "STOPPING=1" "$out" && pass "systemd: STOPPING=1 on exit" ||
		fail "systemd: STOPPING=1 on exit" "$(cat "$out")"
	set_is inet:t:s "$ROOT/sd/a" && pass "systemd: the set keeps its content after exit" ||
		fail "systemd: the set keeps its content after exit"
	wait "$py" 2>/dev/null
}

# A binding that matches no cgroup is named once, with FILE:LINE and its
# pattern (a typo reads like a service not started yet: a warning, and a
# line when it matches after all); periodic rescans do not repeat it.
t_unmatched() {
	new_ns unm; std_table $((LVL + 2))
	local conf=$TMPD/unm.conf
	mkdir -p "$ROOT/um/a"
	printf 'inet:t:s=um/a\ninet:t:s=um/typo\n# later\ninet:t:s=um/later\n' > "$conf"
	start_daemon unm --rescan-interval 0.1 --config "$conf" || { fail "unmatched: daemon started"; return; }
	assert_log "unmatched: a binding matching no cgroup is named, FILE:LINE and pattern" \
		"binding inet:t:s=um/typo ($conf:2): pattern \"um/typo\" matches no cgroup below $ROOT; the set gets them when they appear (a typo?)"
	assert_log "unmatched: ... each of them" "binding inet:t:s=um/later ($conf:4): pattern \"um/later\" matches no cgroup"
	grep -q "um/a ($conf:1).*matches no cgroup" "$DLOG" &&
		fail "unmatched: a binding that matches is not named" "$(grep "matches no" "$DLOG")" ||
		pass "unmatched: a binding that matches is not named"
	mkdir "$ROOT/um/later"
	assert_log "unmatched: a binding named matches later: said once" \
		"binding inet:t:s=um/later ($conf:4) matches a cgroup now: /um/later"
	rmdir "$ROOT/um/later"; mkdir "$ROOT/um/later"
	sleep 1	# rescans every 0.1 s
	[ "$(grep -c "um/typo.*matches no cgroup" "$DLOG") $(grep -c "um/later.*matches a cgroup now" "$DLOG")" = "1 1" ] &&
		pass "unmatched: once, not at every rescan or new match" ||
		fail "unmatched: once, not at every rescan or new match" "$(grep "match" "$DLOG")"
	kill -HUP "$DPID"
	wait_until 5 eval '[ "$(grep -c "um/typo.*matches no cgroup" "$DLOG")" = 2 ]' &&
		! grep -q "um/later.*matches no cgroup.*" <(sed -n '/reloading/,$p' "$DLOG") &&
		pass "unmatched: a reload names what still matches nothing, only that" ||
		fail "unmatched: a reload names what still matches nothing, only that" "$(grep "match\|reload" "$DLOG")"
	stop_daemon
}

t_config_errors() {
	local conf=$TMPD/bad.conf out
	printf '# c\ninet:t:s=ok\nfoo:t:s=x\ninet:t:s=a//b\ninet:t\n' > "$conf"
	# an inline comment would be part of the pattern: refused; escaped
	# blanks or '#' name cgroups that hold " #"
	printf 'inet:t:s=svc/web.service  # web\ninet:t:s=a\\ #b\ninet:t:s=a \\#b\n' >> "$conf"
	out=$("$D" --once --config "$conf" 2>&1)
	local rc=$?
	[ $rc = 2 ] && pass "config: invalid config exits 2" || fail "config: invalid config exits 2" "rc=$rc"
	grep -q "$conf:3: unknown family \"foo\"" <<<"$out" && grep -q "$conf:4: pattern \"a//b\" has an empty component" <<<"$out" &&
		grep -q "$conf:5: \"inet:t\" is not FAMILY:TABLE:SET=PATTERN" <<<"$out" &&
		pass "config: every error names file:line" || fail "config: every error names file:line" "$out"
	grep -q "$conf:6: pattern \"svc/web.service  # web\" has a blank and '#' at offset 16: comments take a whole line" <<<"$out" &&
		pass "config: an inline comment is refused, naming file:line" ||
		fail "config: an inline comment is refused, naming file:line" "$out"
	[ "$(grep -c "$conf:[78]:" <<<"$out")" = 0 ] && pass "config: escaped \" #\" accepted" ||
		fail "config: escaped \" #\" accepted" "$out"
	local v
	for v in inf 1e-9 nan 5x; do
		out=$("$D" --once --retry-interval "$v" --cgroup-root /nonexistent 'inet:t:s=x' 2>&1)
		rc=$?
		[ $rc = 2 ] && grep -q -- "--retry-interval: \"$v\" is not a number of seconds from 0.01 to 86400" <<<"$out" &&
			pass "config: --retry-interval $v refused" || fail "config: --retry-interval $v refused" "rc=$rc $out"
	done
	out=$("$D" --once --rescan-interval 1e6 'inet:t:s=x' 2>&1)
	[ $? = 2 ] && grep -q -- "--rescan-interval: \"1e6\" is not" <<<"$out" &&
		pass "config: --rescan-interval 1e6 refused" || fail "config: --rescan-interval 1e6 refused" "$out"
	out=$("$D" --once --cgroup-root /nonexistent 'inet:t:s=x' 2>&1)
	rc=$?
	[ $rc = 1 ] && grep -q "/nonexistent: No such file or directory" <<<"$out" &&
		pass "config: missing cgroup root reported" || fail "config: missing cgroup root reported" "rc=$rc $out"
}

# JOURNAL_STREAM names the journal's stream as DEVICE:INODE; stderr is the
# journal only when fstat(2) of stderr gives the same pair (systemd.exec(5)).
# A service's job that pipes `nft-cgroupd --check` on inherits the variable
# with another stderr: its messages keep the program name, without "<N>".
t_journal() {
	local conf=$TMPD/empty.conf f=$TMPD/journal.out out devino
	: > "$conf"
	out=$(JOURNAL_STREAM=8:12345 "$D" --check --config "$conf" 2>&1 | cat)
	[ "$out" = "nft-cgroupd: $conf has no bindings: nothing to do until it has (SIGHUP)" ] &&
		pass "journal: JOURNAL_STREAM of another file: plain message" ||
		fail "journal: JOURNAL_STREAM of another file: plain message" "$out"
	: > "$f"
	devino=$(stat -c %d:%i "$f")
	JOURNAL_STREAM=$devino "$D" --check --config "$conf" 2>>"$f"
	out=$(cat "$f")
	[ "$out" = "<4>$conf has no bindings: nothing to do until it has (SIGHUP)" ] &&
		pass "journal: JOURNAL_STREAM of stderr itself: \"<4>\" prefix" ||
		fail "journal: JOURNAL_STREAM of stderr itself: \"<4>\" prefix" "$out"
	out=$(JOURNAL_STREAM=$devino "$D" --check --config "$conf" 2>&1 >/dev/null | cat)
	[ "$out" = "nft-cgroupd: $conf has no bindings: nothing to do until it has (SIGHUP)" ] &&
		pass "journal: same DEVICE:INODE but stderr a pipe: plain message" ||
		fail "journal: same DEVICE:INODE but stderr a pipe: plain message" "$out"
}

. "$(dirname "$0")/accounting.sh"

TESTS=${*:-once late deep abyss burst thousand bigsync overflow backlog degraded rootloss sighup reload_state missing wrongtype restart external noevents levels systemd config_errors unmatched journal check notify unit allowlist acct_restart acct_consistent acct_lock_once acct_badstate acct_names acct_deep acct_zombie acct_metrics_tmp hostile_names acct_restore acct_flushed acct_exact}
for t in $TESTS; do "t_$t"; done
summary
