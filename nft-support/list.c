// SPDX-License-Identifier: GPL-2.0 OR MIT
/* --list: the ids a set holds, one a line, sorted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "list.h"
#include "log.h"
#include "nftset.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int print_sorted(const struct idset *ids)
{
	uint64_t id, *v;
	size_t pos = 0, n = 0, i;

	v = malloc((ids->used + 1) * sizeof(*v));
	if (!v) {
		err("%s", strerror(ENOMEM));
		return 1;
	}
	while (idset_next(ids, &pos, &id))
		v[n++] = id;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		printf("%llu\n", (unsigned long long)v[i]);
	free(v);
	return 0;
}

int list_set(const char *spec)
{
	char table[NFTCG_NAME_MAX], set[NFTCG_NAME_MAX], msg[4600];
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
	if (nfs_read_set(&nfs, family, table, set, &ids, msg, sizeof(msg))) {
		err("%s: %s", spec, msg);
		ret = 1;
	} else {
		ret = print_sorted(&ids);
	}
	idset_free(&ids);
	nfs_close(&nfs);
	return ret;
}
