/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * `socket cgroupv2 level N` must use the depth of the pattern, counted from
 * the cgroup namespace root; nothing in the kernel checks it and a wrong
 * level silently never matches.  Check it against the rules that use a set.
 */
#ifndef NFTCG_LEVELS_H
#define NFTCG_LEVELS_H

/*
 * Depth of directory @dir below the root of our cgroup namespace, from the
 * cgroup2 mount that holds it in /proc/self/mountinfo; -1 when unknown.
 */
int cgroup_dir_level(const char *dir);

/*
 * The smallest depth the valid pattern @pat matches at; *@fixed tells
 * whether that is also the only one (no "**" component).
 */
unsigned int pattern_min_depth(const char *pat, int *fixed);

#endif
