/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The accounting inside the daemon: when to read the sets' counters, when
 * to save the state file and the metrics file.
 *
 * Counters are read (one dump of the set) before every commit that deletes
 * a counted id, so that an id's last count is kept, and every
 * --stats-interval, so that a crash loses little.  The state is saved a
 * second after a change of the totals and at every interval, and at exit.
 */
#ifndef NFTCG_ACCTD_H
#define NFTCG_ACCTD_H

#include <limits.h>
#include <stdbool.h>

#include "accounting.h"
#include "bindings.h"

struct nfs;
struct cgnode;

struct acctd {
	struct acct_store store;
	char state_path[PATH_MAX];	/* "" when not saved */
	const char *metrics_path;	/* NULL when not written */
	double interval;		/* reading, saving: seconds */
	double tick_at;			/* absolute (monotonic) deadlines */
	double save_at;			/* 0: nothing to save */
	bool save_failed;		/* reported once until it works again */
	bool save_limited;		/* paths left out: reported once */
};

/*
 * Load the state from @state_dir (NULL: not kept).  A missing file starts
 * empty; bad lines are reported and dropped; a file that is no state file
 * is reported, set aside as state.bad and replaced.
 */
void acctd_init(struct acctd *ad, const char *state_dir,
		const char *metrics_path, double interval, double tnow);
/* Read every counted set once more, save, free. */
void acctd_fini(struct acctd *ad, struct nfs *n, struct config *cfg);
/* Free the totals without reading or saving (a start that failed). */
void acctd_free(struct acctd *ad);
/* Give each target of @cfg its accounting (after every config load). */
int acctd_attach(struct acctd *ad, struct config *cfg);

/* --- hooks of the reconciliation --- */
/* @n joined t->want. */
void acctd_expect(struct target *t, const struct cgnode *n);
/* The set was checked: does it count per element (@counts)? */
void acctd_checked(struct target *t, bool counts);
/* nfs_read_set(), with the counters when the set has them. */
int acctd_read_set(struct nfs *n, struct target *t, char *err,
		   size_t errlen);
/* Before deleting @del (not after a full read): their last counts. */
void acctd_before_delete(struct nfs *n, struct target *t,
			 const uint64_t *del, size_t ndel);
/*
 * After a commit that added @add (elements made by the daemon: they count
 * from zero) and deleted @del; t->have is up to date.
 */
void acctd_committed(struct acctd *ad, struct target *t, const uint64_t *add,
		     size_t nadd, const uint64_t *del, size_t ndel,
		     double tnow);

/* --- the timer of the loop --- */
/* The next deadline, or 0 for none. */
double acctd_deadline(const struct acctd *ad);
/* Read, save and write the metrics when due. */
void acctd_tick(struct acctd *ad, struct nfs *n, struct config *cfg,
		double tnow);

#endif
