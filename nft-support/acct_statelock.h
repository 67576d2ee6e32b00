/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The state file plus the sets' live counters add up to the daemon's
 * totals, but for the span between a reading the file does not hold yet
 * and the save after it: a reading that reset the counters (Linux 6.5),
 * or the reading before a delete (its element is gone from the set).  The
 * daemon holds DIR/state.lock exclusively over that span; --stats holds
 * it shared while it reads both, so it never shows less than was counted.
 *
 * flock(2): a daemon that dies releases it.  The file is the daemon's own,
 * mode 0600, so that only its user can hold it.
 */
#ifndef NFTCG_STATELOCK_H
#define NFTCG_STATELOCK_H

#define STATE_LOCK_NAME		"state.lock"

/* The daemon's: open DIR/state.lock, made if missing.  The fd, or -errno. */
int state_lock_create(const char *dir);
/* A reader's: open DIR/state.lock.  The fd, or -errno (-ENOENT: none). */
int state_lock_open(const char *dir);
/*
 * flock(2) @op (LOCK_EX or LOCK_SH) on @fd, waiting at most @timeout
 * seconds: 0, -EWOULDBLOCK when it did not come, or -errno.
 */
int state_lock_take(int fd, int op, double timeout);
void state_lock_release(int fd);

#endif
