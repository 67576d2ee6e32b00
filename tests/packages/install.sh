#!/usr/bin/env bash
# make install / make uninstall with DESTDIR and PREFIX: exactly the
# expected files go in, and uninstall takes them all out again except
# nft-cgroupd.conf (the admin's configuration, as apt's "remove" keeps it).
set -uo pipefail
cd "$(dirname "$0")/../.."
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
kver=$(basename "$(dirname "$(scripts/kdir)")")
xtlib=$(pkg-config --variable=xtlibdir xtables)
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)

# expected PREFIX: the file list make install should leave below DESTDIR.
expected() {
	printf '%s\n' /etc/nft-cgroupd.conf \
		"/lib/modules/$kver/updates/kmod/xt_cgroup2.ko" \
		"$unitdir/nft-cgroupd.service" \
		"$xtlib/libxt_cgroup2.so" "$xtlib/libxt_CGROUP2LOG.so" \
		"$1/sbin/nft-cgroupd" "$1/share/man/man8/nft-cgroupd.8" \
		"$1/share/man/man8/libxt_cgroup2.8" "$1/share/man/man8/libxt_CGROUP2LOG.8" | sort
}
files() { (cd "$dest" && find . -type f -o -type l) | sed 's/^\.//' | sort; }

for prefix in /usr /usr/local; do
	rm -rf "${dest:?}"/*
	if ! make -s install DESTDIR="$dest" PREFIX="$prefix" >"$dest.log" 2>&1; then
		echo "FAIL install: make install PREFIX=$prefix failed"; tail -n 20 "$dest.log"; continue
	fi
	if diff <(expected "$prefix") <(files) >"$dest.diff"; then
		echo "PASS install: PREFIX=$prefix installs exactly the expected files"
	else
		echo "FAIL install: PREFIX=$prefix installs exactly the expected files"; cat "$dest.diff"
	fi
	grep -q "^ExecStart=$prefix/sbin/nft-cgroupd " "$dest$unitdir/nft-cgroupd.service" &&
		echo "PASS install: PREFIX=$prefix unit runs $prefix/sbin/nft-cgroupd" ||
		echo "FAIL install: PREFIX=$prefix unit runs $prefix/sbin/nft-cgroupd"
	if make -s uninstall DESTDIR="$dest" PREFIX="$prefix" >"$dest.log" 2>&1 &&
		[[ $(files) == /etc/nft-cgroupd.conf ]]; then
		echo "PASS install: PREFIX=$prefix uninstall removes all but the config"
	else
		echo "FAIL install: PREFIX=$prefix uninstall removes all but the config"; files; tail -n 5 "$dest.log"
	fi
done
rm -f "$dest.log" "$dest.diff"
