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

# check FAM IPT4OR6 SERVER NEW: each sender's traffic arrives on its side
# (NEW: the instance started after the rules).
check() {
	local fam=$1 ipt=$2 srv=$3 new=$4 t=tcp side
	[[ $fam == ipv6 ]] && t=tcp6
	for side in lan vpn; do "${side}_$ipt" -Z INPUT; done
	sends "$APPS/app-firefox-1234.scope" "$srv" 7000 3
	sends "$APPS/$new" "$srv" 7000 2
	sends "$APPS/app-org.gnome.Terminal-77.scope" "$srv" 7000 4
	sends system.slice/updater.service "$srv" 7000 1
	expect "$FORM $fam: the app's 5 datagrams (two instances) arrive through the tunnel" \
		5 "$(counter "vpn_$ipt" INPUT udp)"
	expect "$FORM $fam: the other 5 datagrams arrive through the LAN" \
		5 "$(counter "lan_$ipt" INPUT udp)"
	for cg in app-firefox-1234.scope "$new"; do
		expect "$FORM $fam: TCP of $cg is answered" "connected reply 2" \
			"$(cg2net --cgroup "$APPS/$cg" connect $t "$srv" 7001 --send hi --timeout 3000)"
	done
	expect "$FORM $fam: TCP of another app is answered" "connected reply 2" \
		"$(cg2net --cgroup "$APPS/app-org.gnome.Terminal-77.scope" connect $t "$srv" 7001 \
			--send hi --timeout 3000)"
	expect "$FORM $fam: the app's 2 connections came through the tunnel" 2 "$(counter "vpn_$ipt" INPUT syn)"
	expect "$FORM $fam: 1 connection came through the LAN" 1 "$(counter "lan_$ipt" INPUT syn)"
}
FORM=iptables
check ipv4 ipt 192.0.2.80 app-firefox-5678.scope
check ipv6 ip6t 2001:db8::80 app-firefox-5678.scope

# The nftables form instead of the iptables rules (the ip rules and routes
# stay): the ruleset as written to vpn.nft, then the nftd block, whose
# nft-cgroupd runs in the foreground until the test ends.
iptables -t mangle -F OUTPUT && iptables -t nat -F POSTROUTING &&
	ip6tables -t mangle -F OUTPUT && ip6tables -t nat -F POSTROUTING ||
	fail "flush the iptables form"
dir=$(mktemp -d)
/tests/docs/blocks get "$RECIPE" vm:recipe_vpn:nft >"$dir/vpn.nft" ||
	fail "the recipe has its nft ruleset"
block=$(/tests/docs/blocks get "$RECIPE" vm:recipe_vpn:nftd) || fail "the recipe has its nftd block"
# In a session of its own, so that the daemon goes with it at the end.
(cd "$dir" && exec setsid bash -e -c "$block") >"$dir/nftd.log" 2>&1 &
nftd=$!
# in_set N: wait (5 s at most) until the set holds N app cgroups.
in_set() {
	local i
	for i in $(seq 100); do
		(($(nft list set inet vpn apps 2>/dev/null | grep -o 'app-firefox-[0-9]*' | wc -l) == $1)) &&
			return 0
		sleep 0.05
	done
	return 1
}
if in_set 2; then pass "nftd: nft-cgroupd fills the set with the two instances"
else fail "nftd: nft-cgroupd fills the set with the two instances ($(tr '\n' ' ' <"$dir/nftd.log" | head -c 600))"; fi
mkcg "$APPS/app-firefox-9999.scope"
expect_ok "nftd: and adds a new instance" in_set 3
FORM=nft
check ipv4 ipt 192.0.2.80 app-firefox-9999.scope
check ipv6 ip6t 2001:db8::80 app-firefox-9999.scope
kill -- -"$nftd" 2>/dev/null
grep -q . "$dir/nftd.log" && echo "INFO nft-cgroupd said: $(tr '\n' ' ' <"$dir/nftd.log" | head -c 300)"
finish
