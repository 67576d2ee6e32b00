// SPDX-License-Identifier: GPL-2.0
/*
 * The iptables-legacy filter table of one family with the fuzzed blob as
 * its one OUTPUT rule, laid out and replaced by tests/tools' raw_table.c
 * and raw_fam.c; the rule's packet counter read back with GET_ENTRIES.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "raw.h"
#include "kfuzz.h"

struct kf_table {
	const struct raw_fam *f;
	int fd;
	unsigned int valid_hooks;
	unsigned int rule_off;		/* the OUTPUT rule in the blob */
	size_t counters_at;		/* in an entry */
};

/* raw_table.c names hooks in its verbose output, which we never ask for. */
const char *raw_hook_name(unsigned int hook)
{
	(void)hook;
	return "?";
}

struct kf_table *kf_table_open(int fam)
{
	struct kf_table *t = calloc(1, sizeof(*t));
	struct raw_tinfo ti;

	if (!t)
		return NULL;
	t->f = fam ? &raw_fam6 : &raw_fam4;
	t->counters_at = fam ? offsetof(struct ip6t_entry, counters)
			     : offsetof(struct ipt_entry, counters);
	t->fd = socket(t->f->domain, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (t->fd < 0 || (errno = -raw_get_info(t->f, t->fd, "filter", &ti))) {
		fprintf(stderr, "cg2kfuzz: %s filter table: %s\n", t->f->name, strerror(errno));
		kf_table_close(t);
		return NULL;
	}
	t->valid_hooks = ti.valid_hooks;
	return t;
}

void kf_table_close(struct kf_table *t)
{
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}

static int put(struct kf_table *t, const struct raw_rule *rule)
{
	struct raw_blob b = { 0 };
	struct raw_tinfo ti;
	int ret;

	ret = raw_get_info(t->f, t->fd, "filter", &ti);
	if (ret)
		return ret;
	ret = raw_build(t->f, t->valid_hooks, rule, &b, false);
	if (ret)
		return ret;
	ret = raw_replace(t->f, t->fd, "filter", t->valid_hooks, &b, ti.num_entries);
	t->rule_off = b.hook_entry[NF_INET_LOCAL_OUT];
	free(b.entries);
	return ret;
}

int kf_table_put(struct kf_table *t, const struct kf_blob *b)
{
	struct raw_rule rule = {
		.hook = NF_INET_LOCAL_OUT,
		.match = "cgroup2",
		.data = (const unsigned char *)&b->info,
		.data_size = b->data_size,
	};

	return put(t, &rule);
}

int kf_table_flush(struct kf_table *t)
{
	return put(t, NULL);
}

long long kf_table_count(struct kf_table *t)
{
	struct xt_counters c;
	int ret;
	struct ipt_get_entries *ge = raw_get_entries(t->f, t->fd, "filter", &ret);

	if (!ge)
		return ret;
	memcpy(&c, (char *)ge->entrytable + t->rule_off + t->counters_at, sizeof(c));
	free(ge);
	return (long long)c.pcnt;
}
