#!/usr/bin/env bash
# The version is in one place (VERSION): dkms.conf, debian/changelog and
# CHANGELOG.md agree with it, and the built module, extension and daemon
# show it.  Needs "make" first.
set -uo pipefail
cd "$(dirname "$0")/../.."
pass() { echo "PASS version: $1"; }
fail() { echo "FAIL version: $1${2:+ (got: $2)}"; failed=1; }
failed=0
v=$(cat VERSION 2>/dev/null) || { echo "FAIL version: no VERSION file"; exit 1; }
same() { if [[ $2 == "$v" ]]; then pass "$1 says $v"; else fail "$1 says $v" "$2"; fi; }

same dkms.conf "$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)"
same debian/changelog "$(dpkg-parsechangelog -S Version 2>/dev/null)"
same CHANGELOG.md "$(sed -n 's/^## \([0-9][^ ]*\).*/\1/p' CHANGELOG.md | head -n 1)"
same "modinfo kmod/xt_cgroup2.ko" "$(modinfo -F version kmod/xt_cgroup2.ko 2>/dev/null)"
same "nft-cgroupd --version" "$(nft-support/nft-cgroupd --version 2>/dev/null | awk '{print $2}')"
help=$(XTABLES_LIBDIR=$PWD/iptables-ext:$(pkg-config --variable=xtlibdir xtables) \
	iptables -m cgroup2 --help 2>/dev/null | sed -n 's/^cgroup2 match options (xt_cgroup2 \(.*\)):$/\1/p')
same "iptables -m cgroup2 --help" "$help"
desc=$(modinfo -F description kmod/xt_cgroup2.ko 2>/dev/null)
[[ -n $desc ]] && pass "modinfo has a description" || fail "modinfo has a description"
[[ $(modinfo -F license kmod/xt_cgroup2.ko 2>/dev/null) == GPL ]] && pass "modinfo: license GPL" ||
	fail "modinfo: license GPL"
aliases=$(modinfo -F alias kmod/xt_cgroup2.ko 2>/dev/null | sort | paste -sd' ')
if [[ " $aliases " == *" ipt_cgroup2 "* && " $aliases " == *" ip6t_cgroup2 "* ]]; then
	pass "modinfo: ipt_cgroup2 and ip6t_cgroup2 aliases"
else
	fail "modinfo: ipt_cgroup2 and ip6t_cgroup2 aliases" "$aliases"
fi
exit $failed
