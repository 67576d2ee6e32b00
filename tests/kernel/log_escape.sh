#!/usr/bin/env bash
# CGROUP2LOG cannot be made to forge log fields: cgroup names holding
# spaces, a fake "SRC=... DST=...", CR, ESC, TAB, DEL, '\', '"', '=' and
# bytes >= 0x80 are written "\xNN" in the path, in LOG mode (the kernel
# log) and NFLOG mode (ulogd2): each line has one CGROUP= token, exactly
# one SRC= field, and the exact escaped path.  A long path of escapes is
# cut before a whole escape, never inside one.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach
export LC_ALL=C
P=9501
G=8
id() { stat -c %i "$CG/$1"; }

# name and the path the target must print for it
names=("has space" "x SRC=203.0.113.9 DST=203.0.113.10 " $'cr\rret' $'esc\e[31mred'
       $'tab\tdel\x7f' 'back\slash' 'q"uote' 'k=v' $'caf\xc3\xa9\xff')
want=('has\x20space' 'x\x20SRC\x3d203.0.113.9\x20DST\x3d203.0.113.10\x20' 'cr\x0dret'
      'esc\x1b[31mred' 'tab\x09del\x7f' 'back\x5cslash' 'q\x22uote' 'k\x3dv'
      'caf\xc3\xa9\xff')
for n in "${names[@]}"; do mkcg "user.slice/$n"; done
# A path of escapes longer than the prefix leaves room for (see the man
# page): 5 + 19 + its id + the path must exceed 127 bytes.
long="user.slice/$(printf ' %.0s' {1..40})"
mkcg "$long"

# esc PATH: the path as the target writes it, uncut
esc() {
	local s=$1 i c o out=
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		printf -v o '%d' "'$c"
		((o < 0)) && o=$((o + 256))
		if ((o <= 32 || o >= 127)) || [[ $c == [\\\"=] ]]; then
			printf -v c '\\x%02x' "$o"
		fi
		out+=$c
	done
	printf '%s' "$out"
}
# cutesc PREFIX PATH ID: what the target prints for PATH: its end within
# the room left, in whole bytes and escapes, "..." before the first '/' or
# unit that leaves room for it.
cutesc() {
	local room=$((128 - ${#1} - ${#3} - 19)) e u=() i t o k
	e=$(esc "$2")
	((${#e} <= room - 1)) && { printf '%s' "$e"; return; }
	for ((i = 0; i < ${#e}; )); do
		if [[ ${e:i:1} == \\ ]]; then u+=("${e:i:4}"); i=$((i + 4))
		else u+=("${e:i:1}"); i=$((i + 1)); fi
	done
	# the units that fit, from the end
	t=0
	for ((i = ${#u[@]} - 1; i >= 0; i--)); do
		((t + ${#u[i]} > room - 1)) && break
		t=$((t + ${#u[i]}))
	done
	o=$((room - 1 - t)) k=
	for ((i++; i < ${#u[@]}; i++)); do
		if ((o >= 3)); then
			[[ ${u[i]} == / ]] && { k=$i; break; }
			[[ -z $k ]] && k=$i
		fi
		o=$((o + ${#u[i]}))
	done
	printf '...'
	for ((i = k; i < ${#u[@]}; i++)); do printf '%s' "${u[i]}"; done
}

# one LINE NAME: the line is well formed: one CGROUP= and one SRC= token
one() {
	expect "$2: one CGROUP= token" 1 "$(grep -o 'CGROUP=' <<<"$1" | wc -l)"
	expect "$2: exactly one SRC= field" 1 "$(grep -oE '(^| )SRC=' <<<"$1" | wc -l)"
	expect "$2: only printable ASCII" "" "$(tr -d '\040-\176' <<<"$1")"
}

# LOG mode, iptables-legacy, a rule as in the issue: user.slice/**
expect_ok "insert: -m cgroup2 --path 'user.slice/**' -j CGROUP2LOG" \
	iptables-legacy -w -A OUTPUT -p udp -d 127.0.0.1 --dport $P -m cgroup2 \
	--path 'user.slice/**' -j CGROUP2LOG --log-prefix 'u: '
dmesg_clear
for i in "${!names[@]}"; do
	cg2net --cgroup "user.slice/${names[i]}" send udp 127.0.0.1 $P --sport $((40200 + i)) \
		>/dev/null || fail "send from '${want[i]}'"
done
cg2net --cgroup "$long" send udp 127.0.0.1 $P --sport 40299 >/dev/null || fail "send from long"
LOG=$(dmesg_new | sed 's/^\[[^]]*\] //')
for i in "${!names[@]}"; do
	l=$(grep -F -- "SPT=$((40200 + i)) " <<<"$LOG" | head -n 1)
	one "$l" "LOG ${want[i]}"
	expect "LOG: ${want[i]}" \
		"u: CGROUP=user.slice/${want[i]} CGROUP_ID=$(id "user.slice/${names[i]}") IN= OUT=lo SRC=127.0.0.1 DST=127.0.0.1" \
		"$(grep -oE '^.* DST=[^ ]*' <<<"$l")"
done
l=$(grep -F -- "SPT=40299 " <<<"$LOG" | head -n 1)
one "$l" "LOG long path of escapes"
expect "LOG: a long path of escapes is cut before a whole escape" \
	"u: CGROUP=$(cutesc 'u: ' "$long" "$(id "$long")") CGROUP_ID=$(id "$long") IN= OUT=lo" \
	"$(grep -oE '^.* OUT=[^ ]*' <<<"$l")"
expect_grep "LOG: ... then whole escapes" '^u: CGROUP=\.\.\.(\\x20)+ CGROUP_ID=' "$l"
iptables-legacy -w -F OUTPUT

# NFLOG mode, iptables-nft, read by ulogd2
OUT=$BG_DIR/ulogd.pkts
if ! ulogd_start $G "$OUT"; then
	skip "NFLOG mode through ulogd2" "no ulogd in the VM: apt-get install ulogd2 on the host"
	finish
fi
expect_ok "insert (iptables-nft): -j CGROUP2LOG --nflog-group $G" \
	iptables-nft -w -A OUTPUT -p udp -d 127.0.0.1 --dport $((P + 1)) -m cgroup2 \
	--path 'user.slice/**' -j CGROUP2LOG --log-prefix 'n: ' --nflog-group $G
for i in "${!names[@]}"; do
	cg2net --cgroup "user.slice/${names[i]}" send udp 127.0.0.1 $((P + 1)) \
		--sport $((40300 + i)) >/dev/null || fail "send from '${want[i]}'"
done
cg2net --cgroup "$long" send udp 127.0.0.1 $((P + 1)) --sport 40399 >/dev/null ||
	fail "send from long"
for i in $(seq 50); do
	[[ $(grep -c 'CGROUP=' "$OUT" 2>/dev/null) -ge $((${#names[@]} + 1)) ]] && break
	sleep 0.1
done
for i in "${!names[@]}"; do
	l=$(grep -F -- "SPT=$((40300 + i)) " "$OUT" | head -n 1)
	one "$l" "NFLOG ${want[i]}"
	expect "NFLOG: ${want[i]}" \
		"n: CGROUP=user.slice/${want[i]} CGROUP_ID=$(id "user.slice/${names[i]}") IN= OUT=lo MAC= SRC=127.0.0.1" \
		"$(grep -oE 'n: .* SRC=[^ ]*' <<<"$l")"
done
l=$(grep -F -- "SPT=40399 " "$OUT" | head -n 1)
one "$l" "NFLOG long path of escapes"
expect "NFLOG: a long path of escapes is cut before a whole escape" \
	"n: CGROUP=$(cutesc 'n: ' "$long" "$(id "$long")") CGROUP_ID=$(id "$long") IN= OUT=lo" \
	"$(grep -oE 'n: .* OUT=[^ ]*' <<<"$l")"
iptables-nft -w -F OUTPUT
finish
