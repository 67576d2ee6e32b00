#!/usr/bin/env bash
# A boot-time ruleset naming cgroups that do not exist yet restores whole
# with iptables-legacy-restore and iptables-nft-restore; a later mkdir makes
# the rules match.  The same ruleset with in-tree -m cgroup --path loads
# nothing at all (ANCHORS).
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach

P=9121
rules() { # MATCH
	cat <<-EOR
	*filter
	:INPUT ACCEPT [0:0]
	:FORWARD ACCEPT [0:0]
	:OUTPUT ACCEPT [0:0]
	-A OUTPUT -p udp -d 127.0.0.1 --dport $P -m comment --comment all
	-A OUTPUT -p udp -d 127.0.0.1 --dport $P $1 --path system.slice/boot.service -m comment --comment boot
	-A OUTPUT -p udp -d 127.0.0.1 --dport $P $1 --path "system.slice/{x,y}.service" -m comment --comment xy
	-A OUTPUT -p udp -d 127.0.0.1 --dport $P $1 --path late.slice -m comment --comment late
	COMMIT
	EOR
}
mkcg system.slice/other.service
rules "-m cgroup" | grep -v '{x,y}' >/tmp/intree.rules
rules "-m cgroup2" >/tmp/ours.rules

out=$(iptables-nft-restore /tmp/intree.rules 2>&1)
expect "in-tree ruleset fails to restore (nft, status 4)" 4 $?
expect_grep "in-tree failure is RULE_APPEND Invalid argument" 'RULE_APPEND failed \(Invalid argument\)' "$out"
expect "in-tree (nft): not even the plain rule loaded" missing "$(counter iptables-nft OUTPUT all 2>/dev/null)"
expect_fail "in-tree ruleset fails to restore (legacy)" iptables-legacy-restore /tmp/intree.rules
expect "in-tree (legacy): not even the plain rule loaded" missing "$(counter iptables-legacy OUTPUT all)"

for b in legacy nft; do
	out=$(iptables-$b-restore /tmp/ours.rules 2>&1)
	expect "ours restores whole ($b)" 0 $?
	expect_grep "ours warns once about the 2 missing literals ($b)" \
		'^cgroup2: warning: no cgroup "system.slice/boot.service" under /sys/fs/cgroup \(nor 1 more\); the rules are accepted' "$out"
	expect "four rules loaded ($b)" 4 "$(iptables-$b-save -t filter 2>/dev/null | grep -c -- "--dport $P")"
done

sends system.slice/other.service 127.0.0.1 $P 2
mkcg system.slice/boot.service system.slice/y.service late.slice/child
sends system.slice/boot.service 127.0.0.1 $P 3
sends system.slice/y.service 127.0.0.1 $P 1
sends late.slice/child 127.0.0.1 $P 4
for b in legacy nft; do
	snap iptables-$b OUTPUT 2>/dev/null
	expect "all 10 datagrams ($b)" 10 "$(snapc all)"
	expect "boot.service matches once created ($b)" 3 "$(snapc boot)"
	expect "{x,y}.service matches y once created ($b)" 1 "$(snapc xy)"
	expect "late.slice matches its child ($b)" 4 "$(snapc late)"
done
finish
