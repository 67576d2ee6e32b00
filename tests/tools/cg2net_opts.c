// SPDX-License-Identifier: GPL-2.0
/* Command line of cg2net. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cg2net.h"

void cg2net_usage(FILE *f)
{
	fputs(
"usage: cg2net [--netns NAME] [--cgroup PATH] [--root DIR] MODE ...\n"
"  cg2net ... send udp|udp6 ADDR PORT [--count N] [--payload TEXT] [--sport PORT]\n"
"  cg2net ... connect tcp|tcp6 ADDR PORT [--count N] [--timeout MS] [--send TEXT]\n"
"                     [--sport PORT]\n"
"  cg2net ... listen tcp|tcp6|udp|udp6 ADDR PORT [--count N] [--timeout MS]\n"
"                    [--ready-file FILE]\n"
"\n"
"--cgroup PATH  join PATH (relative to the cgroup2 mount) before any socket\n"
"               exists; absent: stay in the current cgroup\n"
"--root DIR     the cgroup2 mount (default: found in /proc/self/mountinfo)\n"
"--netns NAME   enter network namespace NAME (/run/netns/NAME, or a path\n"
"               if it has a '/') first, as nsenter --net does\n"
"\n"
"One result line on stdout:\n"
"  sent N | connected | connected reply N | accepted N | received N   exit 0\n"
"  refused                                                           exit 1\n"
"  timeout | connected noreply | accepted N / received N (short)     exit 2\n"
"  blocked: ERRNO TEXT | connected eof | connected reset | ...       exit 3\n"
"  unreachable                                                       exit 4\n"
"  error: usage ...                                                  exit 64\n"
"  error: ... (cannot join cgroup, bind, write ready file)           exit 65\n"
"Defaults: --count 1, --timeout 1000 (connect) / 5000 (listen).\n"
"connect --count N (at most 256) makes N connections at once, one process\n"
"each, a result line each; its exit status is the first one's that failed.\n"
"listen writes the bound port to FILE once it listens (write+rename); TCP\n"
"echoes the first data of each connection back once.\n", f);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("cg2net: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(cg2net --help for usage)\n", stderr);
	return result(CG_EXIT_USAGE, "error: usage");
}

/* Strict unsigned decimal in [min, max]; 0 or -1. */
static int parse_uint(const char *s, unsigned long min, unsigned long max,
		      unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Option with a value: "--name VALUE" or "--name=VALUE". */
static const char *optval(const char *name, int argc, char **argv, int *i)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, n))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0')
		return NULL;
	if (*i + 1 >= argc)
		return "";	/* reported as a missing value by the caller */
	return argv[++*i];
}

static int set_proto(struct cg2net_opts *o, const char *p)
{
	static const struct { const char *name; int type, family; } tab[] = {
		{ "udp", SOCK_DGRAM, AF_INET }, { "udp6", SOCK_DGRAM, AF_INET6 },
		{ "tcp", SOCK_STREAM, AF_INET }, { "tcp6", SOCK_STREAM, AF_INET6 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (strcmp(p, tab[i].name))
			continue;
		if (o->mode == MODE_SEND && tab[i].type != SOCK_DGRAM)
			return usage_error("send takes udp or udp6, not '%s'", p);
		if (o->mode == MODE_CONNECT && tab[i].type != SOCK_STREAM)
			return usage_error("connect takes tcp or tcp6, not '%s'", p);
		o->type = tab[i].type;
		o->family = tab[i].family;
		return 0;
	}
	return usage_error("unknown protocol '%s' (tcp, tcp6, udp, udp6)", p);
}

int cg2net_parse(int argc, char **argv, struct cg2net_opts *o)
{
	const char *pos[3], *v, *mode = NULL;
	unsigned long n;
	int i, npos = 0;
	bool timeout_set = false;

	memset(o, 0, sizeof(*o));
	o->count = 1;
	o->sport = -1;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cg2net_usage(stdout);
			exit(0);
		}
		if ((v = optval("--cgroup", argc, argv, &i))) {
			if (!*v)
				return usage_error("%s needs a cgroup path", a);
			o->cgroup = v;
		} else if ((v = optval("--netns", argc, argv, &i))) {
			if (!*v)
				return usage_error("%s needs a namespace name", a);
			o->netns = v;
		} else if ((v = optval("--root", argc, argv, &i))) {
			if (!*v)
				return usage_error("%s needs a directory", a);
			o->root = v;
		} else if (mode && (v = optval("--count", argc, argv, &i))) {
			unsigned long max = o->mode == MODE_CONNECT ?
				CG_MAX_CONNECT : 100000000;

			if (parse_uint(v, 1, max, &n))
				return usage_error("--count needs a number from 1 to %lu, not '%s'",
						   max, v);
			o->count = n;
		} else if (mode && (v = optval("--timeout", argc, argv, &i))) {
			if (o->mode == MODE_SEND)
				return usage_error("%s is not an option of send", a);
			if (parse_uint(v, 1, 3600000, &n))
				return usage_error("--timeout needs milliseconds from 1 to 3600000, not '%s'", v);
			o->timeout_ms = n;
			timeout_set = true;
		} else if (mode && (v = optval("--payload", argc, argv, &i))) {
			if (o->mode != MODE_SEND)
				return usage_error("%s is an option of send only", a);
			o->payload = v;
		} else if (mode && (v = optval("--send", argc, argv, &i))) {
			if (o->mode != MODE_CONNECT)
				return usage_error("%s is an option of connect only", a);
			if (!*v)
				return usage_error("%s needs a non-empty text", a);
			o->payload = v;
		} else if (mode && (v = optval("--sport", argc, argv, &i))) {
			if (o->mode == MODE_LISTEN)
				return usage_error("%s is for client modes (send, connect)", a);
			if (parse_uint(v, 1, 65535, &n))
				return usage_error("--sport needs a port from 1 to 65535, not '%s'", v);
			o->sport = n;
		} else if (mode && (v = optval("--ready-file", argc, argv, &i))) {
			if (o->mode != MODE_LISTEN)
				return usage_error("%s is an option of listen only", a);
			if (!*v)
				return usage_error("%s needs a file name", a);
			o->ready_file = v;
		} else if (a[0] == '-' && a[1] == '-') {
			return usage_error("unknown option '%s'%s", a, mode ? " for this mode" :
					   " (options of a mode come after it)");
		} else if (!mode) {
			mode = a;
			if (!strcmp(a, "send"))
				o->mode = MODE_SEND;
			else if (!strcmp(a, "connect"))
				o->mode = MODE_CONNECT;
			else if (!strcmp(a, "listen"))
				o->mode = MODE_LISTEN;
			else
				return usage_error("unknown mode '%s' (send, connect, listen)", a);
		} else if (npos < 3) {
			pos[npos++] = a;
		} else {
			return usage_error("unexpected argument '%s'", a);
		}
	}
	if (!mode)
		return usage_error("%s", "no mode given (send, connect, listen)");
	if (npos < 3)
		return usage_error("%s needs PROTO ADDR PORT", mode);
	if (set_proto(o, pos[0]))
		return CG_EXIT_USAGE;
	if (parse_uint(pos[2], o->mode == MODE_LISTEN ? 0 : 1, 65535, &n))
		return usage_error("bad port '%s'", pos[2]);
	o->port = n;
	o->addr_text = pos[1];
	if (net_parse_addr(o->family, pos[1], o->port, &o->addr, &o->addrlen))
		return result(CG_EXIT_USAGE, "error: usage");
	if (o->mode == MODE_CONNECT && o->count > 1 && o->sport >= 0)
		return usage_error("%s", "--sport takes one connection, not --count N");
	if (!timeout_set)
		o->timeout_ms = o->mode == MODE_LISTEN ? 5000 : 1000;
	if (!o->payload && o->mode == MODE_SEND)
		o->payload = "cg2net";
	return 0;
}
