// SPDX-License-Identifier: GPL-2.0
/*
 * Verdict caches, one for up to 128 rules of a network namespace: a
 * set-associative table keyed by cgroup serial number, 8 ways per set so a
 * set is one cache line, whose slots hold the verdicts of 8 rules each.
 * A packet that meets many rules reads one line per 8 of them, and a busy
 * host keeps one slot per cgroup and block, not one per cgroup and rule:
 * with a table per rule, 10,000 cgroups through 100 rules read 100 lines
 * per packet out of 12.5 MiB (tests/bench/many_cgroups.sh).
 *
 * Serial numbers are never reused and cgroup v2 refuses rename(2), so a
 * verdict never goes stale; a cache only has to hold the cgroups that send
 * through its rules.  A table starts small and, once it has taken verdicts
 * for half its slots, is replaced by one four times larger, up to a bound.
 * Readers and writers in the packet path take no lock: a slot is one
 * 64-bit word, changed whole by cmpxchg, and a replaced table is freed only
 * after an RCU grace period (netfilter hooks run under RCU).  Only the rare
 * decision to grow queues work; the allocation and the swap run there, in
 * process context.
 *
 * A rule's id is given out again only once no table holds a verdict of
 * the rule that had it: the ids of destroyed rules wait until their cache
 * has no id left, and then go with its table, replaced by an empty one.
 */
#include <linux/bits.h>
#include <linux/hashtable.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/moduleparam.h>
#include "xt_cgroup2_cache.h"

/* Bytes in all tables, for tests and the benchmark; control path. */
static atomic_long_t cg2_cache_bytes = ATOMIC_LONG_INIT(0);

static int cg2_cache_bytes_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%ld\n",
			 atomic_long_read(&cg2_cache_bytes));
}

static const struct kernel_param_ops cg2_cache_bytes_ops = {
	.get	= cg2_cache_bytes_get,
};
module_param_cb(cache_bytes, &cg2_cache_bytes_ops, NULL, 0444);
MODULE_PARM_DESC(cache_bytes, "bytes in all verdict caches");

/*
 * A cache's first table is charged to the memory cgroup of whoever loads
 * its first rule, but tables grow in a work item, where nobody can be
 * charged: without a limit, anyone with CAP_NET_ADMIN in a user namespace
 * could turn small caches into 2 MiB each, unaccounted.  Growth past this
 * total is refused; verdicts stay exact, busy rules only judge more often.
 */
static unsigned long cg2_cache_limit = 64UL << 20;
module_param_named(cache_limit, cg2_cache_limit, ulong, 0644);
MODULE_PARM_DESC(cache_limit, "no verdict cache grows once all total this many bytes (default 64 MiB)");

/*
 * The caches, found by their netns in checkentry and destroy only.  The
 * mutex guards their ids and users, and serializes the replacing of
 * tables; it is held across allocations and, when ids are given out
 * again, a grace period, but no other lock is taken under it.
 */
#define CG2_CACHES_BITS	6
static DEFINE_HASHTABLE(cg2_caches, CG2_CACHES_BITS);
static DEFINE_MUTEX(cg2_caches_lock);

/* An empty table of 2^@bits slots, tagged with its size; 0 if none. */
static unsigned long cg2_table_alloc(unsigned int bits, gfp_t gfp)
{
	atomic64_t *slots = kvzalloc(sizeof(*slots) << bits, gfp);

	if (!slots)
		return 0;
	/* Power-of-two kmalloc sizes and vmalloc areas are size-aligned. */
	if (WARN_ON_ONCE((unsigned long)slots & CG2_TABLE_BITS_MASK)) {
		kvfree(slots);
		return 0;
	}
	atomic_long_add(sizeof(*slots) << bits, &cg2_cache_bytes);
	return (unsigned long)slots | bits;
}

static void cg2_table_free(unsigned long table)
{
	atomic_long_sub(sizeof(atomic64_t) << cg2_table_bits(table),
			&cg2_cache_bytes);
	kvfree(cg2_table_slots(table));
}

/*
 * Whether a table of @bytes more fits under the limit, old table included
 * (it lives until the grace period ends).  Racing growers may overshoot by
 * one table each: the limit bounds memory, it is not an allocator.
 */
static bool cg2_cache_budget(unsigned long bytes)
{
	return atomic_long_read(&cg2_cache_bytes) + bytes <=
	       READ_ONCE(cg2_cache_limit);
}

/* Under the lock: install @table; the caller frees the old one later. */
static unsigned long cg2_cache_swap(struct cg2_cache *cache,
				    unsigned long table)
{
	unsigned long old = cache->table;

	lockdep_assert_held(&cg2_caches_lock);
	atomic_set(&cache->fills, 0);
	/* Pairs with the address dependency after READ_ONCE() in readers. */
	smp_store_release(&cache->table, table);
	return old;
}

/*
 * Replace the table by an empty one four times larger.  The old verdicts
 * are not copied: each costs one judgement again, once.  If memory is short
 * the table keeps its size.
 */
static void cg2_cache_grow(struct work_struct *work)
{
	struct cg2_cache *cache = container_of(work, struct cg2_cache, grow);
	unsigned long old = 0, table = 0;
	unsigned int bits;

	mutex_lock(&cg2_caches_lock);
	bits = min(cg2_table_bits(cache->table) + 2, cache->max_bits);
	/* Queued before the last rule left: the cache is being freed. */
	if (cache->users && bits > cg2_table_bits(cache->table) &&
	    cg2_cache_budget(sizeof(atomic64_t) << bits))
		table = cg2_table_alloc(bits, GFP_KERNEL);
	if (table)
		old = cg2_cache_swap(cache, table);
	mutex_unlock(&cg2_caches_lock);
	if (!table)
		return;
	synchronize_rcu();
	cg2_table_free(old);
}

/*
 * Under the lock: the ids of destroyed rules back to @cache, with an empty
 * table of the same size if the limit allows (its live rules' cgroups
 * need it).  No rule can still fill the old one once the grace period is
 * over.  Rare: at most once per 128 rules destroyed.
 */
static int cg2_cache_reclaim(struct cg2_cache *cache)
{
	unsigned int bits = cg2_table_bits(cache->table);
	unsigned long table = 0;

	if (cg2_cache_budget(sizeof(atomic64_t) << bits))
		table = cg2_table_alloc(bits, GFP_KERNEL_ACCOUNT);
	if (!table)
		table = cg2_table_alloc(CG2_CACHE_MIN_BITS, GFP_KERNEL_ACCOUNT);
	if (!table)
		return -ENOMEM;
	table = cg2_cache_swap(cache, table);
	synchronize_rcu();
	cg2_table_free(table);
	bitmap_andnot(cache->used, cache->used, cache->retired,
		      CG2_CACHE_RULES);
	bitmap_zero(cache->retired, CG2_CACHE_RULES);
	return 0;
}

/*
 * Under the lock: how far @cache's table may grow.  A cgroup takes a slot
 * in each block that holds a live rule, whatever the block's place.
 */
static void cg2_cache_bound(struct cg2_cache *cache)
{
	DECLARE_BITMAP(live, CG2_CACHE_RULES);
	unsigned int block, first, blocks = 0;

	bitmap_andnot(live, cache->used, cache->retired, CG2_CACHE_RULES);
	for (block = 0; block < CG2_CACHE_BLOCKS; block++) {
		first = block << CG2_CACHE_BLOCK_BITS;
		if (find_next_bit(live, first + BIT(CG2_CACHE_BLOCK_BITS),
				  first) < first + BIT(CG2_CACHE_BLOCK_BITS))
			blocks++;
	}
	WRITE_ONCE(cache->max_bits,
		   CG2_CACHE_MAX_BITS + order_base_2(max(blocks, 1U)));
}

static struct cg2_cache *cg2_cache_new(const struct net *net)
{
	struct cg2_cache *cache = kzalloc(sizeof(*cache), GFP_KERNEL_ACCOUNT);

	if (!cache)
		return NULL;
	cache->table = cg2_table_alloc(CG2_CACHE_MIN_BITS, GFP_KERNEL_ACCOUNT);
	if (!cache->table) {
		kfree(cache);
		return NULL;
	}
	INIT_WORK(&cache->grow, cg2_cache_grow);
	cache->net = net;
	hash_add(cg2_caches, &cache->node, hash_ptr(net, 32));
	return cache;
}

/*
 * Under the lock: a cache of @net with a free id, after giving a full
 * one's ids of destroyed rules out again if need be; NULL if none.
 */
static struct cg2_cache *cg2_cache_with_free_id(const struct net *net)
{
	struct cg2_cache *cache, *full = NULL;

	hash_for_each_possible(cg2_caches, cache, node, hash_ptr(net, 32)) {
		if (cache->net != net)
			continue;
		if (!bitmap_full(cache->used, CG2_CACHE_RULES))
			return cache;
		if (!full && !bitmap_empty(cache->retired, CG2_CACHE_RULES))
			full = cache;
	}
	return full && !cg2_cache_reclaim(full) ? full : NULL;
}

/* A verdict cache of @net for one more rule, and the rule's id in it. */
int cg2_cache_join(struct cg2_verdicts *v, const struct net *net)
{
	struct cg2_cache *cache;

	mutex_lock(&cg2_caches_lock);
	cache = cg2_cache_with_free_id(net) ?: cg2_cache_new(net);
	if (!cache) {
		mutex_unlock(&cg2_caches_lock);
		return -ENOMEM;
	}
	v->cache = cache;
	v->id = find_first_zero_bit(cache->used, CG2_CACHE_RULES);
	__set_bit(v->id, cache->used);
	cache->users++;
	cg2_cache_bound(cache);
	mutex_unlock(&cg2_caches_lock);
	return 0;
}

/*
 * Once no packet can reach the rule any more: the cache goes with its last
 * rule; the id of a rule that packets @reached waits, since a table may
 * hold its verdicts; others are free at once.
 */
void cg2_cache_leave(struct cg2_verdicts *v, bool reached)
{
	struct cg2_cache *cache = v->cache;
	bool last;

	mutex_lock(&cg2_caches_lock);
	if (reached)
		__set_bit(v->id, cache->retired);
	else
		__clear_bit(v->id, cache->used);
	last = --cache->users == 0;
	if (last)
		hash_del(&cache->node);
	else
		cg2_cache_bound(cache);
	mutex_unlock(&cg2_caches_lock);
	if (!last)
		return;
	/* A growth already running installs its table before this returns. */
	cancel_work_sync(&cache->grow);
	cg2_table_free(cache->table);
	kfree(cache);
}

/*
 * A table that has started half as many slots as it has since it was
 * installed is too small for the cgroups sending through its rules (or
 * they come and go): grow it while within the bound.  Counted only when a
 * verdict starts a slot.
 */
static void cg2_cache_filled(struct cg2_cache *cache, unsigned long table)
{
	unsigned int bits = cg2_table_bits(table), half = BIT(bits - 1);

	/* Counted up to the mark only: a refused growth is not retried. */
	if (bits < READ_ONCE(cache->max_bits) &&
	    atomic_read(&cache->fills) < half &&
	    atomic_inc_return(&cache->fills) == half)
		schedule_work(&cache->grow);
}

/*
 * The way of @set for @serial: its own slot, else an empty one (no verdict
 * known), else the one that @serial's low bits pick.
 */
static atomic64_t *cg2_set_way(atomic64_t *set, u64 serial)
{
	atomic64_t *empty = NULL;
	unsigned int i;
	u64 slot;

	for (i = 0; i < BIT(CG2_CACHE_WAY_BITS); i++) {
		slot = atomic64_read(&set[i]);
		if (cg2_slot_serial(slot) == serial)
			return &set[i];
		if (!empty && !(slot & GENMASK_ULL(CG2_SLOT_SERIAL_SHIFT - 1, 0)))
			empty = &set[i];
	}
	return empty ?: &set[serial & (BIT(CG2_CACHE_WAY_BITS) - 1)];
}

/*
 * Add a rule's verdict to @serial's slot, or start one for it over another
 * cgroup's.  One attempt: a CPU that loses a race for the slot leaves the
 * verdict to be judged again later; no verdict is ever wrong.
 */
void cg2_cache_put(const struct cg2_verdicts *v, u64 serial, bool verdict)
{
	struct cg2_cache *cache = v->cache;
	unsigned long table = READ_ONCE(cache->table);
	atomic64_t *way;
	u64 old, new;

	if (!CG2_CACHEABLE(serial))
		return;
	way = cg2_set_way(cg2_table_set(table, serial, v->id), serial);
	old = atomic64_read(way);
	new = old;
	if (cg2_slot_serial(old) != serial) {
		cg2_cache_filled(cache, table);
		new = serial << CG2_SLOT_SERIAL_SHIFT;
	}
	new |= cg2_slot_known(v->id);
	if (verdict)
		new |= cg2_slot_known(v->id) >> CG2_SLOT_KNOWN_SHIFT;
	atomic64_try_cmpxchg(way, &old, new);
}
