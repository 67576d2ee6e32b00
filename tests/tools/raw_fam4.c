// SPDX-License-Identifier: GPL-2.0
/* The IPv4 side of xt_cgroup2_raw: struct ipt_* and IPT_SO_*. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "raw.h"

static void init_entry4(void *p, unsigned int target_offset,
			unsigned int next_offset)
{
	struct ipt_entry *e = p;

	memset(e, 0, sizeof(*e));	/* unconditional: any address, proto */
	e->target_offset = target_offset;
	e->next_offset = next_offset;
}

static int get_info4(int fd, const char *table, struct raw_tinfo *ti)
{
	struct ipt_getinfo info;
	socklen_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	strncpy(info.name, table, sizeof(info.name) - 1);
	if (getsockopt(fd, IPPROTO_IP, IPT_SO_GET_INFO, &info, &len) < 0)
		return -errno;
	ti->valid_hooks = info.valid_hooks;
	ti->num_entries = info.num_entries;
	ti->size = info.size;
	return 0;
}

static int replace4(int fd, const char *table, unsigned int valid_hooks,
		    const struct raw_blob *b, unsigned int num_counters)
{
	struct ipt_replace *r;
	struct xt_counters *counters;
	size_t len = sizeof(*r) + b->size;
	int ret = 0;

	r = calloc(1, len);
	counters = calloc(num_counters ? num_counters : 1, sizeof(*counters));
	if (!r || !counters) {
		ret = -ENOMEM;
		goto out;
	}
	strncpy(r->name, table, sizeof(r->name) - 1);
	r->valid_hooks = valid_hooks;
	r->num_entries = b->num_entries;
	r->size = b->size;
	memcpy(r->hook_entry, b->hook_entry, sizeof(r->hook_entry));
	memcpy(r->underflow, b->underflow, sizeof(r->underflow));
	r->num_counters = num_counters;
	r->counters = counters;		/* the old rules' counters land here */
	memcpy(r->entries, b->entries, b->size);
	if (setsockopt(fd, IPPROTO_IP, IPT_SO_SET_REPLACE, r, len) < 0)
		ret = -errno;
out:
	free(r);
	free(counters);
	return ret;
}

const struct raw_fam raw_fam4 = {
	.name		= "IPv4",
	.domain		= AF_INET,
	.entry_size	= sizeof(struct ipt_entry),
	.init_entry	= init_entry4,
	.get_info	= get_info4,
	.replace	= replace4,
};
