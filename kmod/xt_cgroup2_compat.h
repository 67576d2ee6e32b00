/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel version differences, kept in one place. */
#ifndef _XT_CGROUP2_COMPAT_H
#define _XT_CGROUP2_COMPAT_H

#include <linux/cgroup.h>
#include <linux/kernfs.h>
#include <net/net_namespace.h>
#include <net/tcp.h>
#include <net/inet6_hashtables.h>
#include <linux/netfilter/x_tables.h>

/*
 * The name of a cgroup v2 directory.  cgroup v2 refuses rename(2), so the
 * name is fixed for the cgroup's life.  Newer kernels publish kernfs names
 * through RCU (Kbuild detects it); the packet path runs under RCU.
 */
static inline const char *cg2_cgroup_name(const struct cgroup *cgrp)
{
#ifdef CG2_HAVE_KERNFS_NAME_RCU
	return rcu_dereference(cgrp->kn->name);
#else
	return cgrp->kn->name;
#endif
}

/*
 * The established, request or TIME_WAIT socket of a TCP segment from
 * @saddr:@sport to @daddr:@hnum, with a reference.  Newer kernels find
 * @net's socket tables themselves, as for the listeners below.
 */
static inline struct sock *cg2_established_v4(struct net *net, __be32 saddr,
					      __be16 sport, __be32 daddr,
					      u16 hnum, int dif, int sdif)
{
#ifdef CG2_HAVE_ESTABLISHED_LOOKUP_BY_NET
	return __inet_lookup_established(net, saddr, sport, daddr, hnum, dif,
					 sdif);
#else
	return __inet_lookup_established(net, net->ipv4.tcp_death_row.hashinfo,
					 saddr, sport, daddr, hnum, dif, sdif);
#endif
}

#if IS_ENABLED(CONFIG_IPV6)
static inline struct sock *cg2_established_v6(struct net *net,
					      const struct in6_addr *saddr,
					      __be16 sport,
					      const struct in6_addr *daddr,
					      u16 hnum, int dif, int sdif)
{
#ifdef CG2_HAVE_ESTABLISHED_LOOKUP_BY_NET
	return __inet6_lookup_established(net, saddr, sport, daddr, hnum, dif,
					  sdif);
#else
	return __inet6_lookup_established(net,
					  net->ipv4.tcp_death_row.hashinfo,
					  saddr, sport, daddr, hnum, dif,
					  sdif);
#endif
}
#endif

/*
 * The TCP listener a segment from @saddr:@sport to @daddr:@dport reaches,
 * arriving on @dif (@sdif: its VRF slave device, or 0).  @skb, if given,
 * goes to a reuseport group's BPF selector, @doff bytes on from skb->data
 * to the payload.  Newer kernels find @net's socket tables themselves;
 * older ones are given them (the netns's own, or the global ones it points
 * to).
 */
static inline struct sock *cg2_listener_v4(struct net *net,
					   struct sk_buff *skb, int doff,
					   __be32 saddr, __be16 sport,
					   __be32 daddr, __be16 dport,
					   int dif, int sdif)
{
#ifdef CG2_HAVE_LISTENER_LOOKUP_BY_NET
	return inet_lookup_listener(net, skb, doff, saddr, sport, daddr, dport,
				    dif, sdif);
#else
	return inet_lookup_listener(net, net->ipv4.tcp_death_row.hashinfo,
				    skb, doff, saddr, sport, daddr, dport,
				    dif, sdif);
#endif
}

#if IS_ENABLED(CONFIG_IPV6)
static inline struct sock *cg2_listener_v6(struct net *net,
					   struct sk_buff *skb, int doff,
					   const struct in6_addr *saddr,
					   __be16 sport,
					   const struct in6_addr *daddr,
					   __be16 dport, int dif, int sdif)
{
#ifdef CG2_HAVE_LISTENER_LOOKUP_BY_NET
	return inet6_lookup_listener(net, skb, doff, saddr, sport, daddr,
				     ntohs(dport), dif, sdif);
#else
	return inet6_lookup_listener(net, net->ipv4.tcp_death_row.hashinfo,
				     skb, doff, saddr, sport, daddr,
				     ntohs(dport), dif, sdif);
#endif
}
#endif

/*
 * This CPU's x_tables sequence: odd from the start of the outermost
 * ipt_do_table() or ip6t_do_table() running here to its end (nested
 * traversals keep it), even otherwise.  Kernels without it give 0: never
 * within a traversal, so no lookup memo there (xt_cgroup2_sock.c).
 * Bottom halves are off within a traversal, so that a caller that finds
 * an odd value runs inside one: call with bottom halves off.
 */
static inline unsigned int cg2_xt_traversal_seq(void)
{
#ifdef CG2_HAVE_XT_RECSEQ
	return __this_cpu_read(xt_recseq.sequence);
#else
	return 0;
#endif
}

#endif /* _XT_CGROUP2_COMPAT_H */
