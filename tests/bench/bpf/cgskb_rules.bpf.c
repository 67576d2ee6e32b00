// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup-skb BPF side of tests/bench/sidebyside.sh: what systemd's
 * IPAddressDeny= and IPEgressFilterPath= attach to a unit's cgroup, as N
 * rules taken in turn, so that a chain of N iptables or nft rules has a
 * like for like.  Attached to a cgroup's egress, it runs for the packets
 * of that cgroup's sockets and of its descendants': the cgroup is chosen
 * by where it is attached, and costs nothing per packet.  Each of the
 * first nrules[0] entries of "rules" (set from userspace, at most
 * CG2B_MAX_RULES) compares the packet's IPv4 destination and UDP port and
 * counts a hit, as "-d DST --dport P ... " with its rule counter does; the
 * packet always passes.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define CG2B_MAX_RULES	1024

struct cg2b_rule {
	__u32 daddr;	/* network order */
	__u16 dport;	/* network order */
	__u16 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CG2B_MAX_RULES);
	__type(key, __u32);
	__type(value, struct cg2b_rule);
} rules SEC(".maps");

/* Rule counters, per CPU as xtables' are. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CG2B_MAX_RULES);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

/* Entry 0: how many rules are in force. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} nrules SEC(".maps");

SEC("cgroup_skb/egress")
int cg2b_egress(struct __sk_buff *skb)
{
	__u32 zero = 0, key, i, n, *np;
	struct cg2b_rule *rule;
	struct udphdr udp;
	struct iphdr ip;
	__u64 *hit;

	if (skb->protocol != bpf_htons(ETH_P_IP))
		return 1;
	if (bpf_skb_load_bytes(skb, 0, &ip, sizeof(ip)) ||
	    ip.protocol != IPPROTO_UDP ||
	    bpf_skb_load_bytes(skb, ip.ihl * 4, &udp, sizeof(udp)))
		return 1;
	np = bpf_map_lookup_elem(&nrules, &zero);
	n = np ? *np : 0;
	/*
	 * The map key is a copy: had the counter's own address been taken,
	 * it would live on the stack, where the verifier of 6.1 loses its
	 * bounds and calls the loop infinite.
	 */
	for (i = 0; i < CG2B_MAX_RULES && i < n; i++) {
		key = i;
		rule = bpf_map_lookup_elem(&rules, &key);
		if (!rule)
			break;
		if (rule->daddr != ip.daddr || rule->dport != udp.dest)
			continue;
		hit = bpf_map_lookup_elem(&hits, &key);
		if (hit)
			*hit += 1;
	}
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
