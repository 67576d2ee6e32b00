#!/usr/bin/env bash
# In-kernel fuzzing of the cgroup2 match (tests/debug-kernel/kfuzz): at
# least 100,000 generated and mutated blobs through IPT_SO_SET_REPLACE
# (IPv4 and IPv6) and, a quarter of them, nft_compat (ip and ip6); each
# refused with the errno the ABI gives or accepted, and every 10th accepted
# one checked with a datagram from each of 20 cgroups against the userspace
# engine.  make check-debug runs it on
# the debug kernel, where KASAN, lockdep and kmemleak watch.
. "$(dirname "$0")/../../lib/vmtest.sh"
need_module
modprobe -a iptable_filter ip6table_filter || fail "modprobe the legacy filter tables"
command -v cg2kfuzz >/dev/null || { fail "cg2kfuzz is not built (make -C tests/debug-kernel/kfuzz)"; finish; }
cg2kfuzz --seeds /tests/debug-kernel/kfuzz/seeds.txt --seed "${KFUZZ_SEED:-1}" \
	--nft-share "${KFUZZ_NFT_SHARE:-25}" \
	--blobs "${KFUZZ_BLOBS:-100000}" --seconds "${KFUZZ_SECONDS:-1500}" --verify-every 10 ||
	_fails=$((_fails + 1))
finish
