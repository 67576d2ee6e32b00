#!/usr/bin/env bash
# Verdict caches of tenants (kmod/xt_cgroup2_cache.c): cache_limit bounds
# each network namespace other than the initial one on its own.  With the
# limit at 8 KiB, tenant ta's cache grows from 1 KiB to 4 KiB and no
# further (4 + 16 > 8), tenant tb's still grows to 4 KiB, and the host's to
# its bound, 128 KiB.  The tenants' refused growths are tried again, with
# no more traffic, once the limit is raised.  tb's rule is made by a task in the
# memory cgroup "owner", which pays for tb's tables, growth included.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

B=/sys/module/xt_cgroup2/parameters/cache_bytes
L=/sys/module/xt_cgroup2/parameters/cache_limit
[[ -r $B && -w $L ]] || { fail "no $B or writable $L"; finish; }
N=1000
P=9960
DST=10.99.6.2

# sink NS: a dummy device for datagrams that go nowhere, in netns NS ("" =
# here), and a rule there that judges every datagram to it.
sink() {
	local pre=()
	[[ -n $1 ]] && pre=(in_ns "$1")
	"${pre[@]}" ip link add cg2ten type dummy &&
		"${pre[@]}" ip addr add 10.99.6.1/24 dev cg2ten &&
		"${pre[@]}" ip link set cg2ten up || fail "dummy device in ${1:-host}"
}
rule() {
	local pre=()
	[[ -n $1 ]] && pre=(in_ns "$1")
	"${pre[@]}" iptables-legacy -w -A OUTPUT -p udp -d $DST --dport $P \
		-m cgroup2 --path 'ten/m*' -m comment --comment ten ||
		fail "rule in ${1:-host}"
}
mkdir "$CG/ten" && (cd "$CG/ten" && mkdir $(seq -f 'm%.0f' 1 $N) $(seq -f 'n%.0f' 1 $N)) ||
	{ fail "mkdir ten/*"; finish; }
# spray NS: a datagram from each of the 2,000 cgroups, twice, from netns NS.
spray() {
	local out pre=()
	[[ -n $1 ]] && pre=(in_ns "$1")
	out=$(paste -d '\n' <(seq -f "$CG/ten/m%.0f" 1 $N) <(seq -f "$CG/ten/n%.0f" 1 $N) |
		CGSPRAY_BEFORE="sleep 1" "${pre[@]}" cgspray $DST $P $((2 * N)) 2) ||
		fail "cgspray in ${1:-host}: $out"
	sleep 1 # tables grow in a work item, old ones go after a grace period
}
# wait_bytes WANT: poll cache_bytes for up to 30 s until it is WANT.
wait_bytes() {
	local i
	for ((i = 0; i < 30; i++)); do
		[[ $(cat "$B") == "$1" ]] && break
		sleep 1
	done
	cat "$B"
}

echo 8192 >"$L" || fail "cache_limit 8 KiB"
netns_add ta tb
sink ta
rule ta
spray ta
expect "ta: grew to 4 KiB, then the limit refused 16 KiB" 4096 "$(cat "$B")"

# tb: its rule made from the memory cgroup "owner".
memcg=
if grep -qw memory "$CG/cgroup.controllers" &&
	echo +memory >"$CG/cgroup.subtree_control" && mkdir "$CG/owner"; then
	memcg=$CG/owner
else
	skip "memory cgroup charges" "no memory controller"
fi
slab() { sed -n 's/^slab_unreclaimable \([0-9]*\)$/\1/p' "$memcg/memory.stat"; }
sink tb
if [[ -n $memcg ]]; then
	bash -c 'echo $$ >"$1/cgroup.procs" && exec nsenter --net=/run/netns/tb \
		iptables-legacy -w -A OUTPUT -p udp -d "$2" --dport "$3" \
		-m cgroup2 --path "ten/m*" -m comment --comment ten' - \
		"$memcg" $DST $P || fail "rule in tb from owner"
else
	rule tb
fi
spray tb
expect "tb: grew to 4 KiB too, whatever ta holds" 8192 "$(cat "$B")"
# Both growths to 16 KiB were refused; with the limit raised they are
# tried again without a packet.  owner's charge is measured on tb's: small
# slab deltas may wait in per-CPU stocks, and memory.stat is flushed every
# 2 s.
[[ -n $memcg ]] && sleep 3 && before=$(slab)
echo 65536 >"$L" || fail "cache_limit 64 KiB"
expect "ta, tb: the refused growths tried again" 32768 "$(wait_bytes 32768)"
if [[ -n $memcg ]]; then
	sleep 3
	after=$(slab)
	# 16 KiB more, 4 KiB freed; unpaid, the freed 4 KiB shows as -4096.
	((after - before >= 8192)) &&
		pass "owner paid for tb's growth in the work item ($before -> $after)" ||
		fail "owner paid for tb's growth in the work item (want >= 8192 more, $before -> $after)"
fi
echo 8192 >"$L" || fail "cache_limit 8 KiB again"

# The host: exempt from cache_limit, it grows to its bound (128 KiB) with
# fresh cgroups, round after round.
sink ""
rule ""
want=$((131072 + 32768))
for ((r = 1; r <= 8; r++)); do
	out=$(seq -f "$CG/ten/f$r-%.0f" 1 $((2 * N)) | cgspray $DST $P fresh) ||
		fail "cgspray fresh, round $r: $out"
	sleep 1
	[[ $(cat "$B") == "$want" ]] && break
done
expect "host: grew to its bound, 128 KiB, past the tenants' limit ($r rounds)" $want "$(cat "$B")"

for ns in ta tb; do in_ns $ns iptables-legacy -w -F OUTPUT; done
iptables-legacy -w -F OUTPUT
expect "no rule: no verdict cache" 0 "$(wait_bytes 0)"
echo $((64 << 20)) >"$L"
finish
