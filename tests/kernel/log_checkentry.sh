#!/usr/bin/env bash
# CGROUP2LOG's checkentry against hostile blobs (xt_cgroup2_raw
# --as-target: the target's data as raw bytes, no iptables in between):
# every field outside what the extension can produce is refused with its
# own message, and kernel-private bytes sent by userspace are overwritten.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach
P=9501
mkcg svc/web.service

le() { # le BYTES VALUE: VALUE little-endian in BYTES bytes, as hex
	local i
	for ((i = 0; i < $1; i++)); do printf '%02x' $((($2 >> (8 * i)) & 255)); done
}
str32() { # str32 TEXT: TEXT padded with NULs to 32 bytes (no NUL if 32 long)
	local h
	h=$(printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n')
	while ((${#h} < 64)); do h+=00; done
	printf '%s' "$h"
}
# blob FLAGS LEVEL LOGFLAGS GROUP THRESHOLD PAD LEN PREFIX [PRIVHEX]: the
# 64 bytes of struct xt_cgroup2log_info
blob() {
	printf '%s' "$(le 4 "$1")$(le 1 "$2")$(le 1 "$3")$(le 2 "$4")$(le 2 "$5")"
	printf '%s' "$(le 2 "$6")$(le 4 "$7")$(str32 "$8")${9:-$(le 16 0)}"
}
raw() { xt_cgroup2_raw --match CGROUP2LOG --as-target "$@"; }
# refused NAME MESSAGE HEX: the blob is rejected and dmesg says MESSAGE
refused() {
	local out
	dmesg_clear
	out=$(raw --raw-data "$3" 2>&1)
	expect "$1: rejected" "rejected: Invalid argument" "$out"
	expect_grep "$1: dmesg says why" "xt_cgroup2: CGROUP2LOG: $2" "$(dmesg_new)"
	sleep 0.3	# x_tables' message rate limit
}

expect "a valid LOG blob is accepted" accepted "$(raw --raw-data "$(blob 0 4 0 0 0 0 0 'ok: ')")"
expect "a valid NFLOG blob is accepted" accepted \
	"$(raw --raw-data "$(blob 3 0 0 9 2 0 64 'nf: ')")"
refused "unknown flags" "unknown flags 0x4" "$(blob 4 4 0 0 0 0 0 x)"
refused "high flag" "unknown flags 0x80000000" "$(blob 0x80000000 4 0 0 0 0 0 x)"
refused "level 8" "log level 8 is not within 0..7" "$(blob 0 8 0 0 0 0 0 x)"
refused "level 255" "log level 255 is not within 0..7" "$(blob 0 255 0 0 0 0 0 x)"
refused "LOG flag 0x10 (NFLOG, unsupported by LOG too)" "unknown LOG flags 0x10" \
	"$(blob 0 4 0x10 0 0 0 0 x)"
refused "LOG flag 0x80" "unknown LOG flags 0x80" "$(blob 0 4 0x80 0 0 0 0 x)"
refused "prefix without NUL" "prefix is not NUL-terminated within 32 bytes" \
	"$(blob 0 4 0 0 0 0 0 "$(printf 'A%.0s' {1..32})")"
refused "reserved field" "reserved field is not zero" "$(blob 0 4 0 0 0 1 0 x)"
refused "NFLOG mode with a level" "NFLOG mode with a log level or LOG flags" \
	"$(blob 1 4 0 5 0 0 0 x)"
refused "NFLOG mode with LOG flags" "NFLOG mode with a log level or LOG flags" \
	"$(blob 1 0 1 5 0 0 0 x)"
refused "NFLOG copy length without its flag" "copy length 64 without its flag" \
	"$(blob 1 0 0 5 0 0 64 x)"
refused "LOG mode with a group" "LOG mode with NFLOG options" "$(blob 0 4 0 5 0 0 0 x)"
refused "LOG mode with the copy-length flag" "LOG mode with NFLOG options" \
	"$(blob 2 4 0 0 0 0 0 x)"
expect "a short blob is refused by x_tables" "rejected: Invalid argument" \
	"$(b=$(blob 0 4 0 0 0 0 0 x); raw --raw-data "${b:0:96}" --data-size 48 2>&1)"

# Kernel-private bytes from userspace (root id and level, defrag flag) are
# overwritten by checkentry: the path is still relative to the real root.
expect "private bytes set by userspace: accepted" accepted \
	"$(raw --raw-data "$(blob 0 4 0 0 0 0 0 'priv: ' ffffffffffffffff05000000ffffffff)")"
dmesg_clear
cg2net --cgroup svc/web.service send udp 127.0.0.1 $P --sport 40201 >/dev/null
expect_grep "private bytes overwritten: the real path is logged" \
	"priv: CGROUP=svc/web.service CGROUP_ID=$(stat -c %i "$CG/svc/web.service") IN= OUT=lo .*SPT=40201 " \
	"$(dmesg_new)"
expect "flush" accepted "$(xt_cgroup2_raw --flush)"
finish
