#!/usr/bin/env bash
# vm-options: --hybrid
# Hybrid hierarchy (cgroup2 at /sys/fs/cgroup/unified, v1 net_cls and
# net_prio in use, a classid set): our match still matches by the v2 path,
# whatever the process's v1 cgroups; in-tree classid and path matches agree.
# Run with: tests/vm/run --hybrid -- bash /tests/kernel/hybrid.sh
. "$(dirname "$0")/../lib/vmtest.sh"
if [[ ${XT_CGROUP2_VM_MODE:-} != hybrid ]]; then
	fail "needs the VM booted with --hybrid (XT_CGROUP2_VM_MODE=${XT_CGROUP2_VM_MODE:-unset})"
	finish
fi
need_module
drop_unreach
P=9171
V1=/sys/fs/cgroup
expect "cgroup2 is at unified/" /sys/fs/cgroup/unified "$CG"
mkcg svc/web.service svc/other.service
mkdir -p $V1/net_cls/web $V1/net_cls/other $V1/net_prio/web || fail "v1 mkdir"
echo 0x100001 >$V1/net_cls/web/net_cls.classid || fail "net_cls classid"
echo 0x100002 >$V1/net_cls/other/net_cls.classid || fail "net_cls classid other"
echo "lo 5" >$V1/net_prio/web/net_prio.ifpriomap || fail "net_prio ifpriomap"

# v1send V1CGROUP V2CGROUP COUNT: send from a process in both.
v1send() {
	local out
	out=$(bash -c 'echo $$ >"$0/net_cls/$1/cgroup.procs" &&
		echo $$ >"$0/net_prio/$1/cgroup.procs" &&
		exec cg2net ${2:+--cgroup "$2"} send udp 127.0.0.1 "$3" --count "$4"' \
		"$V1" "$1" "$2" $P "$3" 2>/dev/null)
	expect "send from net_cls $1 + v2 ${2:-/}" "sent $3" "$out"
}
mkdir -p $V1/net_prio/other
d=(-p udp -d 127.0.0.1 --dport $P)
{
	echo '*filter'
	echo "-A OUTPUT ${d[*]} -m cgroup2 --path svc/web.service -m comment --comment ours"
	echo "-A OUTPUT ${d[*]} -m cgroup2 ! --path svc/web.service -m comment --comment ours-not"
	echo "-A OUTPUT ${d[*]} -m cgroup --path svc/web.service -m comment --comment intree-path"
	echo "-A OUTPUT ${d[*]} -m cgroup --cgroup 0x100001 -m comment --comment intree-classid"
	echo COMMIT
} >/tmp/hybrid.rules
expect_ok "restore (legacy)" iptables-legacy-restore -w --noflush /tmp/hybrid.rules
expect_ok "restore (nft)" iptables-nft-restore -w --noflush /tmp/hybrid.rules

v1send web svc/web.service 2     # classid and v2 path agree
v1send web svc/other.service 4   # classid of web, v2 path of other
v1send other svc/web.service 8   # v2 path of web, other classid
v1send web "" 16                 # classid of web, v2 root
for ipt in iptables-legacy iptables-nft; do
	snap $ipt OUTPUT 2>/dev/null
	expect "$ipt ours: by the v2 path only (2+8)" 10 "$(snapc ours)"
	expect "$ipt ours !: the others (4+16)" 20 "$(snapc ours-not)"
	expect "$ipt in-tree path agrees (2+8)" 10 "$(snapc intree-path)"
	expect "$ipt in-tree classid: by net_cls (2+4+16)" 22 "$(snapc intree-classid)"
done
finish
