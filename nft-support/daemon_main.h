/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The daemon: its parts and their event sources.  Init and teardown in
 * daemon_main.c, the event loop in daemon_loop.c; the sets are kept by
 * the sync step (daemon_sync.h), which sees only d->sync.
 */
#ifndef NFTCG_DAEMON_H
#define NFTCG_DAEMON_H

#include <stdbool.h>

#include "cg_rootwatch.h"
#include "cg_tree.h"
#include "daemon_acct.h"
#include "daemon_config.h"
#include "daemon_options.h"
#include "daemon_sync.h"
#include "nl_monitor.h"
#include "nl_query.h"
#include "util_clock.h"

struct daemon {
	struct options opt;
	struct config cfg;	/* as loaded: the bindings */
	struct sync_ctx sync;	/* the sets at run time, over cfg */
	struct cgtree tree;
	struct nfs nfs;
	struct monitor mon;
	struct rootwatch rw;	/* is the root's mount still there */
	struct acctd acct;	/* traffic per cgroup path */
	int sfd;		/* signalfd: SIGHUP, SIGUSR1, SIGTERM, SIGINT */
	double rescan_at;	/* absolute (monotonic) deadline, 0 for none */
	double watchdog_every;	/* seconds between WATCHDOG=1, 0 for none */
	double watchdog_at;	/* the next one's deadline */
	bool quit;		/* a stop was requested */
};

/*
 * Load the bindings of the command line and the config file into @cfg;
 * errors are printed.  0 or -1.
 */
int daemon_load(const struct daemon *d, struct config *cfg);
/* Everything up to the initial scan.  0, or the exit status on failure. */
int daemon_init(struct daemon *d);
void daemon_fini(struct daemon *d);

/* Serve events until a stop is requested (0) or a fatal error (1). */
int daemon_loop(struct daemon *d);

#endif
