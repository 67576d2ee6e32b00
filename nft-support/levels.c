// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup2_pattern.h"
#include "levels.h"

/* Undo the octal escapes of mountinfo (\040 for a space) in place. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0');
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

static int components(const char *p)
{
	int n = 0;

	for (; *p; p++)
		if (*p != '/' && (p[1] == '/' || p[1] == '\0'))
			n++;
	return n;
}

int cgroup_dir_level(const char *dir)
{
	char real[PATH_MAX], *line = NULL, best_root[PATH_MAX] = "";
	size_t cap = 0, best = 0;
	int found = 0, level;
	FILE *f;

	if (!realpath(dir, real))
		return -1;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		char *fld[6], *sep, *save = NULL, *fstype;
		size_t len;
		int i;

		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		fstype = strtok_r(sep + 3, " ", &save);
		if (!fstype || strcmp(fstype, "cgroup2"))
			continue;
		save = NULL;
		for (i = 0; i < 5; i++)
			if (!(fld[i] = strtok_r(i ? NULL : line, " ", &save)))
				break;
		if (i < 5)
			continue;
		unescape(fld[3]);	/* root of the mount, in our namespace */
		unescape(fld[4]);	/* mount point */
		len = strlen(fld[4]);
		if (len == 1)
			len = 0;	/* "/" */
		if (strncmp(real, fld[4], len) ||
		    (real[len] != '/' && real[len] != '\0'))
			continue;
		if (!found || len >= best) {
			best = len;
			found = 1;
			snprintf(best_root, sizeof(best_root), "%s", fld[3]);
		}
	}
	free(line);
	fclose(f);
	/* a mount whose root is outside our cgroup namespace shows "/.." */
	if (!found || strstr(best_root, ".."))
		return -1;
	level = components(best_root) + components(real + best);
	return level;
}

unsigned int pattern_min_depth(const char *pat, int *fixed)
{
	int d = cg2_depth(pat);
	unsigned int n = 0;
	const char *p = pat, *e;

	*fixed = d >= 0;
	if (d >= 0)
		return d;
	/* count the components that are not "**"; a glob never holds '/' */
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		if (!(e - p == 2 && p[0] == '*' && p[1] == '*'))
			n++;
		p = e;
	}
	return n;
}
