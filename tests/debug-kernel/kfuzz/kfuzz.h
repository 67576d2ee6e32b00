/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cg2kfuzz: random and mutated cgroup2 match blobs into the kernel through
 * IPT_SO_SET_REPLACE (IPv4 and IPv6) and nft_compat, each refused with the errno the ABI
 * documents or accepted and then matching, packet by packet, what the
 * userspace engine says.  Shared declarations.
 */
#ifndef KFUZZ_H
#define KFUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "xt_cgroup2.h"

/* xorshift64*: reproducible from --seed. */
struct kf_rng {
	uint64_t s;
};

static inline uint64_t kf_next(struct kf_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 2685821657736338717ULL;
}

static inline unsigned int kf_below(struct kf_rng *r, unsigned int n)
{
	return n ? (unsigned int)(kf_next(r) % n) : 0;
}

/* The ways a blob is made (kfuzz_gen.c); counted separately in the report. */
enum kf_kind {
	KF_VALID,	/* seed patterns, packed as the ABI says */
	KF_BYTES,	/* a valid blob with some bytes changed */
	KF_FIELDS,	/* a valid blob with count, len or flags changed */
	KF_GLOBS,	/* patterns generated from glob tokens */
	KF_COSTLY,	/* at and around the rule's cost bound */
	KF_RANDOM,	/* random header and bytes */
	KF_LONG,	/* a pattern around CG2_MAX_PATTERN_LEN */
	KF_SPLICE,	/* halves of two seeds */
	KF_SIZE,	/* a valid blob with a wrong match size */
	KF_NKINDS
};

struct kf_blob {
	struct xt_cgroup2_info info;
	size_t data_size;	/* the match data size sent */
	enum kf_kind kind;
};

/* Seed patterns: read from a file, one a line (kfuzz_gen.c). */
struct kf_seeds {
	char **pat;
	unsigned int n;
};

int kf_seeds_load(struct kf_seeds *s, const char *file);
void kf_generate(struct kf_rng *r, const struct kf_seeds *s, struct kf_blob *b);
const char *kf_kind_name(enum kf_kind k);

/* kfuzz_expect.c: what the kernel must say, from the ABI and the engine. */
int kf_expect_errno(const struct kf_blob *b);
/* Does the accepted blob match a socket in cgroup PATH ("" is the root)? */
bool kf_expect_match(const struct xt_cgroup2_info *info, const char *path);

/* kfuzz_cg.c: the cgroups the fuzzer sends from, one socket per family. */
struct kf_cgroups {
	const char **path;	/* relative to the cgroup2 mount */
	unsigned int n;
	int *sock[2];		/* [family][i]: connected UDP socket */
	int sink[2];		/* the receiving socket of each family */
};

int kf_cgroups_setup(struct kf_cgroups *c);
void kf_cgroups_teardown(struct kf_cgroups *c);
/* One datagram from cgroup I (family 0: IPv4, 1: IPv6); 0 or -errno. */
int kf_send(struct kf_cgroups *c, int fam, unsigned int i);

/* kfuzz_table.c: the filter table with the blob as its one OUTPUT rule. */
struct kf_table;
struct kf_table *kf_table_open(int fam);
void kf_table_close(struct kf_table *t);
/* Replace the table; 0 or the kernel's -errno. */
int kf_table_put(struct kf_table *t, const struct kf_blob *b);
/* Packets counted by the rule so far, or -errno. */
long long kf_table_count(struct kf_table *t);
/* Back to policies only. */
int kf_table_flush(struct kf_table *t);

/* kfuzz_nft.c: the same through nft_compat, in an nftables table "kfuzz". */
struct kf_nft;
struct kf_nft *kf_nft_open(int fam);
void kf_nft_close(struct kf_nft *n);
int kf_nft_put(struct kf_nft *n, const struct kf_blob *b);
long long kf_nft_count(struct kf_nft *n);
int kf_nft_flush(struct kf_nft *n);

#endif
