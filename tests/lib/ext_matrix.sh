# shellcheck shell=bash
# The front-end matrix of the extension (tests/kernel/ext_matrix.sh, and
# tests/kernel/i386_userspace.sh with Debian's i386 iptables), sourced
# after vmtest.sh: matrix_cgroups makes the cgroups, then "front IPT SAVE
# RESTORE ADDR PORT" runs the whole row for one front end: a literal, a
# glob, a brace set, a "**", an inverted, a multi-pattern rule and one whose
# pattern has spaces, quotes, "\", "@", "!" and non-ASCII bytes; exact
# counts of real traffic from several cgroups; -L/-S readable; save text
# per rule; flush; restore gives the same save text and exact counts again;
# restore --test changes nothing; restore --noflush appends only; -C/-D by
# the exact patterns.

# The odd cgroup: space, both quotes, backslash, @, !, UTF-8 and a lone
# Latin-1 byte.  As a pattern, "\" is written "\\".
ODD=$'odd dir "q" \'x\' \\ @u! \xc3\xbc\xe2\x82\xac \xe9'
ODD_PAT="mx/${ODD//\\/\\\\}"
matrix_cgroups() {
	mkcg mx/web.service mx/db.service mx/other.slice/app.scope mx/deep/a/b/c "mx/$ODD"
}

# TAG -> the cgroup2 options of its rule.
declare -A OPT
OPT[lit]='--path mx/web.service'
OPT[glob]="--path mx/*.service"
OPT[brace]="--path mx/{web,db}.service"
OPT[dstar]="--path mx/**/c"
OPT[inv]="! --path mx/*.service"
OPT[multi]="--path mx/db.service --path mx/other.slice/*"
TAGS=(lit glob brace dstar inv multi odd)
# Packets sent per cgroup in one round, and what each rule counts of them:
# web 2, db 3, app.scope 5, deep/a/b/c 7, the root 11, odd 13.
declare -A WANT=([lit]=2 [glob]=5 [brace]=5 [dstar]=7 [inv]=36 [multi]=8 [odd]=13)

# opts TAG: the cgroup2 options of TAG as words (no globbing).
opts() {
	if [[ $1 == odd ]]; then OPTS=(--path "$ODD_PAT")
	else set -f; read -r -a OPTS <<<"${OPT[$1]}"; set +f; fi
}

# savestr S: S as xtables_save_string prints it (always quoted here: every
# pattern has a "/"; '"', "'" and "\" escaped with "\").
savestr() {
	local s=${1//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//\'/\\\'}
	printf ' "%s"' "$s"
}
# savetext TAG: what the save line of TAG ends with, from "-m cgroup2" on.
savetext() {
	local w out="-m cgroup2"
	opts "$1"
	for w in "${OPTS[@]}"; do
		case $w in
		!|--path) out+=" $w" ;;
		*) out+=$(savestr "$w") ;;
		esac
	done
	printf '%s -m comment --comment %s' "$out" "$1"
}

round() {	# round ADDR PORT: one round of traffic
	sends mx/web.service "$1" "$2" 2
	sends mx/db.service "$1" "$2" 3
	sends mx/other.slice/app.scope "$1" "$2" 5
	sends mx/deep/a/b/c "$1" "$2" 7
	sends "" "$1" "$2" 11
	sends "mx/$ODD" "$1" "$2" 13
}
counts() {	# counts FE IPT WHEN: every rule's exact count
	local t
	snap "$2" OUTPUT
	for t in "${TAGS[@]}"; do
		expect "$1 $3: rule $t counts exactly" "${WANT[$t]}" "$(snapc "$t")"
	done
}
norm() { grep -v '^#' | sed 's/\[[0-9]*:[0-9]*\]//'; }

# front IPT SAVE RESTORE ADDR PORT: the whole matrix row for one front end.
front() {
	local ipt=$1 save=$2 restore=$3 addr=$4 port=$5 fe t line d
	local dir=/tmp/$1
	fe=$1
	mkdir -p "$dir"
	d=(-p udp -d "$addr" --dport "$port" -m cgroup2)
	udp_sink "$addr" "$port"

	for t in "${TAGS[@]}"; do
		opts "$t"
		expect_ok "$fe: insert $t" "$ipt" -w -A OUTPUT "${d[@]}" "${OPTS[@]}" \
			-m comment --comment "$t"
	done
	round "$addr" "$port"
	counts "$fe" "$ipt" "inserted"

	# -L for people (the -L -v -x -n that counts just read), -S as save lines.
	line=$SNAP
	expect_grep "$fe: -L shows the literal" 'cgroup2 path mx/web\.service /\* lit \*/' "$line"
	expect_grep "$fe: -L shows the inverted glob" 'cgroup2 ! path mx/\*\.service /\* inv \*/' "$line"
	expect_grep "$fe: -L shows both patterns of multi" \
		'cgroup2 path mx/db\.service,mx/other\.slice/\* /\* multi \*/' "$line"
	expect_grep "$fe: -L quotes the odd pattern" \
		'cgroup2 path "mx/odd dir \\"q\\" '"'x'"' \\\\\\\\ @u! ' "$line"

	"$save" -t filter >"$dir/s1" 2>/dev/null
	for t in "${TAGS[@]}"; do
		line=$(grep -e "--comment $t\$" "$dir/s1")
		expect "$fe save: rule $t" "$(savetext "$t")" "-m cgroup2${line#*-m cgroup2}"
	done
	expect "$fe: -S prints the save lines" "$(grep '^-A OUTPUT' "$dir/s1")" \
		"$("$ipt" -w -S OUTPUT 2>/dev/null | grep '^-A OUTPUT')"

	"$ipt" -w -F OUTPUT
	expect "$fe: flushed" "" "$("$ipt" -w -S OUTPUT 2>/dev/null | grep cgroup2)"
	expect_ok "$fe: restore the saved rules" "$restore" "$dir/s1"
	"$save" -t filter >"$dir/s2" 2>/dev/null
	expect "$fe: save, flush, restore, save: same text" \
		"$(norm <"$dir/s1")" "$(norm <"$dir/s2")"
	round "$addr" "$port"
	counts "$fe" "$ipt" "restored"

	# --test: parses and checks all, commits nothing (counters kept too).
	"$save" -c -t filter >"$dir/c1" 2>/dev/null
	expect_ok "$fe: restore --test of the saved file" "$restore" --test "$dir/s1"
	"$save" -c -t filter >"$dir/c2" 2>/dev/null
	expect "$fe: restore --test changed nothing, counters included" \
		"$(grep -v '^#' "$dir/c1")" "$(grep -v '^#' "$dir/c2")"

	# --noflush appends and keeps the others with their counters.
	printf '*filter\n-A OUTPUT %s -m cgroup2 --path "mx/db.service" -m comment --comment added\nCOMMIT\n' \
		"${d[*]:0:6}" >"$dir/add"
	expect_ok "$fe: restore --noflush of one rule" "$restore" --noflush "$dir/add"
	sends mx/db.service "$addr" "$port" 1
	snap "$ipt" OUTPUT
	expect "$fe --noflush: the new rule counts" 1 "$(snapc added)"
	expect "$fe --noflush: lit kept its counter" 2 "$(snapc lit)"
	expect "$fe --noflush: multi kept its counter and counts" 9 "$(snapc multi)"
	line=$("$ipt" -w -S OUTPUT 2>/dev/null)
	expect "$fe --noflush: one rule more" 8 "$(grep -c cgroup2 <<<"$line")"
	expect "$fe --noflush: the new rule is last" added "$(tail -n 1 <<<"$line" | sed 's/.*--comment //')"

	# -C/-D compare the exact patterns (order, inversion, bytes).
	opts multi
	expect_ok "$fe: -C finds multi" "$ipt" -w -C OUTPUT "${d[@]}" "${OPTS[@]}" -m comment --comment multi
	expect_fail "$fe: -C misses multi with its patterns swapped" "$ipt" -w -C OUTPUT "${d[@]}" \
		--path 'mx/other.slice/*' --path mx/db.service -m comment --comment multi
	expect_fail "$fe: -C misses glob when inverted" "$ipt" -w -C OUTPUT "${d[@]}" \
		! --path 'mx/*.service' -m comment --comment glob
	expect_ok "$fe: -C finds the odd rule" "$ipt" -w -C OUTPUT "${d[@]}" --path "$ODD_PAT" \
		-m comment --comment odd
	expect_fail "$fe: -C misses the odd rule without its last byte" "$ipt" -w -C OUTPUT "${d[@]}" \
		--path "${ODD_PAT%?}" -m comment --comment odd
	expect_ok "$fe: -D deletes multi" "$ipt" -w -D OUTPUT "${d[@]}" "${OPTS[@]}" -m comment --comment multi
	snap "$ipt" OUTPUT
	expect "$fe -D: multi is gone" missing "$(snapc multi)"
	expect "$fe -D: glob kept its counter" 6 "$(snapc glob)"
	expect "$fe -D: odd kept its counter" 13 "$(snapc odd)"
}
