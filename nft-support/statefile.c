// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "statefile.h"

#define STATE_MAGIC	"nft-cgroupd-state 1"

static int put_set(FILE *f, const struct acct *a)
{
	size_t i;

	fprintf(f, "set %s\n", a->name);
	for (i = 0; i < a->n; i++) {
		const struct acct_path *e = &a->p[i];

		fprintf(f, "p %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %lld /%s\n",
			e->live_id, e->last_id, e->restarts, e->done.packets,
			e->done.bytes, e->live.packets, e->live.bytes,
			(long long)e->idle_since, e->path);
	}
	return 0;
}

static int fill_state(FILE *f, void *ctx)
{
	const struct acct_store *s = ctx;
	size_t i;

	fprintf(f, "%s\n", STATE_MAGIC);
	for (i = 0; i < s->n; i++)
		put_set(f, s->v[i]);
	return 0;
}

int state_save(const char *path, const struct acct_store *s)
{
	return atomic_write(path, 0600, fill_state, (void *)s);
}

/* --- reading --- */

struct reader {
	const char *file;
	unsigned long line;
	char *err;
	size_t errlen;
	struct acct *cur;	/* the set the "p" lines belong to */
	size_t paths;		/* read so far, in every set */
};

static int fault(struct reader *r, const char *why)
{
	snprintf(r->err, r->errlen, "%s:%lu: %s", r->file, r->line, why);
	return -EINVAL;
}

/* A decimal number without sign, of at most 20 digits, then one space. */
static int take_u64(char **s, uint64_t *out)
{
	char *p = *s;
	uint64_t v = 0;
	int digits = 0;

	while (*p >= '0' && *p <= '9') {
		unsigned int d = *p++ - '0';

		if (v > (UINT64_MAX - d) / 10 || ++digits > 20)
			return -1;
		v = v * 10 + d;
	}
	if (!digits || *p != ' ')
		return -1;
	*s = p + 1;
	*out = v;
	return 0;
}

/* Printable bytes only: the file is line-based and paths come back out. */
static bool clean_text(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static int parse_set(struct reader *r, struct acct_store *s, char *name)
{
	if (!*name || strlen(name) >= 3 * 256 || !clean_text(name))
		return fault(r, "bad set name");
	if (acct_store_find(s, name))
		return fault(r, "set listed twice");
	if (s->n >= STATE_MAX_SETS)
		return fault(r, "too many sets");
	r->cur = acct_store_get(s, name);
	return r->cur ? 0 : -ENOMEM;
}

static int parse_path(struct reader *r, char *p)
{
	uint64_t v[8];
	struct acct_path e = { 0 };
	size_t i;
	int ret;

	if (!r->cur)
		return fault(r, "path before any \"set\" line");
	for (i = 0; i < 8; i++)
		if (take_u64(&p, &v[i]))
			return fault(r, "expected 8 numbers, then the path");
	if (*p != '/' || strlen(p) >= 4096 || !clean_text(p))
		return fault(r, "bad path (must start with /, printable, below 4096 bytes)");
	if (v[7] > INT64_MAX || (v[0] && v[0] != v[1]))
		return fault(r, "inconsistent numbers");
	e.path = p + 1;
	e.live_id = v[0];
	e.last_id = v[1];
	e.restarts = v[2];
	e.done = (struct acct_ctr){ v[3], v[4] };
	e.live = (struct acct_ctr){ v[5], v[6] };
	e.idle_since = (int64_t)v[7];
	if (r->cur->n >= ACCT_MAX_PATHS || ++r->paths > STATE_MAX_PATHS)
		return fault(r, "too many paths");
	ret = acct_restore(r->cur, &e);
	if (ret == -EEXIST)
		return fault(r, "path or live id listed twice");
	return ret;
}

static int parse_line(struct reader *r, struct acct_store *s, char *l)
{
	if (r->line == 1)
		return strcmp(l, STATE_MAGIC) ?
		       fault(r, "not an nft-cgroupd state file (version 1)") : 0;
	if (!strncmp(l, "set ", 4))
		return parse_set(r, s, l + 4);
	if (!strncmp(l, "p ", 2))
		return parse_path(r, l + 2);
	return fault(r, "unknown line");
}

/*
 * One line into @buf (STATE_MAX_LINE + 1 bytes), without its newline.
 * 1 for a line, 0 at the end, or -errno with the fault reported.
 */
static int get_line(struct reader *r, FILE *f, char *buf)
{
	size_t len = 0;
	int c;

	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (!c)
			return fault(r, "NUL byte");
		if (len == STATE_MAX_LINE)
			return fault(r, "line too long");
		buf[len++] = c;
	}
	buf[len] = '\0';
	if (c == EOF && !len)
		return ferror(f) ? -EIO : 0;
	if (c == EOF)
		return fault(r, "truncated (no newline at the end)");
	return 1;
}

static int read_lines(struct reader *r, FILE *f, struct acct_store *s)
{
	char *buf = malloc(STATE_MAX_LINE + 1);
	int ret;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		r->line++;
		ret = get_line(r, f, buf);
		if (ret <= 0)
			break;
		ret = parse_line(r, s, buf);
		if (ret)
			break;
	}
	if (!ret && r->line == 1)
		ret = fault(r, "empty file");
	free(buf);
	return ret;
}

int state_load(const char *path, struct acct_store *s, char *err,
	       size_t errlen)
{
	struct reader r = { .file = path, .err = err, .errlen = errlen };
	struct stat st;
	FILE *f;
	int fd, ret;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size > STATE_MAX_BYTES) {
		snprintf(err, errlen, "%s: not a regular file of at most %d MiB",
			 path, STATE_MAX_BYTES >> 20);
		close(fd);
		return -EINVAL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	ret = read_lines(&r, f, s);
	fclose(f);
	if (ret == -ENOMEM || ret == -EIO)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	if (ret)
		acct_store_free(s);
	return ret;
}
