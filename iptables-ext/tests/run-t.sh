#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests for libxt_cgroup2.so; no xt_cgroup2 kernel module needed.
#
#   BUILD=DIR tests/run-t.sh [FILE.t|FILE.txlate]...
#
# BUILD holds libxt_cgroup2.so and xtsave (default: the directory above
# this script).  Needs root (unshare -n, -m): every iptables run happens in
# a fresh network namespace, so the host's tables are never touched.
#
# .t lines:  RULE;EXPECTED;OK   or   RULE;;FAIL[;ERROR TEXT]
#   RULE is written as in an iptables-restore file (match part only),
#   EXPECTED is its iptables-save form or "=" for RULE itself.  Fields split
#   at ";" outside double quotes; ERROR TEXT is the rest of the line and
#   must appear in the error.  "%{STR*N}" expands to STR repeated N times.
#   A line ":CHAIN" sets the chain (OUTPUT, INPUT, POSTROUTING).
#   RULE is put before "-j ACCEPT", unless it has a "-j" of its own (target
#   lines, e.g. "-j CGROUP2LOG --log-prefix x").
# For OK lines, per family:
#   - xtsave (libxtables' own parser) prints the save form: must be EXPECTED;
#   - iptables-legacy-restore --test -v accepts RULE and prints (-L form)
#     what xtsave prints, so both split RULE alike;
#   - iptables-nft-restore --test accepts RULE;
#   - the save form restored again prints the same and saves the same:
#     save | restore | save is exact, through the real tokenizer.
# For FAIL lines: xtsave and both restores refuse RULE, and iptables-legacy
#   and iptables-nft refuse it on the command line with ERROR TEXT.
#
# .txlate: pairs of lines (command, expected output), blank-line separated.
#   The command is run by the shell; when the expected output is an nft
#   command, it is also checked with "nft -c" against a table with the
#   named cgroups present under /sys/fs/cgroup (a tmpfs in a private mount
#   namespace, which is all the nft CLI looks at).
#
# "warnings" (run by default): the exit-time warning about literal patterns
#   that name no cgroup, against a cgroup2 mount of our own: printed by a
#   real restore, not by iptables-restore --test.
#
# Older iptables (tests/suites.sh runs these tests with 1.8.7 to 1.8.13):
#   - 1.8.7 loads no extension whose match the kernel lacks ("Couldn't load
#     match"), where 1.8.8 and later warn and load it: then every iptables
#     runs with LD_PRELOAD=$BUILD/xtkernrev.so, which tells it the kernel
#     has revision 0 of cgroup2, as with xt_cgroup2.ko loaded.
#   - 1.8.7's iptables-restore -v prints no rules: the comparison of the
#     restored rule's -L form with xtsave's is then skipped (one SKIP line).
#   - 1.8.7 iptables-translate prints the nft command unquoted, each '"'
#     as '\"': such output must have no bare '"', and is compared with the
#     .txlate line in the quoted form of 1.8.9 (nft '...', bare quotes).
#   - nft 0.9.8 (with 1.8.7 in Debian 11) knows no "socket cgroupv2": the
#     nft -c checks of translations are then skipped (one SKIP line).

set -u
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$(dirname "$HERE")}
XTSAVE=$BUILD/xtsave
export XTABLES_LIBDIR="$BUILD:$(pkg-config --variable=xtlibdir xtables)"
TMP=$(mktemp -d)
CLEANUP_CG=()
cleanup() {
	if [ ${#CLEANUP_CG[@]} -eq 2 ]; then
		unshare -m bash -c 'mount -t cgroup2 none "$1" && rmdir "$1/$2"' \
			rm "${CLEANUP_CG[@]}"
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

pass=0
failed=0
skipped=0
why=()
restore_prints=1

for f in "$BUILD/libxt_cgroup2.so" "$BUILD/libxt_CGROUP2LOG.so" "$XTSAVE"; do
	[ -e "$f" ] || { echo "run-t.sh: $f missing: run make first" >&2; exit 2; }
done
for t in unshare pkg-config nft iptables-legacy-restore iptables-nft-restore \
	 ip6tables-legacy-restore ip6tables-nft-restore iptables-translate; do
	command -v $t >/dev/null ||
		{ echo "run-t.sh: $t not found (iptables 1.8.7 or later, nftables)" >&2; exit 2; }
done
if ! unshare -n true 2>/dev/null; then
	echo "run-t.sh: cannot unshare a network namespace (need root)" >&2
	exit 2
fi

report() { # NAME: PASS unless why[] has reasons
	if [ ${#why[@]} -eq 0 ]; then
		echo "PASS $1"
		pass=$((pass + 1))
	else
		echo "FAIL $1"
		printf '    %s\n' "${why[@]}"
		failed=$((failed + 1))
	fi
	why=()
}

# Split a .t line into F[0..3] at ';' outside "..." (with \ escapes).
split_t() {
	local s=$1 cur="" c i q=0 e=0

	F=()
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		if [ ${#F[@]} -eq 3 ]; then
			cur+=$c
			continue
		fi
		if ((q)); then
			if ((e)); then e=0
			elif [ "$c" = '\' ]; then e=1
			elif [ "$c" = '"' ]; then q=0
			fi
		elif [ "$c" = '"' ]; then
			q=1
		elif [ "$c" = ';' ]; then
			F+=("$cur")
			cur=""
			continue
		fi
		cur+=$c
	done
	F+=("$cur")
}

# Expand %{STR*N}.
expand() {
	local s=$1 re='%\{([^}]*)\*([0-9]+)\}' rep i

	while [[ $s =~ $re ]]; do
		rep=""
		for ((i = 0; i < BASH_REMATCH[2]; i++)); do
			rep+=${BASH_REMATCH[1]}
		done
		s=${s/"${BASH_REMATCH[0]}"/"$rep"}
	done
	printf '%s' "$s"
}

# verdict RULE: "-j ACCEPT " unless RULE has a target of its own.
verdict() {
	[[ " $1" == *" -j "* ]] || printf -- '-j ACCEPT '
}

# restore BIN CHAIN RULE: run BIN --test -v on one rule; sets rc, out, err.
restore() {
	local table=filter

	[ "$2" = POSTROUTING ] && table=mangle
	printf '*%s\n-A %s %s%s\nCOMMIT\n' "$table" "$2" "$(verdict "$3")" "$3" \
		>"$TMP/rules"
	unshare -n "$1" --test -v "$TMP/rules" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	out=$(grep -E ' (cgroup2|CGROUP2LOG) ' "$TMP/out")
	err=$(cat "$TMP/err")
}

short() { # one-line, bounded rendering of a rule for case names
	local s=$1

	[ ${#s} -gt 70 ] && s="${s:0:60}...(${#s} bytes)"
	printf '%s' "$s"
}

run_t() {
	local file=$1 chain=OUTPUT n=0 line rule exp res etext
	local fam save print save2 print2 lbin nbin xargs6 bin args tflag

	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case $line in
		'' | '#'*) continue ;;
		:*) chain=${line#:}; chain=${chain%%,*}; continue ;;
		esac
		split_t "$line"
		rule=$(expand "${F[0]}")
		exp=$(expand "${F[1]:-}")
		res=${F[2]:-}
		etext=${F[3]:-}
		[ "$exp" = "=" ] && exp=$rule
		case $res in
		OK | FAIL) ;;
		*) why+=("bad result field \"$res\"")
		   report "$(basename "$file"):$n"; continue ;;
		esac

		for fam in 4 6; do
			if [ $fam = 4 ]; then
				lbin=iptables-legacy-restore
				nbin=iptables-nft-restore
				xargs6=()
			else
				lbin=ip6tables-legacy-restore
				nbin=ip6tables-nft-restore
				xargs6=(-6)
			fi

			"$XTSAVE" "${xargs6[@]}" "$rule" >"$TMP/x" 2>"$TMP/xe"
			local xrc=$?
			save=$(sed -n 1p "$TMP/x")
			print=$(sed -n 2p "$TMP/x")

			if [ "$res" = FAIL ]; then
				[ $xrc -ne 0 ] || why+=("v$fam xtsave accepted it: $save")
				for bin in $lbin $nbin; do
					restore $bin "$chain" "$rule"
					[ $rc -ne 0 ] || why+=("$bin accepted it")
				done
				# the message, from the command line: restore's own
				# tokenizer refuses some arguments before we see them
				mapfile -d '' args < <("$XTSAVE" --split "$rule")
				tflag=
				[ "$chain" = POSTROUTING ] && tflag="-t mangle"
				for bin in ${lbin%-restore} ${nbin%-restore}; do
					# shellcheck disable=SC2046
					unshare -n $bin $tflag -A "$chain" $(verdict "$rule") "${args[@]}" \
						>/dev/null 2>"$TMP/err"
					rc=$?
					err=$(cat "$TMP/err")
					[ $rc -ne 0 ] || why+=("$bin accepted it")
					[ -z "$etext" ] || [[ $err == *"$etext"* ]] ||
						why+=("$bin error: ${err:0:300}")
				done
				continue
			fi

			if [ $xrc -ne 0 ]; then
				why+=("v$fam xtsave refused: $(head -c 300 "$TMP/xe")")
				continue
			fi
			[ "$save" = "$exp" ] ||
				why+=("v$fam save: got \"$save\"" "      expected \"$exp\"")

			restore $lbin "$chain" "$rule"
			[ $rc -eq 0 ] || why+=("$lbin refused: ${err:0:300}")
			((!restore_prints)) || [[ $out == *"$print" ]] ||
				why+=("$lbin printed \"$out\"" "      xtsave printed \"$print\"")
			restore $nbin "$chain" "$rule"
			[ $rc -eq 0 ] || why+=("$nbin refused: ${err:0:300}")

			# save | restore | save, through the real tokenizer
			restore $lbin "$chain" "$save"
			print2=$out
			[ $rc -eq 0 ] || why+=("$lbin refused the save form: ${err:0:300}")
			((!restore_prints)) || [[ $print2 == *"$print" ]] ||
				why+=("restored save form prints \"$print2\"")
			restore $nbin "$chain" "$save"
			[ $rc -eq 0 ] || why+=("$nbin refused the save form: ${err:0:300}")
			save2=$("$XTSAVE" "${xargs6[@]}" "$save" 2>/dev/null | sed -n 1p)
			[ "$save2" = "$save" ] ||
				why+=("v$fam second save differs: \"$save2\"")
		done
		report "$(basename "$file"):$n $(short "$rule")"
	done <"$file"
}

# nft_check "nft '...'": is the translation valid nft, with its cgroups?
nft_check() {
	local cmd=$1 rule paths

	rule=${cmd#nft \'}
	rule=${rule%\'}
	# the quoted strings between "level N" and the verdict are paths
	paths=$(printf '%s' "$rule" | sed -n 's/.*socket cgroupv2 level [0-9]* \(.*\) counter.*/\1/p' |
		grep -o '"[^"]*"' | tr -d '"')
	unshare -n -m bash -c '
		set -e
		mount -t tmpfs xtcg2 /sys/fs/cgroup
		while IFS= read -r p; do
			[ -z "$p" ] || mkdir -p "/sys/fs/cgroup/$p"
		done <<<"$2"
		set -- "$1" "$2" $1
		nft add table $5 $6
		nft add chain $5 $6 $7 "{ type filter hook ${7,,} priority 0; }"
		nft -c "$1"
	' nft_check "$rule" "$paths" >"$TMP/nft" 2>&1
}

# 1.8.7 style "nft add rule ... \"x\"" as "nft 'add rule ... "x"'"; any
# bare '"' there is kept, so that the comparison fails.
unescape_xlate() {
	local s=$1

	case $s in
	"nft '"* | "nft #"* | "nft "*[!\\]\"* | "nft \""*) ;;
	"nft "*) s=${s#nft }; s="nft '${s//\\\"/\"}'" ;;
	esac
	printf '%s' "$s"
}

run_txlate() {
	local file=$1 n=0 cmd exp line got nft_cg2=1

	# nft 0.9.8 (Debian 11) cannot parse our translations
	if ! nft_check "nft 'add rule ip filter OUTPUT socket cgroupv2 level 0 \"/\" counter accept'" &&
	   grep -q 'syntax error' "$TMP/nft"; then
		nft_cg2=0
		echo "SKIP $(basename "$file"): nft -c of the translations: $(nft --version) has no \"socket cgroupv2\""
		skipped=$((skipped + 1))
	fi
	exec 3<"$file"
	while IFS= read -r cmd <&3 || [ -n "$cmd" ]; do
		n=$((n + 1))
		case $cmd in '' | '#'*) continue ;; esac
		IFS= read -r exp <&3
		local start=$n
		n=$((n + 1))
		exp=$(expand "$exp")
		got=$(eval "$(expand "$cmd")" 2>"$TMP/err" | sed 's/[[:space:]]*$//')
		got=$(unescape_xlate "$got")
		[ "$got" = "$exp" ] ||
			why+=("got      $got" "expected $exp" "stderr   $(head -c 300 "$TMP/err")")
		case $exp in
		"nft # "* | "# "*)
			grep -q 'not translated' "$TMP/err" ||
				why+=("no reason on stderr")
			;;
		"nft '"*)
			((!nft_cg2)) || nft_check "$exp" ||
				why+=("nft -c refused it: $(head -c 300 "$TMP/nft")")
			;;
		esac
		report "$(basename "$file"):$start $(short "${cmd#iptables-translate }")"
	done
	exec 3<&-
}

# warn NAME MOUNT EXPECT RULE...: restore RULEs in a mount namespace whose
# only cgroup2 is mounted at a temporary directory (or none with
# MOUNT=none), twice.  The real restore must print exactly the warning line
# EXPECT on stderr, or no warning when EXPECT is empty; it must exit 0 or
# fail only at COMMIT (the host kernel lacks xt_cgroup2, so the commit is
# refused after every rule was parsed).  The test load (--test, as Debian's
# netfilter-persistent does before each real load at boot) must exit 0 and
# print no warning: the real load says it.
warn() {
	local name=$1 mnt=$2 expect=$3 r got mode commit

	shift 3
	printf '*filter\n' >"$TMP/rules"
	for r; do
		printf -- '-A OUTPUT %s -j ACCEPT\n' "$r" >>"$TMP/rules"
	done
	printf 'COMMIT\n' >>"$TMP/rules"
	commit="iptables-restore: line $(wc -l <"$TMP/rules") failed"
	for mode in --test real; do
		unshare -n -m bash -c '
			# drop every cgroup2 mount (deepest first), then mount our own
			awk "\$0 ~ / - cgroup2 / { print \$5 }" /proc/self/mountinfo |
				sort -r | while read -r m; do umount -l "$m"; done
			[ "$2" = none ] || mount -t cgroup2 none "$2" || exit 9
			[ "$3" = real ] && exec iptables-legacy-restore "$1"
			exec iptables-legacy-restore "$3" "$1"
		' warn "$TMP/rules" "$mnt" "$mode" >/dev/null 2>"$TMP/err"
		rc=$?
		got=$(grep '^cgroup2: warning' "$TMP/err")
		if [ $mode = --test ]; then
			[ $rc -eq 0 ] || why+=("--test: exit status $rc: $(head -c 300 "$TMP/err")")
			[ -z "$got" ] || why+=("--test: got $got" "--test: expected no warning")
			continue
		fi
		[ $rc -eq 0 ] || grep -qxF "$commit" "$TMP/err" ||
			why+=("exit status $rc, not at COMMIT: $(head -c 300 "$TMP/err")")
		[ "$got" = "$expect" ] ||
			why+=("got      ${got:-no warning}" "expected ${expect:-no warning}")
	done
	report "warning: $name"
}

run_warn() {
	local mnt=$TMP/cg2 i many=() cg

	mkdir -p "$mnt"
	# one cgroup that exists: made in the real hierarchy, removed at exit
	cg=xtcg2-test.$$
	unshare -m bash -c 'mount -t cgroup2 none "$1" && mkdir "$1/$2"' \
		mk "$mnt" "$cg" || { why+=("cannot create a cgroup"); report "warning: setup"; return; }
	CLEANUP_CG=("$mnt" "$cg")

	warn "an existing cgroup, a glob: none" "$mnt" "" \
		"-m cgroup2 --path $cg" "-m cgroup2 --path /$cg/" \
		"-m cgroup2 --path \"xtcg2-missing/*\"" "-m cgroup2 --path /"
	warn "one missing" "$mnt" \
		"cgroup2: warning: no cgroup \"xtcg2-missing/a b\" under $mnt; the rule is accepted and will match once the cgroup exists" \
		"-m cgroup2 --path \"/xtcg2-missing/a b/\""
	warn "several, duplicates counted once, escapes removed" "$mnt" \
		"cgroup2: warning: no cgroup \"xtcg2-missing/1\" under $mnt (nor 2 more); the rules are accepted and will match once the cgroups exist" \
		"-m cgroup2 --path xtcg2-missing/1 --path $cg" \
		"-m cgroup2 ! --path xtcg2-missing/2 --path xtcg2-missing/1" \
		"-m cgroup2 --path \"xtcg2-missing/\\\\3\"" "-m cgroup2 --path xtcg2-missing/3"
	for ((i = 0; i < 300; i++)); do
		many+=("-m cgroup2 --path xtcg2-missing/svc$i.service")
	done
	warn "300 rules, one line" "$mnt" \
		"cgroup2: warning: no cgroup \"xtcg2-missing/svc0.service\" under $mnt (nor 299 more); the rules are accepted and will match once the cgroups exist" \
		"${many[@]}"
	warn "no cgroup2 mounted: none" none "" "-m cgroup2 --path xtcg2-missing/x"
}

# iptables 1.8.7: see the header.
restore iptables-legacy-restore OUTPUT "-m cgroup2 --path a"
if [ $rc -ne 0 ] && [[ $err == *"Couldn't load match \`cgroup2'"* ]]; then
	export LD_PRELOAD=$BUILD/xtkernrev.so
	[ -e "$LD_PRELOAD" ] ||
		{ echo "run-t.sh: $LD_PRELOAD missing: run make xtkernrev.so" >&2; exit 2; }
	restore iptables-legacy-restore OUTPUT "-m cgroup2 --path a"
fi
if [ $rc -eq 0 ] && [ -z "$out" ]; then
	restore_prints=0
	echo "SKIP .t: restored rules' -L form against xtsave's: this iptables-restore -v prints no rules"
	skipped=$((skipped + 1))
fi

# revision 1 FILE: run FILE as against today's module, which has revisions
# 0 and 1 (so iptables picks 1): the extension offers only 1 and the fake
# kernel claims both, on every iptables version.
revision1() {
	[ -e "$BUILD/xtkernrev.so" ] ||
		{ echo "run-t.sh: $BUILD/xtkernrev.so missing: run make xtkernrev.so" >&2; exit 2; }
	(
		export XT_CGROUP2_REVISION=1 XTKERNREV_CGROUP2=1
		export LD_PRELOAD=$BUILD/xtkernrev.so
		run_t "$1"
		echo "$pass $failed" >"$TMP/v1.counts"
	)
	read -r pass failed <"$TMP/v1.counts"
}

# Every other file tests revision 0, the one a kernel without the module
# claims (iptables 1.8.8 and later; xtkernrev.so for 1.8.7), for every
# tool: iptables-translate asks no kernel and would take revision 1.
export XT_CGROUP2_REVISION=0

files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$HERE/cgroup2.t" "$HERE/cgroup2-v1.t"
				   "$HERE/cgroup2.txlate" warnings
				   "$HERE/CGROUP2LOG.t" "$HERE/CGROUP2LOG.txlate")
for f in "${files[@]}"; do
	case $f in
	*-v1.t) revision1 "$f" ;;
	*.t) run_t "$f" ;;
	*.txlate) run_txlate "$f" ;;
	warnings) run_warn ;;
	*) echo "run-t.sh: unknown test file $f" >&2; exit 2 ;;
	esac
done
summary="$pass passed, $failed failed"
[ $skipped -eq 0 ] || summary+=", $skipped skipped"
echo "$summary"
[ $failed -eq 0 ]
