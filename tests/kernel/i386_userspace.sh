#!/usr/bin/env bash
# vm-prepare: scripts/i386-userspace
# vm-options: --add docs:/docs --add build/i386-root:/root/i386 --timeout 1200
# 32-bit userspace on the 64-bit kernel: Debian 12's i386 iptables with the
# extensions built for it (scripts/i386-userspace), in a chroot.  nft
# (nft_compat) everywhere, legacy where x_tables has its compat layer (6.1;
# on 6.12 and 7.2 a rule with the match fails exactly as a plain one, with
# the error the recipe quotes); IPv4 and IPv6: the whole matrix of
# tests/lib/ext_matrix.sh with real traffic; what the i386 and the 64-bit
# iptables save of the same rules is the same text, and each finds (-C) the
# other's rules; a refusal of the kernel's; docs/recipes/32-bit-userspace.md's
# blocks as written with each variant: CGROUP2LOG's log lines and the
# REJECT of the restored rules.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
. "$(dirname "$0")/../lib/ext_matrix.sh"
ROOT=/root/i386
RECIPE=/docs/recipes/32-bit-userspace.md
BIN=/tmp/i386-bin

# is_i386 FILE: an ELF file of class 32 for the i386 machine (e_ident[4]
# 1, e_machine 3), not the 64-bit one by mistake.
is_i386() {
	[[ $(od -An -tx1 -j4 -N1 "$1") == " 01" && $(od -An -tx1 -j18 -N2 "$1") == " 03 00" ]]
}
for f in usr/sbin/xtables-legacy-multi usr/sbin/xtables-nft-multi \
	usr/lib/i386-linux-gnu/xtables/libxt_cgroup2.so \
	usr/lib/i386-linux-gnu/xtables/libxt_CGROUP2LOG.so; do
	expect_ok "${f##*/} is i386" is_i386 "$ROOT/$f"
done

# The i386 root shares this system's /proc, /dev, /run (the xtables lock)
# and /tmp (where the matrix saves).  Its commands: i386-NAME for NAME
# (i386-iptables-legacy, ...), and directories whose plain iptables,
# iptables-save and iptables-restore are the i386 legacy or nft ones.
for d in proc dev run tmp; do
	mount --bind "/$d" "$ROOT/$d" || fail "bind /$d into the i386 root"
done
mkdir -p "$BIN/legacy" "$BIN/nft"
for c in $(cd "$ROOT/usr/sbin" && ls -- ip*tables*); do
	printf '#!/bin/sh\nexec chroot %s /usr/sbin/%s "$@"\n' "$ROOT" "$c" >"$BIN/i386-$c"
	chmod +x "$BIN/i386-$c"
done
for v in legacy nft; do
	for s in "" -save -restore; do
		ln -s "../i386-iptables-$v$s" "$BIN/$v/iptables$s"
	done
done
PATH=$BIN:$PATH
# block TAG: the recipe's block tagged TAG
block() { /tests/docs/blocks get "$RECIPE" "$1"; }
expect "the i386 iptables runs on this kernel" "iptables v1.8.9 (legacy)" \
	"$(i386-iptables-legacy --version 2>&1)"
# The legacy tables: a 32-bit system's iptables loads them with its own
# modprobe when the kernel has none yet; the i386 root has no modprobe.
modprobe -a iptable_filter ip6table_filter || fail "modprobe the legacy filter tables"

# x_tables' compat layer (CONFIG_NETFILTER_XTABLES_COMPAT) carries every
# 32-bit iptables-legacy call: Debian's 6.1 has it, 6.12 and 7.2 do not.
# Without it the kernel takes the 32-bit structs for 64-bit ones and the
# i386 iptables-legacy cannot even list a table, whatever the rule: then
# its rules with the match must fail exactly as plain ones do, and only
# nft (nft_compat, which has no compat layer to lack) is tested further.
case $(uname -r) in
6.1.*) want_compat=yes ;;
*) want_compat=no ;;
esac
ctl=$(i386-iptables-legacy -w -A OUTPUT -p udp --dport 9 -j ACCEPT 2>&1)
ctl_rc=$?
if ((ctl_rc == 0)); then
	have_compat=yes
	i386-iptables-legacy -w -D OUTPUT -p udp --dport 9 -j ACCEPT
else
	have_compat=no
fi
expect "x_tables has its compat layer on $(uname -r) as Debian configures it" \
	"$want_compat" "$have_compat"
VARIANTS=(nft)
if [[ $have_compat == yes ]]; then
	VARIANTS=(legacy nft)
else
	for t in iptables-legacy ip6tables-legacy; do
		out=$("i386-$t" -w -A OUTPUT -p udp --dport 9 -m cgroup2 --path 'mx/*.service' \
			-j CGROUP2LOG 2>&1)
		expect "i386-$t: no compat layer, the rule fails as a plain one does" \
			"${ctl//iptables/${t%%-*}} (status $ctl_rc)" "$out (status $?)"
		expect "$t (64-bit): no rule arrived" 0 "$("$t-save" -t filter | grep -c cgroup2)"
	done
	expect "the recipe quotes the error" "$(block output:i386_userspace:nocompat)" "$ctl"
fi

matrix_cgroups
port=9941
for v in "${VARIANTS[@]}"; do
	front "i386-iptables-$v" "i386-iptables-$v-save" "i386-iptables-$v-restore" 127.0.0.1 $port
	front "i386-ip6tables-$v" "i386-ip6tables-$v-save" "i386-ip6tables-$v-restore" ::1 $((port + 1))
	port=$((port + 2))
done

# The kernel keeps one form of each rule: the i386 and the 64-bit
# iptables read the same rules back as the same text, and each finds a
# rule the other inserted, byte for byte (-C).
norm_save() { grep -v '^#' | sed 's/\[[0-9]*:[0-9]*\]//'; }
for v in "${VARIANTS[@]}"; do
	for t in "iptables-$v" "ip6tables-$v"; do
		addr=127.0.0.1
		[[ $t == ip6* ]] && addr=::1
		logrule=(OUTPUT -p udp -d "$addr" --dport 9945 -m cgroup2 --path 'mx/*.service'
			-j CGROUP2LOG --log-prefix 'x: ' --log-level info --log-uid)
		nflogrule=(OUTPUT -p udp -d "$addr" --dport 9946 -m cgroup2 ! --path 'mx/**'
			-j CGROUP2LOG --nflog-group 7)
		expect_ok "$t (64-bit) inserts a CGROUP2LOG rule" "$t" -w -A "${logrule[@]}"
		expect_ok "i386-$t finds it (-C)" "i386-$t" -w -C "${logrule[@]}"
		expect_ok "i386-$t inserts an NFLOG-mode rule" "i386-$t" -w -A "${nflogrule[@]}" \
			--nflog-size 64
		expect_ok "$t (64-bit) finds it (-C)" "$t" -w -C "${nflogrule[@]}" --nflog-size 64
		expect_fail "i386-$t: -C misses it with another size" "i386-$t" -w -C \
			"${nflogrule[@]}" --nflog-size 65
		expect "$t and i386-$t save the same text" \
			"$("$t-save" -t filter 2>/dev/null | norm_save)" \
			"$("i386-$t-save" -t filter 2>/dev/null | norm_save)"
	done
	expect_grep "i386-iptables-$v-save: the NFLOG-mode rule" \
		'-m cgroup2 ! --path "mx/\*\*" -j CGROUP2LOG --nflog-group 7 --nflog-size 64$' \
		"$("i386-iptables-$v-save" -t filter 2>/dev/null)"

	# A refusal of the kernel's reaches the i386 iptables: the match in
	# FORWARD.
	dmesg_clear
	expect_fail "i386-iptables-$v: -m cgroup2 in FORWARD refused" \
		"i386-iptables-$v" -w -A FORWARD -m cgroup2 --path mx/web.service
	expect_grep "i386-iptables-$v: the kernel says why" \
		'x_tables: ip_tables: cgroup2 match: used from hooks FORWARD, but only valid from INPUT/OUTPUT/POSTROUTING' \
		"$(dmesg_new)"
done

# The recipe, as written, with each variant as "iptables": its rules
# inserted and saved, flushed, restored; then the traffic they judge.
mkcg system.slice/resolved.service system.slice/backup.service \
	system.slice/web.service user.slice/user-1000.slice/session-1.scope
ip addr add 192.0.2.10/32 dev lo
udp_sink 127.0.0.1 53
udp_sink 192.0.2.10 873
mkdir -p /etc/iptables
# nth IPTABLES N: packets of rule N of OUTPUT
nth() {
	"$1" -w -L OUTPUT -v -x -n --line-numbers 2>/dev/null |
		awk -v n="$2" '$1 == n { print $2; found = 1 } END { if (!found) print "missing" }'
}
id() { stat -c %i "$CG/$1"; }
for v in "${VARIANTS[@]}"; do
	for w in "${VARIANTS[@]}"; do "i386-iptables-$w" -w -F OUTPUT; done
	rules=$(block vm:i386_userspace:rules) || fail "the recipe has its rules block"
	restore=$(block vm:i386_userspace:restore) || fail "the recipe has its restore block"
	expect_ok "$v: the rules block runs as written" env PATH="$BIN/$v:$PATH" bash -e -c "$rules"
	expect_grep "$v: the saved file has the CGROUP2LOG rule" \
		'-m cgroup2 --path "system\.slice/\*\.service" -j CGROUP2LOG --log-prefix "dns: "$' \
		"$(cat /etc/iptables/rules.v4)"
	"i386-iptables-$v" -w -F OUTPUT
	expect "$v: flushed" 0 "$("i386-iptables-$v" -w -S OUTPUT | grep -c cgroup2)"
	expect_ok "$v: the restore block runs as written" env PATH="$BIN/$v:$PATH" bash -e -c "$restore"
	expect "$v: two rules restored" 2 "$("i386-iptables-$v" -w -S OUTPUT | grep -c cgroup2)"

	dmesg_clear
	sends system.slice/resolved.service 127.0.0.1 53 1
	sends user.slice/user-1000.slice/session-1.scope 127.0.0.1 53 1
	sends system.slice/backup.service 192.0.2.10 873 1
	expect "$v: web.service may not reach the backup host" "blocked: Operation not permitted" \
		"$(udp_from system.slice/web.service 192.0.2.10 873 2>/dev/null)"
	log=$(dmesg_new)
	expect_grep "$v: the service's query is logged with its cgroup" \
		"dns: CGROUP=system\.slice/resolved\.service CGROUP_ID=$(id system.slice/resolved.service) IN= OUT=lo .* DPT=53 " \
		"$log"
	expect "$v: the session's query is not" 0 "$(grep -c 'CGROUP=user\.slice' <<<"$log")"
	expect "$v: rule 1 counted the service's query only" 1 "$(nth "i386-iptables-$v" 1)"
	expect "$v: rule 2 counted web.service's datagram only" 1 "$(nth "i386-iptables-$v" 2)"
done
finish
