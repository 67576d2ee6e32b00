// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The netlink transport of nft-cgroupd: its socket, one receive loop, one
 * query function and one batch object (see nl_query.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>
#include <libnftnl/common.h>

#include "util_log.h"
#include "nl_query.h"

#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED	0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS	0x200
#endif

#define RBUF_SIZE	(256 * 1024)
#define MSG_RESERVE	(32 * 1024)	/* room for any one message we build */
#define SNDBUF_SIZE	(8 * 1024 * 1024)
#define ACK_TIMEOUT_MS	5000

/*
 * How many ids fit in one transaction with a send buffer of @sndbuf bytes:
 * netlink refuses a message longer than sk_sndbuf - 32.  An id costs
 * NFS_ID_BYTES; each message of NFS_IDS_PER_MSG ids adds at most
 * NFS_MSG_OVERHEAD.
 */
static size_t batch_ids(int sndbuf)
{
	size_t room = sndbuf - 32 - NFS_BATCH_FRAME, k;

	if (room < 2 * NFS_MSG_OVERHEAD)
		return 1;
	k = (room - NFS_MSG_OVERHEAD) * NFS_IDS_PER_MSG /
	    (NFS_ID_BYTES * NFS_IDS_PER_MSG + NFS_MSG_OVERHEAD);
	return k < 1 ? 1 : k > NFS_IDS_PER_BATCH ? NFS_IDS_PER_BATCH : k;
}

/*
 * A transaction is one sendmsg(), which netlink refuses beyond the send
 * buffer.  Ask for room; without CAP_NET_ADMIN in the initial user
 * namespace net.core.wmem_max caps it: page by what we got.
 */
static void size_send_buffer(struct nfs *n)
{
	int fd = mnl_socket_get_fd(n->nl), size = SNDBUF_SIZE;
	socklen_t len = sizeof(size);

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &len) || size < 4096)
		size = 4096;
	n->ids_per_batch = batch_ids(size);
	dbg("netlink send buffer %d bytes: up to %zu ids per transaction",
	    size, n->ids_per_batch);
}

int nfs_open(struct nfs *n)
{
	int one = 1;

	memset(n, 0, sizeof(*n));
	n->rbuf = malloc(RBUF_SIZE);
	if (!n->rbuf)
		return -ENOMEM;
	n->nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	if (!n->nl)
		return -errno;
	if (mnl_socket_bind(n->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		return -errno;
	n->portid = mnl_socket_get_portid(n->nl);
	n->seq = time(NULL);
	/* Errors carry only the header back, plus the kernel's message. */
	mnl_socket_setsockopt(n->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(n->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	size_send_buffer(n);
	return 0;
}

void nfs_close(struct nfs *n)
{
	if (n->nl)
		mnl_socket_close(n->nl);
	free(n->buf);
	free(n->rbuf);
	memset(n, 0, sizeof(*n));
}

unsigned int nfs_portid(const struct nfs *n)
{
	return n->portid;
}

/* Room for @more bytes after @used in the request buffer. */
static int reserve(struct nfs *n, size_t used, size_t more)
{
	size_t cap = n->cap ? n->cap : 64 * 1024;
	char *b;

	if (used + more <= n->cap)
		return 0;
	while (cap < used + more)
		cap *= 2;
	b = realloc(n->buf, cap);
	if (!b)
		return -ENOMEM;
	n->buf = b;
	n->cap = cap;
	return 0;
}

void nfs_describe(char *err, size_t errlen, const char *what, int error,
		  const char *kmsg)
{
	const char *why;

	switch (error) {
	case ENOENT:
		why = "table or set not found";
		break;
	case EPERM:
		why = "operation not permitted (CAP_NET_ADMIN is needed)";
		break;
	case ENFILE:
		why = "the set is full (its size limit is reached)";
		break;
	case ETIMEDOUT:
		why = "no answer from the kernel";
		break;
	default:
		why = strerror(error);
	}
	snprintf(err, errlen, "%s: %s%s%s%s", what, why,
		 kmsg && *kmsg ? " (kernel: " : "", kmsg ? kmsg : "",
		 kmsg && *kmsg ? ")" : "");
}

/* --- receiving --- */

/* The kernel's extended ack text of an error, into @msg. */
static void ack_text(const struct nlmsghdr *nlh, const struct nlmsgerr *e,
		     char *msg, size_t msglen)
{
	const struct nlattr *attr;
	size_t off = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	if (mnl_nlmsg_size(off) > nlh->nlmsg_len)
		return;
	mnl_attr_for_each(attr, nlh, off) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
		    !mnl_attr_validate(attr, MNL_TYPE_NUL_STRING))
			snprintf(msg, msglen, "%s", mnl_attr_get_str(attr));
	}
}

/* The error (positive errno) in an NLMSG_ERROR, its seq, the kernel's text. */
static int ack_error(const struct nlmsghdr *nlh, uint32_t *seq, char *msg,
		     size_t msglen)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		*seq = 0;
		return EBADMSG;
	}
	*seq = e->msg.nlmsg_seq;
	msg[0] = '\0';
	if (e->error && (nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		ack_text(nlh, e, msg, msglen);
	return -e->error;
}

static ssize_t recv_wait(struct nfs *n)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(n->nl), .events = POLLIN };
	int r;

	do
		r = poll(&pfd, 1, ACK_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	r = mnl_socket_recvfrom(n->nl, n->rbuf, RBUF_SIZE);
	return r < 0 ? -errno : r;
}

/*
 * The one receive loop: pass every message read to @fn until it returns
 * > 0 (done: 0 is returned) or < 0 (that error is returned).
 */
static int recv_until(struct nfs *n,
		      int (*fn)(const struct nlmsghdr *nlh, void *ctx),
		      void *ctx)
{
	for (;;) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)n->rbuf;
		ssize_t r = recv_wait(n);
		int rem, ret;

		if (r < 0)
			return r;
		for (rem = r; mnl_nlmsg_ok(nlh, rem);
		     nlh = mnl_nlmsg_next(nlh, &rem)) {
			ret = fn(nlh, ctx);
			if (ret)
				return ret > 0 ? 0 : ret;
		}
	}
}

/* --- queries --- */

struct query {
	uint32_t seq;
	nfs_answer_cb cb;
	void *data;
	char *kmsg;
	size_t kmsglen;
};

static int query_answer(const struct nlmsghdr *nlh, void *ctx)
{
	struct query *q = ctx;
	uint32_t seq;
	int e;

	if (nlh->nlmsg_seq != q->seq)
		return 0;	/* a late answer to an old request */
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		return -EINTR;
	if (nlh->nlmsg_type == NLMSG_DONE)
		return 1;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		e = ack_error(nlh, &seq, q->kmsg, q->kmsglen);
		return e ? -e : 1;
	}
	if (q->cb && q->cb(nlh, q->data) < 0)
		return -EBADMSG;
	return 0;
}

struct nlmsghdr *nfs_request(struct nfs *n, int type, int family,
			     uint16_t flags)
{
	if (reserve(n, 0, MSG_RESERVE))
		return NULL;
	/* an ACK (or a dump's DONE) ends every query: nothing waits for more */
	if (!(flags & NLM_F_DUMP))
		flags |= NLM_F_ACK;
	return nftnl_nlmsg_build_hdr(n->buf, type, family, flags, ++n->seq);
}

int nfs_query(struct nfs *n, struct nlmsghdr *nlh, nfs_answer_cb cb,
	      void *data, char *kmsg, size_t kmsglen)
{
	struct query q = { .seq = nlh->nlmsg_seq, .cb = cb, .data = data,
			   .kmsg = kmsg, .kmsglen = kmsglen };

	kmsg[0] = '\0';
	if (mnl_socket_sendto(n->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	return recv_until(n, query_answer, &q);
}

/* --- transactions --- */

int nfs_batch_begin(struct nfs_batch *b, struct nfs *n)
{
	struct nlmsghdr *nlh;

	*b = (struct nfs_batch){ .n = n };
	if (reserve(n, 0, MSG_RESERVE))
		return -ENOMEM;
	b->begin_seq = ++n->seq;
	nlh = nftnl_batch_begin(n->buf, b->begin_seq);
	b->len = NLMSG_ALIGN(nlh->nlmsg_len);
	b->first = n->seq + 1;
	b->last = n->seq;
	return 0;
}

struct nlmsghdr *nfs_batch_msg(struct nfs_batch *b, int type, int family,
			       uint16_t flags)
{
	struct nfs *n = b->n;

	if (reserve(n, b->len, MSG_RESERVE))
		return NULL;
	b->last = ++n->seq;
	return nftnl_nlmsg_build_hdr(n->buf + b->len, type, family,
				     flags | NLM_F_ACK, b->last);
}

void nfs_batch_next(struct nfs_batch *b, const struct nlmsghdr *nlh)
{
	b->len += NLMSG_ALIGN(nlh->nlmsg_len);
}

uint32_t nfs_batch_next_seq(const struct nfs_batch *b)
{
	return b->n->seq + 1;
}

struct acks {
	struct nfs_batch *b;
	uint32_t pending;
};

/*
 * One ACK per message of the batch: the kernel acks every message that
 * has NLM_F_ACK, also when the batch is aborted; the begin message is only
 * answered when the whole batch is refused (e.g. EPERM).
 */
static int batch_answer(const struct nlmsghdr *nlh, void *ctx)
{
	struct acks *a = ctx;
	struct nfs_batch *b = a->b;
	char msg[sizeof(b->kmsg)];
	uint32_t seq;
	int e;

	if (nlh->nlmsg_type != NLMSG_ERROR)
		return 0;
	e = ack_error(nlh, &seq, msg, sizeof(msg));
	if (seq != b->begin_seq && (seq < b->first || seq > b->last))
		return 0;	/* stale, from an old batch */
	if (e && !b->error) {
		b->error = e;
		b->error_seq = seq;
		snprintf(b->kmsg, sizeof(b->kmsg), "%s", msg);
	}
	if (seq == b->begin_seq)
		return e ? 1 : 0;
	return --a->pending ? 0 : 1;
}

int nfs_batch_talk(struct nfs_batch *b)
{
	struct nfs *n = b->n;
	struct acks a = { .b = b, .pending = b->last - b->first + 1 };
	struct nlmsghdr *nlh;

	b->stage = "building the batch";
	if (reserve(n, b->len, MSG_RESERVE))
		return -ENOMEM;
	nlh = nftnl_batch_end(n->buf + b->len, ++n->seq);
	b->len += NLMSG_ALIGN(nlh->nlmsg_len);
	b->stage = "sending the batch";
	if (mnl_socket_sendto(n->nl, n->buf, b->len) < 0)
		return -errno;
	b->stage = "waiting for the kernel";
	if (!a.pending)
		return 0;
	return recv_until(n, batch_answer, &a);
}
