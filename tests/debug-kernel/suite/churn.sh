#!/usr/bin/env bash
# Churn under load, bounded in time (CHURN_SECONDS, default 60), for the
# debug kernel: at once,
#   - cgroups created and removed at depths 1 to 4;
#   - senders in two accounted cgroups (UDP, IPv4 and IPv6) and a mover
#     hopping between cgroups, sending UDP and connecting over TCP to a
#     server that accepts under an INPUT allow-list;
#   - iptables-legacy-restore / ip6tables-legacy-restore and
#     iptables-nft-restore replacing filter rulesets of cgroup2 rules, and
#     native nft tables with socket cgroupv2 rules added and deleted;
#   - cgroup namespaces whose processes add and delete rules;
#   - rmmod xt_cgroup2 attempts, which must all fail while rules exist;
#   - nft-cgroupd, built with ASan and UBSan, keeping a set in sync with
#     the churning cgroups.
# At the end the accounting rules (mangle OUTPUT, never replaced) count
# exactly what the senders of their cgroup sent: no packet counted by the
# wrong rule, none lost; nft-cgroupd's set equals a fresh scan, and it
# exits cleanly without a sanitizer report.  The kernel's checkers (and leakcheck.sh after
# it) do the rest.
. "$(dirname "$0")/../../lib/vmtest.sh"
need_module
DUR=${CHURN_SECONDS:-60}
STATS=$(mktemp -d /tmp/churn.XXXXXX)
END=$((SECONDS + DUR))
running() { ((SECONDS < END)); }
# tally NAME [N]: add N (default 1) to a worker's figure.
tally() { echo "${2:-1}" >>"$STATS/$1"; }
total() { awk '{ s += $1 } END { print s + 0 }' "$STATS/$1" 2>/dev/null || echo 0; }

mkcg churn/acct/x churn/acct/y churn/srv churn/m1 churn/m2/a churn/m3/a/b churn/ns
for ipt in iptables-legacy ip6tables-legacy; do
	for c in x y; do
		"$ipt" -w -t mangle -A OUTPUT -p udp --dport 7001 -m cgroup2 \
			--path "churn/acct/$c" -m comment --comment "acct-$c" || fail "$ipt acct-$c"
	done
done
udp_sink 127.0.0.1 7001
udp_sink ::1 7001
# The server behind an INPUT allow-list (iptables-nft, never replaced):
# established traffic, and new connections to sockets of churn/srv; the
# rest of port 7100 is dropped.
iptables-nft -w -N allow || fail "iptables-nft -N allow"
iptables-nft -w -A allow -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
iptables-nft -w -A allow -m cgroup2 --path churn/srv -j ACCEPT
iptables-nft -w -A allow -j DROP
iptables-nft -w -A INPUT -p tcp --dport 7100 -j allow
cg2net --cgroup churn/srv listen tcp 127.0.0.1 7100 --count 1000000 \
	--timeout $(((DUR + 30) * 1000)) --ready-file "$STATS/srv.ready" >/dev/null 2>&1 &
_bg+=($!)
wait_for_file "$STATS/srv.ready" || fail "the TCP server did not start"

# Workers: each loops until END and tallies what it did.
w_cgroups() {
	local i=0 d
	while running; do
		i=$((i + 1))
		d=churn/tmp/$i
		mkdir -p "$CG/$d/a/b/c" "$CG/$d/x" && tally cgroups 5
		rmdir "$CG/$d/a/b/c" "$CG/$d/a/b" "$CG/$d/a" "$CG/$d/x" "$CG/$d"
	done
}

# w_send CGROUP: UDP to the accounted port from CGROUP, both families.
w_send() {
	local out fam addr
	while running; do
		for fam in 4 6; do
			if [[ $fam == 4 ]]; then addr=127.0.0.1; else addr=::1; fi
			out=$(udp_from "churn/acct/$1" "$addr" 7001 20 2>&1 | tail -n 1)
			if [[ $out == sent\ * ]]; then
				tally "sent-$1-$fam" "${out#sent }"
			else
				tally "senderr-$1" && echo "send from $1: $out" >>"$STATS/errors"
			fi
		done
	done
}

# The mover: hops between cgroups; its packets must not count as x or y.
w_mover() {
	local cgs=(churn/m1 churn/m2/a churn/m3/a/b churn/m1) i=0 out
	while running; do
		echo "$BASHPID" >"$CG/${cgs[i++ % 4]}/cgroup.procs" || continue
		tally moves
		cg2net send udp 127.0.0.1 7001 --count 5 >/dev/null 2>&1 && tally mover-udp 5
		out=$(cg2net connect tcp 127.0.0.1 7100 --send hi --timeout 3000 2>&1 | tail -n 1)
		if [[ $out == "connected reply"* ]]; then
			tally tcp
		else
			tally tcperr && echo "tcp from ${cgs[(i - 1) % 4]}: $out" >>"$STATS/errors"
		fi
	done
}

PATTERNS=(churn/acct/x 'churn/**' 'churn/m*' 'churn/tmp/*/a/**' '/' 'churn/{x,y}' \
	'churn/acct/?' '**/c' 'nothere/*' 'churn/tmp/[0-9]*/x')

# ruleset CMD-PREFIX: a filter table of cgroup2 rules, iptables-restore form.
ruleset() {
	local i
	echo '*filter'
	echo ':OUTPUT ACCEPT [0:0]'
	for ((i = 0; i < 12; i++)); do
		echo "-A OUTPUT -m cgroup2 --path \"${PATTERNS[RANDOM % ${#PATTERNS[@]}]}\" -j ACCEPT"
	done
	echo COMMIT
}

w_rules() {
	local r
	while running; do
		for r in iptables-legacy-restore ip6tables-legacy-restore iptables-nft-restore \
			ip6tables-nft-restore; do
			if ruleset | "$r" -w 2>>"$STATS/errors"; then
				tally rulesets
			else
				tally ruleerr
			fi
		done
		iptables-legacy -w -F OUTPUT && tally flushes
		iptables-nft -w -F OUTPUT && tally flushes
	done
}

w_nft() {
	while running; do
		if nft -f - <<-'EOF'
			table inet churn {
				chain out {
					type filter hook output priority 0;
					socket cgroupv2 level 2 "churn/acct" counter
					udp dport 7001 counter
				}
			}
		EOF
		then tally nft-tables; else tally nfterr; fi
		nft delete table inet churn || tally nfterr
	done
}

# Rules added from inside a cgroup namespace rooted at churn/ns (to the
# mangle table of iptables-nft, which no other worker touches).
w_cgns() {
	while running; do
		(
			echo "$BASHPID" >"$CG/churn/ns/cgroup.procs" &&
			unshare -C bash -c '
				iptables-nft -w -t mangle -A OUTPUT -m cgroup2 --path "x/**" -m comment --comment cgns &&
				iptables-nft -w -t mangle -D OUTPUT -m cgroup2 --path "x/**" -m comment --comment cgns' \
				2>>"$STATS/errors"
		) && tally cgns || tally cgnserr
	done
}

w_rmmod() {
	while running; do
		if rmmod xt_cgroup2 2>/dev/null; then
			tally rmmod-succeeded
			modprobe xt_cgroup2
		else
			tally rmmod-refused
		fi
		sleep 0.2
	done
}

# nft-cgroupd (ASan, UBSan) keeps a set equal to the churning cgroups.
mkcg churn/tmp/keep/a
BIND='inet:churnset:cg=churn/tmp/**'
nft add table inet churnset && nft add set inet churnset cg '{ type cgroupsv2; }' ||
	fail "nft set for nft-cgroupd"
ASAN_OPTIONS=detect_leaks=1 nft-cgroupd-asan "$BIND" 2>"$STATS/nftcg.log" &
NFTCG=$!

pids=()
for w in w_cgroups "w_send x" "w_send y" w_mover w_rules w_nft w_cgns w_rmmod; do
	$w &
	pids+=($!)
done
wait "${pids[@]}"

# Once the churn stops, the daemon must catch up: its set equal to what a
# fresh scan finds (--check exits 0), within 20 s; the scan and the --list
# are the sanitizer build's too.
for ((i = 0; i < 40; i++)); do
	nft-cgroupd-asan --check "$BIND" >"$STATS/check.out" 2>&1 && break
	sleep 0.5
done
expect "nft-cgroupd's set equals a fresh scan" 0 "$(nft-cgroupd-asan --check "$BIND" >/dev/null 2>&1; echo $?)"
grep -q . "$STATS/check.out" && sed 's/^/  check: /' "$STATS/check.out" | head -n 10
expect "nft-cgroupd --list (ASan) lists the set" 0 \
	"$(nft-cgroupd-asan --list inet:churnset:cg >"$STATS/list.out" 2>&1; echo $?)"
expect "nft-cgroupd --list names churn/tmp/keep/a" 1 \
	"$(grep -c ' /churn/tmp/keep/a$' "$STATS/list.out")"
kill -TERM "$NFTCG"
wait "$NFTCG"
expect "nft-cgroupd (ASan) exits 0 on SIGTERM" 0 "$?"
expect "nft-cgroupd: no ASan/UBSan report" "" \
	"$(grep -E 'AddressSanitizer|LeakSanitizer|runtime error' "$STATS/nftcg.log" | head -n 3)"
nft delete table inet churnset

echo "INFO churn: ${DUR} s: $(total cgroups) cgroups created and removed," \
	"$(total rulesets) rulesets restored, $(total flushes) flushes," \
	"$(total nft-tables) nft tables, $(total cgns) cgroup-namespace rule pairs," \
	"$(total moves) moves, $(total tcp) TCP exchanges," \
	"$(total rmmod-refused) rmmod attempts refused"
expect "rmmod never succeeded while rules existed" 0 "$(total rmmod-succeeded)"
expect "every TCP exchange of the mover got its reply" 0 "$(total tcperr)"
expect "every sender's send went out" 0 "$(($(total senderr-x) + $(total senderr-y)))"
expect "every ruleset restore succeeded" 0 "$(total ruleerr)"
expect "every nft table load and delete succeeded" 0 "$(total nfterr)"
expect "every cgroup-namespace rule add and delete succeeded" 0 "$(total cgnserr)"
[[ -s $STATS/errors ]] && head -n 20 "$STATS/errors"
for c in x y; do
	expect "IPv4 acct-$c counts exactly what $c sent" "$(total "sent-$c-4")" \
		"$(counter iptables-legacy OUTPUT "acct-$c" mangle)"
	expect "IPv6 acct-$c counts exactly what $c sent" "$(total "sent-$c-6")" \
		"$(counter ip6tables-legacy OUTPUT "acct-$c" mangle)"
done
((($(total sent-x-4) > 0) && ($(total sent-y-6) > 0))) || fail "the senders sent nothing"
finish
