// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * --list: the ids a set holds, sorted, one a line with the path of the
 * live cgroup ("(no live cgroup)" for a stale id) and, when the set counts
 * per element, its counter.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_config.h"
#include "cgroup2_user.h"
#include "nl_counters.h"
#include "cg_idpaths.h"
#include "cmd_list.h"
#include "util_log.h"
#include "nl_set.h"
#include "util_textesc.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* elem_counter begins with its id: sorted and searched by it. */
static const struct elem_counter *counter_of(const struct counter_list *l,
					     uint64_t id)
{
	/* A set without counters has none: l->v is NULL, bsearch()'s UB. */
	if (!l->n)
		return NULL;
	return bsearch(&id, l->v, l->n, sizeof(*l->v), cmp_u64);
}

static void print_line(uint64_t id, const char *path,
		       const struct elem_counter *c)
{
	printf("%llu ", (unsigned long long)id);
	if (path)
		put_term_name(stdout, path);
	else
		fputs("(no live cgroup)", stdout);
	if (c)
		printf(" packets %llu bytes %llu", (unsigned long long)c->packets,
		       (unsigned long long)c->bytes);
	putchar('\n');
}

/* The paths of @v below the cgroup root; without a root, none. */
static void find_paths(const char *root_opt, const uint64_t *v, size_t n,
		       char **paths)
{
	char root[PATH_MAX];
	int ret;

	memset(paths, 0, n * sizeof(*paths));
	if (root_opt)
		snprintf(root, sizeof(root), "%s", root_opt);
	else if (cg2_find_mount(root, sizeof(root)))
		return;
	ret = idpaths_find(root, v, n, paths);
	if (ret)
		warn("%s: %s; paths may be missing", root, strerror(-ret));
}

static int print_sorted(const struct idset *ids, struct counter_list *ctr,
			const char *root)
{
	uint64_t id, *v = malloc((ids->used + 1) * sizeof(*v));
	char **paths = calloc(ids->used + 1, sizeof(*paths));
	size_t pos = 0, n = 0, i;

	if (!v || !paths) {
		free(v);
		free(paths);
		err("%s", strerror(ENOMEM));
		return 1;
	}
	while (idset_next(ids, &pos, &id))
		v[n++] = id;
	qsort(v, n, sizeof(*v), cmp_u64);
	if (ctr->n)
		qsort(ctr->v, ctr->n, sizeof(*ctr->v), cmp_u64);
	find_paths(root, v, n, paths);
	for (i = 0; i < n; i++) {
		print_line(v[i], paths[i], counter_of(ctr, v[i]));
		free(paths[i]);
	}
	free(paths);
	free(v);
	return 0;
}

int list_set(const char *spec, const char *root)
{
	char table[NFTCG_NAME_MAX], set[NFTCG_NAME_MAX], msg[4600];
	struct counter_list ctr = { 0 };
	struct idset ids = { 0 };
	struct nfs nfs;
	int family, ret;

	if (target_parse(spec, strlen(spec), &family, table, set, msg,
			 sizeof(msg))) {
		err("--list: %s", msg);
		return 2;
	}
	ret = nfs_open(&nfs);
	if (ret) {
		err("netlink: %s", strerror(-ret));
		return 1;
	}
	if (nfs_read_counters(&nfs, family, table, set, false, &ids, &ctr, msg,
			      sizeof(msg))) {
		err("%s: %s", spec, msg);
		ret = 1;
	} else {
		ret = print_sorted(&ids, &ctr, root);
	}
	counter_list_free(&ctr);
	idset_free(&ids);
	nfs_close(&nfs);
	return ret;
}
