// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util_log.h"

int log_verbose;

/*
 * Is stderr the journal?  systemd sets JOURNAL_STREAM=DEVICE:INODE for a
 * service whose stderr is connected to the journal; a child that inherits
 * the variable may have another stderr (a pipe, a file), so the pair must
 * equal fstat(2) of stderr, as systemd.exec(5) asks.
 */
static int stderr_is_journal(void)
{
	const char *v = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char *end;

	if (!v || !*v)
		return 0;
	dev = strtoull(v, &end, 10);
	if (end == v || *end != ':')
		return 0;
	v = end + 1;
	ino = strtoull(v, &end, 10);
	if (end == v || *end)
		return 0;
	if (fstat(STDERR_FILENO, &st))
		return 0;
	return st.st_dev == dev && st.st_ino == ino;
}

/*
 * Write the message with every control byte (C0 and DEL) as \xNN: messages
 * carry cgroup paths, which a tenant names with any byte but '/' and
 * newline, and a CR or ESC must not forge a line in the journal or paint
 * the terminal of whoever reads it.
 */
static void put_log_text(const char *fmt, va_list ap)
{
	const unsigned char *p;
	char *msg;

	if (vasprintf(&msg, fmt, ap) < 0) {
		fputs("(no memory for this message)", stderr);
		return;
	}
	for (p = (const unsigned char *)msg; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
	}
	free(msg);
}

void log_msg(int prio, const char *fmt, ...)
{
	static int journal = -1;
	va_list ap;

	/* Under systemd, stderr goes to the journal: "<N>" sets the priority. */
	if (journal < 0)
		journal = stderr_is_journal();
	if (journal)
		fprintf(stderr, "<%d>", prio);
	else
		fputs("nft-cgroupd: ", stderr);
	va_start(ap, fmt);
	put_log_text(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
