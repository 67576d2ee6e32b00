#!/usr/bin/env bash
# Revisions 0 and 1 of the match, as users meet them.  iptables takes one
# revision for every rule of a command, the newest the kernel has: 1, whose
# 512 bytes of patterns hold any path of -m cgroup.  A rule that outgrows it
# is refused with a message naming the way out, XT_CGROUP2_REVISION=0,
# which loads it as revision 0 (2048 bytes); a host that needs that gives
# it to every iptables command, and everything works as before: list, save,
# restore, check and delete by rule spec.  Rules of both revisions in one
# table match the same traffic and share one compiled rule when their
# patterns agree; iptables-legacy (1.8.8 and later) lists a rule of the
# revision it did not pick as "[unsupported revision]" (iptables-nft lists
# it whole), and either deletes it by number only.  Legacy and nft alike
# otherwise.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
set -f

P=9511
R=/sys/module/xt_cgroup2/parameters/rules
mkcg rv/web rv/db
udp_sink 127.0.0.1 $P

# Two patterns of 600 bytes, too many for revision 1: a literal one, cheap
# for the matcher however long, and a glob that matches rv/web.
LONG=(--path "rv/$(printf 'x%.0s' {1..590})" --path 'rv/w*')
LONG_SAVE="--path \"rv/$(printf 'x%.0s' {1..590})\" --path \"rv/w*\""
SHORT=(--path 'rv/w*')
HINT='XT_CGROUP2_REVISION=0 in the environment gives 2048'
r=(-p udp -d 127.0.0.1 --dport $P -m cgroup2)
# rev0 CMD...: CMD with revision 0, as on a host that needs it.
rev0() { XT_CGROUP2_REVISION=0 "$@"; }
# rules IPT [rev0]: the OUTPUT rules as -S lists them, by that iptables.
rules() { ${2:+rev0} "$1" -w -S OUTPUT | grep -- '-m cgroup2'; }
# table IPT-SAVE: the filter table as saved with revision 0, no counters.
table() { rev0 "$1" -t filter | grep -v '^#' | sed 's/\[[0-9:]*\]//'; }

for ipt in iptables-legacy iptables-nft; do
	# Revision 1 is what iptables picks; a long rule is refused with a way out.
	out=$($ipt -w -A OUTPUT "${r[@]}" "${LONG[@]}" -m comment --comment long 2>&1)
	expect "$ipt refuses a rule too long for revision 1 (status)" 2 $?
	expect_grep "$ipt says it does not fit, and how to load it" \
		"does not fit: the patterns of one rule take at most 512 bytes.*$HINT" "$out"
	expect "$ipt: nothing was added" "" "$(rules $ipt)"

	before=$(cat $R)
	expect_ok "$ipt adds a short rule (revision 1)" \
		$ipt -w -A OUTPUT "${r[@]}" "${SHORT[@]}" -m comment --comment short
	expect_ok "$ipt adds the long rule with XT_CGROUP2_REVISION=0" \
		rev0 $ipt -w -A OUTPUT "${r[@]}" "${LONG[@]}" -m comment --comment long
	expect_ok "$ipt adds the short rule again with XT_CGROUP2_REVISION=0" \
		rev0 $ipt -w -A OUTPUT "${r[@]}" "${SHORT[@]}" -m comment --comment short0
	expect "$ipt: the short rules of both revisions share one compiled rule" \
		$((before + 2)) "$(cat $R)"

	sends rv/web 127.0.0.1 $P 3
	sends rv/db 127.0.0.1 $P 2
	snap $ipt OUTPUT
	expect "$ipt: revision 1 rule counts rv/web" 3 "$(snapc short)"
	expect "$ipt: revision 0 long rule counts rv/web" 3 "$(snapc long)"
	expect "$ipt: revision 0 short rule counts rv/web" 3 "$(snapc short0)"

	# Listed by an iptables of either revision.  iptables-nft hands every
	# rule to the revision it picked, whose print reads the rule's own;
	# iptables-legacy asks libxtables for the rule's revision, which keeps
	# only the one it picked.
	if [[ $ipt == iptables-legacy ]]; then other=(2 1); else other=(0 0); fi
	out=$(rules $ipt)
	expect_grep "$ipt lists the revision 1 rule" '--path "rv/w\*" -m comment --comment short$' "$out"
	expect "$ipt: rules of revision 0 listed as \"[unsupported revision]\"" "${other[0]}" \
		"$(grep -c 'cgroup2 \[unsupported revision\]' <<<"$out")"
	out=$(rules $ipt rev0)
	expect "$ipt with XT_CGROUP2_REVISION=0 lists the long rule whole" 1 \
		"$(grep -cF -- "$LONG_SAVE -m comment --comment long" <<<"$out")"
	expect "$ipt with XT_CGROUP2_REVISION=0: rules of revision 1 listed as \"[unsupported revision]\"" \
		"${other[1]}" "$(grep -c 'cgroup2 \[unsupported revision\]' <<<"$out")"

	# Deleted by spec with the revision it was made with.
	expect_ok "$ipt -D of the revision 1 rule" \
		$ipt -w -D OUTPUT "${r[@]}" "${SHORT[@]}" -m comment --comment short
	expect_fail "$ipt -D of a revision 0 rule without XT_CGROUP2_REVISION=0" \
		$ipt -w -D OUTPUT "${r[@]}" "${SHORT[@]}" -m comment --comment short0
	expect_ok "$ipt -C of the long rule with XT_CGROUP2_REVISION=0" \
		rev0 $ipt -w -C OUTPUT "${r[@]}" "${LONG[@]}" -m comment --comment long

	# A host of revision 0: save and restore whole; refused by default.
	saved=$(rev0 $ipt-save -t filter)
	before=$(table $ipt-save)
	out=$($ipt-restore -w <<<"$saved" 2>&1)
	expect "$ipt-restore of the saved set is refused by default (status)" 2 $?
	expect_grep "$ipt-restore says how to load it" "$HINT" "$out"
	expect "$ipt: the refused restore changed nothing" "$before" "$(table $ipt-save)"
	expect_ok "$ipt-restore with XT_CGROUP2_REVISION=0 loads it" \
		rev0 $ipt-restore -w <<<"$saved"
	expect "$ipt: the restored set saves as it was" "$before" "$(table $ipt-save)"
	expect_ok "$ipt -D of a revision 0 rule with XT_CGROUP2_REVISION=0" \
		rev0 $ipt -w -D OUTPUT "${r[@]}" "${SHORT[@]}" -m comment --comment short0
	expect "$ipt: only the long rule is left" 1 "$(rules $ipt rev0 | grep -c 'comment long$')"
	$ipt -w -F OUTPUT
done

# A value other than 0 or 1 is ignored, with a word why; 1 asks for 1 alone.
out=$(XT_CGROUP2_REVISION=2 iptables-legacy -w -A OUTPUT -m cgroup2 --path rv 2>&1)
expect "XT_CGROUP2_REVISION=2: the rule is added" 0 $?
expect_grep "XT_CGROUP2_REVISION=2: says it is ignored" \
	'cgroup2: XT_CGROUP2_REVISION=2 ignored: it is 0 or 1' "$out"
out=$(XT_CGROUP2_REVISION=1 iptables-legacy -w -A OUTPUT -m cgroup2 "${LONG[@]}" 2>&1)
expect "XT_CGROUP2_REVISION=1: the long rule is refused (status)" 2 $?
iptables-legacy -w -F OUTPUT
finish
