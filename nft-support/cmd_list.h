/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* --list: print what a set holds. */
#ifndef NFTCG_LIST_H
#define NFTCG_LIST_H

/*
 * Print the ids in set "FAMILY:TABLE:SET", sorted, with their paths below
 * @root (NULL: the cgroup2 mount) and counters.  Returns the exit status.
 */
int list_set(const char *spec, const char *root);

#endif
