/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Bindings FAMILY:TABLE:SET=PATTERN, from the command line and config files.
 * Bindings that name the same set are grouped into one target: the set then
 * holds the ids matching any of their patterns.
 */
#ifndef NFTCG_BINDINGS_H
#define NFTCG_BINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "cgroup2_pattern.h"

#define NFTCG_NAME_MAX		256	/* NFT_NAME_MAXLEN, with the NUL */
#define NFTCG_PATTERN_MAX	CG2_MAX_PATTERN_LEN

/* One FAMILY:TABLE:SET=PATTERN, as parsed. */
struct binding {
	char *pattern;
	struct cg2_prog *prog;	/* @pattern compiled */
	char *spec;	/* the text as given, for messages */
	char *where;	/* "FILE:LINE" or "command line" */
};

/*
 * A set and the bindings that name it: configuration only, unchanged once
 * loaded.  What the daemon learns about the set at run time is in its
 * struct target (daemon_sync.h), kept over reloads that leave this alone.
 */
struct target_conf {
	int family;			/* NFPROTO_* */
	char table[NFTCG_NAME_MAX];
	char set[NFTCG_NAME_MAX];
	char name[3 * NFTCG_NAME_MAX];	/* "inet:filter:web", for messages */
	struct binding *b;
	size_t nb;
};

struct config {
	struct target_conf *t;
	size_t n;
};

/*
 * Parse one binding and add it to @cfg.  On error returns -1 with a message
 * (without the @where prefix) in @err.
 */
int binding_add(struct config *cfg, const char *text, const char *where,
		char *err, size_t errlen);
/* Read a config file; errors are printed, naming FILE:LINE.  0 or -1. */
int config_load_file(struct config *cfg, const char *path);
void config_free(struct config *cfg);
/*
 * Do @a and @b name the same set with the same patterns in the same
 * order?  (Where they were written does not matter.)
 */
bool target_conf_same(const struct target_conf *a,
		      const struct target_conf *b);
/* Parse "FAMILY:TABLE:SET" (the part before '='). */
int target_parse(const char *text, size_t len, int *family, char *table,
		 char *set, char *err, size_t errlen);

#endif
