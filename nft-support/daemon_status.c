// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The daemon's state for people: STATUS= for systemctl status, and a dump
 * to the log on SIGUSR1 (journalctl -u nft-cgroupd shows it).
 */
#include <stdio.h>
#include <string.h>

#include "daemon_status.h"
#include "util_log.h"
#include "util_sdnotify.h"

/* systemd keeps STATUS= for display: one short line is enough. */
#define STATUS_MAX	512

static size_t count_in_sync(const struct daemon *d, size_t *ids)
{
	size_t i, n = 0;

	*ids = 0;
	for (i = 0; i < d->sync.n; i++) {
		const struct target *t = &d->sync.t[i];

		*ids += t->have.used;
		if (t->synced && !t->failed && !t->full && !t->dirty.used)
			n++;
	}
	return n;
}

/* The first failing set and why, to show the reason a set waits. */
static const struct target *first_failing(const struct daemon *d,
					  size_t *nfailed)
{
	const struct target *first = NULL;
	size_t i;

	*nfailed = 0;
	for (i = 0; i < d->sync.n; i++) {
		if (!d->sync.t[i].failed)
			continue;
		if (!first)
			first = &d->sync.t[i];
		(*nfailed)++;
	}
	return first;
}

void status_line(const struct daemon *d, char *buf, size_t size)
{
	const struct target *f;
	size_t ids, ok, nfailed;
	int len;

	if (!d->sync.n) {
		snprintf(buf, size, "no bindings");
		return;
	}
	ok = count_in_sync(d, &ids);
	f = first_failing(d, &nfailed);
	len = snprintf(buf, size, "%zu set%s: %zu in sync", d->sync.n,
		       d->sync.n == 1 ? "" : "s", ok);
	if (f && len > 0 && (size_t)len < size)
		len += snprintf(buf + len, size - len, ", %zu waiting (%s: %s%s)",
				nfailed, f->conf->name, f->lasterr,
				nfailed > 1 ? "; ..." : "");
	if (len > 0 && (size_t)len < size)
		snprintf(buf + len, size - len, "; %zu ids", ids);
}

void status_notify(const struct daemon *d)
{
	static char last[STATUS_MAX + 8];
	char msg[STATUS_MAX + 8];

	memcpy(msg, "STATUS=", 7);
	status_line(d, msg + 7, STATUS_MAX);
	/* systemd reads a newline as the end of the assignment */
	for (char *p = msg; *p; p++)
		if (*p == '\n')
			*p = ' ';
	if (!strcmp(msg, last))
		return;
	memcpy(last, msg, sizeof(last));
	sd_notify(msg);
}

static void dump_target(const struct target *t)
{
	double tn = now();
	size_t i;

	if (t->failed)
		info("state: set %s: waiting: %s; next try in %.1f s; holds %zu ids, wants %zu",
		     t->conf->name, t->lasterr,
		     t->retry_at > tn ? t->retry_at - tn : 0.0,
		     t->have.used, t->want.used);
	else if (!t->synced)
		info("state: set %s: not synced yet; wants %zu ids",
		     t->conf->name, t->want.used);
	else
		info("state: set %s: %s; holds %zu ids, wants %zu",
		     t->conf->name,
		     t->full || t->dirty.used ? "changes pending" : "in sync",
		     t->have.used, t->want.used);
	for (i = 0; i < t->conf->nb; i++)
		info("state:   binding %s (%s)%s", t->conf->b[i].spec,
		     t->conf->b[i].where,
		     t->bs[i].level_warned ?
		     ": no rule uses the set at a level that can match" : "");
}

void status_dump(const struct daemon *d)
{
	char line[STATUS_MAX];
	size_t i;

	status_line(d, line, sizeof(line));
	info("state: %s", line);
	info("state: cgroup root %s: %zu cgroups, %s", d->tree.root_path,
	     d->tree.count, d->tree.degraded ?
	     "some without an inotify watch (rescanned periodically)" :
	     "all watched");
	info("state: nf_tables events: %s; periodic rescan: %s",
	     monitor_fd(&d->mon) >= 0 ? "followed" : "not available",
	     d->rescan_at ? "armed" : "off");
	for (i = 0; i < d->sync.n; i++)
		dump_target(&d->sync.t[i]);
}
