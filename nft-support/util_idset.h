/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* A set of 64-bit cgroup ids: open addressing, linear probing. */
#ifndef NFTCG_IDSET_H
#define NFTCG_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Slot values that no cgroup id takes (the root cgroup's id is 1). */
#define IDSET_EMPTY	0
#define IDSET_TOMB	UINT64_MAX

struct idset {
	uint64_t *slot;
	size_t cap;	/* power of two, or 0 */
	size_t used;	/* live ids */
	size_t tombs;
};

/* A 64-bit id (or any 64-bit value) spread over all bits, for tables. */
size_t idset_hash(uint64_t x);

/* 1 when added, 0 when already present, -ENOMEM. */
int idset_add(struct idset *s, uint64_t id);
/* 1 when removed, 0 when absent. */
int idset_del(struct idset *s, uint64_t id);
bool idset_has(const struct idset *s, uint64_t id);
void idset_clear(struct idset *s);
void idset_free(struct idset *s);
/* Move the content of @src to @dst (freeing @dst's), leaving @src empty. */
void idset_move(struct idset *dst, struct idset *src);

/* Iterate: for (i = 0; idset_next(s, &i, &id); ) */
bool idset_next(const struct idset *s, size_t *pos, uint64_t *id);

#endif
