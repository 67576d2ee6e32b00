/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The daemon's one clock. */
#ifndef NFTCG_UTIL_CLOCK_H
#define NFTCG_UTIL_CLOCK_H

#include <time.h>

/* Monotonic seconds: every deadline in the daemon is on this clock. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
