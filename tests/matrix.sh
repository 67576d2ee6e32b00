#!/usr/bin/env bash
# The module on each kernel of the matrix (KERNELS, default "6.1 6.12 7.2"),
# built by scripts/kernels with the kernel's own compiler and W=1: it builds
# without a warning, each compile probe decides as tests/kernel-probes.txt
# says, and "dkms build" builds it from a copy of the tree installed the
# way users install it.  One PASS/FAIL line per check.
cd "$(dirname "$0")/.."
KERNELS=${KERNELS:-6.1 6.12 7.2}
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

# dkms_build SUITE: dkms add + build in the suite's kernel chroot.
dkms_build() {
	local root
	root=$(scripts/suite-root --name kernel "$1" make perl dkms kmod linux-headers-cloud-amd64) || return 1
	scripts/suite-root --run "$root" --bind "$PWD:/src" bash -euo pipefail -c '
		dst=/usr/src/xt_cgroup2-$1
		rm -rf "$dst" /var/lib/dkms/xt_cgroup2
		mkdir -p "$dst"
		git_free="--exclude=.git --exclude=build --exclude=*.o --exclude=*.ko --exclude=.*.cmd --exclude=*.mod --exclude=*.mod.c"
		tar -C /src $git_free -cf - dkms.conf VERSION Kbuild kmod lib include | tar -C "$dst" -xf -
		trap "rm -rf $dst /var/lib/dkms/xt_cgroup2" EXIT
		# The suite'"'"'s own headers (for 6.1 maybe newer than the host'"'"'s).
		kver=$(cd /usr/src && ls -d linux-headers-*-cloud-amd64 | sort -V | tail -n 1)
		kver=${kver#linux-headers-}
		dkms add -m xt_cgroup2 -v "$1" >/dev/null
		dkms build -m xt_cgroup2 -v "$1" -k "$kver"
		ls "/var/lib/dkms/xt_cgroup2/$1/$kver/x86_64/module/xt_cgroup2.ko"*
		echo "built for $kver"' dkms "$VERSION"
}

for series in $KERNELS; do
	if ! line=$(scripts/kernels "$series" 2>/tmp/matrix.$$); then
		fail "$series: prepare the kernel and build the module ($(tail -n 3 /tmp/matrix.$$ | tr '\n' ' '))"
		continue
	fi
	read -r _ kver _ _ kodir <<<"$line"
	pass "$series: module builds for $kver with W=1, no warning"
	want=$(awk -v s="$series" '$1 == s { $1 = ""; sub(/^ +/, ""); print }' tests/kernel-probes.txt)
	got=$(cat "$kodir/probes.txt" 2>/dev/null)
	[[ -n $got ]] || got=-
	if [[ $got == "$want" ]]; then
		pass "$series: probes decide '$want'"
	else
		fail "$series: probes decide '$got', want '$want'"
	fi
	suite=$(case $series in 6.1) echo bookworm ;; 6.12) echo trixie ;; 7.2) echo sid ;; esac)
	if out=$(dkms_build "$suite" 2>&1); then
		pass "$series: dkms $(tail -n 1 <<<"$out")"
	else
		fail "$series: dkms build ($(tail -n 5 <<<"$out" | tr '\n' ' '))"
	fi
done
rm -f /tmp/matrix.$$
exit $((fails > 0))
