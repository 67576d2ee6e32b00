// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup2_pattern.h"
#include "cgroup2_user.h"
#include "daemon_config.h"
#include "util_family.h"
#include "util_log.h"

static int copy_name(char *dst, const char *src, size_t len, const char *what,
		     char *err, size_t errlen)
{
	size_t i;

	if (!len) {
		snprintf(err, errlen, "empty %s name", what);
		return -1;
	}
	if (len >= NFTCG_NAME_MAX) {
		snprintf(err, errlen, "%s name longer than %d bytes", what,
			 NFTCG_NAME_MAX - 1);
		return -1;
	}
	for (i = 0; i < len; i++) {
		if (src[i] == ' ' || src[i] == '\t') {
			snprintf(err, errlen, "%s name \"%.*s\" contains a blank",
				 what, (int)len, src);
			return -1;
		}
	}
	memcpy(dst, src, len);
	dst[len] = '\0';
	return 0;
}

int target_parse(const char *text, size_t len, int *family, char *table,
		 char *set, char *err, size_t errlen)
{
	const char *end = text + len, *c1, *c2;
	size_t flen;

	c1 = memchr(text, ':', len);
	c2 = c1 ? memchr(c1 + 1, ':', end - c1 - 1) : NULL;
	if (!c2 || memchr(c2 + 1, ':', end - c2 - 1)) {
		snprintf(err, errlen,
			 "\"%.*s\" is not FAMILY:TABLE:SET", (int)len, text);
		return -1;
	}
	flen = c1 - text;
	*family = family_parse(text, flen);
	if (*family < 0) {
		snprintf(err, errlen,
			 "unknown family \"%.*s\" (ip, ip6, inet, arp, bridge, netdev)",
			 (int)flen, text);
		return -1;
	}
	if (copy_name(table, c1 + 1, c2 - c1 - 1, "table", err, errlen) ||
	    copy_name(set, c2 + 1, end - c2 - 1, "set", err, errlen))
		return -1;
	return 0;
}

static struct target_conf *target_get(struct config *cfg, int family,
				      const char *table, const char *set)
{
	struct target_conf *t;
	size_t i;

	for (i = 0; i < cfg->n; i++) {
		t = &cfg->t[i];
		if (t->family == family && !strcmp(t->table, table) &&
		    !strcmp(t->set, set))
			return t;
	}
	t = realloc(cfg->t, (cfg->n + 1) * sizeof(*t));
	if (!t)
		return NULL;
	cfg->t = t;
	t = &cfg->t[cfg->n++];
	memset(t, 0, sizeof(*t));
	t->family = family;
	strcpy(t->table, table);
	strcpy(t->set, set);
	snprintf(t->name, sizeof(t->name), "%s:%s:%s", family_name(family),
		 table, set);
	return t;
}

/* Is @p[@i] escaped, i.e. preceded by an odd number of backslashes? */
static bool escaped(const char *p, size_t i)
{
	size_t n = 0;

	while (i > n && p[i - n - 1] == '\\')
		n++;
	return n % 2;
}

int binding_add(struct config *cfg, const char *text, const char *where,
		char *err, size_t errlen)
{
	char table[NFTCG_NAME_MAX], set[NFTCG_NAME_MAX];
	const char *eq = strchr(text, '='), *pat;
	struct binding *b;
	struct target_conf *t;
	enum cg2_error e;
	size_t off = 0, i;
	int family;

	if (!eq) {
		snprintf(err, errlen,
			 "\"%s\" is not FAMILY:TABLE:SET=PATTERN (no \"=\")",
			 text);
		return -1;
	}
	if (target_parse(text, eq - text, &family, table, set, err, errlen))
		return -1;
	pat = eq + 1;
	/*
	 * "PATTERN  # note" would be a valid pattern that never matches: for a
	 * deny-list, a silent fail-open.  Comments take whole lines; a blank
	 * then '#' in a name is written with an escape ("a\ #b" or "a \#b").
	 */
	for (i = 1; pat[i]; i++) {
		if (pat[i] == '#' && (pat[i - 1] == ' ' || pat[i - 1] == '\t') &&
		    !escaped(pat, i - 1)) {
			snprintf(err, errlen, "pattern \"%s\" has a blank and "
				 "'#' at offset %zu: comments take a whole line, "
				 "an inline one would be part of the pattern "
				 "(write \"\\#\" for a '#' in a name)",
				 pat, i - 1);
			return -1;
		}
	}
	e = cg2_validate(pat, strlen(pat), NFTCG_PATTERN_MAX, &off,
			 cg2_user_work());
	if (e != CG2_OK) {
		snprintf(err, errlen, "pattern \"%s\" %s (at offset %zu)",
			 pat, cg2_strerror(e), off);
		return -1;
	}
	t = target_get(cfg, family, table, set);
	if (!t)
		goto nomem;
	for (i = 0; i < t->nb; i++)
		if (!strcmp(t->b[i].pattern, pat))
			return 0;	/* duplicate binding: nothing to add */
	b = realloc(t->b, (t->nb + 1) * sizeof(*b));
	if (!b)
		goto nomem;
	t->b = b;
	b = &t->b[t->nb];
	*b = (struct binding){ 0 };
	b->pattern = strdup(pat);
	b->prog = cg2_prog_new(pat);
	b->spec = strdup(text);
	b->where = strdup(where);
	if (!b->pattern || !b->prog || !b->spec || !b->where) {
		free(b->pattern);
		free(b->prog);
		free(b->spec);
		free(b->where);
		goto nomem;
	}
	t->nb++;
	return 0;
nomem:
	snprintf(err, errlen, "%s", strerror(ENOMEM));
	return -1;
}

int config_load_file(struct config *cfg, const char *path)
{
	char *line = NULL, where[4200], errbuf[4600];
	size_t cap = 0, lineno = 0;
	int ret = 0;
	ssize_t len;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		err("%s: %s", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *s = line, *e = line + len;

		lineno++;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == '\n' || e[-1] == '\r' ||
				 e[-1] == ' ' || e[-1] == '\t'))
			e--;
		*e = '\0';
		if (!*s || *s == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%zu", path, lineno);
		if (strlen(s) != (size_t)(e - s)) {
			err("%s: NUL byte in line", where);
			ret = -1;
			continue;
		}
		if (binding_add(cfg, s, where, errbuf, sizeof(errbuf))) {
			err("%s: %s", where, errbuf);
			ret = -1;
		}
	}
	if (ferror(f)) {
		err("%s: %s", path, strerror(errno));
		ret = -1;
	}
	free(line);
	fclose(f);
	return ret;
}

void config_free(struct config *cfg)
{
	size_t i, j;

	for (i = 0; i < cfg->n; i++) {
		struct target_conf *t = &cfg->t[i];

		for (j = 0; j < t->nb; j++) {
			free(t->b[j].pattern);
			free(t->b[j].prog);
			free(t->b[j].spec);
			free(t->b[j].where);
		}
		free(t->b);
	}
	free(cfg->t);
	cfg->t = NULL;
	cfg->n = 0;
}

bool target_conf_same(const struct target_conf *a,
		      const struct target_conf *b)
{
	size_t i;

	if (a->family != b->family || strcmp(a->table, b->table) ||
	    strcmp(a->set, b->set) || a->nb != b->nb)
		return false;
	for (i = 0; i < a->nb; i++)
		if (strcmp(a->b[i].pattern, b->b[i].pattern))
			return false;
	return true;
}
