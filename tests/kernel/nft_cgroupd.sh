#!/usr/bin/env bash
# nft-cgroupd as users run it: an nft table with a cgroupsv2 set and a
# "socket cgroupv2 level 2 @web" rule, the daemon bound to
# system.slice/*.service on the real cgroup2 mount.  Services started after
# the daemon are counted exactly, also after a restart (rmdir + mkdir: a new
# id) and one created later; SIGTERM ends the daemon with status 0.
. "$(dirname "$0")/../lib/vmtest.sh"

P=9931
S=system.slice
nft -f - <<-EOF || fail "load the nft table"
	table inet t {
		set web { type cgroupsv2; }
		chain out {
			type filter hook output priority 0; policy accept;
			ip daddr 127.0.0.1 udp dport $P socket cgroupv2 level 2 @web counter
		}
	}
EOF
udp_sink 127.0.0.1 $P
mkcg $S user.slice

nft-cgroupd -v inet:t:web="$S/*.service" >/tmp/nftcgd.log 2>&1 &
dpid=$!
_bg+=("$dpid")
for i in $(seq 100); do grep -qs "initial sync" /tmp/nftcgd.log && break; sleep 0.1; done
expect_grep "daemon finished its initial sync" "initial sync" "$(cat /tmp/nftcgd.log)"

# set_is DIR...: the set holds exactly the ids of these cgroups (--list
# prints "ID /PATH" per element).
ids() { (($#)) && for d; do echo "$(stat -c %i "$CG/$d") /$d"; done | sort -n; }
set_is() { [[ $(nft-cgroupd --list inet:t:web 2>&1) == "$(ids "$@")" ]]; }
# expect_set NAME DIR...: wait up to 10 s for that content.
expect_set() {
	local name=$1 i
	shift
	for i in $(seq 100); do set_is "$@" && break; sleep 0.1; done
	if set_is "$@"; then pass "$name"
	else fail "$name (set [$(nft-cgroupd --list inet:t:web 2>&1 | tr '\n' ' ')], want [$(ids "$@" | tr '\n' ' ')])"; fi
}
count() {
	nft list chain inet t out | awk '/@web counter/ { for (i = 1; i < NF; i++)
		if ($i == "packets") { print $(i + 1); f = 1 } } END { if (!f) print "missing" }'
}

expect_set "empty set while no service exists"
mkcg $S/web.service $S/db.service/worker $S/cron.scope user.slice/user-0.slice
expect_set "services created after the start are in the set" $S/db.service $S/web.service
sends $S/web.service 127.0.0.1 $P 2
sends $S/db.service/worker 127.0.0.1 $P 3
sends $S/cron.scope 127.0.0.1 $P 4
sends user.slice/user-0.slice 127.0.0.1 $P 5
sends $S 127.0.0.1 $P 6
sends "" 127.0.0.1 $P 7
expect "counted web.service and db.service (and below), nothing else" 5 "$(count)"

# restart of web.service: the new cgroup has a new id, which replaces the old
old=$(stat -c %i "$CG/$S/web.service")
rmdir "$CG/$S/web.service" || fail "rmdir web.service"
expect_set "a stopped service leaves the set" $S/db.service
mkcg $S/web.service
expect "the restarted service has a new id" 1 "$(( $(stat -c %i "$CG/$S/web.service") != old ))"
expect_set "the restarted service is in the set again" $S/db.service $S/web.service
sends $S/web.service 127.0.0.1 $P 8
expect "traffic of the restarted service counted" 13 "$(count)"

# a service that did not exist when anything was configured
mkcg $S/late.service
expect_set "a service created later is in the set" $S/db.service $S/late.service $S/web.service
sends $S/late.service 127.0.0.1 $P 9
sends $S/cron.scope 127.0.0.1 $P 1
expect "traffic of the later service counted, of the scope not" 22 "$(count)"
expect_nogrep "the daemon logged no error" 'error|fail|warn' "$(cat /tmp/nftcgd.log)"

kill -TERM "$dpid"
for i in $(seq 100); do kill -0 "$dpid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$dpid" 2>/dev/null; then
	fail "SIGTERM: nft-cgroupd still runs after 10 s"
	kill -KILL "$dpid"
fi
wait "$dpid"
expect "SIGTERM: nft-cgroupd exits 0" 0 $?
expect_set "the set keeps its content after the daemon exits" \
	$S/db.service $S/late.service $S/web.service
finish
