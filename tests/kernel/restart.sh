#!/usr/bin/env bash
# Restart survival: rmdir + mkdir of the same path (a service restart) and
# the rule matches the new cgroup, its counter goes on; the in-tree
# -m cgroup --path keeps the dead cgroup and its counter freezes (ANCHORS).
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach

P=9201
SVC=system.slice/db.service
mkcg $SVC
base=(-p udp -d 127.0.0.1 --dport $P)
expect_ok "insert ours (legacy)" iptables-legacy -w -A OUTPUT "${base[@]}" -m cgroup2 --path $SVC \
	-m comment --comment ours
expect_ok "insert ours (nft)" iptables-nft -w -A OUTPUT "${base[@]}" -m cgroup2 --path $SVC \
	-m comment --comment ours-nft
expect_ok "insert in-tree (legacy)" iptables-legacy -w -A OUTPUT "${base[@]}" -m cgroup --path $SVC \
	-m comment --comment intree
expect_ok "insert in-tree (nft)" iptables-nft -w -A OUTPUT "${base[@]}" -m cgroup --path $SVC \
	-m comment --comment intree-nft

# restart: the service's processes are gone, its cgroup is removed and made anew
restart() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rmdir "$CG/$SVC" 2>/dev/null && break
		sleep 0.1
	done
	[[ -d $CG/$SVC ]] && fail "rmdir $SVC (restart $1)"
	mkcg $SVC
}

check() {
	snap iptables-legacy OUTPUT
	expect "ours (legacy) $1" "$2" "$(snapc ours)"
	expect "in-tree (legacy) $1" "$3" "$(snapc intree)"
	snap iptables-nft OUTPUT
	expect "ours (nft) $1" "$2" "$(snapc ours-nft)"
	expect "in-tree (nft) $1" "$3" "$(snapc intree-nft)"
}

sends $SVC 127.0.0.1 $P 2
check "before any restart" 2 2
id1=$(stat -c %i "$CG/$SVC")
restart 1
id2=$(stat -c %i "$CG/$SVC")
[[ $id1 != "$id2" ]] && pass "restart gives a new cgroup id" ||
	fail "restart gives a new cgroup id (both $id1)"
sends $SVC 127.0.0.1 $P 3
check "after the first restart" 5 2
restart 2
sends $SVC 127.0.0.1 $P 1
sends system.slice 127.0.0.1 $P 1
check "after the second restart" 6 2

# While the cgroup is missing (service stopped), nothing counts, and it
# counts again when started.
rmdir "$CG/$SVC" || fail "rmdir $SVC (stop)"
sends system.slice 127.0.0.1 $P 2
check "while stopped" 6 2
mkcg $SVC
sends $SVC 127.0.0.1 $P 4
check "after start" 10 2
finish
