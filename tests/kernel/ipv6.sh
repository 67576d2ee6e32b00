#!/usr/bin/env bash
# IPv6: ip6tables-legacy and ip6tables-nft, OUTPUT and INPUT, exact counts
# over ::1 and over a veth pair to a peer netns (fd00::1 | fd00::2).
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach

mkcg svc/web.service svc/other.service
netns_add peer
veth_ns peer fd00::1/64 fd00::2/64
drop_unreach in_ns peer

W=(-m cgroup2 --path svc/web.service)
for ipt in ip6tables-legacy ip6tables-nft; do
	t=${ipt#ip6tables-}
	$ipt -w -A OUTPUT -p udp -d ::1 --dport 9701 "${W[@]}" -m comment --comment lo-out-$t &&
	$ipt -w -A OUTPUT -p udp -d fd00::2 --dport 9702 "${W[@]}" -m comment --comment veth-out-$t &&
	$ipt -w -A OUTPUT -p udp -d fd00::2 --dport 9702 -m cgroup2 ! --path svc/web.service \
		-m comment --comment veth-out-not-$t &&
	$ipt -w -A INPUT -p udp -d ::1 --dport 9703 "${W[@]}" -m comment --comment lo-in-$t &&
	$ipt -w -A INPUT -p udp -d fd00::1 --dport 9704 "${W[@]}" -m comment --comment veth-in-$t &&
	$ipt -w -A INPUT -p udp -d fd00::1 --dport 9704 -m cgroup2 --path svc/other.service \
		-m comment --comment veth-in-other-$t ||
		fail "$ipt: insert the rules"
done

sends svc/web.service ::1 9701 3
sends svc/other.service ::1 9701 2
sends svc/web.service fd00::2 9702 4
sends svc/other.service fd00::2 9702 2
# Receivers in svc/web.service; senders elsewhere.
bg_listen lo --cgroup svc/web.service listen udp6 ::1 9703 --count 5
bg_listen veth --cgroup svc/web.service listen udp6 fd00::1 9704 --count 2
sends svc/other.service ::1 9703 5
out=$(in_ns peer cg2net --cgroup svc/other.service send udp6 fd00::1 9704 --count 2 2>&1 | tail -n 1)
expect "peer sends 2 over veth" "sent 2" "$out"
expect "::1 listener got 5" "received 5" "$(bg_result lo)"
expect "fd00::1 listener got 2" "received 2" "$(bg_result veth)"

for t in legacy nft; do
	snap ip6tables-$t OUTPUT 2>/dev/null
	expect "$t OUTPUT ::1: web's 3" 3 "$(snapc lo-out-$t)"
	expect "$t OUTPUT veth: web's 4" 4 "$(snapc veth-out-$t)"
	expect "$t OUTPUT veth ! web: other's 2" 2 "$(snapc veth-out-not-$t)"
	snap ip6tables-$t INPUT 2>/dev/null
	expect "$t INPUT ::1: by the listener's cgroup, 5" 5 "$(snapc lo-in-$t)"
	expect "$t INPUT veth: by the listener's cgroup, 2" 2 "$(snapc veth-in-$t)"
	expect "$t INPUT veth: the peer's cgroup (other netns) never" 0 "$(snapc veth-in-other-$t)"
done
finish
