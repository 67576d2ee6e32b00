#!/usr/bin/env bash
# TIME_WAIT sockets have no cgroup: their packets never match, with or
# without "!", like packets without a socket.  A SYN that reopens a
# connection the server holds in TIME_WAIT (same client port) meets the
# TIME_WAIT socket in INPUT, attached by early demux or found by the
# match's own lookup: it is counted by neither --path srv.service nor
# ! --path nothing, and the connection is made all the same (no DROP
# here).  IPv4 and IPv6, early demux on and off.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

mkcg srv.service
netns_add peer
veth_ns peer 10.9.0.1/24 10.9.0.2/24
ip addr add fd00::1/64 dev veth0 nodad && ip -n peer addr add fd00::2/64 dev eth0 nodad ||
	fail "IPv6 addresses"
for ipt in iptables-legacy ip6tables-legacy; do
	s=(-p tcp --syn --dport 8083)
	$ipt -w -A INPUT "${s[@]}" -m comment --comment syn-all &&
		$ipt -w -A INPUT "${s[@]}" -m cgroup2 --path srv.service -m comment --comment syn-srv &&
		$ipt -w -A INPUT "${s[@]}" -m cgroup2 ! --path nothing -m comment --comment syn-not ||
		fail "$ipt: rules"
done

sport=40000
# stop NAME: end a bg_listen listener and wait for it.
stop() {
	local pid
	pid=$(cat "$BG_DIR/$1.pid")
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}
for d in 1 0; do
	sysctl -qw net.ipv4.ip_early_demux=$d net.ipv4.tcp_early_demux=$d || fail "sysctl"
	for fam in tcp tcp6; do
		ipt=iptables-legacy a=10.9.0.1
		[[ $fam == tcp6 ]] && ipt=ip6tables-legacy a=fd00::1
		tag="early_demux=$d $fam"
		bg_listen tw --cgroup srv.service listen $fam $a 8083 --count 10 --timeout 30000
		# The server closes first, so it holds the connection in TIME_WAIT;
		# unless the client's close crossed its FIN: then try another port.
		for try in 1 2 3 4 5; do
			sport=$((sport + 1))
			out=$(in_ns peer cg2net connect $fam $a 8083 --sport $sport --send hello \
				--timeout 4000 2>/dev/null)
			[[ $out == "connected reply 5" ]] || fail "$tag: connection from port $sport ($out)"
			ss -Htan state time-wait "( sport = :8083 )" | grep -qE ":$sport\b" && break
		done
		expect_grep "$tag: the server holds a connection in TIME_WAIT" ":$sport\b" \
			"$(ss -Htan state time-wait "( sport = :8083 )")"
		$ipt -w -Z INPUT
		expect "$tag: the same client port connects again" "connected reply 5" \
			"$(in_ns peer cg2net connect $fam $a 8083 --sport $sport --send hello --timeout 4000 2>/dev/null)"
		stop tw
		snap $ipt INPUT
		expect "$tag: its SYN arrived" 1 "$(snapc syn-all)"
		expect "$tag: --path srv.service does not count it" 0 "$(snapc syn-srv)"
		expect "$tag: ! --path nothing does not count it" 0 "$(snapc syn-not)"
	done
done
finish
