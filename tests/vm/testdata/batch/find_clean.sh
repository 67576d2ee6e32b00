#!/bin/bash
# Runs after leave_state.sh in the same boot: nothing of it is left.
set -u
CG=${CGROUP2_MNT:-/sys/fs/cgroup}
t() { local n=$1; shift; if "$@" >/dev/null 2>&1; then echo "PASS $n"; else echo "FAIL $n"; fi; }
t no-process sh -c '! pgrep -x sleep'
t no-netns test -z "$(ip netns list)"
t no-link sh -c '! ip link show left0'
t no-legacy-rule sh -c '! iptables-legacy -w -S OUTPUT | grep -q left'
t no-nft-table sh -c '! nft list tables | grep -q left'
t no-cgroup test ! -e "$CG/left"
t no-deep-cgroup test ! -e "$CG/$(printf '%0250d' 1)"
t no-mount sh -c '! grep -q " /tmp/left " /proc/mounts'
t sysctl-back test "$(sysctl -n net.ipv4.ip_forward)" = 0
t no-module sh -c '! grep -q "^xt_cgroup2 " /proc/modules'
t log-cleared sh -c '! dmesg | grep -q "xt-batch-marker"'
