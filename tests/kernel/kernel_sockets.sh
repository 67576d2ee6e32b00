#!/usr/bin/env bash
# The kernel's own packets are no service's traffic.  Under
#   -A OUTPUT -o veth0 -m cgroup2 ! --path srv.service -j DROP
# (and its ip6tables twin) the RST for a connection to a closed port, the
# ICMP port unreachable for a datagram to one, echo replies and IPv6
# neighbour discovery still leave: they come from kernel control sockets,
# which never match, with or without "!".  Meanwhile srv.service's traffic
# passes and other.service's is dropped.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

mkcg srv.service other.service
peer_dual_stack
for ipt in iptables-legacy ip6tables-legacy; do
	$ipt -w -A OUTPUT -o veth0 -m cgroup2 ! --path srv.service \
		-m comment --comment not-srv -j DROP || fail "$ipt: the ! --path DROP rule"
done
# What reaches the peer, counted there.
in_ns peer iptables-legacy -w -A INPUT -p tcp --tcp-flags RST RST -m comment --comment rst &&
	in_ns peer ip6tables-legacy -w -A INPUT -p tcp --tcp-flags RST RST -m comment --comment rst &&
	in_ns peer iptables-legacy -w -A INPUT -p icmp --icmp-type port-unreachable \
		-m comment --comment unreach &&
	in_ns peer ip6tables-legacy -w -A INPUT -p ipv6-icmp --icmpv6-type port-unreachable \
		-m comment --comment unreach || fail "peer counters"
peer_count() { in_ns peer bash -c ". /tests/lib/vmtest.sh; counter $1 INPUT $2"; }

flush_neigh() {
	ip neigh flush dev veth0
	ip -n peer neigh flush dev eth0
}

for a in 10.9.0.1 fd00::1; do
	v=4 ipt=iptables-legacy
	[[ $a == *:* ]] && v=6 ipt=ip6tables-legacy
	t=tcp u=udp
	[[ $v == 6 ]] && t=tcp6 u=udp6
	flush_neigh
	expect "IPv$v: connect to a closed port is refused (the kernel's RST)" refused \
		"$(in_ns peer cg2net connect $t $a 9 --timeout 3000 2>/dev/null)"
	expect "IPv$v: the RST reached the peer" 1 "$(peer_count $ipt rst)"
	expect "IPv$v: UDP to a closed port is refused (the kernel's ICMP error)" refused \
		"$(in_ns peer cg2net send $u $a 9 --count 3 2>/dev/null)"
	n=$(peer_count $ipt unreach)
	((n >= 1)) && pass "IPv$v: ICMP port unreachable reached the peer ($n)" ||
		fail "IPv$v: ICMP port unreachable reached the peer (got $n)"

	# srv.service serves through the rule (after neighbour discovery, in
	# IPv6 the kernel's neighbour advertisement); other.service cannot send.
	flush_neigh
	bg_listen srv$v --cgroup srv.service listen $t $a 8090 --count 1 --timeout 10000
	expect "IPv$v: a client reaches srv.service's listener" "connected reply 5" \
		"$(in_ns peer cg2net connect $t $a 8090 --send hello --timeout 3000 2>/dev/null)"
	expect "IPv$v: other.service's datagram is dropped" "blocked: Operation not permitted" \
		"$(cg2net --cgroup other.service send $u ${a%1}2 9 2>/dev/null)"

	# srv.service sends first: in IPv6 the kernel's neighbour solicitation.
	flush_neigh
	bg_listen peer$v in_ns peer -- listen $u ${a%1}2 8091 --count 1 --timeout 4000
	expect "IPv$v: srv.service sends to the peer" "sent 1" \
		"$(cg2net --cgroup srv.service send $u ${a%1}2 8091 2>/dev/null)"
	expect "IPv$v: the peer received srv.service's datagram" "received 1" "$(bg_result peer$v)"

	if command -v ping >/dev/null; then
		flush_neigh
		expect_ok "IPv$v: the peer's ping is answered (the kernel's echo reply)" \
			in_ns peer ping -$v -c 1 -W 3 $a
	else
		skip "IPv$v: ping" "no ping in the VM"
	fi
done
finish
