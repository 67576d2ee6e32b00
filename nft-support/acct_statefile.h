/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The accounting totals across daemon restarts: one text file,
 *
 *   nft-cgroupd-state 3
 *   boot BOOT_ID
 *   set FAMILY:TABLE:SET
 *   handle TABLE_HANDLE SET_HANDLE
 *   p LIVE_ID LAST_ID RESTARTS DONE_PKTS DONE_BYTES LIVE_PKTS LIVE_BYTES ELEM_PKTS ELEM_BYTES BASELINE IDLE_SINCE /PATH
 *
 * replaced atomically.  BOOT_ID is /proc/sys/kernel/random/boot_id when
 * saved, the handles the nf_tables ones of the set and its table at its
 * last reading, ELEM_*
 * the element's counter then, BASELINE 1 when the next reading is one
 * (accounting.h).  Versions 1 and 2 have neither boot nor handle lines and
 * 8 numbers per path (the element's counter is the live one); they are
 * still read.  Names are any bytes but NUL (and '/' in a path component):
 * in the file a backslash is "\\" and a byte below 0x20 or 0x7f is "\xHH"
 * (version 1 wrote them raw).  The file is read
 * as hostile input: a bad line is dropped, reported as FILE:LINE: reason,
 * and the rest is kept; only a file that is not a state file is refused.
 *
 * The limits below bound the reader, and the writer keeps within them.
 */
#ifndef NFTCG_STATEFILE_H
#define NFTCG_STATEFILE_H

#include <stddef.h>

#include "acct_store.h"

#define STATE_FILE_NAME		"state"
#define STATE_MAX_BYTES		(64 * 1024 * 1024)
#define STATE_MAX_SETS		4096
#define STATE_MAX_PATHS		(4 * ACCT_MAX_PATHS)	/* all sets together */
#define STATE_MAX_SET_NAME	(3 * 256)	/* "FAMILY:TABLE:SET" */
/* "p", 11 numbers of 20 digits, each escaped byte of a path as 4 */
#define STATE_MAX_LINE		(2 + 11 * 21 + 1 + 4 * ACCT_MAX_PATH_LEN)

/*
 * Write every set of @s to @path, within the limits above: past them, the
 * paths idle the longest are left out.  The number left out (0 when all
 * fit), or -errno.
 */
int state_save(const char *path, const struct acct_store *s);
/*
 * Read @path into the empty @s.  0 when read, bad lines dropped and logged
 * (the first one's reason in @err, else ""); -ENOENT when there is none;
 * other -errno with the reason in @err ("FILE:LINE: ...") and @s emptied.
 */
int state_load(const char *path, struct acct_store *s, char *err,
	       size_t errlen);
/* This boot's id into @buf (37 bytes at least); "" when it cannot be read. */
void state_boot_id(char *buf, size_t len);

#endif
