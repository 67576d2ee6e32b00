// SPDX-License-Identifier: GPL-2.0
/*
 * cgspray: UDP from many cgroups at once, for the verdict cache's test and
 * benchmark.  Reads cgroup directories (absolute paths), one a line, from
 * stdin; joins each in turn and opens one UDP socket there (a socket keeps
 * the cgroup it was created in), then returns to its first cgroup.  Then,
 * ROUNDS times, sends COUNT datagrams to ADDR:PORT taking the sockets in
 * turn, and prints the round's cost:
 *
 *     cgspray ADDR PORT COUNT ROUNDS <DIRS
 *     round 1: 100000 datagrams, 1234 ns/datagram
 *     median 1234 ns/datagram
 *
 * With CGSPRAY_BEFORE set, that shell command runs before each round, with
 * CGSPRAY_ROUND set to the round's number (benchmarks change rules there).
 *
 * With COUNT 0 nothing is sent: the sockets are left open across exec and
 * CGSPRAY_BEFORE runs once, with CGSPRAY_FDS=FIRST-LAST naming them (for
 * the in-kernel benchmark, which takes a writer's sockets by number).
 *
 * With "fresh" in place of COUNT ROUNDS, each directory read is created,
 * joined, and one datagram sent from a socket opened there and closed:
 * what a user who makes cgroups to be judged does, without a fork in the
 * way.  The whole loop is timed:
 *
 *     cgspray ADDR PORT fresh <DIRS
 *     200 fresh cgroups, 123456 ns/cgroup
 *
 * Exit 0 when every datagram went out; 1 with a reason on stderr if not.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 100

static int die(const char *what)
{
	fprintf(stderr, "cgspray: %s: %s\n", what, strerror(errno));
	return 1;
}

/* Move this process into the cgroup directory @dir. */
static int join(const char *dir)
{
	char path[4096];
	FILE *f;
	int ok;

	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >=
	    (int)sizeof(path))
		return errno = ENAMETOOLONG, -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fprintf(f, "0\n") > 0;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* The cgroup this process is in now, as a directory under the mount. */
static int own_cgroup(char *buf, size_t size)
{
	char line[4096];
	FILE *f = fopen("/proc/self/cgroup", "r");
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = 0;
		found = snprintf(buf, size, "%s%s", getenv("CGROUP2_MNT") ?:
				 "/sys/fs/cgroup", line + 3) < (int)size ? 0 : -1;
	}
	fclose(f);
	return found;
}

/* The next cgroup directory on stdin, one a line (blank lines skipped). */
static bool next_dir(char *dir, int size)
{
	while (fgets(dir, size, stdin)) {
		dir[strcspn(dir, "\n")] = 0;
		if (dir[0])
			return true;
	}
	return false;
}

/* One connected UDP socket per cgroup read from stdin; their count. */
static long open_sockets(int **fds, const struct sockaddr_in *to, int flags)
{
	char dir[4096];
	long n = 0, cap = 0;

	while (next_dir(dir, sizeof(dir))) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			*fds = realloc(*fds, cap * sizeof(**fds));
			if (!*fds)
				return die("realloc"), -1;
		}
		if (join(dir))
			return fprintf(stderr, "cgspray: cannot join %s: %s\n",
				       dir, strerror(errno)), -1;
		(*fds)[n] = socket(AF_INET, SOCK_DGRAM | flags, 0);
		if ((*fds)[n] < 0 ||
		    connect((*fds)[n], (const struct sockaddr *)to, sizeof(*to)))
			return die("socket"), -1;
		n++;
	}
	return n;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One round: @count datagrams over @n sockets in turn; ns per datagram. */
static long long send_round(const int *fds, long n, long count)
{
	long long t0 = now_ns();
	long i;

	for (i = 0; i < count; i++)
		if (send(fds[i % n], "x", 1, 0) != 1)
			return die("send"), -1;
	return (now_ns() - t0) / count;
}

/* The CGSPRAY_BEFORE command, if any, for round @r; 0 if it succeeded. */
static int before_round(long r)
{
	const char *cmd = getenv("CGSPRAY_BEFORE");
	char num[24];

	if (!cmd)
		return 0;
	snprintf(num, sizeof(num), "%ld", r);
	setenv("CGSPRAY_ROUND", num, 1);
	if (system(cmd) != 0) {
		fprintf(stderr, "cgspray: round %ld: \"%s\" failed\n", r, cmd);
		return -1;
	}
	return 0;
}

/* COUNT 0: hand the sockets, numbered in a row, to CGSPRAY_BEFORE. */
static int lend_sockets(const int *fds, long n)
{
	char range[48];
	long i;

	for (i = 1; i < n; i++)
		if (fds[i] != fds[0] + i) {
			fprintf(stderr, "cgspray: socket fds are not in a row\n");
			return 1;
		}
	snprintf(range, sizeof(range), "%d-%d", fds[0], fds[n - 1]);
	setenv("CGSPRAY_FDS", range, 1);
	return before_round(1) ? 1 : 0;
}

/* Mode "fresh": make, join and send once from each cgroup; ns per cgroup. */
static int fresh_cgroups(const struct sockaddr_in *to, const char *home)
{
	long long t0 = now_ns();
	char dir[4096];
	long n = 0;
	int fd;

	while (next_dir(dir, sizeof(dir))) {
		if (mkdir(dir, 0755) || join(dir))
			return fprintf(stderr, "cgspray: cannot make and join %s: %s\n",
				       dir, strerror(errno)), 1;
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0 || sendto(fd, "x", 1, 0, (const struct sockaddr *)to,
				     sizeof(*to)) != 1)
			return die("send"), 1;
		close(fd);
		n++;
	}
	if (!n)
		return fprintf(stderr, "cgspray: no cgroups\n"), 1;
	if (join(home))
		return die("return home");
	printf("%ld fresh cgroups, %lld ns/cgroup\n", n, (now_ns() - t0) / n);
	return 0;
}

/* A whole decimal number in @s, or -1: "fresh 3" is no COUNT of 0. */
static int number(const char *s, long *n)
{
	char *end;

	errno = 0;
	*n = strtol(s, &end, 10);
	return (end == s || *end || errno) ? -1 : 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct rlimit nofile = { 1 << 20, 1 << 20 };
	struct sockaddr_in to = { .sin_family = AF_INET };
	long long cost[MAX_ROUNDS];
	long n, count, r, rounds;
	char home[4096];
	bool fresh = argc == 4 && !strcmp(argv[3], "fresh");
	int *fds = NULL;

	if ((argc != 5 && !fresh) ||
	    inet_pton(AF_INET, argv[1], &to.sin_addr) != 1) {
		fprintf(stderr, "usage: cgspray ADDR PORT COUNT ROUNDS <DIRS\n"
				"       cgspray ADDR PORT fresh <DIRS\n");
		return 64;
	}
	to.sin_port = htons(atoi(argv[2]));
	if (own_cgroup(home, sizeof(home)))
		return die("/proc/self/cgroup");
	if (fresh)
		return fresh_cgroups(&to, home);
	if (number(argv[3], &count) || number(argv[4], &rounds) ||
	    count < 0 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "cgspray: COUNT a number >= 0, ROUNDS 1..%d\n",
			MAX_ROUNDS);
		return 64;
	}
	if (setrlimit(RLIMIT_NOFILE, &nofile))
		return die("setrlimit");
	n = open_sockets(&fds, &to, count ? SOCK_CLOEXEC : 0);
	if (n < 1 || join(home))
		return n == 0 ? fprintf(stderr, "cgspray: no cgroups\n"), 1 : 1;
	if (!count)
		return lend_sockets(fds, n);
	for (r = 0; r < rounds; r++) {
		if (before_round(r + 1))
			return 1;
		cost[r] = send_round(fds, n, count);
		if (cost[r] < 0)
			return 1;
		printf("round %ld: %ld datagrams, %lld ns/datagram\n",
		       r + 1, count, cost[r]);
		fflush(stdout);
	}
	qsort(cost, rounds, sizeof(cost[0]), cmp_ll);
	printf("median %lld ns/datagram\n", cost[(rounds - 1) / 2]);
	return 0;
}
