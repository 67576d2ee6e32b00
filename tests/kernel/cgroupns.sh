#!/usr/bin/env bash
# Cgroup namespaces: a rule inserted from inside "unshare -Cm" (the process
# first moved to /ns1, cgroup2 remounted inside) takes --path relative to
# the namespace root: "app" matches sockets in /ns1/app, never /app outside.
# iptables-save prints the text as given.  In-tree -m cgroup compared per
# ANCHORS (through iptables-nft, which adds rules one by one).
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach
P=9161
mkcg ns1/app/worker ns1/other app

# inside CMD...: run CMD in a new cgroup + mount namespace rooted at /ns1,
# with cgroup2 mounted again at $CG so the namespace's view is the one seen.
inside() {
	bash -c 'echo $$ >"$1/ns1/cgroup.procs" || exit 99
		 shift
		 exec unshare -Cm --propagation private bash -c '\''
			umount -l "$0" && mount -t cgroup2 none "$0" || exit 98
			exec "$@"'\'' "$@"' - "$CG" "$CG" "$@"
}
expect "inside sees /ns1 as its root" "0::/" "$(inside cat /proc/self/cgroup)"
expect_ok "inside sees app in its cgroup2 mount" inside test -d "$CG/app/worker"

d=(-p udp -d 127.0.0.1 --dport $P)
expect_ok "ours from inside: --path app" inside iptables-legacy -w -A OUTPUT "${d[@]}" \
	-m cgroup2 --path app -m comment --comment app
expect_ok "ours from inside: --path /" inside iptables-legacy -w -A OUTPUT "${d[@]}" \
	-m cgroup2 --path / -m comment --comment nsroot
expect_ok "ours from inside: --path /ns1/app accepted" inside iptables-legacy -w -A OUTPUT "${d[@]}" \
	-m cgroup2 --path /ns1/app -m comment --comment abs
expect_ok "ours from inside (nft): --path 'a*'" inside iptables-nft -w -A OUTPUT "${d[@]}" \
	-m cgroup2 --path 'a*' -m comment --comment glob-nft
expect_ok "in-tree from inside (nft): --path app" inside iptables-nft -w -A OUTPUT "${d[@]}" \
	-m cgroup --path app -m comment --comment intree-nft
expect_fail "in-tree from inside (nft): --path /ns1/app refused" inside iptables-nft -w -A OUTPUT \
	"${d[@]}" -m cgroup --path /ns1/app

sends ns1/app 127.0.0.1 $P 1
sends ns1/app/worker 127.0.0.1 $P 2
sends ns1/other 127.0.0.1 $P 4
sends ns1 127.0.0.1 $P 8
sends app 127.0.0.1 $P 16
sends "" 127.0.0.1 $P 32
# A process inside the namespace joining "app" (its view) is in /ns1/app.
expect "send from inside the namespace" "sent 64" \
	"$(inside cg2net --cgroup app send udp 127.0.0.1 $P --count 64 2>/dev/null)"

snap iptables-legacy OUTPUT
expect "app: /ns1/app and below (1+2+64), not /app" 67 "$(snapc app)"
expect "/: all of /ns1 (1+2+4+8+64), nothing outside" 79 "$(snapc nsroot)"
expect "/ns1/app from inside names /ns1/ns1/app: nothing" 0 "$(snapc abs)"
snap iptables-nft OUTPUT 2>/dev/null
expect "nft a*: /ns1/app and below (1+2+64)" 67 "$(snapc glob-nft)"
expect "in-tree app from inside: the same 67" 67 "$(snapc intree-nft)"

expect_grep "iptables-save inside prints the relative text" \
	'-m cgroup2 --path app -m comment --comment app$' "$(inside iptables-legacy-save -t filter)"
expect_grep "iptables-save outside prints the same text" \
	'-m cgroup2 --path app -m comment --comment app$' "$(iptables-legacy-save -t filter)"

# iptables-legacy replaces the whole table: a change from outside checks
# every rule again from the outside namespace (as for in-tree, ANCHORS), so
# the rule's "app" now means /app.
expect_ok "outside: -A of an unrelated rule" iptables-legacy -w -A OUTPUT -p udp --dport 1
sends app 127.0.0.1 $P 128
sends ns1/app 127.0.0.1 $P 256
expect "after an outside change, legacy's app is /app (67+128)" 195 "$(counter iptables-legacy OUTPUT app)"
expect "iptables-nft rules keep their namespace (67+256)" 323 "$(counter iptables-nft OUTPUT glob-nft 2>/dev/null)"
finish
