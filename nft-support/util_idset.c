// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util_idset.h"

#define IDSET_MIN_CAP	64

size_t idset_hash(uint64_t x)
{
	/* splitmix64 finaliser: ids are sequential, spread them out */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return (size_t)x;
}

static int rehash(struct idset *s, size_t cap)
{
	uint64_t *old = s->slot;
	size_t oldcap = s->cap, i;

	s->slot = calloc(cap, sizeof(*s->slot));
	if (!s->slot) {
		s->slot = old;
		return -ENOMEM;
	}
	s->cap = cap;
	s->used = 0;
	s->tombs = 0;
	for (i = 0; i < oldcap; i++) {
		uint64_t id = old[i];
		size_t j;

		if (id == IDSET_EMPTY || id == IDSET_TOMB)
			continue;
		for (j = idset_hash(id) & (cap - 1); s->slot[j] != IDSET_EMPTY;
		     j = (j + 1) & (cap - 1))
			;
		s->slot[j] = id;
		s->used++;
	}
	free(old);
	return 0;
}

int idset_add(struct idset *s, uint64_t id)
{
	size_t j, tomb = SIZE_MAX;

	if (id == IDSET_EMPTY || id == IDSET_TOMB)
		return -EINVAL;
	if ((s->used + s->tombs + 1) * 10 > s->cap * 7) {
		size_t cap = s->cap ? s->cap : IDSET_MIN_CAP;

		while ((s->used + 1) * 10 > cap * 5)
			cap *= 2;
		if (rehash(s, cap))
			return -ENOMEM;
	}
	for (j = idset_hash(id) & (s->cap - 1); s->slot[j] != IDSET_EMPTY;
	     j = (j + 1) & (s->cap - 1)) {
		if (s->slot[j] == id)
			return 0;
		if (s->slot[j] == IDSET_TOMB && tomb == SIZE_MAX)
			tomb = j;
	}
	if (tomb != SIZE_MAX) {
		j = tomb;
		s->tombs--;
	}
	s->slot[j] = id;
	s->used++;
	return 1;
}

static size_t find(const struct idset *s, uint64_t id)
{
	size_t j;

	if (!s->cap || id == IDSET_EMPTY || id == IDSET_TOMB)
		return SIZE_MAX;
	for (j = idset_hash(id) & (s->cap - 1); s->slot[j] != IDSET_EMPTY;
	     j = (j + 1) & (s->cap - 1))
		if (s->slot[j] == id)
			return j;
	return SIZE_MAX;
}

bool idset_has(const struct idset *s, uint64_t id)
{
	return find(s, id) != SIZE_MAX;
}

/*
 * Give memory back once the set is at most 1/8 full: after a big tree went
 * away, or a set was re-read smaller.  Down to 50% load, so that adds and
 * deletes around the threshold do not rehash each time.  Failure to
 * allocate the smaller table is no error.
 */
static void shrink(struct idset *s)
{
	size_t cap = s->cap;

	if (cap <= IDSET_MIN_CAP || s->used * 8 > cap)
		return;
	while (cap > IDSET_MIN_CAP && s->used * 10 <= (cap / 2) * 5)
		cap /= 2;
	rehash(s, cap);
}

int idset_del(struct idset *s, uint64_t id)
{
	size_t j = find(s, id);

	if (j == SIZE_MAX)
		return 0;
	s->slot[j] = IDSET_TOMB;
	s->used--;
	s->tombs++;
	shrink(s);
	return 1;
}

void idset_clear(struct idset *s)
{
	if (s->cap > IDSET_MIN_CAP * 16) {
		idset_free(s);	/* a big table is not kept for nothing */
		return;
	}
	if (s->cap)
		memset(s->slot, 0, s->cap * sizeof(*s->slot));
	s->used = 0;
	s->tombs = 0;
}

void idset_free(struct idset *s)
{
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

void idset_move(struct idset *dst, struct idset *src)
{
	idset_free(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

bool idset_next(const struct idset *s, size_t *pos, uint64_t *id)
{
	for (; *pos < s->cap; (*pos)++) {
		uint64_t v = s->slot[*pos];

		if (v != IDSET_EMPTY && v != IDSET_TOMB) {
			*id = v;
			(*pos)++;
			return true;
		}
	}
	return false;
}
