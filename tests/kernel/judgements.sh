#!/usr/bin/env bash
# The verdict cache serves every cgroup, the root one (serial number 0)
# included, whatever its verdict: with one rule at a time (--path, where
# the root's verdict is "no", then ! --path, where it is "yes"), 5
# datagrams from the root cgroup and 5 from other.service cost exactly one
# judgement each (cache misses, counted per CPU and summed in
# /sys/module/xt_cgroup2/parameters/judgements), and a second round none;
# the verdicts stay exact.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

J=/sys/module/xt_cgroup2/parameters/judgements
[[ -r $J ]] || { fail "no $J"; finish; }
expect_grep "$J is read-only" '^-r--r--r--' "$(ls -l "$J")"
mkcg srv.service other.service
udp_sink 127.0.0.1 9960

# judged CGROUP: send 5 datagrams from CGROUP; print the judgements it cost.
judged() {
	local before
	before=$(cat "$J")
	sends "$1" 127.0.0.1 9960 5
	echo $(($(cat "$J") - before))
}
for inv in "" "!"; do
	iptables-legacy -w -F OUTPUT
	iptables-legacy -w -A OUTPUT -p udp -d 127.0.0.1 --dport 9960 -m cgroup2 $inv --path srv.service \
		-m comment --comment rule || fail "the rule $inv --path srv.service"
	for round in 1 2; do
		want=$((round == 1))
		tag="$inv--path srv.service, round $round"
		expect "$tag: 5 datagrams from the root cgroup, $want judgement(s)" $want "$(judged /)"
		expect "$tag: 5 datagrams from other.service, $want judgement(s)" $want \
			"$(judged other.service)"
		expect "$tag: counted" $([[ $inv ]] && echo $((round * 10)) || echo 0) \
			"$(counter iptables-legacy OUTPUT rule)"
	done
done
finish
