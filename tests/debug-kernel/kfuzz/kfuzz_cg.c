// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroups the fuzzer sends from.  A socket keeps the cgroup of the task
 * that created it, so the fuzzer joins each cgroup in turn, opens one UDP
 * socket per family there (connected to its own sink on loopback), and
 * goes back to where it started: then a send on socket I is a packet from
 * cgroup I, with no helper processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "cgroup2_user.h"
#include "kfuzz.h"

/* Names the seeds and glob tokens aim at, and some that globs trip on. */
static const char *const paths[] = {
	"", "fz", "fz/a", "fz/a/b", "fz/b", "fz/web.service",
	"fz/app-1.scope", "fz/app-x.scope", "fz/x/y/deep", "fz/x/y",
	"sys.slice", "sys.slice/web.service", "sys.slice/app-7.scope",
	"fz/we*b", "fz/[x]", "fz/{a,b}", "fz/back\\slash", "fz/.hidden",
	"fz/a/b/c/d/e/f/g/h", "abc",
};

#define NPATHS (sizeof(paths) / sizeof(*paths))
#define PORT 19417

static char mnt[PATH_MAX];

static int join(const char *path)
{
	char procs[PATH_MAX + 64], pid[32];
	int fd, len, ok;

	snprintf(procs, sizeof(procs), "%s/%s/cgroup.procs", mnt, path);
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	ok = write(fd, pid, len) == len;
	close(fd);
	return ok ? 0 : -errno;
}

static int make_all(void)
{
	char dir[PATH_MAX + 64];
	unsigned int i;
	char *s;

	for (i = 1; i < NPATHS; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", mnt, paths[i]);
		for (s = dir + strlen(mnt) + 1; (s = strchr(s, '/')); s++) {
			*s = '\0';
			mkdir(dir, 0755);
			*s = '/';
		}
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
	}
	return 0;
}

/* A UDP socket on loopback port PORT: bound (the sink) or connected. */
static int loopback_udp(int fam, bool bound)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(PORT) };
	int fd = socket(fam ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int (*to)(int, const struct sockaddr *, socklen_t) = bound ? bind : connect;
	int ok;

	if (fd < 0)
		return -errno;
	a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a6.sin6_addr = in6addr_loopback;
	ok = fam ? to(fd, (void *)&a6, sizeof(a6)) : to(fd, (void *)&a4, sizeof(a4));
	return ok < 0 ? -errno : fd;
}

int kf_cgroups_setup(struct kf_cgroups *c)
{
	unsigned int i;
	int fam, ret;

	ret = cg2_find_mount(mnt, sizeof(mnt));
	if (ret)
		return ret;
	ret = make_all();
	if (ret)
		return ret;
	c->path = (const char **)paths;
	c->n = NPATHS;
	for (fam = 0; fam < 2; fam++) {
		c->sock[fam] = calloc(NPATHS, sizeof(int));
		if (!c->sock[fam])
			return -ENOMEM;
		c->sink[fam] = loopback_udp(fam, true);
		if (c->sink[fam] < 0)
			return c->sink[fam];
	}
	for (i = 0; i < NPATHS; i++) {
		ret = join(paths[i]);
		for (fam = 0; !ret && fam < 2; fam++) {
			c->sock[fam][i] = loopback_udp(fam, false);
			if (c->sock[fam][i] < 0)
				ret = c->sock[fam][i];
		}
		if (ret) {
			fprintf(stderr, "cg2kfuzz: cgroup '%s': %s\n", paths[i], strerror(-ret));
			return ret;
		}
	}
	return join("");
}

void kf_cgroups_teardown(struct kf_cgroups *c)
{
	char dir[PATH_MAX + 64];
	unsigned int i;
	int fam;

	for (fam = 0; fam < 2; fam++) {
		for (i = 0; i < c->n; i++)
			close(c->sock[fam][i]);
		free(c->sock[fam]);
		close(c->sink[fam]);
	}
	/* Deepest first: the list names children after their parents. */
	for (i = c->n; i-- > 1; ) {
		snprintf(dir, sizeof(dir), "%s/%s", mnt, paths[i]);
		while (rmdir(dir) == 0 && strrchr(dir, '/') > dir + strlen(mnt))
			*strrchr(dir, '/') = '\0';
	}
}

int kf_send(struct kf_cgroups *c, int fam, unsigned int i)
{
	char buf[64];

	if (send(c->sock[fam][i], "kfuzz", 5, 0) != 5)
		return -errno;
	/* Drain: a full sink would drop, and nothing else may send here. */
	while (recv(c->sink[fam], buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	return 0;
}
