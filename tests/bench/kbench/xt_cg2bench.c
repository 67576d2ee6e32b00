// SPDX-License-Identifier: GPL-2.0
/*
 * xt_cg2bench: test-only microbenchmark of the registered cgroup matches
 * (make bench; never shipped).  A write to /proc/cg2bench names a match,
 * its arguments and sockets (fds of the writer, made by processes in the
 * cgroups to test); the module builds the matchinfo through xt_check_match
 * as iptables would, then calls the match's .match() directly on skbs owned
 * by those sockets, as the packet path does (BH off, RCU read side), and
 * keeps the median cost of several rounds for the next read.
 *
 * Command: MATCH INVERT CALLS ROUNDS FD[,FD...] ARG...
 *   MATCH  "cgroup" (in-tree, revision 2; ARG is the one path),
 *          "cgroup2" (ours, revision 0; each ARG one --path pattern) or
 *          "cg2floor" (this module's floor, see cb_floor_mt(); ARG ignored)
 *   CALLS  calls per socket per round
 *   FDs    fd numbers or ranges FIRST-LAST, up to CB_MAX_SOCKS sockets.
 *          CALLS 1 and several sockets: a new rule each round, so each
 *          socket's cgroup is judged for the first time (after an
 *          untimed pass of the rule inverted, see cb_fresh_round()).
 *          Otherwise the rule is built once and warmed up (its verdict
 *          cache filled and grown) before the timed rounds, which take the
 *          sockets in turn.
 * Result: "ps MEDIAN hits HITS calls CALLS runs PS..." (picoseconds/call).
 */
#include <linux/module.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/proc_fs.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_cgroup.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <net/sock.h>
#include "xt_cgroup2.h"

#define CB_MAX_CMD	8192
#define CB_MAX_ROUNDS	31
#define CB_MAX_SOCKS	16384
/* Untimed passes over the sockets: enough for a cache to grow 128 -> 16,384. */
#define CB_WARM_PASSES	6
/* Calls per round: ten million keep BH off for seconds at most, even in TCG. */
#define CB_MAX_WORK	10000000u

struct cb_job {
	const char *match;
	bool invert;
	unsigned int calls, rounds, nsocks;
	struct socket **socks;		/* CB_MAX_SOCKS each */
	struct sk_buff **skbs;
	char *args;			/* the rest of the command */
};

struct cb_rule {
	struct xt_match *match;
	void *info;
	struct net *net;
};

static DEFINE_MUTEX(cb_lock);
static char cb_result[512];

static void *cb_info_cgroup(char *args, bool invert)
{
	struct xt_cgroup_info_v2 *info;
	char *path = strsep(&args, " ");

	if (!path || !*path || args)
		return ERR_PTR(-EINVAL);
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return ERR_PTR(-ENOMEM);
	info->has_path = 1;
	info->invert_path = invert;
	if (strscpy(info->path, path, sizeof(info->path)) < 0) {
		kfree(info);
		return ERR_PTR(-ENAMETOOLONG);
	}
	return info;
}

/* Patterns packed NUL-terminated, as libxt_cgroup2 does. */
static void *cb_info_cgroup2(char *args, bool invert)
{
	struct xt_cgroup2_info *info;
	char *p;
	size_t n;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return ERR_PTR(-ENOMEM);
	info->flags = invert ? XT_CGROUP2_INVERT : 0;
	while ((p = strsep(&args, " ")) && *p) {
		n = strlen(p) + 1;
		if (info->len + n > XT_CGROUP2_PATTERNS_SIZE) {
			kfree(info);
			return ERR_PTR(-ENAMETOOLONG);
		}
		memcpy(info->patterns + info->len, p, n);
		info->len += n;
		info->count++;
	}
	return info;
}

/*
 * The floor: the least any cgroup match does per packet, reaching the
 * sending socket's cgroup and reading it.  Whatever its cost grows by with
 * the number of cgroups is the memory's, not a match's.  Every socket not
 * in the root cgroup matches.
 */
static bool cb_floor_mt(const struct sk_buff *skb, struct xt_action_param *par)
{
	struct sock *sk = skb->sk;

	return sk && sk_fullsock(sk) &&
	       sock_cgroup_ptr(&sk->sk_cgrp_data)->level > 0;
}

static struct xt_match cb_floor_reg __read_mostly = {
	.name		= "cg2floor",
	.revision	= 0,
	.family		= NFPROTO_IPV4,
	.match		= cb_floor_mt,
	.matchsize	= 0,
	.me		= THIS_MODULE,
};

static void *cb_info(const char *match, char *args, bool invert)
{
	if (!strcmp(match, "cgroup2"))
		return cb_info_cgroup2(args, invert);
	if (!strcmp(match, "cgroup"))
		return cb_info_cgroup(args, invert);
	return kzalloc(1, GFP_KERNEL) ?: ERR_PTR(-ENOMEM);
}

/*
 * Build the rule's matchinfo through x_tables' checks, as iptables does;
 * inverted if @invert.
 */
static int cb_rule_init(struct cb_rule *r, const struct cb_job *job,
			bool invert)
{
	struct xt_mtchk_param par = {};
	struct ipt_entry entry = {};
	char *args;
	int ret;

	r->match = xt_request_find_match(NFPROTO_IPV4, job->match,
					 strcmp(job->match, "cgroup") ? 0 : 2);
	if (IS_ERR(r->match))
		return PTR_ERR(r->match);
	args = kstrdup(job->args, GFP_KERNEL);
	r->info = args ? cb_info(job->match, args, invert) :
		  ERR_PTR(-ENOMEM);
	kfree(args);
	if (IS_ERR(r->info)) {
		module_put(r->match->me);
		return PTR_ERR(r->info);
	}
	r->net = sock_net(job->socks[0]->sk);
	entry.ip.proto = IPPROTO_UDP;
	par.net = r->net;
	par.table = "filter";
	par.entryinfo = &entry;
	par.match = r->match;
	par.matchinfo = r->info;
	par.hook_mask = 1 << NF_INET_LOCAL_OUT;
	par.family = NFPROTO_IPV4;
	ret = xt_check_match(&par, XT_ALIGN(r->match->matchsize),
			     IPPROTO_UDP, false);
	if (ret) {
		kfree(r->info);
		module_put(r->match->me);
	}
	return ret;
}

static void cb_rule_destroy(struct cb_rule *r)
{
	struct xt_mtdtor_param par = {
		.net = r->net, .match = r->match, .matchinfo = r->info,
		.family = NFPROTO_IPV4,
	};

	if (r->match->destroy)
		r->match->destroy(&par);
	kfree(r->info);
	module_put(r->match->me);
}

/*
 * @calls passes over the sockets, in the packet path's context; the
 * matches among them in *@hits, the picoseconds per call returned.
 */
static u64 cb_passes(const struct cb_rule *r, const struct cb_job *job,
		     unsigned int calls, unsigned int *hits)
{
	struct nf_hook_state state = {
		.hook = NF_INET_LOCAL_OUT, .pf = NFPROTO_IPV4, .net = r->net,
	};
	struct xt_action_param par = {
		.match = r->match, .matchinfo = r->info, .state = &state,
	};
	unsigned int i, j, n = 0;
	u64 t0, t1;

	local_bh_disable();
	rcu_read_lock();
	t0 = ktime_get_ns();
	for (i = 0; i < calls; i++)
		for (j = 0; j < job->nsocks; j++)
			n += r->match->match(job->skbs[j], &par);
	t1 = ktime_get_ns();
	rcu_read_unlock();
	local_bh_enable();
	*hits = n;
	return (t1 - t0) * 1000 / ((u64)calls * job->nsocks);
}

/*
 * Fill the rule's verdict cache as traffic would: one pass over the
 * sockets at a time, with time between for the work that grows a cache
 * (and its RCU grace period) to run.
 */
static void cb_warm(const struct cb_rule *r, const struct cb_job *job)
{
	unsigned int i, hits;

	for (i = 0; i < CB_WARM_PASSES; i++) {
		cb_passes(r, job, 1, &hits);
		/* One socket fills one slot: no cache ever grows for it. */
		if (job->nsocks == 1)
			break;
		msleep(20);
	}
}

static int cb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * One fresh round, its picoseconds per call in *@ps: a new rule (built
 * outside the timed part), so every call is the first judgement of that
 * cgroup by that rule.  An untimed pass of the inverted rule, whose key
 * and so whose verdicts are its own, reads the same memory first: every
 * round starts as warm, whatever building and destroying rules let run.
 * Under TCG a round's cost depends on what ran just before it: a sleep
 * between rounds made first judgements up to 2x dearer, for any module.
 */
static int cb_fresh_round(const struct cb_job *job, u64 *ps,
			  unsigned int *hits)
{
	struct cb_rule r, warm;
	unsigned int warm_hits;
	int ret;

	ret = cb_rule_init(&r, job, job->invert);
	if (ret)
		return ret;
	ret = cb_rule_init(&warm, job, !job->invert);
	if (!ret) {
		cb_passes(&warm, job, 1, &warm_hits);
		*ps = cb_passes(&r, job, 1, hits);
		cb_rule_destroy(&warm);
	}
	cb_rule_destroy(&r);
	return ret;
}

/* Cached: one rule, warmed up, timed @job->rounds times. */
static int cb_cached_rounds(const struct cb_job *job, u64 *ps,
			    unsigned int *hits)
{
	struct cb_rule r;
	unsigned int i;
	int ret;

	ret = cb_rule_init(&r, job, job->invert);
	if (ret)
		return ret;
	cb_warm(&r, job);
	for (i = 0; i < job->rounds; i++) {
		ps[i] = cb_passes(&r, job, job->calls, hits);
		cond_resched();
	}
	cb_rule_destroy(&r);
	return 0;
}

/* Cached, or fresh (several sockets, one call each). */
static int cb_run(const struct cb_job *job)
{
	bool fresh = job->nsocks > 1 && job->calls == 1;
	u64 ps[CB_MAX_ROUNDS];
	char runs[CB_MAX_ROUNDS * 21 + 1];
	unsigned int i, hits = 0;
	int ret = 0, len;

	if (!fresh)
		ret = cb_cached_rounds(job, ps, &hits);
	for (i = 0; fresh && !ret && i < job->rounds; i++) {
		ret = cb_fresh_round(job, &ps[i], &hits);
		cond_resched();
	}
	if (ret)
		return ret;
	len = 0;
	for (i = 0; i < job->rounds; i++)
		len += scnprintf(runs + len, sizeof(runs) - len, " %llu", ps[i]);
	sort(ps, job->rounds, sizeof(ps[0]), cb_cmp_u64, NULL);
	scnprintf(cb_result, sizeof(cb_result), "ps %llu hits %u calls %llu runs%s\n",
		  ps[job->rounds / 2], hits, (u64)job->calls * job->nsocks, runs);
	return 0;
}

/* The writer's socket @fd, with an skb it owns. */
static int cb_get_sock(struct cb_job *job, int fd)
{
	struct sk_buff *skb;
	struct socket *sock;
	int ret;

	if (job->nsocks == CB_MAX_SOCKS)
		return -E2BIG;
	sock = sockfd_lookup(fd, &ret);
	if (!sock)
		return ret;
	skb = alloc_skb(0, GFP_KERNEL);
	if (!skb) {
		sockfd_put(sock);
		return -ENOMEM;
	}
	/* Owned as an output skb is; no destructor, no accounting. */
	skb->sk = sock->sk;
	job->socks[job->nsocks] = sock;
	job->skbs[job->nsocks++] = skb;
	return 0;
}

/* FD or FIRST-LAST, comma-separated: the writer's sockets. */
static int cb_get_socks(struct cb_job *job, char *fds)
{
	char *tok, *last;
	int ret, a, b;

	job->socks = kvcalloc(CB_MAX_SOCKS, sizeof(*job->socks), GFP_KERNEL);
	job->skbs = kvcalloc(CB_MAX_SOCKS, sizeof(*job->skbs), GFP_KERNEL);
	if (!job->socks || !job->skbs)
		return -ENOMEM;
	while ((tok = strsep(&fds, ","))) {
		last = strchr(tok, '-');
		if (last)
			*last++ = 0;
		ret = kstrtoint(tok, 10, &a) ?: kstrtoint(last ?: tok, 10, &b);
		if (!ret && (a < 0 || b < a || b - a >= CB_MAX_SOCKS))
			ret = -ERANGE;
		for (; !ret && a <= b; a++)
			ret = cb_get_sock(job, a);
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

static void cb_put_socks(struct cb_job *job)
{
	unsigned int i;

	for (i = 0; i < job->nsocks; i++) {
		job->skbs[i]->sk = NULL;
		kfree_skb(job->skbs[i]);
		sockfd_put(job->socks[i]);
	}
	kvfree(job->skbs);
	kvfree(job->socks);
}

static int cb_parse(struct cb_job *job, char *cmd)
{
	char *f[5];
	unsigned int i, inv;
	int ret;

	for (i = 0; i < ARRAY_SIZE(f); i++) {
		f[i] = strsep(&cmd, " ");
		if (!f[i] || !cmd)
			return -EINVAL;
	}
	job->match = f[0];
	job->args = cmd;
	if (strcmp(f[0], "cgroup") && strcmp(f[0], "cgroup2") &&
	    strcmp(f[0], "cg2floor"))
		return -EINVAL;
	ret = kstrtouint(f[1], 10, &inv) ?: kstrtouint(f[2], 10, &job->calls) ?:
	      kstrtouint(f[3], 10, &job->rounds);
	if (ret)
		return ret;
	job->invert = inv;
	if (!job->calls || !job->rounds || job->rounds > CB_MAX_ROUNDS)
		return -ERANGE;
	ret = cb_get_socks(job, f[4]);
	if (ret)
		return ret;
	if (job->calls > CB_MAX_WORK / job->nsocks)
		return -ERANGE;
	return 0;
}

static ssize_t cb_write(struct file *file, const char __user *buf,
			size_t count, loff_t *ppos)
{
	struct cb_job *job;
	char *cmd;
	int ret;

	if (count >= CB_MAX_CMD)
		return -E2BIG;
	cmd = memdup_user_nul(buf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	strim(cmd);
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	ret = job ? 0 : -ENOMEM;
	mutex_lock(&cb_lock);
	cb_result[0] = 0;
	if (!ret)
		ret = cb_parse(job, cmd);
	if (!ret)
		ret = cb_run(job);
	mutex_unlock(&cb_lock);
	if (job)
		cb_put_socks(job);
	kfree(job);
	kfree(cmd);
	return ret ?: count;
}

static ssize_t cb_read(struct file *file, char __user *buf, size_t count,
		       loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&cb_lock);
	ret = simple_read_from_buffer(buf, count, ppos, cb_result,
				      strlen(cb_result));
	mutex_unlock(&cb_lock);
	return ret;
}

static const struct proc_ops cb_proc_ops = {
	.proc_write	= cb_write,
	.proc_read	= cb_read,
	.proc_lseek	= default_llseek,
};

static int __init cb_init(void)
{
	int ret = xt_register_match(&cb_floor_reg);

	if (ret)
		return ret;
	if (!proc_create("cg2bench", 0600, NULL, &cb_proc_ops)) {
		xt_unregister_match(&cb_floor_reg);
		return -ENOMEM;
	}
	return 0;
}

static void __exit cb_exit(void)
{
	remove_proc_entry("cg2bench", NULL);
	xt_unregister_match(&cb_floor_reg);
}

module_init(cb_init);
module_exit(cb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test-only microbenchmark of the cgroup and cgroup2 matches");
