// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The event loop: one handler per file descriptor (signals, inotify,
 * nf_tables events, the mount table), then one sync of everything pending.
 * Timers are absolute deadlines in the daemon (and per set), so that no
 * stream of events defers them.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "daemon_main.h"
#include "daemon_status.h"
#include "util_log.h"
#include "util_sdnotify.h"

/* What a handler tells the loop. */
enum { GO_ON = 0, STOP_FAILED = 1 };

/* --- SIGHUP: reload (SIGUSR1: a state dump, SIGTERM and SIGINT: stop) --- */

static void reload(struct daemon *d)
{
	struct config cfg;

	sd_notify_reloading();
	info("reloading %s", d->opt.config_file ? d->opt.config_file : "bindings");
	if (daemon_load(d, &cfg)) {
		err("reload failed; keeping the current bindings");
		sd_notify("READY=1");
		return;
	}
	/* The sets whose bindings stay keep what the daemon knows of them. */
	if (sync_adopt(&d->sync, &cfg)) {
		err("reload failed: out of memory; keeping the current bindings");
		config_free(&cfg);
		sd_notify("READY=1");
		return;
	}
	config_free(&d->cfg);
	d->cfg = cfg;
	cgtree_rescan(&d->tree);
	sync_fill(&d->sync, &d->tree);
	sync_mark_full(&d->sync, true);
	sync_all(&d->sync, true);
	sync_warn_unmatched(&d->sync, d->tree.root_path);
	sd_notify("READY=1");
}

static int on_signal(struct daemon *d, short revents)
{
	struct signalfd_siginfo si;

	(void)revents;
	while (read(d->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			reload(d);
		} else if (si.ssi_signo == SIGUSR1) {
			status_dump(d);
		} else {
			info("signal %u: exiting", si.ssi_signo);
			d->quit = true;
		}
	}
	return GO_ON;
}

/* --- inotify: cgroups made and removed --- */

static int on_inotify(struct daemon *d, short revents)
{
	int ret;

	(void)revents;
	ret = cgtree_process(&d->tree);
	if (ret) {
		err("inotify: %s", strerror(-ret));
		return STOP_FAILED;
	}
	return GO_ON;
}

/* --- nf_tables events: sets and rules changed by others --- */

static void on_nft_change(void *ctx, int family, const char *table,
			  const char *set, bool rules)
{
	struct daemon *d = ctx;
	size_t i;

	if (!table)
		info("nf_tables events lost (receive buffer full): re-reading every set");
	for (i = 0; i < d->sync.n; i++) {
		struct target *t = &d->sync.t[i];

		if (table && (t->conf->family != family ||
			      strcmp(t->conf->table, table) ||
			      (set && strcmp(t->conf->set, set))))
			continue;
		if (rules) {
			t->rules_changed = true;
			continue;
		}
		dbg("%s: changed by someone else; re-reading", t->conf->name);
		t->full = true;
		t->checked = false;
		t->retry_at = 0;
	}
}

static int on_monitor(struct daemon *d, short revents)
{
	(void)revents;
	monitor_process(&d->mon, on_nft_change, d);
	return GO_ON;
}

/* --- the mount table: is the cgroup root still mounted --- */

/*
 * An unmounted root: exit non-zero and leave the sets alone, so that a
 * restart (systemd's Restart=) starts over from the tree as mounted then.
 */
static int on_mounts(struct daemon *d, short revents)
{
	if ((revents & (POLLPRI | POLLERR)) && !rootwatch_attached(&d->rw)) {
		err("cgroup root %s was unmounted; exiting, the sets keep their content",
		    d->tree.root_path);
		return STOP_FAILED;
	}
	return GO_ON;
}

/* --- timers --- */

/*
 * A periodic rescan is due while some directory has no watch (the inotify
 * limit) and, without nf_tables events, to catch changes made by others.
 * The deadline is set once and kept until it passes.
 */
static void arm_rescan(struct daemon *d)
{
	bool want = d->tree.degraded || monitor_fd(&d->mon) < 0;

	if (!want)
		d->rescan_at = 0;
	else if (!d->rescan_at)
		d->rescan_at = now() + d->opt.rescan_interval;
}

/* The earliest deadline, as a poll() timeout in ms; -1 for none. */
static int poll_timeout(struct daemon *d)
{
	double wake = -1, tn = now();
	size_t i;

	arm_rescan(d);
	for (i = 0; i < d->sync.n; i++) {
		struct target *t = &d->sync.t[i];

		if ((t->failed || t->full || t->dirty.used) &&
		    (wake < 0 || t->retry_at < wake))
			wake = t->retry_at;
	}
	if (d->rescan_at && (wake < 0 || d->rescan_at < wake))
		wake = d->rescan_at;
	if (wake < 0 || acctd_deadline(&d->acct) < wake)
		wake = acctd_deadline(&d->acct);
	if (d->watchdog_every && (wake < 0 || d->watchdog_at < wake))
		wake = d->watchdog_at;
	if (wake < 0)
		return -1;
	return wake <= tn ? 0 : (int)((wake - tn) * 1000) + 1;
}

/* After an event overflow, or when the periodic rescan is due. */
static void maybe_rescan(struct daemon *d)
{
	if (!d->tree.overflow && !(d->rescan_at && now() >= d->rescan_at))
		return;
	if (d->tree.overflow)
		warn("inotify queue overflow: rescanning the cgroup tree and re-reading the sets");
	else
		dbg("periodic rescan: %s", d->tree.degraded ?
		    "directories without a watch" : "no nf_tables events");
	d->rescan_at = 0;
	cgtree_rescan(&d->tree);
	sync_mark_full(&d->sync, true);
	sync_all(&d->sync, true);
	arm_rescan(d);
}

/* The cgroup root removed (its watch gone): as for an unmount. */
static bool root_removed(struct daemon *d)
{
	if (!d->tree.lost)
		return false;
	err("cgroup root %s is gone (removed, or its file system unmounted); exiting, the sets keep their content",
	    d->tree.root_path);
	return true;
}

/*
 * WatchdogSec=: one WATCHDOG=1 per turn of the loop at most every half
 * period, so that a loop stuck anywhere (a blocking open, a busy handler)
 * gets the daemon restarted.
 */
static void watchdog_kick(struct daemon *d)
{
	double tn;

	if (!d->watchdog_every)
		return;
	tn = now();
	if (tn < d->watchdog_at)
		return;
	sd_notify("WATCHDOG=1");
	d->watchdog_at = tn + d->watchdog_every;
}

/* --- the loop --- */

struct fd_handler {
	int fd;
	short events;		/* to poll for */
	short wake;		/* revents that run the handler */
	int (*handle)(struct daemon *d, short revents);
};

enum { FD_SIGNAL, FD_INOTIFY, FD_MONITOR, FD_MOUNTS, NR_FDS };

static void fill_handlers(struct daemon *d, struct fd_handler *h)
{
	h[FD_SIGNAL] = (struct fd_handler){ d->sfd, POLLIN, POLLIN, on_signal };
	h[FD_INOTIFY] = (struct fd_handler){ d->tree.ifd, POLLIN, POLLIN,
					     on_inotify };
	h[FD_MONITOR] = (struct fd_handler){ monitor_fd(&d->mon), POLLIN,
					     POLLIN, on_monitor };
	h[FD_MOUNTS] = (struct fd_handler){ rootwatch_fd(&d->rw), POLLPRI,
					    POLLPRI | POLLERR, on_mounts };
}

/* Wait, then run the handler of each fd that is ready. */
static int dispatch(struct daemon *d)
{
	struct fd_handler h[NR_FDS];
	struct pollfd pfd[NR_FDS];
	int i, ret;

	fill_handlers(d, h);
	for (i = 0; i < NR_FDS; i++)
		pfd[i] = (struct pollfd){ .fd = h[i].fd, .events = h[i].events };
	if (poll(pfd, NR_FDS, poll_timeout(d)) < 0 && errno != EINTR) {
		err("poll: %s", strerror(errno));
		return STOP_FAILED;
	}
	for (i = 0; i < NR_FDS; i++) {
		if (!(pfd[i].revents & h[i].wake))
			continue;
		ret = h[i].handle(d, pfd[i].revents);
		if (ret != GO_ON)
			return ret;
	}
	return GO_ON;
}

int daemon_loop(struct daemon *d)
{
	int status = 0;

	sd_notify("READY=1");
	status_notify(d);
	d->watchdog_every = sd_watchdog_interval();
	while (!d->quit) {
		watchdog_kick(d);
		status = dispatch(d);
		if (status != GO_ON)
			break;
		maybe_rescan(d);
		if (root_removed(d)) {
			status = 1;
			break;
		}
		/* All pending changes, one transaction per set. */
		sync_all(&d->sync, false);
		sync_rules_changed(&d->sync);
		status_notify(d);
		acctd_tick(&d->acct, &d->sync, now());
	}
	sd_notify("STOPPING=1");
	return status;
}
