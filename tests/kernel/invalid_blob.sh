#!/usr/bin/env bash
# Hostile match blobs through IPT_SO_SET_REPLACE (xt_cgroup2_raw): each is
# rejected with the right errno and one dmesg line saying what is wrong; a
# valid blob is accepted.  The VM runner fails the run on any WARN/BUG.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
EINVAL='rejected: Invalid argument'
ENAMETOOLONG='rejected: File name too long'

# blob NAME WANT-OUTPUT DMESG-REGEX RAW-ARGS...
blob() {
	local name=$1 want=$2 re=$3 out msgs
	shift 3
	dmesg_clear
	out=$(xt_cgroup2_raw "$@" 2>&1)
	out=${out##*$'\n'}	# the result line: the last
	msgs=$(dmesg_new)
	expect "$name: $want" "$want" "$out"
	if [[ -z $re ]]; then
		expect "$name: no dmesg line" "" "$(matching "$NF_LINE" "$msgs")"
		return
	fi
	expect_grep "$name: dmesg says what is wrong" "$re" "$msgs"
	# Lines of x_tables and of the module only: the kernel may log
	# something else meanwhile (CI of e5457ee, 7.2 under TCG: a second
	# line during "dot component").
	expect "$name: exactly one dmesg line" 1 "$(count_matching "$NF_LINE" "$msgs")"
	[[ $(count_matching . "$msgs") == 1 ]] ||
		echo "INFO $name: other kernel lines meanwhile: $(grep -v -E -- "$NF_LINE" <<<"$msgs" | tr '\n' '|')"
}

X='xt_cgroup2: '
NF_LINE='xt_cgroup2: |x_tables: '
blob "unknown flag 0x2" "$EINVAL" "^.*${X}unknown flags 0x2$" --flags 2 --patterns a
blob "unknown flags 0x80000001" "$EINVAL" "^.*${X}unknown flags 0x80000000$" --flags 0x80000001 --patterns a
blob "count 0" "$EINVAL" "${X}pattern count 0 is not within 1..64$" --patterns a --count 0
blob "count 65" "$EINVAL" "${X}pattern count 65 is not within 1..64$" --patterns a --count 65
blob "count 65535" "$EINVAL" "${X}pattern count 65535 is not within 1..64$" --patterns a --count 65535
blob "count 3 with 2 patterns" "$EINVAL" "${X}pattern 3 is not NUL-terminated within 4 bytes$" \
	--patterns a b --count 3
blob "len 0" "$EINVAL" "${X}pattern 1 is not NUL-terminated within 0 bytes$" --patterns a --len 0
blob "len 2049" "$ENAMETOOLONG" "${X}patterns take 2049 bytes, more than 2048$" --patterns a --len 2049
blob "len 65535" "$ENAMETOOLONG" "${X}patterns take 65535 bytes, more than 2048$" --patterns a --len 65535
blob "not NUL-terminated" "$EINVAL" "${X}pattern 1 is not NUL-terminated within 3 bytes$" \
	--patterns abc --no-nul
blob "second not NUL-terminated" "$EINVAL" "${X}pattern 2 is not NUL-terminated within 6 bytes$" \
	--patterns abc de --no-nul
blob "bytes after len" "$EINVAL" "${X}unused pattern bytes are not zero$" --patterns a --trailing-garbage
blob "bytes after the last pattern" "$EINVAL" "${X}2 bytes follow the last of 1 patterns$" \
	--patterns a b --count 1
blob "empty pattern" "$EINVAL" "${X}pattern 1 \"\" is empty \(byte 0\)$" --pattern-bytes 00
blob "unterminated [" "$EINVAL" "${X}pattern 1 \"a/\[b\" has an unterminated \"\[\" \(byte 2\)$" \
	--patterns 'a/[b'
blob "unterminated {" "$EINVAL" "${X}pattern 1 \"\{a,b\" has an unterminated \"\{\" \(byte 0\)$" \
	--patterns '{a,b'
blob "dot component" "$EINVAL" "${X}pattern 1 \"a/\./b\" has a \"\.\" or \"\.\.\" component \(byte 2\)$" \
	--patterns a/./b
blob "dot-dot component" "$EINVAL" "${X}pattern 1 \"\.\./x\" has a \"\.\" or \"\.\.\" component \(byte 0\)$" \
	--patterns ../x
blob "empty component" "$EINVAL" "${X}pattern 1 \"a//b\" has an empty component \(\"//\"\) \(byte 2\)$" \
	--patterns a//b
blob "dangling backslash" "$EINVAL" "$X"'pattern 1 "a\\" ends a component with a lone "\\" \(byte 1\)$' \
	--patterns 'a\'
blob "invalid second pattern" "$EINVAL" "${X}pattern 2 \"b/\[\" has an unterminated \"\[\" \(byte 2\)$" \
	--patterns a 'b/['
# The kernel accepts exactly what the extension does: patterns of at most
# 1023 bytes (what iptables-restore reads back), no control bytes (what
# iptables-save cannot write), a bounded matcher cost per pattern and rule.
# pr_info_ratelimited() allows 10 lines per call site in 5 s: wait out the
# pattern checks' burst above before four more.
sleep 5
a1024=$(printf 'a%.0s' $(seq 1024))
blob "pattern of 1024 bytes" "$ENAMETOOLONG" "${X}pattern 1 \"a{80}\" is too long \(byte 1023\)$" \
	--patterns "$a1024"
blob "newline in a pattern" "$EINVAL" "${X}pattern 1 \"a\\\\nb\" contains a control character, which iptables-save cannot write \(byte 1\)$" \
	--pattern-bytes 610a6200
blob "DEL in a pattern" "$EINVAL" "${X}pattern 1 \"a.+\" contains a control character" \
	--pattern-bytes 617f00
stars=$(printf '*a%.0s' $(seq 128))
blob "257 matcher states in one pattern" "$EINVAL" "${X}pattern 1 \"\*a\*a.*\" needs more than 256 matcher states" \
	--patterns "${stars}b"
s200=$(printf '*a%.0s' $(seq 100))
blob "603 matcher states in one rule" "$EINVAL" "${X}patterns 1 to 3 need 603 matcher states, more than 512$" \
	--patterns "x/$s200" "y/$s200" "z/$s200"
blob "a DFA of 256 rows" "$EINVAL" "${X}pattern 2 \"x/\*a\?{7}\" compiles to more than 254 matcher states in a component or 8 KiB of matcher tables .* \(byte 2\)$" \
	--patterns a 'x/*a???????'
blob "inner NUL, count 1" "$EINVAL" "${X}2 bytes follow the last of 1 patterns$" \
	--pattern-bytes 61006200 --count 1
blob "wrong data size" "$EINVAL" 'x_tables: ip_tables: cgroup2\.0 match: invalid size 8 \(kernel\) != \(user\) 2064$|invalid size 2064 \(kernel\) != \(user\) 8$' \
	--patterns a --data-size 8
# Revision 1: the same checks within its 512 bytes.
blob "revision 1: len 513" "$ENAMETOOLONG" "${X}patterns take 513 bytes, more than 512$" \
	--revision 1 --patterns a --len 513
blob "revision 1: bytes after len" "$EINVAL" "${X}unused pattern bytes are not zero$" \
	--revision 1 --patterns a --trailing-garbage
blob "revision 1: revision 0's data size" "$EINVAL" 'x_tables: ip_tables: cgroup2\.1 match: invalid size 528 \(kernel\) != \(user\) 2064$|invalid size 2064 \(kernel\) != \(user\) 528$' \
	--revision 1 --patterns a --data-size 2064
blob "unknown revision 2" "rejected: Protocol wrong type for socket" "" --revision 2 --patterns a \
	--data-size 528
blob "IPv6 unknown flag" "$EINVAL" "${X}unknown flags 0x4$" -6 --flags 4 --patterns a
blob "IPv6 bad pattern" "$EINVAL" "${X}pattern 1 \"\.\" has a" -6 --patterns .

# Valid blobs are accepted and show up as rules.
blob "valid: two patterns" accepted "" --patterns a 'b/*'
expect_grep "valid blob saves as a rule" '^-A OUTPUT -m cgroup2 --path a --path "b/\*" -j ACCEPT$' \
	"$(XT_CGROUP2_REVISION=0 iptables-legacy-save -t filter)"
blob "valid: revision 1, two patterns" accepted "" --revision 1 --patterns a 'b/*'
expect_grep "valid revision 1 blob saves as a rule" '^-A OUTPUT -m cgroup2 --path a --path "b/\*" -j ACCEPT$' \
	"$(iptables-legacy-save -t filter)"
blob "valid: revision 1, 512 bytes" accepted "" --revision 1 \
	--patterns "$(printf 'a%.0s' $(seq 255))" "$(printf 'b%.0s' $(seq 255))"
blob "valid: inverted, 64 patterns" accepted "" --flags 1 --patterns $(seq 64)
blob "valid: 2048 bytes" accepted "" --patterns "$(printf 'a%.0s' $(seq 1023))" "$(printf 'b%.0s' $(seq 1023))"
# Costly before the compiled matcher (seconds per new cgroup), cheap now.
braces=$(printf '{a,a}%.0s' $(seq 8))
blob "valid: braces, star and a 960-byte bracket" accepted "" \
	--patterns "**/$braces*[$(printf 'a%.0s' $(seq 960))]b"
blob "valid: a DFA of 128 rows" accepted "" --patterns 'x/*a??????'
blob "valid: 512 matcher states in one rule" accepted "" \
	--patterns "x/${stars:0:254}b" "y/${stars:0:254}b"
blob "valid IPv6" accepted "" -6 --patterns 'x/**'
expect "flush" accepted "$(xt_cgroup2_raw --flush)"
expect "flush IPv6" accepted "$(xt_cgroup2_raw -6 --flush)"
expect "no rule left" 0 "$(iptables-legacy-save -t filter | grep -c -- -A)"
expect "module unused at the end" 0 "$(awk '$1 == "xt_cgroup2" { print $3 }' /proc/modules)"
finish
