// SPDX-License-Identifier: GPL-2.0
/*
 * The address families of xt_cgroup2_raw.  ipt_getinfo/ip6t_getinfo and
 * ipt_replace/ip6t_replace have the same layout, and the socket options the
 * same numbers, so one implementation serves both; only the entry header
 * (and the socket level) differs.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "raw.h"

static_assert(sizeof(struct ipt_getinfo) == sizeof(struct ip6t_getinfo) &&
	      sizeof(struct ipt_replace) == sizeof(struct ip6t_replace) &&
	      IPT_SO_GET_INFO == IP6T_SO_GET_INFO &&
	      IPT_SO_SET_REPLACE == IP6T_SO_SET_REPLACE,
	      "ipt and ip6t table structs differ");

void raw_init_entry(const struct raw_fam *f, void *e,
		    unsigned int target_offset, unsigned int next_offset)
{
	__u16 t = target_offset, n = next_offset;

	memset(e, 0, f->entry_size);	/* unconditional: any address, proto */
	memcpy((char *)e + f->target_offset_at, &t, sizeof(t));
	memcpy((char *)e + f->next_offset_at, &n, sizeof(n));
}

int raw_get_info(const struct raw_fam *f, int fd, const char *table,
		 struct raw_tinfo *ti)
{
	struct ipt_getinfo info;
	socklen_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	strncpy(info.name, table, sizeof(info.name) - 1);
	if (getsockopt(fd, f->level, IPT_SO_GET_INFO, &info, &len) < 0)
		return -errno;
	ti->valid_hooks = info.valid_hooks;
	ti->num_entries = info.num_entries;
	ti->size = info.size;
	return 0;
}

struct ipt_get_entries *raw_get_entries(const struct raw_fam *f, int fd,
					const char *table, int *err)
{
	struct ipt_get_entries *ge;
	struct raw_tinfo ti;
	socklen_t len;
	int tries;

	for (tries = 0; tries < 5; tries++) {
		*err = raw_get_info(f, fd, table, &ti);
		if (*err)
			return NULL;
		len = sizeof(*ge) + ti.size;
		ge = calloc(1, len);
		if (!ge) {
			*err = -ENOMEM;
			return NULL;
		}
		strncpy(ge->name, table, sizeof(ge->name) - 1);
		ge->size = ti.size;
		if (getsockopt(fd, f->level, IPT_SO_GET_ENTRIES, ge, &len) == 0)
			return ge;
		*err = -errno;
		free(ge);
		if (*err != -EAGAIN)	/* EAGAIN: the table changed size */
			return NULL;
	}
	return NULL;
}

int raw_replace(const struct raw_fam *f, int fd, const char *table,
		unsigned int valid_hooks, const struct raw_blob *b,
		unsigned int num_counters)
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
	if (setsockopt(fd, f->level, IPT_SO_SET_REPLACE, r, len) < 0)
		ret = -errno;
out:
	free(r);
	free(counters);
	return ret;
}

const struct raw_fam raw_fam4 = {
	.name		= "IPv4",
	.domain		= AF_INET,
	.level		= IPPROTO_IP,
	.entry_size	= sizeof(struct ipt_entry),
	.target_offset_at = offsetof(struct ipt_entry, target_offset),
	.next_offset_at	= offsetof(struct ipt_entry, next_offset),
};

const struct raw_fam raw_fam6 = {
	.name		= "IPv6",
	.domain		= AF_INET6,
	.level		= IPPROTO_IPV6,
	.entry_size	= sizeof(struct ip6t_entry),
	.target_offset_at = offsetof(struct ip6t_entry, target_offset),
	.next_offset_at	= offsetof(struct ip6t_entry, next_offset),
};
