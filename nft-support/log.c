// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"

int log_verbose;

void log_msg(int prio, const char *fmt, ...)
{
	static int journal = -1;
	va_list ap;

	/* Under systemd, stderr goes to the journal: "<N>" sets the priority. */
	if (journal < 0)
		journal = getenv("JOURNAL_STREAM") != NULL;
	if (journal)
		fprintf(stderr, "<%d>", prio);
	else
		fputs("nft-cgroupd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
