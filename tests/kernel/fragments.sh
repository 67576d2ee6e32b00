#!/usr/bin/env bash
# Fragments in INPUT.  IPv6's LOCAL_IN runs before reassembly, and a socket
# lookup on a later fragment (ipv6_find_hdr() stops at its fragment header
# and leaves the offset at 0) reads the IPv6 header as UDP ports: the
# destination port is the low 16 bits of the flow label, random per socket
# here, so which listener a fragment would be credited to cannot be staged.
# The match keeps IPv6 defragmentation on while a rule may see INPUT, so
# INPUT sees one 3000-byte datagram, not three fragments over a 1280-byte
# MTU, judged by its listener in srv.service and by nothing else.  IPv4
# reassembles before LOCAL_IN anyway.  Two rules that share one compiled
# rule each hold defragmentation: it stays while one is left, and once the
# rules are gone, IPv6 defragmentation is released.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

expect_grep "xt_cgroup2 depends on nf_defrag_ipv6" '(^|,)nf_defrag_ipv6(,|$)' \
	"$(modinfo -F depends xt_cgroup2)"

mkcg srv.service other.service
peer_dual_stack
ip link set veth0 mtu 1280 && ip -n peer link set eth0 mtu 1280 || fail "MTU 1280"
BIG=$(printf 'x%.0s' $(seq 3000))

# big FAM ADDR: one 3000-byte datagram from the peer.
big() {
	expect "$1: the peer sends 3000 bytes in one datagram" "sent 1" \
		"$(in_ns peer cg2net send $1 $2 9900 --payload "$BIG" 2>/dev/null)"
}

for v in 4 6; do
	ipt=iptables-legacy a=10.9.0.1 p=10.9.0.2 u=udp
	[[ $v == 6 ]] && ipt=ip6tables-legacy a=fd00::1 p=fd00::2 u=udp6
	r=(-p udp -s $p -d $a)
	$ipt -w -A INPUT "${r[@]}" -m comment --comment all &&
		$ipt -w -A INPUT "${r[@]}" -m cgroup2 --path srv.service -m comment --comment srv &&
		$ipt -w -A INPUT "${r[@]}" -m cgroup2 --path srv.service -m comment --comment srv2 &&
		$ipt -w -A INPUT "${r[@]}" -m cgroup2 --path other.service -m comment --comment other &&
		$ipt -w -A INPUT "${r[@]}" -m cgroup2 ! --path srv.service -m comment --comment not-srv ||
		fail "IPv$v: INPUT rules"
	bg_listen srv$v --cgroup srv.service listen $u $a 9900 --count 1 --timeout 8000
	big $u $a
	expect "IPv$v: srv.service's listener got it" "received 1" "$(bg_result srv$v)"
	snap $ipt INPUT
	expect "IPv$v: INPUT saw one reassembled datagram" 1 "$(snapc all)"
	expect "IPv$v: --path srv.service matched it" 1 "$(snapc srv)"
	expect "IPv$v: so did the rule sharing its patterns" 1 "$(snapc srv2)"
	expect "IPv$v: --path other.service never matched" 0 "$(snapc other)"
	expect "IPv$v: ! --path srv.service never matched" 0 "$(snapc not-srv)"
done

# Two rules sharing one compiled rule hold defragmentation each: with one
# of them deleted, INPUT still sees the datagram whole.
ip6tables-legacy -w -D INPUT -p udp -s fd00::2 -d fd00::1 -m cgroup2 --path srv.service \
	-m comment --comment srv || fail "IPv6: delete rule srv"
bg_listen srv6b --cgroup srv.service listen udp6 fd00::1 9900 --count 1 --timeout 8000
big udp6 fd00::1
expect "IPv6, rule srv deleted: the listener got it" "received 1" "$(bg_result srv6b)"
snap ip6tables-legacy INPUT
expect "IPv6, rule srv deleted: INPUT saw one more reassembled datagram" 2 "$(snapc all)"
expect "IPv6, rule srv deleted: srv2 matched it" 2 "$(snapc srv2)"

# Without cgroup2 rules IPv6 fragments reach INPUT one by one again.
ip6tables-legacy -w -F INPUT &&
	ip6tables-legacy -w -A INPUT -p udp -s fd00::2 -d fd00::1 -m comment --comment plain ||
	fail "IPv6: plain rule"
bg_listen plain --cgroup srv.service listen udp6 fd00::1 9900 --count 1 --timeout 8000
big udp6 fd00::1
expect "IPv6 after the flush: the listener got it" "received 1" "$(bg_result plain)"
expect "IPv6 after the flush: defragmentation released, INPUT saw 3 fragments" 3 \
	"$(counter ip6tables-legacy INPUT plain)"
finish
