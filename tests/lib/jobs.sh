# Jobs of tests/check: each suite or VM test is a job that runs in the
# background with its output in a file of its own; its report (the
# PASS/FAIL/SKIP/INFO lines, counted) is printed in the order the jobs
# were started, so a run reads the same whatever finished first.
#
# Two lanes: "vm" jobs (each its own qemu guest) may run CHECK_JOBS at a
# time; "host" jobs share this machine's cgroups, netns and nft tables,
# so they run one at a time, beside the VM jobs.  Every job's wall time
# is kept for the table at the end of the run (time_table).
#
# Expects from the caller: $log (a scratch folder), the counters passed,
# failed and skipped, and emulator_flake OUT.

CHECK_JOBS=${CHECK_JOBS:-2}
job_count=0 job_reported=0
job_dir=$log/jobs
mkdir -p "$job_dir"

# children_cpu FILE: write the CPU seconds (user + system) of this shell's
# waited-for children so far: a job's, run in a subshell of its own.  What a
# job left running past its end (a daemon) is not in it.  `times` runs in
# this shell: in a command substitution it would count the subshell's.
children_cpu() {
	local -a t
	times >"$1.times"
	read -r -a t < <(tail -n 1 "$1.times")
	rm -f "$1.times"
	LC_ALL=C awk -v u="${t[0]}" -v s="${t[1]}" 'function sec(x, m) {
		m = x; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", x); sub(/s$/, "", x)
		return m * 60 + x } BEGIN { printf "%d\n", sec(u) + sec(s) + 0.5 }' >"$1"
}

# run_job DIR COMMAND...: run it into DIR/out; DIR/rc its status, DIR/time
# its seconds, DIR/cpu its CPU seconds, DIR/note why it ran twice.  A VM
# test that died of an emulator flake runs once more.
run_job() {
	local dir=$1 t0=$SECONDS rc
	shift
	"$@" >"$dir/out" 2>&1
	rc=$?
	if ((rc == 125)) && emulator_flake "$dir/out"; then
		grep -m 1 'int3: 0000' "$dir/out" >"$dir/note"
		"$@" >"$dir/out" 2>&1
		rc=$?
	fi
	echo $((SECONDS - t0)) >"$dir/time"
	children_cpu "$dir/cpu"
	echo "$rc" >"$dir/rc"
}

# run_batch DIR PREFIX SUFFIX PER-TEST N NAME... VM...: the N tests
# PREFIX NAME.sh (guest paths) in as few boots of VM... (tests/vm/run up
# to its "--") as they allow, through tests/vm/batch.  Each test gets a
# part, DIR/p/I (its suite PREFIX NAME SUFFIX, out, rc, time, note), as if
# it had been a job of its own; DIR/time keeps what the boots cost beside
# the tests.  A test the VM died in is that test's failure, and the tests
# after it run in a new boot; so do those after a test that left the guest
# in a state the batch could not undo.  A test the VM died in of an
# emulator flake runs again, once, as a job would.
run_batch() {
	local dir=$1 prefix=$2 suffix=$3 per_test=$4 n=$5 t0=$SECONDS
	shift 5
	local names=("${@:1:n}") vm=("${@:n+1}") todo=() i boot=0 rc spent=0 name
	local -A index=() retried=()
	mkdir -p "$dir/p"
	for ((i = 0; i < n; i++)); do
		index[${names[i]}]=$i todo+=("${names[i]}")
		printf '%s\n' "$prefix${names[i]}$suffix" >"$dir/p/$i.suite"
	done
	while ((${#todo[@]})); do
		boot=$((boot + 1))
		local scripts=() out=$dir/boot.$boot
		for name in "${todo[@]}"; do scripts+=("/tests/$prefix$name.sh"); done
		"${vm[@]}" --timeout $((per_test * ${#todo[@]} + 120)) -- \
			bash /tests/vm/batch --timeout "$per_test" "${scripts[@]}" >"$out" 2>&1
		rc=$?
		batch_split "$out" "$dir/p" index
		local next=() begun=0 crashed=''
		for name in "${todo[@]}"; do
			i=${index[$name]}
			if [[ -e $dir/p/$i.ended ]]; then
				begun=1
				rm -f "$dir/p/$i.ended"
				mv_part "$dir/p/$i"
			elif [[ -e $dir/p/$i.begun ]]; then
				begun=1 crashed=$name
				rm -f "$dir/p/$i.begun"
			elif [[ -n $crashed || $begun == 1 ]]; then
				next+=("$name")
			elif [[ -z $crashed ]]; then
				# Not begun at all: the boot itself failed; it is
				# the first test's failure.
				begun=1 crashed=$name
				cp "$out" "$dir/p/$i.out.new"
			fi
		done
		if [[ -n $crashed ]]; then
			i=${index[$crashed]}
			((rc == 0)) && rc=125
			if ((rc == 125)) && [[ -z ${retried[$crashed]:-} ]] &&
				emulator_flake "$dir/p/$i.out.new"; then
				retried[$crashed]=1
				mkdir -p "$dir/p/$i"
				grep -m 1 'int3: 0000' "$dir/p/$i.out.new" >"$dir/p/$i/note"
				next=("$crashed" "${next[@]}")
			else
				echo "$rc" >"$dir/p/$i.rc.new"
				echo 0 >"$dir/p/$i.ms.new"
				mv_part "$dir/p/$i"
			fi
		elif ((rc != 0)); then
			# Every test ended, yet the runner failed: its own report.
			mkdir -p "$dir/p/$((n + boot))"
			printf '%s\n' "vm/batch$suffix" >"$dir/p/$((n + boot))/suite"
			grep -v '^XT_BATCH_\|^PASS \|^SKIP ' "$out" | tail -n 40 >"$dir/p/$((n + boot))/out"
			echo "$rc" >"$dir/p/$((n + boot))/rc"
			echo 0 >"$dir/p/$((n + boot))/time"
		fi
		todo=("${next[@]}")
	done
	for ((i = 0; i < n; i++)); do
		spent=$((spent + $(<"$dir/p/$i/time")))
	done
	echo "$boot" >"$dir/boots"
	echo $((SECONDS - t0 - spent)) >"$dir/time"
	children_cpu "$dir/cpu"
	echo 0 >"$dir/rc"
}

# batch_split OUT PARTS INDEX-ARRAY-NAME: cut a batch's output into
# PARTS/I.out.new per test (from its XT_BATCH_BEGIN to its XT_BATCH_END,
# or to the end of OUT for the test the VM died in), with I.rc.new and
# I.ms.new, and I.ended or I.begun.
batch_split() {
	local out=$1 parts=$2 name
	local -n idx=$3
	local map=
	for name in "${!idx[@]}"; do map+="$name=${idx[$name]} "; done
	LC_ALL=C awk -v parts="$parts" -v map="$map" '
		BEGIN { n = split(map, m, " "); for (k = 1; k <= n; k++) { split(m[k], kv, "="); id[kv[1]] = kv[2] } }
		/^XT_BATCH_BEGIN / && ($2 in id) { cur = parts "/" id[$2]; printf "" > (cur ".out.new"); close(cur ".out.new"); print "" > (cur ".begun"); close(cur ".begun"); next }
		/^XT_BATCH_END / && cur != "" {
			print $3 > (cur ".rc.new"); close(cur ".rc.new")
			print $4 > (cur ".ms.new"); close(cur ".ms.new")
			print "" > (cur ".ended"); close(cur ".ended"); system("rm -f \"" cur ".begun\"")
			last = cur; cur = ""; next
		}
		# What the test left, cut: a tree of long names fills pages.
		/^XT_BATCH_DIRTY / {
			what = substr($0, 16)
			if (length(what) > 400) what = substr(what, 1, 400) "..."
			print "INFO " what " (the tests after it run in a new boot)" >> (last ".out.new"); next
		}
		cur != "" { print >> (cur ".out.new") }
	' "$out"
}

# mv_part P: P.out.new, P.rc.new, P.ms.new become the part P (out, rc,
# time in seconds, rounded up).
mv_part() {
	local p=$1
	mkdir -p "$p"
	mv -f "$p.out.new" "$p/out"
	mv -f "$p.rc.new" "$p/rc"
	echo $((($(<"$p.ms.new") + 999) / 1000)) >"$p/time"
	rm -f "$p.ms.new"
	mv -f "$p.suite" "$p/suite" 2>/dev/null || true
}

# lane_busy LANE: how many jobs of LANE (or of all, for "all") still run.
lane_busy() {
	local n=0 i
	for ((i = job_reported + 1; i <= job_count; i++)); do
		[[ -e $job_dir/$i/rc ]] && continue
		[[ $1 == all || $(<"$job_dir/$i/lane") == "$1" ]] && n=$((n + 1))
	done
	echo "$n"
}

# wait_for LANE MAX: until fewer than MAX jobs of LANE run, printing the
# reports of jobs that finished meanwhile.
wait_for() {
	while (($(lane_busy "$1") >= $2)); do
		wait -n 2>/dev/null || sleep 0.2
		report_done
	done
	report_done
}

# spawn LANE SUITE COMMAND...: start a job once its lane has room.
spawn() {
	local lane=$1 suite=$2 dir
	shift 2
	[[ $lane == host ]] && wait_for host 1
	wait_for all "$CHECK_JOBS"
	job_count=$((job_count + 1))
	dir=$job_dir/$job_count
	mkdir -p "$dir"
	echo "$lane" >"$dir/lane"
	printf '%s\n' "$suite" >"$dir/suite"
	run_job "$dir" "$@" &
}

# spawn_batch PREFIX SUFFIX PER-TEST NAME... -- VM...: a VM job running
# the tests PREFIX NAME.sh in shared boots (run_batch).
spawn_batch() {
	local prefix=$1 suffix=$2 per_test=$3 names=() dir
	shift 3
	while [[ $1 != -- ]]; do names+=("$1"); shift; done
	shift
	wait_for all "$CHECK_JOBS"
	job_count=$((job_count + 1))
	dir=$job_dir/$job_count
	mkdir -p "$dir"
	echo vm >"$dir/lane"
	printf '%s\n' "boots $prefix(${#names[@]} tests)$suffix" >"$dir/suite"
	run_batch "$dir" "$prefix" "$suffix" "$per_test" "${#names[@]}" "${names[@]}" "$@" &
}

# The queues: jobs waiting to be spawned, so that host jobs (one at a
# time) run beside VM jobs from the start instead of before them.
host_queue=() vm_queue=()

# enqueue LANE COMMAND...: queue a spawn or spawn_batch command line for
# run_queues, in LANE's queue.
enqueue() {
	local lane=$1 cmd
	shift
	printf -v cmd '%q ' "$@"
	if [[ $lane == host ]]; then
		host_queue+=("$cmd")
	else
		vm_queue+=("$cmd")
	fi
}

# run_queues: start the queued jobs, each queue in its order, as room
# allows: the next host job whenever the host lane is free, VM jobs in the
# other slots; while host jobs wait, one slot is kept for them, so that
# the host lane never waits for a VM job to end.
run_queues() {
	local busy keep
	while ((${#host_queue[@]} + ${#vm_queue[@]})); do
		busy=$(lane_busy all)
		keep=$((${#host_queue[@]} > 0))
		if ((${#host_queue[@]})) && ((busy < CHECK_JOBS)) &&
			(($(lane_busy host) == 0)); then
			eval "${host_queue[0]}"
			host_queue=("${host_queue[@]:1}")
		elif ((${#vm_queue[@]})) && ((busy < CHECK_JOBS)) &&
			(($(lane_busy vm) < CHECK_JOBS - keep)); then
			eval "${vm_queue[0]}"
			vm_queue=("${vm_queue[@]:1}")
		else
			wait -n 2>/dev/null || sleep 0.2
			report_done
		fi
	done
}

# drain: wait for every job and print the reports still due.
drain() {
	wait_for all 1
}

# run SUITE COMMAND...: one job in the foreground, reported at once.
run() {
	drain
	job_count=$((job_count + 1))
	local dir=$job_dir/$job_count
	mkdir -p "$dir"
	echo host >"$dir/lane"
	printf '%s\n' "$1" >"$dir/suite"
	shift
	run_job "$dir" "$@"
	report_done
}

# report_done: report, in order, the jobs that have finished.
report_done() {
	while ((job_reported < job_count)) && [[ -e $job_dir/$((job_reported + 1))/rc ]]; do
		job_reported=$((job_reported + 1))
		report "$job_dir/$job_reported"
	done
}

# report DIR: pass the job's PASS/FAIL/SKIP lines through, count them, and
# count a failed job that reported no FAIL as one FAIL.  INFO lines (a
# run's figures: blobs tried, iterations) pass uncounted.
report() {
	local dir=$1 suite rc line fails=0 part
	suite=$(<"$dir/suite")
	if [[ -d $dir/p ]]; then
		# A batch: each test as a job of its own, then what the boots
		# cost beside them.
		for part in $(cd "$dir/p" && printf '%s\n' */ | sort -n); do
			report "$dir/p/${part%/}"
		done
		printf '%s\t%s\t%s\t%s\n' "$(<"$dir/time")" "$suite" "$(<"$dir/boots")" \
			"$(<"$dir/cpu")" >>"$log/times"
		return
	fi
	rc=$(<"$dir/rc")
	if [[ -e $dir/note ]]; then
		echo "INFO $suite: the VM died of an int3 oops in kernel text (emulator flake); ran it again"
		sed 's/^/    /' "$dir/note"
		printf '%s\t%s\n' "$suite" "$(<"$dir/note")" >>"$log/flakes"
	fi
	while IFS= read -r line; do
		case $line in
		PASS\ *) passed=$((passed + 1)); echo "PASS $suite: ${line#PASS }" ;;
		FAIL\ *) failed=$((failed + 1)); fails=$((fails + 1))
			 echo "FAIL $suite: ${line#FAIL }" ;;
		SKIP\ *) skipped=$((skipped + 1)); echo "SKIP $suite: ${line#SKIP }" ;;
		INFO\ *) echo "INFO $suite: ${line#INFO }" ;;
		esac
	done <"$dir/out"
	if ((rc != 0 && fails == 0)); then
		failed=$((failed + 1))
		echo "FAIL $suite: exited with status $rc; its output:"
		tail -n 40 "$dir/out" | sed 's/^/    /'
	elif ((rc != 0)); then
		grep -v -E '^(PASS|SKIP) ' "$dir/out" | tail -n 40 | sed 's/^/    /'
	fi
	printf '%s\t%s\t%s\t%s\n' "$(<"$dir/time")" "$suite" "$([[ -e $dir/note ]] && echo 2 || echo 1)" \
		"$(cat "$dir/cpu" 2>/dev/null)" >>"$log/times"
}

# time_table SECONDS: where the run's time went, as Markdown: every job,
# slowest first, with its CPU seconds (a batch's are its boots' line: its
# tests share one qemu), then the sums per group (host suites, each
# kernel) and the share of the run's CPU time the jobs used.
time_table() {
	local wall=$1 cores
	cores=$(nproc)
	echo "## Where the time went ($((wall / 60)) min $((wall % 60)) s wall, CHECK_JOBS=$CHECK_JOBS)"
	echo
	echo "| seconds | CPU s | job | runs |"
	echo "|---:|---:|---|---:|"
	sort -t $'\t' -k1,1nr "$log/times" |
		awk -F '\t' '{ printf "| %d | %s | %s | %d |\n", $1, ($4 == "" ? "-" : $4), $2, $3 }'
	echo
	echo "| group | jobs | seconds (sum) | CPU s (sum) |"
	echo "|---|---:|---:|---:|"
	awk -F '\t' '{ g = "host"; if (index($2, "@")) g = "kernel " substr($2, index($2, "@") + 1)
		n[g]++; s[g] += $1; c[g] += $4 }
		END { for (g in s) printf "| %s | %d | %d | %d |\n", g, n[g], s[g], c[g] }' \
		"$log/times" | sort
	echo
	awk -F '\t' -v wall="$wall" -v cores="$cores" '{ c += $4 } END {
		printf "The jobs used %d CPU seconds of the %d that %d cores had in %d s (%d%%).\n",
			c, wall * cores, cores, wall, wall ? 100 * c / (wall * cores) : 0 }' "$log/times"
}
