// SPDX-License-Identifier: GPL-2.0
/*
 * cg2net listen: the server side of INPUT tests.  Binds, announces itself
 * through --ready-file, then takes up to --count TCP connections or UDP
 * datagrams before --timeout.  Each TCP connection gets the first data it
 * sends echoed back once, so data flows both ways, then it is closed.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg2net.h"

#define MAX_OPEN 64	/* accepted connections waiting for their data */

/* Write PORT to FILE atomically, so a reader never sees it half written. */
static int write_ready(const char *file, unsigned int port)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp%d", file, (int)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "%u\n", port);
	if (fclose(f) != 0 || rename(tmp, file) < 0) {
		int err = errno;

		unlink(tmp);
		return -err;
	}
	return 0;
}

static int open_listener(const struct cg2net_opts *o, unsigned int *port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd, one = 1, err;

	fd = socket(o->family, o->type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (o->family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&o->addr, o->addrlen) < 0 ||
	    (o->type == SOCK_STREAM && listen(fd, MAX_OPEN) < 0) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		err = errno;
		close(fd);
		return -err;
	}
	*port = ntohs(ss.ss_family == AF_INET6 ?
		      ((struct sockaddr_in6 *)&ss)->sin6_port :
		      ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

static int left_ms(long long end)
{
	long long left = end - net_now_ms();

	return left > 0 ? (int)left : 0;
}

static int serve_udp(int fd, const struct cg2net_opts *o, long long end)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct sockaddr_storage from;
	unsigned int got = 0;
	char buf[65536], name[64];

	while (got < o->count) {
		socklen_t flen = sizeof(from);
		ssize_t n;

		if (poll(&p, 1, left_ms(end)) == 0)
			break;
		n = recvfrom(fd, buf, sizeof(buf), 0,
			     (struct sockaddr *)&from, &flen);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				fprintf(stderr, "cg2net: recv: %s\n",
					strerror(errno));
			continue;
		}
		got++;
		fprintf(stderr, "cg2net: datagram %u from %s, %zd bytes\n",
			got, net_addr_str((struct sockaddr *)&from, name,
					  sizeof(name)), n);
	}
	return result(got == o->count ? CG_EXIT_OK : CG_EXIT_TIMEOUT,
		      "received %u", got);
}

/* Read what the client sends and echo it once; then close: returns 1. */
static int serve_conn(int fd)
{
	char buf[4096];
	ssize_t n;

	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;	/* spurious wakeup, keep it open */
	if (n > 0) {
		fprintf(stderr, "cg2net: read %zd bytes, replying\n", n);
		if (send(fd, buf, n, MSG_NOSIGNAL) < 0)
			fprintf(stderr, "cg2net: reply: %s\n", strerror(errno));
	} else if (n < 0) {
		fprintf(stderr, "cg2net: recv: %s\n", strerror(errno));
	}
	close(fd);
	return 1;
}

static int serve_tcp(int lfd, const struct cg2net_opts *o, long long end)
{
	struct pollfd p[1 + MAX_OPEN];
	unsigned int accepted = 0;
	int nopen = 0, i;
	char name[64];

	p[0].fd = lfd;
	p[0].events = POLLIN;
	while (accepted < o->count || nopen > 0) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		int fd;

		/* Stop listening once the count is reached. */
		p[0].fd = accepted < o->count && nopen < MAX_OPEN ? lfd : -1;
		if (poll(p, 1 + nopen, left_ms(end)) <= 0) {
			if (left_ms(end) == 0)
				break;
			continue;
		}
		for (i = 1; i <= nopen; i++) {
			if (!p[i].revents)
				continue;
			if (serve_conn(p[i].fd))
				p[i--] = p[nopen--];
		}
		if (p[0].fd < 0 || !(p[0].revents & POLLIN))
			continue;
		fd = accept4(lfd, (struct sockaddr *)&from, &flen,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR)
				fprintf(stderr, "cg2net: accept: %s\n",
					strerror(errno));
			continue;
		}
		accepted++;
		fprintf(stderr, "cg2net: connection %u from %s\n", accepted,
			net_addr_str((struct sockaddr *)&from, name,
				     sizeof(name)));
		nopen++;
		p[nopen].fd = fd;
		p[nopen].events = POLLIN;
		p[nopen].revents = 0;
	}
	for (i = 1; i <= nopen; i++)
		close(p[i].fd);
	return result(accepted == o->count ? CG_EXIT_OK : CG_EXIT_TIMEOUT,
		      "accepted %u", accepted);
}

int run_listen(const struct cg2net_opts *o)
{
	unsigned int port = 0;
	long long end;
	int fd, err;

	fd = open_listener(o, &port);
	if (fd < 0)
		return setup_error("listen on %s port %u: %s", o->addr_text,
				   o->port, strerror(-fd));
	if (o->ready_file && (err = write_ready(o->ready_file, port))) {
		close(fd);
		return setup_error("ready file %s: %s", o->ready_file,
				   strerror(-err));
	}
	fprintf(stderr, "cg2net: listening on %s port %u\n", o->addr_text, port);
	end = net_now_ms() + o->timeout_ms;
	err = o->type == SOCK_STREAM ? serve_tcp(fd, o, end) :
				       serve_udp(fd, o, end);
	close(fd);
	return err;
}
