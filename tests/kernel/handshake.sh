#!/usr/bin/env bash
# TCP handshakes through cgroup2 allow-lists, IPv4 and IPv6, with
# syncookies always (2) and never (0), early demux on and off, both CPUs in
# use.  Serving: the SYN-ACK (OUTPUT) carries a request socket, or none at
# all with syncookies; the client's ACK and first data (INPUT) meet the
# request socket (attached by early demux, or found by the match's own
# lookup with early demux off), or with syncookies no socket, and the
# lookup finds the listener.  All are judged by the listener's cgroup, so
# 20 of 20 connections complete.  Connecting out: the client's own full
# socket.  Listeners and clients in other.service stay refused either way.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

mkcg srv.service other.service
peer_dual_stack
N=20

# Here: serving on 8080-8099, only srv.service; connecting out to
# 8120-8139, only srv.service; serving on 8100-8119 with an INPUT
# allow-list alone (so that the client's ACK and data reach INPUT even
# where the SYN-ACK would not pass OUTPUT).  Each round has ports of its
# own: a client port that meets a server-side TIME_WAIT connection of an
# earlier round is not judged by the listener (see timewait.sh).
for ipt in iptables-legacy ip6tables-legacy; do
	for r in "INPUT --dport 8080:8099" "OUTPUT --sport 8080:8099" "OUTPUT --dport 8120:8139" \
		"INPUT --sport 8120:8139" "INPUT --dport 8100:8119"; do
		set -- $r
		$ipt -w -A $1 -p tcp $2 $3 -m cgroup2 --path srv.service -j ACCEPT &&
			$ipt -w -A $1 -p tcp $2 $3 -m comment --comment "drop-$1-$3" -j DROP ||
			fail "$ipt: allow-list $r"
	done
done

# The 20-client rounds (clients, vmtest.sh) wait 20 s: under TCG a SYN
# lost to a full SYN or accept queue is retried only after 1 and 3 s more,
# and a rule that drops a kind of packet drops its retries too.

# drops: what the DROP rules caught so far, for failure messages.
drops() {
	local ipt
	for ipt in iptables-legacy ip6tables-legacy; do
		$ipt -w -L -v -x -n | awk -v t=${ipt%%-*} '/drop-/ { printf "%s %s=%s ", t, $(NF-1), $1 }'
	done
}

# syncookies_sent: SYN-ACKs with a cookie sent from this netns so far.
syncookies_sent() {
	awk '$1 == "TcpExt:" { if (!n) { for (i = 2; i <= NF; i++) f[$i] = i; n = 1 }
			       else print $f["SyncookiesSent"] }' /proc/net/netstat
}

# round COOKIES DEMUX FAMILY ADDR PEERADDR: round number $rounds.
rounds=0
round() {
	local c=$1 d=$2 fam=$3 addr=$4 paddr=$5 tag="syncookies=$1 early_demux=$2 $3" got
	local srv=$((8080 + rounds)) inp=$((8100 + rounds)) out=$((8120 + rounds))
	rounds=$((rounds + 1))
	sysctl -qw net.ipv4.tcp_syncookies=$c net.ipv4.ip_early_demux=$d \
		net.ipv4.tcp_early_demux=$d || fail "$tag: sysctl"
	in_ns peer sysctl -qw net.ipv4.tcp_syncookies=$c || fail "$tag: peer sysctl"

	cookies=$(syncookies_sent)
	bg_listen srv --cgroup srv.service listen $fam $addr $srv --count $N --timeout 30000
	got=$(clients $N 20000 in_ns peer cg2net connect $fam $addr $srv)
	expect "$tag: $N clients reach the srv.service listener" "$N" "$got"
	if ((c == 2)); then
		cookies=$(($(syncookies_sent) - cookies))
		((cookies >= N)) && pass "$tag: the SYN-ACKs carried cookies ($cookies)" ||
			fail "$tag: the SYN-ACKs carried cookies (only $cookies)"
	fi
	[[ $got == "$N" ]] || echo "  drops: $(drops)"
	bg_stop srv

	bg_listen in --cgroup srv.service listen $fam $addr $inp --count $N --timeout 30000
	got=$(clients $N 20000 in_ns peer cg2net connect $fam $addr $inp)
	expect "$tag: INPUT allow-list alone: $N clients reach srv.service" "$N" "$got"
	[[ $got == "$N" ]] || echo "  drops: $(drops)"
	bg_stop in

	bg_listen out nsenter --net=/run/netns/peer -- listen $fam $paddr $out --count $N --timeout 30000
	got=$(clients $N 20000 cg2net --cgroup srv.service connect $fam $paddr $out)
	expect "$tag: srv.service connects out $N times" "$N" "$got"
	[[ $got == "$N" ]] || echo "  drops: $(drops)"
	bg_stop out

	bg_listen other --cgroup other.service listen $fam $addr $srv --count 3 --timeout 30000
	expect "$tag: other.service's listener stays unreachable" 0 \
		"$(clients 3 1500 in_ns peer cg2net connect $fam $addr $srv)"
	bg_stop other
	bg_listen out nsenter --net=/run/netns/peer -- listen $fam $paddr $out --count 3 --timeout 30000
	expect "$tag: other.service cannot connect out" 0 \
		"$(clients 3 1500 cg2net --cgroup other.service connect $fam $paddr $out)"
	bg_stop out
}

for c in 0 2; do
	for d in 1 0; do
		round $c $d tcp 10.9.0.1 10.9.0.2
		round $c $d tcp6 fd00::1 fd00::2
	done
done
finish
