// SPDX-License-Identifier: GPL-2.0
/*
 * The one result line cg2net prints on stdout, and the exit status that
 * goes with it.  Everything else goes to stderr.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cg2net.h"

static int vresult(int status, const char *fmt, va_list ap)
{
	vfprintf(stdout, fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	return status;
}

int result(int status, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vresult(status, fmt, ap);
	va_end(ap);
	return ret;
}

/* Map a socket error to its outcome. */
int result_errno(int err)
{
	switch (err) {
	case ECONNREFUSED:
		return result(CG_EXIT_REFUSED, "refused");
	case ETIMEDOUT:
		return result(CG_EXIT_TIMEOUT, "timeout");
	case ENETUNREACH:
	case EHOSTUNREACH:
	case EHOSTDOWN:
	case ENONET:
		return result(CG_EXIT_UNREACHABLE, "unreachable");
	default:
		return result(CG_EXIT_BLOCKED, "blocked: %s", strerror(err));
	}
}

/* A failure before any traffic: the message on stderr and on stdout. */
int setup_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "cg2net: %s\n", msg);
	return result(CG_EXIT_SETUP, "error: %s", msg);
}
