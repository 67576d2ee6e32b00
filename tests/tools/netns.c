// SPDX-License-Identifier: GPL-2.0
/*
 * Enter a network namespace, as "nsenter --net=FILE" does: NAME is a
 * name of "ip netns add" (/run/netns/NAME), or a path if it has a '/'.
 * Only the network namespace changes: the mounts stay, so the cgroup2
 * mount stays where cg_join finds it ("ip netns exec" remounts /sys).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cg2net.h"

int netns_enter(const char *name)
{
	const char *dir = strchr(name, '/') ? "" : "/run/netns/";
	char path[PATH_MAX];
	int fd, err = 0;

	if (snprintf(path, sizeof(path), "%s%s", dir, name) >= (int)sizeof(path))
		err = ENAMETOOLONG;
	fd = err ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "cg2net: cannot enter network namespace %s: %s\n",
			name, strerror(err ? err : errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
