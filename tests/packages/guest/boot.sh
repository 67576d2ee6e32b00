#!/bin/bash
# The package test inside the Debian 12 host image, run by xt-boot.service
# on every boot from /xt (tests/packages/run.sh puts it there with the
# .debs).  Three boots: install and reboot; check the boot ruleset, restarts
# and nft-cgroupd, then reboot; check again, uninstall, power off.  Results
# are PASS/FAIL lines in /xt/result.
set -uo pipefail
XT=/xt
STATE=/var/lib/xt-test
RESULT=$XT/result
GUEST=$XT/guest
mkdir -p "$STATE"
exec >>"$XT/boot.log" 2>&1

pass() { echo "PASS $1" | tee -a "$RESULT" >/dev/console; }
fail() { echo "FAIL $1${2:+: $2}" | tee -a "$RESULT" >/dev/console; }
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
# not CMD...: "!" for check (it runs its arguments as a command).
not() { ! "$@"; }
# finish reboot|poweroff: this boot's times first (tests/packages/run.sh
# prints them): when the system was up, how long the checks then took.
finish() {
	echo "boot $BOOT: up after $UP_S s, checks $((SECONDS - UP_AT)) s" >>"$RESULT.times"
	sync; systemctl "$1"; exit 0
}

# Files below /etc, /usr and /lib, with sizes: what "nothing else changed"
# compares.  The initramfs and /var (logs, dpkg and dkms state) are not.
snapshot() {
	find /etc /usr /lib -xdev \( -type f -o -type l \) -printf '%p %s\n' | sort
}

# echo_reply PORT: what the echo service on PORT sends back.
echo_reply() { printf 'ping\n' | timeout 60 socat -t 5 - "TCP:127.0.0.1:$1" 2>/dev/null; }
served() { [[ $(echo_reply 7007) == ping ]]; }
refused() { ! echo_reply 7008 | grep -q ping; }
# The allow rule's packet count.
allowed_packets() { iptables -L INPUT -v -x -n | awk '/ACCEPT/ && /cgroup2/ {print $1; exit}'; }
echo_cgroup_id() { stat -c %i /sys/fs/cgroup/system.slice/echo.service; }
nft_out_packets() { nft list chain inet pkgtest out | sed -n 's/.*counter packets \([0-9]*\).*/\1/p'; }
set_elements() { nft list set inet pkgtest echo | grep -o 'system.slice/[a-z]*\.service' | sort | paste -sd' '; }
boot_warnings() { journalctl -b -q -o cat -u netfilter-persistent.service | grep -c '^cgroup2: warning: no cgroup'; }
# wait_for SECONDS CMD...: CMD succeeds within SECONDS (tried every second).
wait_for() {
	local n=$1; shift
	until "$@"; do ((n-- > 0)) || return 1; sleep 1; done
}
TEXTFILE_DIR=/var/lib/prometheus/node-exporter
# scraped_packets: node_exporter's value of nft-cgroupd's packet counter of
# echo.service (its labels come back sorted by name).
scraped_packets() {
	curl -s --max-time 20 http://127.0.0.1:9100/metrics | awk '/^nft_cgroupd_packets_total\{/ &&
		/path="\/system.slice\/echo.service"/ && /set="inet:pkgtest:echo"/ {print $2}'
}
scraped_counted() { [[ $(scraped_packets) =~ ^[1-9][0-9]*$ ]]; }

. "$GUEST/recipes.sh"

# Before anything is installed: the test's own units, rulesets and user.
setup() {
	cp "$GUEST/echo.service" "$GUEST/rogue.service" /etc/systemd/system/
	cp "$GUEST/rules.v4" /etc/iptables/rules.v4
	cp "$GUEST/nftables.conf" /etc/nftables.conf
	# systemd-networkd brings network.target into the boot, as a network
	# manager does on any real host: echo.service orders itself after it.
	systemctl enable -q echo.service rogue.service nftables.service \
		netfilter-persistent.service systemd-networkd.service
	useradd --create-home --uid "$ALICE_UID" "$ALICE"
	# node_exporter reads the textfile directory from the next boot on.
	echo "ARGS=\"--collector.textfile.directory=$TEXTFILE_DIR\"" \
		>/etc/default/prometheus-node-exporter
	snapshot >"$STATE/before"
}

phase_install() {
	local kver
	kver=$(uname -r)
	setup
	local t0=$SECONDS
	check "install: apt installs the three packages offline" \
		apt-get install -y -q "$XT"/debs/*.deb
	echo "dkms build and install took $((SECONDS - t0)) s" >>"$RESULT.times"
	dkms status
	check "install: dkms status says installed for $kver" \
		grep -q "^xt_cgroup2/$(cat "$XT/VERSION"), $kver, x86_64: installed" <(dkms status)
	check "install: modinfo shows version $(cat "$XT/VERSION")" \
		grep -qx "version: *$(cat "$XT/VERSION")" <(modinfo -k "$kver" xt_cgroup2)
	check "install: modinfo shows the ipt_cgroup2 and ip6t_cgroup2 aliases" \
		test "$(modinfo -k "$kver" -F alias xt_cgroup2 | grep -c 'ip6\?t_cgroup2$')" = 2
	check "install: -m cgroup2 --help names the version" \
		grep -q "xt_cgroup2 $(cat "$XT/VERSION")" <(iptables -m cgroup2 --help)
	check "install: nft-cgroupd --version" \
		grep -q "$(cat "$XT/VERSION")" <(nft-cgroupd --version)
	check "install: the nft-cgroupd unit is installed, not enabled" \
		test "$(systemctl is-enabled nft-cgroupd.service)" = disabled
	cp "$GUEST/nft-cgroupd.conf" /etc/nft-cgroupd.conf
	systemctl enable -q nft-cgroupd.service
	echo boot2 >"$STATE/phase"
	finish reboot
}

# After a boot: the ruleset came from netfilter-persistent, before echo.
check_boot() {
	local tag=$1 rules echo_start
	rules=$(systemctl show -P ActiveEnterTimestampMonotonic netfilter-persistent.service)
	echo_start=$(systemctl show -P ExecMainStartTimestampMonotonic echo.service)
	check "$tag: the module was autoloaded for the boot ruleset" grep -q '^xt_cgroup2 ' /proc/modules
	check "$tag: netfilter-persistent loaded the cgroup2 rules" \
		grep -qE -- '-m cgroup2 --path "?system\.slice/echo\.service' <(iptables -S INPUT)
	check "$tag: the rules were loaded ($rules us) before echo.service started ($echo_start us)" \
		test "$rules" -gt 0 -a "$rules" -lt "$echo_start"
	# rules.v4 names echo.service before it starts: one warning from the
	# real load, none from netfilter-persistent's test load (--test)
	check "$tag: one late-binding warning at boot ($(boot_warnings))" test "$(boot_warnings)" = 1
	check "$tag: echo.service serves the allowed port" served
	check "$tag: rogue.service is refused" refused
}

# A restart puts echo.service in a new cgroup at the same path.
check_restart() {
	local tag=$1 id0 n0
	id0=$(echo_cgroup_id) n0=$(allowed_packets)
	systemctl restart echo.service
	check "$tag: the restart made a new cgroup" test "$(echo_cgroup_id)" != "$id0"
	check "$tag: echo.service is still served after the restart" served
	check "$tag: the allow rule's counter kept counting ($n0 -> $(allowed_packets))" \
		test "$(allowed_packets)" -gt "$n0"
	check "$tag: rogue.service is still refused" refused
}

# nft-cgroupd.service: the set follows restarts, stop, reload.
check_nft_cgroupd() {
	local n0
	check "nft-cgroupd: the unit is active after boot" systemctl -q is-active nft-cgroupd.service
	check "nft-cgroupd: the set holds echo.service" test "$(set_elements)" = system.slice/echo.service
	systemctl restart echo.service
	sleep 2
	n0=$(nft_out_packets)
	served
	check "nft-cgroupd: after a restart the set holds the new cgroup (out counter $n0 -> $(nft_out_packets))" \
		test "$(nft_out_packets)" -gt "$n0"
	sed -i 's|=system.slice/echo.service|=system.slice/{echo,rogue}.service|' /etc/nft-cgroupd.conf
	systemctl reload nft-cgroupd.service
	sleep 3
	check "nft-cgroupd: reload applies the changed config ($(set_elements))" \
		test "$(set_elements)" = "system.slice/echo.service system.slice/rogue.service"
	systemctl stop nft-cgroupd.service
	check "nft-cgroupd: stop leaves the unit inactive" \
		test "$(systemctl is-active nft-cgroupd.service)" = inactive
	check "nft-cgroupd: stop does not leave it failed ($(systemctl show -P Result nft-cgroupd.service))" \
		not systemctl -q is-failed nft-cgroupd.service
	# --man=no: the image has no man-db to look Documentation= up with.
	systemd-analyze verify --man=no nft-cgroupd.service >"$XT/verify.txt" 2>&1
	check "nft-cgroupd: systemd-analyze verify is clean ($(head -c 200 "$XT/verify.txt"))" \
		test ! -s "$XT/verify.txt"
	systemd-analyze security --no-pager nft-cgroupd.service >"$XT/security.txt" 2>&1
	tail -n 1 "$XT/security.txt" >>"$RESULT.times"
}

# Metrics on the documented way: the option in /etc/default/nft-cgroupd and
# a drop-in that opens the textfile directory; node_exporter serves them.
check_metrics() {
	local dropin=/etc/systemd/system/nft-cgroupd.service.d
	check "metrics: /etc/default/nft-cgroupd is a conffile, all commented out" \
		test "$(dpkg-query -W -f='${Conffiles}' nft-cgroupd | grep -c ' /etc/default/nft-cgroupd ')" = 1 \
		-a -z "$(grep -v '^#' /etc/default/nft-cgroupd)"
	echo "NFT_CGROUPD_OPTS=\"--metrics-file $TEXTFILE_DIR/nft-cgroupd.prom --stats-interval 2\"" \
		>>/etc/default/nft-cgroupd
	mkdir -p "$dropin"
	printf '[Service]\nReadWritePaths=%s\n' "$TEXTFILE_DIR" >"$dropin/metrics.conf"
	systemctl daemon-reload
	check "metrics: nft-cgroupd starts with NFT_CGROUPD_OPTS" systemctl start nft-cgroupd.service
	check "metrics: its command line has the option" \
		grep -q -- "--metrics-file $TEXTFILE_DIR/nft-cgroupd.prom" \
		<(tr '\0' ' ' </proc/"$(systemctl show -P MainPID nft-cgroupd.service)"/cmdline)
	served
	check "metrics: nft-cgroupd writes $TEXTFILE_DIR/nft-cgroupd.prom" \
		wait_for 30 test -s "$TEXTFILE_DIR/nft-cgroupd.prom"
	check "metrics: node_exporter is active" systemctl -q is-active prometheus-node-exporter.service
	wait_for 60 scraped_counted
	check "metrics: node_exporter serves echo.service's packet count ($(scraped_packets))" \
		scraped_counted
	check "metrics: the textfile collector found no error" \
		grep -qx 'node_textfile_scrape_error 0' <(curl -s --max-time 20 http://127.0.0.1:9100/metrics)
	systemctl stop nft-cgroupd.service
	# an upgrade (here the same package again) keeps the edited conffile
	dpkg -i "$XT"/debs/nft-cgroupd_*.deb </dev/null
	check "metrics: reinstalling the package keeps NFT_CGROUPD_OPTS" \
		grep -q '^NFT_CGROUPD_OPTS=' /etc/default/nft-cgroupd
	rm -r -- "$dropin"
	systemctl daemon-reload
}

phase_boot2() {
	check_boot boot
	check_restart restart
	check_nft_cgroupd
	check_metrics
	check_recipes
	echo boot3 >"$STATE/phase"
	finish reboot
}

# Purge the packages: their files go, nothing else under /etc /usr /lib
# changes (the test's own setup was in place before the install).
check_uninstall() {
	local xtlib=/usr/lib/x86_64-linux-gnu/xtables
	systemctl disable -q nft-cgroupd.service
	check "uninstall: apt purges the three packages" \
		apt-get purge -y -q xt-cgroup2-dkms xtables-cgroup2 nft-cgroupd
	check "uninstall: dkms knows no xt_cgroup2" test -z "$(dkms status xt_cgroup2)"
	check "uninstall: the module is gone" not modinfo -k "$(uname -r)" xt_cgroup2
	check "uninstall: the extensions are gone" \
		test ! -e $xtlib/libxt_cgroup2.so -a ! -e $xtlib/libxt_CGROUP2LOG.so
	check "uninstall: the unit is gone" test ! -e /lib/systemd/system/nft-cgroupd.service
	snapshot >"$STATE/after"
	diff "$STATE/before" "$STATE/after" >"$XT/uninstall.diff"
	check "uninstall: nothing else changed in /etc, /usr, /lib" test ! -s "$XT/uninstall.diff"
}

phase_boot3() {
	check_boot reboot
	check_restart "reboot+restart"
	check_uninstall
	echo done >"$STATE/phase"
	echo DONE >>"$RESULT"
	finish poweroff
}

systemctl is-system-running --wait >/dev/null
BOOT=$(cat "$STATE/phase" 2>/dev/null || echo install)
read -r UP_S _ </proc/uptime
UP_AT=$SECONDS
case $BOOT in
install) phase_install ;;
boot2) phase_boot2 ;;
boot3) phase_boot3 ;;
*) finish poweroff ;;
esac
