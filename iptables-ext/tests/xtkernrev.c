// SPDX-License-Identifier: GPL-2.0
/*
 * xtkernrev.so: LD_PRELOAD=.../xtkernrev.so iptables...  makes iptables
 * believe the kernel has revision 0 of the match "cgroup2" and the target
 * "CGROUP2LOG", as it does once xt_cgroup2.ko is loaded; with
 * XTKERNREV_CGROUP2=1, revisions 0 and 1 of "cgroup2", as today's module.
 *
 * iptables 1.8.7 asks the kernel which revision of an extension it supports
 * (a getsockopt for legacy, nfnetlink for nft) and refuses to load one the
 * kernel does not know: "Couldn't load match `cgroup2'".  1.8.8 and later
 * load it anyway, with a warning, which is what lets run-t.sh test on a
 * host that cannot load our module; for 1.8.7, run-t.sh uses this instead.
 * Only the revision question is answered here: iptables still parses,
 * prints and builds the rule itself.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <xtables.h>

static int (*real_compat_rev)(const char *name, uint8_t rev, int opt);

/* The newest revision of cgroup2 to claim: XTKERNREV_CGROUP2, else 0. */
static int cgroup2_max_rev(void)
{
	const char *max = getenv("XTKERNREV_CGROUP2");

	return max && strcmp(max, "1") == 0 ? 1 : 0;
}

static int fake_compat_rev(const char *name, uint8_t rev, int opt)
{
	if (strcmp(name, "cgroup2") == 0)
		return rev <= cgroup2_max_rev();
	if (strcmp(name, "CGROUP2LOG") == 0)
		return rev == 0;
	return real_compat_rev ? real_compat_rev(name, rev, opt) : 1;
}

static void patch(struct xtables_globals *xtp)
{
	if (xtp && xtp->compat_rev && xtp->compat_rev != fake_compat_rev) {
		real_compat_rev = xtp->compat_rev;
		xtp->compat_rev = fake_compat_rev;
	}
}

int xtables_init_all(struct xtables_globals *xtp, uint8_t nfproto)
{
	int (*real)(struct xtables_globals *, uint8_t);
	int ret;

	real = (int (*)(struct xtables_globals *, uint8_t))
		dlsym(RTLD_NEXT, "xtables_init_all");
	ret = real(xtp, nfproto);
	patch(xtp);
	return ret;
}

int xtables_set_params(struct xtables_globals *xtp)
{
	int (*real)(struct xtables_globals *);
	int ret;

	real = (int (*)(struct xtables_globals *))
		dlsym(RTLD_NEXT, "xtables_set_params");
	ret = real(xtp);
	patch(xtp);
	return ret;
}
