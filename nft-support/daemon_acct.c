// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon_acct.h"
#include "nl_counters.h"
#include "util_log.h"
#include "acct_metrics.h"
#include "nl_set.h"
#include "cg_tree.h"
#include "acct_statefile.h"
#include "acct_statelock.h"
#include "util_clock.h"

/* Every path of the tree can be counted. */
_Static_assert(CGTREE_MAX_DEPTH * (NAME_MAX + 1) <= ACCT_MAX_PATH_LEN,
	       "ACCT_MAX_PATH_LEN below the longest path of the tree");

/* Totals changed: save this soon, not at every commit. */
#define SAVE_DELAY	1.0
/*
 * How long a reading waits for the state lock: --stats holds it for a few
 * milliseconds.  Past that the reading goes on unlocked: only the daemon's
 * user can hold the lock, but a reader stopped with ^Z must not stop us.
 */
#define LOCK_WAIT	0.1

static void load_state(struct acctd *ad)
{
	char err[600], bad[PATH_MAX + 8];
	int ret;

	ret = state_load(ad->state_path, &ad->store, err, sizeof(err));
	if (!ret || ret == -ENOENT)
		return;
	snprintf(bad, sizeof(bad), "%s.bad", ad->state_path);
	err("accounting state %s; set aside as %s, totals start from zero",
	    err, rename(ad->state_path, bad) ? "(failed)" : bad);
}

void acctd_init(struct acctd *ad, const char *state_dir,
		const char *metrics_path, double interval, double tnow)
{
	char boot[40];

	ad->metrics_path = metrics_path;
	ad->interval = interval;
	ad->lock_fd = -1;
	ad->tick_at = tnow + interval;
	state_boot_id(boot, sizeof(boot));
	if (state_dir) {
		snprintf(ad->state_dir, sizeof(ad->state_dir), "%s", state_dir);
		snprintf(ad->state_path, sizeof(ad->state_path), "%s/%s",
			 state_dir, STATE_FILE_NAME);
		load_state(ad);
	}
	if (acct_store_boot(&ad->store, boot))
		info("accounting state %s: saved in another boot: its ids departed, totals kept",
		     ad->state_path);
}

/* A target's totals outlive it in the store: a reload finds them again. */
static int acctd_attach(void *ctx, struct target *t)
{
	struct acctd *ad = ctx;

	t->acct = acct_store_get(&ad->store, t->conf->name);
	return t->acct ? 0 : -ENOMEM;
}

static void acctd_expect(void *ctx, struct target *t, const struct cgnode *n)
{
	char *rel;

	(void)ctx;
	if (!t->acct)
		return;
	rel = cgnode_path(n);
	if (!rel || acct_expect(t->acct, n->id, rel, &t->want))
		warn("%s: out of memory: id %llu is not counted", t->conf->name,
		     (unsigned long long)n->id);
	free(rel);
}

static void acctd_checked(void *ctx, struct target *t, bool counts)
{
	(void)ctx;
	if (!t->acct)
		return;
	if (counts != t->acct->counting)
		dbg("%s: %s per element", t->conf->name,
		    counts ? "counts" : "does not count");
	t->acct->counting = counts;
}

/* Observe every counter of @l. */
static void observe_all(struct acct *a, const struct counter_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		acct_observe(a, l->v[i].id, l->v[i].packets, l->v[i].bytes,
			     l->reset);
}

/*
 * A live id missing from a full reading: read its element alone before
 * taking it for gone, so that an element still there is never counted
 * twice.
 */
static void confirm_unseen(struct nfs *n, struct target *t)
{
	struct counter_list l = { 0 };
	uint64_t *ids;
	char err[512];
	size_t nids, i;
	int ret;

	ids = acct_unseen(t->acct, &nids);
	for (i = 0; i < nids; i++) {
		ret = nfs_read_elem_counters(n, t->conf->family,
					     t->conf->table, t->conf->set, true,
					     &ids[i], 1, &l, err, sizeof(err));
		observe_all(t->acct, &l);
		if (ret == -ENOENT) {
			acct_gone(t->acct, ids[i]);
			dbg("%s: id %llu is gone from the set (read alone)",
			    t->conf->name, (unsigned long long)ids[i]);
		} else if (ret) {
			dbg("%s: %s", t->conf->name, err);
		}
	}
	counter_list_free(&l);
	free(ids);
}

/*
 * Without systemd's StateDirectory=, the first save (or lock) makes the
 * directory.
 */
static int make_state_dir(const struct acctd *ad)
{
	if (mkdir(ad->state_dir, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

static int open_lock(const struct acctd *ad)
{
	int ret = make_state_dir(ad);

	return ret ? ret : state_lock_create(ad->state_dir);
}

/*
 * Before a reading: what it takes in is in the state file only after the
 * next save, which is due within SAVE_DELAY and releases the lock.  A lock
 * a reader keeps is waited for once until that save, not once a set.
 */
static void hold_unsaved(struct acctd *ad)
{
	int ret;

	if (!*ad->state_path || ad->holding || ad->unheld)
		return;
	if (ad->lock_fd < 0)
		ad->lock_fd = open_lock(ad);
	ret = ad->lock_fd < 0 ? ad->lock_fd :
		state_lock_take(ad->lock_fd, LOCK_EX, LOCK_WAIT);
	if (ret)
		dbg("accounting state lock: %s; reading unlocked",
		    strerror(-ret));
	ad->holding = !ret;
	ad->unheld = ret != 0;
	if (!ad->save_at)
		ad->save_at = now() + SAVE_DELAY;
}

/* Read the set with its counters and take them in. */
static int read_counted(struct acctd *ad, struct nfs *n, struct target *t,
			struct idset *ids, char *err, size_t errlen)
{
	struct counter_list l = { 0 };
	int ret;

	hold_unsaved(ad);
	ret = nfs_read_counters(n, t->conf->family, t->conf->table,
				t->conf->set, true, ids, &l, err, errlen);
	if (!ret) {
		if (acct_read_begin(t->acct, l.table_handle, l.set_handle,
				    l.moved))
			info("%s: the set was made anew (handles %llu %llu): this reading is a baseline, not counted",
			     t->conf->name, (unsigned long long)l.table_handle,
			     (unsigned long long)l.set_handle);
		observe_all(t->acct, &l);
		confirm_unseen(n, t);
		if (acct_depart_absent(t->acct, &t->want))
			dbg("%s: ids gone from the set and not wanted: departed",
			    t->conf->name);
	}
	counter_list_free(&l);
	return ret;
}

static bool counted(const struct target *t)
{
	return t->acct && t->acct->counting;
}

static int acctd_read_set(void *ctx, struct nfs *n, struct target *t,
			  char *err, size_t errlen)
{
	if (!counted(t))
		return nfs_read_set(n, t->conf->family, t->conf->table,
				    t->conf->set, &t->have, err, errlen);
	return read_counted(ctx, n, t, &t->have, err, errlen);
}

/* The ids of @del that have a path; NULL for none (or out of memory). */
static uint64_t *counted_ids(struct acct *a, const uint64_t *del, size_t ndel,
			     size_t *n)
{
	uint64_t *v = NULL;
	size_t i;

	*n = 0;
	for (i = 0; i < ndel; i++) {
		if (!acct_find_id(a, del[i]))
			continue;
		if (!v)
			v = malloc((ndel - i) * sizeof(*v));
		if (!v)
			return NULL;
		v[(*n)++] = del[i];
	}
	return v;
}

/*
 * Only the elements about to go are read, so that a delete costs the same
 * whatever the size of the set; when one of them is gone already (ENOENT),
 * the whole set is read instead.
 */
static void acctd_before_delete(void *ctx, struct nfs *n, struct target *t,
				const uint64_t *del, size_t ndel)
{
	struct counter_list l = { 0 };
	struct idset scratch = { 0 };
	uint64_t *ids;
	char err[512];
	size_t nids;
	int ret;

	if (!counted(t))
		return;
	ids = counted_ids(t->acct, del, ndel, &nids);
	if (!ids)
		return;	/* none of them is counted */
	hold_unsaved(ctx);
	ret = nfs_read_elem_counters(n, t->conf->family, t->conf->table,
				     t->conf->set, true, ids, nids, &l, err,
				     sizeof(err));
	observe_all(t->acct, &l);	/* also those read before a failure */
	if (ret && read_counted(ctx, n, t, &scratch, err, sizeof(err)))
		dbg("%s: %s; the last reading counts", t->conf->name, err);
	counter_list_free(&l);
	idset_free(&scratch);
	free(ids);
}

/* The ids the commit made: they count from zero. */
static void made(struct acct *a, const uint64_t *add, size_t nadd,
		 struct idset *out)
{
	size_t i;

	for (i = 0; i < nadd; i++) {
		if (idset_add(out, add[i]) < 0)
			break;	/* out of memory: the rest are baselines */
		acct_made(a, add[i]);
	}
}

static void acctd_committed(void *ctx, struct target *t, const uint64_t *add,
			    size_t nadd, const uint64_t *del, size_t ndel,
			    double tnow)
{
	struct acctd *ad = ctx;
	struct idset fresh = { 0 };
	size_t i;

	if (!t->acct)
		return;
	for (i = 0; i < ndel; i++)
		acct_depart(t->acct, del[i]);
	if (counted(t)) {
		made(t->acct, add, nadd, &fresh);
		acct_bind_added(t->acct, &t->have, &t->want, &fresh);
	} else {
		acct_drop_pending(t->acct);
	}
	idset_free(&fresh);
	if (t->acct->changed && !ad->save_at)
		ad->save_at = tnow + SAVE_DELAY;
}

const struct sync_hooks acctd_sync_hooks = {
	.attach = acctd_attach,
	.expect = acctd_expect,
	.checked = acctd_checked,
	.read_set = acctd_read_set,
	.before_delete = acctd_before_delete,
	.committed = acctd_committed,
};

double acctd_deadline(const struct acctd *ad)
{
	if (ad->save_at && ad->save_at < ad->tick_at)
		return ad->save_at;
	return ad->tick_at;
}

/* A periodic reading of every counted set that is in sync. */
static void read_all(struct acctd *ad, struct sync_ctx *s)
{
	struct idset scratch = { 0 };
	char err[512];
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct target *t = &s->t[i];

		if (!counted(t) || t->failed || !t->synced)
			continue;
		if (read_counted(ad, s->nfs, t, &scratch, err, sizeof(err)))
			dbg("%s: %s", t->conf->name, err);
	}
	idset_free(&scratch);
}

static void save_files(struct acctd *ad)
{
	bool changed = false;
	size_t i;
	int ret;

	for (i = 0; i < ad->store.n; i++) {
		changed |= ad->store.v[i]->changed;
		ad->store.v[i]->changed = false;
	}
	if (ad->metrics_path) {
		ret = metrics_write(ad->metrics_path, &ad->store);
		if (ret)
			warn("--metrics-file %s: %s", ad->metrics_path,
			     strerror(-ret));
	}
	if (!*ad->state_path || !changed)
		return;
	ret = make_state_dir(ad);
	if (!ret)
		ret = state_save(ad->state_path, &ad->store);
	if (ret > 0 && !ad->save_limited)
		warn("accounting state %s: at its limits (%d MiB, %d paths, %d sets): %d paths, those idle the longest, are not saved; after a restart they start from zero",
		     ad->state_path, STATE_MAX_BYTES >> 20, STATE_MAX_PATHS,
		     STATE_MAX_SETS, ret);
	ad->save_limited = ret > 0;
	if (ret > 0)
		ret = 0;
	if (ret && !ad->save_failed)
		err("accounting state %s: %s; totals are kept in memory and saved again at the next change",
		    ad->state_path, strerror(-ret));
	else if (!ret && ad->save_failed)
		info("accounting state %s saved again", ad->state_path);
	ad->save_failed = ret != 0;
	for (i = 0; ret && i < ad->store.n; i++)
		ad->store.v[i]->changed = true;
}

/* The state file holds every reading now: --stats may read. */
static void save(struct acctd *ad)
{
	save_files(ad);
	if (ad->holding)
		state_lock_release(ad->lock_fd);
	ad->holding = false;
	ad->unheld = false;
}

void acctd_tick(struct acctd *ad, struct sync_ctx *s, double tnow)
{
	if (tnow >= ad->tick_at) {
		read_all(ad, s);
		ad->tick_at = tnow + ad->interval;
		save(ad);
		ad->save_at = 0;
	} else if (ad->save_at && tnow >= ad->save_at) {
		save(ad);
		ad->save_at = 0;
	}
}

void acctd_fini(struct acctd *ad, struct sync_ctx *s)
{
	read_all(ad, s);
	save(ad);
	acctd_free(ad);
}

void acctd_free(struct acctd *ad)
{
	acct_store_free(&ad->store);
	if (ad->lock_fd >= 0)
		close(ad->lock_fd);
	ad->lock_fd = -1;
}
