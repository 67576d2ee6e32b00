// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "daemon_config.h"
#include "nl_counters.h"
#include "util_family.h"
#include "util_log.h"
#include "nl_set.h"
#include "acct_statefile.h"
#include "acct_statelock.h"
#include "acct_stats.h"
#include "cmd_stats.h"

/* The set named by the argument (a binding's "=PATTERN" is ignored). */
static int parse_only(const struct options *o, char *name, size_t size)
{
	char table[NFTCG_NAME_MAX], set[NFTCG_NAME_MAX], msg[4600];
	const char *arg;
	int family;

	if (o->nargs > 1) {
		err("--stats: one set at most");
		return -1;
	}
	arg = o->nargs ? o->args[0] : NULL;
	if (!arg) {
		*name = '\0';
		return 0;
	}
	if (target_parse(arg, strcspn(arg, "="), &family, table, set, msg,
			 sizeof(msg))) {
		err("--stats: %s", msg);
		return -1;
	}
	snprintf(name, size, "%s:%s:%s", family_name(family), table, set);
	return 0;
}

/* Bring @a up to date with the set's counters, when it can be read. */
static void read_live(struct nfs *n, struct acct *a)
{
	char table[NFTCG_NAME_MAX], set[NFTCG_NAME_MAX], msg[4600];
	struct counter_list l = { 0 };
	struct idset ids = { 0 };
	int family;
	size_t i;

	if (target_parse(a->name, strlen(a->name), &family, table, set, msg,
			 sizeof(msg)))
		return;
	if (nfs_read_counters(n, family, table, set, false, &ids, &l, msg,
			      sizeof(msg))) {
		warn("%s: %s; showing the totals last saved", a->name, msg);
	} else {
		acct_read_begin(a, l.table_handle, l.set_handle, l.moved);
		for (i = 0; i < l.n; i++)
			acct_observe(a, l.v[i].id, l.v[i].packets, l.v[i].bytes,
				     false);
	}
	counter_list_free(&l);
	idset_free(&ids);
}

/*
 * How long --stats waits for the daemon's save of readings it holds: the
 * save is due a second after the reading.
 */
#define STATS_LOCK_WAIT	3.0

/*
 * The state lock, shared, or -1 when there is none to take: no daemon of
 * this version made it, or it is not ours to open.
 */
static int wait_for_save(const struct options *o)
{
	int fd, ret;

	fd = state_lock_open(o->state_dir);
	if (fd < 0)
		return -1;
	ret = state_lock_take(fd, LOCK_SH, STATS_LOCK_WAIT);
	if (ret == -EWOULDBLOCK)
		warn("%s/%s: the daemon has held readings unsaved for %g s; the totals may lack them",
		     o->state_dir, STATE_LOCK_NAME, STATS_LOCK_WAIT);
	else if (ret)
		warn("%s/%s: %s; the totals may lack the daemon's last readings",
		     o->state_dir, STATE_LOCK_NAME, strerror(-ret));
	return fd;
}

static int load(const struct options *o, struct acct_store *s)
{
	char path[4200], msg[600];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", o->state_dir, STATE_FILE_NAME);
	ret = state_load(path, s, msg, sizeof(msg));
	if (ret == -ENOENT)
		err("%s: no accounting state (does the daemon run with a set declared with \"counter\"? see --state-dir)",
		    path);
	else if (ret)
		err("%s", msg);
	return ret;
}

/* The saved totals, brought up to date with the live counters: 0 or 1. */
static int read_totals(const struct options *o, struct acct_store *s,
		       const char *only)
{
	char boot[40];
	struct nfs nfs;
	size_t i;
	int ret;

	if (load(o, s))
		return 1;
	state_boot_id(boot, sizeof(boot));
	acct_store_boot(s, boot);
	if (*only && !acct_store_find(s, only)) {
		err("--stats: no accounting for %s", only);
		return 1;
	}
	ret = nfs_open(&nfs);
	if (ret) {
		warn("netlink: %s; showing the totals last saved", strerror(-ret));
		return 0;
	}
	for (i = 0; i < s->n; i++)
		if (!*only || !strcmp(s->v[i]->name, only))
			read_live(&nfs, s->v[i]);
	nfs_close(&nfs);
	return 0;
}

int stats_command(const struct options *o)
{
	struct acct_store s = { 0 };
	char only[3 * NFTCG_NAME_MAX];
	int ret, lock;

	if (parse_only(o, only, sizeof(only)))
		return 2;
	/* the state file and the live counters, read under one lock */
	lock = wait_for_save(o);
	ret = read_totals(o, &s, only);
	if (lock >= 0)
		close(lock);
	if (!ret)
		stats_print(stdout, &s, *only ? only : NULL, o->json);
	acct_store_free(&s);
	return ret;
}
