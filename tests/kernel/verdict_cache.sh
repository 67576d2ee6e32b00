#!/usr/bin/env bash
# The verdict cache of a rule's netns (keyed by the cgroup's serial number; 128
# slots at first, see cache_scale.sh for growth) stays exact when more
# cgroups than its first table holds collide in it, on repeated traffic
# (cache hits) and after every cgroup is recreated anew.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

N=150
P=9950
udp_sink 127.0.0.1 $P
churn=()
for ((i = 1; i <= N; i++)); do churn+=("churn/m$i" "churn/n$i"); done
mkcg "${churn[@]}"
iptables -A OUTPUT -p udp -d 127.0.0.1 --dport $P -m cgroup2 --path 'churn/m*' \
	-m comment --comment cache

# round: this shell moves itself through every cgroup and sends one
# datagram from each with a redirect (no fork, so it stays fast).
round() {
	local i
	for ((i = 1; i <= N; i++)); do
		echo $BASHPID >"$CG/churn/m$i/cgroup.procs" && echo m >/dev/udp/127.0.0.1/$P ||
			fail "send from churn/m$i"
		echo $BASHPID >"$CG/churn/n$i/cgroup.procs" && echo n >/dev/udp/127.0.0.1/$P ||
			fail "send from churn/n$i"
	done
	echo $BASHPID >"$CG/cgroup.procs"
}

round
expect "first round: one per matching cgroup" $N "$(counter iptables OUTPUT cache)"
round
expect "second round (cached verdicts): still exact" $((2 * N)) "$(counter iptables OUTPUT cache)"

# one rmdir and one mkdir for all (an exec is tens of ms under TCG)
rmdir "${churn[@]/#/$CG/}" && mkdir "${churn[@]/#/$CG/}" || fail "recreate churn/*"
round
expect "after recreating every cgroup: exact again" $((3 * N)) "$(counter iptables OUTPUT cache)"
finish
