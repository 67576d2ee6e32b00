/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The command line. */
#ifndef NFTCG_OPTIONS_H
#define NFTCG_OPTIONS_H

#include <stdbool.h>

enum nftcg_mode {
	MODE_DAEMON,	/* follow the tree until stopped */
	MODE_ONCE,	/* --once: sync once, failures are the status */
	MODE_LIST,	/* --list F:T:S */
	MODE_CHECK,	/* --check: print what a sync would change */
	MODE_STATS,	/* --stats [F:T:S] */
};

struct options {
	enum nftcg_mode mode;
	const char *config_file;
	const char *cgroup_root;	/* NULL: find the cgroup2 mount */
	const char *list_spec;		/* --list's argument */
	char **args;			/* bindings from the command line */
	int nargs;
	double retry_interval;
	double rescan_interval;	/* while degraded, or without nf_tables events */
	const char *state_dir;		/* accounting totals (acct_statefile.h) */
	const char *metrics_file;	/* NULL: none */
	double stats_interval;		/* read counters, save, metrics */
	bool json;			/* --stats as JSON */
};

/*
 * Fill @o from the command line.  Returns -1 to go on, or the exit status
 * when there is nothing more to do (--help, --version, an error: printed).
 */
int options_parse(struct options *o, int argc, char **argv);

#endif
