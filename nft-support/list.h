/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* --list: print what a set holds. */
#ifndef NFTCG_LIST_H
#define NFTCG_LIST_H

/* Print the ids in set "FAMILY:TABLE:SET", sorted.  Returns the exit status. */
int list_set(const char *spec);

#endif
