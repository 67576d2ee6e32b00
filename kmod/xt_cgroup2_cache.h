/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verdict caches: cgroup serial number -> the verdicts of up to 128 rules
 * of one network namespace, exact (a key is the whole serial number),
 * lock-free to read and to fill, and growing with the number of cgroups
 * that send through the rules, up to a fixed bound.
 */
#ifndef _XT_CGROUP2_CACHE_H
#define _XT_CGROUP2_CACHE_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/build_bug.h>
#include <linux/cache.h>
#include <linux/log2.h>
#include <linux/workqueue.h>

struct net;
struct mem_cgroup;

/*
 * A slot (64 bits) holds the verdicts of one block of 8 rules for one
 * cgroup; 8 slots make a set (one 64-byte cache line).  A table starts
 * with 2^CG2_CACHE_MIN_BITS slots (1 KiB, 16 sets: one per block of the
 * 128 rules) and grows 4x at a time as verdicts fill it, to at most
 * 2^CG2_CACHE_MAX_BITS slots (128 KiB) times the blocks that hold live
 * rules, rounded up to a power of two: 128 KiB while a netns's rules fit
 * in one block (its first 8), at most 256 KiB per rule and 2 MiB in all.
 */
#define CG2_CACHE_WAY_BITS	3
#define CG2_CACHE_MIN_BITS	7
#define CG2_CACHE_MAX_BITS	14
#define CG2_CACHE_BLOCK_BITS	3
#define CG2_CACHE_RULES		128
#define CG2_CACHE_BLOCKS	(CG2_CACHE_RULES >> CG2_CACHE_BLOCK_BITS)

struct cg2_cache {
	unsigned long		table;	/* slot array | log2 of its slots */
	unsigned int		max_bits;	/* what live rules' blocks allow */
	/* The rest is the control path's, under cg2_caches_lock. */
	struct hlist_node	node;
	const struct net	*net;		/* compared, never dereferenced */
	struct mem_cgroup	*memcg;		/* charged for its tables */
	unsigned int		users;		/* live rules */
	DECLARE_BITMAP(used, CG2_CACHE_RULES);	/* ids taken, live or not */
	DECLARE_BITMAP(retired, CG2_CACHE_RULES); /* of destroyed rules */
	/* Retired ids of a replaced table: free once @freeing_gp is over. */
	DECLARE_BITMAP(freeing, CG2_CACHE_RULES);
	unsigned long		freeing_gp;
	unsigned long		old;	/* replaced table, freed by @free_old */
	struct rcu_work		free_old;
	unsigned long		backoff;	/* next retry of a refused growth */
	/* What each id in use belongs to (a compiled rule), for misses. */
	void			*owners[CG2_CACHE_RULES];
	/* Written on misses: kept off the line that every packet reads. */
	atomic_t		fills ____cacheline_aligned_in_smp;
	struct delayed_work	grow;
};

/* One rule's verdicts: its cache and its id (bit) in that cache. */
struct cg2_verdicts {
	struct cg2_cache	*cache;
	unsigned int		id;
};

/*
 * A rule's verdicts as its match data names them: the cache's address with
 * the id in its low bits (caches are aligned to CG2_CACHE_RULES bytes).  A
 * packet whose verdict is cached then reads the match data, the cache and
 * one set, never the rule itself: 1,000 distinct rules would otherwise add
 * 1,000 scattered reads to every packet that meets them all.
 */
static inline unsigned long cg2_verdicts_handle(const struct cg2_verdicts *v)
{
	return (unsigned long)v->cache | v->id;
}

static inline struct cg2_verdicts cg2_handle_verdicts(unsigned long handle)
{
	return (struct cg2_verdicts) {
		.cache	= (struct cg2_cache *)(handle & ~(CG2_CACHE_RULES - 1UL)),
		.id	= handle & (CG2_CACHE_RULES - 1),
	};
}

/* What cg2_cache_join() was given for the handle's id: valid while it is. */
static inline void *cg2_handle_owner(unsigned long handle)
{
	struct cg2_verdicts v = cg2_handle_verdicts(handle);

	return READ_ONCE(v.cache->owners[v.id]);
}

#define CG2_CACHEABLE(serial)	(!((serial) >> 48))
/* A slot: serial << 16 | known << 8 | matched, a bit of each per rule. */
#define CG2_SLOT_SERIAL_SHIFT	16
#define CG2_SLOT_KNOWN_SHIFT	8

/* A set and a serial number name a block only if blocks <= sets. */
static_assert(BIT(CG2_CACHE_MIN_BITS - CG2_CACHE_WAY_BITS) >= CG2_CACHE_BLOCKS);
static_assert(CG2_SLOT_SERIAL_SHIFT - CG2_SLOT_KNOWN_SHIFT ==
	      BIT(CG2_CACHE_BLOCK_BITS));
static_assert(BIT(CG2_CACHE_BLOCK_BITS) == CG2_SLOT_KNOWN_SHIFT);
/* A handle keeps the id in the cache address's low bits. */
static_assert(!(CG2_CACHE_RULES & (CG2_CACHE_RULES - 1)));

int cg2_cache_join(struct cg2_verdicts *v, const struct net *net,
		   void *owner);
void cg2_cache_leave(struct cg2_verdicts *v, bool reached);
void cg2_cache_put(const struct cg2_verdicts *v, u64 serial, bool verdict);

/* The bit that says whether rule @id's verdict is in a slot. */
static inline u64 cg2_slot_known(unsigned int id)
{
	return BIT_ULL(CG2_SLOT_KNOWN_SHIFT +
		       (id & (BIT(CG2_CACHE_BLOCK_BITS) - 1)));
}

static inline u64 cg2_slot_serial(u64 slot)
{
	return slot >> CG2_SLOT_SERIAL_SHIFT;
}

/* A table is at least 1 KiB and so aligned: its low bits hold its size. */
#define CG2_TABLE_BITS_MASK	31UL
static_assert(CG2_CACHE_MAX_BITS + ilog2(CG2_CACHE_BLOCKS) <=
	      CG2_TABLE_BITS_MASK);

static inline unsigned int cg2_table_bits(unsigned long table)
{
	return table & CG2_TABLE_BITS_MASK;
}

static inline atomic64_t *cg2_table_slots(unsigned long table)
{
	return (atomic64_t *)(table & ~CG2_TABLE_BITS_MASK);
}

/*
 * The set that holds @serial's slot for rule @id's block, if cached.  A
 * cgroup's blocks take consecutive sets, so that a packet's rules read
 * few cache lines, side by side.  Blocks are fewer than the sets of any
 * table, so the set and the serial number name the block: a slot needs no
 * room for it.
 */
static inline atomic64_t *cg2_table_set(unsigned long table, u64 serial,
					unsigned int id)
{
	unsigned int set_bits = cg2_table_bits(table) - CG2_CACHE_WAY_BITS;
	u32 set = hash_64(serial, set_bits) + (id >> CG2_CACHE_BLOCK_BITS);

	set &= BIT(set_bits) - 1;
	return cg2_table_slots(table) + ((size_t)set << CG2_CACHE_WAY_BITS);
}

/*
 * The cached verdict (0 or 1) of a rule for @serial, or -1.  Inline: it is
 * all that most packets cost (tests/bench/kbench.sh).
 */
static inline int cg2_cache_get(const struct cg2_verdicts *v, u64 serial)
{
	unsigned long table = READ_ONCE(v->cache->table);
	atomic64_t *set = cg2_table_set(table, serial, v->id);
	u64 known = cg2_slot_known(v->id), slot;
	unsigned int i;

	/* Shifted into a slot, a larger one would pose as a smaller one. */
	if (unlikely(!CG2_CACHEABLE(serial)))
		return -1;
	for (i = 0; i < BIT(CG2_CACHE_WAY_BITS); i++) {
		slot = atomic64_read(&set[i]);
		if (cg2_slot_serial(slot) == serial && (slot & known))
			return !!(slot & (known >> CG2_SLOT_KNOWN_SHIFT));
	}
	return -1;
}

#endif /* _XT_CGROUP2_CACHE_H */
