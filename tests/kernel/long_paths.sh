#!/usr/bin/env bash
# Deep paths of long names.  A judgement remembers the lengths of the top
# 32 names below the namespace root, for all the rule's patterns, and
# measures deeper names each time (cg2_ancestor_name in
# kmod/xt_cgroup2_main.c): every verdict must be as if each name were
# measured afresh.  The path is 40 levels of names of 216 to 255 bytes
# (NAME_MAX), about 9.4 KB, past PATH_MAX, so the cgroups are made and
# joined one directory at a time.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach
set -f
# Patterns of up to 513 bytes: revision 0's, for every iptables command.
export XT_CGROUP2_REVISION=0

P=9321
DEPTH=40
# n I: the name at level I, 216 + I bytes: its number, zero-padded.
n() { printf '%0*d' $((216 + $1)) "$1"; }
# path FROM TO: the names at levels FROM..TO, joined by "/".
path() {
	local i s=
	for ((i = $1; i <= $2; i++)); do s+=${s:+/}$(n "$i"); done
	printf '%s' "$s"
}

# in_path PATH CMD...: run CMD in the cgroup at PATH (names joined by
# "/"), reached one directory at a time; the cgroups are made on the way
# (by mkdir only where missing: an exec costs 60 ms under TCG).
in_path() {
	local names
	IFS=/ read -ra names <<<"$1"
	shift
	(
		cd "$CG" || exit 1
		for name in "${names[@]}"; do
			[[ -d $name ]] || mkdir -- "$name" || exit 1
			cd -- "$name" || exit 1
		done
		echo "$BASHPID" >cgroup.procs && "$@"
	)
}
# send_from PATH COUNT: COUNT datagrams, each from a process in PATH.
udp_x() { echo x >"/dev/udp/127.0.0.1/$P"; }
send_from() {
	local i
	for ((i = 0; i < $2; i++)); do
		in_path "$1" udp_x ||
			fail "send from ${1:0:40}..."
	done
}

# A name one byte shorter than level I's, and one a byte longer.
short() { n "$1" | cut -c2-; }
long() { printf '0%s' "$(n "$1")"; }

f=$(mktemp)
{
	echo '*filter'
	rule() {
		local tag=$1 p
		shift
		printf -- '-A OUTPUT -p udp -d 127.0.0.1 --dport %s -m cgroup2' "$P"
		for p; do printf -- ' --path %s' "$p"; done
		printf -- ' -m comment --comment %s\n' "$tag"
	}
	rule deep_pair "**/$(path 38 39)"
	rule deep_short "**/$(short 39)"
	rule deep_long "**/$(long 39)"
	rule memo_pair "**/$(path 30 31)"
	rule memo_short "**/$(n 30)/$(short 31)"
	rule across "**/$(n 31)/*/$(n 33)"
	rule across_short "**/$(n 31)/*/$(short 33)"
	# The first pattern reads every name and fills the memo; the second
	# uses what it remembered.
	rule second_of_two "**/nothing" "**/$(path 20 21)"
	rule second_short "**/nothing" "**/$(n 20)/$(long 21)"
	# Globs that read remembered names to their ends.
	rule second_globs "**/nothing" "**/*20/*1"
	rule stars_40 "$(printf '*%.0s/' $(seq 39))*"
	rule stars_41 "$(printf '*%.0s/' $(seq 40))*"
	# A sibling whose first name is a byte shorter: judged after the
	# others, with nothing remembered from them.
	rule main_top "$(path 0 1)"
	rule sibling_top "$(short 0)/$(n 1)"
	echo COMMIT
} >"$f"
expect_ok "restore the long-path rules" iptables-legacy-restore -w --noflush "$f"

LEAF=$(path 0 $((DEPTH - 1)))
in_path "$LEAF" true || fail "make the $DEPTH levels"
send_from "$LEAF" 1
send_from "$(path 0 31)" 2
send_from "$(short 0)/$(n 1)" 4

snap iptables-legacy OUTPUT
expect "**/n38/n39: the leaf" 1 "$(snapc deep_pair)"
expect "n39 a byte short: nothing" 0 "$(snapc deep_short)"
expect "n39 a byte long: nothing" 0 "$(snapc deep_long)"
expect "**/n30/n31: depth 32 and the leaf (2+1)" 3 "$(snapc memo_pair)"
expect "n31 a byte short: nothing" 0 "$(snapc memo_short)"
expect "**/n31/*/n33, across the remembered names: the leaf" 1 "$(snapc across)"
expect "n33 a byte short: nothing" 0 "$(snapc across_short)"
expect "the second pattern, after one that read every name: both (2+1)" 3 "$(snapc second_of_two)"
expect "the second pattern, n21 a byte long: nothing" 0 "$(snapc second_short)"
expect "the second pattern, **/*20/*1: both (2+1)" 3 "$(snapc second_globs)"
expect "40 stars: the leaf" 1 "$(snapc stars_40)"
expect "41 stars: nothing" 0 "$(snapc stars_41)"
expect "n0/n1: depth 32 and the leaf, not the sibling (2+1)" 3 "$(snapc main_top)"
expect "the sibling's own first name: only the sibling" 4 "$(snapc sibling_top)"
finish
