// SPDX-License-Identifier: GPL-2.0 OR MIT
/* nft-cgroupd's command line: every value is checked before anything runs. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util_log.h"
#include "daemon_options.h"

/* NFTCG_VERSION comes from ../VERSION (Makefile): one number for the project.
 * Test builds that compile this file on their own (sanitizer and fuzz
 * binaries) need not pass it. */
#ifndef NFTCG_VERSION
#define NFTCG_VERSION	"unknown"
#endif

/* Options without a short form. */
enum {
	OPT_STATE_DIR = 256,
	OPT_METRICS_FILE,
	OPT_STATS_INTERVAL,
	OPT_STATS,
	OPT_JSON,
};

/* systemd's StateDirectory= (the first, if several), else the FHS place. */
static const char *default_state_dir(void)
{
	static char dir[4096];
	const char *env = getenv("STATE_DIRECTORY");

	if (!env || !*env)
		return "/var/lib/nft-cgroupd";
	snprintf(dir, sizeof(dir), "%.*s", (int)strcspn(env, ":"), env);
	return dir;
}

static const struct option long_opts[] = {
	{ "config",          required_argument, NULL, 'c' },
	{ "cgroup-root",     required_argument, NULL, 'r' },
	{ "once",            no_argument,       NULL, '1' },
	{ "check",           no_argument,       NULL, 'n' },
	{ "retry-interval",  required_argument, NULL, 'R' },
	{ "rescan-interval", required_argument, NULL, 'I' },
	{ "list",            required_argument, NULL, 'l' },
	{ "verbose",         no_argument,       NULL, 'v' },
	{ "state-dir",       required_argument, NULL, OPT_STATE_DIR },
	{ "metrics-file",    required_argument, NULL, OPT_METRICS_FILE },
	{ "stats-interval",  required_argument, NULL, OPT_STATS_INTERVAL },
	{ "stats",           no_argument,       NULL, OPT_STATS },
	{ "json",            no_argument,       NULL, OPT_JSON },
	{ "help",            no_argument,       NULL, 'h' },
	{ "version",         no_argument,       NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: nft-cgroupd [OPTIONS] [FAMILY:TABLE:SET=PATTERN]...\n"
"Keep nftables sets of type cgroupsv2 equal to the ids of the cgroups whose\n"
"path (relative to the cgroup2 root) matches PATTERN exactly.\n"
"\n"
"  -c, --config FILE       read bindings from FILE, one a line (# comments)\n"
"  -r, --cgroup-root DIR   the cgroup2 directory paths are relative to\n"
"                          (default: the cgroup2 mount in /proc/self/mountinfo)\n"
"  -1, --once              sync once and exit (non-zero if a binding failed)\n"
"  -n, --check             print what a sync would add to and remove from\n"
"                          each set, change nothing, and exit: 0 when all\n"
"                          are in sync, 1 when some set would change, 2 when\n"
"                          some set cannot be read\n"
"  -R, --retry-interval S  retry failing bindings every S seconds (default 5)\n"
"  -I, --rescan-interval S while directories lack a watch (or nf_tables events\n"
"                          are unavailable), rescan and reconcile every S\n"
"                          seconds (default 30)\n"
"  -l, --list F:T:S        print the ids in set F:T:S, one a line, with their\n"
"                          cgroup paths and counters, and exit\n"
"      --stats [F:T:S]     print the traffic per cgroup path of the counted\n"
"                          sets (state file and live counters), and exit\n"
"      --json              --stats as JSON\n"
"      --state-dir DIR     where the totals are kept (default $STATE_DIRECTORY\n"
"                          or /var/lib/nft-cgroupd)\n"
"      --metrics-file F    write the totals for Prometheus to F\n"
"      --stats-interval S  read the counters, save the totals and write the\n"
"                          metrics every S seconds (default 60)\n"
"  -v, --verbose           log every change\n"
"  -h, --help              show this help\n"
"  -V, --version           show the version\n"
"\n"
"FAMILY is ip, ip6, inet, arp, bridge or netdev.  SIGHUP reloads the config.\n");
}

/* A number of seconds for option @opt: finite, from 10 ms to a day. */
static int parse_seconds(const char *opt, const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v) || v < 0.01 ||
	    v > 86400) {
		err("%s: \"%s\" is not a number of seconds from 0.01 to 86400",
		    opt, arg);
		return -1;
	}
	*out = v;
	return 0;
}

/* One option: -1 to go on, 0 to stop parsing, or an exit status. */
static int parse_one(struct options *o, int c)
{
	switch (c) {
	case 'c':
		o->config_file = optarg;
		return -1;
	case 'r':
		o->cgroup_root = optarg;
		return -1;
	case '1':
		o->mode = MODE_ONCE;
		return -1;
	case 'n':
		o->mode = MODE_CHECK;
		return -1;
	case 'R':
		return parse_seconds("--retry-interval", optarg,
				     &o->retry_interval) ? 2 : -1;
	case 'I':
		return parse_seconds("--rescan-interval", optarg,
				     &o->rescan_interval) ? 2 : -1;
	case 'v':
		log_verbose = 1;
		return -1;
	case OPT_STATE_DIR:
		o->state_dir = optarg;
		return -1;
	case OPT_METRICS_FILE:
		o->metrics_file = optarg;
		return -1;
	case OPT_STATS_INTERVAL:
		return parse_seconds("--stats-interval", optarg,
				     &o->stats_interval) ? 2 : -1;
	case OPT_STATS:
		o->mode = MODE_STATS;
		return -1;
	case OPT_JSON:
		o->json = true;
		return -1;
	case 'h':
		usage(stdout);
		return 0;
	case 'V':
		printf("nft-cgroupd %s\n", NFTCG_VERSION);
		return 0;
	default:
		usage(stderr);
		return 2;
	}
}

int options_parse(struct options *o, int argc, char **argv)
{
	int c, ret;

	*o = (struct options){ .retry_interval = 5, .rescan_interval = 30,
			       .stats_interval = 60,
			       .state_dir = default_state_dir() };
	while ((c = getopt_long(argc, argv, "c:r:1nR:I:l:vhV", long_opts,
				NULL)) != -1) {
		/* --list acts at once, whatever follows it */
		if (c == 'l') {
			o->mode = MODE_LIST;
			o->list_spec = optarg;
			return -1;
		}
		ret = parse_one(o, c);
		if (ret >= 0)
			return ret;
	}
	o->args = argv + optind;
	o->nargs = argc - optind;
	return -1;
}
