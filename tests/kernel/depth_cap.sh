#!/usr/bin/env bash
# The depth cap: only the top 64 levels below the namespace root are
# judged; a cgroup deeper than that gets the verdict of its ancestor at
# level 64, so a tenant's deep tree cannot make a judgement cost more.
# One chain cap/d/.../y (level 64)/d/.../x (level 70)/d/... down to level
# 1,000, made one relative mkdir at a time; datagrams from levels 64, 70,
# 100 and 1,000 through rules that tell the two semantics apart.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach
P=9601

# chain[I]: the name at level I; at I: the path of level I
chain=()
for ((i = 1; i <= 1000; i++)); do chain[i]=d; done
chain[1]=cap chain[64]=y chain[70]=x
at() { local IFS=/; echo "${chain[*]:1:$1}"; }
# made 100 levels at a time, each relative to the last (PATH_MAX)
(
	cd "$CG" || exit 1
	for ((i = 1; i <= 1000; i += 100)); do
		p=$(IFS=/; echo "${chain[*]:i:100}")
		mkdir -p "$p" && cd "$p" || exit 1
	done
) || fail "make the chain 1,000 levels deep"
[[ -d $CG/$(at 1000) ]] && pass "level 1,000 made" || fail "no directory at level 1,000"
expect "level 1,000 is 1,000 levels deep" 1000 "$(($(at 1000 | tr -cd / | wc -c) + 1))"

lit64=$(at 64)
lit65=$lit64/d
f=$(mktemp)
{
	echo '*filter'
	for r in "x70 cap/**/x" "y64 cap/**/y" "y65 cap/**/y/d" "lit64 $lit64" \
		 "lit65 $lit65"; do
		set -- $r
		echo "-A OUTPUT -p udp -d 127.0.0.1 --dport $P -m cgroup2 --path $2 -m comment --comment $1"
	done
	echo "-A OUTPUT -p udp -d 127.0.0.1 --dport $P -m cgroup2 ! --path cap/**/x -m comment --comment notx"
	echo COMMIT
} >"$f"
expect_ok "restore the depth rules" iptables-legacy-restore -w --noflush "$f"

sends "$(at 64)" 127.0.0.1 $P 1
sends "$(at 70)" 127.0.0.1 $P 2
sends "$(at 100)" 127.0.0.1 $P 4
sends "$(at 1000)" 127.0.0.1 $P 8

snap iptables-legacy OUTPUT
expect "cap/**/x: x at level 70 is past the cap, never seen" 0 "$(snapc x70)"
expect "! cap/**/x: every level judged as level 64 (1+2+4+8)" 15 "$(snapc notx)"
expect "cap/**/y: level 64 and every cgroup below it (1+2+4+8)" 15 "$(snapc y64)"
expect "cap/**/y/d: needs level 65, never matches" 0 "$(snapc y65)"
expect "the 64-component path of level 64: itself and below (1+2+4+8)" 15 "$(snapc lit64)"
expect "a 65-component path: never matches" 0 "$(snapc lit65)"
finish
