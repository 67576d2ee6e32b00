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
