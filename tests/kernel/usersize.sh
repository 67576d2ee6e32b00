#!/usr/bin/env bash
# .usersize: the kernel-private pointer (priv, from offsetof(struct
# xt_cgroup2_info, priv) on, or _v1's) never reaches userspace.  For rules
# inserted by iptables-legacy (revision 1, which iptables picks, and 0 when
# asked), by xt_cgroup2_raw (both) and by iptables-nft, IPv4 and IPv6, the
# match data read back from the kernel (IPT_SO_GET_ENTRIES / IP6T_, or the
# NFTA_MATCH_INFO of an NFT_MSG_GETRULE dump) equals the blob userspace
# built byte for byte, priv bytes zero, while the rule counts traffic (so
# checkentry did set priv and the match uses it).
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

P=9911
mkcg us/web us/other
udp_sink 127.0.0.1 $P
udp_sink ::1 $P

# hexdiff WANT GOT: where two hex strings first differ, 16 bytes of each.
hexdiff() {
	local i
	for ((i = 0; i < ${#1} || i < ${#2}; i += 32)); do
		[[ ${1:i:32} == "${2:i:32}" ]] && continue
		echo "from byte $((i / 2)): want ${1:i:32}, got ${2:i:32}"
		return
	done
}

# Hex digits of XT_ALIGN(sizeof) of each revision's struct.
HEXLEN=(4128 1056)

# readback WHAT REV WANT-HEX ARGS...: the data of the first cgroup2 match
# (revision REV) read back with xt_cgroup2_raw ARGS is WANT-HEX, and its
# priv bytes are zero.
readback() {
	local what=$1 rev=$2 want=$3 got
	shift 3
	got=$(xt_cgroup2_raw "$@" --get-match 2>&1)
	expect "$what: data size is XT_ALIGN(sizeof) of revision $rev" "${HEXLEN[rev]}" "${#got}"
	if [[ $got == "$want" ]]; then pass "$what: bytes read back are the ones userspace built"
	else fail "$what: bytes read back differ ($(hexdiff "$want" "$got"))"; fi
	expect "$what: priv bytes zero" "priv zero" \
		"$(xt_cgroup2_raw "$@" --revision "$rev" --get-match --check-priv 2>&1)"
}

# The patterns as the extension packs them in revision 1 (blob) or 0
# (blob0); --dump leaves priv zero.
blob() { xt_cgroup2_raw --revision 1 --dump --patterns "$@"; }
blob0() { xt_cgroup2_raw --dump --patterns "$@"; }
expect "the reference blob has the struct's size" 1056 "$(blob us/web | tr -d '\n' | wc -c)"
expect "the reference blob's priv is zero" \
	"$(printf '0%.0s' {1..16})" "$(blob us/web | cut -c $((2 * 520 + 1))-)"
expect "the revision 0 reference blob has the struct's size" 4128 "$(blob0 us/web | tr -d '\n' | wc -c)"
expect "the revision 0 reference blob's priv is zero" \
	"$(printf '0%.0s' {1..16})" "$(blob0 us/web | cut -c $((2 * 2056 + 1))-)"
inv=$(blob us/web 'us/{a,b}*' | sed 's/^00/01/')	# flags = XT_CGROUP2_INVERT

# iptables-legacy, IPv4 and IPv6.
iptables-legacy -w -A OUTPUT -p udp -d 127.0.0.1 --dport $P -m cgroup2 \
	--path us/web --path 'us/{a,b}*' -m comment --comment leg4
ip6tables-legacy -w -A OUTPUT -p udp -d ::1 --dport $P -m cgroup2 \
	! --path us/web --path 'us/{a,b}*' -m comment --comment leg6
sends us/web 127.0.0.1 $P 3
sends us/other ::1 $P 2
expect "iptables-legacy rule counts (priv set and used)" 3 "$(counter iptables-legacy OUTPUT leg4)"
expect "ip6tables-legacy inverted rule counts (priv set and used)" 2 "$(counter ip6tables-legacy OUTPUT leg6)"
readback "iptables-legacy IPv4" 1 "$(blob us/web 'us/{a,b}*')"
readback "ip6tables-legacy IPv6" 1 "$inv" -6
expect "iptables-legacy -C still finds the rule by its patterns" 0 \
	"$(iptables-legacy -w -C OUTPUT -p udp -d 127.0.0.1 --dport $P -m cgroup2 \
		--path us/web --path 'us/{a,b}*' -m comment --comment leg4 >/dev/null 2>&1; echo $?)"
# Revision 0, asked for, first in the chain: read back as it was built.
XT_CGROUP2_REVISION=0 iptables-legacy -w -I OUTPUT -p udp -d 127.0.0.1 --dport $P \
	-m cgroup2 --path us/other -m comment --comment leg4r0
sends us/other 127.0.0.1 $P 2
expect "iptables-legacy revision 0 rule counts (priv set and used)" 2 "$(counter iptables-legacy OUTPUT leg4r0)"
readback "iptables-legacy IPv4 revision 0" 0 "$(blob0 us/other)"
iptables-legacy -w -D OUTPUT 1

# xt_cgroup2_raw (replaces the filter table: one unconditional rule in OUTPUT).
# rawcount IPT: packets of the first OUTPUT rule, which must be cgroup2.
rawcount() {
	"$1" -w -L OUTPUT -v -x -n | awk 'NR == 3 && /cgroup2/ { print $1; f = 1 } END { if (!f) print "missing" }'
}
expect "xt_cgroup2_raw IPv4 rule accepted" accepted "$(xt_cgroup2_raw --patterns 'us/w*' 2>&1)"
expect "xt_cgroup2_raw IPv6 rule accepted" accepted "$(xt_cgroup2_raw -6 --patterns us/web us/x 2>&1)"
sends us/web 127.0.0.1 $P 4
sends us/other 127.0.0.1 $P 1
sends us/web ::1 $P 5
expect "raw IPv4 rule counts web only (priv set and used)" 4 "$(rawcount iptables-legacy)"
expect "raw IPv6 rule counts web only (priv set and used)" 5 "$(rawcount ip6tables-legacy)"
readback "xt_cgroup2_raw IPv4" 0 "$(blob0 'us/w*')"
readback "xt_cgroup2_raw IPv6" 0 "$(blob0 us/web us/x)" -6
expect "xt_cgroup2_raw IPv4 revision 1 rule accepted" accepted \
	"$(xt_cgroup2_raw --revision 1 --patterns 'us/o*' 2>&1)"
sends us/other 127.0.0.1 $P 3
sends us/web 127.0.0.1 $P 1
expect "raw IPv4 revision 1 rule counts other only (priv set and used)" 3 "$(rawcount iptables-legacy)"
readback "xt_cgroup2_raw IPv4 revision 1" 1 "$(blob 'us/o*')"
expect "xt_cgroup2_raw IPv4 flush" accepted "$(xt_cgroup2_raw --flush)"
expect "xt_cgroup2_raw IPv6 flush" accepted "$(xt_cgroup2_raw -6 --flush)"
expect "after the flush no cgroup2 match is left to read" none "$(xt_cgroup2_raw --get-match)"

# iptables-nft: nft_compat dumps NFTA_MATCH_INFO with .usersize too.
iptables-nft -w -A OUTPUT -p udp -d 127.0.0.1 --dport $P -m cgroup2 \
	--path us/other -m comment --comment nft4
ip6tables-nft -w -A OUTPUT -p udp -d ::1 --dport $P -m cgroup2 \
	! --path us/web --path 'us/{a,b}*' -m comment --comment nft6
sends us/other 127.0.0.1 $P 2
sends us/web 127.0.0.1 $P 1
sends us/other ::1 $P 3
expect "iptables-nft rule counts (priv set and used)" 2 "$(counter iptables-nft OUTPUT nft4)"
expect "ip6tables-nft inverted rule counts (priv set and used)" 3 "$(counter ip6tables-nft OUTPUT nft6)"
readback "iptables-nft IPv4 (NFTA_MATCH_INFO)" 1 "$(blob us/other)" --nft
readback "ip6tables-nft IPv6 (NFTA_MATCH_INFO)" 1 "$inv" -6 --nft
# nft itself prints no match data, so it cannot leak the pointer there.
dbg=$(nft --debug=netlink list ruleset 2>&1)
expect_grep "nft --debug=netlink names the match" '\[ match name cgroup2 rev 1 \]' "$dbg"
expect_nogrep "nft --debug=netlink shows no kernel address" 'ffff[0-9a-f]{12}' "$dbg"
finish
