#!/usr/bin/env bash
# iptables-legacy replaces a whole table on every change and re-checks every
# rule.  Ours keeps no reference to cgroups: after a cgroup named by a rule
# is removed, -A/-D of unrelated rules still work.  In-tree -m cgroup --path
# then fails every change with Invalid argument until its rule goes (ANCHORS).
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach

P=9111
mkcg svc/a.service svc/b.service
expect_ok "insert ours naming svc/b.service" iptables-legacy -w -A OUTPUT -p udp --dport $P \
	-m cgroup2 --path svc/b.service -m comment --comment ours
rmdir "$CG/svc/b.service" || fail "rmdir svc/b.service"
expect_ok "ours: -A of an unrelated rule after rmdir" iptables-legacy -w -A OUTPUT -p udp --dport 1 -j ACCEPT
expect_ok "ours: -A in another chain after rmdir" iptables-legacy -w -A INPUT -p udp --dport 2 -j ACCEPT
expect_ok "ours: -D of an unrelated rule after rmdir" iptables-legacy -w -D OUTPUT -p udp --dport 1 -j ACCEPT
expect_ok "ours: -I of a second cgroup2 rule after rmdir" iptables-legacy -w -I OUTPUT -p udp --dport $P \
	-m cgroup2 --path svc/b.service -m comment --comment ours2
mkcg svc/b.service
sends svc/b.service 127.0.0.1 $P 2
expect "ours still counts after the table changed" 2 "$(counter iptables-legacy OUTPUT ours)"
expect "the rule added meanwhile counts too" 2 "$(counter iptables-legacy OUTPUT ours2)"

# The same with the in-tree match.
expect_ok "insert in-tree naming svc/a.service" iptables-legacy -w -A OUTPUT -p udp --dport $P \
	-m cgroup --path svc/a.service -m comment --comment intree
rmdir "$CG/svc/a.service" || fail "rmdir svc/a.service"
dmesg_clear
out=$(iptables-legacy -w -A OUTPUT -p udp --dport 3 -j ACCEPT 2>&1)
expect "in-tree: -A of an unrelated rule fails" 1 $?
expect_grep "in-tree: the error is Invalid argument" 'Invalid argument' "$out"
expect_grep "in-tree: dmesg says invalid path" 'xt_cgroup: invalid path, errno=-2' "$(dmesg_new)"
expect_fail "in-tree: -A with our match fails the same" iptables-legacy -w -A OUTPUT \
	-m cgroup2 --path x
expect_ok "in-tree: deleting the stale rule works" iptables-legacy -w -D OUTPUT -p udp --dport $P \
	-m cgroup --path svc/a.service -m comment --comment intree
expect_ok "in-tree: after that -A works again" iptables-legacy -w -A OUTPUT -p udp --dport 3 -j ACCEPT
sends svc/b.service 127.0.0.1 $P 1
expect "ours counted through all of it" 3 "$(counter iptables-legacy OUTPUT ours)"
finish
