#!/usr/bin/env bash
# Module lifetime: rmmod xt_cgroup2 is refused while a rule uses it (legacy,
# nft, ip6tables), succeeds once the rules are gone; the match autoloads on
# the next rule, and modprobe works again.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach
mkcg svc/web.service
refs() { awk '$1 == "xt_cgroup2" { print $3; f = 1 } END { if (!f) print "unloaded" }' /proc/modules; }

expect "loaded, unused" 0 "$(refs)"
iptables-legacy -w -A OUTPUT -p udp --dport 9141 -m cgroup2 --path svc/web.service \
	-m comment --comment legacy || fail "legacy rule"
expect "one legacy rule: 1 reference" 1 "$(refs)"
expect_fail "rmmod refused with a legacy rule" rmmod xt_cgroup2
iptables-nft -w -A OUTPUT -p udp --dport 9141 -m cgroup2 --path svc/web.service \
	-m comment --comment nft || fail "nft rule"
ip6tables-legacy -w -A OUTPUT -m cgroup2 --path svc/web.service || fail "ip6 rule"
expect "three rules: 3 references" 3 "$(refs)"
iptables-legacy -w -F OUTPUT
expect_fail "rmmod refused with an nft and an ip6 rule" rmmod xt_cgroup2
ip6tables-legacy -w -F OUTPUT
expect_fail "rmmod refused with the nft rule alone" rmmod xt_cgroup2
sends svc/web.service 127.0.0.1 9141 2
expect "nft rule still counts" 2 "$(counter iptables-nft OUTPUT nft 2>/dev/null)"
iptables-nft -w -F OUTPUT
expect "no reference once flushed" 0 "$(refs)"
nft delete table ip filter || fail "nft delete table ip filter"
expect_ok "rmmod after the rules are flushed and the table deleted" rmmod xt_cgroup2
expect "module unloaded" unloaded "$(refs)"

# The next rule loads it again (module alias ipt_cgroup2), and counts.
expect_ok "iptables-legacy -A autoloads the match" iptables-legacy -w -A OUTPUT -p udp --dport 9141 \
	-m cgroup2 --path svc/web.service -m comment --comment again
expect "autoloaded, 1 reference" 1 "$(refs)"
sends svc/web.service 127.0.0.1 9141 3
expect "the reloaded match counts" 3 "$(counter iptables-legacy OUTPUT again)"
iptables-legacy -w -F OUTPUT
expect_ok "rmmod again" rmmod xt_cgroup2
expect_ok "modprobe again" modprobe xt_cgroup2
expect "loaded after modprobe, unused" 0 "$(refs)"
expect_ok "ip6tables-nft -A after modprobe" ip6tables-nft -w -A OUTPUT -m cgroup2 --path 'svc/*'
expect "1 reference again" 1 "$(refs)"
ip6tables-nft -w -F OUTPUT
expect_ok "final rmmod" rmmod xt_cgroup2
finish
