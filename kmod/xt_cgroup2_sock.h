/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the cgroup2 match and the CGROUP2LOG target share: the socket, and
 * so the cgroup, a packet is judged by, and the cgroup namespace root that
 * rules are relative to.
 */
#ifndef _XT_CGROUP2_SOCK_H
#define _XT_CGROUP2_SOCK_H

#include <linux/cgroup.h>
#include <linux/skbuff.h>
#include <linux/netfilter/x_tables.h>
#include <net/sock.h>

/*
 * Only full sockets of this netns that processes made carry a service's
 * cgroup.  TIME_WAIT sockets have none (a SYN that meets one counts as its
 * listener's, cg2_find_packet_cgroup()); kernel sockets (the control
 * sockets that send RSTs, ICMP errors, neighbour discovery and MLD, and
 * those of in-kernel users such as tunnels) are nobody's service: their
 * packets count as packets without a socket.
 */
static inline bool cg2_service_sock(const struct sock *sk,
				    const struct net *net)
{
	return sk_fullsock(sk) && !sk->sk_kern_sock && net_eq(net, sock_net(sk));
}

/*
 * The cgroup of the process socket @skb belongs to, or NULL, for packets
 * that do not carry one themselves: request sockets count as their
 * listener, and in INPUT so does a SYN (no ACK, RST or FIN) that meets a
 * TIME_WAIT socket, if TCP will hand it to a listener; other TIME_WAIT,
 * kernel and other-netns sockets count as no socket.  No reference is
 * kept: the socket held one on its cgroup when it was read, and a cgroup
 * is freed an RCU grace period after its last one, so the pointer stays
 * valid while the hook runs (nf_hook() holds rcu_read_lock()).
 */
struct cgroup *cg2_find_packet_cgroup(const struct sk_buff *skb,
				      const struct xt_action_param *par);

/*
 * The packet's own socket if it is a service's: most packets, found with
 * no call and no reference (a quarter of a cached match, kbench.sh).
 */
static inline struct sock *cg2_skb_service_sock(const struct sk_buff *skb,
						const struct xt_action_param *par)
{
	struct sock *sk = skb->sk;

	return sk && cg2_service_sock(sk, xt_net(par)) ? sk : NULL;
}

/* The cgroup of either of the two above, or NULL. */
static inline struct cgroup *cg2_packet_cgroup(const struct sk_buff *skb,
					       const struct xt_action_param *par)
{
	struct sock *sk = cg2_skb_service_sock(skb, par);

	if (likely(sk))
		return sock_cgroup_ptr(&sk->sk_cgrp_data);
	return cg2_find_packet_cgroup(skb, par);
}

/* The cgroup namespace root of the task inserting a rule. */
void cg2_current_ns_root(u64 *id, int *level);

/* Is @cgrp at or below the namespace root @root_id at @root_level? */
bool cg2_cgroup_in_ns(struct cgroup *cgrp, u64 root_id, int root_level);

/* Whether a rule of @family on @hook_mask needs cg2_defrag_get(). */
bool cg2_defrag_needed(u8 family, unsigned int hook_mask);

/*
 * IPv6 rules that INPUT may reach hold nf_defrag_ipv6 for @net: returns 1
 * when taken (release with cg2_defrag_put()), 0 when not needed, or an
 * error.
 */
int cg2_defrag_get(struct net *net, u8 family, unsigned int hook_mask);
void cg2_defrag_put(struct net *net);

#endif /* _XT_CGROUP2_SOCK_H */
