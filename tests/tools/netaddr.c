// SPDX-License-Identifier: GPL-2.0
/* Address parsing and small socket helpers for cg2net. */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "cg2net.h"

/*
 * Numeric addresses only, no resolver (so a static binary needs no NSS):
 * "10.0.0.2", "::1", "fe80::1%veth0".  Returns 0, or -1 after printing why.
 */
int net_parse_addr(int family, const char *text, unsigned int port,
		   struct sockaddr_storage *ss, socklen_t *len)
{
	const char *fam = family == AF_INET6 ? "IPv6" : "IPv4";
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 2], *pct;

	memset(ss, 0, sizeof(*ss));
	if (strlen(text) >= sizeof(host))
		goto bad;
	strcpy(host, text);
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			goto bad;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		*len = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		pct = strchr(host, '%');
		if (pct) {
			*pct++ = '\0';
			s6->sin6_scope_id = if_nametoindex(pct);
			if (!s6->sin6_scope_id) {
				fprintf(stderr, "cg2net: '%s': no interface '%s'\n",
					text, pct);
				return -1;
			}
		}
		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			goto bad;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
	}
	return 0;
bad:
	fprintf(stderr, "cg2net: '%s' is not a numeric %s address\n", text, fam);
	return -1;
}

/*
 * The client socket of a send or connect: TYPE (SOCK_DGRAM, SOCK_STREAM,
 * with flags) of the target's family, bound to --sport if given.  Returns
 * the fd, or -1 after reporting a setup error (*EXIT: its exit status).
 */
int net_client_socket(const struct cg2net_opts *o, int type, int *exit_code)
{
	int fd, err;

	fd = socket(o->family, type | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*exit_code = setup_error("socket: %s", strerror(errno));
		return -1;
	}
	if (o->sport >= 0 && (err = net_bind_sport(fd, o->family, o->sport))) {
		close(fd);
		*exit_code = setup_error("bind source port %d: %s", o->sport,
					 strerror(-err));
		return -1;
	}
	return fd;
}

/* Bind FD to the wildcard address with source port SPORT; 0 or -errno. */
int net_bind_sport(int fd, int family, unsigned int sport)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1;

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(sport);
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(sport);
		len = sizeof(*s4);
	}
	/* Lets a test reuse one source port while an old socket lingers. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0)
		return -errno;
	return 0;
}

/* "ADDR:PORT" or "[ADDR]:PORT" for diagnostics. */
const char *net_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(s6->sin6_port));
	} else if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(s4->sin_port));
	} else {
		snprintf(buf, len, "(family %d)", sa->sa_family);
	}
	return buf;
}

long long net_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
