/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Keep each set equal to what the tree wants: the tree callbacks keep the
 * wanted ids, a sync commits the difference, a level check tells when the
 * rules that use a set can never match its patterns.
 *
 * The sync step sees only its context (struct sync_ctx): the sets, the
 * netlink socket, a few settings and a table of hooks through which the
 * accounting follows each step, as the tree reports to us through
 * cgtree_ops.  It knows nothing of the daemon around it.
 */
#ifndef NFTCG_DAEMON_SYNC_H
#define NFTCG_DAEMON_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cg_tree.h"
#include "daemon_config.h"
#include "util_idset.h"

struct acct;
struct nfs;

/* What the daemon learnt about one binding (conf->b[i]) at run time. */
struct binding_state {
	bool level_warned;	/* the rules' levels cannot match its pattern */
	bool matched;		/* a cgroup matched it since the load */
	bool unmatched_warned;	/* "matches no cgroup" was logged */
};

/*
 * One set at run time: what the daemon learnt about it.  A reload that
 * leaves its bindings alone (target_conf_same()) keeps all of it.
 */
struct target {
	const struct target_conf *conf;	/* in the current struct config */
	struct binding_state *bs;	/* one per conf->b[i] */
	struct idset want;	/* ids of live cgroups matching a pattern */
	struct idset have;	/* what the kernel's set holds, as known */
	struct idset dirty;	/* ids whose want changed since the commit */
	bool full;		/* re-read the set and reconcile all of it */
	bool checked;		/* set type verified since the last failure */
	bool failed;		/* the last attempt failed */
	bool synced;		/* was in sync once: missing is a reload */
	bool rules_changed;	/* check the rules' levels again */
	struct acct *acct;	/* its traffic per path (daemon_acct.h) */
	char lasterr[512];
	double retry_at;	/* monotonic seconds */
};

/* What the accounting does at each step; each gets sync_ctx.hooks_ctx. */
struct sync_hooks {
	/* A new target (not kept from the last config): 0 or -ENOMEM. */
	int (*attach)(void *ctx, struct target *t);
	/* @n joined t->want. */
	void (*expect)(void *ctx, struct target *t, const struct cgnode *n);
	/* The set was checked: does it count per element (@counts)? */
	void (*checked)(void *ctx, struct target *t, bool counts);
	/* Replace t->have with the set's elements (and take their counters). */
	int (*read_set)(void *ctx, struct nfs *n, struct target *t, char *err,
			size_t errlen);
	/* Before deleting @del (not after a full read): their last counts. */
	void (*before_delete)(void *ctx, struct nfs *n, struct target *t,
			      const uint64_t *del, size_t ndel);
	/*
	 * After a commit that added @add (elements made by the daemon: they
	 * count from zero) and deleted @del; t->have is up to date.
	 */
	void (*committed)(void *ctx, struct target *t, const uint64_t *add,
			  size_t nadd, const uint64_t *del, size_t ndel,
			  double tnow);
};

struct sync_ctx {
	struct target *t;	/* one per target_conf of the config */
	size_t n;
	struct nfs *nfs;
	const struct sync_hooks *hooks;
	void *hooks_ctx;
	int root_level;		/* of the cgroup root; -1: levels not checked */
	double retry_interval;	/* after a failed sync, seconds */
	bool once;		/* --once: report every failure */
};

/* The tree callbacks; their context is the struct sync_ctx. */
extern const struct cgtree_ops sync_tree_ops;

/*
 * Make the targets those of @cfg, which must outlive them: a target whose
 * bindings did not change keeps its state, the others start afresh.  0, or
 * -ENOMEM with nothing changed.
 */
int sync_adopt(struct sync_ctx *s, const struct config *cfg);
/* Free every target. */
void sync_free(struct sync_ctx *s);

/* Fill the wanted ids of every target from the whole tree. */
void sync_fill(struct sync_ctx *s, struct cgtree *tree);
/*
 * Once per load (start, SIGHUP): name each binding that matches no cgroup
 * below @root (a typo, or a service not started yet); when it matches one
 * later, that is logged too.
 */
void sync_warn_unmatched(struct sync_ctx *s, const char *root);
/*
 * Re-read and reconcile every set at the next sync; @recheck verifies the
 * sets' type (and the rules' levels) again too.
 */
void sync_mark_full(struct sync_ctx *s, bool recheck);

/*
 * Bring every set in line; @force ignores retry deadlines.  0 when every
 * set is in sync, -1 when one failed (it is retried at its deadline).
 */
int sync_all(struct sync_ctx *s, bool force);
/* Check the rule levels of the sets whose rules changed. */
void sync_rules_changed(struct sync_ctx *s);
/* Did a set fail its last sync? */
bool sync_any_failed(const struct sync_ctx *s);

/* What a sync of one set would commit. */
struct sync_plan {
	uint64_t *add, *del;
	size_t nadd, ndel;
};

/*
 * Check the set and read it, then diff it with the wanted ids, committing
 * nothing (--check).  0, or -errno with a sentence in @msg.
 */
int sync_plan(struct sync_ctx *s, struct target *t, struct sync_plan *p,
	      char *msg, size_t msglen);
void sync_plan_free(struct sync_plan *p);

#endif
