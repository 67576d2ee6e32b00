/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Userspace-only helpers around the pattern engine (not built into the kernel). */
#ifndef CGROUP2_USER_H
#define CGROUP2_USER_H

#include <stdbool.h>
#include <stddef.h>

struct cg2_prog;
struct cg2_work;
struct cg2_dfa;
struct cg2_dfa_work;

/*
 * The process's work area for cg2_validate(), cg2_cost() and cg2_compile()
 * (static: one caller at a time, as in iptables and nft-cgroupd).
 */
struct cg2_work *cg2_user_work(void);

/*
 * Call @fn with the mount point and mount root (both unescaped) of each
 * cgroup2 mount in /proc/self/mountinfo, until it returns non-zero; returns
 * that value, 0, or -errno when mountinfo cannot be read.
 */
int cg2_for_each_mount(int (*fn)(const char *point, const char *root,
				 void *arg), void *arg);

/*
 * Find the cgroup2 mount point, preferring one that shows the whole
 * hierarchy (mount root "/") over a bind mount of a subtree, and store it in
 * @buf.  Returns 0, -ENOENT when cgroup2 is not mounted, or -ERANGE when
 * @size is too small.
 */
int cg2_find_mount(char *buf, size_t size);

/*
 * The valid pattern @pat compiled (cg2_compile) into memory to free(), or
 * NULL.
 */
struct cg2_prog *cg2_prog_new(const char *pat);

/*
 * Match the valid pattern @pat against a path string such as
 * "system.slice/foo.service" (leading/trailing '/' ignored, "" or "/" is
 * the root).  @subtree selects cg2_match_subtree() over cg2_match_exact().
 * Returns 1 on match, 0 on no match, -ENOMEM.
 */
int cg2_match_string(const char *pat, const char *path, bool subtree);

/* The process's scratch for cg2_dfa_build() (static, as cg2_user_work()). */
struct cg2_dfa_work *cg2_user_dfa_work(void);

/*
 * The automaton (cg2_dfa_build) of the @count valid patterns packed at
 * @pats, in memory to free(), or NULL (none, or no memory).
 */
struct cg2_dfa *cg2_dfa_new(const char *pats, unsigned int count,
			    unsigned int flags);

/* As cg2_match_string(), with an automaton. */
int cg2_dfa_match_string(const struct cg2_dfa *dfa, const char *path,
			 bool subtree);

#endif /* CGROUP2_USER_H */
