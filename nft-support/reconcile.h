/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Keep each set equal to what the tree wants: the tree callbacks keep the
 * wanted ids, a sync commits the difference, a level check tells when the
 * rules that use a set can never match its patterns.
 */
#ifndef NFTCG_RECONCILE_H
#define NFTCG_RECONCILE_H

#include <stdbool.h>

#include "daemon.h"

/* The tree callbacks; their context is the struct config. */
extern const struct cgtree_ops reconcile_tree_ops;

/* Fill the wanted ids of every target from the whole tree. */
void reconcile_fill(struct daemon *d);
/*
 * Once per load (start, SIGHUP): name each binding that matches no cgroup
 * (a typo, or a service not started yet); when it matches one later, that
 * is logged too.
 */
void reconcile_warn_unmatched(struct daemon *d);
/*
 * Re-read and reconcile every set at the next sync; @recheck verifies the
 * sets' type (and the rules' levels) again too.
 */
void reconcile_mark_full(struct daemon *d, bool recheck);

/*
 * Bring every set in line; @force ignores retry deadlines.  0 when every
 * set is in sync, -1 when one failed (it is retried at its deadline).
 */
int reconcile_all(struct daemon *d, bool force);
/* Check the rule levels of the sets whose rules changed. */
void reconcile_rules_changed(struct daemon *d);
/* Did a set fail its last sync? */
bool reconcile_any_failed(const struct daemon *d);

/* What a sync of one set would commit. */
struct reconcile_plan {
	uint64_t *add, *del;
	size_t nadd, ndel;
};

/*
 * Check the set and read it, then diff it with the wanted ids, committing
 * nothing (--check).  0, or -errno with a sentence in @msg.
 */
int reconcile_plan(struct daemon *d, struct target *t,
		   struct reconcile_plan *p, char *msg, size_t msglen);
void reconcile_plan_free(struct reconcile_plan *p);

#endif
