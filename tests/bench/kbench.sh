#!/usr/bin/env bash
# Per-match cost in ns from the in-kernel microbenchmark (kbench/, the
# test-only xt_cg2bench.ko): each registered match's .match() called
# directly on an skb owned by a socket made in the cgroup, CALLS times per
# round, median of ROUNDS rounds; cases taking turns within each depth.
# "first" cases: K fresh cgroups (200-byte names), each judged once by a
# rule built for the round.  Checks the verdicts too: a hit must match on
# every call, a miss on none.
. "$(dirname "$0")/../lib/vmtest.sh"
. "$(dirname "$0")/lib.sh"
need_module
modprobe xt_cg2bench || { fail "modprobe xt_cg2bench"; finish; }
# Patterns go through unquoted expansions: no pathname expansion.
set -f

CALLS=${BENCH_CALLS:-1000000}
ROUNDS=${BENCH_ROUNDS:-9}
K=${BENCH_CGROUPS:-200}
A=$(name a a)
# The least a glob that reads every byte of every name does (no "z" in them).
READER='**/*z'
# The DFA matcher's worst pattern until the matcher gave up on alignments
# that leave too few names for the rest: globs that read each name to its
# end, tried at every alignment after "**" (each pattern 252 states).
DEEP="**$(repeat '/*a' 84)/b **$(repeat '/*a' 84)/c"
# The costliest single pattern found for the fresh cgroups at each depth:
# globs after "**" that read names to their ends, about half the depth of
# them, so that about half the alignments read about half the names each.
declare -A SINGLE=([2]='**/*z' [8]='**/*a/*a/*a/*z')
# The costliest rule found for each depth: WIDE (lib.sh).

# sock_in CGROUP: open a UDP socket from this shell while it is in CGROUP;
# its fd in $sfd.
sock_in() {
	echo "$BASHPID" >"$CG/$1/cgroup.procs" || return 1
	exec {sfd}<>/dev/udp/127.0.0.1/9
	echo "$BASHPID" >"$CG/cgroup.procs"
}

# bench MATCH INVERT CALLS ROUNDS FDS ARGS...: one command; its result in
# $res.
bench() {
	printf '%s ' "$1" "$2" "$3" "$4" "$5" >/tmp/kb.cmd
	shift 5
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
# paired "X1 X2..." "Y1 Y2...": the median of Xi/Yi, two decimals.  Round i
# of both ran within a second of each other, so a disturbance that lasts
# seconds (another VM on the host) changes both alike; medians of each
# would compare quiet rounds of one with busy rounds of the other.
paired() {
	# shellcheck disable=SC2046
	median $(awk -v x="$1" -v y="$2" 'BEGIN { n = split(x, a); split(y, b)
		for (i = 1; i <= n; i++) if (b[i] > 0) printf "%d\n", a[i] * 100 / b[i] }') |
		awk '{ printf "%d.%02d", $1 / 100, $1 % 100 }'
}

declare -A ps rel
# say CASE D PS RUNS: the BENCH line of a median PS of rounds RUNS.
say() {
	printf 'BENCH kbench %-16s depth %d: %s ns per call (median; rounds in ps:%s)\n' \
		"$1" "$2" "$(ratio "$3" 1000)" "$4"
}
# run_cached D P: the cached cases at depth D (path P) on socket $sfd, one round of
# each in turn, ROUNDS times: a disturbance (another VM on the host) hits
# every case alike.  A verdict off in any round fails the case.
run_cached() {
	local d=$1 p=$2 c exp m inv args r n hits
	local -A runs bad
	for ((r = 0; r < ROUNDS; r++)); do
		while read -r c exp m inv args; do
			# shellcheck disable=SC2086
			bench "$m" "$inv" "$CALLS" 1 "$sfd" $args ||
				{ bad[$c]="$(cat /tmp/kb.err)"; continue; }
			read -r _ n _ hits _ <<<"$res"
			runs[$c]+=" $n"
			[[ $exp == all && $hits == "$CALLS" ]] || [[ $exp == none && $hits == 0 ]] ||
				bad[$c]="$hits of $CALLS match, want $exp"
		done < <(cases_for "$p")
	done
	while read -r c _; do
		if [[ -n ${bad[$c]:-} || -z ${runs[$c]:-} ]]; then
			fail "kbench $c depth $d verdicts (${bad[$c]:-no result})"
			continue
		fi
		pass "kbench $c depth $d verdicts ($CALLS calls per round, $ROUNDS rounds)"
		# shellcheck disable=SC2086
		ps[$c,$d]=$(median ${runs[$c]})
		rel[$c,$d]=$(paired "${runs[$c]}" "${runs[intree_hit]:-${runs[$c]}}")
		say "$c" "$d" "${ps[$c,$d]}" "${runs[$c]}"
	done < <(cases_for "$p")
}
# run_depth D PATH: the cached cases, then first judgement, at depth D.
run_depth() {
	local d=$1 p=$2 c fds='' i cg n hits
	mkcg "$p" kb.slice/other.service
	sock_in "$p" || { fail "socket in $p"; return; }
	run_cached "$d" "$p"
	exec {sfd}>&-
	# K fresh cgroups at depth d: 200-byte names below kf$d/.
	cg="kf$d"
	for ((i = 2; i < d; i++)); do cg+="/$A"; done
	for ((i = 0; i < K; i++)); do
		mkcg "$cg/${A:0:190}$i"
		sock_in "$cg/${A:0:190}$i" || { fail "socket in fresh cgroup $i"; return; }
		fds+=${fds:+,}$sfd
	done
	for c in literal reader single worst deep wide; do
		args=kb.slice/web.service
		[[ $c == reader ]] && args=$READER
		[[ $c == single ]] && args=${SINGLE[$d]}
		[[ $c == worst ]] && args=$NFA_WORST
		[[ $c == deep ]] && args=$DEEP
		[[ $c == wide ]] && args=${WIDE[$d]}
		# shellcheck disable=SC2086
		bench cgroup2 0 1 "$ROUNDS" "$fds" $args ||
			{ fail "kbench first_$c depth $d: $(cat /tmp/kb.err)"; continue; }
		read -r _ n _ hits _ <<<"$res"
		ps[first_$c,$d]=$n
		expect "kbench first_$c depth $d: no fresh cgroup matches" 0 "$hits"
		say "first_$c" "$d" "$n" "${res#*runs}"
	done
	for i in ${fds//,/ }; do exec {i}>&-; done
}

# run_many: N sockets (cgspray, one per cgroup kbm/cI, depth 2) taken in
# turn through one rule that every one matches, cached (the module warms
# the rule and lets its cache grow first); in-tree and ours taking turns,
# a round each.  Picoseconds per call, median, in mps[MATCH,N].
read -ra MANY <<<"${BENCH_MANY:-1 100 1000 10000}"
MANY_CALLS=${BENCH_MANY_CALLS:-1000000}
declare -A mps mrel
run_many() {
	local n m hits calls hook=/tmp/kbm_hook
	local -A runs
	mkdir "$CG/kbm" && (cd "$CG/kbm" && mkdir $(seq -f 'c%.0f' 1 "${MANY[-1]}")) ||
		{ fail "mkdir kbm/c*"; return; }
	for n in "${MANY[@]}"; do
		calls=$((MANY_CALLS / n > 2 ? MANY_CALLS / n : 2))
		cat >$hook <<-EOF
			for ((r = 0; r < $ROUNDS; r++)); do
				for m in "intree cgroup 0 /kbm" "literal cgroup2 0 kbm" "floor cg2floor 0 -"; do
					set -- \$m
					echo "\$2 \$3 $calls 1 \$CGSPRAY_FDS \$4" >/proc/cg2bench || exit 1
					echo "\$1 \$(cat /proc/cg2bench)"
				done
			done >/tmp/kbm.res
		EOF
		seq -f "$CG/kbm/c%.0f" 1 "$n" | CGSPRAY_BEFORE="bash $hook" cgspray 127.0.0.1 9 0 1 2>/tmp/kb.err ||
			{ fail "kbench many $n: $(cat /tmp/kb.err)"; continue; }
		for m in intree literal floor; do
			runs[$m]=$(awk -v m=$m '$1 == m { printf " %s", $3 }' /tmp/kbm.res)
			hits=$(awk -v m=$m '$1 == m { print $5 }' /tmp/kbm.res | sort -u)
			# shellcheck disable=SC2086
			mps[$m,$n]=$(median ${runs[$m]})
			expect "kbench many $m $n cgroups: every call matches, every round" $((calls * n)) "$hits"
		done
		mrel[$n]=$(paired "${runs[literal]}" "${runs[intree]}")
		[[ -n ${mps[literal,$n]:-} && -n ${mps[intree,$n]:-} ]] || { fail "kbench many $n: no result"; continue; }
		echo "BENCH kbench many $n cgroups: in-tree $(ratio "${mps[intree,$n]}" 1000) ns," \
			"literal $(ratio "${mps[literal,$n]}" 1000) ns, floor $(ratio "${mps[floor,$n]}" 1000) ns" \
			"per call (median of $ROUNDS rounds of $calls passes;" \
			"rounds in ps: in-tree${runs[intree]}; literal${runs[literal]}; floor${runs[floor]})"
	done
}

run_depth 2 kb.slice/web.service
run_depth 8 kb.slice/a/b/c/d/e/f/web.service
run_many

# x_intree CASE D: CASE's cost over the in-tree hit's at depth D, paired by
# round for the cached cases.
x_intree() { echo "${rel[$1,$2]:-$(ratio "${ps[$1,$2]}" "${ps[intree_hit,$2]}")}"; }
echo "CSV kbench,case,ns depth 2,ns depth 8,x in-tree hit depth 2,x in-tree hit depth 8"
for c in intree_hit intree_miss literal_hit literal_miss literal_inverted \
	glob_star glob_starstar patterns_64 first_literal first_reader first_single first_worst first_deep first_wide; do
	[[ -n ${ps[$c,2]} && -n ${ps[$c,8]} && -n ${ps[intree_hit,2]} && -n ${ps[intree_hit,8]} ]] || continue
	printf 'CSV kbench,%s,%s,%s,%s,%s\n' "$c" "$(ratio "${ps[$c,2]}" 1000)" "$(ratio "${ps[$c,8]}" 1000)" \
		"$(x_intree "$c" 2)" "$(x_intree "$c" 8)"
done
echo "CSV kbench_many,cgroups,in-tree ns,literal ns,literal x in-tree,in-tree x at 1,literal x at 1,floor ns,floor x at 1"
for n in "${MANY[@]}"; do
	[[ -n ${mps[literal,$n]:-} && -n ${mps[literal,1]:-} ]] || continue
	printf 'CSV kbench_many,%s,%s,%s,%s,%s,%s,%s,%s\n' "$n" "$(ratio "${mps[intree,$n]}" 1000)" \
		"$(ratio "${mps[literal,$n]}" 1000)" "${mrel[$n]}" \
		"$(ratio "${mps[intree,$n]}" "${mps[intree,1]}")" "$(ratio "${mps[literal,$n]}" "${mps[literal,1]}")" \
		"$(ratio "${mps[floor,$n]}" 1000)" "$(ratio "${mps[floor,$n]}" "${mps[floor,1]}")"
done
n=${MANY[-1]}
[[ -n ${mps[literal,$n]:-} && -n ${mps[literal,1]:-} ]] &&
	echo "BENCH kbench many: $n cgroups through one literal rule $(ratio "${mps[literal,$n]}" "${mps[literal,1]}")x the cost at 1 (goal <= 1.5x); in-tree $(ratio "${mps[intree,$n]}" "${mps[intree,1]}")x;" \
		"floor (reaching the socket's cgroup) $(ratio "${mps[floor,$n]}" "${mps[floor,1]}")x"
for d in 2 8; do
	[[ -n ${ps[literal_hit,$d]} && -n ${ps[intree_hit,$d]} && -n ${ps[first_wide,$d]} ]] || continue
	echo "BENCH kbench depth $d: literal cached $(x_intree literal_hit "$d")x in-tree (goal <= 1.10x)," \
		"glob * $(x_intree glob_star "$d")x, ** $(x_intree glob_starstar "$d")x (goal <= 1.25x)," \
		"first judgement of the costliest rule $(ratio "${ps[first_wide,$d]}" "${ps[first_literal,$d]}")x first literal (goal <= 3x)," \
		"$(ratio "${ps[first_wide,$d]}" "${ps[first_reader,$d]}")x a glob that reads every name byte ($READER);" \
		"the costliest pattern ${SINGLE[$d]} $(ratio "${ps[first_single,$d]}" "${ps[first_literal,$d]}")x," \
		"the NFA matcher's worst $(ratio "${ps[first_worst,$d]}" "${ps[first_literal,$d]}")x," \
		"many globs after ** $(ratio "${ps[first_deep,$d]}" "${ps[first_literal,$d]}")x first literal"
done
finish
