// SPDX-License-Identifier: GPL-2.0
/*
 * Compiles on kernels whose kernfs publishes node names through RCU
 * (6.15 on): the same series renamed the node's parent to __parent, which
 * a compiler can see where the __rcu annotation on the name it cannot.
 */
#include <linux/kernfs.h>
#include <linux/stddef.h>

size_t cg2_probe(void);
size_t cg2_probe(void)
{
	return offsetof(struct kernfs_node, __parent);
}
