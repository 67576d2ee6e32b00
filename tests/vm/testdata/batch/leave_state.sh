#!/bin/bash
# Leaves behind what a kernel test may: a process, two named netns, links,
# rules of both iptables back ends and nft, a cgroup, a cgroup tree deeper
# than PATH_MAX (long_paths.sh), a mount, a module, a changed net.* sysctl.  tests/vm/batch must put all of it back.
set -u
CG=${CGROUP2_MNT:-/sys/fs/cgroup}
ok=1
setsid sleep 1000 </dev/null >/dev/null 2>&1 &
ip netns add left || ok=0
ip netns add left2 || ok=0
ip link add left0 type dummy || ok=0
iptables-legacy -w -A OUTPUT -m comment --comment left || ok=0
iptables-nft -w -A OUTPUT -m comment --comment left || ok=0
nft add table inet left || ok=0
mkdir -p "$CG/left/deeper" || ok=0
# 20 names of 250 bytes: 5 KB, made one directory at a time.
(cd "$CG" && for i in $(seq 20); do
	n=$(printf '%0250d' "$i") && mkdir "$n" && cd "$n" || exit 1
done) || ok=0
mkdir -p /tmp/left && mount -t tmpfs none /tmp/left || ok=0
sysctl -q -w net.ipv4.ip_forward=1 || ok=0
modprobe xt_cgroup2 || ok=0
if ((ok)); then echo "PASS left state behind"; else echo "FAIL could not leave state behind"; fi
