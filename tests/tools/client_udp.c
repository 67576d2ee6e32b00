// SPDX-License-Identifier: GPL-2.0
/*
 * cg2net send: UDP datagrams to ADDR PORT.  An OUTPUT DROP or REJECT makes
 * the send itself fail (EPERM); an ICMP error from the far side shows up
 * on the connected socket as a later error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cg2net.h"

int run_send_udp(const struct cg2net_opts *o)
{
	size_t len = strlen(o->payload);
	unsigned int i;
	socklen_t elen = sizeof(int);
	int fd, err = 0, ret;

	fd = net_client_socket(o, SOCK_DGRAM, &ret);
	if (fd < 0)
		return ret;
	if (connect(fd, (const struct sockaddr *)&o->addr, o->addrlen) < 0) {
		err = errno;
		fprintf(stderr, "cg2net: connect udp %s: %s\n", o->addr_text,
			strerror(err));
		close(fd);
		return result_errno(err);
	}
	for (i = 0; i < o->count; i++) {
		if (send(fd, o->payload, len, 0) < 0) {
			err = errno;
			fprintf(stderr, "cg2net: datagram %u of %u: %s\n",
				i + 1, o->count, strerror(err));
			close(fd);
			return result_errno(err);
		}
	}
	/* An ICMP error for the last datagram, if it already came back. */
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) == 0 && err) {
		fprintf(stderr, "cg2net: after %u datagrams: %s\n", o->count,
			strerror(err));
		close(fd);
		return result_errno(err);
	}
	close(fd);
	return result(CG_EXIT_OK, "sent %u", o->count);
}
