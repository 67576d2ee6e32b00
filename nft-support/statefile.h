/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The accounting totals across daemon restarts: one text file,
 *
 *   nft-cgroupd-state 1
 *   set FAMILY:TABLE:SET
 *   p LIVE_ID LAST_ID RESTARTS DONE_PKTS DONE_BYTES LIVE_PKTS LIVE_BYTES IDLE_SINCE /PATH
 *
 * replaced atomically.  It is read as hostile input: bounded in size, line
 * length and entries; every fault is reported as FILE:LINE: reason.
 */
#ifndef NFTCG_STATEFILE_H
#define NFTCG_STATEFILE_H

#include <stddef.h>

#include "accounting.h"

#define STATE_FILE_NAME		"state"
#define STATE_MAX_BYTES		(64 * 1024 * 1024)
#define STATE_MAX_LINE		8192	/* a path is below 4096 bytes */
#define STATE_MAX_SETS		4096
#define STATE_MAX_PATHS		(4 * ACCT_MAX_PATHS)	/* all sets together */

/* Write every set of @s to @path.  0 or -errno. */
int state_save(const char *path, const struct acct_store *s);
/*
 * Read @path into the empty @s.  0; -ENOENT when there is none; other
 * -errno with the reason in @err ("FILE:LINE: ...") and @s emptied.
 */
int state_load(const char *path, struct acct_store *s, char *err,
	       size_t errlen);

#endif
