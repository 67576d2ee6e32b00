// SPDX-License-Identifier: GPL-2.0
/*
 * The shared rules, found by their key in one hash table.  Only checkentry
 * and destroy come here, in process context: one mutex guards the table
 * and every reference count, and nothing else is taken under it, so it
 * nests inside whatever lock the caller holds (nf_tables' commit mutex).
 * The packet path never comes here; it reads a shared rule through the
 * pointer each xt rule keeps, which lives until the last of them is gone.
 *
 * Keys are hashed with a random seed, so that a tenant loading rules cannot
 * pile them into one bucket; a lookup compares at most the whole key of
 * each rule in its bucket, and only once their hashes are equal.
 *
 * A key's netns is a pointer, compared and never followed.  nf_tables may
 * destroy a dead netns's rules after a new netns took its address; a rule
 * of the new one that meets them shares verdicts that are equal anyway
 * (same patterns, inversion and cgroup namespace), and what it shares lives
 * as long as any of its users.
 */
#include <linux/bug.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "xt_cgroup2_share.h"

#define CG2_SHARE_BITS	10

static DEFINE_HASHTABLE(cg2_shares, CG2_SHARE_BITS);
static DEFINE_MUTEX(cg2_shares_lock);
static u32 cg2_share_seed __read_mostly;

/* At module load, before any rule. */
void cg2_shares_init(void)
{
	cg2_share_seed = get_random_u32();
}

/* Once per key, when all else in it is set. */
u32 cg2_key_hash(const struct cg2_key *key)
{
	u32 hash;

	hash = jhash(key->patterns, key->len, cg2_share_seed);
	hash = jhash_3words(key->count | (u32)key->len << 16, key->root_level,
			    key->flags ^ (u32)key->defrag << 31, hash);
	return jhash_3words(lower_32_bits(key->root_id),
			    upper_32_bits(key->root_id),
			    hash_ptr(key->net, 32), hash);
}

static bool cg2_key_equal(const struct cg2_key *a, const struct cg2_key *b)
{
	return a->hash == b->hash && a->net == b->net &&
	       a->root_id == b->root_id &&
	       a->root_level == b->root_level && a->flags == b->flags &&
	       a->defrag == b->defrag && a->count == b->count &&
	       a->len == b->len && !memcmp(a->patterns, b->patterns, a->len);
}

/* Fill @share with its own copy of @key; it is nobody's yet. */
int cg2_share_init(struct cg2_share *share, const struct cg2_key *key)
{
	char *patterns = kmemdup(key->patterns, key->len, GFP_KERNEL_ACCOUNT);

	if (!patterns)
		return -ENOMEM;
	INIT_HLIST_NODE(&share->node);
	share->key = *key;
	share->key.patterns = patterns;
	share->refs = 0;
	return 0;
}

void cg2_share_free(struct cg2_share *share)
{
	kfree(share->key.patterns);
}

/* Under cg2_shares_lock: the shared rule of @key, with one more user. */
static struct cg2_share *cg2_share_find(const struct cg2_key *key)
{
	struct cg2_share *share;

	lockdep_assert_held(&cg2_shares_lock);
	hash_for_each_possible(cg2_shares, share, node, key->hash) {
		if (cg2_key_equal(&share->key, key)) {
			share->refs++;
			return share;
		}
	}
	return NULL;
}

/* The rule already shared under @key, for one more user; NULL if none. */
struct cg2_share *cg2_share_get(const struct cg2_key *key)
{
	struct cg2_share *share;

	mutex_lock(&cg2_shares_lock);
	share = cg2_share_find(key);
	mutex_unlock(&cg2_shares_lock);
	return share;
}

/*
 * Share @share, new, with its first user.  A rule of the same key added
 * while @share was being compiled wins: it is returned, with one more user,
 * and the caller frees its own.
 */
struct cg2_share *cg2_share_add(struct cg2_share *share)
{
	struct cg2_share *found;

	mutex_lock(&cg2_shares_lock);
	found = cg2_share_find(&share->key);
	if (!found) {
		share->refs = 1;
		hash_add(cg2_shares, &share->node, share->key.hash);
	}
	mutex_unlock(&cg2_shares_lock);
	return found ?: share;
}

/* One user fewer; true when that was the last, and it is to be freed. */
bool cg2_share_put(struct cg2_share *share)
{
	bool last;

	mutex_lock(&cg2_shares_lock);
	/* A frontend destroying a rule twice must not free it for others. */
	if (WARN_ON_ONCE(!share->refs)) {
		mutex_unlock(&cg2_shares_lock);
		return false;
	}
	last = --share->refs == 0;
	if (last)
		hash_del(&share->node);
	mutex_unlock(&cg2_shares_lock);
	return last;
}
