#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The include graph of nft-cgroupd, checked against its layers (README,
# "Source layout"): prints who includes whom, one module (NAME.c + NAME.h)
# a line, and fails on
# - a file whose prefix names no layer,
# - an include of a higher layer, or of a sibling layer (nl_, cg_ and
#   acct_ know nothing of each other),
# - a cycle between modules, also within one layer.
#
#   tests/layers.sh [-q] [DIR]	(-q: only the problems and one summary line)
set -eu

quiet=0
[ "${1:-}" = -q ] && { quiet=1; shift; }
dir=${1:-$(dirname "$0")/..}
cd "$dir"

# "module included" pairs from #include "..." lines (../lib's headers are
# the project's library, below everything here).
for f in *.c *.h; do
	sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(.*\)\.h".*|\1|p' "$f" |
	while read -r inc; do
		echo "${f%.*} ${inc##*/}"
	done
	echo "${f%.*}"		# a module without includes is still listed
done | sort -u | awk -v quiet="$quiet" '
# The layers, lowest first; siblings share a rank.
function rank(m) {
	if (m ~ /^cgroup2_/) return 0	# ../lib
	if (m ~ /^util_/) return 1
	if (m ~ /^(nl|cg|acct)_/) return 2
	if (m ~ /^daemon_/) return 3
	if (m ~ /^cmd_/) return 4
	return -1
}
function layer(m) { sub(/_.*/, "", m); return m }
function problem(msg) { print "FAIL layers: " msg; bad++ }
# Depth-first search; a grey module met again closes a cycle.
function visit(m,    i, k, n) {
	color[m] = 1
	path[++depth] = m
	n = split(out[m], k, " ")
	for (i = 1; i <= n; i++) {
		if (color[k[i]] == 1) {
			cyc = k[i]
			for (j = depth; path[j] != k[i]; j--)
				cyc = path[j] " -> " cyc
			problem("cycle: " k[i] " -> " cyc)
		} else if (!color[k[i]]) {
			visit(k[i])
		}
	}
	depth--
	color[m] = 2
}
{
	if (!($1 in mods))
		order[++nmods] = $1	# sorted: the output is stable
	mods[$1] = 1
	if (NF < 2 || $1 == $2 || seen[$1, $2]++)
		next
	out[$1] = out[$1] " " $2
	if (rank($1) < 0)
		problem($1 ": no layer prefix (cmd_, daemon_, nl_, cg_, acct_, util_)")
	else if (rank($2) < 0)
		problem($1 " includes " $2 ", which has no layer prefix")
	else if (rank($2) > rank($1))
		problem($1 " includes " $2 ": a higher layer")
	else if (rank($2) == rank($1) && layer($2) != layer($1))
		problem($1 " includes " $2 ": a sibling layer")
}
END {
	for (i = 1; i <= nmods; i++)
		if (rank(order[i]) < 0 && !(order[i] in out))
			problem(order[i] ": no layer prefix (cmd_, daemon_, nl_, cg_, acct_, util_)")
	for (i = 1; i <= nmods; i++)
		if (!color[order[i]])
			visit(order[i])
	for (i = 1; i <= nmods && !quiet; i++)
		printf "%-16s -> %s\n", order[i],
		       out[order[i]] != "" ? substr(out[order[i]], 2) : "(nothing)"
	if (bad)
		exit 1
	print "PASS layers: " nmods " modules, every include downwards, no cycle"
}'
