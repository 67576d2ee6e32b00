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

# run_job DIR COMMAND...: run it into DIR/out; DIR/rc its status, DIR/time
# its seconds, DIR/note why it ran twice.  A VM test that died of an
# emulator flake runs once more.
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
	echo "$rc" >"$dir/rc"
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
	local dir=$1 suite rc line fails=0
	suite=$(<"$dir/suite")
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
	printf '%s\t%s\t%s\n' "$(<"$dir/time")" "$suite" "$([[ -e $dir/note ]] && echo 2 || echo 1)" \
		>>"$log/times"
}

# time_table SECONDS: where the run's time went, as Markdown: every job,
# slowest first, then the sum per group (host suites, each kernel).
time_table() {
	local wall=$1
	echo "## Where the time went ($((wall / 60)) min $((wall % 60)) s wall, CHECK_JOBS=$CHECK_JOBS)"
	echo
	echo "| seconds | job | runs |"
	echo "|---:|---|---:|"
	sort -t $'\t' -k1,1nr "$log/times" | awk -F '\t' '{ printf "| %d | %s | %d |\n", $1, $2, $3 }'
	echo
	echo "| group | jobs | seconds (sum) |"
	echo "|---|---:|---:|"
	awk -F '\t' '{ g = "host"; if (index($2, "@")) g = "kernel " substr($2, index($2, "@") + 1)
		n[g]++; s[g] += $1 } END { for (g in s) printf "| %s | %d | %d |\n", g, n[g], s[g] }' \
		"$log/times" | sort
}
