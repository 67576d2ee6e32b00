// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util_atomicfile.h"
#include "util_log.h"
#include "acct_statefile.h"

#define STATE_MAGIC_V1	"nft-cgroupd-state 1"	/* names raw */
#define STATE_MAGIC_V2	"nft-cgroupd-state 2"	/* names escaped */
#define STATE_MAGIC	"nft-cgroupd-state 3"	/* boot, handles, elements */
#define BOOT_ID_FILE	"/proc/sys/kernel/random/boot_id"
/* Bad lines reported one by one; past this, counted. */
#define STATE_MAX_WARN	10

/* --- writing --- */

static bool needs_escape(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == '\\';
}

/* The length of @s once escaped. */
static size_t escaped_len(const char *s)
{
	size_t len = 0;

	for (; *s; s++)
		len += needs_escape(*s) ? (*s == '\\' ? 2 : 4) : 1;
	return len;
}

static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (needs_escape(*s))
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
}

/* One path to save: where it is, and what it costs. */
struct saved {
	size_t set, idx;
	int64_t idle_since;	/* 0 while live */
	size_t len;		/* its line, newline included */
};

/* What fits within the limits, in the order of the store. */
struct plan {
	const struct acct_store *s;
	size_t nsets;		/* the first nsets sets are saved */
	struct saved *v;
	size_t n;
	size_t left_out;
};

/* The numbers of a "p" line, then " /" (the path follows). */
static int put_numbers(char *buf, size_t size, const struct acct_path *e)
{
	return snprintf(buf, size, "p %" PRIu64 " %" PRIu64 " %" PRIu64 " %"
			PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %d %lld /", e->live_id, e->last_id,
			e->restarts, e->done.packets, e->done.bytes,
			e->live.packets, e->live.bytes, e->elem.packets,
			e->elem.bytes, e->baseline, (long long)e->idle_since);
}

static size_t line_len(const struct acct_path *e)
{
	return put_numbers(NULL, 0, e) + escaped_len(e->path) + 1;
}

/* Live paths first, then the idle ones, the most recent first. */
static int by_worth(const void *a, const void *b)
{
	const struct saved *x = a, *y = b;

	if (!x->idle_since != !y->idle_since)
		return x->idle_since ? 1 : -1;
	return (x->idle_since < y->idle_since) - (x->idle_since > y->idle_since);
}

static int by_place(const void *a, const void *b)
{
	const struct saved *x = a, *y = b;

	if (x->set != y->set)
		return x->set < y->set ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int make_plan(struct plan *p, const struct acct_store *s)
{
	size_t i, j, all = 0, keep;
	size_t bytes = sizeof(STATE_MAGIC) + 6 + strlen(s->boot_id);

	p->s = s;
	p->nsets = s->n < STATE_MAX_SETS ? s->n : STATE_MAX_SETS;
	for (i = 0; i < s->n; i++)
		all += s->v[i]->n;
	p->v = malloc((all ? all : 1) * sizeof(*p->v));
	if (!p->v)
		return -ENOMEM;
	p->n = 0;
	for (i = 0; i < p->nsets; i++) {
		const struct acct *a = s->v[i];

		bytes += 5 + escaped_len(a->name) + 50;	/* set, handle */
		for (j = 0; j < a->n; j++) {
			if (strlen(a->p[j].path) >= ACCT_MAX_PATH_LEN)
				continue;	/* never bound: cannot be */
			p->v[p->n] = (struct saved){ i, j, a->p[j].idle_since,
						     line_len(&a->p[j]) };
			bytes += p->v[p->n++].len;
		}
	}
	keep = p->n;
	if (keep > STATE_MAX_PATHS || bytes > STATE_MAX_BYTES) {
		qsort(p->v, p->n, sizeof(*p->v), by_worth);
		for (keep = p->n; keep > STATE_MAX_PATHS ||
		     bytes > STATE_MAX_BYTES; keep--)
			bytes -= p->v[keep - 1].len;
		qsort(p->v, keep, sizeof(*p->v), by_place);
	}
	p->left_out = all - keep;
	p->n = keep;
	return 0;
}

static void put_path(FILE *f, const struct acct_path *e)
{
	char num[12 * 21 + 8];

	put_numbers(num, sizeof(num), e);
	fputs(num, f);
	put_escaped(f, e->path);
	fputc('\n', f);
}

static int fill_state(FILE *f, void *ctx)
{
	const struct plan *p = ctx;
	size_t i, k = 0;

	fprintf(f, "%s\n", STATE_MAGIC);
	if (*p->s->boot_id)
		fprintf(f, "boot %s\n", p->s->boot_id);
	for (i = 0; i < p->nsets; i++) {
		fputs("set ", f);
		put_escaped(f, p->s->v[i]->name);
		fputc('\n', f);
		if (p->s->v[i]->set_handle)
			fprintf(f, "handle %" PRIu64 " %" PRIu64 "\n",
				p->s->v[i]->table_handle,
				p->s->v[i]->set_handle);
		for (; k < p->n && p->v[k].set == i; k++)
			put_path(f, &p->s->v[i]->p[p->v[k].idx]);
	}
	return 0;
}

int state_save(const char *path, const struct acct_store *s)
{
	struct plan p;
	int ret;

	ret = make_plan(&p, s);
	if (ret)
		return ret;
	ret = atomic_write(path, 0600, fill_state, &p);
	free(p.v);
	return ret ? ret : (int)(p.left_out < INT32_MAX ? p.left_out : INT32_MAX);
}

/* --- reading --- */

struct reader {
	const char *file;
	unsigned long line;
	char *err;
	size_t errlen;
	int version;		/* 1, 2 or 3 */
	struct acct *cur;	/* the set the "p" lines belong to */
	size_t paths;		/* read so far, in every set */
	unsigned long dropped;
};

/* The file is not a state file: refused as a whole. */
static int fault(struct reader *r, const char *why)
{
	snprintf(r->err, r->errlen, "%s:%lu: %s", r->file, r->line, why);
	return -EINVAL;
}

/* A bad line: dropped, reported; the rest of the file is read. */
static int bad_line(struct reader *r, const char *why)
{
	if (!r->dropped++)
		snprintf(r->err, r->errlen, "%s:%lu: %s", r->file, r->line,
			 why);
	if (r->dropped <= STATE_MAX_WARN)
		warn("accounting state %s:%lu: %s; line dropped, the rest kept",
		     r->file, r->line, why);
	return 0;
}

/* A decimal number without sign, of at most 20 digits; -1 when none. */
static int take_digits(char **s, uint64_t *out)
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
	if (!digits)
		return -1;
	*s = p;
	*out = v;
	return 0;
}

/* A number, then one space. */
static int take_u64(char **s, uint64_t *out)
{
	char *p = *s;

	if (take_digits(&p, out) || *p != ' ')
		return -1;
	*s = p + 1;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * A name as written: escaped (version 2 on) without raw control bytes, or raw
 * (version 1); decoded in place.  false when malformed.
 */
static bool take_name(const struct reader *r, char *s)
{
	char *o = s;
	int hi, lo;

	if (r->version < 2)
		return true;
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
		if (*s != '\\') {
			*o++ = *s;
		} else if (s[1] == '\\') {
			*o++ = *++s;
		} else {
			if (s[1] != 'x' || (hi = hexval(s[2])) < 0 ||
			    (lo = hexval(s[3])) < 0 || !(hi | lo))
				return false;
			*o++ = hi << 4 | lo;
			s += 3;
		}
	}
	*o = '\0';
	return true;
}

static int parse_set(struct reader *r, struct acct_store *s, char *name)
{
	r->cur = NULL;	/* its paths go with a bad set line */
	if (!take_name(r, name) || !*name || strlen(name) >= STATE_MAX_SET_NAME)
		return bad_line(r, "bad set name");
	if (acct_store_find(s, name))
		return bad_line(r, "set listed twice");
	if (s->n >= STATE_MAX_SETS)
		return bad_line(r, "too many sets");
	r->cur = acct_store_get(s, name);
	return r->cur ? 0 : -ENOMEM;
}

/* The numbers of a "p" line into @e: 8 before version 3, then 11. */
static int take_numbers(const struct reader *r, char **p, struct acct_path *e)
{
	uint64_t v[11];
	size_t i, n = r->version < 3 ? 8 : 11;

	for (i = 0; i < n; i++)
		if (take_u64(p, &v[i]))
			return -1;
	e->live_id = v[0];
	e->last_id = v[1];
	e->restarts = v[2];
	e->done = (struct acct_ctr){ v[3], v[4] };
	e->live = (struct acct_ctr){ v[5], v[6] };
	/* before version 3 the live count was the element's counter */
	e->elem = n == 8 ? e->live : (struct acct_ctr){ v[7], v[8] };
	e->baseline = n == 11 && v[9];
	if (v[n - 1] > INT64_MAX || (n == 11 && v[9] > 1))
		return -2;
	e->idle_since = (int64_t)v[n - 1];
	return e->live_id && e->live_id != e->last_id ? -2 : 0;
}

static int parse_path(struct reader *r, char *p)
{
	struct acct_path e = { 0 };
	int ret;

	if (!r->cur)
		return bad_line(r, "path without a valid \"set\" line before it");
	ret = take_numbers(r, &p, &e);
	if (ret == -1)
		return bad_line(r, r->version < 3 ? "expected 8 numbers, then the path" :
				"expected 11 numbers, then the path");
	if (*p != '/' || !take_name(r, p) || strlen(p) > ACCT_MAX_PATH_LEN)
		return bad_line(r, "bad path (must start with /, escaped, not too long)");
	if (ret)
		return bad_line(r, "inconsistent numbers");
	e.path = p + 1;
	if (r->cur->n >= ACCT_MAX_PATHS || r->paths >= STATE_MAX_PATHS)
		return bad_line(r, "too many paths");
	ret = acct_restore(r->cur, &e);
	if (ret == -EEXIST)
		return bad_line(r, "path or live id listed twice");
	r->paths += !ret;
	return ret;
}

/* "boot BOOT_ID": a UUID as the kernel writes it. */
static int parse_boot(struct reader *r, struct acct_store *s, const char *id)
{
	if (strlen(id) >= sizeof(s->boot_id) || !*id ||
	    strspn(id, "0123456789abcdef-") != strlen(id))
		return bad_line(r, "bad boot id");
	snprintf(s->boot_id, sizeof(s->boot_id), "%s", id);
	return 0;
}

/*
 * "handle TABLE SET" after a "set" line: the handles of the set and of its
 * table at its last reading.
 */
static int parse_handle(struct reader *r, char *p)
{
	uint64_t t, h;

	if (!r->cur)
		return bad_line(r, "handle without a valid \"set\" line before it");
	if (take_u64(&p, &t) || take_digits(&p, &h) || *p)
		return bad_line(r, "bad handle");
	r->cur->table_handle = t;
	r->cur->set_handle = h;
	return 0;
}

static int parse_line(struct reader *r, struct acct_store *s, char *l)
{
	if (r->line == 1) {
		r->version = !strcmp(l, STATE_MAGIC) ? 3 :
			     !strcmp(l, STATE_MAGIC_V2) ? 2 :
			     !strcmp(l, STATE_MAGIC_V1) ? 1 : 0;
		return r->version ? 0 :
		       fault(r, "not an nft-cgroupd state file (version 1, 2 or 3)");
	}
	if (!strncmp(l, "set ", 4))
		return parse_set(r, s, l + 4);
	if (!strncmp(l, "p ", 2))
		return parse_path(r, l + 2);
	if (r->version >= 3 && r->line == 2 && !strncmp(l, "boot ", 5))
		return parse_boot(r, s, l + 5);
	if (r->version >= 3 && !strncmp(l, "handle ", 7))
		return parse_handle(r, l + 7);
	return bad_line(r, "unknown line");
}

/*
 * One line into @buf (STATE_MAX_LINE + 1 bytes), without its newline.
 * 1 for a line, 2 for a bad one (@why says why), 0 at the end, or -EIO.
 */
static int get_line(FILE *f, char *buf, const char **why)
{
	size_t len = 0;
	int c;

	*why = NULL;
	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (!c)
			*why = "NUL byte";
		else if (len == STATE_MAX_LINE)
			*why = *why ? *why : "line too long";
		else
			buf[len++] = c;
	}
	buf[len] = '\0';
	if (c == EOF && ferror(f))
		return -EIO;
	if (c == EOF && !len && !*why)
		return 0;
	if (c == EOF && !*why)
		*why = "truncated (no newline at the end)";
	return *why ? 2 : 1;
}

static int read_lines(struct reader *r, FILE *f, struct acct_store *s)
{
	char *buf = malloc(STATE_MAX_LINE + 1);
	const char *why;
	size_t i;
	int ret;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		r->line++;
		ret = get_line(f, buf, &why);
		if (ret == 2 && r->line == 1)
			ret = fault(r, why);
		else if (ret == 2)
			ret = bad_line(r, why);
		else if (ret == 1)
			ret = parse_line(r, s, buf);
		else
			break;
		if (ret)
			break;
	}
	if (!ret && r->line == 1)
		ret = fault(r, "empty file");
	for (i = 0; !ret && i < s->n; i++)
		ret = acct_restore_end(s->v[i]);
	if (!ret && r->dropped > STATE_MAX_WARN)
		warn("accounting state %s: %lu more bad lines dropped",
		     r->file, r->dropped - STATE_MAX_WARN);
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

	*err = '\0';
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

void state_boot_id(char *buf, size_t len)
{
	FILE *f = fopen(BOOT_ID_FILE, "re");

	*buf = '\0';
	if (!f)
		return;
	if (!fgets(buf, len, f))
		*buf = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}
