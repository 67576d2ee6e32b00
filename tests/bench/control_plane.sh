#!/usr/bin/env bash
# Control plane: time and kernel memory to load 1,000 rules with
# iptables-restore, legacy and nft, in-tree -m cgroup against -m cgroup2
# (literal paths; revision 1, what iptables picks, and revision 0, the
# 2 KiB one, as cgroup2_r0), run in the VM by "make bench".  Memory is the growth of
# Slab + VmallocUsed + Percpu (/proc/meminfo) after the load, with the
# rules still in place; each kind and tool takes turns over ROUNDS rounds
# and reports medians.
. "$(dirname "$0")/../lib/vmtest.sh"
. "$(dirname "$0")/lib.sh"
need_module
modprobe xt_cgroup

R=${BENCH_CP_RULES:-1000}
ROUNDS=${BENCH_ROUNDS:-3}
mkdir -p "$CG/cp.slice" || { fail "mkdir cp.slice"; finish; }
for ((i = 0; i < 10; i++)); do mkcg "cp.slice/svc$i.service"; done

# rules KIND: an iptables-restore file with R rules of KIND in OUTPUT
# (in-tree -m cgroup needs its cgroups to exist; ten take turns).
rules() {
	local i m
	echo '*filter'
	echo ':OUTPUT ACCEPT [0:0]'
	for ((i = 0; i < R; i++)); do
		case $1 in
		intree) m="-m cgroup --path cp.slice/svc$((i % 10)).service" ;;
		cgroup2*) m="-m cgroup2 --path cp.slice/svc$((i % 10)).service" ;;
		esac
		echo "-A OUTPUT -p udp --dport $((10000 + i)) $m"
	done
	echo COMMIT
}
kmem_kib() {
	awk '/^(Slab|VmallocUsed|Percpu):/ { s += $2 } END { print s }' /proc/meminfo
}
KINDS=(intree cgroup2 cgroup2_r0)
for kind in "${KINDS[@]}"; do rules $kind >/tmp/cp.$kind; done
# revision KIND: the XT_CGROUP2_REVISION that loads KIND's rules.
revision() { [[ $1 == *_r0 ]] && echo 0 || echo 1; }

echo "CSV control_plane,tool,match,rules,load_ms,kernel_kib"
declare -A ms kib
for ((r = 1; r <= ROUNDS; r++)); do
	for tool in legacy nft; do
		for kind in "${KINDS[@]}"; do
			iptables-$tool -F OUTPUT
			sync
			echo 3 >/proc/sys/vm/drop_caches
			before=$(kmem_kib)
			t0=${EPOCHREALTIME/./}
			XT_CGROUP2_REVISION=$(revision $kind) iptables-$tool-restore </tmp/cp.$kind ||
				fail "$tool restore of $R $kind rules"
			t1=${EPOCHREALTIME/./}
			after=$(kmem_kib)
			ms[$tool.$kind]+=" $(((t1 - t0) / 1000))"
			kib[$tool.$kind]+=" $((after - before))"
			iptables-$tool -F OUTPUT
		done
	done
done
for tool in legacy nft; do
	for kind in "${KINDS[@]}"; do
		# shellcheck disable=SC2086
		m=$(median ${ms[$tool.$kind]}) k=$(median ${kib[$tool.$kind]})
		printf 'BENCH control plane, iptables-%-6s %4d %-10s rules: %6d ms, %6d KiB kernel memory (runs ms:%s KiB:%s)\n' \
			"$tool" "$R" "$kind" "$m" "$k" "${ms[$tool.$kind]}" "${kib[$tool.$kind]}"
		echo "CSV control_plane,$tool,$kind,$R,$m,$k"
	done
done
finish
