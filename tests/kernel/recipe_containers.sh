#!/usr/bin/env bash
# vm-options: --add docs:/docs
# docs/recipes/containers.md, its blocks run as written: the host's rules
# see a hostNetwork pod's process in its scope; traffic bridged out of a
# pod's own netns carries no socket on the host, so only an address rule in
# FORWARD or a rule inside the pod's netns catches it.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
RECIPE=/docs/recipes/containers.md
POD=kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1234.slice
META=169.254.169.254

meta_ipt() { in_ns meta iptables-legacy "$@"; }
pod_ipt() { in_ns pod iptables "$@"; }

# The metadata service in netns "meta", routed from the host; a pod with
# its own netns "pod" behind a veth, routed by the host.
netns_add meta pod
veth_ns meta 192.168.100.1/24 192.168.100.2/24 vmeta
ip -n meta addr add $META/32 dev eth0
ip route add $META/32 via 192.168.100.2
ip -n meta route add 10.244.0.0/16 via 192.168.100.1
veth_ns pod 10.244.1.1/24 10.244.1.2/24 vpod
ip -n pod route add default via 10.244.1.1
sysctl -qw net.ipv4.ip_forward=1
meta_ipt -A INPUT -p udp --dport 80 -s 192.168.100.1 -m comment --comment from-host -j DROP
meta_ipt -A INPUT -p udp --dport 80 -s 10.244.1.2 -m comment --comment from-pod -j DROP
mkcg "$POD/cri-containerd-aaaa.scope" "$POD/cri-containerd-bbbb.scope" system.slice/kubelet.service
# Probes of this test: does any host-side -m cgroup2 rule see the pod's
# forwarded packets?
iptables -t mangle -A POSTROUTING -d $META -m cgroup2 --path 'kubepods.slice/**' \
	-m comment --comment post-pods
iptables -t mangle -A POSTROUTING -d $META -m cgroup2 ! --path 'kubepods.slice/**' \
	-m comment --comment post-not-pods

# run_block ID: the recipe's block vm:recipe_containers:ID, as written.
run_block() {
	local block
	block=$(/tests/docs/blocks get "$RECIPE" "vm:recipe_containers:$1") || {
		fail "the recipe has its $1 block"; return; }
	expect_ok "the $1 block runs as written" "${@:2}" bash -e -c "$block"
}
run_block hostnet
# A hostNetwork pod's process and the kubelet, both in the host netns.
expect "hostnet: the pod's send is rejected" "blocked: Operation not permitted" \
	"$(udp_from "$POD/cri-containerd-aaaa.scope" $META 80 2>/dev/null)"
sends system.slice/kubelet.service $META 80 1
expect "hostnet: the pod's datagram is rejected" 1 "$(counter iptables OUTPUT pods-no-metadata)"
expect "hostnet: the kubelet's datagram arrives, the pod's does not" 1 \
	"$(counter meta_ipt INPUT from-host)"

# A process of a pod with its own netns, in the pod's scope: before the
# FORWARD rule, its datagram is forwarded past every host-side -m cgroup2
# rule, matched by none, with or without "!".
expect "bridged: the pod's datagram is forwarded" "sent 1" \
	"$(in_ns pod cg2net --cgroup "$POD/cri-containerd-bbbb.scope" send udp $META 80)"
expect "bridged: it reached the metadata service" 1 "$(counter meta_ipt INPUT from-pod)"
expect "bridged: the host's OUTPUT rule did not see it" 1 "$(counter iptables OUTPUT pods-no-metadata)"
expect "bridged: POSTROUTING --path never saw a pod packet" 0 \
	"$(counter iptables POSTROUTING post-pods mangle)"
expect "bridged: POSTROUTING ! --path matched the kubelet's datagram only" 1 \
	"$(counter iptables POSTROUTING post-not-pods mangle)"
expect_fail "bridged: -m cgroup2 is refused in FORWARD" \
	iptables -A FORWARD -m cgroup2 --path 'kubepods.slice/**' -j REJECT
run_block bridged
expect "bridged: the pod's datagram is refused by the FORWARD rule" refused \
	"$(in_ns pod cg2net --cgroup "$POD/cri-containerd-bbbb.scope" send udp $META 80)"
expect "bridged: the FORWARD rule counted it" 1 "$(counter iptables FORWARD podnet-no-metadata)"

# Inside the pod's netns: a process of the pod gives the PID.
# (nsenter, not the function in_ns: $! must be the pod's process itself)
nsenter --net=/run/netns/pod cg2net --cgroup "$POD/cri-containerd-bbbb.scope" listen udp 127.0.0.1 0 \
	--timeout 60000 --ready-file "$BG_DIR/pod.ready" >/dev/null 2>&1 &
_bg+=($!)
PID=$!
wait_for_file "$BG_DIR/pod.ready" || fail "the pod's process started"
run_block inpod env PID=$PID
expect "inpod: the pod's datagram is rejected inside its netns" "blocked: Operation not permitted" \
	"$(in_ns pod cg2net --cgroup "$POD/cri-containerd-bbbb.scope" send udp $META 80)"
expect "inpod: the rule in the pod's netns matched it" 1 "$(counter pod_ipt OUTPUT in-pod)"
expect "inpod: the FORWARD rule saw nothing more" 1 "$(counter iptables FORWARD podnet-no-metadata)"
expect "nothing more from the pod reached the metadata service" 1 "$(counter meta_ipt INPUT from-pod)"
finish
