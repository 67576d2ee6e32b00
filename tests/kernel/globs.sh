#!/usr/bin/env bash
# Glob forms, each against a set of cgroups that each send one datagram:
# * ? [abc] [a-z] [!x] [^x] {a,b,c} \ escapes, names with "@", "**" at the
# start, middle and end, a glob never crossing "/", and the examples of
# the issue.  Every rule must count exactly the cgroups it names (or their
# descendants).
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
drop_unreach

P=9601
cgroups=(
	system.slice/nginx.service system.slice/php-fpm.service
	system.slice/sshd.service system.slice/cron.timer
	system.slice/user@1000.service
	user.slice/user-1000.slice/user@1000.service/app.slice/app-firefox-1234.scope
	user.slice/user-1000.slice/session-2.scope/app-firefox-99.scope
	user.slice/user-1000.slice/app-firefox-5.scope
	user.slice/user-1000.slice/app-chrome-1.scope
	user.slice/user-1000.slice/user@1000.service/firefox.scope
	machine.slice machine.slice/vm1/payload machine.slice/vm2/payload/inner
	machine.slice/vm3/other
	lab/a1 lab/b1 lab/c1 lab/d1 lab/x1 lab/ab lab/x lab/y 'lab/a*b' lab/axb
	'lab/[x]' 'lab/{a}'
)
mkcg "${cgroups[@]}"

# TAG|PATTERN|EXPECTED: each cgroup above sends 1 datagram.
cases=(
	'issue-service|system.slice/*.service|4'
	'issue-brace|system.slice/{nginx,php-fpm}.service|2'
	'issue-firefox|user.slice/user-*.slice/**/app-firefox-*.scope|3'
	'issue-payload|machine.slice/*/payload|2'
	'issue-user-at|user.slice/user-1000.slice/user@1000.service|2'
	'at-literal|system.slice/user@1000.service|1'
	'at-glob|**/user@*.service|3'
	'star|lab/*|12'
	'star-inside|lab/a*b|3'
	'star-no-slash|machine.slice/*payload|0'
	'star-one-level|machine.slice/*|3'
	'qmark|lab/?1|5'
	'qmark-alone|lab/?|2'
	'class|lab/[abc]1|3'
	'range|lab/[b-d]1|3'
	'negated|lab/[!x]1|4'
	'negated-caret|lab/[^x]1|4'
	'brace|lab/{a,b,c}1|3'
	'two-braces|lab/{a,x}{1,b}|3'
	'escape-star|lab/a\*b|1'
	'escape-bracket|lab/\[x]|1'
	'escape-brace|lab/\{a\}|1'
	'dstar-start|**/payload|2'
	'dstar-middle|user.slice/**/app-*.scope|4'
	'dstar-end|machine.slice/**|4'
	'dstar-alone|**|27'
	'dstar-zero|user.slice/user-1000.slice/**/app-chrome-1.scope|1'
	'no-match|lab/z*|0'
)
{
	echo '*filter'
	for c in "${cases[@]}"; do
		IFS='|' read -r tag pat want <<<"$c"
		printf -- '-A OUTPUT -p udp -d 127.0.0.1 --dport %s -m cgroup2 --path "%s" -m comment --comment %s\n' \
			$P "${pat//\\/\\\\}" "$tag"
	done
	echo COMMIT
} >/tmp/globs.rules
expect_ok "restore ${#cases[@]} glob rules (legacy)" iptables-legacy-restore -w --noflush /tmp/globs.rules
expect_ok "restore ${#cases[@]} glob rules (nft)" iptables-nft-restore -w --noflush /tmp/globs.rules

for c in "${cgroups[@]}"; do sends "$c" 127.0.0.1 $P 1; done
sends "" 127.0.0.1 $P 1

for ipt in iptables-legacy iptables-nft; do
	snap $ipt OUTPUT 2>/dev/null
	for c in "${cases[@]}"; do
		IFS='|' read -r tag pat want <<<"$c"
		expect "$ipt $tag: '$pat'" "$want" "$(snapc "$tag")"
	done
done

# The save form restores to the same rules.
iptables-legacy-save -t filter >/tmp/globs.saved
expect_grep "escape kept in the save form" '--path "lab/a\\\\\*b"' "$(cat /tmp/globs.saved)"
iptables-legacy -w -F OUTPUT
expect_ok "saved glob rules restore" iptables-legacy-restore /tmp/globs.saved
expect "same rules after restore" "$(grep -c cgroup2 /tmp/globs.saved)" \
	"$(iptables-legacy -w -S OUTPUT | grep -c cgroup2)"
finish
