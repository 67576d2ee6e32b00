// SPDX-License-Identifier: GPL-2.0
/*
 * Which socket a packet belongs to, for the cgroup2 match and the
 * CGROUP2LOG target alike (see xt_cgroup2_sock.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/skbuff.h>
#include <linux/cgroup.h>
#include <linux/nsproxy.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>
#include <linux/tcp.h>
#include <linux/ipv6.h>
#include <net/sock.h>
#include <net/ip.h>
#include <net/route.h>
#include <net/ipv6.h>
#include <net/inet_hashtables.h>
#include <net/inet6_hashtables.h>
#include <net/netfilter/nf_socket.h>
#include <net/netfilter/ipv6/nf_defrag_ipv6.h>

#include "xt_cgroup2_compat.h"
#include "xt_cgroup2_sock.h"

#if !IS_ENABLED(CONFIG_NF_DEFRAG_IPV6)
#error "xt_cgroup2 needs a kernel with CONFIG_NF_DEFRAG_IPV6"
#endif

/* The TCP header of an IPv4 packet, or NULL. */
static const struct tcphdr *cg2_tcp_hdr_v4(const struct sk_buff *skb,
					   struct tcphdr *buf)
{
	const struct iphdr *iph = ip_hdr(skb);

	if (iph->protocol != IPPROTO_TCP || ip_is_fragment(iph))
		return NULL;
	return skb_header_pointer(skb, ip_hdrlen(skb), sizeof(*buf), buf);
}

#if IS_ENABLED(CONFIG_IPV6)
/* The TCP header of an IPv6 packet, or NULL; its offset in *@thoff. */
static const struct tcphdr *cg2_tcp_hdr_v6(const struct sk_buff *skb,
					   unsigned int *thoff,
					   struct tcphdr *buf)
{
	*thoff = 0;
	if (ipv6_find_hdr(skb, thoff, IPPROTO_TCP, NULL, NULL) != IPPROTO_TCP)
		return NULL;
	return skb_header_pointer(skb, *thoff, sizeof(*buf), buf);
}
#endif

/*
 * Under syncookies a SYN-ACK leaves without a socket: tcp_make_synack()
 * attaches none, to avoid false sharing during a SYN flood.  Find the
 * listener it answers for as the SYN found it, as far as the SYN-ACK
 * tells: not the SYN for a reuseport BPF selector (reuseport picks by
 * hash), nor the SYN's VRF slave device (sdif 0); the man page says so.
 * Listeners are freed after an RCU grace period and hooks run under RCU:
 * no reference is taken.
 */
static struct sock *cg2_synack_listener_v4(const struct sk_buff *skb,
					   struct net *net, int dif)
{
	const struct iphdr *iph = ip_hdr(skb);
	const struct tcphdr *th;
	struct tcphdr _th;

	th = cg2_tcp_hdr_v4(skb, &_th);
	if (!th || !th->syn || !th->ack)
		return NULL;
	return cg2_listener_v4(net, NULL, 0, iph->daddr, th->dest, iph->saddr,
			       th->source, dif, 0);
}

#if IS_ENABLED(CONFIG_IPV6)
static struct sock *cg2_synack_listener_v6(const struct sk_buff *skb,
					   struct net *net, int dif)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	const struct tcphdr *th;
	unsigned int thoff;
	struct tcphdr _th;

	th = cg2_tcp_hdr_v6(skb, &thoff, &_th);
	if (!th || !th->syn || !th->ack)
		return NULL;
	return cg2_listener_v6(net, NULL, 0, &ip6h->daddr, th->dest,
			       &ip6h->saddr, th->source, dif, 0);
}
#endif

/* Only in OUTPUT: a packet without a socket in POSTROUTING may be forwarded. */
static struct sock *cg2_synack_listener(const struct sk_buff *skb,
					const struct xt_action_param *par)
{
	int dif = xt_out(par) ? xt_out(par)->ifindex : 0;

	switch (xt_family(par)) {
	case NFPROTO_IPV4:
		return cg2_synack_listener_v4(skb, xt_net(par), dif);
#if IS_ENABLED(CONFIG_IPV6)
	case NFPROTO_IPV6:
		return cg2_synack_listener_v6(skb, xt_net(par), dif);
#endif
	default:
		return NULL;
	}
}

/*
 * A SYN that reopens a connection held in TIME_WAIT goes to the listener,
 * if there is one (TCP_TW_SYN in tcp_v4_rcv() and tcp_v6_rcv(), and
 * nf_tproxy_handle_time_wait4/6()): find the listener TCP will find, with
 * the packet's addresses, interface and VRF, and leave the TIME_WAIT
 * socket as it is.  Listeners are SOCK_RCU_FREE: no reference is taken.
 */
static bool cg2_pure_syn(const struct tcphdr *th)
{
	return th->syn && !th->ack && !th->rst && !th->fin;
}

/*
 * The skb for a reuseport group's BPF selector, which sees the packet from
 * its @doff'th byte (skb->data is the network header in INPUT; TCP's own
 * lookup starts at the TCP header, so an eBPF selector reading headers may
 * choose another member): only when those bytes are linear, so that the
 * selector's temporary pull moves no header that rules point into.
 */
static struct sk_buff *cg2_selector_skb(const struct sk_buff *skb,
					unsigned int doff)
{
	return doff <= skb_headlen(skb) ? (struct sk_buff *)skb : NULL;
}

/* The listener TCP hands the segment @th of IPv4 @skb to. */
static struct sock *cg2_tcp_listener_v4(const struct sk_buff *skb,
					const struct tcphdr *th,
					struct net *net)
{
	const struct iphdr *iph = ip_hdr(skb);
	unsigned int doff = ip_hdrlen(skb) + __tcp_hdrlen(th);

	return cg2_listener_v4(net, cg2_selector_skb(skb, doff), doff,
			       iph->saddr, th->source, iph->daddr, th->dest,
			       inet_iif(skb), inet_sdif(skb));
}

static struct sock *cg2_tw_listener_v4(const struct sk_buff *skb,
				       struct net *net)
{
	const struct tcphdr *th;
	struct tcphdr _th;

	th = cg2_tcp_hdr_v4(skb, &_th);
	return th && cg2_pure_syn(th) ? cg2_tcp_listener_v4(skb, th, net) : NULL;
}

#if IS_ENABLED(CONFIG_IPV6)
/* The listener TCP hands the segment @th at @thoff of IPv6 @skb to. */
static struct sock *cg2_tcp_listener_v6(const struct sk_buff *skb,
					unsigned int thoff,
					const struct tcphdr *th,
					struct net *net)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	unsigned int doff = thoff + __tcp_hdrlen(th);

	return cg2_listener_v6(net, cg2_selector_skb(skb, doff), doff,
			       &ip6h->saddr, th->source, &ip6h->daddr,
			       th->dest, inet6_iif(skb), inet6_sdif(skb));
}

static struct sock *cg2_tw_listener_v6(const struct sk_buff *skb,
				       struct net *net)
{
	const struct tcphdr *th;
	unsigned int thoff;
	struct tcphdr _th;

	th = cg2_tcp_hdr_v6(skb, &thoff, &_th);
	return th && cg2_pure_syn(th) ?
	       cg2_tcp_listener_v6(skb, thoff, th, net) : NULL;
}
#endif

static struct sock *cg2_tw_listener(const struct sk_buff *skb,
				    const struct xt_action_param *par)
{
	switch (xt_family(par)) {
	case NFPROTO_IPV4:
		return cg2_tw_listener_v4(skb, xt_net(par));
#if IS_ENABLED(CONFIG_IPV6)
	case NFPROTO_IPV6:
		return cg2_tw_listener_v6(skb, xt_net(par));
#endif
	default:
		return NULL;
	}
}

/*
 * Early demux attaches no socket on loopback or to a SYN for a listener:
 * look the receiving socket up.  TCP as tcp_v4_rcv() and tcp_v6_rcv() do,
 * with the packet's interface and VRF: an established, request or
 * TIME_WAIT socket comes with a reference in *@ref, a listener without
 * one (SOCK_RCU_FREE, and hooks run under RCU), so that rules do not
 * bounce one listener's refcount between CPUs under a SYN flood.  Other
 * protocols as xt_socket does, with a reference.  IPv6 fragments are
 * reassembled first (cg2_defrag_get()): the lookup cannot read a later
 * fragment.
 */
static struct sock *cg2_lookup_input(const struct sk_buff *skb,
				     const struct xt_action_param *par,
				     struct sock **ref)
{
	struct net *net = xt_net(par);
	const struct tcphdr *th;
	struct tcphdr _th;
#if IS_ENABLED(CONFIG_IPV6)
	unsigned int thoff;
#endif

	switch (xt_family(par)) {
	case NFPROTO_IPV4:
		th = cg2_tcp_hdr_v4(skb, &_th);
		if (th) {
			*ref = cg2_established_v4(net, ip_hdr(skb)->saddr,
						  th->source,
						  ip_hdr(skb)->daddr,
						  ntohs(th->dest),
						  inet_iif(skb),
						  inet_sdif(skb));
			return *ref ?: cg2_tcp_listener_v4(skb, th, net);
		}
#if IS_ENABLED(CONFIG_NF_SOCKET_IPV4)
		*ref = nf_sk_lookup_slow_v4(net, skb, xt_in(par));
#endif
		return *ref;
#if IS_ENABLED(CONFIG_IPV6)
	case NFPROTO_IPV6:
		th = cg2_tcp_hdr_v6(skb, &thoff, &_th);
		if (th) {
			*ref = cg2_established_v6(net, &ipv6_hdr(skb)->saddr,
						  th->source,
						  &ipv6_hdr(skb)->daddr,
						  ntohs(th->dest),
						  inet6_iif(skb),
						  inet6_sdif(skb));
			return *ref ?: cg2_tcp_listener_v6(skb, thoff, th,
							   net);
		}
#if IS_ENABLED(CONFIG_NF_SOCKET_IPV6)
		*ref = nf_sk_lookup_slow_v6(net, skb, xt_in(par));
#endif
		return *ref;
#endif
	default:
		return NULL;
	}
}

struct sock *cg2_find_packet_sock(const struct sk_buff *skb,
				  const struct xt_action_param *par,
				  struct sock **ref)
{
	struct sock *sk = skb->sk;

	*ref = NULL;
	if (!sk && xt_hooknum(par) == NF_INET_LOCAL_IN)
		sk = cg2_lookup_input(skb, par, ref);
	else if (!sk && xt_hooknum(par) == NF_INET_LOCAL_OUT)
		sk = cg2_synack_listener(skb, par);

	/* Early demux's or our own: *ref, if any, stays the TIME_WAIT's. */
	if (sk && sk->sk_state == TCP_TIME_WAIT &&
	    xt_hooknum(par) == NF_INET_LOCAL_IN)
		sk = cg2_tw_listener(skb, par);

	/* A request socket (SYN-ACK, the handshake's ACK) is its listener's. */
	sk = sk_to_full_sk(sk);
	return sk && cg2_service_sock(sk, xt_net(par)) ? sk : NULL;
}

void cg2_current_ns_root(u64 *id, int *level)
{
	struct cgroup *root = current->nsproxy->cgroup_ns->root_cset->dfl_cgrp;

	*id = cgroup_id(root);
	*level = root->level;
}

bool cg2_cgroup_in_ns(struct cgroup *cgrp, u64 root_id, int root_level)
{
	return cgrp->level >= root_level &&
	       cgroup_id(cgroup_ancestor(cgrp, root_level)) == root_id;
}

/*
 * IPv6's LOCAL_IN runs before reassembly, and a socket lookup on a later
 * fragment reads its payload as ports: have IPv6 fragments reassembled
 * before INPUT while a rule may see them, as xt_socket does.  IPv4
 * reassembles before LOCAL_IN anyway.  An nft rule in a non-base chain has
 * no hook_mask yet: it may be reached from INPUT.
 */
bool cg2_defrag_needed(u8 family, unsigned int hook_mask)
{
	return family == NFPROTO_IPV6 &&
	       (!hook_mask || hook_mask & BIT(NF_INET_LOCAL_IN));
}

int cg2_defrag_get(struct net *net, u8 family, unsigned int hook_mask)
{
	int ret;

	if (!cg2_defrag_needed(family, hook_mask))
		return 0;
	ret = nf_defrag_ipv6_enable(net);
	return ret ? ret : 1;
}

void cg2_defrag_put(struct net *net)
{
	nf_defrag_ipv6_disable(net);
}
