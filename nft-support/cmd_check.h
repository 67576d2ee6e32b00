/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* --check: what a sync would change in each set, committing nothing. */
#ifndef NFTCG_CHECK_H
#define NFTCG_CHECK_H

#include "daemon_main.h"

/* Exit status of --check: a diff(1)-like convention, for CI. */
#define CHECK_IN_SYNC	0	/* every set holds exactly what it should */
#define CHECK_CHANGES	1	/* some set would change */
#define CHECK_TROUBLE	2	/* some set cannot be read (missing, wrong type) */

/* Print, per set, the ids a sync would add and remove.  The exit status. */
int check_run(struct daemon *d);

#endif
