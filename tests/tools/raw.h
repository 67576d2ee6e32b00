/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xt_cgroup2_raw: put a hand-made match into an iptables-legacy table with
 * raw setsockopt, bypassing libxtables.  Shared declarations.
 */
#ifndef RAW_H
#define RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/netfilter.h>

struct ipt_get_entries;

enum {
	RAW_EXIT_ACCEPTED	= 0,
	RAW_EXIT_REJECTED	= 1,
	RAW_EXIT_USAGE		= 64,
	RAW_EXIT_SETUP		= 65,
};

/* What IPT_SO_GET_INFO / IP6T_SO_GET_INFO tells about the current table. */
struct raw_tinfo {
	unsigned int valid_hooks;
	unsigned int num_entries;
	unsigned int size;
};

/* A complete entries blob and the offsets that go with it. */
struct raw_blob {
	unsigned char *entries;
	unsigned int size;
	unsigned int num_entries;
	unsigned int hook_entry[NF_INET_NUMHOOKS];
	unsigned int underflow[NF_INET_NUMHOOKS];
};

/* One address family: ipt_* or ip6t_* (raw_fam.c). */
struct raw_fam {
	const char *name;		/* "IPv4", "IPv6" */
	int domain;			/* AF_INET, AF_INET6 */
	int level;			/* IPPROTO_IP, IPPROTO_IPV6 */
	size_t entry_size;		/* sizeof(struct ipt_entry) */
	size_t target_offset_at, next_offset_at;	/* in the entry */
};

extern const struct raw_fam raw_fam4, raw_fam6;

/* An unconditional entry header with the given offsets. */
void raw_init_entry(const struct raw_fam *f, void *e,
		    unsigned int target_offset, unsigned int next_offset);
/* IPT_SO_GET_INFO and IPT_SO_SET_REPLACE; 0 or -errno. */
int raw_get_info(const struct raw_fam *f, int fd, const char *table,
		 struct raw_tinfo *ti);
int raw_replace(const struct raw_fam *f, int fd, const char *table,
		unsigned int valid_hooks, const struct raw_blob *b,
		unsigned int num_counters);
/*
 * IPT_SO_GET_ENTRIES of the whole table (ge->size bytes of entries, the
 * same layout for ip6t), read again while it changes size; free() it.
 * NULL with -errno in *@err.
 */
struct ipt_get_entries *raw_get_entries(const struct raw_fam *f, int fd,
					const char *table, int *err);

/*
 * The one rule: a match with DATA_SIZE bytes of DATA, then ACCEPT; or,
 * AS_TARGET, no match and a target named MATCH with that data.
 */
struct raw_rule {
	unsigned int hook;		/* NF_INET_* */
	bool as_target;
	const char *match;
	unsigned int revision;
	const unsigned char *data;
	size_t data_size;
};

/* raw_table.c: RULE may be NULL (policies only); 0 or -errno. */
int raw_build(const struct raw_fam *f, unsigned int valid_hooks,
	      const struct raw_rule *rule, struct raw_blob *b, bool verbose);

/*
 * raw_get.c: the data of the first match named MATCH in TABLE, as the kernel
 * gives it to userspace: iptables-legacy (GET_ENTRIES) or nftables (the
 * NFTA_MATCH_INFO of a GETRULE dump); 0, -ENOENT (none), or -errno.
 */
int raw_get_legacy(const struct raw_fam *f, int fd, const char *table,
		   const char *match, unsigned char **data, size_t *data_size);
int raw_get_nft(const struct raw_fam *f, const char *table, const char *match,
		unsigned char **data, size_t *data_size);

/* A usage error: the message on stderr, "error: usage" on stdout. */
int raw_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Command line, raw_opts.c. */
struct raw_opts {
	bool ipv6, flush, verbose, dump;
	bool get_match, nft, check_priv;	/* read-back mode */
	bool as_target;			/* --as-target */
	const char *table;
	int hook;
	const char *match;
	unsigned int revision;
	bool have_flags, have_count, have_len;
	unsigned long flags, count, len;
	char **patterns;		/* --patterns P1 P2 ... */
	int npatterns;
	bool have_patterns;
	const char *pattern_hex;	/* --pattern-bytes */
	bool no_nul, trailing_garbage;
	const char *raw_hex;		/* --raw-data */
	long data_size;			/* --data-size, -1: by match */
};

int raw_parse(int argc, char **argv, struct raw_opts *o);
const char *raw_hook_name(unsigned int hook);

/* raw_payload.c: the match data from the options; 0 or exit status. */
int raw_payload(const struct raw_opts *o, unsigned char **data, size_t *size);

/* hex.c: decode HEX (pairs of digits; ' ', ':' and '\n' ignored). */
int hex_decode(const char *hex, unsigned char **out, size_t *len);

#endif
