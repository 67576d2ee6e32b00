/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rules whose verdicts are the same for every socket share one compiled
 * rule, and with it one verdict cache: the same match repeated with other
 * ports or targets, or a ruleset loaded again (iptables-restore, nft -f),
 * whose new rules are checked while the old ones still exist.
 */
#ifndef _XT_CGROUP2_SHARE_H
#define _XT_CGROUP2_SHARE_H

#include <linux/types.h>
#include <linux/list.h>
#include <net/net_namespace.h>

/*
 * All that decides a rule's verdicts, besides the socket's cgroup, and what
 * else keeps rules apart: their network namespace, so that tenants share
 * nothing, and whether they hold IPv6 defragmentation, which each xt rule
 * releases itself.
 */
struct cg2_key {
	const struct net *net;	/* compared, never dereferenced */
	u64		root_id;	/* cgroup namespace root of the inserter */
	int		root_level;
	u32		flags;		/* XT_CGROUP2_*: inversion */
	bool		defrag;
	u16		count;		/* patterns, NUL-terminated, in @len bytes */
	u16		len;
	const char	*patterns;
	u32		hash;		/* of the rest: cg2_key_hash() */
};

/* One shared rule's place among them; embedded in it. */
struct cg2_share {
	struct hlist_node	node;
	struct cg2_key		key;	/* @key.patterns is its own copy */
	unsigned int		refs;	/* rules using it */
};

void cg2_shares_init(void);
u32 cg2_key_hash(const struct cg2_key *key);
int cg2_share_init(struct cg2_share *share, const struct cg2_key *key);
struct cg2_share *cg2_share_get(const struct cg2_key *key);
struct cg2_share *cg2_share_add(struct cg2_share *share);
bool cg2_share_put(struct cg2_share *share);
void cg2_share_free(struct cg2_share *share);

#endif /* _XT_CGROUP2_SHARE_H */
