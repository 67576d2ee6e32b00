// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>

#include "monitor.h"

#define MON_BUF		(64 * 1024)
#define MON_RCVBUF	(4 * 1024 * 1024)

int monitor_open(struct monitor *m, unsigned int ignore_portid)
{
	int size = MON_RCVBUF, fd;

	memset(m, 0, sizeof(*m));
	m->ignore_portid = ignore_portid;
	m->buf = malloc(MON_BUF);
	if (!m->buf)
		return -ENOMEM;
	m->nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!m->nl)
		return -errno;
	if (mnl_socket_bind(m->nl, 1 << (NFNLGRP_NFTABLES - 1),
			    MNL_SOCKET_AUTOPID) < 0)
		return -errno;
	fd = mnl_socket_get_fd(m->nl);
	/* Our own big syncs are echoed element by element: make room. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	return 0;
}

int monitor_fd(const struct monitor *m)
{
	return m->nl ? mnl_socket_get_fd(m->nl) : -1;
}

static void names(const struct nlmsghdr *nlh, int table_attr, int set_attr,
		  const char **table, const char **set)
{
	const struct nlattr *a;

	*table = NULL;
	*set = NULL;
	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		int type = mnl_attr_get_type(a);

		if (type != table_attr && type != set_attr)
			continue;
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			continue;
		if (type == table_attr)
			*table = mnl_attr_get_str(a);
		else
			*set = mnl_attr_get_str(a);
	}
}

void monitor_process(struct monitor *m, monitor_cb cb, void *ctx)
{
	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t r = mnl_socket_recvfrom(m->nl, m->buf, MON_BUF);
		int rem;

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS || errno == ENOSPC)
				cb(ctx, -1, NULL, NULL, false);	/* lost events */
			return;
		}
		nlh = (const struct nlmsghdr *)m->buf;
		for (rem = r; mnl_nlmsg_ok(nlh, rem);
		     nlh = mnl_nlmsg_next(nlh, &rem)) {
			const struct nfgenmsg *g;
			const char *table, *set;

			if (nlh->nlmsg_pid == m->ignore_portid ||
			    NFNL_SUBSYS_ID(nlh->nlmsg_type) != NFNL_SUBSYS_NFTABLES ||
			    nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*g)))
				continue;
			g = mnl_nlmsg_get_payload(nlh);
			switch (NFNL_MSG_TYPE(nlh->nlmsg_type)) {
			case NFT_MSG_NEWTABLE:
			case NFT_MSG_DELTABLE:
				names(nlh, NFTA_TABLE_NAME, -1, &table, &set);
				if (table)
					cb(ctx, g->nfgen_family, table, NULL, false);
				break;
			case NFT_MSG_NEWRULE:
			case NFT_MSG_DELRULE:
				names(nlh, NFTA_RULE_TABLE, -1, &table, &set);
				if (table)
					cb(ctx, g->nfgen_family, table, NULL, true);
				break;
			case NFT_MSG_NEWSET:
			case NFT_MSG_DELSET:
				names(nlh, NFTA_SET_TABLE, NFTA_SET_NAME,
				      &table, &set);
				if (table && set)
					cb(ctx, g->nfgen_family, table, set, false);
				break;
			case NFT_MSG_NEWSETELEM:
			case NFT_MSG_DELSETELEM:
				names(nlh, NFTA_SET_ELEM_LIST_TABLE,
				      NFTA_SET_ELEM_LIST_SET, &table, &set);
				if (table && set)
					cb(ctx, g->nfgen_family, table, set, false);
				break;
			}
		}
	}
}

void monitor_close(struct monitor *m)
{
	if (m->nl)
		mnl_socket_close(m->nl);
	free(m->buf);
	memset(m, 0, sizeof(*m));
}
