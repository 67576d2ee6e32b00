/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Is the cgroup root still mounted?  The daemon holds the root open, so a
 * moved or covered mount changes nothing for it; but after an unmount
 * (umount -l: the held fd keeps a plain umount busy) it would go on with a
 * tree nobody sees.  /proc/self/mountinfo polls POLLPRI on every change of
 * the mount table; then look for the root's mount id in it.
 */
#ifndef NFTCG_ROOTWATCH_H
#define NFTCG_ROOTWATCH_H

#include <stdint.h>

struct rootwatch {
	int fd;			/* /proc/self/mountinfo, or -1 */
	uint64_t mnt_id;	/* of the root's mount */
};

/* 0, or -errno when the mount table cannot be followed (then fd is -1). */
int rootwatch_open(struct rootwatch *w, int rootfd);
/* For poll(): POLLPRI when the mount table changed; -1 when not open. */
int rootwatch_fd(const struct rootwatch *w);
/* 1 while the root's mount is in our mount table, 0 once it is not. */
int rootwatch_attached(struct rootwatch *w);
void rootwatch_close(struct rootwatch *w);

#endif
