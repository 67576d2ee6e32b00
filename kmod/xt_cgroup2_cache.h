/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A rule's verdict cache: cgroup serial number -> verdict, exact (a key is
 * the whole serial number), lock-free to read and to fill, and growing with
 * the number of cgroups that send through the rule, up to a fixed bound.
 */
#ifndef _XT_CGROUP2_CACHE_H
#define _XT_CGROUP2_CACHE_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/workqueue.h>

/*
 * 8 verdicts per set (one 64-byte cache line).  A table starts with
 * 2^CG2_CACHE_MIN_BITS verdicts (1 KiB) and grows 4x at a time as
 * verdicts fill it, to at most 2^CG2_CACHE_MAX_BITS (16,384
 * verdicts, 128 KiB): the memory bound per rule.
 */
#define CG2_CACHE_WAY_BITS	3
#define CG2_CACHE_MIN_BITS	7
#define CG2_CACHE_MAX_BITS	14

struct cg2_cache {
	unsigned long		table;	/* slot array | log2 of its slots */
	atomic_t		fills;		/* since the table was installed */
	struct work_struct	grow;
};

int cg2_cache_init(struct cg2_cache *cache);
void cg2_cache_destroy(struct cg2_cache *cache);
int cg2_cache_get(const struct cg2_cache *cache, u64 serial);
void cg2_cache_put(struct cg2_cache *cache, u64 serial, bool verdict);

#endif /* _XT_CGROUP2_CACHE_H */
