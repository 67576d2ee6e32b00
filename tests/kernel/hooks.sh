#!/usr/bin/env bash
# Hooks: the match is valid from INPUT, OUTPUT and POSTROUTING only.
# FORWARD and PREROUTING (mangle, raw, nat; also FORWARD reached through a
# user chain) are refused with a non-zero exit and a dmesg line naming the
# hooks; every allowed chain of filter, mangle, nat and raw accepts the rule
# and counts exactly.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
mkcg svc/web.service
M=(-m cgroup2 --path svc/web.service)
allowed='INPUT/OUTPUT/POSTROUTING'

# x_tables prints the hook message with pr_info_ratelimited: 10 lines per
# 5 s from the first.  Wait for a new window before the 11th, so that every
# refusal can be asserted to log its line.
_rl_start=0 _rl_count=0
ratelimit_window() {
	local now=${EPOCHREALTIME/./}
	if ((_rl_count == 10)); then
		local left=$((_rl_start + 5200000 - now))
		((left > 0)) && sleep "$((left / 1000000)).$(printf '%06d' $((left % 1000000)))"
		_rl_count=0
		now=${EPOCHREALTIME/./}
	fi
	((_rl_count++ == 0)) && _rl_start=$now
	return 0
}

refused() { # IPT TABLE CHAIN HOOKNAME [PREFIX-LABEL]
	local out rc
	ratelimit_window
	dmesg_clear
	out=$($1 -w -t "$2" -A "$3" "${M[@]}" 2>&1)
	rc=$?
	if ((rc != 0)); then pass "$1 -t $2 -A $3 refused (status $rc)"
	else fail "$1 -t $2 -A $3 refused (accepted: $out)"; fi
	local want="x_tables: ip6?_tables: cgroup2 match: used from hooks $4, but only valid from $allowed"
	local log
	log=$(dmesg_new)
	# The window above is timed by the guest's clock, the rate limit by
	# jiffies, which lag it on a loaded emulator: if the line was
	# suppressed, refuse once more in a window surely new.
	if ! grep -qE -- "$want" <<<"$log"; then
		echo "INFO $1 -t $2 $3: no line (rate limit?); refusing again after 6 s"
		sleep 6
		dmesg_clear
		$1 -w -t "$2" -A "$3" "${M[@]}" >/dev/null 2>&1 &&
			fail "$1 -t $2 -A $3 refused the second time"
		log=$(dmesg_new)
		_rl_count=1 _rl_start=${EPOCHREALTIME/./}
	fi
	expect_grep "$1 -t $2 $3: dmesg names hook $4" "$want" "$log"
}
for ipt in iptables-legacy iptables-nft; do
	refused $ipt filter FORWARD FORWARD
	refused $ipt mangle FORWARD FORWARD
	refused $ipt mangle PREROUTING PREROUTING
	refused $ipt raw PREROUTING PREROUTING
	refused $ipt nat PREROUTING PREROUTING
done
refused ip6tables-legacy filter FORWARD FORWARD
refused ip6tables-nft mangle PREROUTING PREROUTING

# Through a user chain: FORWARD -> uc.
for ipt in iptables-legacy iptables-nft; do
	$ipt -w -N uc && $ipt -w -A uc "${M[@]}" || fail "$ipt: user chain with the match"
	ratelimit_window
	dmesg_clear
	expect_fail "$ipt: jump from FORWARD to a chain using the match refused" $ipt -w -A FORWARD -j uc
	[[ $ipt == iptables-legacy ]] &&
		expect_grep "$ipt: dmesg names FORWARD for the user chain" \
			"cgroup2 match: used from hooks FORWARD, but only valid from $allowed" "$(dmesg_new)"
	expect_ok "$ipt: jump from OUTPUT to it accepted" $ipt -w -A OUTPUT -p udp --dport 9 -j uc
	expect "$ipt: FORWARD stayed empty" 0 "$($ipt -w -S FORWARD | grep -c -- -A)"
done

# Allowed: every chain of each table on one of these hooks.  INPUT is fed
# from a peer netns (on loopback nat INPUT never sees a packet: the flow's
# NAT binding is set up in POSTROUTING before it loops back), OUTPUT and
# POSTROUTING from here; nat sees each flow's first packet only.
netns_add peer
veth_ns peer 10.9.0.1/24 10.9.0.2/24
drop_unreach
chains=("filter INPUT 3" "filter OUTPUT 3" "mangle INPUT 3" "mangle OUTPUT 3"
	"mangle POSTROUTING 3" "raw OUTPUT 3" "nat INPUT 1" "nat OUTPUT 1" "nat POSTROUTING 1")
for ipt in iptables-legacy iptables-nft; do
	for c in "${chains[@]}"; do
		set -- $c
		p=9131
		[[ $2 == INPUT ]] && p=9132
		expect_ok "$ipt -t $1 -A $2 accepted" $ipt -w -t $1 -A $2 -p udp --dport $p "${M[@]}" \
			-m comment --comment "$1-$2"
	done
done
# nat sees only tracked packets: make this netns track connections.
iptables-legacy -w -A OUTPUT -p udp -m conntrack --ctstate NEW,ESTABLISHED || fail "conntrack rule"

bg_listen srv --cgroup svc/web.service listen udp 10.9.0.1 9132 --count 3
sends svc/web.service 127.0.0.1 9131 3
expect "peer sends 3" "sent 3" "$(in_ns peer cg2net send udp 10.9.0.1 9132 --count 3 2>/dev/null)"
expect "listener received 3" "received 3" "$(bg_result srv)"
for ipt in iptables-legacy iptables-nft; do
	for c in "${chains[@]}"; do
		set -- $c
		expect "$ipt -t $1 $2 counted $3" "$3" "$(counter $ipt $2 "$1-$2" $1 2>/dev/null)"
	done
done
finish
