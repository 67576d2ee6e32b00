#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# tests/layers.sh on small trees: each kind of violation is refused and
# named, a tree that keeps the rule passes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# tree NAME 'file:include...' ...: a directory of files with those includes
tree() {
	d=$tmp/$1
	shift
	mkdir -p "$d"
	for spec in "$@"; do
		f=${spec%%:*}
		: >"$d/$f"
		for inc in $(echo "${spec#*:}" | tr , ' '); do
			echo "#include \"$inc.h\"" >>"$d/$f"
		done
	done
}

# expect NAME STATUS TEXT: layers.sh on tree NAME exits STATUS, says TEXT
expect() {
	out=$("$here/layers.sh" -q "$tmp/$1" 2>&1)
	st=$?
	if [ "$st" = "$2" ] && printf '%s\n' "$out" | grep -qF -- "$3"; then
		echo "PASS layers_test: $1"
	else
		echo "FAIL layers_test: $1: status $st, wanted $2 and \"$3\":"
		printf '%s\n' "$out"
		fails=$((fails + 1))
	fi
}

tree good 'cmd_main.c:daemon_main,util_log' 'daemon_main.c:daemon_main,nl_set,cg_tree,acct_store' \
	'daemon_main.h:nl_set' 'nl_set.c:nl_set,nl_query,util_log' 'nl_query.h:util_idset' \
	'cg_tree.c:cg_tree,cgroup2_pattern' 'acct_store.c:acct_store,util_log' 'util_log.c:util_log'
expect good 0 "PASS layers: "
tree up 'nl_set.c:daemon_config' 'daemon_config.c:util_log'
expect up 1 "nl_set includes daemon_config: a higher layer"
tree sibling 'acct_store.c:nl_counters' 'nl_counters.c:util_idset'
expect sibling 1 "acct_store includes nl_counters: a sibling layer"
tree cycle 'daemon_main.h:daemon_sync' 'daemon_sync.h:daemon_loop' 'daemon_loop.c:daemon_main'
expect cycle 1 "cycle: daemon_loop -> daemon_main -> daemon_sync -> daemon_loop"
tree noprefix 'helpers.c:util_log' 'util_log.c:'
expect noprefix 1 "helpers: no layer prefix"
tree noprefix2 'misc.h:'
expect noprefix2 1 "misc: no layer prefix"
tree unknown 'cmd_main.c:stuff'
expect unknown 1 "cmd_main includes stuff, which has no layer prefix"
[ "$fails" = 0 ]
