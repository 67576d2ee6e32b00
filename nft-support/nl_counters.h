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
	bool reset;		/* the reading set the counters to zero */
	uint64_t table_handle, set_handle;	/* nfs_read_counters() */
	bool moved;		/* the set was made anew while it was read */
};

void counter_list_free(struct counter_list *l);

/*
 * With @reset, a reading also sets the counters to zero, in the same step
 * (NFT_MSG_GETSETELEM_RESET, Linux 6.5), when the kernel can: out->reset
 * tells.  The kernel is asked once whether it knows the message.
 */
/*
 * Read every element: the ids into @ids (replacing its content), the
 * counters of those that carry one into @out (emptied first), and the
 * handles of the set and its table (out->moved: not the same before and
 * after).  With reset, a dump started over keeps
 * the counters of the attempts before (they were reset): an id may then
 * come more than once, each time with what it counted since.  0, or
 * -errno with the reason in @err.
 */
int nfs_read_counters(struct nfs *n, int family, const char *table,
		      const char *set, bool reset, struct idset *ids,
		      struct counter_list *out, char *err, size_t errlen);

/*
 * Read only the elements @ids (GETSETELEM naming them): their counters into
 * @out (emptied first).  -ENOENT when one of them is not in the set; the
 * counters of those read before it are in @out.  0, or -errno with the
 * reason in @err.
 */
int nfs_read_elem_counters(struct nfs *n, int family, const char *table,
			   const char *set, bool reset, const uint64_t *ids,
			   size_t nids, struct counter_list *out, char *err,
			   size_t errlen);

#endif
