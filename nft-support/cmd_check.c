// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * --check: read every bound set, diff it with the cgroup tree as scanned,
 * print what a sync would add and remove.  Nothing is committed, so it is
 * safe in CI and before a reload (SIGHUP) of a running daemon.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_check.h"
#include "util_textesc.h"

/* The live cgroups behind the ids of a plan, to print their paths. */
struct paths {
	const uint64_t *ids;	/* sorted */
	size_t n;
	char **path;		/* parallel to @ids; NULL: no live cgroup */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void note_path(void *ctx, const struct cgnode *n)
{
	struct paths *p = ctx;
	const uint64_t *hit;

	hit = bsearch(&n->id, p->ids, p->n, sizeof(*p->ids), cmp_u64);
	if (!hit)
		return;
	p->path[hit - p->ids] = cgnode_path(n);
}

static void print_ids(struct daemon *d, char sign, uint64_t *ids, size_t n)
{
	struct paths p = { .ids = ids, .n = n };
	size_t i;

	/* An empty diff may come as NULL, which qsort() must not see. */
	if (!n)
		return;
	qsort(ids, n, sizeof(*ids), cmp_u64);
	p.path = calloc(n, sizeof(*p.path));
	if (p.path)
		cgtree_foreach(&d->tree, note_path, &p);
	for (i = 0; i < n; i++) {
		printf("  %c %llu ", sign, (unsigned long long)ids[i]);
		if (p.path && p.path[i]) {
			putchar('/');
			put_term_name(stdout, p.path[i]);
			putchar('\n');
		} else {
			puts("(no live cgroup)");
		}
		if (p.path)
			free(p.path[i]);
	}
	free(p.path);
}

/* One set: its line, then one line per id to add (+) or remove (-). */
static int check_target(struct daemon *d, struct target *t)
{
	struct sync_plan p = { 0 };
	char msg[512];
	int status;

	if (sync_plan(&d->sync, t, &p, msg, sizeof(msg))) {
		printf("%s: cannot check: %s\n", t->conf->name, msg);
		return CHECK_TROUBLE;
	}
	if (!p.nadd && !p.ndel)
		printf("%s: in sync (%zu ids)\n", t->conf->name, t->want.used);
	else
		printf("%s: would add %zu, remove %zu (holds %zu ids, wants %zu)\n",
		       t->conf->name, p.nadd, p.ndel, t->have.used,
		       t->want.used);
	print_ids(d, '+', p.add, p.nadd);
	print_ids(d, '-', p.del, p.ndel);
	status = p.nadd || p.ndel ? CHECK_CHANGES : CHECK_IN_SYNC;
	sync_plan_free(&p);
	return status;
}

int check_run(struct daemon *d)
{
	int status = CHECK_IN_SYNC, s;
	size_t i;

	for (i = 0; i < d->sync.n; i++) {
		s = check_target(d, &d->sync.t[i]);
		if (s > status)
			status = s;
	}
	fflush(stdout);
	return status;
}
