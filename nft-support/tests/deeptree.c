// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * deeptree mk DIR N: create DIR/d/d/.../d, N levels below DIR.
 * deeptree rm DIR:   remove that chain again, deepest first.
 * Each step is relative to the previous directory (mkdirat, openat), so the
 * depth is not bounded by PATH_MAX; the shell cannot do that.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DFLAGS	(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

static int mk(int fd, long n)
{
	long i;
	int nfd;

	for (i = 0; i < n; i++) {
		if (mkdirat(fd, "d", 0755) && errno != EEXIST) {
			fprintf(stderr, "deeptree: mkdir at level %ld: %s\n",
				i + 1, strerror(errno));
			return 1;
		}
		nfd = openat(fd, "d", DFLAGS);
		close(fd);
		if (nfd < 0) {
			fprintf(stderr, "deeptree: open at level %ld: %s\n",
				i + 1, strerror(errno));
			return 1;
		}
		fd = nfd;
	}
	close(fd);
	return 0;
}

/* Down to the bottom, then up through "..": two fds whatever the depth. */
static int rm(int fd)
{
	long depth = 0;
	int nfd;

	while ((nfd = openat(fd, "d", DFLAGS)) >= 0) {
		close(fd);
		fd = nfd;
		depth++;
	}
	while (depth--) {
		nfd = openat(fd, "..", DFLAGS);
		close(fd);
		if (nfd < 0 || unlinkat(nfd, "d", AT_REMOVEDIR)) {
			fprintf(stderr, "deeptree: rmdir: %s\n", strerror(errno));
			return 1;
		}
		fd = nfd;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	bool is_mk = argc == 4 && !strcmp(argv[1], "mk");
	bool is_rm = argc == 3 && !strcmp(argv[1], "rm");
	int fd;

	if (!is_mk && !is_rm) {
		fprintf(stderr, "usage: deeptree mk DIR N | deeptree rm DIR\n");
		return 2;
	}
	fd = open(argv[2], DFLAGS);
	if (fd < 0) {
		fprintf(stderr, "deeptree: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	return is_mk ? mk(fd, atol(argv[3])) : rm(fd);
}
