// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The daemon's start (up to the initial sync) and its teardown. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cgroup2_user.h"
#include "cg_levels.h"
#include "daemon_main.h"
#include "util_log.h"

int daemon_load(const struct daemon *d, struct config *cfg)
{
	const struct options *o = &d->opt;
	char errbuf[4600], where[32];
	int ret = 0, i;

	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; i < o->nargs; i++) {
		snprintf(where, sizeof(where), "argument %d", i + 1);
		if (binding_add(cfg, o->args[i], where, errbuf,
				sizeof(errbuf))) {
			err("%s: %s", where, errbuf);
			ret = -1;
		}
	}
	if (o->config_file && config_load_file(cfg, o->config_file))
		ret = -1;
	if (!ret && !cfg->n) {
		if (!o->config_file) {
			err("no bindings (give FAMILY:TABLE:SET=PATTERN or --config)");
			ret = -1;
		} else {
			warn("%s has no bindings: nothing to do until it has (SIGHUP)",
			     o->config_file);
		}
	}
	if (ret)
		config_free(cfg);
	return ret;
}

/* --cgroup-root, or the cgroup2 mount.  0, or the exit status. */
static int find_root(const struct daemon *d, char *root, size_t size)
{
	int ret;

	if (d->opt.cgroup_root) {
		if (strlen(d->opt.cgroup_root) >= size) {
			err("--cgroup-root: path too long");
			return 2;
		}
		strcpy(root, d->opt.cgroup_root);
		return 0;
	}
	ret = cg2_find_mount(root, size);
	if (ret) {
		err("cannot find the cgroup2 mount: %s%s", strerror(-ret),
		    ret == -ENOENT ? " (is cgroup2 mounted? see --cgroup-root)" : "");
		return 1;
	}
	return 0;
}

/* Signals arrive as reads on d->sfd, handled by the loop like any fd. */
static int open_signals(struct daemon *d)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	d->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d->sfd < 0) {
		err("signalfd: %s", strerror(errno));
		return -1;
	}
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* nf_tables' events, so that sets changed by others are refilled at once. */
static void open_monitor(struct daemon *d)
{
	int ret;

	/* The tests' way to run without events (a failing open). */
	ret = getenv("NFT_CGROUPD_TEST_NO_EVENTS") ? -EPERM :
	      monitor_open(&d->mon, nfs_portid(&d->nfs));
	if (ret) {
		warn("cannot listen to nf_tables events (%s): sets changed by others are re-read every %g s",
		     strerror(-ret), d->opt.rescan_interval);
		monitor_close(&d->mon);
	}
}

static void find_root_level(struct daemon *d, const char *root)
{
	d->sync.root_level = cgroup_dir_level(root);
	if (d->sync.root_level < 0)
		warn("%s: cannot tell its level in the cgroup namespace; rule levels are not checked",
		     root);
	else
		dbg("%s is at level %d: rules need level %d + the pattern's depth",
		    root, d->sync.root_level, d->sync.root_level);
}

/* Scan the tree and fill every set once. */
static int initial_sync(struct daemon *d, const char *root)
{
	double t0, t1;
	int ret;

	t0 = now();
	ret = cgtree_open(&d->tree, root, &sync_tree_ops, &d->sync);
	if (ret) {
		err("%s: %s", root, strerror(-ret));
		return 1;
	}
	if (d->opt.mode == MODE_DAEMON && rootwatch_open(&d->rw, d->tree.rootfd))
		warn("%s: cannot follow the mount table; an unmount of the cgroup root goes unnoticed",
		     root);
	t1 = now();
	if (d->opt.mode == MODE_CHECK)
		return 0;	/* a dry run: check.c reads and diffs */
	/* A failing binding is retried; only --once turns it into the status. */
	sync_all(&d->sync, true);
	info("initial sync: %zu cgroups below %s, %zu sets, scan %.1f ms, total %.1f ms",
	     d->tree.count, root, d->sync.n, (t1 - t0) * 1e3,
	     (now() - t0) * 1e3);
	sync_warn_unmatched(&d->sync, root);
	return 0;
}

static int daemon_setup(struct daemon *d)
{
	char root[PATH_MAX];
	bool commits;
	int ret;

	/* Every pattern is checked before anything touches the kernel. */
	if (daemon_load(d, &d->cfg))
		return 2;
	/* Only the modes that commit keep totals: nothing else saves. */
	commits = d->opt.mode == MODE_DAEMON || d->opt.mode == MODE_ONCE;
	acctd_init(&d->acct, commits ? d->opt.state_dir : NULL,
		   commits ? d->opt.metrics_file : NULL,
		   d->opt.stats_interval, now());
	d->sync = (struct sync_ctx){
		.nfs = &d->nfs,
		.hooks = &acctd_sync_hooks,
		.hooks_ctx = &d->acct,
		.root_level = -1,
		.retry_interval = d->opt.retry_interval,
		.once = d->opt.mode == MODE_ONCE,
	};
	if (sync_adopt(&d->sync, &d->cfg)) {
		err("%s", strerror(ENOMEM));
		return 1;
	}
	ret = find_root(d, root, sizeof(root));
	if (ret)
		return ret;
	if (open_signals(d))
		return 1;
	ret = nfs_open(&d->nfs);
	if (ret) {
		err("netlink: %s", strerror(-ret));
		return 1;
	}
	if (d->opt.mode == MODE_DAEMON)
		open_monitor(d);
	find_root_level(d, root);
	return initial_sync(d, root);
}

/* Free what daemon_setup() got, however far it went. */
static void daemon_release(struct daemon *d)
{
	cgtree_close(&d->tree);
	rootwatch_close(&d->rw);
	monitor_close(&d->mon);
	sync_free(&d->sync);
	acctd_free(&d->acct);
	nfs_close(&d->nfs);
	config_free(&d->cfg);
	if (d->sfd >= 0)
		close(d->sfd);
	d->sfd = -1;
}

int daemon_init(struct daemon *d)
{
	int ret;

	/* No fd is open yet: 0 is stdin, not ours to close on failure. */
	d->sfd = -1;
	d->rw.fd = -1;
	d->tree.ifd = -1;
	d->tree.rootfd = -1;
	d->acct.lock_fd = -1;
	ret = daemon_setup(d);
	if (ret)
		daemon_release(d);
	return ret;
}

void daemon_fini(struct daemon *d)
{
	/* The last counter readings need the netlink socket: first. */
	acctd_fini(&d->acct, &d->sync);
	daemon_release(d);
}
