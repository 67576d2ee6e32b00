// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "acct_store.h"
#include "util_log.h"

static size_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return idset_hash(h);
}

static void ctr_add(struct acct_ctr *to, const struct acct_ctr *c)
{
	to->packets += c->packets;
	to->bytes += c->bytes;
}

struct acct_ctr acct_total(const struct acct_path *e)
{
	struct acct_ctr t = e->done;

	ctr_add(&t, &e->live);
	return t;
}

struct acct *acct_new(const char *name)
{
	struct acct *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->name = strdup(name);
	if (!a->name) {
		free(a);
		return NULL;
	}
	return a;
}

void acct_free(struct acct *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++)
		free(a->p[i].path);
	for (i = 0; i < a->npend; i++)
		free(a->pend[i].path);
	free(a->pend);
	free(a->p);
	free(a->by_id);
	free(a->by_path);
	free(a->name);
	free(a);
}

/* The slot of @id in by_id: where it is, or the empty one to put it. */
static size_t *id_slot(struct acct *a, uint64_t id)
{
	size_t j = idset_hash(id) & (a->hcap - 1);

	while (a->by_id[j] && a->p[a->by_id[j] - 1].live_id != id)
		j = (j + 1) & (a->hcap - 1);
	return &a->by_id[j];
}

static size_t *path_slot(struct acct *a, const char *path)
{
	size_t j = hash_str(path) & (a->hcap - 1);

	while (a->by_path[j] && strcmp(a->p[a->by_path[j] - 1].path, path))
		j = (j + 1) & (a->hcap - 1);
	return &a->by_path[j];
}

/* Rebuild both indexes for @hcap slots (entries moved or the table grew). */
static int reindex(struct acct *a, size_t hcap)
{
	size_t *bi = calloc(hcap, sizeof(*bi)), *bp = calloc(hcap, sizeof(*bp));
	size_t i;

	if (!bi || !bp) {
		free(bi);
		free(bp);
		return -ENOMEM;
	}
	free(a->by_id);
	free(a->by_path);
	a->by_id = bi;
	a->by_path = bp;
	a->hcap = hcap;
	for (i = 0; i < a->n; i++) {
		*path_slot(a, a->p[i].path) = i + 1;
		if (a->p[i].live_id)
			*id_slot(a, a->p[i].live_id) = i + 1;
	}
	return 0;
}

struct acct_path *acct_find_path(struct acct *a, const char *path)
{
	size_t k;

	if (!a->hcap)
		return NULL;
	k = *path_slot(a, path);
	return k ? &a->p[k - 1] : NULL;
}

struct acct_path *acct_find_id(struct acct *a, uint64_t id)
{
	size_t k;

	if (!a->hcap || !id)
		return NULL;
	k = *id_slot(a, id);
	return k ? &a->p[k - 1] : NULL;
}

/* --- the idle paths, oldest first: the one to forget is found in O(1) --- */

static void idle_link(struct acct *a, size_t i)
{
	struct acct_path *e = &a->p[i];

	e->older = a->newest;
	e->newer = 0;
	if (a->newest)
		a->p[a->newest - 1].newer = i + 1;
	else
		a->oldest = i + 1;
	a->newest = i + 1;
}

static void idle_unlink(struct acct *a, size_t i)
{
	struct acct_path *e = &a->p[i];

	if (e->older)
		a->p[e->older - 1].newer = e->newer;
	else
		a->oldest = e->newer;
	if (e->newer)
		a->p[e->newer - 1].older = e->older;
	else
		a->newest = e->older;
	e->older = e->newer = 0;
}

/* Empty @slot of @tab and re-place the rest of its cluster. */
static void unslot(struct acct *a, size_t *tab, size_t *slot)
{
	size_t j, k;

	*slot = 0;
	j = (slot - tab + 1) & (a->hcap - 1);
	while ((k = tab[j])) {
		tab[j] = 0;
		if (tab == a->by_id)
			*id_slot(a, a->p[k - 1].live_id) = k;
		else
			*path_slot(a, a->p[k - 1].path) = k;
		j = (j + 1) & (a->hcap - 1);
	}
}

/* Forget the idle path @i; the last entry takes its place. */
static void forget(struct acct *a, size_t i)
{
	size_t last = a->n - 1;
	struct acct_path *m;

	idle_unlink(a, i);
	unslot(a, a->by_path, path_slot(a, a->p[i].path));
	free(a->p[i].path);
	if (i != last) {
		m = &a->p[last];
		*path_slot(a, m->path) = i + 1;
		if (m->live_id)
			*id_slot(a, m->live_id) = i + 1;
		if (!m->live_id) {
			if (m->older)
				a->p[m->older - 1].newer = i + 1;
			else
				a->oldest = i + 1;
			if (m->newer)
				a->p[m->newer - 1].older = i + 1;
			else
				a->newest = i + 1;
		}
		a->p[i] = *m;
	}
	a->n--;
}

/* Make room for one more path: grow, or forget the longest idle one. */
static int make_room(struct acct *a)
{
	size_t cap;

	if (a->n < ACCT_MAX_PATHS) {
		if (a->n == a->cap) {
			struct acct_path *np;

			cap = a->cap ? a->cap * 2 : 16;
			np = realloc(a->p, cap * sizeof(*np));
			if (!np)
				return -ENOMEM;
			a->p = np;
			a->cap = cap;
		}
		return 0;
	}
	if (!a->oldest)
		return -ENOSPC;
	if (!a->warned_full)
		warn("%s: more than %d paths counted: forgetting those idle the longest, first %s",
		     a->name, ACCT_MAX_PATHS, a->p[a->oldest - 1].path);
	a->warned_full = true;
	forget(a, a->oldest - 1);
	return 0;
}

static struct acct_path *add_path(struct acct *a, const char *path)
{
	struct acct_path *e;
	char *copy = strdup(path);

	if (!copy || make_room(a)) {
		free(copy);
		return NULL;
	}
	if ((a->n + 1) * 2 > a->hcap && reindex(a, a->hcap ? a->hcap * 2 : 64)) {
		free(copy);
		return NULL;
	}
	e = &a->p[a->n++];
	memset(e, 0, sizeof(*e));
	e->path = copy;
	e->idle_since = time(NULL);
	*path_slot(a, copy) = a->n;
	idle_link(a, a->n - 1);
	return e;
}

static void unmap_id(struct acct *a, struct acct_path *e)
{
	if (!e->live_id)
		return;
	unslot(a, a->by_id, id_slot(a, e->live_id));
	e->live_id = 0;
}

/* What the live id counted becomes history. */
static void fold(struct acct *a, struct acct_path *e)
{
	ctr_add(&e->done, &e->live);
	e->live.packets = e->live.bytes = 0;
	a->changed = true;
}

int acct_bind(struct acct *a, uint64_t id, const char *path, bool made)
{
	struct acct_path *e = acct_find_path(a, path), *other;

	if (strlen(path) >= ACCT_MAX_PATH_LEN)
		return -ENAMETOOLONG;
	if (!e) {
		e = add_path(a, path);
		if (!e)
			return -ENOMEM;
	}
	if (e->live_id == id)
		return 0;
	other = acct_find_id(a, id);
	if (other)	/* cannot be: ids are never reused; keep one owner */
		acct_depart(a, id);
	if (e->live_id) {
		fold(a, e);
		unmap_id(a, e);
	} else {
		idle_unlink(a, e - a->p);
	}
	if (e->last_id && e->last_id != id)
		e->restarts++;
	e->last_id = id;
	e->live_id = id;
	e->elem = (struct acct_ctr){ 0 };
	e->baseline = !made;
	e->idle_since = 0;
	*id_slot(a, id) = e - a->p + 1;
	a->changed = true;
	return 0;
}

void acct_made(struct acct *a, uint64_t id)
{
	struct acct_path *e = acct_find_id(a, id);

	/* only an element known gone: one still there keeps its counter */
	if (e && e->baseline && !e->elem.packets && !e->elem.bytes)
		e->baseline = false;
}

void acct_depart(struct acct *a, uint64_t id)
{
	struct acct_path *e = acct_find_id(a, id);

	if (!e)
		return;
	fold(a, e);
	unmap_id(a, e);
	e->elem = (struct acct_ctr){ 0 };
	e->baseline = false;
	e->idle_since = time(NULL);
	idle_link(a, e - a->p);
}

void acct_new_boot(struct acct *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->p[i].live_id)
			acct_depart(a, a->p[i].live_id);
	a->table_handle = a->set_handle = 0;
	a->changed = true;
}

bool acct_read_begin(struct acct *a, uint64_t table_handle,
		     uint64_t set_handle, bool moved)
{
	bool known = a->set_handle && set_handle;
	bool other = table_handle != a->table_handle ||
		     set_handle != a->set_handle;
	bool anew = moved || (known && other);
	size_t i;

	for (i = 0; i < a->n; i++) {
		a->p[i].seen = false;
		if (anew && a->p[i].live_id)
			a->p[i].baseline = true;
	}
	if (set_handle && other) {
		a->table_handle = table_handle;
		a->set_handle = set_handle;
		a->changed = true;
	}
	return anew;
}

static bool ctr_below(const struct acct_ctr *x, const struct acct_ctr *y)
{
	return x->packets < y->packets || x->bytes < y->bytes;
}

void acct_observe(struct acct *a, uint64_t id, uint64_t packets,
		  uint64_t bytes, bool reset)
{
	struct acct_path *e = acct_find_id(a, id);
	struct acct_ctr c = { packets, bytes }, d = c;

	if (!e)
		return;
	e->seen = true;
	if (e->baseline || ctr_below(&c, &e->elem)) {
		/* below: made anew by someone else, maybe restored from a dump */
		e->baseline = false;
		a->changed = true;
		d = (struct acct_ctr){ 0 };
	} else {
		d.packets -= e->elem.packets;
		d.bytes -= e->elem.bytes;
	}
	if (d.packets || d.bytes)
		a->changed = true;
	ctr_add(&e->live, &d);
	e->elem = reset ? (struct acct_ctr){ 0 } : c;
}

uint64_t *acct_unseen(const struct acct *a, size_t *n)
{
	uint64_t *v = NULL;
	size_t i, k = 0;

	for (i = 0; i < a->n; i++) {
		if (!a->p[i].live_id || a->p[i].seen)
			continue;
		if (!v)
			v = malloc((a->n - i) * sizeof(*v));
		if (!v)
			break;
		v[k++] = a->p[i].live_id;
	}
	*n = k;
	return v;
}

void acct_gone(struct acct *a, uint64_t id)
{
	struct acct_path *e = acct_find_id(a, id);

	if (!e)
		return;
	fold(a, e);
	e->elem = (struct acct_ctr){ 0 };
	e->baseline = true;
}

size_t acct_depart_absent(struct acct *a, const struct idset *want)
{
	size_t i, n = 0;

	for (i = 0; i < a->n; i++) {
		struct acct_path *e = &a->p[i];

		if (e->live_id && !e->seen && !idset_has(want, e->live_id)) {
			acct_depart(a, e->live_id);
			n++;
		}
	}
	return n;
}

int acct_restore(struct acct *a, const struct acct_path *saved)
{
	struct acct_path *e;

	if (acct_find_path(a, saved->path))
		return -EEXIST;
	if (saved->live_id && acct_find_id(a, saved->live_id))
		return -EEXIST;
	e = add_path(a, saved->path);
	if (!e)
		return -ENOMEM;
	e->live_id = saved->live_id;
	e->last_id = saved->last_id;
	e->restarts = saved->restarts;
	e->done = saved->done;
	e->live = saved->live;
	e->elem = saved->elem;
	e->baseline = saved->baseline;
	e->idle_since = saved->idle_since;
	if (e->live_id) {
		idle_unlink(a, e - a->p);
		*id_slot(a, e->live_id) = e - a->p + 1;
	}
	return 0;
}

static const struct acct *sort_acct;

static int by_idle_since(const void *x, const void *y)
{
	int64_t p = sort_acct->p[*(const size_t *)x].idle_since;
	int64_t q = sort_acct->p[*(const size_t *)y].idle_since;

	return (p > q) - (p < q);
}

int acct_restore_end(struct acct *a)
{
	size_t *v, n = 0, i;

	if (!a->oldest)
		return 0;
	v = malloc(a->n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = a->oldest; i; i = a->p[i - 1].newer)
		v[n++] = i - 1;
	sort_acct = a;
	qsort(v, n, sizeof(*v), by_idle_since);
	a->oldest = a->newest = 0;
	for (i = 0; i < n; i++)
		idle_link(a, v[i]);
	free(v);
	return 0;
}

/* Drop the expected ids that are no longer wanted. */
static void prune_pending(struct acct *a, const struct idset *want)
{
	size_t i, k = 0;

	for (i = 0; i < a->npend; i++) {
		if (idset_has(want, a->pend[i].id))
			a->pend[k++] = a->pend[i];
		else
			free(a->pend[i].path);
	}
	a->npend = k;
}

int acct_expect(struct acct *a, uint64_t id, const char *path,
		const struct idset *want)
{
	char *copy;

	if (a->npend == a->pcap) {
		struct acct_pending *np;
		size_t cap;

		prune_pending(a, want);
		cap = 2 * (a->npend > want->used ? a->npend : want->used) + 64;
		if (cap > a->pcap) {
			np = realloc(a->pend, cap * sizeof(*np));
			if (!np)
				return -ENOMEM;
			a->pend = np;
			a->pcap = cap;
		}
	}
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	a->pend[a->npend].id = id;
	a->pend[a->npend++].path = copy;
	return 0;
}

void acct_drop_pending(struct acct *a)
{
	size_t i;

	for (i = 0; i < a->npend; i++)
		free(a->pend[i].path);
	a->npend = 0;
}

void acct_bind_added(struct acct *a, const struct idset *have,
		     const struct idset *want, const struct idset *made)
{
	size_t i, k = 0;

	for (i = 0; i < a->npend; i++) {
		struct acct_pending *p = &a->pend[i];

		if (idset_has(have, p->id)) {
			int ret = acct_bind(a, p->id, p->path,
					    idset_has(made, p->id));

			if (ret)
				warn("%s: %s: /%s is not counted", a->name,
				     strerror(-ret), p->path);
			free(p->path);
		} else if (idset_has(want, p->id)) {
			a->pend[k++] = *p;	/* not committed yet */
		} else {
			free(p->path);
		}
	}
	a->npend = k;
}

struct acct *acct_store_find(const struct acct_store *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i]->name, name))
			return s->v[i];
	return NULL;
}

struct acct *acct_store_get(struct acct_store *s, const char *name)
{
	struct acct *a = acct_store_find(s, name), **nv;

	if (a)
		return a;
	nv = realloc(s->v, (s->n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	s->v = nv;
	a = acct_new(name);
	if (a)
		s->v[s->n++] = a;
	return a;
}

bool acct_store_boot(struct acct_store *s, const char *boot_id)
{
	bool other = *s->boot_id && strcmp(s->boot_id, boot_id);
	size_t i;

	for (i = 0; other && i < s->n; i++)
		acct_new_boot(s->v[i]);
	snprintf(s->boot_id, sizeof(s->boot_id), "%s", boot_id);
	return other;
}

void acct_store_free(struct acct_store *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		acct_free(s->v[i]);
	free(s->v);
	*s = (struct acct_store){ 0 };
}
