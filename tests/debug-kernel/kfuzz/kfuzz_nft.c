// SPDX-License-Identifier: GPL-2.0
/*
 * The nft_compat path: the fuzzed blob as an "xt match" expression
 * (NFT_MSG_NEWRULE through libnftnl) in the output chain of an nftables
 * table of its own, followed by a counter expression whose packets tell
 * the verdict.  Each put first flushes the chain in the same batch, so the
 * chain holds at most the one rule.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>
#include <libnftnl/batch.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include "kfuzz.h"

#define TABLE "kfuzz"
#define CHAIN "out"

struct kf_nft {
	struct mnl_socket *nl;
	int family;		/* NFPROTO_IPV4 or NFPROTO_IPV6 */
	uint32_t seq;
};

/* A batch spans pages; send them all in one sendmsg, as nft does. */
static int batch_send(struct kf_nft *n, struct nftnl_batch *b)
{
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK };
	int niov = nftnl_batch_iovec_len(b);
	struct iovec iov[niov];
	struct msghdr m = {
		.msg_name = &snl, .msg_namelen = sizeof(snl),
		.msg_iov = iov, .msg_iovlen = niov,
	};

	nftnl_batch_iovec(b, iov, niov);
	return sendmsg(mnl_socket_get_fd(n->nl), &m, 0) < 0 ? -errno : 0;
}

/* Read answers up to @last_seq's; the first error of the batch, or 0. */
static int batch_answers(struct kf_nft *n, uint32_t last_seq)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int err = 0, len;

	for (;;) {
		const struct nlmsghdr *h;

		len = mnl_socket_recvfrom(n->nl, buf, sizeof(buf));
		if (len < 0)
			return -errno;
		for (h = (void *)buf; mnl_nlmsg_ok(h, len); h = mnl_nlmsg_next(h, &len)) {
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(h);

				if (e->error && !err)
					err = e->error;
				if (h->nlmsg_seq == last_seq)
					return err;
			}
		}
	}
}

typedef struct nlmsghdr *(*add_fn)(struct kf_nft *n, struct nftnl_batch *b,
				   const void *arg);

/* One batch: BEGIN, the messages @fn adds, END; acked on its last one. */
static int batch(struct kf_nft *n, add_fn fn, const void *arg)
{
	struct nftnl_batch *b = nftnl_batch_alloc(65536, 65536);
	struct nlmsghdr *last;
	int ret;

	if (!b)
		return -ENOMEM;
	nftnl_batch_begin(nftnl_batch_buffer(b), n->seq++);
	nftnl_batch_update(b);
	last = fn(n, b, arg);
	last->nlmsg_flags |= NLM_F_ACK;
	nftnl_batch_end(nftnl_batch_buffer(b), n->seq++);
	nftnl_batch_update(b);
	ret = batch_send(n, b);
	if (!ret)
		ret = batch_answers(n, last->nlmsg_seq);
	nftnl_batch_free(b);
	return ret;
}

static struct nlmsghdr *msg(struct kf_nft *n, struct nftnl_batch *b, int type,
			    uint16_t flags)
{
	struct nlmsghdr *h = nftnl_nlmsg_build_hdr(nftnl_batch_buffer(b), type,
						   n->family, flags, n->seq++);

	return h;
}

static struct nlmsghdr *add_table_chain(struct kf_nft *n, struct nftnl_batch *b,
					const void *arg)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nlmsghdr *h;

	(void)arg;
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, TABLE);
	h = msg(n, b, NFT_MSG_NEWTABLE, NLM_F_CREATE);
	nftnl_table_nlmsg_build_payload(h, t);
	nftnl_batch_update(b);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, TABLE);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, CHAIN);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
	nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, NF_INET_LOCAL_OUT);
	nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, 0);
	h = msg(n, b, NFT_MSG_NEWCHAIN, NLM_F_CREATE);
	nftnl_chain_nlmsg_build_payload(h, c);
	nftnl_batch_update(b);
	nftnl_table_free(t);
	nftnl_chain_free(c);
	return h;
}

static struct nlmsghdr *flush_chain(struct kf_nft *n, struct nftnl_batch *b)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nlmsghdr *h;

	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, TABLE);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, CHAIN);
	h = msg(n, b, NFT_MSG_DELRULE, 0);
	nftnl_rule_nlmsg_build_payload(h, r);
	nftnl_batch_update(b);
	nftnl_rule_free(r);
	return h;
}

static struct nlmsghdr *add_rule(struct kf_nft *n, struct nftnl_batch *b,
				 const void *arg)
{
	const struct kf_blob *blob = arg;
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nftnl_expr *m = nftnl_expr_alloc("match");
	struct nftnl_expr *c = nftnl_expr_alloc("counter");
	void *info = calloc(1, blob->data_size);
	struct nlmsghdr *h;

	flush_chain(n, b);
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, TABLE);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, CHAIN);
	nftnl_expr_set_str(m, NFTNL_EXPR_MT_NAME, "cgroup2");
	nftnl_expr_set_u32(m, NFTNL_EXPR_MT_REV, 0);
	/* libnftnl takes the info's memory over (and frees it with the rule). */
	memcpy(info, &blob->info, blob->data_size < sizeof(blob->info) ?
				  blob->data_size : sizeof(blob->info));
	nftnl_expr_set(m, NFTNL_EXPR_MT_INFO, info, blob->data_size);
	nftnl_rule_add_expr(r, m);
	nftnl_rule_add_expr(r, c);
	h = msg(n, b, NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND);
	nftnl_rule_nlmsg_build_payload(h, r);
	nftnl_batch_update(b);
	nftnl_rule_free(r);	/* frees the expressions too */
	return h;
}

static struct nlmsghdr *only_flush(struct kf_nft *n, struct nftnl_batch *b,
				   const void *arg)
{
	(void)arg;
	return flush_chain(n, b);
}

static struct nlmsghdr *del_table(struct kf_nft *n, struct nftnl_batch *b,
				  const void *arg)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *h;

	(void)arg;
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, TABLE);
	h = msg(n, b, NFT_MSG_DELTABLE, 0);
	nftnl_table_nlmsg_build_payload(h, t);
	nftnl_batch_update(b);
	nftnl_table_free(t);
	return h;
}

struct kf_nft *kf_nft_open(int fam)
{
	struct kf_nft *n = calloc(1, sizeof(*n));
	int ret;

	if (!n)
		return NULL;
	n->family = fam ? NFPROTO_IPV6 : NFPROTO_IPV4;
	n->seq = time(NULL);
	n->nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!n->nl || mnl_socket_bind(n->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		fprintf(stderr, "cg2kfuzz: netlink: %s\n", strerror(errno));
		kf_nft_close(n);
		return NULL;
	}
	ret = batch(n, add_table_chain, NULL);
	if (ret) {
		fprintf(stderr, "cg2kfuzz: nft table %s: %s\n", TABLE, strerror(-ret));
		kf_nft_close(n);
		return NULL;
	}
	return n;
}

void kf_nft_close(struct kf_nft *n)
{
	if (n->nl) {
		batch(n, del_table, NULL);
		mnl_socket_close(n->nl);
	}
	free(n);
}

int kf_nft_put(struct kf_nft *n, const struct kf_blob *b)
{
	return batch(n, add_rule, b);
}

int kf_nft_flush(struct kf_nft *n)
{
	return batch(n, only_flush, NULL);
}

static int expr_packets(struct nftnl_expr *e, void *data)
{
	const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);

	if (name && !strcmp(name, "counter"))
		*(long long *)data = (long long)nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_PACKETS);
	return 0;
}

static int rule_cb(const struct nlmsghdr *h, void *data)
{
	struct nftnl_rule *r = nftnl_rule_alloc();

	if (r && nftnl_rule_nlmsg_parse(h, r) == 0)
		nftnl_expr_foreach(r, expr_packets, data);
	nftnl_rule_free(r);
	return MNL_CB_OK;
}

long long kf_nft_count(struct kf_nft *n)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nlmsghdr *h;
	long long packets = -ENOENT;
	uint32_t seq = n->seq++;
	int len;

	h = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETRULE, n->family, NLM_F_DUMP, seq);
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, TABLE);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, CHAIN);
	nftnl_rule_nlmsg_build_payload(h, r);
	nftnl_rule_free(r);
	if (mnl_socket_sendto(n->nl, h, h->nlmsg_len) < 0)
		return -errno;
	while ((len = mnl_socket_recvfrom(n->nl, buf, sizeof(buf))) > 0) {
		len = mnl_cb_run(buf, len, seq, mnl_socket_get_portid(n->nl),
				 rule_cb, &packets);
		if (len <= MNL_CB_STOP)
			break;
	}
	return len < 0 ? -errno : packets;
}
