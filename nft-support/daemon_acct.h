/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The accounting inside the daemon: when to read the sets' counters, when
 * to save the state file and the metrics file.
 *
 * Counters are read (one dump of the set) before every commit that deletes
 * a counted id, so that an id's last count is kept, and every
 * --stats-interval, so that a crash loses little.  The state is saved a
 * second after a change of the totals and at every interval, and at exit.
 * From a reading to the save after it the daemon holds the state lock
 * (acct_statelock.h), so that --stats waits for the save.
 */
#ifndef NFTCG_ACCTD_H
#define NFTCG_ACCTD_H

#include <limits.h>
#include <stdbool.h>

#include "acct_store.h"
#include "daemon_sync.h"

struct acctd {
	struct acct_store store;
	char state_dir[PATH_MAX];	/* "" when not saved */
	char state_path[PATH_MAX];	/* state_dir/STATE_FILE_NAME, or "" */
	const char *metrics_path;	/* NULL when not written */
	double interval;		/* reading, saving: seconds */
	double tick_at;			/* absolute (monotonic) deadlines */
	double save_at;			/* 0: nothing to save */
	bool save_failed;		/* reported once until it works again */
	bool save_limited;		/* paths left out: reported once */
	int lock_fd;			/* DIR/state.lock; -1: not open */
	bool holding;			/* readings not saved yet */
	bool unheld;			/* the lock was busy: unlocked until the save */
};

/*
 * Load the state from @state_dir (NULL: not kept).  A missing file starts
 * empty; bad lines are reported and dropped; a file that is no state file
 * is reported, set aside as state.bad and replaced.
 */
void acctd_init(struct acctd *ad, const char *state_dir,
		const char *metrics_path, double interval, double tnow);
/* Read every counted set once more, save, free. */
void acctd_fini(struct acctd *ad, struct sync_ctx *s);
/* Free the totals without reading or saving (a start that failed). */
void acctd_free(struct acctd *ad);

/* How the accounting follows the sync step; their context is the acctd. */
extern const struct sync_hooks acctd_sync_hooks;

/* --- the timer of the loop --- */
/* The next deadline, or 0 for none. */
double acctd_deadline(const struct acctd *ad);
/* Read, save and write the metrics when due. */
void acctd_tick(struct acctd *ad, struct sync_ctx *s, double tnow);

#endif
