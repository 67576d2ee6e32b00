// SPDX-License-Identifier: GPL-2.0
/* Command line of xt_cgroup2_raw. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/x_tables.h>

#include "raw.h"

static const char *const hook_names[NF_INET_NUMHOOKS] = {
	[NF_INET_PRE_ROUTING]	= "prerouting",
	[NF_INET_LOCAL_IN]	= "input",
	[NF_INET_FORWARD]	= "forward",
	[NF_INET_LOCAL_OUT]	= "output",
	[NF_INET_POST_ROUTING]	= "postrouting",
};

const char *raw_hook_name(unsigned int hook)
{
	return hook < NF_INET_NUMHOOKS ? hook_names[hook] : "?";
}

static void usage_text(FILE *f)
{
	fputs(
"usage: xt_cgroup2_raw [-6] [--table NAME] [--hook HOOK] [--match NAME]\n"
"           [--revision N] [--flags N] [--count N] [--len N]\n"
"           [--patterns P1 P2 ... | --pattern-bytes HEX] [--no-nul]\n"
"           [--trailing-garbage] [--raw-data HEX] [--data-size N] [-v]\n"
"           [--dump] [--as-target]\n"
"       xt_cgroup2_raw [-6] [--table NAME] [--hook HOOK] --flush\n"
"       xt_cgroup2_raw [-6] [--table NAME] [--match NAME] --get-match [--nft]\n"
"           [--check-priv]\n"
"\n"
"Replaces the whole iptables-legacy table (filter; mangle for prerouting and\n"
"postrouting) with: one ACCEPT policy per builtin chain, and in the HOOK\n"
"chain (default output) one rule: match NAME (default cgroup2) revision N\n"
"(default 0) with the given data, target ACCEPT.  --flush: policies only.\n"
"\n"
"cgroup2 data (struct xt_cgroup2_info; with --revision 1, _v1, whose\n"
"patterns[] is 512 bytes): --patterns packs the strings\n"
"NUL-terminated and sets count and len; --pattern-bytes copies bytes as\n"
"they are (count = number of NULs, len = number of bytes); --no-nul drops\n"
"the final NUL from len; --trailing-garbage fills patterns[] after len with\n"
"'G'; --flags, --count, --len then override the fields.\n"
"--raw-data HEX: the match data as bytes instead (any match).\n"
"--data-size N: match data size (default: XT_ALIGN(sizeof) of the known\n"
"structs: cgroup2 rev 0-1, cgroup rev 0-2; else the --raw-data length,\n"
"aligned).\n"
"--patterns takes every argument up to the next one starting with \"--\".\n"
"--dump: print the match data as hex on stdout and exit; no kernel call.\n"
"--as-target: the rule has no match, and NAME with the data is its target\n"
"(e.g. --match CGROUP2LOG --as-target --raw-data HEX).\n"
"-v: print the table layout (offsets, sizes) on stderr.\n"
"\n"
"--get-match: read TABLE back (IPT_SO_GET_ENTRIES; with --nft, the\n"
"iptables-nft table of that name through an NFT_MSG_GETRULE dump) and print\n"
"the data of its first match NAME (default cgroup2) as hex, as --dump does.\n"
"--check-priv: print \"priv zero\" (exit 0) when every byte of that cgroup2\n"
"data from priv on (of revision N) is zero, else\n"
"\"priv nonzero: N bytes\" (exit 1).  No match: \"none\" (exit 2).\n"
"\n"
"stdout: \"accepted\" (exit 0), \"rejected: STRERROR\" (exit 1),\n"
"        \"error: ...\" (exit 64 usage, 65 setup: no table, no permission).\n",
	      f);
}

int raw_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("xt_cgroup2_raw: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(xt_cgroup2_raw --help for usage)\n", stderr);
	printf("error: usage\n");
	return RAW_EXIT_USAGE;
}

/* Unsigned number, decimal or 0x hex, at most MAX; 0 or -1. */
static int num(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int raw_parse(int argc, char **argv, struct raw_opts *o)
{
	bool cg2_fields = false;
	unsigned long v;
	int i;

	memset(o, 0, sizeof(*o));
	o->hook = NF_INET_LOCAL_OUT;
	o->match = "cgroup2";
	o->data_size = -1;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

#define NEED_VAL() do { if (!val) return raw_usage("%s needs a value", a); i++; } while (0)
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage_text(stdout);
			exit(0);
		} else if (!strcmp(a, "-6")) {
			o->ipv6 = true;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o->verbose = true;
		} else if (!strcmp(a, "--dump")) {
			o->dump = true;
		} else if (!strcmp(a, "--flush")) {
			o->flush = true;
		} else if (!strcmp(a, "--get-match")) {
			o->get_match = true;
		} else if (!strcmp(a, "--nft")) {
			o->nft = true;
		} else if (!strcmp(a, "--check-priv")) {
			o->check_priv = true;
		} else if (!strcmp(a, "--table")) {
			NEED_VAL();
			if (strlen(val) >= 32)
				return raw_usage("--table: name '%s' too long", val);
			o->table = val;
		} else if (!strcmp(a, "--hook")) {
			NEED_VAL();
			for (o->hook = 0; o->hook < NF_INET_NUMHOOKS; o->hook++)
				if (!strcmp(val, hook_names[o->hook]))
					break;
			if (o->hook == NF_INET_NUMHOOKS)
				return raw_usage("--hook: '%s' is not one of prerouting, input, forward, output, postrouting", val);
		} else if (!strcmp(a, "--as-target")) {
			o->as_target = true;
		} else if (!strcmp(a, "--match")) {
			NEED_VAL();
			if (!*val || strlen(val) >= XT_EXTENSION_MAXNAMELEN)
				return raw_usage("--match: name '%s' empty or longer than %d", val,
					     XT_EXTENSION_MAXNAMELEN - 1);
			o->match = val;
		} else if (!strcmp(a, "--revision")) {
			NEED_VAL();
			if (num(val, 255, &v))
				return raw_usage("--revision: '%s' is not 0-255", val);
			o->revision = v;
		} else if (!strcmp(a, "--flags")) {
			NEED_VAL();
			if (num(val, 0xffffffffUL, &o->flags))
				return raw_usage("--flags: '%s' is not a 32-bit number", val);
			o->have_flags = cg2_fields = true;
		} else if (!strcmp(a, "--count")) {
			NEED_VAL();
			if (num(val, 0xffff, &o->count))
				return raw_usage("--count: '%s' is not 0-65535", val);
			o->have_count = cg2_fields = true;
		} else if (!strcmp(a, "--len")) {
			NEED_VAL();
			if (num(val, 0xffff, &o->len))
				return raw_usage("--len: '%s' is not 0-65535", val);
			o->have_len = cg2_fields = true;
		} else if (!strcmp(a, "--patterns")) {
			o->patterns = argv + i + 1;
			while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) &&
			       strcmp(argv[i + 1], "-6") && strcmp(argv[i + 1], "-v"))
				i++, o->npatterns++;
			o->have_patterns = cg2_fields = true;
		} else if (!strcmp(a, "--pattern-bytes")) {
			NEED_VAL();
			o->pattern_hex = val;
			cg2_fields = true;
		} else if (!strcmp(a, "--no-nul")) {
			o->no_nul = cg2_fields = true;
		} else if (!strcmp(a, "--trailing-garbage")) {
			o->trailing_garbage = cg2_fields = true;
		} else if (!strcmp(a, "--raw-data")) {
			NEED_VAL();
			o->raw_hex = val;
		} else if (!strcmp(a, "--data-size")) {
			NEED_VAL();
			if (num(val, 0xffff - 32, &v))
				return raw_usage("--data-size: '%s' is not 0-65503", val);
			o->data_size = v;
		} else {
			return raw_usage("unknown argument '%s'", a);
		}
#undef NEED_VAL
	}
	if (o->have_patterns && o->pattern_hex)
		return raw_usage("--patterns and --pattern-bytes exclude each other");
	if (o->raw_hex && cg2_fields)
		return raw_usage("--raw-data replaces the whole match data: no cgroup2 field options with it");
	if (o->flush && (cg2_fields || o->raw_hex || o->data_size >= 0 || o->dump))
		return raw_usage("--flush takes no rule options");
	if ((o->nft || o->check_priv) && !o->get_match)
		return raw_usage("--nft and --check-priv go with --get-match");
	if (o->get_match && (o->flush || cg2_fields || o->raw_hex ||
			     o->data_size >= 0 || o->dump))
		return raw_usage("--get-match takes only -6, --table, --match, --nft, --check-priv");
	if (o->check_priv && strcmp(o->match, "cgroup2"))
		return raw_usage("--check-priv: only for the cgroup2 match");
	if (!o->table)
		o->table = o->hook == NF_INET_PRE_ROUTING ||
			   o->hook == NF_INET_POST_ROUTING ? "mangle" : "filter";
	return 0;
}
