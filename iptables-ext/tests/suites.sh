#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The extension against each Debian suite's iptables, in chroots:
#
#   iptables-ext/tests/suites.sh [SUITE...]
#
# SUITEs (default: all): bullseye (iptables 1.8.7), bookworm (1.8.9),
# trixie (1.8.11), sid (1.8.13).  For each, scripts/suite-root provides a
# cached chroot; a copy of the sources is built there (make all in
# iptables-ext, its test tools, nft-cgroupd: no compiler output allowed, so
# no warnings), then run-t.sh runs the .t and .txlate tests and the warning
# tests with that suite's iptables and nft.  Suites run in parallel; each
# prints its lines when it ends, every one prefixed with the suite:
# "PASS trixie: ...".  About 6 minutes with cached chroots, 9 without.
# Exits 1 when any check failed.  Needs root (chroot, unshare -n).
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
SUITE_ROOT=$TOP/scripts/suite-root
PKGS=(gcc libc6-dev make pkg-config libxtables-dev libnftnl-dev libmnl-dev
      iptables nftables iproute2 util-linux mount)
[ $# -gt 0 ] || set -- bullseye bookworm trixie sid
[ "$(id -u)" = 0 ] || { echo "suites.sh: needs root (chroot, unshare)" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# What runs inside the chroot, as root: build a copy of /src in /tmp (never
# in /src, where others build), then the tests.  /sys is bound so that
# /sys/fs/cgroup exists for run-t.sh to mount over.
# shellcheck disable=SC2016
INNER='
set -u
b=/tmp/b
mkdir -p "$b"
cp -a /src/VERSION /src/iptables-ext /src/nft-support /src/lib /src/include "$b"/
make -s -C "$b/iptables-ext" clean >/dev/null 2>&1
make -s -C "$b/nft-support" clean >/dev/null 2>&1
ver=$(iptables --version 2>&1)
ver=${ver#iptables }
ver=${ver%% *}
features=$(make -s -C "$b/iptables-ext" features)
if make -s -C "$b/iptables-ext" all xtsave xtkernrev.so >"$b/build.log" 2>&1 &&
   make -s -C "$b/nft-support" nft-cgroupd >>"$b/build.log" 2>&1 &&
   [ ! -s "$b/build.log" ]; then
	echo "PASS build against iptables $ver (${features:-no features}): extensions, test tools, nft-cgroupd, no warnings"
else
	echo "FAIL build against iptables $ver (${features:-no features}): extensions, test tools, nft-cgroupd, no warnings"
	sed "s/^/    /" "$b/build.log" | head -n 40
	[ -e "$b/iptables-ext/libxt_cgroup2.so" ] && [ -e "$b/iptables-ext/xtsave" ] || exit 1
fi
"$b/nft-support/nft-cgroupd" --help >"$b/help" 2>&1 &&
	echo "PASS nft-cgroupd runs (--help)" ||
	{ echo "FAIL nft-cgroupd runs (--help)"; sed "s/^/    /" "$b/help" | head -n 5; }
cd "$b/iptables-ext" && BUILD=$PWD tests/run-t.sh
'

# suite NAME: one suite, its lines prefixed, into $TMP/NAME.out; status in .rc
suite() {
	local s=$1 root rc

	if ! root=$("$SUITE_ROOT" --name ipt "$s" "${PKGS[@]}" 2>"$TMP/$s.err"); then
		{
			echo "FAIL $s: no chroot (scripts/suite-root --name ipt $s)"
			tail -n 20 "$TMP/$s.err" | sed 's/^/    /'
		} >"$TMP/$s.out"
		echo 1 >"$TMP/$s.rc"
		return
	fi
	# The chroot's / must be a mount point for run-t.sh's "unshare -m"
	# (it makes / private): bind it onto itself, in a mount namespace of
	# its own.
	unshare -m bash -c 'mount --bind "$1" "$1" && shift && exec "$@"' \
		bind "$root" "$SUITE_ROOT" --run "$root" --bind "$TOP:/src" \
		--bind /sys:/sys bash -c "$INNER" >"$TMP/$s.raw" 2>&1
	rc=$?
	# PASS/FAIL/SKIP lines get the suite; run-t.sh's explanations (indented)
	# stay; its summary line and anything else only when the run failed.
	awk -v s="$s" -v rc=$rc '
		/^(PASS|FAIL|SKIP) / { sub(/ /, " " s ": "); print; next }
		/^    / { print; next }
		rc != 0 { print "    " s ": " $0 }
	' "$TMP/$s.raw" >"$TMP/$s.out"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$TMP/$s.out"; then
		echo "FAIL $s: tests exited with status $rc" >>"$TMP/$s.out"
	fi
	echo $rc >"$TMP/$s.rc"
}

pids=()
for s; do
	suite "$s" &
	pids+=($!)
done
failed=0
i=0
for s; do
	wait "${pids[i]}"
	i=$((i + 1))
	cat "$TMP/$s.out"
	[ "$(cat "$TMP/$s.rc" 2>/dev/null)" = 0 ] || failed=1
	# chroot building messages, if any, for the curious
	[ -s "$TMP/$s.err" ] && cat "$TMP/$s.err" >&2
done
exit $failed
