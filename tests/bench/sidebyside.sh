#!/usr/bin/env bash
# Every way to filter by cgroup, side by side in one boot, run in the VM
# by "make bench": the in-tree "-m cgroup --path", ours "-m cgroup2
# --path", nftables "socket cgroupv2 level 1" with the path, nftables
# "socket cgroupv2 level 2 @set" with the set filled by nft-cgroupd, and a
# cgroup-skb BPF egress program on the senders' parent cgroup (what
# systemd's IPAddressDeny= and IPEgressFilterPath= attach; bpf/), each as
# 1, 10, 100 and 1,000 rules that every datagram matches, none ending the
# chain, with UDP sent from 1, 100 and 10,000 cgroups (cgspray: a socket
# in each, taken in turn) to a dummy device.  For each number of cgroups,
# one cgspray sends COUNT datagrams a round, and before each round a hook
# puts one configuration in place (tests/bench/sbs_hook): no rules, then
# every mechanism at every rule count, ROUNDS times over.  A
# configuration's cost per datagram is its round's ns less the ns of the
# no-rules round of the same pass (paired), median over passes.
. "$(dirname "$0")/../lib/vmtest.sh"
. "$(dirname "$0")/lib.sh"
need_module
modprobe xt_cgroup

COUNT=${BENCH_SBS_PACKETS:-10000}
ROUNDS=${BENCH_ROUNDS:-3}
RULES=(1 10 100 1000)
CGROUPS=(1 100 10000)
MECHS=(intree cgroup2 nft_socket nft_set bpf)
DST=10.97.1.2
P=9970
# bpffs refuses names with a dot.
BPF=/sys/fs/bpf/cg2sbs
HOOK=$(dirname "$0")/sbs_hook
ip link add cg2sbs type dummy && ip addr add 10.97.1.1/24 dev cg2sbs &&
	ip link set cg2sbs up || { fail "dummy device"; finish; }
mkdir "$CG/sbs" && (cd "$CG/sbs" && mkdir $(seq -f 'c%.0f' 1 "${CGROUPS[-1]}")) ||
	{ fail "mkdir sbs/c*"; finish; }

# The BPF program, loaded once and attached only for its configurations;
# its rules all "-d $DST --dport $P", as the others'.
bpf_setup() {
	local i a b c d
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf || return 1
	bpftool prog load "$(dirname "$0")/bpf/cgskb_rules.bpf.o" "$BPF" \
		type cgroup/skb pinmaps "${BPF}_maps" || return 1
	IFS=. read -r a b c d <<<"$DST"
	for ((i = 0; i < 1024; i++)); do
		echo "map update pinned ${BPF}_maps/rules key $((i & 255)) $((i >> 8)) 0 0" \
			"value $a $b $c $d $((P >> 8)) $((P & 255)) 0 0"
	done >/tmp/sbs.bpf
	bpftool batch file /tmp/sbs.bpf >/dev/null
}
bpf_setup || { fail "load the cgroup-skb program"; finish; }

# ruleset MECH N: the rules of MECH as a file for iptables-restore or nft
# -f; for bpf, the rule count.
ruleset() {
	local i m
	case $1 in
	bpf) echo "$2" ;;
	nft_*)
		[[ $1 == nft_set ]] && m="level 2 @s" || m='level 1 "sbs"'
		echo "table inet sbs { set s { type cgroupsv2; }"
		echo "chain out { type filter hook output priority 0;"
		for ((i = 0; i < $2; i++)); do
			echo "ip daddr $DST udp dport $P socket cgroupv2 $m counter"
		done
		printf '}\n}\n'
		;;
	*)
		[[ $1 == intree ]] && m="-m cgroup --path sbs" || m="-m cgroup2 --path sbs"
		echo '*filter'
		echo ':OUTPUT ACCEPT [0:0]'
		for ((i = 0; i < $2; i++)); do echo "-A OUTPUT -p udp -d $DST --dport $P $m"; done
		echo COMMIT
		;;
	esac
}
CONFIGS=(none)
for n in "${RULES[@]}"; do
	for mech in "${MECHS[@]}"; do
		CONFIGS+=("$mech:$n")
		ruleset "$mech" "$n" >"/tmp/sbs.$mech:$n"
	done
done
# A first round without rules warms the sockets and caches up, untimed.
{
	echo none
	for ((r = 0; r < ROUNDS; r++)); do printf '%s\n' "${CONFIGS[@]}"; done
} >/tmp/sbs.plan
export SBS_BPF=$BPF SBS_CG=$CG/sbs SBS_PLAN=/tmp/sbs.plan

# hits MECH: what the rules in place counted, all rules together.
hits() {
	case $1 in
	intree | cgroup2)
		iptables-save -c | sed -n 's/^\[\([0-9]*\):.* -m cgroup.*/\1/p' ;;
	nft_*)
		# Not the table: nft prints each element of a cgroupsv2 set as
		# a path, found by walking the whole cgroup tree (10,000 walks
		# of 10,000 cgroups here).
		nft list chain inet sbs out | sed -n 's/.*counter packets \([0-9]*\).*/\1/p' ;;
	bpf)
		bpftool map dump pinned "${BPF}_maps/hits" | sed -n 's/.*"value": \([0-9]*\).*/\1/p' ;;
	esac | awk '{ s += $1 } END { print s + 0 }'
}

# Each mechanism's 10 rules see every datagram from 100 cgroups: 10 hits
# each.
for mech in "${MECHS[@]}"; do
	echo "$mech:10" >/tmp/sbs.one
	out=$(SBS_PLAN=/tmp/sbs.one bash "$HOOK" 1 &&
		seq -f "$CG/sbs/c%.0f" 1 100 | cgspray $DST $P 500 1) ||
		{ fail "send under $mech:10: $out"; continue; }
	expect "$mech: 10 rules counted each of 500 datagrams from 100 cgroups" 5000 "$(hits "$mech")"
done

# One cgspray per number of cgroups; ns[CGROUPS.CONFIG] collects each
# pass's cost over the pass's no-rules round.
declare -A ns pps
for c in "${CGROUPS[@]}"; do
	out=$(seq -f "$CG/sbs/c%.0f" 1 "$c" |
		CGSPRAY_BEFORE="bash $HOOK" cgspray $DST $P "$COUNT" $((1 + ${#CONFIGS[@]} * ROUNDS)) 2>&1) ||
		true
	[[ $out == *median* ]] || { fail "cgspray from $c cgroups: $(tail -n 3 <<<"$out")"; continue; }
	i=0 warm=1
	while read -r _ _ _ _ t _; do
		if ((warm)); then warm=0 && continue; fi
		config=${CONFIGS[i % ${#CONFIGS[@]}]}
		[[ $config == none ]] && base=$t
		ns[$c.$config]+=" $((t - base))"
		pps[$c.$config]+=" $((1000000000 / t))"
		i=$((i + 1))
	done < <(grep '^round ' <<<"$out")
	((i == ${#CONFIGS[@]} * ROUNDS)) || fail "cgspray from $c cgroups: $i rounds, not $((${#CONFIGS[@]} * ROUNDS))"
done
bash "$HOOK" 0

# med_ns KEY, med_pps KEY: the median cost over no rules, the median rate.
# shellcheck disable=SC2086
med_ns() { median ${ns[$1]}; }
# shellcheck disable=SC2086
med_pps() { median ${pps[$1]}; }
echo "CSV sidebyside,cgroups,rules,in-tree pps,cgroup2 pps,nft socket pps,nft set pps,bpf pps,in-tree ns,cgroup2 ns,nft socket ns,nft set ns,bpf ns"
for c in "${CGROUPS[@]}"; do
	none=$(med_pps "$c.none")
	echo "CSV sidebyside,$c,0$(for m in "${MECHS[@]}"; do printf ',%s' "$none"; done)$(for m in "${MECHS[@]}"; do printf ',0'; done)"
	for n in "${RULES[@]}"; do
		printf 'CSV sidebyside,%s,%s' "$c" "$n"
		for m in "${MECHS[@]}"; do printf ',%s' "$(med_pps "$c.$m:$n")"; done
		for m in "${MECHS[@]}"; do printf ',%s' "$(med_ns "$c.$m:$n")"; done
		echo
	done
done
# One table per axis, for the plots: ns per datagram over no rules.
echo "CSV sbs_rules,rules,in-tree -m cgroup,cgroup2,nft socket cgroupv2,nft set (nft-cgroupd),cgroup-skb BPF"
for n in "${RULES[@]}"; do
	echo "CSV sbs_rules,$n$(for m in "${MECHS[@]}"; do printf ',%s' "$(med_ns "1.$m:$n")"; done)"
done
echo "CSV sbs_cgroups,cgroups,in-tree -m cgroup,cgroup2,nft socket cgroupv2,nft set (nft-cgroupd),cgroup-skb BPF"
for c in "${CGROUPS[@]}"; do
	echo "CSV sbs_cgroups,$c$(for m in "${MECHS[@]}"; do printf ',%s' "$(med_ns "$c.$m:100")"; done)"
done
for c in "${CGROUPS[@]}"; do
	for config in "${CONFIGS[@]}"; do
		printf 'BENCH sidebyside %5d cgroups %-15s %7d datagrams/s, %7d ns over no rules (ns:%s)\n' \
			"$c" "$config" "$(med_pps "$c.$config")" "$(med_ns "$c.$config")" "${ns[$c.$config]}"
	done
done
finish
