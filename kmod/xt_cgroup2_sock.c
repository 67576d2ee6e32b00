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
#include <linux/jiffies.h>
#include <linux/percpu.h>
#include <net/sock.h>
#include <net/ip.h>
#include <net/route.h>
#include <net/ipv6.h>
#include <net/inet_hashtables.h>
#include <net/inet6_hashtables.h>
#include <net/tcp.h>
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
 * Everything a TCP socket lookup of ours reads, and where it runs: the
 * segment's addresses and ports, the interface and VRF it came in on (in
 * INPUT) or leaves by (in OUTPUT), the flags that decide which lookup,
 * the payload offset a reuseport selector is given, and the socket early
 * demux attached (NULL, or a TIME_WAIT socket).  Also the key of the
 * lookup memo below, compared whole: every byte is set, padding too.
 */
struct cg2_seg {
	const struct sk_buff *skb;
	struct sock *sk;
	struct net *net;
	unsigned int seq;		/* this CPU's x_tables sequence */
	int dif, sdif;
	struct in6_addr saddr, daddr;	/* IPv4: in the first word */
	__be16 sport, dport;
	u32 doff;			/* of the payload, from skb->data */
	u8 family, hook, flags;		/* flags: CG2_SEG_FLAGS of the TCP's */
};

#define CG2_SEG_FLAGS	(TCPHDR_FIN | TCPHDR_SYN | TCPHDR_RST | TCPHDR_ACK)

static void cg2_seg_tcp(struct cg2_seg *seg, const struct tcphdr *th,
			unsigned int thoff)
{
	seg->sport = th->source;
	seg->dport = th->dest;
	seg->doff = thoff + __tcp_hdrlen(th);
	seg->flags = tcp_flag_byte(th) & CG2_SEG_FLAGS;
}

static bool cg2_seg_v4(const struct sk_buff *skb, struct cg2_seg *seg)
{
	const struct tcphdr *th;
	struct tcphdr _th;

	th = cg2_tcp_hdr_v4(skb, &_th);
	if (!th)
		return false;
	seg->saddr.s6_addr32[0] = ip_hdr(skb)->saddr;
	seg->daddr.s6_addr32[0] = ip_hdr(skb)->daddr;
	cg2_seg_tcp(seg, th, ip_hdrlen(skb));
	if (seg->hook == NF_INET_LOCAL_IN) {
		seg->dif = inet_iif(skb);
		seg->sdif = inet_sdif(skb);
	}
	return true;
}

#if IS_ENABLED(CONFIG_IPV6)
static bool cg2_seg_v6(const struct sk_buff *skb, struct cg2_seg *seg)
{
	const struct tcphdr *th;
	unsigned int thoff;
	struct tcphdr _th;

	th = cg2_tcp_hdr_v6(skb, &thoff, &_th);
	if (!th)
		return false;
	seg->saddr = ipv6_hdr(skb)->saddr;
	seg->daddr = ipv6_hdr(skb)->daddr;
	cg2_seg_tcp(seg, th, thoff);
	if (seg->hook == NF_INET_LOCAL_IN) {
		seg->dif = inet6_iif(skb);
		seg->sdif = inet6_sdif(skb);
	}
	return true;
}
#endif

/* @skb's TCP segment in @seg, or false if it is not one. */
static bool cg2_seg_parse(const struct sk_buff *skb,
			  const struct xt_action_param *par,
			  struct cg2_seg *seg)
{
	memset(seg, 0, sizeof(*seg));
	seg->skb = skb;
	seg->sk = skb->sk;
	seg->net = xt_net(par);
	seg->family = xt_family(par);
	seg->hook = xt_hooknum(par);
	if (seg->hook == NF_INET_LOCAL_OUT && xt_out(par))
		seg->dif = xt_out(par)->ifindex;
	switch (seg->family) {
	case NFPROTO_IPV4:
		return cg2_seg_v4(skb, seg);
#if IS_ENABLED(CONFIG_IPV6)
	case NFPROTO_IPV6:
		return cg2_seg_v6(skb, seg);
#endif
	default:
		return false;
	}
}

/*
 * The established, request or TIME_WAIT socket of @seg, found as
 * tcp_v4_rcv() and tcp_v6_rcv() do, with a reference.
 */
static struct sock *cg2_seg_established(const struct cg2_seg *seg)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (seg->family == NFPROTO_IPV6)
		return cg2_established_v6(seg->net, &seg->saddr, seg->sport,
					  &seg->daddr, ntohs(seg->dport),
					  seg->dif, seg->sdif);
#endif
	return cg2_established_v4(seg->net, seg->saddr.s6_addr32[0],
				  seg->sport, seg->daddr.s6_addr32[0],
				  ntohs(seg->dport), seg->dif, seg->sdif);
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

/*
 * The listener TCP hands the segment @seg of @skb to, with the packet's
 * addresses, interface and VRF.  Listeners are SOCK_RCU_FREE and hooks
 * run under RCU: no reference is taken, so that rules do not bounce one
 * listener's refcount between CPUs under a SYN flood.
 */
static struct sock *cg2_seg_listener(const struct sk_buff *skb,
				     const struct cg2_seg *seg)
{
	struct sk_buff *sel = cg2_selector_skb(skb, seg->doff);

#if IS_ENABLED(CONFIG_IPV6)
	if (seg->family == NFPROTO_IPV6)
		return cg2_listener_v6(seg->net, sel, seg->doff, &seg->saddr,
				       seg->sport, &seg->daddr, seg->dport,
				       seg->dif, seg->sdif);
#endif
	return cg2_listener_v4(seg->net, sel, seg->doff,
			       seg->saddr.s6_addr32[0], seg->sport,
			       seg->daddr.s6_addr32[0], seg->dport,
			       seg->dif, seg->sdif);
}

/*
 * Under syncookies a SYN-ACK leaves without a socket: tcp_make_synack()
 * attaches none, to avoid false sharing during a SYN flood.  Find the
 * listener it answers for as the SYN found it, as far as the SYN-ACK
 * tells: not the SYN for a reuseport BPF selector (reuseport picks by
 * hash), nor the SYN's VRF slave device (sdif 0); the man page says so.
 * Only in OUTPUT: a packet without a socket in POSTROUTING may be
 * forwarded.  No reference, as above.
 */
static bool cg2_seg_synack(const struct cg2_seg *seg)
{
	return (seg->flags & (TCPHDR_SYN | TCPHDR_ACK)) ==
	       (TCPHDR_SYN | TCPHDR_ACK);
}

static struct sock *cg2_seg_synack_listener(const struct cg2_seg *seg)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (seg->family == NFPROTO_IPV6)
		return cg2_listener_v6(seg->net, NULL, 0, &seg->daddr,
				       seg->dport, &seg->saddr, seg->sport,
				       seg->dif, 0);
#endif
	return cg2_listener_v4(seg->net, NULL, 0, seg->daddr.s6_addr32[0],
			       seg->dport, seg->saddr.s6_addr32[0], seg->sport,
			       seg->dif, 0);
}

/*
 * The socket a segment reaches in INPUT.  Early demux attaches no socket
 * on loopback or to a SYN for a listener: look it up as TCP does, an
 * established, request or TIME_WAIT socket with a reference in *@ref.  A
 * SYN that reopens a connection held in TIME_WAIT (early demux's or our
 * own) goes to the listener, if there is one (TCP_TW_SYN in tcp_v4_rcv()
 * and tcp_v6_rcv(), and nf_tproxy_handle_time_wait4/6()); the TIME_WAIT
 * socket is left as it is.
 */
static struct sock *cg2_seg_input_sock(const struct sk_buff *skb,
				       const struct cg2_seg *seg,
				       struct sock **ref)
{
	struct sock *sk = seg->sk ?: (*ref = cg2_seg_established(seg));

	if (!sk)
		return cg2_seg_listener(skb, seg);
	if (sk->sk_state != TCP_TIME_WAIT)
		return sk;
	return (seg->flags & CG2_SEG_FLAGS) == TCPHDR_SYN ?
	       cg2_seg_listener(skb, seg) : NULL;
}

/* A request socket (SYN-ACK, the handshake's ACK) is its listener's. */
static struct cgroup *cg2_sock_cgroup(struct sock *sk, const struct net *net)
{
	sk = sk_to_full_sk(sk);
	return sk && cg2_service_sock(sk, net) ?
	       sock_cgroup_ptr(&sk->sk_cgrp_data) : NULL;
}

static struct cgroup *cg2_seg_lookup(const struct sk_buff *skb,
				     const struct cg2_seg *seg)
{
	struct sock *ref = NULL, *sk;
	struct cgroup *cgrp;

	if (seg->hook == NF_INET_LOCAL_IN)
		sk = cg2_seg_input_sock(skb, seg, &ref);
	else
		sk = cg2_seg_synack_listener(seg);
	cgrp = cg2_sock_cgroup(sk, seg->net);
	if (ref)
		sock_gen_put(ref);
	return cgrp;
}

/*
 * The lookup memo: one TCP socket lookup per packet for all the rules of
 * one x_tables traversal, not one per rule.  ipt_do_table() and
 * ip6t_do_table() make this CPU's xt_recseq odd for the whole of the
 * outermost traversal, bottom halves off, and even again at its end;
 * nested traversals (REJECT, TEE, SYNPROXY send packets from a target)
 * keep it.  So within one odd sequence number this CPU runs one outer
 * traversal, all of it inside nf_hook()'s RCU read section, and a cgroup
 * read then stays valid to its end (xt_cgroup2_sock.h).  The memo keeps
 * that cgroup (or "none") with the whole cg2_seg it was found for: a hit
 * needs the same skb and sequence, and the same addresses, ports,
 * interfaces, flags, hook and attached socket, that is, the same lookup
 * over the same tables.  A packet a nested traversal frees and another
 * that takes its address therefore hit only if their lookups are the
 * same, and targets that change a packet between rules (ECN, TCPMSS:
 * no field of the key) cannot turn one packet's answer into another's.
 * The sequence has 32 bits: an entry counts for CG2_MEMO_TICKS (a
 * second) at most, and 2^31 traversals of this CPU, for the sequence to
 * come round again, cannot fit in a second.  No memo where the sequence
 * is even: nft_compat (iptables-nft) runs matches without touching it,
 * and outside a traversal nothing bounds the memo's life.  Per CPU, used
 * with bottom halves off only: one user at a time.  Not so on PREEMPT_RT,
 * where local_bh_disable() may only pin the task to its CPU, so that two
 * tasks could share one traversal's sequence: no memo there.  Nor in hard
 * interrupts or NMIs, which can interrupt a traversal (no match runs
 * there today).
 */
struct cg2_memo {
	struct cg2_seg seg;
	unsigned long stamp;		/* jiffies when written */
	struct cgroup *cgrp;
};

#define CG2_MEMO_TICKS	HZ

static DEFINE_PER_CPU(struct cg2_memo, cg2_memo);

/* This CPU's memo if an x_tables traversal runs here, @seg's seq set. */
static struct cg2_memo *cg2_memo_get(struct cg2_seg *seg)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT) || !softirq_count() ||
	    in_hardirq() || in_nmi())
		return NULL;
	seg->seq = cg2_xt_traversal_seq();
	return seg->seq & 1 ? this_cpu_ptr(&cg2_memo) : NULL;
}

static bool cg2_memo_hit(const struct cg2_memo *memo,
			 const struct cg2_seg *seg)
{
	return !memcmp(&memo->seg, seg, sizeof(*seg)) &&
	       time_before(jiffies, memo->stamp + CG2_MEMO_TICKS);
}

static struct cgroup *cg2_seg_cgroup(const struct sk_buff *skb,
				     struct cg2_seg *seg)
{
	struct cg2_memo *memo = cg2_memo_get(seg);
	struct cgroup *cgrp;

	if (memo && cg2_memo_hit(memo, seg))
		return memo->cgrp;
	cgrp = cg2_seg_lookup(skb, seg);
	if (memo) {
		memcpy(&memo->seg, seg, sizeof(*seg));
		memo->stamp = jiffies;
		memo->cgrp = cgrp;
	}
	return cgrp;
}

/*
 * Other protocols in INPUT as xt_socket finds them, with a reference (no
 * memo: the lookup reads conntrack's NAT state and the packet inside an
 * ICMP error).  IPv6 fragments are reassembled first (cg2_defrag_get()):
 * the lookup cannot read a later fragment.
 */
static struct cgroup *cg2_slow_input_cgroup(const struct sk_buff *skb,
					    const struct xt_action_param *par)
{
	struct sock *sk = NULL;
	struct cgroup *cgrp;

#if IS_ENABLED(CONFIG_NF_SOCKET_IPV4)
	if (xt_family(par) == NFPROTO_IPV4)
		sk = nf_sk_lookup_slow_v4(xt_net(par), skb, xt_in(par));
#endif
#if IS_ENABLED(CONFIG_NF_SOCKET_IPV6)
	if (xt_family(par) == NFPROTO_IPV6)
		sk = nf_sk_lookup_slow_v6(xt_net(par), skb, xt_in(par));
#endif
	if (!sk)
		return NULL;
	cgrp = sk->sk_state == TCP_TIME_WAIT ? NULL :
	       cg2_sock_cgroup(sk, xt_net(par));
	sock_gen_put(sk);
	return cgrp;
}

struct cgroup *cg2_find_packet_cgroup(const struct sk_buff *skb,
				      const struct xt_action_param *par)
{
	struct sock *sk = skb->sk;
	struct cg2_seg seg;

	if (sk && sk->sk_state != TCP_TIME_WAIT)
		return cg2_sock_cgroup(sk, xt_net(par));
	switch (xt_hooknum(par)) {
	case NF_INET_LOCAL_IN:
		if (cg2_seg_parse(skb, par, &seg))
			return cg2_seg_cgroup(skb, &seg);
		return sk ? NULL : cg2_slow_input_cgroup(skb, par);
	case NF_INET_LOCAL_OUT:
		if (!sk && cg2_seg_parse(skb, par, &seg) && cg2_seg_synack(&seg))
			return cg2_seg_cgroup(skb, &seg);
		return NULL;
	default:
		return NULL;
	}
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
