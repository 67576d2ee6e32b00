// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict cache of one rule: a set-associative table of verdicts keyed
 * by cgroup serial number, 8 ways per set so a set is one cache line.
 *
 * Serial numbers are never reused and cgroup v2 refuses rename(2), so a
 * verdict never goes stale; a cache only has to hold the cgroups that send
 * through the rule.  A table starts small and, once it has taken verdicts
 * for half its slots, is replaced by one four times larger, up to a fixed
 * bound.  Readers and writers in the packet path take
 * no lock: a slot is one 64-bit word written whole, and a replaced table is
 * freed only after an RCU grace period (netfilter hooks run under RCU).
 * Only the rare decision to grow queues work; the allocation and the swap
 * run there, in process context.
 */
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/moduleparam.h>
#include "xt_cgroup2_cache.h"

/* Bytes in all rules' tables, for tests and the benchmark; control path. */
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
MODULE_PARM_DESC(cache_bytes, "bytes in the verdict caches of all rules");

/*
 * A rule's first table is charged to the memory cgroup of whoever loads
 * the rule, but tables grow in a work item, where nobody can be charged:
 * without a limit, anyone with CAP_NET_ADMIN in a user namespace could
 * turn small rules into 128 KiB each, unaccounted.  Growth past this total
 * is refused; verdicts stay exact, a busy rule only judges more often.
 */
static unsigned long cg2_cache_limit = 64UL << 20;
module_param_named(cache_limit, cg2_cache_limit, ulong, 0644);
MODULE_PARM_DESC(cache_limit, "no verdict cache grows once all total this many bytes (default 64 MiB)");

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

/*
 * Replace the table by an empty one four times larger.  The old verdicts
 * are not copied: each costs one judgement again, once.  If memory is short
 * the table keeps its size for the rule's life.
 */
static void cg2_cache_grow(struct work_struct *work)
{
	struct cg2_cache *cache = container_of(work, struct cg2_cache, grow);
	unsigned long old = cache->table, table;
	unsigned int bits = cg2_table_bits(old) + 2;

	bits = min(bits, CG2_CACHE_MAX_BITS);
	if (!cg2_cache_budget(sizeof(atomic64_t) << bits))
		return;
	table = cg2_table_alloc(bits, GFP_KERNEL);
	if (!table)
		return;
	atomic_set(&cache->fills, 0);
	/* Pairs with the address dependency after READ_ONCE() in readers. */
	smp_store_release(&cache->table, table);
	synchronize_rcu();
	cg2_table_free(old);
}

int cg2_cache_init(struct cg2_cache *cache)
{
	cache->table = cg2_table_alloc(CG2_CACHE_MIN_BITS, GFP_KERNEL_ACCOUNT);
	if (!cache->table)
		return -ENOMEM;
	atomic_set(&cache->fills, 0);
	INIT_WORK(&cache->grow, cg2_cache_grow);
	return 0;
}

/* Once no packet can reach the rule any more. */
void cg2_cache_destroy(struct cg2_cache *cache)
{
	cancel_work_sync(&cache->grow);
	cg2_table_free(cache->table);
}

/*
 * A table filled with verdicts for half its slots since it was installed
 * is too small for the cgroups sending through the rule (or they come and
 * go): grow it while within the bound.  Counted on misses only.
 */
static void cg2_cache_filled(struct cg2_cache *cache, unsigned long table)
{
	unsigned int bits = cg2_table_bits(table);

	if (bits < CG2_CACHE_MAX_BITS &&
	    atomic_inc_return(&cache->fills) == 1 << (bits - 1))
		schedule_work(&cache->grow);
}

/*
 * Into an empty way of the set, else over the way that @serial's low bits
 * pick.  Two CPUs may race for a slot: one verdict wins, the other is
 * judged again later; neither is ever wrong.
 */
void cg2_cache_put(struct cg2_cache *cache, u64 serial, bool verdict)
{
	unsigned long table = READ_ONCE(cache->table);
	atomic64_t *set = cg2_table_set(table, serial);
	unsigned int i;

	if (!CG2_CACHEABLE(serial))
		return;
	cg2_cache_filled(cache, table);
	for (i = 0; i < CG2_CACHE_WAYS; i++) {
		if (!atomic64_read(&set[i])) {
			atomic64_set(&set[i], cg2_slot(serial, verdict));
			return;
		}
	}
	atomic64_set(&set[serial & (CG2_CACHE_WAYS - 1)],
		     cg2_slot(serial, verdict));
}
