/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel version differences, kept in one place. */
#ifndef _XT_CGROUP2_COMPAT_H
#define _XT_CGROUP2_COMPAT_H

#include <linux/version.h>
#include <linux/cgroup.h>
#include <linux/kernfs.h>

/*
 * The name of a cgroup v2 directory.  cgroup v2 refuses rename(2), so the
 * name is fixed for the cgroup's life; since 6.15 kernfs publishes names
 * through RCU, and the packet path runs under rcu_read_lock().
 */
static inline const char *cg2_cgroup_name(const struct cgroup *cgrp)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
	return rcu_dereference(cgrp->kn->name);
#else
	return cgrp->kn->name;
#endif
}

#endif /* _XT_CGROUP2_COMPAT_H */
