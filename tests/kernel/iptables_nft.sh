#!/usr/bin/env bash
# iptables-nft (nft_compat): rules count exactly; nft list ruleset shows
# every one as "xt match cgroup2" (never as an early-bound native
# "socket cgroupv2" that would lose late binding if saved with nft), and
# says nothing on stderr; iptables-nft-save round trip; -C/-D.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach

P=9901
mkcg svc/web.service svc/other.service
d=(-p udp -d 127.0.0.1 --dport $P -m cgroup2)
expect_ok "insert literal" iptables-nft -w -A OUTPUT "${d[@]}" --path svc/web.service -m comment --comment lit
expect_ok "insert glob" iptables-nft -w -A OUTPUT "${d[@]}" --path 'svc/*.service' -m comment --comment glob
expect_ok "insert inverted" iptables-nft -w -A OUTPUT "${d[@]}" ! --path svc/web.service -m comment --comment inv
sends svc/web.service 127.0.0.1 $P 2
sends svc/other.service 127.0.0.1 $P 3
sends "" 127.0.0.1 $P 1
snap iptables-nft OUTPUT
expect "literal counts web" 2 "$(snapc lit)"
expect "glob counts web and other" 5 "$(snapc glob)"
expect "inverted counts other and the root" 4 "$(snapc inv)"
expect "no legacy filter table was made" "" "$(iptables-legacy-save -t filter 2>/dev/null | grep -e -A)"

rs=$(nft list ruleset 2>/tmp/nft.err)
expect "nft list ruleset succeeds" 0 $?
expect_grep "nft shows the literal rule as xt match cgroup2 with its count" \
	'^\s*ip daddr 127.0.0.1 udp dport 9901 xt match cgroup2 +counter packets 2 ' "$rs"
expect_grep "nft shows the glob rule as xt match cgroup2 with its count" \
	'^\s*ip daddr 127.0.0.1 udp dport 9901 xt match cgroup2 +counter packets 5 ' "$rs"
expect_grep "nft shows the inverted rule as xt match cgroup2 with its count" \
	'^\s*ip daddr 127.0.0.1 udp dport 9901 xt match cgroup2 +counter packets 4 ' "$rs"
expect_nogrep "nft never shows a native socket cgroupv2 for them" 'socket cgroupv2' "$rs"
expect "nft sees three rules in OUTPUT" 3 "$(grep -c 'dport 9901' <<<"$rs")"
expect "nft runs all three through nft_compat" 3 "$(grep -c 'xt match cgroup2' <<<"$rs")"
expect_nogrep "nft list prints no cgroup2 translation notes" cgroup2 "$(cat /tmp/nft.err)"

# -C and -D find rules by their match data.
expect_ok "iptables-nft -C finds the glob rule" iptables-nft -w -C OUTPUT "${d[@]}" \
	--path 'svc/*.service' -m comment --comment glob
expect_fail "iptables-nft -C does not find another pattern" iptables-nft -w -C OUTPUT "${d[@]}" \
	--path 'svc/*.slice' -m comment --comment glob

# Round trip.
iptables-nft-save -t filter >/tmp/s1 2>/dev/null
expect_grep "save: literal" '^-A OUTPUT .*-m cgroup2 --path "svc/web.service" -m comment --comment lit$' "$(cat /tmp/s1)"
expect_grep "save: glob" '^-A OUTPUT .*-m cgroup2 --path "svc/\*.service" -m comment --comment glob$' "$(cat /tmp/s1)"
expect_grep "save: inverted" '^-A OUTPUT .*-m cgroup2 ! --path "svc/web.service" -m comment --comment inv$' "$(cat /tmp/s1)"
iptables-nft -w -F OUTPUT
expect "flushed" missing "$(counter iptables-nft OUTPUT lit)"
expect_ok "iptables-nft-restore the saved rules" iptables-nft-restore /tmp/s1
iptables-nft-save -t filter >/tmp/s2 2>/dev/null
norm() { grep -v '^#' "$1" | sed 's/\[[0-9]*:[0-9]*\]//'; }
expect "save, restore, save: same text" "$(norm /tmp/s1)" "$(norm /tmp/s2)"
sends svc/web.service 127.0.0.1 $P 1
snap iptables-nft OUTPUT
expect "restored literal counts" 1 "$(snapc lit)"
expect "restored glob counts" 1 "$(snapc glob)"
expect "restored inverted does not" 0 "$(snapc inv)"
expect_ok "iptables-nft -D deletes the glob rule" iptables-nft -w -D OUTPUT "${d[@]}" \
	--path 'svc/*.service' -m comment --comment glob
expect "glob rule gone" missing "$(counter iptables-nft OUTPUT glob)"
expect "literal rule kept" 1 "$(counter iptables-nft OUTPUT lit)"
finish
