// SPDX-License-Identifier: GPL-2.0
/*
 * xt_cgroup2: match packets by the cgroup v2 path of their socket, with
 * path patterns that bind late and survive service restarts.
 *
 * A rule keeps its patterns, compiled, plus the id and level of the cgroup
 * namespace root it was inserted from; it holds no reference to any cgroup.
 * Rules that agree on all of that share it (xt_cgroup2_share.c).  A
 * socket's cgroup is judged by walking its ancestors' names once, and the
 * verdict (inversion applied) is cached under the shared rule's id, with
 * those of other rules of its netns, in a set-associative table keyed by
 * the cgroup's serial number (xt_cgroup2_cache.c).  Serial numbers, like
 * cgroup ids, are never reused, and cgroup v2 refuses rename(2), so the
 * path behind one, and with it a verdict, never goes stale: nothing needs
 * invalidating, and a cgroup created later, or again after a restart, is
 * a new number that misses the cache once.  The serial number lives in
 * struct cgroup itself (the id needs its kernfs node), so the common path
 * touches the socket's cgroup, the verdict cache (named by the match data,
 * see cg2_verdicts_handle()) and one line of its table: one hash, a few
 * atomic loads, no lock, and no read of the rule itself.
 *
 * Revision 1 is revision 0 with a quarter of the room for patterns (see
 * include/uapi/xt_cgroup2.h): both are checked, shared and run by the
 * same code, through struct cg2_blob.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/cgroup.h>
#include <linux/string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>
#include <linux/percpu.h>
#include <linux/moduleparam.h>
#include <net/sock.h>

#include "xt_cgroup2.h"
#include "cgroup2_pattern.h"
#include "xt_cgroup2_compat.h"
#include "xt_cgroup2_log.h"
#include "xt_cgroup2_sock.h"
#include "xt_cgroup2_cache.h"
#include "xt_cgroup2_share.h"

/* The compiled form of every xt rule with its key (xt_cgroup2_share.c). */
struct cg2_rule {
	struct cg2_verdicts verdicts;	/* cached, inversion applied */
	struct cg2_share share;		/* key: namespace root, inversion, ... */
	unsigned int	count;		/* compiled patterns in @progs, or 0 */
	/* cg2_compile() output, packed; when @count is 0, cg2_dfa_write()'s */
	char		progs[] __aligned(8);
};

/*
 * Judgements (verdict cache misses), for tests and tuning.  Per CPU, so
 * that the packet path writes no shared cache line; summed when read.
 */
static DEFINE_PER_CPU(unsigned long, cg2_judgements);

static int cg2_judgements_get(char *buf, const struct kernel_param *kp)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(cg2_judgements, cpu);
	return scnprintf(buf, PAGE_SIZE, "%lu\n", sum);
}

static const struct kernel_param_ops cg2_judgements_ops = {
	.get	= cg2_judgements_get,
};
module_param_cb(judgements, &cg2_judgements_ops, NULL, 0444);
MODULE_PARM_DESC(judgements, "cgroups judged against a rule's patterns (verdict cache misses)");

/* Compiled rules (rules that share one count once), for tests. */
static atomic_t cg2_rules = ATOMIC_INIT(0);
module_param_named(rules, cg2_rules.counter, int, 0444);
MODULE_PARM_DESC(rules, "compiled rules, each shared by all rules of the same key");

/* Compiled rules that judge with one automaton for all their patterns. */
static atomic_t cg2_automata = ATOMIC_INIT(0);
module_param_named(automata, cg2_automata.counter, int, 0444);
MODULE_PARM_DESC(automata, "compiled rules whose patterns are one automaton");

/*
 * Names whose lengths a judgement remembers, from the top of the path: a
 * rule of many patterns, or one with "**", reads a name many times, and
 * strlen() would scan it again each time.  cgroup names are 1 to NAME_MAX
 * bytes; 0 means not yet known.  A remembered length stays true because
 * cgroup v2 refuses rename(2): a name never changes under a judgement.
 */
#define CG2_NAME_LENS	32

/* The ancestors of one cgroup below the namespace root, as a cg2_path. */
struct cg2_ancestry {
	struct cgroup	*cgrp;
	int		root_level;
	u8		*lens;		/* [CG2_NAME_LENS], the judge's stack */
};

static const char *cg2_ancestor_name(const void *ctx, unsigned int i,
				     size_t *len)
{
	const struct cg2_ancestry *a = ctx;
	const char *name;

	name = cg2_cgroup_name(cgroup_ancestor(a->cgrp, a->root_level + 1 + i));
	if (i < CG2_NAME_LENS && a->lens[i]) {
		*len = a->lens[i];
		return name;
	}
	*len = strlen(name);
	if (i < CG2_NAME_LENS && *len <= U8_MAX)
		a->lens[i] = *len;
	return name;
}

static bool cg2_judge(const struct cg2_rule *rule, struct cgroup *cgrp)
{
	const struct cg2_key *key = &rule->share.key;
	u8 lens[CG2_NAME_LENS] = { 0 };
	struct cg2_ancestry a = { cgrp, key->root_level, lens };
	struct cg2_path path = { cg2_ancestor_name, &a, 0 };
	const char *prog = rule->progs;
	unsigned int i;

	/* No pattern matches outside the inserter's namespace ("!" then does). */
	if (!cg2_cgroup_in_ns(cgrp, key->root_id, key->root_level))
		return false;
	/*
	 * The matcher reads only the top CG2_MAX_DEPTH names: a deeper cgroup
	 * is judged as its ancestor at that depth, at that ancestor's cost.
	 */
	path.depth = cgrp->level - key->root_level;
	/* One automaton for all the patterns: each name is read once. */
	if (!rule->count)
		return cg2_dfa_match_subtree((const struct cg2_dfa *)prog, &path);
	for (i = 0; i < rule->count; i++) {
		if (cg2_match_subtree((const struct cg2_prog *)prog, &path))
			return true;
		prog += cg2_prog_size((const struct cg2_prog *)prog);
	}
	return false;
}

/* A rule's match data holds its verdicts' handle, not the rule. */
static struct cg2_rule *cg2_priv_rule(const void *priv)
{
	return cg2_handle_owner((unsigned long)priv);
}

static void *cg2_rule_priv(const struct cg2_rule *rule)
{
	return (void *)cg2_verdicts_handle(&rule->verdicts);
}

/* A cache miss: judge the cgroup, then remember the verdict. */
static noinline bool cg2_judge_miss(const void *priv,
				    const struct cg2_verdicts *v,
				    struct cgroup *cgrp, u64 serial)
{
	const struct cg2_rule *rule = cg2_priv_rule(priv);
	bool verdict;

	this_cpu_inc(cg2_judgements);
	verdict = cg2_judge(rule, cgrp) ^
		  !!(rule->share.key.flags & XT_CGROUP2_INVERT);
	cg2_cache_put(v, serial, verdict);
	return verdict;
}

/* Cached, the verdict costs no read of the rule (cg2_verdicts_handle()). */
static __always_inline bool cg2_cgroup_verdict(const void *priv,
					       struct cgroup *cgrp)
{
	struct cg2_verdicts v = cg2_handle_verdicts((unsigned long)priv);
	u64 serial = cgrp->self.serial_nr;
	int cached = cg2_cache_get(&v, serial);

	if (likely(cached >= 0))
		return cached;
	return cg2_judge_miss(priv, &v, cgrp, serial);
}

static __always_inline bool cg2_mt(const struct sk_buff *skb,
				   struct xt_action_param *par,
				   const void *priv)
{
	struct cgroup *cgrp = cg2_packet_cgroup(skb, par);

	/* No service's socket: no match, even when inverted. */
	return cgrp && cg2_cgroup_verdict(priv, cgrp);
}

static bool cgroup2_mt_v0(const struct sk_buff *skb,
			  struct xt_action_param *par)
{
	const struct xt_cgroup2_info *info = par->matchinfo;

	return cg2_mt(skb, par, info->priv);
}

static bool cgroup2_mt_v1(const struct sk_buff *skb,
			  struct xt_action_param *par)
{
	const struct xt_cgroup2_info_v1 *info = par->matchinfo;

	return cg2_mt(skb, par, info->priv);
}

/*
 * The fields of either revision's match data, which differ only in the
 * size of their patterns, as the checks read them.
 */
struct cg2_blob {
	u32		flags;
	u16		count;
	u16		len;		/* as userspace gave it: check it */
	const char	*patterns;
	unsigned int	size;		/* of @patterns */
};

static struct cg2_blob cg2_blob_v0(const struct xt_cgroup2_info *info)
{
	return (struct cg2_blob) { info->flags, info->count, info->len,
				   info->patterns, sizeof(info->patterns) };
}

static struct cg2_blob cg2_blob_v1(const struct xt_cgroup2_info_v1 *info)
{
	return (struct cg2_blob) { info->flags, info->count, info->len,
				   info->patterns, sizeof(info->patterns) };
}

/*
 * Scratch of one rule's checks, from one allocation: the pattern work
 * area, and the patterns' programs staged there as each is checked (so
 * that each is compiled once, not again to size and write them).  A rule's programs take at
 * most 64 headers of 10 bytes, 8 bytes per component (1,024 at most in
 * 2 KiB of patterns), 256 class bytes per glob pattern, table bytes
 * within XT_CGROUP2_MAX_STATES * CG2_TABLE_PER_STATE, 2 KiB of text and
 * a byte of padding each: under 43 KiB.
 */
#define CG2_STAGE_SIZE	(48 * 1024)

struct cg2_scratch {
	char		work[CG2_WORK_SIZE] __aligned(8);	/* zeroed */
	char		staged[CG2_STAGE_SIZE] __aligned(8);
	size_t		nstaged;
};

/*
 * Pattern @i (0-based) of @n bytes is valid, and the patterns up to it stay
 * within the rule's budget of matcher states, kept in @states; its program
 * is staged in @sc.
 */
static int cg2_check_pattern(const char *p, size_t n, unsigned int i,
			     unsigned int *states, struct cg2_scratch *sc)
{
	struct cg2_work *work = (struct cg2_work *)sc->work;
	size_t size;

	enum cg2_error err;
	size_t off;

	err = cg2_validate(p, n, CG2_MAX_PATTERN_LEN, &off, work);
	if (err != CG2_OK) {
		pr_info_ratelimited("pattern %u \"%*pE\" %s (byte %zu)\n",
				    i + 1, (int)min_t(size_t, n, 80), p,
				    cg2_strerror(err), off);
		return err == CG2_ERR_TOO_LONG ? -ENAMETOOLONG : -EINVAL;
	}
	*states += cg2_cost(p, n, work);
	if (*states > XT_CGROUP2_MAX_STATES) {
		pr_info_ratelimited("patterns 1 to %u need %u matcher states, more than %u\n",
				    i + 1, *states, XT_CGROUP2_MAX_STATES);
		return -EINVAL;
	}
	/* Built by cg2_validate() above: this only writes it out. */
	size = cg2_compile(p, n, NULL, 0, work);
	if (WARN_ON_ONCE(!size || size > CG2_STAGE_SIZE - sc->nstaged))
		return -EINVAL;
	sc->nstaged += cg2_compile(p, n,
				   (struct cg2_prog *)(sc->staged + sc->nstaged),
				   size, work);
	return 0;
}

/*
 * The blob comes from userspace: trust nothing in it.  Its fields are
 * checked for every rule, its patterns only when no shared rule has the
 * same bytes yet (a rule that has them passed these checks), and its
 * unused bytes last: errors keep the order the ABI gives them.
 */
static int cg2_check_info(const struct cg2_blob *b)
{
	if (b->flags & ~XT_CGROUP2_FLAGS_MASK) {
		pr_info_ratelimited("unknown flags 0x%x\n",
				    b->flags & ~XT_CGROUP2_FLAGS_MASK);
		return -EINVAL;
	}
	if (b->count == 0 || b->count > XT_CGROUP2_MAX_PATTERNS) {
		pr_info_ratelimited("pattern count %u is not within 1..%u\n",
				    b->count, XT_CGROUP2_MAX_PATTERNS);
		return -EINVAL;
	}
	if (b->len > b->size) {
		pr_info_ratelimited("patterns take %u bytes, more than %u\n",
				    b->len, b->size);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* The @b->count patterns fill @b->len bytes, each valid. */
static int cg2_check_patterns(const struct cg2_blob *b, struct cg2_scratch *sc)
{
	const char *p = b->patterns, *end = b->patterns + b->len;
	unsigned int i, states = 0;
	size_t n;
	int ret;

	for (i = 0; i < b->count; i++) {
		n = strnlen(p, end - p);
		if (p + n == end) {
			pr_info_ratelimited("pattern %u is not NUL-terminated within %u bytes\n",
					    i + 1, b->len);
			return -EINVAL;
		}
		ret = cg2_check_pattern(p, n, i, &states, sc);
		if (ret)
			return ret;
		p += n + 1;
	}
	if (p != end) {
		pr_info_ratelimited("%u bytes follow the last of %u patterns\n",
				    (unsigned int)(end - p), b->count);
		return -EINVAL;
	}
	return 0;
}

static int cg2_check_unused(const struct cg2_blob *b)
{
	if (memchr_inv(b->patterns + b->len, 0, b->size - b->len)) {
		pr_info_ratelimited("unused pattern bytes are not zero\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * The compiled form of the checked rule, in one allocation sized first:
 * the rule's automaton when it has one (see cg2_dfa_build()), else the
 * programs staged while checking.  Built here, in the control path: the
 * packet path only runs it.
 */
static struct cg2_rule *cg2_rule_compile(const struct cg2_blob *b,
					 const struct cg2_scratch *sc)
{
	struct cg2_dfa_work *dw = NULL;
	struct cg2_rule *rule = NULL;
	size_t size = 0;

	/* One pattern without "**" reads each name once as it is. */
	if (b->count > 1 || cg2_depth(b->patterns) < 0) {
		dw = kvmalloc(CG2_DFA_WORK_SIZE, GFP_KERNEL_ACCOUNT);
		if (!dw)
			return NULL;
		size = cg2_dfa_build(b->patterns, b->count, 0, dw);
	}
	rule = kvzalloc(struct_size(rule, progs, size ?: sc->nstaged),
			GFP_KERNEL_ACCOUNT);
	if (rule && size) {
		cg2_dfa_write(dw, (struct cg2_dfa *)rule->progs);
	} else if (rule) {
		memcpy(rule->progs, sc->staged, sc->nstaged);
		rule->count = b->count;
	}
	kvfree(dw);
	return rule;
}

/* A rule of @key from @b's patterns, checked and compiled, unshared. */
static struct cg2_rule *cg2_rule_new(const struct cg2_key *key,
				     const struct cg2_blob *b)
{
	struct cg2_scratch *sc;
	struct cg2_rule *rule;
	int ret;

	/* Compiling needs more room than a kernel stack has. */
	sc = kvmalloc(sizeof(*sc), GFP_KERNEL_ACCOUNT);
	if (!sc)
		return ERR_PTR(-ENOMEM);
	memset(sc->work, 0, sizeof(sc->work));
	sc->nstaged = 0;
	ret = cg2_check_patterns(b, sc);
	rule = ret ? NULL : cg2_rule_compile(b, sc);
	kvfree(sc);
	if (ret)
		return ERR_PTR(ret);
	if (!rule)
		return ERR_PTR(-ENOMEM);
	ret = cg2_cache_join(&rule->verdicts, key->net, rule);
	if (ret)
		goto err_rule;
	ret = cg2_share_init(&rule->share, key);
	if (ret)
		goto err_cache;
	atomic_inc(&cg2_rules);
	if (!rule->count)
		atomic_inc(&cg2_automata);
	return rule;
err_cache:
	cg2_cache_leave(&rule->verdicts, false);
err_rule:
	kvfree(rule);
	return ERR_PTR(ret);
}

/* @reached: whether packets could reach the rule, and fill its verdicts. */
static void cg2_rule_free(struct cg2_rule *rule, bool reached)
{
	cg2_share_free(&rule->share);
	cg2_cache_leave(&rule->verdicts, reached);
	if (!rule->count)
		atomic_dec(&cg2_automata);
	kvfree(rule);
	atomic_dec(&cg2_rules);
}

static struct cg2_rule *cg2_share_rule(struct cg2_share *share)
{
	return container_of(share, struct cg2_rule, share);
}

/* The shared rule of @key, made from @b if there is none yet. */
static struct cg2_rule *cg2_rule_get(const struct cg2_key *key,
				     const struct cg2_blob *b)
{
	struct cg2_share *share = cg2_share_get(key);
	struct cg2_rule *rule;

	if (share)
		return cg2_share_rule(share);
	rule = cg2_rule_new(key, b);
	if (IS_ERR(rule))
		return rule;
	share = cg2_share_add(&rule->share);
	if (share == &rule->share)
		return rule;
	/* Another CPU added the same rule meanwhile: use that one. */
	cg2_rule_free(rule, false);
	return cg2_share_rule(share);
}

static void cg2_rule_put(struct cg2_rule *rule)
{
	if (cg2_share_put(&rule->share))
		cg2_rule_free(rule, true);
}

/* The shared rule of @b, a rule's match data checked as the ABI says. */
static struct cg2_rule *cg2_mt_check(const struct xt_mtchk_param *par,
				     const struct cg2_blob *b)
{
	struct cg2_key key = {
		.net		= par->net,
		.flags		= b->flags,
		.defrag		= cg2_defrag_needed(par->family, par->hook_mask),
		.count		= b->count,
		.len		= b->len,
		.patterns	= b->patterns,
	};
	struct cg2_rule *rule;
	int ret;

	ret = cg2_check_info(b);
	if (ret)
		return ERR_PTR(ret);
	/*
	 * Paths are relative to the inserter's cgroup namespace, as for
	 * -m cgroup.  Keep the root's id, not a reference: a rule must not
	 * pin cgroups.
	 */
	cg2_current_ns_root(&key.root_id, &key.root_level);
	key.hash = cg2_key_hash(&key);
	rule = cg2_rule_get(&key, b);
	if (IS_ERR(rule))
		return rule;
	ret = cg2_check_unused(b);
	/* Last: nothing may fail after it (destroy is not called then). */
	if (!ret && key.defrag)
		ret = cg2_defrag_get(par->net, par->family, par->hook_mask);
	if (ret < 0) {
		cg2_rule_put(rule);
		return ERR_PTR(ret);
	}
	return rule;
}

static int cgroup2_mt_check_v0(const struct xt_mtchk_param *par)
{
	struct xt_cgroup2_info *info = par->matchinfo;
	struct cg2_blob b = cg2_blob_v0(info);
	struct cg2_rule *rule = cg2_mt_check(par, &b);

	if (IS_ERR(rule))
		return PTR_ERR(rule);
	info->priv = cg2_rule_priv(rule);
	return 0;
}

static int cgroup2_mt_check_v1(const struct xt_mtchk_param *par)
{
	struct xt_cgroup2_info_v1 *info = par->matchinfo;
	struct cg2_blob b = cg2_blob_v1(info);
	struct cg2_rule *rule = cg2_mt_check(par, &b);

	if (IS_ERR(rule))
		return PTR_ERR(rule);
	info->priv = cg2_rule_priv(rule);
	return 0;
}

static void cg2_mt_destroy(const struct xt_mtdtor_param *par,
			   struct cg2_rule *rule)
{
	if (rule->share.key.defrag)
		cg2_defrag_put(par->net);
	cg2_rule_put(rule);
}

static void cgroup2_mt_destroy_v0(const struct xt_mtdtor_param *par)
{
	const struct xt_cgroup2_info *info = par->matchinfo;

	cg2_mt_destroy(par, cg2_priv_rule(info->priv));
}

static void cgroup2_mt_destroy_v1(const struct xt_mtdtor_param *par)
{
	const struct xt_cgroup2_info_v1 *info = par->matchinfo;

	cg2_mt_destroy(par, cg2_priv_rule(info->priv));
}

#define CG2_HOOKS	((1 << NF_INET_LOCAL_IN) | (1 << NF_INET_LOCAL_OUT) | \
			 (1 << NF_INET_POST_ROUTING))

static struct xt_match cgroup2_mt_reg[] __read_mostly = {
	{
		.name		= "cgroup2",
		.revision	= 0,
		.family		= NFPROTO_UNSPEC,
		.checkentry	= cgroup2_mt_check_v0,
		.match		= cgroup2_mt_v0,
		.destroy	= cgroup2_mt_destroy_v0,
		.matchsize	= sizeof(struct xt_cgroup2_info),
		.usersize	= offsetof(struct xt_cgroup2_info, priv),
		.hooks		= CG2_HOOKS,
		.me		= THIS_MODULE,
	},
	{
		.name		= "cgroup2",
		.revision	= 1,
		.family		= NFPROTO_UNSPEC,
		.checkentry	= cgroup2_mt_check_v1,
		.match		= cgroup2_mt_v1,
		.destroy	= cgroup2_mt_destroy_v1,
		.matchsize	= sizeof(struct xt_cgroup2_info_v1),
		.usersize	= offsetof(struct xt_cgroup2_info_v1, priv),
		.hooks		= CG2_HOOKS,
		.me		= THIS_MODULE,
	},
};

static int __init cgroup2_mt_init(void)
{
	int ret;

	cg2_shares_init();
	ret = xt_register_matches(cgroup2_mt_reg, ARRAY_SIZE(cgroup2_mt_reg));
	if (ret)
		return ret;
	ret = cg2log_tg_register();
	if (ret)
		xt_unregister_matches(cgroup2_mt_reg,
				      ARRAY_SIZE(cgroup2_mt_reg));
	return ret;
}

static void __exit cgroup2_mt_exit(void)
{
	cg2log_tg_unregister();
	xt_unregister_matches(cgroup2_mt_reg, ARRAY_SIZE(cgroup2_mt_reg));
}

module_init(cgroup2_mt_init);
module_exit(cgroup2_mt_exit);
MODULE_AUTHOR("xt_cgroup2 developers");
MODULE_DESCRIPTION("Xtables: match by cgroup v2 path pattern, late-bound");
MODULE_LICENSE("GPL");
MODULE_VERSION(XT_CGROUP2_VERSION);
MODULE_ALIAS("ipt_cgroup2");
MODULE_ALIAS("ip6t_cgroup2");
