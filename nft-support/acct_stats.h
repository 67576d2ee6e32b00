/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* --stats: the accounting as a table for people or as JSON. */
#ifndef NFTCG_STATS_H
#define NFTCG_STATS_H

#include <stdbool.h>
#include <stdio.h>

#include "acct_store.h"

/* Print the sets of @s (only @only, "F:T:S", when not NULL). */
void stats_print(FILE *f, const struct acct_store *s, const char *only,
		 bool json);

#endif
