#!/usr/bin/env bash
# A SYN that reopens a connection the server holds in TIME_WAIT (the same
# client port) goes to the listener (TCP_TW_SYN in tcp_v4_rcv and
# tcp_v6_rcv), and is judged by the listener's cgroup: through an INPUT
# allow-list (ESTABLISHED, then --path srv.service, then DROP), 5 of 5
# reconnects over server TIME_WAIT succeed, each SYN counted by --path
# srv.service.  The SYN meets the TIME_WAIT socket attached by early demux
# or found by the match's own lookup: IPv4 and IPv6, early demux on and
# off.  With no listener the SYN counts as without a socket, as before.
# Each SYN meets 11 cgroup2 rules (one lookup for all of them under
# iptables-legacy, lookup_once.sh): none judges it by another cgroup.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

mkcg srv.service
peer_dual_stack
for ipt in iptables-legacy ip6tables-legacy; do
	d=(-p tcp --dport 8083) s=(-p tcp --syn --dport 8083)
	$ipt -w -A INPUT "${s[@]}" -m comment --comment syn-all &&
		$ipt -w -A INPUT "${s[@]}" -m cgroup2 ! --path nothing -m comment --comment syn-not &&
		$ipt -w -A INPUT "${s[@]}" -m cgroup2 ! --path srv.service \
			-m comment --comment syn-wrong || fail "$ipt: count rules"
	for i in 1 2 3 4 5 6 7 8; do
		$ipt -w -A INPUT "${s[@]}" -m cgroup2 --path "other$i.service" \
			-m comment --comment "syn-other$i" || fail "$ipt: other$i"
	done
	$ipt -w -A INPUT "${d[@]}" -m conntrack --ctstate ESTABLISHED -j ACCEPT &&
		$ipt -w -A INPUT "${s[@]}" -m cgroup2 --path srv.service \
			-m comment --comment syn-srv -j ACCEPT &&
		$ipt -w -A INPUT "${d[@]}" -m cgroup2 --path srv.service -j ACCEPT &&
		$ipt -w -A INPUT "${d[@]}" -m comment --comment drop -j DROP ||
		fail "$ipt: allow-list"
done

sport=40000
# tw_scan: TW=(the client ports of the server's connections in TIME_WAIT):
# state 06, local port 8083 (1F93), in /proc/net/tcp and tcp6.  Builtins,
# not ss and awk: under TCG those cost 4 execs a call (ss loads inet_diag
# through modprobe, twice), 250 ms.  tw_has PORT: PORT is among them.
tw_scan() {
	local f laddr raddr st
	TW=()
	for f in /proc/net/tcp /proc/net/tcp6; do
		while read -r _ laddr raddr st _; do
			[[ $st == 06 && $laddr == *:1F93 ]] && TW+=($((16#${raddr##*:})))
		done <"$f"
	done
}
tw_has() {
	tw_scan
	[[ " ${TW[*]} " == *" $1 "* ]]
}
# conn FAM ADDR PORT MS: connect from client port PORT, print the result.
conn() {
	in_ns peer cg2net connect "$1" "$2" 8083 --sport "$3" --send hello --timeout "$4" 2>/dev/null
}
for d in 1 0; do
	sysctl -qw net.ipv4.ip_early_demux=$d net.ipv4.tcp_early_demux=$d || fail "sysctl"
	for fam in tcp tcp6; do
		ipt=iptables-legacy a=10.9.0.1
		[[ $fam == tcp6 ]] && ipt=ip6tables-legacy a=fd00::1
		tag="early_demux=$d $fam"
		bg_listen tw --cgroup srv.service listen $fam $a 8083 --count 100 --timeout 60000
		# Five client ports whose connection the server holds in TIME_WAIT:
		# it closes first, unless the client's close crossed its FIN (then
		# that port is left out).
		ports=()
		for ((try = 0; try < 15 && ${#ports[@]} < 5; try++)); do
			sport=$((sport + 1))
			out=$(conn $fam $a $sport 4000)
			[[ $out == "connected reply 5" ]] || fail "$tag: first connection from $sport ($out)"
			tw_has $sport && ports+=($sport)
		done
		expect "$tag: 5 client ports meet server TIME_WAIT" 5 "${#ports[@]}"
		$ipt -w -Z INPUT
		ok=0
		for p in "${ports[@]}"; do
			tw_has "$p" || fail "$tag: port $p left TIME_WAIT before its reconnect"
			out=$(conn $fam $a $p 3000)
			[[ $out == "connected reply 5" ]] && ok=$((ok + 1))
		done
		expect "$tag: reconnects over server TIME_WAIT" "5 of 5" "$ok of 5"
		snap $ipt INPUT
		expect "$tag: 5 reconnect SYNs arrived" 5 "$(snapc syn-all)"
		expect "$tag: --path srv.service counts each" 5 "$(snapc syn-srv)"
		expect "$tag: ! --path nothing counts each" 5 "$(snapc syn-not)"
		expect "$tag: none counts as another cgroup's" "0 0" \
			"$(snapc syn-wrong) $(snapc syn-other8)"
		expect "$tag: nothing dropped" 0 "$(snapc drop)"

		# No listener: the SYN has no socket, and is dropped.
		bg_stop tw
		tw_scan
		p=${TW[0]:-}
		$ipt -w -Z INPUT
		if [[ -n $p ]]; then
			expect "$tag: no listener: no connection" timeout "$(conn $fam $a $p 1500)"
			snap $ipt INPUT
			expect_ok "$tag: no listener: its SYN arrived" test "$(snapc syn-all)" -ge 1
			expect "$tag: no listener: --path srv.service does not count it" 0 "$(snapc syn-srv)"
			expect "$tag: no listener: ! --path nothing does not count it" 0 "$(snapc syn-not)"
		else
			fail "$tag: no connection left in TIME_WAIT"
		fi
	done
done
finish
