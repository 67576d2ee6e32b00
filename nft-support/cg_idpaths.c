// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>

#include "cg_idpaths.h"
#include "cg_tree.h"

/* nftw() takes no context pointer: one walk at a time, in a command. */
static struct {
	const uint64_t *ids;
	size_t n, found, rootlen;
	char **paths;
} walk;

static int cmp_id(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, b = *(const uint64_t *)elem;

	return a < b ? -1 : a > b;
}

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	const uint64_t *hit;
	uint64_t id = st->st_ino;	/* a cgroup's inode number is its id */

	if (type != FTW_D)
		return FTW_SKIP_SUBTREE;
	hit = bsearch(&id, walk.ids, walk.n, sizeof(id), cmp_id);
	if (hit && !walk.paths[hit - walk.ids]) {
		const char *rel = path + walk.rootlen;

		walk.paths[hit - walk.ids] = strdup(*rel ? rel : "/");
		if (!walk.paths[hit - walk.ids])
			return FTW_STOP;
		if (++walk.found == walk.n)
			return FTW_STOP;
	}
	return ftw->level >= CGTREE_MAX_DEPTH ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
}

int idpaths_find(const char *root, const uint64_t *ids, size_t n,
		 char **paths)
{
	size_t len = strlen(root);
	int ret;

	while (len > 1 && root[len - 1] == '/')
		len--;
	walk.ids = ids;
	walk.n = n;
	walk.found = 0;
	walk.paths = paths;
	walk.rootlen = len;
	memset(paths, 0, n * sizeof(*paths));
	if (!n)
		return 0;
	/* FTW_PHYS: no symlinks; FTW_MOUNT: stay in this cgroup2 mount */
	ret = nftw(root, visit, 16, FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL);
	return ret < 0 ? -errno : 0;
}
