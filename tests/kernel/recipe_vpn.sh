#!/usr/bin/env bash
# vm-options: --add docs:/docs
# docs/recipes/vpn-split-tunnel.md, its blocks run as written: an app's
# datagrams and TCP leave through the tunnel (wg0, a veth to netns "vpn")
# with the tunnel's address, other processes' through the default route
# (netns "lan"), a new instance of the app too; IPv4 and IPv6.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
RECIPE=/docs/recipes/vpn-split-tunnel.md
APPS=user.slice/user-1000.slice/user@1000.service/app.slice

lan_ipt() { in_ns lan iptables-legacy "$@"; }
vpn_ipt() { in_ns vpn iptables-legacy "$@"; }
lan_ip6t() { in_ns lan ip6tables-legacy "$@"; }
vpn_ip6t() { in_ns vpn ip6tables-legacy "$@"; }

netns_add lan vpn
veth_ns lan 10.1.0.1/24 10.1.0.2/24 lan0
veth_ns vpn 10.8.0.2/24 10.8.0.1/24 wg0
ip addr add fd00:1::1/64 dev lan0 nodad
ip -n lan addr add fd00:1::2/64 dev eth0 nodad
ip addr add fd00:8::2/64 dev wg0 nodad
ip -n vpn addr add fd00:8::1/64 dev eth0 nodad
# The server's addresses exist on both sides: where a packet arrives shows
# the path it took.  Neither side routes back to the other's subnet.
for ns in lan vpn; do
	ip -n "$ns" addr add 192.0.2.80/32 dev eth0
	ip -n "$ns" addr add 2001:db8::80/128 dev eth0 nodad
done
ip route add default via 10.1.0.2
ip -6 route add default via fd00:1::2
# A host with a strict reverse-path filter: the recipe must cope with it.
sysctl -qw net.ipv4.conf.all.rp_filter=1
mkcg "$APPS/app-firefox-1234.scope" "$APPS/app-org.gnome.Terminal-77.scope" \
	system.slice/updater.service

# Count, in each server netns, UDP (then dropped: no ICMP error) and SYNs
# by source address.
for side in lan vpn; do
	src4=10.1.0.1 src6=fd00:1::1
	[[ $side == vpn ]] && src4=10.8.0.2 src6=fd00:8::2
	"${side}_ipt" -A INPUT -p udp --dport 7000 -s $src4 -m comment --comment udp -j DROP
	"${side}_ipt" -A INPUT -p tcp --dport 7001 --syn -s $src4 -m comment --comment syn
	"${side}_ip6t" -A INPUT -p udp --dport 7000 -s $src6 -m comment --comment udp -j DROP
	"${side}_ip6t" -A INPUT -p tcp --dport 7001 --syn -s $src6 -m comment --comment syn
	bg_listen "tcp4-$side" in_ns "$side" -- listen tcp 192.0.2.80 7001 --count 10 --timeout 120000
	bg_listen "tcp6-$side" in_ns "$side" -- listen tcp6 2001:db8::80 7001 --count 10 --timeout 120000
done

for fam in ipv4 ipv6; do
	block=$(/tests/docs/blocks get "$RECIPE" "vm:recipe_vpn:$fam")
	expect "the recipe has its $fam block" 0 $?
	expect_ok "the $fam block runs as written" bash -e -c "$block"
done
# A new instance of the app, started after the rules.
mkcg "$APPS/app-firefox-5678.scope"

# check FAM IPT4OR6 SERVER: each sender's traffic arrives on its side.
check() {
	local fam=$1 ipt=$2 srv=$3 u=udp t=tcp
	[[ $fam == ipv6 ]] && u=udp6 t=tcp6
	sends "$APPS/app-firefox-1234.scope" "$srv" 7000 3
	sends "$APPS/app-firefox-5678.scope" "$srv" 7000 2
	sends "$APPS/app-org.gnome.Terminal-77.scope" "$srv" 7000 4
	sends system.slice/updater.service "$srv" 7000 1
	expect "$fam: the app's 5 datagrams (two instances) arrive through the tunnel" \
		5 "$(counter "vpn_$ipt" INPUT udp)"
	expect "$fam: the other 5 datagrams arrive through the LAN" \
		5 "$(counter "lan_$ipt" INPUT udp)"
	for cg in app-firefox-1234.scope app-firefox-5678.scope; do
		expect "$fam: TCP of $cg is answered" "connected reply 2" \
			"$(cg2net --cgroup "$APPS/$cg" connect $t "$srv" 7001 --send hi --timeout 3000)"
	done
	expect "$fam: TCP of another app is answered" "connected reply 2" \
		"$(cg2net --cgroup "$APPS/app-org.gnome.Terminal-77.scope" connect $t "$srv" 7001 \
			--send hi --timeout 3000)"
	expect "$fam: the app's 2 connections came through the tunnel" 2 "$(counter "vpn_$ipt" INPUT syn)"
	expect "$fam: 1 connection came through the LAN" 1 "$(counter "lan_$ipt" INPUT syn)"
}
check ipv4 ipt 192.0.2.80
check ipv6 ip6t 2001:db8::80
finish
