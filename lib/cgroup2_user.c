// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Userspace helpers around the pattern engine: mount lookup, string paths. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup2_pattern.h"
#include "cgroup2_user.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

int cg2_for_each_mount(int (*fn)(const char *point, const char *root,
				 void *arg), void *arg)
{
	char *line = NULL, *field[5], *sep, *save;
	size_t cap = 0;
	int ret = 0, i;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (!ret && getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE ... */
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		*sep = '\0';
		save = NULL;
		for (i = 0; i < 5; i++)
			if (!(field[i] = strtok_r(i ? NULL : line, " ", &save)))
				break;
		if (i < 5)
			continue;
		unescape_octal(field[3]);
		unescape_octal(field[4]);
		ret = fn(field[4], field[3], arg);
	}
	free(line);
	fclose(f);
	return ret;
}

struct find_mount {
	char *buf;
	size_t size;
	int ret;
};

/* Take the first mount, and a later one only if it shows the whole tree. */
static int find_mount_cb(const char *point, const char *root, void *arg)
{
	struct find_mount *fm = arg;
	size_t len = strlen(point);

	if (fm->ret == 0 && strcmp(root, "/") != 0)
		return 0;
	if (len >= fm->size) {
		fm->ret = -ERANGE;
	} else {
		memcpy(fm->buf, point, len + 1);
		fm->ret = strcmp(root, "/") == 0 ? 1 : 0;
	}
	return fm->ret == 1;
}

int cg2_find_mount(char *buf, size_t size)
{
	struct find_mount fm = { buf, size, -ENOENT };
	int ret = cg2_for_each_mount(find_mount_cb, &fm);

	if (ret < 0)
		return ret;
	return fm.ret == 1 ? 0 : fm.ret;
}

struct string_path {
	const char **name;
	size_t *len;
};

static const char *string_component(const void *ctx, unsigned int i,
				    size_t *len)
{
	const struct string_path *sp = ctx;

	*len = sp->len[i];
	return sp->name[i];
}

struct cg2_work *cg2_user_work(void)
{
	static unsigned long long work[CG2_WORK_SIZE / sizeof(long long)];

	return (struct cg2_work *)work;
}

struct cg2_prog *cg2_prog_new(const char *pat)
{
	size_t len = strlen(pat);
	size_t size = cg2_compile(pat, len, NULL, 0, cg2_user_work());
	struct cg2_prog *prog = size ? malloc(size) : NULL;

	if (prog)
		cg2_compile(pat, len, prog, size, cg2_user_work());
	return prog;
}

/*
 * Split @path at '/' into @sp and @cp (names point into @path); free
 * sp->name and sp->len after.  0 or -ENOMEM.
 */
static int string_path_split(const char *path, struct string_path *sp,
			     struct cg2_path *cp)
{
	unsigned int n = 0;
	const char *p;

	for (p = path; *p; p++)
		n += *p == '/';
	sp->name = calloc(n + 1, sizeof(*sp->name));
	sp->len = calloc(n + 1, sizeof(*sp->len));
	*cp = (struct cg2_path){ string_component, sp, 0 };
	if (!sp->name || !sp->len) {
		free(sp->name);
		free(sp->len);
		return -ENOMEM;
	}
	for (p = path; *p; ) {
		const char *e = strchrnul(p, '/');

		if (e > p) {
			sp->name[cp->depth] = p;
			sp->len[cp->depth++] = e - p;
		}
		p = *e ? e + 1 : e;
	}
	return 0;
}

int cg2_match_string(const char *pat, const char *path, bool subtree)
{
	struct string_path sp;
	struct cg2_path cp;
	struct cg2_prog *prog;
	int ret = string_path_split(path, &sp, &cp);

	if (ret)
		return ret;
	prog = cg2_prog_new(pat);
	if (prog)
		ret = subtree ? cg2_match_subtree(prog, &cp) :
				cg2_match_exact(prog, &cp);
	else
		ret = -ENOMEM;
	free(prog);
	free(sp.name);
	free(sp.len);
	return ret;
}

struct cg2_dfa_work *cg2_user_dfa_work(void)
{
	static unsigned long long work[CG2_DFA_WORK_SIZE / sizeof(long long)];

	return (struct cg2_dfa_work *)work;
}

struct cg2_dfa *cg2_dfa_new(const char *pats, unsigned int count,
			    unsigned int flags)
{
	size_t size = cg2_dfa_build(pats, count, flags, cg2_user_dfa_work());
	struct cg2_dfa *dfa = size ? malloc(size) : NULL;

	if (dfa)
		cg2_dfa_write(cg2_user_dfa_work(), dfa);
	return dfa;
}

int cg2_dfa_match_string(const struct cg2_dfa *dfa, const char *path,
			 bool subtree)
{
	struct string_path sp;
	struct cg2_path cp;
	int ret = string_path_split(path, &sp, &cp);

	if (ret)
		return ret;
	ret = subtree ? cg2_dfa_match_subtree(dfa, &cp) :
			cg2_dfa_match_exact(dfa, &cp);
	free(sp.name);
	free(sp.len);
	return ret;
}
