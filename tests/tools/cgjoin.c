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

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/*
 * Find a cgroup2 mount point; prefer one that shows the whole hierarchy
 * (mount root "/") over a bind mount of a subtree.  0 or -1.
 */
static int find_cgroup2(char *out, size_t outlen)
{
	char line[4096], best[PATH_MAX] = "";
	bool best_is_root = false;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		fprintf(stderr, "cg2net: /proc/self/mountinfo: %s\n",
			strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *field[6], *sep, *fstype, *save = NULL, *p = line;
		int i;

		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		fstype = strtok_r(sep + 3, " ", &save);
		if (!fstype || strcmp(fstype, "cgroup2"))
			continue;
		save = NULL;
		for (i = 0; i < 6; i++) {
			field[i] = strtok_r(p, " ", &save);
			p = NULL;
			if (!field[i])
				break;
		}
		if (i < 6)
			continue;
		/* field[3]: root of the mount, field[4]: mount point */
		if (best[0] && (best_is_root || strcmp(field[3], "/")))
			continue;
		unescape(field[4]);
		snprintf(best, sizeof(best), "%s", field[4]);
		best_is_root = !strcmp(field[3], "/");
	}
	fclose(f);
	if (!best[0]) {
		fprintf(stderr, "cg2net: no cgroup2 mount in /proc/self/mountinfo (mount one, or give --root)\n");
		return -1;
	}
	snprintf(out, outlen, "%s", best);
	return 0;
}

int cg_join(const char *root, const char *path)
{
	char mnt[PATH_MAX], dir[PATH_MAX], procs[PATH_MAX + 16];
	struct stat st;
	int fd, len, err;
	char pid[32];

	if (!root) {
		if (find_cgroup2(mnt, sizeof(mnt)))
			return -1;
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
