/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The per-element counters of a set declared with `counter`: every
 * `socket cgroupv2 level N @set` lookup that matches counts on the element
 * of the cgroup id found.
 */
#ifndef NFTCG_COUNTERS_H
#define NFTCG_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util_idset.h"

struct nfs;

struct elem_counter {
	uint64_t id, packets, bytes;
};

struct counter_list {
	struct elem_counter *v;
	size_t n, cap;
};

void counter_list_free(struct counter_list *l);

/*
 * Read every element: the ids into @ids (replacing its content), the
 * counters of those that carry one into @out (emptied first).  0, or
 * -errno with the reason in @err.
 */
int nfs_read_counters(struct nfs *n, int family, const char *table,
		      const char *set, struct idset *ids,
		      struct counter_list *out, char *err, size_t errlen);

/*
 * Read only the elements @ids (GETSETELEM naming them): their counters into
 * @out (emptied first).  -ENOENT when one of them is not in the set.  0, or
 * -errno with the reason in @err.
 */
int nfs_read_elem_counters(struct nfs *n, int family, const char *table,
			   const char *set, const uint64_t *ids, size_t nids,
			   struct counter_list *out, char *err, size_t errlen);

#endif
