/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The cgroup path of given ids, found by walking the tree once. */
#ifndef NFTCG_IDPATHS_H
#define NFTCG_IDPATHS_H

#include <stddef.h>
#include <stdint.h>

/*
 * For each of the @n ids in @ids (sorted ascending), the path of its live
 * cgroup below @root into @paths[i] (allocated; NULL when none).  Levels
 * deeper than CGTREE_MAX_DEPTH are not walked.  0 or -errno.
 */
int idpaths_find(const char *root, const uint64_t *ids, size_t n,
		 char **paths);

#endif
