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

#include "acctd.h"
#include "levels.h"
#include "log.h"
#include "reconcile.h"

/* --- the wanted content, kept up to date by the tree callbacks --- */

/* A binding that was reported matching nothing matches @n: say so. */
static void first_match(struct binding *b, const struct cgnode *n)
{
	char *rel;

	b->matched = true;
	if (!b->unmatched_warned)
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

	for (i = 0; i < t->nb; i++) {
		if (found && t->b[i].matched)
			continue;
		if (!cgnode_match(t->b[i].prog, n))
			continue;
		found = true;
		if (!t->b[i].matched)
			first_match(&t->b[i], n);
	}
	return found;
}

void reconcile_warn_unmatched(struct daemon *d)
{
	size_t i, j;

	for (i = 0; i < d->cfg.n; i++) {
		for (j = 0; j < d->cfg.t[i].nb; j++) {
			struct binding *b = &d->cfg.t[i].b[j];

			if (b->matched || b->unmatched_warned)
				continue;
			warn("binding %s (%s): pattern \"%s\" matches no cgroup below %s; the set gets them when they appear (a typo?)",
			     b->spec, b->where, b->pattern,
			     d->tree.root_path);
			b->unmatched_warned = true;
		}
	}
}

static void want_add(struct target *t, const struct cgnode *n)
{
	if (!target_matches(t, n))
		return;
	if (idset_add(&t->want, n->id) < 0 || idset_add(&t->dirty, n->id) < 0) {
		err("%s: out of memory; will re-read everything", t->name);
		t->full = true;
	}
	acctd_expect(t, n);
	if (log_verbose) {
		char *rel = cgnode_path(n);

		dbg("%s: + %llu /%s", t->name, (unsigned long long)n->id,
		    rel ? rel : "(out of memory)");
		free(rel);
	}
}

static void cb_added(void *ctx, const struct cgnode *n)
{
	struct config *cfg = ctx;
	size_t i;

	for (i = 0; i < cfg->n; i++)
		want_add(&cfg->t[i], n);
}

static void cb_removed(void *ctx, const struct cgnode *n)
{
	struct config *cfg = ctx;
	size_t i;

	for (i = 0; i < cfg->n; i++) {
		struct target *t = &cfg->t[i];

		if (idset_del(&t->want, n->id)) {
			if (idset_add(&t->dirty, n->id) < 0)
				t->full = true;
			dbg("%s: - %llu", t->name, (unsigned long long)n->id);
		}
	}
}

const struct cgtree_ops reconcile_tree_ops = {
	.added = cb_added,
	.removed = cb_removed,
};

void reconcile_fill(struct daemon *d)
{
	cgtree_foreach(&d->tree, cb_added, &d->cfg);
}

void reconcile_mark_full(struct daemon *d, bool recheck)
{
	size_t i;

	for (i = 0; i < d->cfg.n; i++) {
		d->cfg.t[i].full = true;
		if (recheck)
			d->cfg.t[i].checked = false;
	}
}

/* --- failures --- */

/* "binding SPEC (WHERE)", or "set NAME (bindings WHERE...)" for a group. */
static void target_who(const struct target *t, char *who, size_t size)
{
	size_t i, len;

	if (t->nb == 1) {
		snprintf(who, size, "binding %s (%s)", t->b[0].spec,
			 t->b[0].where);
		return;
	}
	len = snprintf(who, size, "set %s (bindings", t->name);
	for (i = 0; i < t->nb && len < size; i++)
		len += snprintf(who + len, size - len, " %s", t->b[i].where);
	if (len < size)
		snprintf(who + len, size - len, ")");
}

/*
 * @error is the -errno of the failure.  A table or set that was there and
 * went away is a firewall reload (nftables.service restart): notice, not
 * error; it is refilled as soon as it is back.
 */
static void target_fail(struct daemon *d, struct target *t, const char *msg,
			int error)
{
	int prio = error == -ENOENT && t->synced ? LOG_NOTICE_ : LOG_ERR_;
	bool once = d->opt.mode == MODE_ONCE;
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
	t->retry_at = now() + d->opt.retry_interval;
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
static void check_binding_level(const struct daemon *d, const struct target *t,
				struct binding *b, const unsigned int *lv,
				int n, const char *have)
{
	unsigned int depth;
	bool ok = false;
	int i, fixed;

	depth = pattern_min_depth(b->pattern, &fixed) + d->root_level;
	for (i = 0; i < n; i++)
		if (fixed ? lv[i] == depth : lv[i] >= depth)
			ok = true;
	if (ok) {
		b->level_warned = false;
		return;
	}
	if (!b->level_warned)
		warn("binding %s (%s): the rules on @%s use socket cgroupv2 level %s, which never matches this pattern: it needs level %u%s",
		     b->spec, b->where, t->set, have, depth,
		     fixed ? "" : " or more (one rule per level)");
	b->level_warned = true;
}

static void check_levels(struct daemon *d, struct target *t)
{
	unsigned int lv[64];
	char have[256];
	size_t j, len;
	int n, i;

	if (d->root_level < 0)
		return;
	n = nfs_rule_levels(&d->nfs, t->family, t->table, t->set, lv, 64);
	if (n <= 0) {
		if (n == 0)
			dbg("%s: no rule uses it with socket cgroupv2 yet", t->name);
		return;
	}
	len = 0;
	have[0] = '\0';
	for (i = 0; i < n && len < sizeof(have); i++)
		len += snprintf(have + len, sizeof(have) - len, "%s%u",
				i ? ", " : "", lv[i]);
	for (j = 0; j < t->nb; j++)
		check_binding_level(d, t, &t->b[j], lv, n, have);
}

void reconcile_rules_changed(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->cfg.n; i++) {
		if (d->cfg.t[i].rules_changed && !d->cfg.t[i].failed)
			check_levels(d, &d->cfg.t[i]);
		d->cfg.t[i].rules_changed = false;
	}
}

/* --- one set --- */

/* Verify the set once after each failure; then its rules' levels. */
static int target_check(struct daemon *d, struct target *t, char *msg,
			size_t msglen)
{
	bool counts;
	int ret;

	if (t->checked)
		return 0;
	ret = nfs_check_set(&d->nfs, t->family, t->table, t->set, &counts,
			    msg, msglen);
	if (ret)
		return ret;
	t->checked = true;
	acctd_checked(t, counts);
	check_levels(d, t);
	return 0;
}

/* The ids to add and to delete: all of them after a re-read, or the dirty. */
static int target_diff(struct daemon *d, struct target *t, struct idlist *add,
		       struct idlist *del, char *msg, size_t msglen)
{
	int ret;

	if (t->full) {
		ret = acctd_read_set(&d->nfs, t, msg, msglen);
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
		dbg("%s: added %zu, removed %zu, now %zu", t->name, add->n,
		    del->n, t->have.used);
	if (t->failed)
		info("%s: in sync again (%zu ids)", t->name, t->have.used);
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
static int target_try(struct daemon *d, struct target *t, struct idlist *add,
		      struct idlist *del, struct nfs_done *done, char *msg,
		      size_t msglen)
{
	bool missing = false;
	int tries, ret = 0;

	for (tries = 0; tries < 3; tries++) {
		*done = (struct nfs_done){ 0 };
		ret = target_check(d, t, msg, msglen);
		if (!ret)
			ret = target_diff(d, t, add, del, msg, msglen);
		if (ret)
			return ret;
		if (!t->full)	/* a full read just took the counters */
			acctd_before_delete(&d->nfs, t, del->v, del->n);
		ret = nfs_commit(&d->nfs, t->family, t->table, t->set, add->v,
				 add->n, del->v, del->n, &missing, msg, msglen,
				 done);
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
static void target_partial(struct daemon *d, struct target *t,
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
	acctd_committed(&d->acct, t, add->v, done->nadd, del->v, done->ndel,
			now());
}

/* Bring one set in line.  0 on success (or nothing to do), -1 on failure. */
static int target_sync(struct daemon *d, struct target *t, bool force)
{
	struct idlist add = { 0 }, del = { 0 };
	struct nfs_done done;
	char msg[512];
	int ret;

	if (t->failed && !force && now() < t->retry_at)
		return -1;
	if (!t->full && !t->dirty.used)
		return 0;
	ret = target_try(d, t, &add, &del, &done, msg, sizeof(msg));
	if (ret) {
		target_fail(d, t, msg, ret);
		target_partial(d, t, &add, &del, &done);
	} else {
		target_committed(t, &add, &del);
		acctd_committed(&d->acct, t, add.v, add.n, del.v, del.n,
				now());
	}
	idlist_free(&add);
	idlist_free(&del);
	return ret ? -1 : 0;
}

int reconcile_all(struct daemon *d, bool force)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < d->cfg.n; i++)
		if (target_sync(d, &d->cfg.t[i], force))
			ret = -1;
	return ret;
}

bool reconcile_any_failed(const struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->cfg.n; i++)
		if (d->cfg.t[i].failed)
			return true;
	return false;
}

int reconcile_plan(struct daemon *d, struct target *t,
		   struct reconcile_plan *p, char *msg, size_t msglen)
{
	struct idlist add = { 0 }, del = { 0 };
	int ret;

	t->full = true;		/* diff with what the set holds now */
	ret = target_check(d, t, msg, msglen);
	if (!ret)
		ret = target_diff(d, t, &add, &del, msg, msglen);
	if (ret) {
		idlist_free(&add);
		idlist_free(&del);
		return ret;
	}
	*p = (struct reconcile_plan){ .add = add.v, .nadd = add.n,
				      .del = del.v, .ndel = del.n };
	return 0;
}

void reconcile_plan_free(struct reconcile_plan *p)
{
	free(p->add);
	free(p->del);
	*p = (struct reconcile_plan){ 0 };
}
