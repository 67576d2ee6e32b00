/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * --stats [F:T:S]: the totals of the state file the daemon keeps, brought
 * up to date with the live counters of the sets.  No socket to the daemon:
 * it works while the daemon is stopped too, needs no protocol of its own,
 * and the daemon saves the state within a second of each change of ids.
 */
#ifndef NFTCG_STATSCMD_H
#define NFTCG_STATSCMD_H

#include "daemon_options.h"

/* Returns the exit status. */
int stats_command(const struct options *o);

#endif
