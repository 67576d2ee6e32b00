#!/usr/bin/env bash
# vm-options: --add docs:/docs --add README.md:/docs/README.md
# The command blocks of README.md and docs/*.md tagged vm:docs_commands:ID,
# run as written (tests/docs/blocks), each checked by traffic from real
# cgroups: the database example, and the log examples against the sample
# line the docs print after them.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
BLOCKS=/tests/docs/blocks

# run_block FILE ID [PREFIX...]: run block vm:docs_commands:ID of FILE as
# written, with bash -e (PREFIX before it, e.g. in_ns db).
run_block() {
	local f=$1 id=$2 block
	shift 2
	block=$($BLOCKS get "$f" "vm:docs_commands:$id") || { fail "$f has block vm:docs_commands:$id"; return 1; }
	expect_ok "$(basename "$f") block $id runs as written" "$@" bash -e -c "$block"
}

# database: web.service reaches 5432, others get a reset; only
# postgresql.service may accept there (INPUT drops the SYN to another).
netns_add db
run_block /docs/README.md database in_ns db
mkcg system.slice/web.service system.slice/api.service \
	system.slice/postgresql.service system.slice/rogue.service
bg_listen pg in_ns db -- --cgroup system.slice/postgresql.service listen tcp 127.0.0.1 5432 \
	--count 1 --timeout 60000
expect "database: web.service reaches postgresql.service" "connected reply 1" \
	"$(in_ns db cg2net --cgroup system.slice/web.service connect tcp 127.0.0.1 5432 --send x --timeout 3000)"
expect "database: api.service gets a reset" refused \
	"$(in_ns db cg2net --cgroup system.slice/api.service connect tcp 127.0.0.1 5432 --send x --timeout 3000)"
expect "database: postgresql.service's listener saw the one connection" "accepted 1" "$(bg_result pg)"
bg_listen rogue in_ns db -- --cgroup system.slice/rogue.service listen tcp 127.0.0.1 5432 \
	--count 1 --timeout 60000
expect "database: a listener of rogue.service on 5432 gets no SYN" timeout \
	"$(in_ns db cg2net --cgroup system.slice/web.service connect tcp 127.0.0.1 5432 --send x --timeout 2000)"

# The log examples, in the initial netns (the kernel's syslog backend logs
# only there), out of a veth named eth0 as in the sample lines.
netns_add peer
veth_ns peer 10.0.0.1/24 10.0.0.2/24 eth0
drop_unreach in_ns peer
# log_check FILE ID CGROUP: the block logs what CGROUP sends, as the text
# block output:docs_commands:ID after it shows (its id any number).
log_check() {
	local f=$1 id=$2 cg=$3 want re
	want=$($BLOCKS get "$f" "output:docs_commands:$id") || { fail "$f has output:docs_commands:$id"; return; }
	want=${want%$'\n'}
	want=${want% ...}
	re=$(sed -E 's/[][\.*^$()+?{}|]/\\&/g; s/CGROUP_ID=[0-9]+/CGROUP_ID=[0-9]+/' <<<"$want")
	run_block "$f" "$id"
	mkcg "$cg"
	dmesg_clear
	sends "$cg" 10.0.0.2 9000 1
	sends "" 10.0.0.2 9000 1
	local log
	log=$(dmesg_new)
	expect_grep "$id: the log line is the one $(basename "$f") shows" "$re" "$log"
	expect "$id: one line for the one datagram of $cg" 1 "$(grep -cE "$re" <<<"$log")"
	expect_grep "$id: its CGROUP_ID is the cgroup's id" \
		"CGROUP_ID=$(stat -c %i "$CG/$cg") " "$log"
}
log_check /docs/README.md log user.slice/user-1000.slice/session-1.scope
log_check /docs/operating-notes.md svclog system.slice/web.service
finish
