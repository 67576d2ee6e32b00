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
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/hash.h>
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

#define CG2_CACHE_WAYS		BIT(CG2_CACHE_WAY_BITS)
/* A table is at least 1 KiB and so aligned: its low bits hold its size. */
#define CG2_TABLE_BITS_MASK	15UL

/*
 * The verdict for serial number S is stored as S << 2 | VALID | VERDICT.
 * The valid bit keeps an empty slot (0) apart from the root cgroup, whose
 * serial number is 0.
 */
#define CG2_SLOT_VALID		2
#define CG2_CACHEABLE(serial)	(!((serial) >> 62))

int cg2_cache_init(struct cg2_cache *cache);
void cg2_cache_destroy(struct cg2_cache *cache);
void cg2_cache_put(struct cg2_cache *cache, u64 serial, bool verdict);

static inline u64 cg2_slot(u64 serial, bool verdict)
{
	return serial << 2 | CG2_SLOT_VALID | verdict;
}

static inline unsigned int cg2_table_bits(unsigned long table)
{
	return table & CG2_TABLE_BITS_MASK;
}

static inline atomic64_t *cg2_table_slots(unsigned long table)
{
	return (atomic64_t *)(table & ~CG2_TABLE_BITS_MASK);
}

/* The set (its first slot) that holds @serial's verdict, if cached. */
static inline atomic64_t *cg2_table_set(unsigned long table, u64 serial)
{
	unsigned int set_bits = cg2_table_bits(table) - CG2_CACHE_WAY_BITS;

	return cg2_table_slots(table) +
	       (hash_64(serial, set_bits) << CG2_CACHE_WAY_BITS);
}

/*
 * The cached verdict (0 or 1) for @serial, or -1.  Inline: it is all that
 * most packets cost (tests/bench/kbench.sh).
 */
static inline int cg2_cache_get(const struct cg2_cache *cache, u64 serial)
{
	atomic64_t *set = cg2_table_set(READ_ONCE(cache->table), serial);
	u64 want = cg2_slot(serial, true), slot;
	unsigned int i;

	/* Shifted into a slot, a larger one would pose as a smaller one. */
	if (unlikely(!CG2_CACHEABLE(serial)))
		return -1;
	for (i = 0; i < CG2_CACHE_WAYS; i++) {
		slot = atomic64_read(&set[i]);
		if ((slot | 1) == want)
			return slot & 1;
	}
	return -1;
}

#endif /* _XT_CGROUP2_CACHE_H */
