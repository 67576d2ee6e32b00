#!/usr/bin/env bash
# The most expensive rule the state budget admitted for the NFA matcher
# (two patterns of 256 matcher states, every state alive on every byte)
# judges many fresh cgroups with long names exactly, and in bounded time:
# before the compiled matcher, a rule of this size (the issue's
# brace-and-bracket example) took about 3 s of softirq time per new
# cgroup; under the NFA about 1.5 ms per judgement, now one table entry
# per name byte (tests/bench/kbench.sh measures it).
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
# The rule's 517 bytes of patterns need revision 0 (2048 bytes): the
# budgets are the same in both, only revision 0 can reach them.
export XT_CGROUP2_REVISION=0

P=9960
N=${WORST_CGROUPS:-24}
name() { printf "$1%.0s" $(seq 199); printf '%s' "$2"; }
stars() { printf "*$1%.0s" $(seq 127); }
# Any name of 127 bytes or more ending in "b"; any at least as long that
# ends in "c" and holds "a"s.  Both keep all their states alive on "a"s.
W1="**/$(stars '?')b" W2="**/$(stars a)c"
A=$(name a a) B=$(name a b) C=$(name a c)
udp_sink 127.0.0.1 $P
{
	echo '*filter'
	echo "-A OUTPUT -p udp --dport $P -m cgroup2 --path \"$W1\" --path \"$W2\" -m comment --comment worst"
	echo "-A OUTPUT -p udp --dport $P -m comment --comment all"
	echo COMMIT
} >/tmp/worst.rules
expect_ok "the worst rule loads (512 matcher states)" iptables-legacy-restore -w --noflush /tmp/worst.rules
expect_fail "one state more is refused" iptables-legacy -w -A OUTPUT -m cgroup2 \
	--path "$W1" --path "$W2" --path 'x/*'

want=0
t0=${EPOCHREALTIME/./}
for ((i = 0; i < N; i++)); do
	# Every cgroup is new, three levels of 200-byte names; a third of
	# them match through their leaf, a third through their parent.
	case $((i % 3)) in
	0) leaf=$B; mid=$A; want=$((want + 1)) ;;
	1) leaf=$A; mid=$C; want=$((want + 1)) ;;
	2) leaf=$A; mid=$A ;;
	esac
	cg="w$i/$mid/${leaf:0:190}$i${leaf:190}"
	mkcg "$cg"
	out=$(udp_from "$cg" 127.0.0.1 $P)
	[[ $out == "sent 1" ]] || fail "send from fresh cgroup $i ($out)"
done
t1=${EPOCHREALTIME/./}
snap iptables-legacy OUTPUT
expect "all $N datagrams passed OUTPUT" "$N" "$(snapc all)"
expect "the worst rule matched exactly the $want matching cgroups" "$want" "$(snapc worst)"
echo "INFO $N fresh cgroups under the worst rule: $(((t1 - t0) / 1000)) ms"
finish
