#!/usr/bin/env bash
# The package test: build the .debs (scripts/make-deb, lintian included),
# then boot the cached Debian 12 host image (host-image) and let
# guest/boot.sh install them, check them through two reboots and purge
# them.  Prints the guest's PASS/FAIL lines and the time of each stage.
set -uo pipefail
cd "$(dirname "$0")/../.."
HERE=tests/packages
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

stage() { local t0=$SECONDS; "$@"; local rc=$?; echo "time: $* took $((SECONDS - t0)) s" >&2; return $rc; }

if stage scripts/make-deb "$work/debs" >"$work/deb.log" 2>&1; then
	echo "PASS make deb: three packages, lintian clean"
else
	echo "FAIL make deb: its output:"; sed 's/^/    /' "$work/deb.log" | tail -n 30
	exit 1
fi
stage "$HERE/host-image" >/dev/null || { echo "FAIL host image: cannot build it"; exit 1; }

in=$work/in
mkdir -p "$in/debs"
cp "$HERE/guest/boot.sh" "$in/boot.sh"
cp -r "$HERE/guest" "$in/guest"
cp VERSION "$in/VERSION"
# The recipes' blocks, run as written (guest/recipes.sh).
cp -r docs/recipes "$in/recipes"
cp tests/docs/blocks "$in/blocks"
for p in xt-cgroup2-dkms xtables-cgroup2 nft-cgroupd; do
	cp "$work/debs/${p}_"*.deb "$in/debs/"
done
stage "$HERE/boot-vm" "$in" "$work/out" "${PACKAGE_TEST_TIMEOUT:-1500}"
rc=$?
grep -E '^(PASS|FAIL|SKIP) ' "$work/out/result" 2>/dev/null
cat "$work/out/result.times" 2>/dev/null | sed 's/^/time: /' >&2
if ! grep -qx DONE "$work/out/result" 2>/dev/null; then
	echo "FAIL guest: did not finish (qemu status $rc); end of its console and log:"
	tail -n 30 "$work/out/console.log" 2>/dev/null | sed 's/^/    /'
	tail -n 30 "$work/out/boot.log" 2>/dev/null | sed 's/^/    /'
fi
[[ -n ${PACKAGE_TEST_KEEP:-} ]] && cp -r "$work/out" "$PACKAGE_TEST_KEEP"
! grep -q '^FAIL ' "$work/out/result" 2>/dev/null && grep -qx DONE "$work/out/result"
