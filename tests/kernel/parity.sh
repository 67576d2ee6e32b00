#!/usr/bin/env bash
# Parity with the in-tree match on literal paths: the same traffic through
# -m cgroup --path P and -m cgroup2 --path P, side by side, for a leaf, a
# parent, a cgroup nobody sends from, and the root; in OUTPUT, POSTROUTING
# and INPUT over veth (established TCP data, where in-tree sees the socket).
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach

mkcg svc/web.service/child svc/other.service svc/idle.service
netns_add peer
veth_ns peer 10.9.0.1/24 10.9.0.2/24
paths=("leaf svc/web.service 3 2" "parent svc 6 3" "idle svc/idle.service 0 0" "root / 7 3")
{
	echo '*filter'
	for p in "${paths[@]}"; do
		set -- $p
		for m in cgroup cgroup2; do
			echo "-A OUTPUT -p udp -d 127.0.0.1 --dport 9151 -m $m --path $2 -m comment --comment out-$1-$m"
			echo "-A INPUT -p tcp -d 10.9.0.1 --dport 9152 --tcp-flags PSH PSH -m $m --path $2 -m comment --comment in-$1-$m"
		done
	done
	echo COMMIT
	echo '*mangle'
	for p in "${paths[@]}"; do
		set -- $p
		for m in cgroup cgroup2; do
			echo "-A POSTROUTING -p udp -d 127.0.0.1 --dport 9151 -m $m --path $2 -m comment --comment post-$1-$m"
		done
	done
	echo COMMIT
} >/tmp/parity.rules
expect_ok "restore the side-by-side rules (legacy)" iptables-legacy-restore -w --noflush /tmp/parity.rules
expect_ok "restore the side-by-side rules (nft)" iptables-nft-restore -w --noflush /tmp/parity.rules

sends svc/web.service 127.0.0.1 9151 1
sends svc/web.service/child 127.0.0.1 9151 2
sends svc/other.service 127.0.0.1 9151 3
sends "" 127.0.0.1 9151 1
# INPUT: servers in web.service/child (2 connections) and other.service (1),
# one connection each from the peer.
# CPU 0 for all: see input.sh (the data must meet the established socket).
bg_listen a taskset -c 0 -- --cgroup svc/web.service/child listen tcp 10.9.0.1 9152 --count 2
for i in 1 2; do
	expect "peer connection $i to web.service/child" "connected reply 2" \
		"$(in_ns peer taskset -c 0 cg2net connect tcp 10.9.0.1 9152 --send hi 2>/dev/null)"
done
expect "web.service/child server" "accepted 2" "$(bg_result a)"
bg_listen b taskset -c 0 -- --cgroup svc/other.service listen tcp 10.9.0.1 9152 --count 1
expect "peer connection to other.service" "connected reply 2" \
	"$(in_ns peer taskset -c 0 cg2net connect tcp 10.9.0.1 9152 --send hi 2>/dev/null)"
expect "other.service server" "accepted 1" "$(bg_result b)"

for ipt in iptables-legacy iptables-nft; do
	for w in "out OUTPUT filter" "post POSTROUTING mangle" "in INPUT filter"; do
		set -- $w
		snap $ipt $2 $3 2>/dev/null
		for p in "${paths[@]}"; do
			set -- $w $p
			want=$6
			[[ $1 == in ]] && want=$7
			expect "$ipt $2 $5: in-tree counts $want" "$want" "$(snapc $1-$4-cgroup)"
			expect "$ipt $2 $5: ours counts $want" "$want" "$(snapc $1-$4-cgroup2)"
		done
	done
done
finish
