/* SPDX-License-Identifier: GPL-2.0 */
/* What both extensions ask of libxtables: kept in one place. */
#ifndef CG2_XTABLES_H
#define CG2_XTABLES_H

#include <stdbool.h>
#include <string.h>
#include <xtables.h>

/*
 * iptables-translate and friends: the rule will not reach the kernel.
 * Everything else that calls .xlate (nft list ruleset listing a rule of
 * iptables-nft) must get 0, so that nft shows "xt match/target NAME" and a
 * saved ruleset keeps the extension instead of an early-bound or lossy
 * native form.
 */
static inline bool cg2_translating(void)
{
	return xt_params && xt_params->program_name &&
	       strstr(xt_params->program_name, "translate");
}

#endif
