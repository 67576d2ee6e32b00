// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cgbench: latency from mkdir()/rmdir() returning to the cgroup's id being
 * added to/removed from an nftables set, as the kernel reports the commit
 * (NFNLGRP_NFTABLES notifications, sent when the transaction is committed
 * and the element is visible to packets).
 *
 *   cgbench DIR COUNT TABLE SET    (run inside the set's network namespace)
 *
 * Also, for run.sh on machines without python (the test VM), a systemd
 * notification receiver:
 *
 *   cgbench --notify-sink SOCKET OUTFILE
 *
 * binds a datagram socket at SOCKET and writes each message received to
 * OUTFILE, one a line, until STOPPING=1 or 10 s without a message.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>
#include <libnftnl/set.h>

static char buf[1 << 16];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct want {
	const char *set;
	uint64_t id;
	bool found;
};

static int elem_cb(struct nftnl_set_elem *e, void *data)
{
	struct want *w = data;
	uint32_t len = 0;
	const void *k = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &len);
	uint64_t id;

	if (k && len == 8) {
		memcpy(&id, k, 8);
		if (id == w->id)
			w->found = true;
	}
	return 0;
}

/* Wait up to 5 s for a NEWSETELEM (or DELSETELEM) of @id in @set. */
static int wait_elem(struct mnl_socket *nl, int type, const char *set,
		     uint64_t id)
{
	struct want w = { set, id, false };
	struct pollfd pfd = { .fd = mnl_socket_get_fd(nl), .events = POLLIN };

	while (!w.found) {
		const struct nlmsghdr *nlh;
		ssize_t r;
		int rem;

		if (poll(&pfd, 1, 5000) <= 0)
			return -ETIMEDOUT;
		r = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (r < 0) {
			if (errno == ENOBUFS)
				continue;
			return -errno;
		}
		nlh = (const struct nlmsghdr *)buf;
		for (rem = r; mnl_nlmsg_ok(nlh, rem);
		     nlh = mnl_nlmsg_next(nlh, &rem)) {
			struct nftnl_set *s;

			if (NFNL_MSG_TYPE(nlh->nlmsg_type) != type)
				continue;
			s = nftnl_set_alloc();
			if (!s)
				return -ENOMEM;
			if (nftnl_set_elems_nlmsg_parse(nlh, s) >= 0 &&
			    !strcmp(nftnl_set_get_str(s, NFTNL_SET_NAME), set))
				nftnl_set_elem_foreach(s, elem_cb, &w);
			nftnl_set_free(s);
		}
	}
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	printf("%s latency over %d cgroups: median %.3f ms, p99 %.3f ms, max %.3f ms\n",
	       what, n, v[n / 2] * 1e3, v[(int)(n * 0.99)] * 1e3,
	       v[n - 1] * 1e3);
}

static int notify_sink(const char *path, const char *out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pollfd pfd = { .events = POLLIN };
	FILE *f;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "cgbench: %s: path too long\n", path);
		return 2;
	}
	strcpy(sa.sun_path, path);
	pfd.fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (pfd.fd < 0 || bind(pfd.fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror(path);
		return 1;
	}
	f = fopen(out, "w");
	if (!f) {
		perror(out);
		return 1;
	}
	while (poll(&pfd, 1, 10000) > 0) {
		ssize_t r = recv(pfd.fd, buf, sizeof(buf) - 1, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			perror("cgbench: recv");
			break;
		}
		buf[r] = 0;
		fprintf(f, "%s\n", buf);
		fflush(f);
		if (!strcmp(buf, "STOPPING=1"))
			break;
	}
	fclose(f);
	close(pfd.fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct mnl_socket *nl;
	double *add, *del, *add_call, *del_call, t0, tc;
	char path[4096];
	int n, i, size = 8 << 20;
	struct stat st;
	uint64_t *ids;

	if (argc == 4 && !strcmp(argv[1], "--notify-sink"))
		return notify_sink(argv[2], argv[3]);
	if (argc != 5) {
		fprintf(stderr, "usage: cgbench DIR COUNT TABLE SET\n"
			"       cgbench --notify-sink SOCKET OUTFILE\n");
		return 2;
	}
	(void)argv[3];
	n = atoi(argv[2]);
	add = calloc(n, sizeof(*add));
	del = calloc(n, sizeof(*del));
	ids = calloc(n, sizeof(*ids));
	add_call = calloc(n, sizeof(*add_call));
	del_call = calloc(n, sizeof(*del_call));
	nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!add || !del || !ids || !add_call || !del_call || !nl ||
	    mnl_socket_bind(nl, 1 << (NFNLGRP_NFTABLES - 1), MNL_SOCKET_AUTOPID) < 0) {
		perror("cgbench: setup");
		return 1;
	}
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &size,
		   sizeof(size));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/b%d", argv[1], i);
		tc = now();
		if (mkdir(path, 0755)) {
			perror(path);
			return 1;
		}
		t0 = now();
		if (stat(path, &st)) {
			perror(path);
			return 1;
		}
		ids[i] = st.st_ino;
		if (wait_elem(nl, NFT_MSG_NEWSETELEM, argv[4], ids[i])) {
			fprintf(stderr, "cgbench: %s (id %llu) never added\n",
				path, (unsigned long long)ids[i]);
			return 1;
		}
		add[i] = now() - t0;
		add_call[i] = add[i] + (t0 - tc);
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/b%d", argv[1], i);
		tc = now();
		if (rmdir(path)) {
			perror(path);
			return 1;
		}
		t0 = now();
		if (wait_elem(nl, NFT_MSG_DELSETELEM, argv[4], ids[i])) {
			fprintf(stderr, "cgbench: %s never removed\n", path);
			return 1;
		}
		del[i] = now() - t0;
		del_call[i] = del[i] + (t0 - tc);
	}
	/*
	 * From the return: the daemon may run before we read the clock (it
	 * can preempt us), so this is a lower bound; from the call, which
	 * includes the syscall itself, an upper bound.
	 */
	report("mkdir returned -> id in set", add, n);
	report("mkdir called   -> id in set", add_call, n);
	report("rmdir returned -> id gone  ", del, n);
	report("rmdir called   -> id gone  ", del_call, n);
	mnl_socket_close(nl);
	free(add);
	free(del);
	free(ids);
	free(add_call);
	free(del_call);
	return 0;
}
