// SPDX-License-Identifier: GPL-2.0
/*
 * cg2net connect: a TCP connection to ADDR PORT within --timeout, then
 * optionally send a text and wait (again up to --timeout) for the reply.
 * With --count N, N of them at once, each from a child process (forked
 * after the cgroup is joined) with a result line of its own.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg2net.h"

/* Wait for EVENTS on FD; 1 ready, 0 timeout, -errno. */
static int wait_fd(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	long long end = net_now_ms() + timeout_ms;
	int n;

	for (;;) {
		long long left = end - net_now_ms();

		n = poll(&p, 1, left > 0 ? (int)left : 0);
		if (n >= 0)
			return n;
		if (errno != EINTR)
			return -errno;
	}
}

static int exchange(int fd, const struct cg2net_opts *o)
{
	size_t len = strlen(o->payload), done = 0;
	char buf[4096];
	ssize_t n;
	int ret;

	while (done < len) {
		ret = wait_fd(fd, POLLOUT, o->timeout_ms);
		if (ret <= 0) {
			fprintf(stderr, "cg2net: cannot send: %s\n",
				ret ? strerror(-ret) : "timeout");
			return ret ? result_errno(-ret) :
				result(CG_EXIT_TIMEOUT, "connected noreply");
		}
		n = send(fd, o->payload + done, len - done, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return result(CG_EXIT_BLOCKED, "connected send-failed: %s",
				      strerror(errno));
		}
		done += n;
	}
	for (;;) {
		ret = wait_fd(fd, POLLIN, o->timeout_ms);
		if (ret == 0)
			return result(CG_EXIT_TIMEOUT, "connected noreply");
		if (ret < 0)
			return result_errno(-ret);
		n = recv(fd, buf, sizeof(buf), 0);
		if (n > 0)
			return result(CG_EXIT_OK, "connected reply %zd", n);
		if (n == 0)
			return result(CG_EXIT_BLOCKED, "connected eof");
		if (errno == EAGAIN || errno == EINTR)
			continue;
		if (errno == ECONNRESET)
			return result(CG_EXIT_BLOCKED, "connected reset");
		return result(CG_EXIT_BLOCKED, "connected recv-failed: %s",
			      strerror(errno));
	}
}

static int connect_one(const struct cg2net_opts *o)
{
	socklen_t elen = sizeof(int);
	int fd, err = 0, ret;

	fd = net_client_socket(o, SOCK_STREAM | SOCK_NONBLOCK, &ret);
	if (fd < 0)
		return ret;

	if (connect(fd, (const struct sockaddr *)&o->addr, o->addrlen) < 0) {
		if (errno != EINPROGRESS) {
			err = errno;
			goto failed;
		}
		ret = wait_fd(fd, POLLOUT, o->timeout_ms);
		if (ret == 0) {
			fprintf(stderr, "cg2net: no answer from %s port %u within %d ms\n",
				o->addr_text, o->port, o->timeout_ms);
			close(fd);
			return result(CG_EXIT_TIMEOUT, "timeout");
		}
		if (ret < 0) {
			err = -ret;
			goto failed;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
			err = errno;
		if (err)
			goto failed;
	}
	ret = o->payload ? exchange(fd, o) : result(CG_EXIT_OK, "connected");
	close(fd);
	return ret;

failed:
	fprintf(stderr, "cg2net: connect %s port %u: %s\n", o->addr_text,
		o->port, strerror(err));
	close(fd);
	return result_errno(err);
}

/*
 * The status of the first connection (in the order started) that did not
 * succeed, or 0.  Children, not threads: each keeps the one-line output and
 * the exit status of a single connection, and a test's N clients stay N
 * sockets of the same cgroup started at once, at the cost of a fork each
 * instead of an exec of this program (and of ip netns exec) each.
 */
int run_connect_tcp(const struct cg2net_opts *o)
{
	pid_t pids[CG_MAX_CONNECT];
	unsigned int i, started;
	int status, ret = 0;

	if (o->count == 1)
		return connect_one(o);
	fflush(stdout);
	for (started = 0; started < o->count; started++) {
		pids[started] = fork();
		if (pids[started] == 0)
			_exit(connect_one(o));
		if (pids[started] < 0) {
			ret = setup_error("fork: %s", strerror(errno));
			break;
		}
	}
	for (i = 0; i < started; i++) {
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status))
			status = CG_EXIT_SETUP;
		else
			status = WEXITSTATUS(status);
		if (!ret)
			ret = status;
	}
	return ret;
}
