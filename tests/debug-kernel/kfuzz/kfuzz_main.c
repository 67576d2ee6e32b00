// SPDX-License-Identifier: GPL-2.0
/*
 * cg2kfuzz [--seed N] [--blobs N] [--seconds S] [--verify-every K]
 *          [--nft-share PERCENT] --seeds FILE
 *
 * Sends N generated blobs through IPT_SO_SET_REPLACE (IPv4, IPv6) and, for
 * PERCENT (default 25) of them, nft_compat (NFT_MSG_NEWRULE, ip and ip6).
 * Each must be refused with the errno the ABI gives for it, or accepted;
 * every K-th accepted blob of each way is then checked packet by packet:
 * one datagram from each of the fuzzer's cgroups, and the rule's counter
 * must move exactly when the userspace engine says the blob matches that
 * cgroup.  Prints "PASS/FAIL kfuzz ..." lines and figures;
 * exits 1 on any mismatch.  Run as root in the test VM (it owns the
 * filter tables while it runs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kfuzz.h"

/* The four ways in: legacy IPv4, legacy IPv6, nft ip, nft ip6. */
#define NPATHS 4
static const char *const path_names[NPATHS] = {
	"IPT_SO_SET_REPLACE IPv4", "IPT_SO_SET_REPLACE IPv6",
	"nft_compat ip", "nft_compat ip6",
};

struct way {
	struct kf_table *t;	/* legacy */
	struct kf_nft *n;	/* nft_compat */
	int fam;		/* 0: IPv4, 1: IPv6 */
};

static int way_put(struct way *w, const struct kf_blob *b)
{
	return w->t ? kf_table_put(w->t, b) : kf_nft_put(w->n, b);
}

static long long way_count(struct way *w)
{
	return w->t ? kf_table_count(w->t) : kf_nft_count(w->n);
}

struct stats {
	unsigned long blobs[NPATHS], accepted[NPATHS], refused_as_expected;
	unsigned long by_kind[KF_NKINDS], accepted_by_kind[KF_NKINDS];
	unsigned long einval, enametoolong;
	unsigned long verified_blobs, verdicts, matches;
	unsigned long errno_mismatch, verdict_mismatch, infra;
};

struct opts {
	unsigned long seed, blobs, seconds, verify_every, nft_share;
	const char *seeds;
};

static struct way ways[NPATHS];

static void dump_blob(const struct kf_blob *b)
{
	const struct xt_cgroup2_info *i = &b->info;
	unsigned int k, n = i->len < 96 ? i->len : 96;

	fprintf(stderr, "  kind %s, data_size %zu, flags 0x%x, count %u, len %u, patterns:",
		kf_kind_name(b->kind), b->data_size, i->flags, i->count, i->len);
	for (k = 0; k < n && k < sizeof(i->patterns); k++)
		fprintf(stderr, "%s%02x", k % 32 ? "" : "\n    ", (unsigned char)i->patterns[k]);
	fprintf(stderr, "\n");
}

/* One datagram from each cgroup: the counter must follow the engine. */
/*
 * Blob @n goes to legacy IPv4/IPv6 in turn, except for @nft_share percent
 * of them, which go to nft_compat ip/ip6: a nft transaction costs far
 * more than a table replace.
 */
static int way_of(unsigned long n, unsigned long nft_share)
{
	return (n * 37 % 100 < nft_share ? 2 : 0) + (n & 1);
}

static int verify(struct way *w, struct kf_cgroups *c, const struct kf_blob *b,
		  struct stats *st)
{
	long long before = way_count(w), after;
	int fam = w->fam;
	unsigned int i;
	bool want;

	for (i = 0; i < c->n; i++) {
		if (kf_send(c, fam, i) < 0 || before < 0)
			return -1;
		after = way_count(w);
		if (after < 0)
			return -1;
		want = kf_expect_match(&b->info, c->path[i]);
		st->verdicts++;
		st->matches += want;
		if ((after - before == 1) != want) {
			if (st->verdict_mismatch++ < 10) {
				fprintf(stderr, "cg2kfuzz: %s, cgroup '%s': the kernel %s, the engine says %s\n",
					path_names[w - ways], c->path[i],
					after - before == 1 ? "matched" : "did not match",
					want ? "match" : "no match");
				dump_blob(b);
			}
		}
		before = after;
	}
	st->verified_blobs++;
	return 0;
}

static int one_blob(struct kf_rng *r, const struct opts *o, const struct kf_seeds *s,
		    struct way *w, struct kf_cgroups *c, struct stats *st)
{
	int way = w - ways;
	struct kf_blob b;
	int want, got;

	kf_generate(r, s, &b);
	want = kf_expect_errno(&b);
	got = way_put(w, &b);
	st->blobs[way]++;
	st->by_kind[b.kind]++;
	if (got != want) {
		if (st->errno_mismatch++ < 10) {
			fprintf(stderr, "cg2kfuzz: %s: the kernel said %s, the ABI says %s\n",
				path_names[way], got ? strerror(-got) : "accepted",
				want ? strerror(-want) : "accepted");
			dump_blob(&b);
		}
		return 0;
	}
	if (got == -EINVAL)
		st->einval++;
	if (got == -ENAMETOOLONG)
		st->enametoolong++;
	if (got) {
		st->refused_as_expected++;
		return 0;
	}
	st->accepted[way]++;
	st->accepted_by_kind[b.kind]++;
	if (st->accepted[way] % o->verify_every)
		return 0;
	return verify(w, c, &b, st);
}

static int parse(int argc, char **argv, struct opts *o)
{
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--seed"))
			o->seed = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--blobs"))
			o->blobs = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--seconds"))
			o->seconds = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--verify-every"))
			o->verify_every = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--nft-share"))
			o->nft_share = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--seeds"))
			o->seeds = argv[i + 1];
		else
			break;
	}
	if (i != argc || !o->seeds || !o->verify_every || !o->blobs) {
		fprintf(stderr, "usage: cg2kfuzz --seeds FILE [--seed N] [--blobs N] [--seconds S]\n"
			"                [--verify-every K] [--nft-share PERCENT]\n");
		return -1;
	}
	return 0;
}

static void report(const struct opts *o, const struct stats *st, unsigned long secs)
{
	unsigned long total = 0, accepted = 0;
	int k;

	for (k = 0; k < NPATHS; k++) {
		total += st->blobs[k];
		accepted += st->accepted[k];
	}
	printf("INFO cg2kfuzz: seed %lu, %lu blobs in %lu s, %lu accepted, %lu refused"
	       " (EINVAL %lu, ENAMETOOLONG %lu)\n",
	       o->seed, total, secs, accepted, st->refused_as_expected,
	       st->einval, st->enametoolong);
	for (k = 0; k < NPATHS; k++)
		printf("INFO cg2kfuzz:   %-24s %7lu blobs, %7lu accepted\n", path_names[k],
		       st->blobs[k], st->accepted[k]);
	for (k = 0; k < KF_NKINDS; k++)
		printf("INFO cg2kfuzz:   %-7s %7lu blobs, %7lu accepted\n", kf_kind_name(k),
		       st->by_kind[k], st->accepted_by_kind[k]);
	printf("INFO cg2kfuzz: %lu accepted blobs checked with packets: %lu verdicts (%lu matches)\n",
	       st->verified_blobs, st->verdicts, st->matches);
	if (st->infra)
		printf("FAIL kfuzz: could not send or read counters (%lu times)\n", st->infra);
	if (total < o->blobs)
		printf("FAIL kfuzz: only %lu of %lu blobs within %lu s\n", total, o->blobs, o->seconds);
	if (st->errno_mismatch)
		printf("FAIL kfuzz: %lu blobs answered otherwise than the ABI says\n", st->errno_mismatch);
	else
		printf("PASS kfuzz: %lu blobs through IPT_SO_SET_REPLACE and nft_compat"
		       " answered as the ABI says\n", total);
	if (st->verdict_mismatch)
		printf("FAIL kfuzz: %lu of %lu verdicts differ from the userspace engine\n",
		       st->verdict_mismatch, st->verdicts);
	else if (st->verdicts)
		printf("PASS kfuzz: %lu kernel verdicts (rule counters) equal the userspace engine's\n",
		       st->verdicts);
	else
		printf("FAIL kfuzz: no verdict was checked\n");
}

int main(int argc, char **argv)
{
	struct opts o = { .seed = 1, .blobs = 100000, .seconds = 1200, .verify_every = 10,
			 .nft_share = 25 };
	struct kf_cgroups c = { 0 };
	struct kf_seeds s = { 0 };
	struct stats st = { 0 };
	struct kf_rng r;
	time_t t0 = time(NULL);
	unsigned long n;
	int ret, k;

	if (parse(argc, argv, &o))
		return 64;
	r.s = o.seed * 0x9e3779b97f4a7c15ULL + 1;
	ret = kf_seeds_load(&s, o.seeds);
	if (ret) {
		fprintf(stderr, "cg2kfuzz: %s: %s\n", o.seeds, strerror(-ret));
		return 65;
	}
	ret = kf_cgroups_setup(&c);
	if (ret) {
		fprintf(stderr, "cg2kfuzz: cannot set up the cgroups: %s\n", strerror(-ret));
		return 65;
	}
	for (k = 0; k < NPATHS; k++) {
		ways[k].fam = k & 1;
		if (k < 2 ? !(ways[k].t = kf_table_open(k)) : !(ways[k].n = kf_nft_open(k & 1))) {
			fprintf(stderr, "cg2kfuzz: cannot set up %s\n", path_names[k]);
			return 65;
		}
	}
	for (n = 0; n < o.blobs && (unsigned long)(time(NULL) - t0) < o.seconds; n++)
		if (one_blob(&r, &o, &s, &ways[way_of(n, o.nft_share)], &c, &st) < 0)
			st.infra++;
	for (k = 0; k < NPATHS; k++) {
		if (ways[k].t) {
			kf_table_flush(ways[k].t);
			kf_table_close(ways[k].t);
		} else {
			kf_nft_close(ways[k].n);
		}
	}
	kf_cgroups_teardown(&c);
	report(&o, &st, time(NULL) - t0);
	return st.errno_mismatch || st.verdict_mismatch || st.infra ||
	       n < o.blobs || !st.verdicts;
}
