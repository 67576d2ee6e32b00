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
 * A rule's id is given out again only once no table that may hold a
 * verdict of the rule that had it can still be read: the ids of destroyed
 * rules wait until their cache has no id left, and then go with its table,
 * replaced by an empty one, once the grace period that frees it is over.
 * Only the rule that needs an id waits for it, without the lock.
 *
 * A cache's tables are charged to the memory cgroup of the task that made
 * it (its first rule), also when they grow in the work item, and the caches
 * of a network namespace other than the initial one hold at most
 * cache_limit bytes.  A refused growth is tried again, less and less often.
 */
#include <linux/bits.h>
#include <linux/hashtable.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <net/net_namespace.h>
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
 * Tables are charged to their cache's memory cgroup, but a host may run
 * without one for its tenants: anyone with CAP_NET_ADMIN in a user
 * namespace could turn small caches into 2 MiB each.  Growth past this
 * total per network namespace is refused; verdicts stay exact, busy rules
 * only judge more often.  The initial netns is the host's own, its rules
 * root's: its caches are bounded by its rules alone.
 */
static unsigned long cg2_cache_limit = 64UL << 20;
module_param_named(cache_limit, cg2_cache_limit, ulong, 0644);
MODULE_PARM_DESC(cache_limit, "no verdict cache of a network namespace other than the initial one grows once the netns's total this many bytes (default 64 MiB)");

/* A refused growth is tried again after 1 s, then 2 s, ... up to 64 s. */
#define CG2_GROW_RETRY_MIN	HZ
#define CG2_GROW_RETRY_MAX	(64 * HZ)
/* Growth may fail: it neither retries hard nor calls the OOM killer. */
#define CG2_GROW_GFP		(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/*
 * The caches, found by their netns in checkentry and destroy only.  The
 * mutex guards their ids and users, and serializes the replacing of
 * tables; it is held across the allocation of a cache and of a reclaim's
 * table, never across a grace period, and no other lock is taken under it.
 */
#define CG2_CACHES_BITS	6
static DEFINE_HASHTABLE(cg2_caches, CG2_CACHES_BITS);
static DEFINE_MUTEX(cg2_caches_lock);

static unsigned long cg2_table_size(unsigned long table)
{
	return table ? sizeof(atomic64_t) << cg2_table_bits(table) : 0;
}

/*
 * An empty table of 2^@bits slots, tagged with its size, charged to
 * @cache's memory cgroup (here or in the work item alike); 0 if none.
 */
static unsigned long cg2_table_alloc(const struct cg2_cache *cache,
				     unsigned int bits, gfp_t gfp)
{
	struct mem_cgroup *memcg = set_active_memcg(cache->memcg);
	atomic64_t *slots = kvzalloc(sizeof(*slots) << bits,
				     gfp | __GFP_ACCOUNT);

	set_active_memcg(memcg);
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
	atomic_long_sub(cg2_table_size(table), &cg2_cache_bytes);
	kvfree(cg2_table_slots(table));
}

/*
 * Under the lock: whether @cache may have @bytes more, its netns's tables
 * within the limit, replaced ones included (they live until a grace
 * period ends).  Racing growers may overshoot by one table each: the limit
 * bounds memory, it is not an allocator.
 */
static bool cg2_cache_budget(const struct cg2_cache *cache,
			     unsigned long bytes)
{
	const struct cg2_cache *c;

	if (cache->net == &init_net)
		return true;
	hash_for_each_possible(cg2_caches, c, node, hash_ptr(cache->net, 32))
		if (c->net == cache->net)
			bytes += cg2_table_size(c->table) +
				 cg2_table_size(c->old);
	return bytes <= READ_ONCE(cg2_cache_limit);
}

/* After a grace period: free the table that cg2_cache_swap() replaced. */
static void cg2_cache_free_old(struct work_struct *work)
{
	struct cg2_cache *cache = container_of(to_rcu_work(work),
					       struct cg2_cache, free_old);
	unsigned long old;

	mutex_lock(&cg2_caches_lock);
	old = cache->old;
	cache->old = 0;
	mutex_unlock(&cg2_caches_lock);
	cg2_table_free(old);
}

/*
 * Under the lock, with no replaced table still to free: install @table;
 * the old one is freed once no packet can read it.
 */
static void cg2_cache_swap(struct cg2_cache *cache, unsigned long table)
{
	lockdep_assert_held(&cg2_caches_lock);
	cache->old = cache->table;
	atomic_set(&cache->fills, 0);
	/* Pairs with the address dependency after READ_ONCE() in readers. */
	smp_store_release(&cache->table, table);
	queue_rcu_work(system_unbound_wq, &cache->free_old);
}

/* Under the lock: the size @cache would grow to, if it may grow. */
static unsigned int cg2_cache_grow_bits(const struct cg2_cache *cache)
{
	unsigned int bits = cg2_table_bits(cache->table);

	/* Queued before the last rule left: the cache is being freed. */
	if (!cache->users || bits >= cache->max_bits)
		return 0;
	return min(bits + 2, cache->max_bits);
}

/*
 * Replace the table by an empty one four times larger.  The old verdicts
 * are not copied: each costs one judgement again, once.  If the limit or
 * the memory cgroup refuses, or the last table replaced is not freed yet,
 * the table keeps its size for now.  The allocation runs without the lock:
 * it may reclaim memory in the cache's memory cgroup.
 */
static void cg2_cache_grow(struct work_struct *work)
{
	struct cg2_cache *cache = container_of(to_delayed_work(work),
					       struct cg2_cache, grow);
	unsigned long table = 0;
	unsigned int bits;
	bool retry;

	mutex_lock(&cg2_caches_lock);
	bits = cg2_cache_grow_bits(cache);
	retry = bits && (cache->old || !cg2_cache_budget(cache,
					sizeof(atomic64_t) << bits));
	mutex_unlock(&cg2_caches_lock);
	if (!bits)
		return;
	if (!retry)
		table = cg2_table_alloc(cache, bits, CG2_GROW_GFP);
	mutex_lock(&cg2_caches_lock);
	if (table && !cache->old && cg2_cache_grow_bits(cache) == bits) {
		cg2_cache_swap(cache, table);
		cache->backoff = CG2_GROW_RETRY_MIN;
		table = 0;
		retry = false;
	} else {
		retry = cg2_cache_grow_bits(cache);
	}
	if (retry) {
		schedule_delayed_work(&cache->grow, cache->backoff);
		cache->backoff = min(cache->backoff * 2, CG2_GROW_RETRY_MAX);
	}
	mutex_unlock(&cg2_caches_lock);
	if (table)
		cg2_table_free(table);
}

/*
 * Under the lock: replace @cache's table by an empty one of the same size
 * if the limit allows (its live rules' cgroups need it), and give the ids
 * of destroyed rules out again once the grace period that frees the old
 * table is over: no rule can fill or read it then.  Rare: at most once per
 * 128 rules destroyed.
 */
static int cg2_cache_reclaim(struct cg2_cache *cache)
{
	unsigned int bits = cg2_table_bits(cache->table);
	unsigned long table = 0;

	if (cg2_cache_budget(cache, sizeof(atomic64_t) << bits))
		table = cg2_table_alloc(cache, bits, CG2_GROW_GFP);
	if (!table)
		table = cg2_table_alloc(cache, CG2_CACHE_MIN_BITS, GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	cg2_cache_swap(cache, table);
	bitmap_copy(cache->freeing, cache->retired, CG2_CACHE_RULES);
	bitmap_zero(cache->retired, CG2_CACHE_RULES);
	cache->freeing_gp = get_state_synchronize_rcu();
	return 0;
}

/* Under the lock: the ids that cg2_cache_reclaim() retired, if now free. */
static void cg2_cache_release(struct cg2_cache *cache)
{
	if (bitmap_empty(cache->freeing, CG2_CACHE_RULES) ||
	    !poll_state_synchronize_rcu(cache->freeing_gp))
		return;
	bitmap_andnot(cache->used, cache->used, cache->freeing,
		      CG2_CACHE_RULES);
	bitmap_zero(cache->freeing, CG2_CACHE_RULES);
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
	bitmap_andnot(live, live, cache->freeing, CG2_CACHE_RULES);
	for (block = 0; block < CG2_CACHE_BLOCKS; block++) {
		first = block << CG2_CACHE_BLOCK_BITS;
		if (find_next_bit(live, first + BIT(CG2_CACHE_BLOCK_BITS),
				  first) < first + BIT(CG2_CACHE_BLOCK_BITS))
			blocks++;
	}
	WRITE_ONCE(cache->max_bits,
		   CG2_CACHE_MAX_BITS + order_base_2(max(blocks, 1U)));
}

/* Under the lock: a new cache of @net, charged to the caller's memcg. */
static struct cg2_cache *cg2_cache_new(const struct net *net)
{
	/* Power-of-two kmalloc sizes are size-aligned: room for a handle's id. */
	struct cg2_cache *cache = kzalloc(roundup_pow_of_two(sizeof(*cache)),
					  GFP_KERNEL_ACCOUNT);

	if (!cache)
		return NULL;
	if ((unsigned long)cache & (CG2_CACHE_RULES - 1)) {
		kfree(cache);
		return NULL;
	}
	cache->memcg = get_mem_cgroup_from_mm(current->mm);
	cache->table = cg2_table_alloc(cache, CG2_CACHE_MIN_BITS, GFP_KERNEL);
	if (!cache->table) {
		mem_cgroup_put(cache->memcg);
		kfree(cache);
		return NULL;
	}
	INIT_DELAYED_WORK(&cache->grow, cg2_cache_grow);
	INIT_RCU_WORK(&cache->free_old, cg2_cache_free_old);
	cache->backoff = CG2_GROW_RETRY_MIN;
	cache->net = net;
	hash_add(cg2_caches, &cache->node, hash_ptr(net, 32));
	return cache;
}

/*
 * Under the lock: a cache of @net with a free id; else NULL, and *@gp set
 * to the grace period after which one will have some if there is one
 * (after replacing a full cache's table if need be).
 */
static struct cg2_cache *cg2_cache_with_free_id(const struct net *net,
						unsigned long *gp, bool *wait)
{
	struct cg2_cache *cache, *full = NULL, *freeing = NULL;

	hash_for_each_possible(cg2_caches, cache, node, hash_ptr(net, 32)) {
		if (cache->net != net)
			continue;
		cg2_cache_release(cache);
		if (!bitmap_full(cache->used, CG2_CACHE_RULES))
			return cache;
		if (!bitmap_empty(cache->freeing, CG2_CACHE_RULES))
			freeing = cache;
		else if (!full && !cache->old &&
			 !bitmap_empty(cache->retired, CG2_CACHE_RULES))
			full = cache;
	}
	if (!freeing && full && !cg2_cache_reclaim(full))
		freeing = full;
	*wait = !!freeing;
	if (freeing)
		*gp = freeing->freeing_gp;
	return NULL;
}

/*
 * A verdict cache of @net for one more rule, and the rule's id in it,
 * which cg2_handle_owner() maps to @owner until the rule leaves.
 */
int cg2_cache_join(struct cg2_verdicts *v, const struct net *net,
		   void *owner)
{
	struct cg2_cache *cache;
	unsigned long gp;
	bool wait;

	for (;;) {
		mutex_lock(&cg2_caches_lock);
		cache = cg2_cache_with_free_id(net, &gp, &wait);
		if (cache || !wait)
			break;
		mutex_unlock(&cg2_caches_lock);
		/* Only this rule waits: other rules come and go meanwhile. */
		cond_synchronize_rcu(gp);
	}
	if (!cache)
		cache = cg2_cache_new(net);
	if (!cache) {
		mutex_unlock(&cg2_caches_lock);
		return -ENOMEM;
	}
	v->cache = cache;
	v->id = find_first_zero_bit(cache->used, CG2_CACHE_RULES);
	__set_bit(v->id, cache->used);
	WRITE_ONCE(cache->owners[v->id], owner);
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
	WRITE_ONCE(cache->owners[v->id], NULL);
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
	cancel_delayed_work_sync(&cache->grow);
	flush_rcu_work(&cache->free_old);
	cg2_table_free(cache->table);
	mem_cgroup_put(cache->memcg);
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

	/* Counted up to the mark only: cg2_cache_grow() retries itself. */
	if (bits < READ_ONCE(cache->max_bits) &&
	    atomic_read(&cache->fills) < half &&
	    atomic_inc_return(&cache->fills) == half)
		schedule_delayed_work(&cache->grow, 0);
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
