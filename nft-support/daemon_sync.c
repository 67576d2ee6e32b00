// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Reconciliation: the wanted ids of each set (kept by the tree callbacks),
 * the difference with what the kernel holds, one transaction per set.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_levels.h"
#include "daemon_sync.h"
#include "nl_set.h"
#include "util_clock.h"
#include "util_log.h"

/* --- the wanted content, kept up to date by the tree callbacks --- */

/* A binding that was reported matching nothing matches @n: say so. */
static void first_match(const struct binding *b, struct binding_state *bs,
			const struct cgnode *n)
{
	char *rel;

	bs->matched = true;
	if (!bs->unmatched_warned)
		return;
	rel = cgnode_path(n);
	info("binding %s (%s) matches a cgroup now: /%s", b->spec, b->where,
	     rel ? rel : "(out of memory)");
	free(rel);
}

/*
 * Does a binding of @t match @n?  The bindings that never matched are
 * tried after a match too, to know which match nothing.
 */
static bool target_matches(struct target *t, const struct cgnode *n)
{
	bool found = false;
	size_t i;

	for (i = 0; i < t->conf->nb; i++) {
		struct binding_state *bs = &t->bs[i];

		if (found && bs->matched)
			continue;
		if (!cgnode_match(t->conf->b[i].prog, n))
			continue;
		found = true;
		if (!bs->matched)
			first_match(&t->conf->b[i], bs, n);
	}
	return found;
}

void sync_warn_unmatched(struct sync_ctx *s, const char *root)
{
	size_t i, j;

	for (i = 0; i < s->n; i++) {
		const struct target_conf *c = s->t[i].conf;

		for (j = 0; j < c->nb; j++) {
			struct binding_state *bs = &s->t[i].bs[j];
			const struct binding *b = &c->b[j];

			if (bs->matched || bs->unmatched_warned)
				continue;
			warn("binding %s (%s): pattern \"%s\" matches no cgroup below %s; the set gets them when they appear (a typo?)",
			     b->spec, b->where, b->pattern, root);
			bs->unmatched_warned = true;
		}
	}
}

static void want_add(struct sync_ctx *s, struct target *t,
		     const struct cgnode *n)
{
	if (!target_matches(t, n))
		return;
	if (idset_add(&t->want, n->id) < 0 || idset_add(&t->dirty, n->id) < 0) {
		err("%s: out of memory; will re-read everything",
		    t->conf->name);
		t->full = true;
	}
	s->hooks->expect(s->hooks_ctx, t, n);
	if (log_verbose) {
		char *rel = cgnode_path(n);

		dbg("%s: + %llu /%s", t->conf->name, (unsigned long long)n->id,
		    rel ? rel : "(out of memory)");
		free(rel);
	}
}

static void cb_added(void *ctx, const struct cgnode *n)
{
	struct sync_ctx *s = ctx;
	size_t i;

	for (i = 0; i < s->n; i++)
		want_add(s, &s->t[i], n);
}

static void cb_removed(void *ctx, const struct cgnode *n)
{
	struct sync_ctx *s = ctx;
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct target *t = &s->t[i];

		if (idset_del(&t->want, n->id)) {
			if (idset_add(&t->dirty, n->id) < 0)
				t->full = true;
			dbg("%s: - %llu", t->conf->name,
			    (unsigned long long)n->id);
		}
	}
}

const struct cgtree_ops sync_tree_ops = {
	.added = cb_added,
	.removed = cb_removed,
};

void sync_fill(struct sync_ctx *s, struct cgtree *tree)
{
	cgtree_foreach(tree, cb_added, s);
}

void sync_mark_full(struct sync_ctx *s, bool recheck)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		s->t[i].full = true;
		if (recheck)
			s->t[i].checked = false;
	}
}

/* --- the targets of a config, kept over reloads --- */

static void target_free(struct target *t)
{
	free(t->bs);
	idset_free(&t->want);
	idset_free(&t->have);
	idset_free(&t->dirty);
}

/* A target seen for the first time: everything to learn. */
static int target_init(struct sync_ctx *s, struct target *t,
		       const struct target_conf *c)
{
	t->conf = c;
	t->full = true;
	t->bs = calloc(c->nb, sizeof(*t->bs));
	if (!t->bs)
		return -ENOMEM;
	if (s->hooks->attach(s->hooks_ctx, t)) {
		free(t->bs);
		return -ENOMEM;
	}
	return 0;
}

/*
 * A kept target forgets which of its bindings matched: "matches no cgroup"
 * is said once per load (sync_warn_unmatched()), as for a new target.
 */
static void forget_matches(struct target *t)
{
	size_t i;

	for (i = 0; i < t->conf->nb; i++) {
		t->bs[i].matched = false;
		t->bs[i].unmatched_warned = false;
	}
}

/* The current target that @c leaves unchanged, or NULL. */
static struct target *unchanged(struct sync_ctx *s,
				const struct target_conf *c)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i].conf && target_conf_same(s->t[i].conf, c))
			return &s->t[i];
	return NULL;
}

/*
 * Two passes: the new targets first (the only step that can fail, undone
 * then), and only then those kept are moved over, their conf taken from
 * @cfg (a NULL conf marks one moved out).
 */
int sync_adopt(struct sync_ctx *s, const struct config *cfg)
{
	struct target *nt, *old;
	size_t i;

	nt = calloc(cfg->n ? cfg->n : 1, sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	for (i = 0; i < cfg->n; i++) {
		if (unchanged(s, &cfg->t[i]) ||
		    !target_init(s, &nt[i], &cfg->t[i]))
			continue;
		while (i--)
			if (nt[i].conf)
				target_free(&nt[i]);
		free(nt);
		return -ENOMEM;
	}
	for (i = 0; i < cfg->n; i++) {
		old = nt[i].conf ? NULL : unchanged(s, &cfg->t[i]);
		if (!old)
			continue;
		nt[i] = *old;
		nt[i].conf = &cfg->t[i];
		old->conf = NULL;
		forget_matches(&nt[i]);
	}
	sync_free(s);
	s->t = nt;
	s->n = cfg->n;
	return 0;
}

void sync_free(struct sync_ctx *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i].conf)
			target_free(&s->t[i]);
	free(s->t);
	s->t = NULL;
	s->n = 0;
}

/* --- failures --- */

/* "binding SPEC (WHERE)", or "set NAME (bindings WHERE...)" for a group. */
static void target_who(const struct target *t, char *who, size_t size)
{
	size_t i, len;

	if (t->conf->nb == 1) {
		snprintf(who, size, "binding %s (%s)", t->conf->b[0].spec,
			 t->conf->b[0].where);
		return;
	}
	len = snprintf(who, size, "set %s (bindings", t->conf->name);
	for (i = 0; i < t->conf->nb && len < size; i++)
		len += snprintf(who + len, size - len, " %s",
				t->conf->b[i].where);
	if (len < size)
		snprintf(who + len, size - len, ")");
}

/*
 * @error is the -errno of the failure.  A table or set that was there and
 * went away is a firewall reload (nftables.service restart): notice, not
 * error; it is refilled as soon as it is back.
 */
static void target_fail(struct sync_ctx *s, struct target *t, const char *msg,
			int error)
{
	int prio = error == -ENOENT && t->synced ? LOG_NOTICE_ : LOG_ERR_;
	bool once = s->once;
	char who[4096];

	target_who(t, who, sizeof(who));
	if (strcmp(msg, t->lasterr) || once)
		log_msg(prio, "%s: %s%s", who, msg, once ? "" : "; retrying");
	else
		dbg("%s: still failing: %s", who, msg);
	snprintf(t->lasterr, sizeof(t->lasterr), "%s", msg);
	t->failed = true;
	t->checked = false;
	t->full = true;
	t->retry_at = now() + s->retry_interval;
}

/* --- the difference to commit --- */

struct idlist {
	uint64_t *v;
	size_t n, cap;
};

static int idlist_push(struct idlist *l, uint64_t id)
{
	uint64_t *nv;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		nv = realloc(l->v, l->cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		l->v = nv;
	}
	l->v[l->n++] = id;
	return 0;
}

static void idlist_free(struct idlist *l)
{
	free(l->v);
	*l = (struct idlist){ 0 };
}

/* The ids of @from that are not in @minus. */
static int collect(const struct idset *from, const struct idset *minus,
		   struct idlist *out)
{
	size_t pos = 0;
	uint64_t id;

	while (idset_next(from, &pos, &id))
		if (!idset_has(minus, id) && idlist_push(out, id))
			return -ENOMEM;
	return 0;
}

/* Only the ids whose want changed since the last commit. */
static int collect_dirty(const struct target *t, struct idlist *add,
			 struct idlist *del)
{
	size_t pos = 0;
	uint64_t id;

	while (idset_next(&t->dirty, &pos, &id)) {
		bool w = idset_has(&t->want, id);
		bool h = idset_has(&t->have, id);

		if (w && !h && idlist_push(add, id))
			return -ENOMEM;
		if (!w && h && idlist_push(del, id))
			return -ENOMEM;
	}
	return 0;
}

/* --- rule levels --- */

/*
 * Warn about bindings that the rules using the set can never match: with
 * a fixed depth D, `socket cgroupv2 level` must be D (plus the level of
 * --cgroup-root); with "**", at least the smallest depth.
 */
static void check_binding_level(const struct sync_ctx *s, struct target *t,
				size_t j, const unsigned int *lv, int n,
				const char *have)
{
	const struct binding *b = &t->conf->b[j];
	unsigned int depth;
	bool ok = false;
	int i, fixed;

	depth = pattern_min_depth(b->pattern, &fixed) + s->root_level;
	for (i = 0; i < n; i++)
		if (fixed ? lv[i] == depth : lv[i] >= depth)
			ok = true;
	if (ok) {
		t->bs[j].level_warned = false;
		return;
	}
	if (!t->bs[j].level_warned)
		warn("binding %s (%s): the rules on @%s use socket cgroupv2 level %s, which never matches this pattern: it needs level %u%s",
		     b->spec, b->where, t->conf->set, have, depth,
		     fixed ? "" : " or more (one rule per level)");
	t->bs[j].level_warned = true;
}

static void check_levels(struct sync_ctx *s, struct target *t)
{
	unsigned int lv[64];
	char have[256];
	size_t j, len;
	int n, i;

	if (s->root_level < 0)
		return;
	n = nfs_rule_levels(s->nfs, t->conf->family, t->conf->table,
			    t->conf->set, lv, 64);
	if (n <= 0) {
		if (n == 0)
			dbg("%s: no rule uses it with socket cgroupv2 yet",
			    t->conf->name);
		return;
	}
	len = 0;
	have[0] = '\0';
	for (i = 0; i < n && len < sizeof(have); i++)
		len += snprintf(have + len, sizeof(have) - len, "%s%u",
				i ? ", " : "", lv[i]);
	for (j = 0; j < t->conf->nb; j++)
		check_binding_level(s, t, j, lv, n, have);
}

void sync_rules_changed(struct sync_ctx *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->t[i].rules_changed && !s->t[i].failed)
			check_levels(s, &s->t[i]);
		s->t[i].rules_changed = false;
	}
}

/* --- one set --- */

/* Verify the set once after each failure; then its rules' levels. */
static int target_check(struct sync_ctx *s, struct target *t, char *msg,
			size_t msglen)
{
	bool counts;
	int ret;

	if (t->checked)
		return 0;
	ret = nfs_check_set(s->nfs, t->conf->family, t->conf->table,
			    t->conf->set, &counts, msg, msglen);
	if (ret)
		return ret;
	t->checked = true;
	s->hooks->checked(s->hooks_ctx, t, counts);
	check_levels(s, t);
	return 0;
}

/* The ids to add and to delete: all of them after a re-read, or the dirty. */
static int target_diff(struct sync_ctx *s, struct target *t, struct idlist *add,
		       struct idlist *del, char *msg, size_t msglen)
{
	int ret;

	if (t->full) {
		ret = s->hooks->read_set(s->hooks_ctx, s->nfs, t, msg, msglen);
		if (ret)
			return ret;
		ret = collect(&t->want, &t->have, add);
		if (!ret)
			ret = collect(&t->have, &t->want, del);
	} else {
		ret = collect_dirty(t, add, del);
	}
	if (ret)
		snprintf(msg, msglen, "%s", strerror(-ret));
	return ret;
}

/* What the kernel holds now, after a successful commit. */
static void target_committed(struct target *t, const struct idlist *add,
			     const struct idlist *del)
{
	size_t i;

	for (i = 0; i < add->n; i++)
		if (idset_add(&t->have, add->v[i]) < 0)
			t->full = true;
	for (i = 0; i < del->n; i++)
		idset_del(&t->have, del->v[i]);
	if (add->n || del->n)
		dbg("%s: added %zu, removed %zu, now %zu", t->conf->name,
		    add->n, del->n, t->have.used);
	if (t->failed)
		info("%s: in sync again (%zu ids)", t->conf->name,
		     t->have.used);
	t->failed = false;
	t->synced = true;
	t->lasterr[0] = '\0';
	t->full = false;
	idset_clear(&t->dirty);
}

/*
 * Check, diff and commit, three times at most: a commit that fails because
 * our view was stale (a delete of an id someone else removed) re-reads.
 */
static int target_try(struct sync_ctx *s, struct target *t, struct idlist *add,
		      struct idlist *del, struct nfs_done *done, char *msg,
		      size_t msglen)
{
	bool missing = false;
	int tries, ret = 0;

	for (tries = 0; tries < 3; tries++) {
		*done = (struct nfs_done){ 0 };
		ret = target_check(s, t, msg, msglen);
		if (!ret)
			ret = target_diff(s, t, add, del, msg, msglen);
		if (ret)
			return ret;
		if (!t->full)	/* a full read just took the counters */
			s->hooks->before_delete(s->hooks_ctx, s->nfs, t, del->v,
						del->n);
		ret = nfs_commit(s->nfs, t->conf->family, t->conf->table,
				 t->conf->set, add->v, add->n, del->v, del->n,
				 &missing, msg, msglen, done);
		if (!ret || !missing)
			return ret;
		idlist_free(add);
		idlist_free(del);
		t->full = true;	/* our view was stale: read and diff again */
	}
	return ret;
}

/*
 * A commit of several transactions failed after the first: what they did
 * holds, and the ids they deleted have left (the set is read in full at
 * the retry).
 */
static void target_partial(struct sync_ctx *s, struct target *t,
			   const struct idlist *add, const struct idlist *del,
			   const struct nfs_done *done)
{
	size_t i;

	if (!done->nadd && !done->ndel)
		return;
	for (i = 0; i < done->nadd; i++)
		if (idset_add(&t->have, add->v[i]) < 0)
			break;	/* t->full is set: re-read anyway */
	for (i = 0; i < done->ndel; i++)
		idset_del(&t->have, del->v[i]);
	s->hooks->committed(s->hooks_ctx, t, add->v, done->nadd, del->v,
			    done->ndel, now());
}

/* Bring one set in line.  0 on success (or nothing to do), -1 on failure. */
static int target_sync(struct sync_ctx *s, struct target *t, bool force)
{
	struct idlist add = { 0 }, del = { 0 };
	struct nfs_done done;
	char msg[512];
	int ret;

	if (t->failed && !force && now() < t->retry_at)
		return -1;
	if (!t->full && !t->dirty.used)
		return 0;
	ret = target_try(s, t, &add, &del, &done, msg, sizeof(msg));
	if (ret) {
		target_fail(s, t, msg, ret);
		target_partial(s, t, &add, &del, &done);
	} else {
		target_committed(t, &add, &del);
		s->hooks->committed(s->hooks_ctx, t, add.v, add.n, del.v,
				    del.n, now());
	}
	idlist_free(&add);
	idlist_free(&del);
	return ret ? -1 : 0;
}

int sync_all(struct sync_ctx *s, bool force)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (target_sync(s, &s->t[i], force))
			ret = -1;
	return ret;
}

bool sync_any_failed(const struct sync_ctx *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i].failed)
			return true;
	return false;
}

int sync_plan(struct sync_ctx *s, struct target *t, struct sync_plan *p,
	      char *msg, size_t msglen)
{
	struct idlist add = { 0 }, del = { 0 };
	int ret;

	t->full = true;		/* diff with what the set holds now */
	ret = target_check(s, t, msg, msglen);
	if (!ret)
		ret = target_diff(s, t, &add, &del, msg, msglen);
	if (ret) {
		idlist_free(&add);
		idlist_free(&del);
		return ret;
	}
	*p = (struct sync_plan){ .add = add.v, .nadd = add.n,
				      .del = del.v, .ndel = del.n };
	return 0;
}

void sync_plan_free(struct sync_plan *p)
{
	free(p->add);
	free(p->del);
	*p = (struct sync_plan){ 0 };
}
