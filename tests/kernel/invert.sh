#!/usr/bin/env bash
# Inversion: "! --path X" counts packets of sockets in other cgroups, never
# those of X.  A packet without a socket never matches, inverted or not: a
# datagram to a closed port in INPUT, and a packet forwarded by a router
# netns in its POSTROUTING.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach

P=9501
mkcg svc/x.service svc/y.service
o=(-p udp -d 127.0.0.1 --dport $P -m cgroup2)
{
	echo '*filter'
	echo "-A OUTPUT ${o[*]} --path svc/x.service -m comment --comment out-x"
	echo "-A OUTPUT ${o[*]} ! --path svc/x.service -m comment --comment out-not-x"
	echo "-A OUTPUT ${o[*]} ! --path nothere -m comment --comment out-not-nothere"
	# INPUT: nobody listens on $P, so no socket receives these.
	echo "-A INPUT ${o[*]} --path / -m comment --comment in-root"
	echo "-A INPUT ${o[*]} ! --path / -m comment --comment in-not-root"
	echo "-A INPUT ${o[*]} ! --path svc/x.service -m comment --comment in-not-x"
	echo "-A INPUT -p udp -d 127.0.0.1 --dport $P -m comment --comment in-all"
	echo COMMIT
} >/tmp/invert.rules
expect_ok "restore the rules" iptables-legacy-restore -w --noflush /tmp/invert.rules

sends svc/x.service 127.0.0.1 $P 2
sends svc/y.service 127.0.0.1 $P 3
sends "" 127.0.0.1 $P 1
snap iptables-legacy OUTPUT
expect "OUTPUT --path x: x only" 2 "$(snapc out-x)"
expect "OUTPUT ! --path x: y and the root" 4 "$(snapc out-not-x)"
expect "OUTPUT ! --path nothere: every socket" 6 "$(snapc out-not-nothere)"
snap iptables-legacy INPUT
expect "INPUT: all 6 datagrams arrived" 6 "$(snapc in-all)"
expect "INPUT --path / with no receiving socket: 0" 0 "$(snapc in-root)"
expect "INPUT ! --path / with no receiving socket: 0" 0 "$(snapc in-not-root)"
expect "INPUT ! --path x with no receiving socket: 0" 0 "$(snapc in-not-x)"

# Forwarding: a (10.1.0.2) -- r (10.1.0.1 | 10.2.0.1) -- b (10.2.0.2)
netns_add a r b
ip -n r link add ra type veth peer name eth0 netns a
ip -n r link add rb type veth peer name eth0 netns b
ip -n r addr add 10.1.0.1/24 dev ra && ip -n r link set ra up &&
	ip -n r addr add 10.2.0.1/24 dev rb && ip -n r link set rb up &&
	ip -n a addr add 10.1.0.2/24 dev eth0 && ip -n a link set eth0 up &&
	ip -n b addr add 10.2.0.2/24 dev eth0 && ip -n b link set eth0 up &&
	ip -n a route add default via 10.1.0.1 && ip -n b route add default via 10.2.0.1 &&
	in_ns r sysctl -qw net.ipv4.ip_forward=1 || fail "router setup"
drop_unreach in_ns b
f=(-p udp -d 10.2.0.2 --dport $P)
for t in mangle nat filter; do
	[[ $t == filter ]] && continue
	in_ns r iptables-legacy -w -t $t -A POSTROUTING "${f[@]}" -m cgroup2 --path / \
		-m comment --comment fwd-root || fail "router $t POSTROUTING --path /"
	in_ns r iptables-legacy -w -t $t -A POSTROUTING "${f[@]}" -m cgroup2 ! --path / \
		-m comment --comment fwd-not-root || fail "router $t POSTROUTING ! --path /"
	in_ns r iptables-legacy -w -t $t -A POSTROUTING "${f[@]}" -m cgroup2 ! --path svc/x.service \
		-m comment --comment fwd-not-x || fail "router $t POSTROUTING ! --path x"
	in_ns r iptables-legacy -w -t $t -A POSTROUTING "${f[@]}" -m comment --comment fwd-all ||
		fail "router $t POSTROUTING plain"
done
in_ns r iptables-nft -w -t mangle -A POSTROUTING "${f[@]}" -m cgroup2 ! --path svc/x.service \
	-m comment --comment fwd-not-x-nft || fail "router nft POSTROUTING ! --path x"
# -m conntrack makes r track connections: the nat table only sees tracked
# packets, the first of each flow.
in_ns r iptables-legacy -w -A FORWARD "${f[@]}" -m conntrack --ctstate NEW,ESTABLISHED \
	-m comment --comment forwarded || fail "router FORWARD rule"

out=$(in_ns a cg2net --cgroup svc/y.service send udp 10.2.0.2 $P --count 3 2>&1 | tail -n 1)
expect "send through the router" "sent 3" "$out"
expect "router forwarded 3" 3 "$(in_ns r bash -c '. /tests/lib/vmtest.sh; counter iptables-legacy FORWARD forwarded')"
SNAP=$(in_ns r iptables-legacy -w -t mangle -L POSTROUTING -v -x -n)
expect "router mangle POSTROUTING saw 3" 3 "$(snapc fwd-all)"
expect "forwarded: --path / never matches" 0 "$(snapc fwd-root)"
expect "forwarded: ! --path / never matches" 0 "$(snapc fwd-not-root)"
expect "forwarded: ! --path x never matches" 0 "$(snapc fwd-not-x)"
SNAP=$(in_ns r iptables-legacy -w -t nat -L POSTROUTING -v -x -n)
expect "router nat POSTROUTING saw the flow's first packet" 1 "$(snapc fwd-all)"
expect "forwarded (nat): ! --path / never matches" 0 "$(snapc fwd-not-root)"
SNAP=$(in_ns r iptables-nft -w -t mangle -L POSTROUTING -v -x -n 2>/dev/null)
expect "forwarded (nft): ! --path x never matches" 0 "$(snapc fwd-not-x-nft)"
finish
