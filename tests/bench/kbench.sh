#!/usr/bin/env bash
# Per-match cost in ns from the in-kernel microbenchmark (kbench/, the
# test-only xt_cg2bench.ko): each registered match's .match() called
# directly on an skb owned by a socket made in the cgroup, CALLS times per
# round, median of ROUNDS rounds; cases taking turns within each depth.
# "first" cases: K fresh cgroups (200-byte names), each judged once by a
# rule built for the round.  Checks the verdicts too: a hit must match on
# every call, a miss on none.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
modprobe xt_cg2bench || { fail "modprobe xt_cg2bench"; finish; }
# Patterns go through unquoted expansions: no pathname expansion.
set -f

CALLS=${BENCH_CALLS:-1000000}
ROUNDS=${BENCH_ROUNDS:-5}
K=${BENCH_CGROUPS:-200}
name() { printf "$1%.0s" $(seq 199); printf '%s' "$2"; }
stars() { printf "*$1%.0s" $(seq 127); }
A=$(name a a)
WORST="**/$(stars '?')b **/$(stars a)c"

# sock_in CGROUP: open a UDP socket from this shell while it is in CGROUP;
# its fd in $sfd.
sock_in() {
	echo "$BASHPID" >"$CG/$1/cgroup.procs" || return 1
	exec {sfd}<>/dev/udp/127.0.0.1/9
	echo "$BASHPID" >"$CG/cgroup.procs"
}

# bench MATCH INVERT CALLS FDS ARGS...: one command; its result in $res.
bench() {
	printf '%s ' "$1" "$2" "$3" "$ROUNDS" "$4" >/tmp/kb.cmd
	shift 4
	printf '%s\n' "$*" >>/tmp/kb.cmd
	res=
	[[ $(wc -c </tmp/kb.cmd) -lt 4000 ]] || return 1
	cat /tmp/kb.cmd >/proc/cg2bench 2>/tmp/kb.err || return 1
	res=$(cat /proc/cg2bench)
}

# The cases of one depth: "NAME EXPECT MATCH INVERT ARGS..." (EXPECT: all
# calls match, none).  The path is P, at depth D.
cases_for() {
	local p=$1 up=${1%/*}
	cat <<EOF
intree_hit all cgroup 0 /$p
intree_miss none cgroup 0 /kb.slice/other.service
literal_hit all cgroup2 0 $p
literal_miss none cgroup2 0 kb.slice/other.service
literal_inverted all cgroup2 1 kb.slice/other.service
glob_star all cgroup2 0 $up/*
glob_starstar all cgroup2 0 **/web.service
patterns_64 all cgroup2 0 $(for i in $(seq 63); do printf 'kb.slice/x%d.service ' "$i"; done)$p
EOF
}

# ratio X Y: X/Y with two decimals.
ratio() { printf '%d.%02d' $(($1 / $2)) $(($1 * 100 / $2 % 100)); }

declare -A ps
# say CASE D: the BENCH line of the result in $res.
say() {
	local n=${res#ps }
	n=${n%% *}
	printf 'BENCH kbench %-16s depth %d: %s ns per call (median; rounds in ps:%s)\n' \
		"$1" "$2" "$(ratio "$n" 1000)" "${res#*runs}"
}
# run_depth D PATH: the cached cases, then first judgement, at depth D.
run_depth() {
	local d=$1 p=$2 c exp m inv args fds='' i cg n hits
	mkcg "$p" kb.slice/other.service
	sock_in "$p" || { fail "socket in $p"; return; }
	while read -r c exp m inv args; do
		# shellcheck disable=SC2086
		bench "$m" "$inv" "$CALLS" "$sfd" $args ||
			{ fail "kbench $c depth $d: $(cat /tmp/kb.err)"; continue; }
		read -r _ n _ hits _ <<<"$res"
		ps[$c,$d]=$n
		if [[ $exp == all && $hits == "$CALLS" ]] || [[ $exp == none && $hits == 0 ]]; then
			pass "kbench $c depth $d verdicts ($hits of $CALLS match)"
		else
			fail "kbench $c depth $d verdicts ($hits of $CALLS match, want $exp)"
		fi
		say "$c" "$d"
	done < <(cases_for "$p")
	exec {sfd}>&-
	# K fresh cgroups at depth d: 200-byte names below kf$d/.
	cg="kf$d"
	for ((i = 2; i < d; i++)); do cg+="/$A"; done
	for ((i = 0; i < K; i++)); do
		mkcg "$cg/${A:0:190}$i"
		sock_in "$cg/${A:0:190}$i" || { fail "socket in fresh cgroup $i"; return; }
		fds+=${fds:+,}$sfd
	done
	for c in literal worst; do
		args=kb.slice/web.service
		[[ $c == worst ]] && args=$WORST
		# shellcheck disable=SC2086
		bench cgroup2 0 1 "$fds" $args ||
			{ fail "kbench first_$c depth $d: $(cat /tmp/kb.err)"; continue; }
		read -r _ n _ hits _ <<<"$res"
		ps[first_$c,$d]=$n
		expect "kbench first_$c depth $d: no fresh cgroup matches" 0 "$hits"
		say "first_$c" "$d"
	done
	for i in ${fds//,/ }; do exec {i}>&-; done
}

run_depth 2 kb.slice/web.service
run_depth 8 kb.slice/a/b/c/d/e/f/web.service

echo "CSV kbench,case,ns depth 2,ns depth 8,x in-tree hit depth 2,x in-tree hit depth 8"
for c in intree_hit intree_miss literal_hit literal_miss literal_inverted \
	glob_star glob_starstar patterns_64 first_literal first_worst; do
	[[ -n ${ps[$c,2]} && -n ${ps[$c,8]} && -n ${ps[intree_hit,2]} && -n ${ps[intree_hit,8]} ]] || continue
	printf 'CSV kbench,%s,%s,%s,%s,%s\n' "$c" "$(ratio "${ps[$c,2]}" 1000)" "$(ratio "${ps[$c,8]}" 1000)" \
		"$(ratio "${ps[$c,2]}" "${ps[intree_hit,2]}")" "$(ratio "${ps[$c,8]}" "${ps[intree_hit,8]}")"
done
for d in 2 8; do
	[[ -n ${ps[literal_hit,$d]} && -n ${ps[intree_hit,$d]} && -n ${ps[first_worst,$d]} ]] || continue
	echo "BENCH kbench depth $d: literal cached $(ratio "${ps[literal_hit,$d]}" "${ps[intree_hit,$d]}")x in-tree (goal <= 1.10x)," \
		"glob * $(ratio "${ps[glob_star,$d]}" "${ps[intree_hit,$d]}")x, ** $(ratio "${ps[glob_starstar,$d]}" "${ps[intree_hit,$d]}")x (goal <= 1.25x)," \
		"first judgement worst $(ratio "${ps[first_worst,$d]}" "${ps[first_literal,$d]}")x first literal (goal <= 3x)"
done
finish
