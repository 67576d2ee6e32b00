#!/usr/bin/env bash
# The kernel tests' helpers (vmtest.sh) that replace an exec with bash
# builtins, on the host: each must say what the command it replaced says
# (grep -E, grep -cE, awk, tail -n 1, sleep; grep -a: bytes that are not
# UTF-8 are text to the tests).  PASS/FAIL lines; exit 1 on
# a failure.
cd "$(dirname "$0")" || exit 1
# shellcheck source=tests/lib/vmtest.sh
. ./vmtest.sh

# The regexes and texts of the kind the tests give: anchors per line,
# several lines, empty text and lines, brackets, escapes, alternatives,
# bytes that are not UTF-8.
texts=(
	''
	'one line'
	$'nft \'add rule ip filter OUTPUT udp dport 9 socket cgroupv2 level 2 "a/b" counter\'\nnext'
	$'x_tables: ip_tables: cgroup2 match: invalid size 8\nxt_cgroup2: pattern 1: unused pattern bytes are not zero'
	$'\n\nthird line only'
	$'cgroup2 ! path mx/*.service /* inv */\n  12  345 ACCEPT /* lit */'
	$'raw \xe9 byte\nodd dir "q" \'x\' \\ @u!'
	$'log prefix "svc: "\nend log'
)
regexes=(
	'line' '^one' 'line$' '^$' '.' '^nft .* level [0-9]+ ' 'cgroupv2 level 2 "a/b"'
	'xt_cgroup2: |x_tables: ' 'unused pattern bytes are not zero$' '^third'
	'cgroup2 ! path mx/\*\.service /\* inv \*/' ' log( |$)' '\\ @u!' $'\xe9' '[[:digit:]]{3}'
	'(a|b)+c' '^[^x]'
)
for t in "${!texts[@]}"; do
	for re in "${regexes[@]}"; do
		# the regex as shell-quoted text: a raw byte in a PASS line is
		# not for the terminal or the log
		printf -v shown '%q' "$re"
		grep -qE -- "$re" <<<"${texts[t]}" && want=yes || want=no
		lines_match "$re" "${texts[t]}" && got=yes || got=no
		expect "lines_match $shown text $t: as grep -qE" "$want" "$got"
		expect "matching $shown text $t: as grep -E" \
			"$(grep -aE -- "$re" <<<"${texts[t]}")" "$(matching "$re" "${texts[t]}")"
		expect "count_matching $shown text $t: as grep -cE" \
			"$(grep -acE -- "$re" <<<"${texts[t]}")" "$(count_matching "$re" "${texts[t]}")"
	done
done

# snapc against the awk it replaced, on a listing like iptables -L -v -x -n.
SNAP=$'Chain OUTPUT (policy ACCEPT 3 packets, 180 bytes)
    pkts      bytes target     prot opt in     out     source               destination
      12      345 ACCEPT     all  --  *      *       0.0.0.0/0            0.0.0.0/0            cgroup2 path a /* drop-all */
       7      420 DROP       all  --  *      *       0.0.0.0/0            0.0.0.0/0            /* drop */
       0        0            all  --  *      *       0.0.0.0/0            0.0.0.0/0            /* x y */'
for tag in drop-all drop 'x y' nothing 'drop-'; do
	want=$(awk -v tag="/* $tag */" 'index($0, tag) { print $1; found = 1; exit }
				       END { if (!found) print "missing" }' <<<"$SNAP")
	expect "snapc '$tag': as awk" "$want" "$(snapc "$tag")"
done

# sends: the result is cg2net's last line, as tail -n 1 took it.
udp_from() { printf 'cg2net: warning\nsent %s\n' "${4:-1}"; }
before=$_fails
sends "" 127.0.0.1 9 3
expect "sends: a warning line before 'sent 3' is no failure" "$before" "$_fails"
udp_from() { printf 'sent 3\nerror: late\n'; }
sends "" 127.0.0.1 9 3 >/dev/null
expect "sends: a last line other than 'sent 3' is a failure" $((before + 1)) "$_fails"
_fails=$before

# nap: sleeps as long as asked, with no command (the first nap makes its
# FIFO with mkfifo; after that, an empty PATH finds no sleep to run).
nap 0.01
t0=${EPOCHREALTIME/./}
err=$(PATH=/nonexistent nap 0.3 2>&1)
t1=${EPOCHREALTIME/./}
expect "nap 0.3: no command run" "" "$err"
ms=$(((t1 - t0) / 1000))
((ms >= 290 && ms < 2000)) && pass "nap 0.3: took 0.3 s ($ms ms)" ||
	fail "nap 0.3: took 0.3 s (took $ms ms)"
t0=${EPOCHREALTIME/./}
sub=$(PATH=/nonexistent; nap 0.2; echo done)
t1=${EPOCHREALTIME/./}
expect "nap in a subshell: it sleeps too" done "$sub"
ms=$(((t1 - t0) / 1000))
((ms >= 190)) && pass "nap in a subshell: took 0.2 s ($ms ms)" ||
	fail "nap in a subshell: took 0.2 s (took $ms ms)"
finish
