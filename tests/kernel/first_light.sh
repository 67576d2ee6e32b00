#!/usr/bin/env bash
# First light: an OUTPUT rule counts exactly the packet sent from inside the
# cgroup it names, not the one sent from outside it.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module

mkcg svc/web.service svc/other.service
udp_sink 127.0.0.1 9999
iptables -A OUTPUT -p udp -d 127.0.0.1 --dport 9999 -m cgroup2 --path svc/web.service \
	-m comment --comment web
expect "sent from web.service" "sent 1" "$(udp_from svc/web.service 127.0.0.1 9999)"
expect "sent from other.service" "sent 1" "$(udp_from svc/other.service 127.0.0.1 9999)"
expect "sent from the root cgroup" "sent 1" "$(udp_from "" 127.0.0.1 9999)"
expect "rule counted only web.service" 1 "$(counter iptables OUTPUT web)"
finish
