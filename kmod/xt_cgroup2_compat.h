/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel version differences, kept in one place. */
#ifndef _XT_CGROUP2_COMPAT_H
#define _XT_CGROUP2_COMPAT_H

#include <linux/cgroup.h>
#include <linux/kernfs.h>

/*
 * The name of a cgroup v2 directory.  cgroup v2 refuses rename(2), so the
 * name is fixed for the cgroup's life.  Newer kernels publish kernfs names
 * through RCU (Kbuild detects it); the packet path runs under RCU.
 */
static inline const char *cg2_cgroup_name(const struct cgroup *cgrp)
{
#ifdef CG2_KERNFS_NAME_RCU
	return rcu_dereference(cgrp->kn->name);
#else
	return cgrp->kn->name;
#endif
}

#endif /* _XT_CGROUP2_COMPAT_H */
