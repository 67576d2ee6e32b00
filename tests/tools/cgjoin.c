// SPDX-License-Identifier: GPL-2.0
/*
 * Join a cgroup v2 by writing our pid to PATH/cgroup.procs.  Creates
 * nothing: the test makes the cgroup.  The cgroup2 mount is found in
 * /proc/self/mountinfo unless the caller names it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <fcntl.h>

#include "cg2net.h"
#include "cgroup2_user.h"

int cg_join(const char *root, const char *path)
{
	char mnt[PATH_MAX], dir[PATH_MAX], procs[PATH_MAX + 16];
	struct stat st;
	int fd, len, err;
	char pid[32];

	if (!root) {
		err = cg2_find_mount(mnt, sizeof(mnt));
		if (err) {
			fprintf(stderr, "cg2net: no cgroup2 mount in /proc/self/mountinfo (%s): mount one, or give --root\n",
				strerror(-err));
			return -1;
		}
		root = mnt;
	}
	while (*path == '/')
		path++;
	if (snprintf(dir, sizeof(dir), "%s/%s", root, path) >= (int)sizeof(dir)) {
		fprintf(stderr, "cg2net: cgroup path too long\n");
		return -1;
	}
	if (stat(dir, &st) < 0) {
		fprintf(stderr, "cg2net: cannot join cgroup '%s': %s: %s\n",
			path, dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "cg2net: cannot join cgroup '%s': %s: not a directory\n",
			path, dir);
		return -1;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "cg2net: cannot join cgroup '%s': %s: %s%s\n",
			path, procs, strerror(errno),
			errno == ENOENT ? " (is this a cgroup2 mount?)" : "");
		return -1;
	}
	len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (write(fd, pid, len) != len) {
		err = errno;
		close(fd);
		fprintf(stderr, "cg2net: cannot join cgroup '%s': write %s: %s%s\n",
			path, procs, strerror(err),
			err == EBUSY ? " (controllers enabled in its cgroup.subtree_control: a cgroup with child controllers holds no processes)" : "");
		return -1;
	}
	close(fd);
	return 0;
}
