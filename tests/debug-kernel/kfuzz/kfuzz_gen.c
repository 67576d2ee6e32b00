// SPDX-License-Identifier: GPL-2.0
/*
 * Blob generation: valid blobs from seed patterns, then mutated in the ways
 * that reach each branch of the kernel's checkentry: bytes, header fields,
 * glob-heavy and costly patterns, random garbage, lengths around the limit
 * and wrong match sizes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup2_pattern.h"
#include "kfuzz.h"

static const char *const kind_names[KF_NKINDS] = {
	"valid", "bytes", "fields", "globs", "costly", "random", "long",
	"splice", "size",
};

const char *kf_kind_name(enum kf_kind k)
{
	return kind_names[k];
}

int kf_seeds_load(struct kf_seeds *s, const char *file)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	f = fopen(file, "re");
	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (!n || line[0] == '#')
			continue;
		s->pat = realloc(s->pat, (s->n + 1) * sizeof(*s->pat));
		if (!s->pat || !(s->pat[s->n] = strdup(line)))
			return -ENOMEM;
		s->n++;
	}
	free(line);
	fclose(f);
	return s->n ? 0 : -ENODATA;
}

/* Append pattern @p (@n bytes) and its NUL; false when it does not fit. */
static bool pack(struct xt_cgroup2_info *info, const char *p, size_t n)
{
	if (info->len + n + 1 > sizeof(info->patterns))
		return false;
	memcpy(info->patterns + info->len, p, n);
	info->len += n + 1;
	info->count++;
	return true;
}

static void pack_seeds(struct kf_rng *r, const struct kf_seeds *s,
		       struct xt_cgroup2_info *info)
{
	unsigned int i, n = 1 + kf_below(r, 4);

	for (i = 0; i < n; i++) {
		const char *p = s->pat[kf_below(r, s->n)];

		pack(info, p, strlen(p));
	}
	if (kf_below(r, 8) == 0)
		info->flags = XT_CGROUP2_INVERT;
}

/* The bytes glob syntax is made of, and some that are never allowed. */
static const char special[] = "*?[]{}!^\\/.,-az09_\001\177\377";

static void mutate_bytes(struct kf_rng *r, struct xt_cgroup2_info *info)
{
	unsigned int i, n = 1 + kf_below(r, 4), span = info->len + 4;

	for (i = 0; i < n; i++) {
		unsigned int at = kf_below(r, span);
		char c = kf_below(r, 4) ? special[kf_below(r, sizeof(special) - 1)]
					: (char)kf_next(r);

		if (at < sizeof(info->patterns))
			info->patterns[at] = kf_below(r, 8) ? c : '\0';
	}
}

static const unsigned int edge[] = {
	0, 1, 2, 63, 64, 65, 255, 1023, 1024, 2047, 2048, 2049, 65535,
};

static void mutate_fields(struct kf_rng *r, struct xt_cgroup2_info *info)
{
	unsigned int v = kf_below(r, 2) ? edge[kf_below(r, sizeof(edge) / sizeof(*edge))]
					: (unsigned int)kf_next(r);

	switch (kf_below(r, 5)) {
	case 0: info->count = v; break;
	case 1: info->count += kf_below(r, 2) ? 1 : -1; break;
	case 2: info->len = v; break;
	case 3: info->len += kf_below(r, 2) ? 1 : -1; break;
	default: info->flags = 1U << kf_below(r, 32); break;
	}
}

/* Components tests are made of: names of the fuzzer's cgroups, globs. */
static const char *const tokens[] = {
	"fz", "a", "b", "web.service", "app-1.scope", "x", "y", "deep",
	"sys.slice", "*", "?", "**", "*.service", "app-[0-9].scope", "[!w]*",
	"{a,b,web.service}", "[a-c]", "\\*", "w?b.*", "*[a-z]*", "{x,y}*",
	"[^.]*", "**", "a*b*c", "*s*e*r*v*i*c*e*",
};

static void pack_globs(struct kf_rng *r, struct xt_cgroup2_info *info)
{
	unsigned int i, j, np = 1 + kf_below(r, 6);
	char buf[512];
	size_t n;

	for (i = 0; i < np; i++) {
		unsigned int depth = 1 + kf_below(r, 5);

		n = 0;
		if (kf_below(r, 4) == 0)
			buf[n++] = '/';
		for (j = 0; j < depth; j++) {
			const char *t = tokens[kf_below(r, sizeof(tokens) / sizeof(*tokens))];

			n += snprintf(buf + n, sizeof(buf) - n, "%s%s", j ? "/" : "", t);
		}
		if (!pack(info, buf, n))
			break;
	}
	if (kf_below(r, 6) == 0)
		info->flags = XT_CGROUP2_INVERT;
}

/* Patterns of many '*'/'?' states: sums around XT_CGROUP2_MAX_STATES. */
static void pack_costly(struct kf_rng *r, struct xt_cgroup2_info *info)
{
	unsigned int np = 1 + kf_below(r, 8), i, j, stars;
	char buf[CG2_MAX_PATTERN_LEN + 1];

	for (i = 0; i < np; i++) {
		size_t n = 0;

		stars = 16 + kf_below(r, 120);
		for (j = 0; j < stars && n + 4 < sizeof(buf); j++) {
			buf[n++] = kf_below(r, 3) ? '*' : '?';
			buf[n++] = "abfz"[kf_below(r, 4)];
			if (kf_below(r, 10) == 0)
				buf[n++] = '/';
		}
		if (n && buf[n - 1] == '/')
			n--;
		if (!pack(info, buf, n))
			break;
	}
}

static void pack_random(struct kf_rng *r, struct xt_cgroup2_info *info)
{
	unsigned int i;

	info->count = kf_below(r, 70);
	info->len = kf_below(r, 8) ? kf_below(r, 300) : kf_below(r, 2100);
	for (i = 0; i < info->len && i < sizeof(info->patterns); i++)
		info->patterns[i] = kf_below(r, 3) ? special[kf_below(r, sizeof(special) - 1)]
						   : (char)kf_next(r);
	if (kf_below(r, 2))
		info->flags = kf_below(r, 2) ? XT_CGROUP2_INVERT : (uint32_t)kf_next(r);
}

static void pack_long(struct kf_rng *r, struct xt_cgroup2_info *info)
{
	size_t n = CG2_MAX_PATTERN_LEN - 3 + kf_below(r, 7);
	char buf[CG2_MAX_PATTERN_LEN + 8];
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (i % 40 == 39) ? '/' :
			 kf_below(r, 512) ? "fzab"[kf_below(r, 4)] : '*';
	pack(info, buf, n);
}

static void pack_splice(struct kf_rng *r, const struct kf_seeds *s,
			struct xt_cgroup2_info *info)
{
	const char *a = s->pat[kf_below(r, s->n)], *b = s->pat[kf_below(r, s->n)];
	size_t na = kf_below(r, strlen(a) + 1), nb = kf_below(r, strlen(b) + 1);
	char buf[2 * CG2_MAX_PATTERN_LEN + 2];

	memcpy(buf, a, na);
	memcpy(buf + na, b + nb, strlen(b) - nb);
	pack(info, buf, na + strlen(b) - nb);
}

void kf_generate(struct kf_rng *r, const struct kf_seeds *s, struct kf_blob *b)
{
	struct xt_cgroup2_info *info = &b->info;

	memset(b, 0, sizeof(*b));
	b->data_size = sizeof(*info);
	/*
	 * x_tables logs each wrong size at error level, on the console:
	 * rare, so that the serial line does not set the pace.
	 */
	b->kind = kf_below(r, 256) ? kf_below(r, KF_SIZE) : KF_SIZE;
	switch (b->kind) {
	case KF_VALID: pack_seeds(r, s, info); break;
	case KF_BYTES: pack_seeds(r, s, info); mutate_bytes(r, info); break;
	case KF_FIELDS: pack_seeds(r, s, info); mutate_fields(r, info); break;
	case KF_GLOBS: pack_globs(r, info); break;
	case KF_COSTLY: pack_costly(r, info); break;
	case KF_RANDOM: pack_random(r, info); break;
	case KF_LONG: pack_long(r, info); break;
	case KF_SPLICE: pack_splice(r, s, info); break;
	default:
		pack_seeds(r, s, info);
		b->data_size = kf_below(r, 2) ? sizeof(*info) - 8 : sizeof(*info) + 8;
		break;
	}
	/* The kernel owns priv; what userspace puts there must not matter. */
	info->priv = (void *)(uintptr_t)kf_next(r);
}
