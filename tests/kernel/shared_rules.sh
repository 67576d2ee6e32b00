#!/usr/bin/env bash
# Rules whose verdicts are the same for every socket share one compiled
# rule and its cached verdicts (kmod/xt_cgroup2_share.c): the same patterns
# under other ports cost one judgement per cgroup and one compiled rule
# (the module's "rules"), and a
# ruleset loaded again (iptables-restore, legacy and nft) keeps its cached
# verdicts.  What changes a verdict keeps rules apart: inversion, the
# network namespace, the inserter's cgroup namespace, and IPv6 INPUT's
# defragmentation.  Deleting one of two sharing rules leaves the other
# working; deleting the last frees it, and the last rule of a netns frees
# the verdict cache of the netns (cache_bytes).
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach

J=/sys/module/xt_cgroup2/parameters/judgements
B=/sys/module/xt_cgroup2/parameters/cache_bytes
R=/sys/module/xt_cgroup2/parameters/rules
[[ -r $J && -r $B && -r $R ]] || { fail "no $J, $B or $R"; finish; }
mkcg srv.service other.service ns1/app app
P=9170

# judged CGROUP COUNT [PORT]: send COUNT datagrams from CGROUP; print the
# judgements they cost.
judged() {
	local before=$(cat "$J")
	sends "$1" 127.0.0.1 "${3:-$P}" "$2"
	echo $(($(cat "$J") - before))
}
compiled() { cat "$R"; }
# compiled_now N: the compiled rules once they are N (nf_tables frees rules
# in a work item), or after 5 s whatever they are.
compiled_now() {
	local i
	for ((i = 0; i < 50; i++)); do
		[[ $(compiled) == "$1" ]] && break
		sleep 0.1
	done
	compiled
}
# none TAG: no compiled rule left, and no verdict cache.
none() {
	expect "$1: no compiled rule" 0 "$(compiled_now 0)"
	expect "$1: no verdict cache" 0 "$(cat "$B")"
}
r=(-p udp -d 127.0.0.1)

none "no rule"
iptables-legacy -w -A OUTPUT "${r[@]}" --dport $P -m cgroup2 --path srv.service \
	-m comment --comment a &&
	iptables-legacy -w -A OUTPUT "${r[@]}" -m cgroup2 --path srv.service \
		-m comment --comment b || fail "two rules with the same pattern"
expect "the same pattern twice: one compiled rule" 1 "$(compiled)"
expect "5 datagrams through both: one judgement" 1 "$(judged srv.service 5)"
snap iptables-legacy OUTPUT
expect "rule a counted 5" 5 "$(snapc a)"
expect "rule b counted 5" 5 "$(snapc b)"
expect "to another port: no judgement, rule b only" 0 "$(judged srv.service 3 $((P + 1)))"
expect "rule b counted 8" 8 "$(counter iptables-legacy OUTPUT b)"

iptables-legacy -w -A OUTPUT "${r[@]}" --dport $P -m cgroup2 ! --path srv.service \
	-m comment --comment not || fail "the inverted rule"
expect "inverted: a compiled rule of its own" 2 "$(compiled)"
expect "two compiled rules, one netns: one verdict cache" 1024 "$(cat "$B")"
expect "from other.service: one judgement per compiled rule" 2 "$(judged other.service 2)"
snap iptables-legacy OUTPUT
expect "rule a: other.service not counted" 5 "$(snapc a)"
expect "inverted: other.service counted" 2 "$(snapc not)"

expect "the inverted rule's first srv.service datagram: judged" 1 "$(judged srv.service 1)"

# iptables-restore checks the new rules before it drops the old ones.
iptables-legacy-save -c -t filter >/tmp/filter.rules &&
	iptables-legacy-restore -c </tmp/filter.rules || fail "legacy: save, restore"
expect "legacy restore: still two compiled rules" 2 "$(compiled)"
expect "legacy restore: cached verdicts kept" 0 "$(judged srv.service 1)"
expect "legacy restore: counted on" 7 "$(counter iptables-legacy OUTPUT a)"

# A pattern of its own, so that no legacy rule keeps it alive.
iptables-nft -w -A OUTPUT "${r[@]}" --dport $P -m cgroup2 --path 'srv.*' \
	-m comment --comment nft || fail "nft: srv.*"
expect "iptables-nft: a compiled rule of its own" 3 "$(compiled)"
expect "nft: judged once" 1 "$(judged srv.service 1)"
iptables-nft-save -t filter >/tmp/nft.rules && iptables-nft-restore </tmp/nft.rules ||
	fail "nft: save, restore"
expect "nft restore: still three compiled rules" 3 "$(compiled)"
expect "nft restore: cached verdicts kept" 0 "$(judged srv.service 1)"
expect "nft restore: counted" 1 "$(counter iptables-nft OUTPUT nft)"
iptables-nft -w -F OUTPUT
expect "nft flushed: its compiled rule freed" 2 "$(compiled_now 2)"

iptables-legacy -w -D OUTPUT "${r[@]}" --dport $P -m cgroup2 --path srv.service \
	-m comment --comment a || fail "delete rule a"
expect "rule a deleted: rule b goes on, cached" 0 "$(judged srv.service 1)"
expect "rule a deleted: rule b counted" 13 "$(counter iptables-legacy OUTPUT b)"
iptables-legacy -w -F OUTPUT
none "flushed"

# Network namespaces: the same rule in each has its own compiled rule.
netns_add peer
in_ns peer iptables-legacy -w -A OUTPUT "${r[@]}" -m cgroup2 --path srv.service \
	-m comment --comment peer &&
	iptables-legacy -w -A OUTPUT "${r[@]}" -m cgroup2 --path srv.service \
		-m comment --comment host || fail "the same rule here and in peer"
expect "two netns: two compiled rules" 2 "$(compiled)"
expect "two netns: a verdict cache each" 2048 "$(cat "$B")"
expect "host: judged" 1 "$(judged srv.service 1)"
in_ns peer iptables-legacy -w -t raw -A OUTPUT -p icmp -j DROP
before=$(cat "$J")
out=$(in_ns peer cg2net --cgroup srv.service send udp 127.0.0.1 $P --count 1 2>&1)
expect "peer: sent" "sent 1" "$out"
expect "peer: judged by its own rule" 1 $(($(cat "$J") - before))
expect "peer: counted there" 1 "$(in_ns peer iptables-legacy -w -L OUTPUT -v -x -n |
	awk '/peer/ { print $1 }')"
iptables-legacy -w -F OUTPUT
in_ns peer iptables-legacy -w -F OUTPUT
none "both flushed"

# Cgroup namespaces: "app" from inside /ns1 is /ns1/app, from here /app.
# (iptables-nft: iptables-legacy would check the whole table again, the
# rule from inside included, in the namespace of whoever adds a rule.)
inside() {
	bash -c 'echo $$ >"$1/ns1/cgroup.procs" || exit 99
		 shift
		 exec unshare -C "$@"' - "$CG" "$@"
}
inside iptables-nft -w -A OUTPUT "${r[@]}" -m cgroup2 --path app -m comment --comment inner &&
	iptables-nft -w -A OUTPUT "${r[@]}" -m cgroup2 --path app -m comment --comment outer ||
	fail "--path app from inside ns1 and from here"
expect "two cgroup namespaces: two compiled rules" 2 "$(compiled)"
sends app 127.0.0.1 $P 1
sends ns1/app 127.0.0.1 $P 2
sends app 127.0.0.1 $P 4
sends ns1/app 127.0.0.1 $P 8
snap iptables-nft OUTPUT 2>/dev/null
expect "inside's app: /ns1/app only (2+8)" 10 "$(snapc inner)"
expect "here's app: /app only (1+4)" 5 "$(snapc outer)"
iptables-nft -w -F OUTPUT
none "nft flushed"

# IPv6 rules that INPUT may see hold defragmentation; others do not.
ip6tables-legacy -w -A OUTPUT -m cgroup2 --path srv.service -m comment --comment out6 &&
	ip6tables-legacy -w -A INPUT -m cgroup2 --path srv.service -m comment --comment in6 &&
	iptables-legacy -w -A INPUT -m cgroup2 --path srv.service -m comment --comment in4 ||
	fail "IPv6 OUTPUT and INPUT, IPv4 INPUT"
expect "IPv6 INPUT apart from OUTPUT; IPv4 INPUT shares with IPv6 OUTPUT" 2 "$(compiled)"
ip6tables-legacy -w -F INPUT
expect "IPv6 INPUT gone: its compiled rule freed" 1 "$(compiled)"
ip6tables-legacy -w -F OUTPUT
iptables-legacy -w -F INPUT
none "all gone"

# A batch that fails is undone: its rules that shared a live rule leave it
# with its verdicts, and its new ones are freed.  FORWARD is no
# hook of this match.
iptables-legacy -w -A OUTPUT "${r[@]}" --dport $P -m cgroup2 --path srv.service \
	-m comment --comment live || fail "the live rule"
expect "live rule: judged" 1 "$(judged srv.service 1)"
for tool in legacy nft; do
	printf '%s\n' '*filter' \
		"-A OUTPUT -p udp -m cgroup2 --path srv.service" \
		"-A OUTPUT -p udp -m cgroup2 --path never*" \
		"-A FORWARD -m cgroup2 --path srv.service" COMMIT >/tmp/bad.rules
	expect_fail "$tool: a restore with a FORWARD rule fails" iptables-$tool-restore --noflush /tmp/bad.rules
	expect "$tool: undone, the live rule only" 1 "$(compiled_now 1)"
	expect "$tool: undone, the live rule's verdicts kept" 0 "$(judged srv.service 1)"
done
expect "live rule counted 3" 3 "$(counter iptables-legacy OUTPUT live)"

# A rule sharing a live one's patterns still has its whole blob checked.
expect "raw blob, live rule's bytes, garbage after len: refused" "rejected: Invalid argument" \
	"$(xt_cgroup2_raw --patterns srv.service --trailing-garbage 2>&1 | tail -n 1)"
expect "raw blob, live rule's bytes: accepted" accepted "$(xt_cgroup2_raw --patterns srv.service 2>&1 | tail -n 1)"
expect "raw blob in place of the live rule: its compiled rule kept" 1 "$(compiled)"
expect "raw blob: the live rule's verdicts kept" 0 "$(judged srv.service 1)"
iptables-legacy -w -F OUTPUT

# Identical rules checked at once, from both frontends and families: a CPU
# that compiles a rule another one has just shared uses that one.
race() {
	local i
	for ((i = 0; i < 40; i++)); do
		"$@" -w -A OUTPUT -m cgroup2 --path 'race/*' -m comment --comment race &&
			"$@" -w -D OUTPUT -m cgroup2 --path 'race/*' -m comment --comment race ||
			{ echo "$* failed at $i"; return 1; }
	done
}
race iptables-legacy >/tmp/race.1 2>&1 &
p1=$!
race iptables-nft >/tmp/race.2 2>&1 &
p2=$!
race ip6tables-legacy >/tmp/race.3 2>&1
r3=$?
wait $p1 && wait $p2 && ((r3 == 0)) && pass "120 rules added and deleted at once from three frontends" ||
	fail "racing frontends: $(cat /tmp/race.1 /tmp/race.2 /tmp/race.3)"
none "after the race"
finish
