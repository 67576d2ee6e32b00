// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup2_pattern.h"
#include "cgroup2_user.h"
#include "cg_levels.h"

static int components(const char *p)
{
	int n = 0;

	for (; *p; p++)
		if (*p != '/' && (p[1] == '/' || p[1] == '\0'))
			n++;
	return n;
}

struct dir_mount {
	const char *real;
	char root[PATH_MAX];
	size_t best;
	int found;
};

/* Keep the cgroup2 mount with the longest mount point that holds the dir. */
static int dir_mount_cb(const char *point, const char *root, void *arg)
{
	struct dir_mount *dm = arg;
	size_t len = strlen(point);

	if (len == 1)
		len = 0;	/* "/" */
	if (strncmp(dm->real, point, len) ||
	    (dm->real[len] != '/' && dm->real[len] != '\0'))
		return 0;
	if (!dm->found || len >= dm->best) {
		dm->best = len;
		dm->found = 1;
		snprintf(dm->root, sizeof(dm->root), "%s", root);
	}
	return 0;
}

int cgroup_dir_level(const char *dir)
{
	char real[PATH_MAX];
	struct dir_mount dm = { real, "", 0, 0 };

	if (!realpath(dir, real) || cg2_for_each_mount(dir_mount_cb, &dm) < 0)
		return -1;
	/* a mount whose root is outside our cgroup namespace shows "/.." */
	if (!dm.found || strstr(dm.root, ".."))
		return -1;
	return components(dm.root) + components(real + dm.best);
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
