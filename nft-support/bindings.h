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

#include "idset.h"
#include "cgroup2_pattern.h"

#define NFTCG_NAME_MAX		256	/* NFT_NAME_MAXLEN, with the NUL */
#define NFTCG_PATTERN_MAX	CG2_MAX_PATTERN_LEN

struct acct;

struct binding {
	char *pattern;
	struct cg2_prog *prog;	/* @pattern compiled */
	char *spec;	/* the text as given, for messages */
	char *where;	/* "FILE:LINE" or "command line" */
	bool level_warned;	/* the rules' levels cannot match this pattern */
	bool matched;		/* a cgroup matched it since the load */
	bool unmatched_warned;	/* "matches no cgroup" was logged */
};

struct target {
	int family;			/* NFPROTO_* */
	char table[NFTCG_NAME_MAX];
	char set[NFTCG_NAME_MAX];
	char name[3 * NFTCG_NAME_MAX];	/* "inet:filter:web", for messages */
	struct binding *b;
	size_t nb;

	struct idset want;	/* ids of live cgroups matching a pattern */
	struct idset have;	/* what the kernel's set holds, as far as known */
	struct idset dirty;	/* ids whose want changed since the last commit */
	bool full;		/* re-read the set and reconcile all of it */
	bool checked;		/* set type verified since the last failure */
	bool failed;		/* the last attempt failed */
	bool synced;		/* was in sync once: a missing set is a reload */
	bool rules_changed;	/* check the rules' levels again */
	struct acct *acct;	/* its traffic per cgroup path (acctd.h) */
	char lasterr[512];
	double retry_at;	/* monotonic seconds */
};

struct config {
	struct target *t;
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
const char *family_name(int family);
/* Parse "FAMILY:TABLE:SET" (the part before '='). */
int target_parse(const char *text, size_t len, int *family, char *table,
		 char *set, char *err, size_t errlen);

#endif
