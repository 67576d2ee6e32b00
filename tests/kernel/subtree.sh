#!/usr/bin/env bash
# Subtree semantics: the named cgroup and all its descendants match; its
# parent, a sibling and a sibling whose name merely starts with the same
# text (web.service2) do not.  One leading or trailing "/" changes nothing;
# "/" names the root and matches every socket.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach

P=9301
mkcg svc/web.service/worker/deep svc/web.service2 svc/web svc/other.service
f=$(mktemp)
{
	echo '*filter'
	for r in "web svc/web.service" "slashes /svc/web.service/" "parent svc" \
		 "root /" "web2 svc/web.service2" "deep svc/web.service/worker/deep"; do
		set -- $r
		echo "-A OUTPUT -p udp -d 127.0.0.1 --dport $P -m cgroup2 --path $2 -m comment --comment $1"
	done
	echo COMMIT
} >"$f"
expect_ok "restore the subtree rules" iptables-legacy-restore -w --noflush "$f"

sends svc/web.service 127.0.0.1 $P 1
sends svc/web.service/worker 127.0.0.1 $P 2
sends svc/web.service/worker/deep 127.0.0.1 $P 3
sends svc 127.0.0.1 $P 4
sends svc/web.service2 127.0.0.1 $P 5
sends svc/web 127.0.0.1 $P 6
sends svc/other.service 127.0.0.1 $P 7
sends "" 127.0.0.1 $P 8

snap iptables-legacy OUTPUT
expect "svc/web.service: itself and its 2 descendants (1+2+3)" 6 "$(snapc web)"
expect "/svc/web.service/ is svc/web.service" 6 "$(snapc slashes)"
expect "svc: every cgroup below it (1+2+3+4+5+6+7)" 28 "$(snapc parent)"
expect "/: every socket, root cgroup included" 36 "$(snapc root)"
expect "svc/web.service2: only itself, not web.service" 5 "$(snapc web2)"
expect "deepest leaf: only itself, not its ancestors" 3 "$(snapc deep)"
finish
