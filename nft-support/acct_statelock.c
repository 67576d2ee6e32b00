// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util_clock.h"
#include "acct_statelock.h"

/*
 * O_NONBLOCK: a FIFO planted under the name must not block open(); the
 * file must be a regular one, and the daemon's own when it makes it.
 */
static int open_checked(const char *dir, int flags, bool own)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, STATE_LOCK_NAME) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (own && st.st_uid != geteuid())) {
		close(fd);
		return -EEXIST;
	}
	return fd;
}

int state_lock_create(const char *dir)
{
	return open_checked(dir, O_RDWR | O_CREAT, true);
}

int state_lock_open(const char *dir)
{
	return open_checked(dir, O_RDONLY, false);
}

int state_lock_take(int fd, int op, double timeout)
{
	const struct timespec pause = { 0, 2 * 1000 * 1000 };
	double until = now() + timeout;

	/* polled, not blocking: flock(2) has no timeout of its own */
	while (flock(fd, op | LOCK_NB)) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return -errno;
		if (now() >= until)
			return -EWOULDBLOCK;
		nanosleep(&pause, NULL);
	}
	return 0;
}

void state_lock_release(int fd)
{
	flock(fd, LOCK_UN);
}
