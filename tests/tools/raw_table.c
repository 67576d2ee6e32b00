// SPDX-License-Identifier: GPL-2.0
/*
 * Lay out a whole table the way the kernel's translate_table() wants it:
 * for each valid hook, in hook order, the chain's rules then its policy
 * (an unconditional standard ACCEPT, which is the chain's underflow), and
 * at the end the ERROR entry.  Every entry and match is XT_ALIGNed.
 *
 *   entry:  [ipt_entry][xt_entry_match + data, aligned][xt_standard_target]
 *            ^0         ^entry_size                    ^target_offset
 *   next_offset = target_offset + XT_ALIGN(sizeof(struct xt_standard_target))
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/x_tables.h>

#include "raw.h"

struct layout {
	const struct raw_fam *f;
	unsigned char *buf;	/* NULL: only measure */
	unsigned int off;
	unsigned int n;
};

static void *at(struct layout *l, unsigned int off)
{
	return l->buf ? l->buf + off : NULL;
}

static void put_standard_target(struct layout *l, unsigned int off, int verdict)
{
	struct xt_standard_target *t = at(l, off);

	if (!t)
		return;
	t->target.u.user.target_size = XT_ALIGN(sizeof(*t));
	/* name "" is XT_STANDARD_TARGET */
	t->verdict = verdict;
}

/* The policy: unconditional, standard target, ACCEPT. */
static void put_policy(struct layout *l)
{
	unsigned int t_off = l->f->entry_size;
	unsigned int next = t_off + XT_ALIGN(sizeof(struct xt_standard_target));

	if (l->buf) {
		raw_init_entry(l->f, at(l, l->off), t_off, next);
		put_standard_target(l, l->off + t_off, -NF_ACCEPT - 1);
	}
	l->off += next;
	l->n++;
}

static void put_rule(struct layout *l, const struct raw_rule *r)
{
	unsigned int m_size = XT_ALIGN(sizeof(struct xt_entry_match) + r->data_size);
	unsigned int t_off = l->f->entry_size + m_size;
	unsigned int next = t_off + XT_ALIGN(sizeof(struct xt_standard_target));
	struct xt_entry_match *m = at(l, l->off + l->f->entry_size);

	if (l->buf) {
		raw_init_entry(l->f, at(l, l->off), t_off, next);
		/* Exact, not aligned: a test may send an odd size on purpose. */
		m->u.user.match_size = sizeof(*m) + r->data_size;
		strncpy(m->u.user.name, r->match, sizeof(m->u.user.name) - 1);
		m->u.user.revision = r->revision;
		memcpy(m->data, r->data, r->data_size);
		put_standard_target(l, l->off + t_off, -NF_ACCEPT - 1);
	}
	l->off += next;
	l->n++;
}

/* A rule without a match whose target is R's NAME and data. */
static void put_target_rule(struct layout *l, const struct raw_rule *r)
{
	unsigned int t_off = l->f->entry_size;
	unsigned int next = t_off + XT_ALIGN(sizeof(struct xt_entry_target) +
					     r->data_size);
	struct xt_entry_target *t = at(l, l->off + t_off);

	if (l->buf) {
		raw_init_entry(l->f, at(l, l->off), t_off, next);
		t->u.user.target_size = sizeof(*t) + r->data_size;
		strncpy(t->u.user.name, r->match, sizeof(t->u.user.name) - 1);
		t->u.user.revision = r->revision;
		memcpy(t->data, r->data, r->data_size);
	}
	l->off += next;
	l->n++;
}

static void put_error(struct layout *l)
{
	unsigned int t_off = l->f->entry_size;
	unsigned int next = t_off + XT_ALIGN(sizeof(struct xt_error_target));
	struct xt_error_target *t = at(l, l->off + t_off);

	if (l->buf) {
		raw_init_entry(l->f, at(l, l->off), t_off, next);
		t->target.u.user.target_size = XT_ALIGN(sizeof(*t));
		strcpy(t->target.u.user.name, XT_ERROR_TARGET);
		strcpy(t->errorname, XT_ERROR_TARGET);
	}
	l->off += next;
	l->n++;
}

static void lay_out(struct layout *l, unsigned int valid_hooks,
		    const struct raw_rule *rule, struct raw_blob *b)
{
	unsigned int h;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		b->hook_entry[h] = b->underflow[h] = 0;
		if (!(valid_hooks & (1U << h)))
			continue;
		b->hook_entry[h] = l->off;
		if (rule && rule->hook == h && rule->as_target)
			put_target_rule(l, rule);
		else if (rule && rule->hook == h)
			put_rule(l, rule);
		b->underflow[h] = l->off;
		put_policy(l);
	}
	put_error(l);
}

int raw_build(const struct raw_fam *f, unsigned int valid_hooks,
	      const struct raw_rule *rule, struct raw_blob *b, bool verbose)
{
	struct layout l = { .f = f };
	unsigned int h;

	if (rule && rule->data_size > 0xffff - sizeof(struct xt_entry_match))
		return -E2BIG;		/* match_size is a __u16 */
	lay_out(&l, valid_hooks, rule, b);	/* measure */
	l.buf = calloc(1, l.off);
	if (!l.buf)
		return -ENOMEM;
	l.off = l.n = 0;
	lay_out(&l, valid_hooks, rule, b);	/* write */
	b->entries = l.buf;
	b->size = l.off;
	b->num_entries = l.n;

	if (verbose) {
		fprintf(stderr, "xt_cgroup2_raw: %s table blob: %u bytes, %u entries (entry header %zu)\n",
			f->name, b->size, b->num_entries, f->entry_size);
		for (h = 0; h < NF_INET_NUMHOOKS; h++)
			if (valid_hooks & (1U << h))
				fprintf(stderr, "xt_cgroup2_raw:   %-11s hook_entry %5u underflow %5u\n",
					raw_hook_name(h), b->hook_entry[h],
					b->underflow[h]);
		if (rule)
			fprintf(stderr, "xt_cgroup2_raw:   rule: match %s rev %u, match_size %zu, data %zu bytes\n",
				rule->match, rule->revision,
				sizeof(struct xt_entry_match) + rule->data_size,
				rule->data_size);
	}
	return 0;
}
