#!/usr/bin/env bash
# INPUT: the receiving socket's cgroup.  Over veth (established data, found
# by early demux): ours and in-tree both count.  On loopback and for a SYN to
# a listener, in-tree sees no socket (0, ANCHORS), ours looks it up and
# counts by the listener's cgroup.  And: only postgresql.service may accept
# connections on 5432.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

mkcg svc/srv.service svc/cli.service system.slice/postgresql.service system.slice/evil.service
netns_add peer
veth_ns peer 10.9.0.1/24 10.9.0.2/24

S=svc/srv.service
{
	echo '*filter'
	for w in "veth 10.9.0.1 9801" "lo 127.0.0.1 9802"; do
		set -- $w
		d="-p tcp -d $2 --dport $3"
		echo "-A INPUT $d --tcp-flags PSH PSH -m comment --comment $1-data-all"
		echo "-A INPUT $d --tcp-flags PSH PSH -m cgroup2 --path $S -m comment --comment $1-data-ours"
		echo "-A INPUT $d --tcp-flags PSH PSH -m cgroup --path $S -m comment --comment $1-data-intree"
		echo "-A INPUT $d --tcp-flags PSH PSH -m cgroup2 --path svc/cli.service -m comment --comment $1-data-client"
		echo "-A INPUT $d --syn -m comment --comment $1-syn-all"
		echo "-A INPUT $d --syn -m cgroup2 --path $S -m comment --comment $1-syn-ours"
		echo "-A INPUT $d --syn -m cgroup --path $S -m comment --comment $1-syn-intree"
	done
	echo "-A INPUT -p tcp --syn --dport 5432 -m cgroup2 ! --path system.slice/postgresql.service -m comment --comment pg-drop -j DROP"
	echo COMMIT
} >/tmp/input.rules
expect_ok "restore the INPUT rules" iptables-legacy-restore -w --noflush /tmp/input.rules

# All on CPU 0: otherwise the client's handshake ACK (sent from softirq)
# and its data (sent by the process, maybe on another CPU) can be processed
# in parallel, and the data then meets the request socket, not a full one:
# ours judges it by the listener (tests/kernel/handshake.sh), in-tree sees
# no socket (seen: 2 of 3 counted), and its count is asserted below.
bg_listen veth taskset -c 0 -- --cgroup $S listen tcp 10.9.0.1 9801 --count 3
for i in 1 2 3; do
	expect "veth client $i" "connected reply 5" \
		"$(in_ns peer taskset -c 0 cg2net connect tcp 10.9.0.1 9801 --send hello 2>/dev/null)"
done
expect "veth server accepted 3" "accepted 3" "$(bg_result veth)"
bg_listen lo --cgroup $S listen tcp 127.0.0.1 9802 --count 3
for i in 1 2 3; do
	expect "loopback client $i" "connected reply 5" \
		"$(cg2net --cgroup svc/cli.service connect tcp 127.0.0.1 9802 --send hello 2>/dev/null)"
done
expect "loopback server accepted 3" "accepted 3" "$(bg_result lo)"

snap iptables-legacy INPUT
for w in veth lo; do
	expect "$w: 3 data segments arrived" 3 "$(snapc $w-data-all)"
	expect "$w: ours counts the data by the server's cgroup" 3 "$(snapc $w-data-ours)"
	expect "$w: the client's cgroup never matches in INPUT" 0 "$(snapc $w-data-client)"
	expect "$w: 3 SYNs arrived" 3 "$(snapc $w-syn-all)"
	expect "$w: ours counts SYNs by the listener's cgroup" 3 "$(snapc $w-syn-ours)"
	expect "$w: in-tree sees no socket for a SYN" 0 "$(snapc $w-syn-intree)"
done
expect "veth: in-tree counts established data" 3 "$(snapc veth-data-intree)"
expect "loopback: in-tree sees no socket" 0 "$(snapc lo-data-intree)"

# 5432: nobody listens: no socket, so even "!" does not match: RST.
expect "5432 without a listener: refused" refused \
	"$(cg2net connect tcp 127.0.0.1 5432 --timeout 700 2>/dev/null)"
expect "5432 without a listener: DROP not hit" 0 "$(counter iptables-legacy INPUT pg-drop)"
bg_listen pg --cgroup system.slice/postgresql.service listen tcp 127.0.0.1 5432 --count 1
expect "postgresql.service accepts on 5432" "connected reply 2" \
	"$(cg2net connect tcp 127.0.0.1 5432 --send hi 2>/dev/null)"
expect "postgresql.service listener served 1" "accepted 1" "$(bg_result pg)"
expect "postgresql.service: DROP not hit" 0 "$(counter iptables-legacy INPUT pg-drop)"
bg_listen evil --cgroup system.slice/evil.service listen tcp 127.0.0.1 5432 --count 1 --timeout 1500
expect "evil.service on 5432: the client times out" timeout \
	"$(cg2net connect tcp 127.0.0.1 5432 --timeout 700 2>/dev/null)"
expect "evil.service listener accepted nothing" "accepted 0" "$(bg_result evil)"
expect "evil.service: the one SYN dropped" 1 "$(counter iptables-legacy INPUT pg-drop)"
finish
