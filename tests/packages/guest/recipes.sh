# The recipes of docs/recipes/ that need a real systemd host, their blocks
# run as written (tests/docs/blocks), sourced by boot.sh (pass, fail,
# check, not, wait_for come from there):
#   desktop-apps.md  Flatpak and GNOME app scopes of a lingering user
#   socket-units.md  socket-activated services, Accept=no and Accept=yes
#   user-units.md    a systemctl --user service
# Traffic is loopback only (the VM has no network): datagrams and TCP from
# processes in the real cgroups, judged by the recipe's rules; counters,
# replies and CGROUP2LOG lines say what happened.
RECIPES=$XT/recipes
FIXTURES=$GUEST/recipes
ALICE=alice
ALICE_UID=1000
APPS=user.slice/user-$ALICE_UID.slice/user@$ALICE_UID.service/app.slice

# recipe_block FILE TAG: the block of docs/recipes/FILE tagged TAG.
recipe_block() { "$XT/blocks" get "$RECIPES/$1" "$2"; }
# run_block FILE TAG: run it as written, as root, with bash -e.
run_block() {
	local block
	block=$(recipe_block "$1" "$2") || { fail "$1: its block $2"; return 1; }
	check "$1: the block $2 runs as written" bash -e -c "$block"
}

# The user's manager and bus, as in a desktop session.
as_alice() {
	runuser -u "$ALICE" -- env XDG_RUNTIME_DIR=/run/user/$ALICE_UID \
		DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$ALICE_UID/bus "$@"
}
# in_scope UNIT CMD...: CMD as the user, in a transient scope named UNIT,
# as a launcher (Flatpak, GNOME Shell) starts an app.
in_scope() { local unit=$1; shift; as_alice systemd-run --user --scope --quiet --unit="$unit" "$@"; }
user_manager_up() {
	systemctl -q is-active "user@$ALICE_UID.service" && test -S "/run/user/$ALICE_UID/bus"
}

# The count of the one rule of CHAIN (filter table) whose listing has all
# of the words given (iptables -L -v -x -n, pattern text included).
rule_packets() {
	local chain=$1; shift
	iptables -L "$chain" -v -x -n | awk -v words="$*" '
		BEGIN { n = split(words, w, " ") }
		{ for (i = 1; i <= n; i++) if (index($0, w[i]) == 0) next; print $1; found++ }
		END { if (found != 1) print "rule-not-found(" found + 0 ")" }'
}
# log_lines TEXT: kernel log lines (CGROUP2LOG) holding TEXT.
log_lines() { dmesg | grep -cF -- "$1"; }
# udp3 PORT CMD...: three datagrams to 127.0.0.1:PORT, sent by CMD... (a
# prefix such as in_scope UNIT).
udp3() {
	local port=$1; shift
	"$@" sh -c "for i in 1 2 3; do echo x | socat -u - UDP:127.0.0.1:$port; done"
}
# arrivals PORT: datagrams that reached INPUT for PORT (the test's counter).
arrivals() { rule_packets INPUT "udp dpt:$1" "arrive"; }

# Every rule and counter of the recipe goes with the recipe.
save_rules() { iptables-save >"$STATE/rules.before-recipe"; }
restore_rules() { iptables-restore <"$STATE/rules.before-recipe"; }

recipe_user() {
	check "recipes: loginctl enable-linger starts user@$ALICE_UID.service" \
		loginctl enable-linger "$ALICE"
	check "recipes: the user's manager and bus are up" wait_for 90 user_manager_up
}

# --- docs/recipes/desktop-apps.md ---------------------------------------
check_desktop_apps() {
	local f=desktop-apps.md port=7030 cg n0 r0 a0
	local app1=app-flatpak-org.example.App-1234.scope app2=app-flatpak-org.example.App-5678.scope
	local other=app-flatpak-org.example.Other-99.scope term=app-gnome-org.gnome.Terminal-77.scope
	local esr='app-gnome-firefox\x2desr-4242.scope'
	cg=$(in_scope app-flatpak-org.example.App-1.scope cat /proc/self/cgroup)
	check "$f: systemd-run --user --scope puts the app in $APPS ($cg)" \
		test "$cg" = "0::/$APPS/app-flatpak-org.example.App-1.scope"
	save_rules
	iptables -I INPUT -p udp --dport $port -m comment --comment arrive
	run_block $f desktop:flatpak
	run_block $f desktop:gnome
	r0=$(rule_packets OUTPUT REJECT org.example.App) a0=$(arrivals $port)
	udp3 $port in_scope "$app1"
	check "$f: $app1 is refused ($r0 -> $(rule_packets OUTPUT REJECT org.example.App) packets, $a0 -> $(arrivals $port) arrived)" \
		test "$(rule_packets OUTPUT REJECT org.example.App)" = $((r0 + 3)) -a "$(arrivals $port)" = "$a0"
	check "$f: $app1 is logged (example: CGROUP=$APPS/$app1)" \
		test "$(log_lines "example: CGROUP=$APPS/$app1 ")" -ge 1
	udp3 $port in_scope "$other"
	check "$f: another app ($other) passes ($a0 -> $(arrivals $port) arrived)" \
		test "$(arrivals $port)" = $((a0 + 3))
	check "$f: another app is not logged" test "$(log_lines "CGROUP=$APPS/$other")" = 0
	# A new instance: another number, the rules untouched.
	r0=$(rule_packets OUTPUT REJECT org.example.App) a0=$(arrivals $port)
	udp3 $port in_scope "$app2"
	check "$f: a new instance ($app2) is refused too ($r0 -> $(rule_packets OUTPUT REJECT org.example.App))" \
		test "$(rule_packets OUTPUT REJECT org.example.App)" = $((r0 + 3)) -a "$(arrivals $port)" = "$a0"
	check "$f: the new instance is logged" test "$(log_lines "example: CGROUP=$APPS/$app2 ")" -ge 1
	# GNOME Shell's scopes: logged, not refused.
	udp3 $port in_scope "$term"
	check "$f: a GNOME app ($term) passes and is logged ($a0 -> $(arrivals $port))" \
		test "$(arrivals $port)" = $((a0 + 3)) -a "$(log_lines "gnome app: CGROUP=$APPS/$term ")" -ge 1
	# systemd escapes a '-' in the app id: the line carries the '\' as \x5c.
	udp3 $port in_scope "$esr"
	check "$f: an app id with an escaped '-' ($esr) is logged" \
		test "$(log_lines 'gnome app: CGROUP='"$APPS"'/app-gnome-firefox\x5cx2desr-4242.scope ')" -ge 1
	check "$f: Flatpak apps are not logged as GNOME apps" \
		test "$(log_lines "gnome app: CGROUP=$APPS/app-flatpak-")" = 0
	restore_rules
}

# --- docs/recipes/user-units.md -----------------------------------------
# sync_reply: what alice's sync.service got back from port 22000.
sync_reply() {
	rm -f "/home/$ALICE/sync.out"
	as_alice systemctl --user start sync.service
	cat "/home/$ALICE/sync.out" 2>/dev/null
}
scope_reply() { echo ping | in_scope app-gnome-org.gnome.Terminal-78.scope socat -t 5 - TCP:127.0.0.1:22000 2>/dev/null; }
check_user_units() {
	local f=user-units.md dir=/home/$ALICE/.config/systemd/user n0 id0 pid
	install -D -o "$ALICE" -m 644 "$FIXTURES/sync.service" "$dir/sync.service"
	chown -R "$ALICE:" "/home/$ALICE/.config"
	as_alice systemctl --user daemon-reload
	socat TCP-LISTEN:22000,reuseaddr,fork EXEC:/bin/cat &
	pid=$!
	wait_for 10 ss -Htln 'sport = :22000' | grep -q .
	save_rules
	run_block $f user:allow
	run_block $f user:log
	n0=$(rule_packets OUTPUT ACCEPT sync.service)
	check "$f: sync.service (systemctl --user) is served" test "$(sync_reply)" = ping
	check "$f: its rule counted it ($n0 -> $(rule_packets OUTPUT ACCEPT sync.service))" \
		test "$(rule_packets OUTPUT ACCEPT sync.service)" -gt "$n0"
	check "$f: it is logged (user unit: CGROUP=$APPS/sync.service)" \
		test "$(log_lines "user unit: CGROUP=$APPS/sync.service ")" -ge 1
	check "$f: the same command in an app scope of the same user is refused" \
		not grep -q ping <(scope_reply)
	check "$f: the app scope is not logged as a user unit" \
		test "$(log_lines "user unit: CGROUP=$APPS/app-gnome-")" = 0
	check "$f: root's own connections are not touched" \
		grep -q ping <(echo ping | socat -t 5 - TCP:127.0.0.1:22000)
	# Each start of the oneshot service is a new cgroup at the same path.
	id0=$(rule_packets OUTPUT ACCEPT sync.service)
	check "$f: a second start, a new cgroup, is served and counted" \
		test "$(sync_reply)" = ping -a "$(rule_packets OUTPUT ACCEPT sync.service)" -gt "$id0"
	restore_rules
	kill "$pid"
	wait "$pid" 2>/dev/null
}

# --- docs/recipes/socket-units.md ---------------------------------------
# echo_on PORT: the line the service on PORT sends back.
echo_on() { printf 'ping\n' | timeout 30 socat -t 5 - "TCP:127.0.0.1:$1" 2>/dev/null; }
# sock_cgroup STATE PORT: the cgroup of the sockets in STATE on local PORT.
sock_cgroup() { ss -Htan --cgroup state "$1" "sport = :$2" | grep -o 'cgroup:[^ ]*' | sort -u | paste -sd' '; }
# held_open PORT: a connection to PORT that says nothing until killed
# ($held is its pid).
held_open() {
	(sleep 60; echo bye) | timeout 90 socat -t 5 - "TCP:127.0.0.1:$1" >/dev/null 2>&1 &
	held=$!
}
# running_unit GLOB: the first running unit named GLOB.
running_unit() { systemctl list-units --plain --no-legend --state=running "$1" | awk '{print $1; exit}'; }
# Rules of the test's own, before the recipe's, that only count: they show
# which cgroups the served connections are in (and are not in).
count_wrong() {
	local port=$1 path
	shift
	for path in "$@" init.scope; do
		iptables -I INPUT -p tcp --dport "$port" -m cgroup2 --path "$path" -m comment --comment wrong
		iptables -I OUTPUT -p tcp --sport "$port" -m cgroup2 --path "$path" -m comment --comment wrong
	done
}
wrong_packets() {
	{ iptables -L INPUT -v -x -n; iptables -L OUTPUT -v -x -n; } |
		awk -v p=":$1 " 'index($0, p) && /wrong/ { n += $1 } END { print n + 0 }'
}
# check_socket_unit FILE TAG PORT SOCKET SERVICE WRONG...: the served
# connection is the socket unit's (SERVICE: the unit serving it, a glob),
# the recipe's rules see it, rules for the WRONG paths do not.
check_socket_unit() {
	local f=$1 tag=$2 port=$3 sock=$4 svc=$5 in0 out0 cg svcg held
	shift 5
	count_wrong "$port" "$@"
	run_block "$f" "$tag"
	check "$f: $tag: the listener is in system.slice/$sock ($(sock_cgroup listening "$port"))" \
		test "$(sock_cgroup listening "$port")" = "cgroup:/system.slice/$sock"
	held_open "$port"
	wait_for 30 test -n "$(sock_cgroup established "$port")"
	cg=$(sock_cgroup established "$port")
	wait_for 30 test -n "$(running_unit "$svc")"
	svc=$(running_unit "$svc")
	svcg=$(systemctl show -P ControlGroup "$svc")
	kill "$held"
	check "$f: $tag: the open connection is in system.slice/$sock ($cg), its server in $svcg" \
		test "$cg" = "cgroup:/system.slice/$sock" -a "$svcg" != "/system.slice/$sock" -a -n "$svcg"
	in0=$(rule_packets INPUT ACCEPT "dpt:$port" "$sock") out0=$(rule_packets OUTPUT "spt:$port" "$sock")
	check "$f: $tag: a connection is served" test "$(echo_on "$port")" = ping
	check "$f: $tag: the recipe's rules counted it (INPUT $in0 -> $(rule_packets INPUT ACCEPT "dpt:$port" "$sock"), OUTPUT $out0 -> $(rule_packets OUTPUT "spt:$port" "$sock"))" \
		test "$(rule_packets INPUT ACCEPT "dpt:$port" "$sock")" -gt "$in0" \
		-a "$(rule_packets OUTPUT "spt:$port" "$sock")" -gt "$out0"
	check "$f: $tag: rules for $* and init.scope counted nothing ($(wrong_packets "$port"))" \
		test "$(wrong_packets "$port")" = 0
}
check_socket_units() {
	local f=socket-units.md u
	for u in hello.socket hello.service greet.socket greet@.service; do
		cp "$FIXTURES/$u" /etc/systemd/system/
	done
	systemctl daemon-reload
	systemctl start hello.socket greet.socket
	save_rules
	# Accept=no: the test's held connection is the one hello.service serves
	# first; its check reads hello.service's cgroup while it is running.
	check_socket_unit $f socket:accept-no 7020 hello.socket hello.service system.slice/hello.service
	# Accept=yes: the held connection's instance, greet@0-….service.
	check_socket_unit $f socket:accept-yes 7021 greet.socket 'greet@*.service' \
		'system.slice/system-greet.slice/**'
	restore_rules
	systemctl stop hello.socket hello.service greet.socket 'greet@*.service'
	for u in hello.socket hello.service greet.socket greet@.service; do
		rm -f "/etc/systemd/system/$u"
	done
	systemctl daemon-reload
}

check_recipes() {
	recipe_user
	check_desktop_apps
	check_user_units
	check_socket_units
	loginctl disable-linger "$ALICE"
}
