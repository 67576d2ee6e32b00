// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Userspace helpers around the pattern engine: mount lookup, string paths. */
#define _GNU_SOURCE
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

int cg2_find_mount(char *buf, size_t size)
{
	char *line = NULL, *mnt, *sep;
	size_t cap = 0;
	int ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE ... */
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		mnt = line;
		for (int field = 0; field < 4 && mnt; field++) {
			mnt = strchr(mnt, ' ');
			if (mnt)
				mnt++;
		}
		if (!mnt || !strchr(mnt, ' '))
			continue;
		*strchr(mnt, ' ') = '\0';
		unescape_octal(mnt);
		if (strlen(mnt) >= size) {
			ret = -ERANGE;
		} else {
			memcpy(buf, mnt, strlen(mnt) + 1);
			ret = 0;
		}
		break;
	}
	free(line);
	fclose(f);
	return ret;
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

int cg2_match_string(const char *pat, const char *path, bool subtree)
{
	struct string_path sp;
	struct cg2_path cp = { string_component, &sp, 0 };
	unsigned int n = 0;
	const char *p;
	int ret;

	for (p = path; *p; p++)
		n += *p == '/';
	sp.name = calloc(n + 1, sizeof(*sp.name));
	sp.len = calloc(n + 1, sizeof(*sp.len));
	if (!sp.name || !sp.len) {
		free(sp.name);
		free(sp.len);
		return -ENOMEM;
	}
	for (p = path; *p; ) {
		const char *e = strchrnul(p, '/');

		if (e > p) {
			sp.name[cp.depth] = p;
			sp.len[cp.depth++] = e - p;
		}
		p = *e ? e + 1 : e;
	}
	ret = subtree ? cg2_match_subtree(pat, &cp) : cg2_match_exact(pat, &cp);
	free(sp.name);
	free(sp.len);
	return ret;
}
