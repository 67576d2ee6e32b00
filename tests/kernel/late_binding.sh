#!/usr/bin/env bash
# Late binding: a rule naming a cgroup that does not exist yet is accepted
# by iptables-legacy and iptables-nft (the in-tree match refuses it), counts
# nothing while the cgroup is missing and counts exactly once it exists.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach

P=9101
rule=(-p udp -d 127.0.0.1 --dport $P -m cgroup2 --path svc/late.service)
mkcg svc/other.service

out=$(iptables-legacy -w -A OUTPUT "${rule[@]}" -m comment --comment legacy 2>&1)
expect "iptables-legacy accepts a rule for a missing cgroup" 0 $?
expect_grep "iptables-legacy warns that svc/late.service does not exist" \
	'^cgroup2: warning: no cgroup "svc/late.service" under .*will match once the cgroup exists' "$out"
out=$(iptables-nft -w -A OUTPUT "${rule[@]}" -m comment --comment nft 2>&1)
expect "iptables-nft accepts a rule for a missing cgroup" 0 $?
expect_grep "iptables-nft warns that svc/late.service does not exist" \
	'^cgroup2: warning: no cgroup "svc/late.service"' "$out"
# A glob names no particular cgroup: no warning.
out=$(iptables-legacy -w -A OUTPUT -p udp --dport $P -m cgroup2 --path 'svc/late.*' \
	-m comment --comment glob 2>&1)
expect "iptables-legacy accepts a glob matching nothing yet" 0 $?
expect "no warning for a glob" "" "$out"

# The in-tree match cannot do this (ANCHORS).
dmesg_clear
expect_fail "in-tree -m cgroup --path refuses a missing cgroup" \
	iptables-legacy -w -A OUTPUT -m cgroup --path svc/late.service
expect_grep "in-tree refusal is errno -2 in dmesg" 'xt_cgroup: invalid path, errno=-2' "$(dmesg_new)"

# Before the cgroup exists: traffic from its parent, a sibling, the root.
sends svc 127.0.0.1 $P 1
sends svc/other.service 127.0.0.1 $P 2
sends "" 127.0.0.1 $P 1
expect "legacy rule counts 0 before mkdir" 0 "$(counter iptables-legacy OUTPUT legacy)"
expect "nft rule counts 0 before mkdir" 0 "$(counter iptables-nft OUTPUT nft)"
expect "glob rule counts 0 before mkdir" 0 "$(counter iptables-legacy OUTPUT glob)"

mkcg svc/late.service/worker
sends svc/late.service 127.0.0.1 $P 3
sends svc/late.service/worker 127.0.0.1 $P 2
sends svc/other.service 127.0.0.1 $P 1
expect "legacy rule counts exactly the 5 datagrams after mkdir" 5 "$(counter iptables-legacy OUTPUT legacy)"
expect "nft rule counts exactly the 5 datagrams after mkdir" 5 "$(counter iptables-nft OUTPUT nft)"
expect "glob rule counts exactly the 5 datagrams after mkdir" 5 "$(counter iptables-legacy OUTPUT glob)"

# A cgroup judged once as "no match" (svc/other.service, cached) stays so,
# and a second new cgroup matching the glob is picked up on first sight.
mkcg svc/late.timer
sends svc/late.timer 127.0.0.1 $P 4
expect "literal rule ignores svc/late.timer" 5 "$(counter iptables-legacy OUTPUT legacy)"
expect "glob rule picks up svc/late.timer at once" 9 "$(counter iptables-legacy OUTPUT glob)"
finish
