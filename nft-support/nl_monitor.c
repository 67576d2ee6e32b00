// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/filter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>

#include "util_log.h"
#include "nl_monitor.h"

#define MON_BUF		(64 * 1024)
#define MON_RCVBUF	(4 * 1024 * 1024)

/*
 * Drop our own changes in the kernel, before they take room in the receive
 * buffer: a big sync echoes every element, and an overflow loses the
 * events of others (then every set is re-read).  A classic BPF filter on
 * the first message's nlmsg_pid is enough: nf_tables packs into one skb
 * only the notifications of one transaction, all with the same port id.
 * (NLM_F_ECHO would only move the echo to our command socket.)  BPF_ABS
 * loads are big-endian, nlmsg_pid is host order: compare with htonl().
 */
static int ignore_port(int fd, unsigned int portid)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct nlmsghdr, nlmsg_pid)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(portid), 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
	};
	struct sock_fprog prog = {
		.len = sizeof(code) / sizeof(code[0]),
		.filter = code,
	};

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
			  sizeof(prog)) ? -errno : 0;
}

int monitor_open(struct monitor *m, unsigned int ignore_portid)
{
	int size = MON_RCVBUF, fd, ret;

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
	/* Room for bursts of others' changes (a reload of a big ruleset). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	/* Without the filter, the check in monitor_process() still works. */
	ret = ignore_port(fd, ignore_portid);
	if (ret)
		warn("cannot filter out our own nf_tables events (%s): big syncs may overflow the event buffer",
		     strerror(-ret));
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
