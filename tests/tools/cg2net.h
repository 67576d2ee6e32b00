/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cg2net: join a cgroup v2, then make traffic and report what happened.
 * Shared declarations of the cg2net source files.
 */
#ifndef CG2NET_H
#define CG2NET_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>

/* Exit status, one per outcome (see usage text). */
enum {
	CG_EXIT_OK		= 0,	/* connected / sent / all received */
	CG_EXIT_REFUSED		= 1,
	CG_EXIT_TIMEOUT		= 2,
	CG_EXIT_BLOCKED		= 3,	/* EPERM and any other network error */
	CG_EXIT_UNREACHABLE	= 4,
	CG_EXIT_USAGE		= 64,
	CG_EXIT_SETUP		= 65,	/* cannot join cgroup, bind, ... */
};

enum cg_mode { MODE_SEND, MODE_CONNECT, MODE_LISTEN };

/* connect --count: connections at once, one child process each */
#define CG_MAX_CONNECT	256

struct cg2net_opts {
	const char *cgroup;		/* --cgroup, NULL: stay */
	const char *root;		/* --root, NULL: from mountinfo */
	const char *netns;		/* --netns, NULL: stay */
	enum cg_mode mode;
	int type;			/* SOCK_STREAM or SOCK_DGRAM */
	int family;			/* AF_INET or AF_INET6 */
	struct sockaddr_storage addr;	/* ADDR PORT, parsed */
	socklen_t addrlen;
	const char *addr_text;
	unsigned int port;
	unsigned int count;		/* --count (connect: at once) */
	int timeout_ms;			/* --timeout */
	const char *payload;		/* --payload (send) / --send (connect) */
	int sport;			/* --sport, -1: kernel chooses */
	const char *ready_file;		/* --ready-file */
};

/* cg2net_opts.c: returns 0, or CG_EXIT_USAGE after printing why. */
int cg2net_parse(int argc, char **argv, struct cg2net_opts *o);
void cg2net_usage(FILE *f);

/* cgjoin.c: move this process into ROOT/PATH; 0 or -1 (message printed). */
int cg_join(const char *root, const char *path);
/* netns.c: enter network namespace NAME; 0 or -1 (message printed). */
int netns_enter(const char *name);

/* netaddr.c */
int net_parse_addr(int family, const char *text, unsigned int port,
		   struct sockaddr_storage *ss, socklen_t *len);
int net_bind_sport(int fd, int family, unsigned int sport);
int net_client_socket(const struct cg2net_opts *o, int type, int *exit_code);
const char *net_addr_str(const struct sockaddr *sa, char *buf, size_t len);
long long net_now_ms(void);

/* result.c: print the one result line on stdout, return the exit status. */
int result(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int result_errno(int err);
int setup_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The three modes. */
int run_send_udp(const struct cg2net_opts *o);
int run_connect_tcp(const struct cg2net_opts *o);
int run_listen(const struct cg2net_opts *o);

#endif
