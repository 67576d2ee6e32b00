#!/usr/bin/env bash
# Every command block of README.md and docs/ is run by a test as written
# (tests/README.md, "The docs' commands"): this test checks each block's
# tag, that the test it names exists and reads the docs, and runs the
# blocks tagged host: and dry: here.  It never runs "make check" for real:
# that is what runs this test (the quick start's block is tagged dry:).
set -uo pipefail
cd "$(dirname "$0")/../.."
BLOCKS=tests/docs/blocks
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

docs=(README.md docs/*.md docs/recipes/*.md)

# Indented code blocks escape the extraction: a line indented by 4 spaces
# or a tab after a blank line, outside a fenced block.
for f in "${docs[@]}"; do
	bad=$(awk '/^```/ { fence = !fence; prev = ""; next }
		!fence && prev == "" && /^(    |\t)[^ \t]/ { print FILENAME ":" FNR }
		{ prev = $0 }' "$f")
	[[ -z $bad ]] && pass "$f has no indented code block" ||
		fail "$f has no indented code block (at $bad: use a fenced block)"
done

# host_run ID FILE: run the block host:ID of FILE and check what it did.
host_run() {
	local id=$1 f=$2 block out want dest
	block=$($BLOCKS get "$f" "host:$id") || { fail "$f: block host:$id"; return; }
	case $id in
	translate)
		# The extensions of this build, then the system's for the rest.
		out=$(XTABLES_LIBDIR="$PWD/iptables-ext:$(pkg-config --variable=xtlibdir xtables)" \
			bash -e -c "$block" 2>"$tmp/err")
		want=$($BLOCKS get "$f" "output:$id")
		[[ $out == "$want" ]] && pass "$f: host:$id prints its output block" ||
			fail "$f: host:$id prints its output block (got '$out', $(head -c 300 "$tmp/err"))"
		;;
	install)
		# make install and uninstall, as written, below a scratch DESTDIR:
		# what is left is the configuration, as uninstall promises.
		dest=$tmp/dest
		mkdir -p "$dest"
		if DESTDIR=$dest bash -e -c "$block" >"$tmp/log" 2>&1; then
			out=$(cd "$dest" && find . -type f | sed 's/^\.//')
			[[ $out == /etc/nft-cgroupd.conf ]] &&
				pass "$f: host:$id installs and uninstalls (DESTDIR=scratch)" ||
				fail "$f: host:$id installs and uninstalls (left: $(tr '\n' ' ' <<<"$out"))"
		else
			fail "$f: host:$id runs ($(tail -n 5 "$tmp/log" | tr '\n' ' '))"
		fi
		;;
	*) fail "$f: no host check for host:$id (add one to tests/docs/commands.sh)" ;;
	esac
}

# The blocks: FILE LINE LANG TAGS.
$BLOCKS list "${docs[@]}" >"$tmp/list" || fail "every fenced block is closed"
while IFS=$'\t' read -r f line lang tags; do
	where="$f:$line"
	case $lang in
	sh | text | nft | ini) ;;
	*) fail "$where: block language '$lang' (sh for commands; text, nft, ini for the rest)"; continue ;;
	esac
	kind=${tags%%[ :]*}
	if [[ $lang != sh ]]; then
		case $kind in
		"" | output) continue ;;
		esac
	fi
	case $kind in
	host)
		id=${tags#host:}; id=${id%% *}
		host_run "$id" "$f" ;;
	vm)
		t=${tags#vm:}; t=${t%% *}
		test=${t%%:*} id=${t#*:}
		k=tests/kernel/$test.sh
		if [[ -f $k ]] && grep -q '/tests/docs/blocks' "$k" && grep -q '^# vm-options:.*--add docs' "$k" &&
			grep -qw -- "$id" "$k"; then
			pass "$where: $k runs vm:$test:$id"
		else
			fail "$where: $k runs vm:$test:$id (no such test, or it does not read the block)"
		fi ;;
	by)
		p=${tags#by:}; p=${p%% *}
		if [[ -f $p ]] && grep -qF "$(basename "$f")" "$p"; then
			pass "$where: $p runs it"
		else
			fail "$where: $p runs it (no such file, or it does not name $(basename "$f"))"
		fi ;;
	dry)
		block=$($BLOCKS get "$f" "dry:") || { fail "$where: one dry block per file"; continue; }
		if MAKEFLAGS=n bash -e -c "$block" >"$tmp/log" 2>&1; then
			pass "$where: runs dry (make -n)"
		else
			fail "$where: runs dry ($(tail -n 5 "$tmp/log" | tr '\n' ' '))"
		fi ;;
	skip)
		reason=${tags#skip:}
		reason=${reason# }
		if [[ -n $reason ]]; then echo "SKIP $where ($reason)"
		else fail "$where: skip: without a reason"; fi ;;
	*) fail "$where: sh block without host:, vm:, by:, dry: or skip: ('$tags')" ;;
	esac
done <"$tmp/list"
exit $((fails > 0))
