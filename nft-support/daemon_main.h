/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The daemon's state, shared by its parts: init and teardown (daemon.c),
 * the event loop (loop.c) and the reconciliation of sets (reconcile.c).
 */
#ifndef NFTCG_DAEMON_H
#define NFTCG_DAEMON_H

#include <stdbool.h>

#include "daemon_acct.h"
#include "daemon_config.h"
#include "nl_monitor.h"
#include "nl_set.h"
#include "daemon_options.h"
#include "cg_rootwatch.h"
#include "cg_tree.h"

struct daemon {
	struct options opt;
	struct config cfg;
	struct cgtree tree;
	struct nfs nfs;
	struct monitor mon;
	struct rootwatch rw;	/* is the root's mount still there */
	struct acctd acct;	/* traffic per cgroup path */
	int sfd;		/* signalfd: SIGHUP, SIGUSR1, SIGTERM, SIGINT */
	double rescan_at;	/* absolute (monotonic) deadline, 0 for none */
	double watchdog_every;	/* seconds between WATCHDOG=1, 0 for none */
	double watchdog_at;	/* the next one's deadline */
	int root_level;		/* of the cgroup root in our cgroup ns, or -1 */
	bool quit;		/* a stop was requested */
};

/* Monotonic seconds: every deadline in the daemon is on this clock. */
double now(void);

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
