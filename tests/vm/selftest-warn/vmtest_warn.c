// SPDX-License-Identifier: GPL-2.0
/*
 * Raises one real WARN() when loaded, nothing else.  tests/vm/selftest loads
 * it in the VM to prove that the runner's kernel-log scan catches a genuine
 * kernel warning.  Not for use outside that VM.
 */
#include <linux/bug.h>
#include <linux/init.h>
#include <linux/module.h>

static int __init vmtest_warn_init(void)
{
	WARN(1, "vmtest_warn: deliberate warning from the VM runner self-test\n");
	return 0;
}

static void __exit vmtest_warn_exit(void)
{
}

module_init(vmtest_warn_init);
module_exit(vmtest_warn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Raise one WARN() for the xt_cgroup2 VM runner self-test");
