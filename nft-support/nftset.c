// SPDX-License-Identifier: GPL-2.0 OR MIT
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
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <libnftnl/rule.h>
#include <libnftnl/expr.h>

#include "log.h"
#include "nftset.h"

#ifndef NFT_MSG_DESTROYSETELEM
#define NFT_MSG_DESTROYSETELEM	30	/* Linux 6.3 */
#endif
#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED	0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS	0x200
#endif
/*
 * Enumerators (so always spelt out here): NFT_SOCKET_CGROUPV2 is missing
 * from Linux headers before 5.13, NFTNL_EXPR_SOCKET_LEVEL from libnftnl
 * before 1.2.0 (Debian 11), which then never sets the attribute.
 */
#define NFT_SOCKET_CGROUPV2_KEY		3
#define NFTNL_EXPR_SOCKET_LEVEL_ATTR	(NFTNL_EXPR_BASE + 2)

#define RBUF_SIZE	(256 * 1024)
#define IDS_PER_MSG	1024	/* 20 bytes each: well below the 64 KiB of a nested attribute */
#define IDS_PER_BATCH	(64 * 1024)	/* about 1.3 MB of messages */
#define MSG_RESERVE	(32 * 1024)
#define SNDBUF_SIZE	(8 * 1024 * 1024)
/* an element: list item nest, key nest, 8-byte value, each with its header */
#define ID_BYTES	20
/* nlmsghdr, nfgenmsg, table and set names (NFT_NAME_MAXLEN), list nest */
#define MSG_OVERHEAD	(16 + 4 + 2 * (4 + 256) + 4 + 64)
/* the begin and end messages */
#define BATCH_FRAME	(2 * 32)
#define ACK_TIMEOUT_MS	5000

/*
 * How many ids fit in one transaction with a send buffer of @sndbuf bytes:
 * netlink refuses a message longer than sk_sndbuf - 32.  An id costs
 * ID_BYTES; each message of IDS_PER_MSG ids adds at most MSG_OVERHEAD.
 */
static size_t batch_ids(int sndbuf)
{
	size_t room = sndbuf - 32 - BATCH_FRAME, k;

	if (room < 2 * MSG_OVERHEAD)
		return 1;
	k = (room - MSG_OVERHEAD) * IDS_PER_MSG /
	    (ID_BYTES * IDS_PER_MSG + MSG_OVERHEAD);
	return k < 1 ? 1 : k > IDS_PER_BATCH ? IDS_PER_BATCH : k;
}

int nfs_open(struct nfs *n)
{
	int one = 1, size = SNDBUF_SIZE;
	socklen_t len = sizeof(size);
	int fd;

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
	fd = mnl_socket_get_fd(n->nl);
	/* Errors carry only the header back, plus the kernel's message. */
	mnl_socket_setsockopt(n->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(n->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	/*
	 * A transaction is one sendmsg(), which netlink refuses beyond the
	 * send buffer.  Ask for room; without CAP_NET_ADMIN in the initial
	 * user namespace net.core.wmem_max caps it: page by what we got.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &len) || size < 4096)
		size = 4096;
	n->ids_per_batch = batch_ids(size);
	dbg("netlink send buffer %d bytes: up to %zu ids per transaction",
	    size, n->ids_per_batch);
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

/* The error in an NLMSG_ERROR message, and the kernel's text if any. */
static int ack_error(const struct nlmsghdr *nlh, uint32_t *seq, char *msg,
		     size_t msglen)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	size_t off;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		*seq = 0;
		return EBADMSG;
	}
	*seq = e->msg.nlmsg_seq;
	if (msg && msglen)
		msg[0] = '\0';
	if (e->error && msg && (nlh->nlmsg_flags & NLM_F_ACK_TLVS)) {
		off = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		if (mnl_nlmsg_size(off) <= nlh->nlmsg_len) {
			mnl_attr_for_each(attr, nlh, off) {
				if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
				    !mnl_attr_validate(attr, MNL_TYPE_NUL_STRING))
					snprintf(msg, msglen, "%s",
						 mnl_attr_get_str(attr));
			}
		}
	}
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

static void describe(char *err, size_t errlen, const char *what, int error,
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

struct query {
	struct nfs *n;
	uint32_t seq;
	int (*cb)(const struct nlmsghdr *nlh, void *data);
	void *data;
	char kmsg[256];
};

/* Send the one request in n->buf and run @q->cb on each answer. */
static int request(struct query *q, size_t len)
{
	struct nfs *n = q->n;
	bool done = false;
	ssize_t r;

	if (mnl_socket_sendto(n->nl, n->buf, len) < 0)
		return -errno;
	while (!done) {
		const struct nlmsghdr *nlh;
		int rem;

		r = recv_wait(n);
		if (r < 0)
			return r;
		nlh = (const struct nlmsghdr *)n->rbuf;
		for (rem = r; mnl_nlmsg_ok(nlh, rem);
		     nlh = mnl_nlmsg_next(nlh, &rem)) {
			uint32_t seq;
			int e;

			if (nlh->nlmsg_seq != q->seq)
				continue;	/* a late answer to an old request */
			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				return -EINTR;
			if (nlh->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				e = ack_error(nlh, &seq, q->kmsg,
					      sizeof(q->kmsg));
				if (e)
					return -e;
				done = true;
				break;
			}
			if (q->cb && q->cb(nlh, q->data) < 0)
				return -EBADMSG;
		}
	}
	return 0;
}

/* A set object naming TABLE and SET, or NULL when out of memory. */
static struct nftnl_set *set_named(const char *table, const char *set)
{
	struct nftnl_set *s = nftnl_set_alloc();

	if (s && (nftnl_set_set_str(s, NFTNL_SET_TABLE, table) < 0 ||
		  nftnl_set_set_str(s, NFTNL_SET_NAME, set) < 0)) {
		nftnl_set_free(s);
		s = NULL;
	}
	return s;
}

struct setinfo {
	bool found;
	uint32_t key_type, key_len, flags;
};

static int set_cb(const struct nlmsghdr *nlh, void *data)
{
	struct setinfo *si = data;
	struct nftnl_set *s = nftnl_set_alloc();

	if (!s)
		return -1;
	if (nftnl_set_nlmsg_parse(nlh, s) < 0) {
		nftnl_set_free(s);
		return -1;
	}
	si->found = true;
	si->key_type = nftnl_set_get_u32(s, NFTNL_SET_KEY_TYPE);
	si->key_len = nftnl_set_get_u32(s, NFTNL_SET_KEY_LEN);
	si->flags = nftnl_set_get_u32(s, NFTNL_SET_FLAGS);
	nftnl_set_free(s);
	return 0;
}

static int table_exists(struct nfs *n, int family, const char *table)
{
	struct query q = { .n = n };
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;

	if (!t || reserve(n, 0, MSG_RESERVE) ||
	    nftnl_table_set_str(t, NFTNL_TABLE_NAME, table) < 0) {
		if (t)
			nftnl_table_free(t);
		return -ENOMEM;
	}
	q.seq = ++n->seq;
	nlh = nftnl_nlmsg_build_hdr(n->buf, NFT_MSG_GETTABLE, family,
				    NLM_F_ACK, q.seq);
	nftnl_table_nlmsg_build_payload(nlh, t);
	nftnl_table_free(t);
	return request(&q, nlh->nlmsg_len);
}

/*
 * Set flags the daemon cannot live with: it must be able to add and delete
 * elements by key, and they must stay until it deletes them.  Per-element
 * expressions (counters, NFT_SET_EXPR) are fine.
 */
static const struct {
	uint32_t flags;
	const char *why;
} refused[] = {
	{ NFT_SET_MAP | NFT_SET_OBJECT, "the set is a map" },
	{ NFT_SET_ANONYMOUS, "the set is anonymous (it belongs to a rule)" },
	{ NFT_SET_CONSTANT, "the set has flags constant: its elements cannot change" },
	{ NFT_SET_INTERVAL, "the set has flags interval" },
	{ NFT_SET_TIMEOUT, "the set has flags timeout: its elements would expire and the set empty itself" },
	{ NFT_SET_EVAL, "the set has flags dynamic: rules change it from the packet path, and the daemon owns its content" },
};

int nfs_check_set(struct nfs *n, int family, const char *table,
		  const char *set, char *err, size_t errlen)
{
	struct setinfo si = { 0 };
	size_t i;
	struct query q = { .n = n, .cb = set_cb, .data = &si };
	struct nftnl_set *s = set_named(table, set);
	struct nlmsghdr *nlh;
	int ret;

	if (!s || reserve(n, 0, MSG_RESERVE)) {
		if (s)
			nftnl_set_free(s);
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	q.seq = ++n->seq;
	nlh = nftnl_nlmsg_build_hdr(n->buf, NFT_MSG_GETSET, family,
				    NLM_F_ACK, q.seq);
	nftnl_set_nlmsg_build_payload(nlh, s);
	nftnl_set_free(s);
	ret = request(&q, nlh->nlmsg_len);
	if (ret == -ENOENT) {
		int t = table_exists(n, family, table);

		if (t == -ENOENT)
			snprintf(err, errlen, "table %s %s not found",
				 family == NFPROTO_IPV4 ? "ip" :
				 family == NFPROTO_IPV6 ? "ip6" :
				 family == NFPROTO_INET ? "inet" :
				 family == NFPROTO_ARP ? "arp" :
				 family == NFPROTO_BRIDGE ? "bridge" : "netdev",
				 table);
		else
			snprintf(err, errlen, "set %s not found in table %s",
				 set, table);
		return ret;
	}
	if (ret) {
		describe(err, errlen, "looking up the set", -ret, q.kmsg);
		return ret;
	}
	if (!si.found) {
		snprintf(err, errlen, "looking up the set: no answer");
		return -EPROTO;
	}
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (si.flags & refused[i].flags) {
			snprintf(err, errlen, "%s; it must be a plain set of `type cgroupsv2`",
				 refused[i].why);
			return -EINVAL;
		}
	}
	if (si.key_type != NFTCG_TYPE_CGROUPV2 || si.key_len != 8) {
		snprintf(err, errlen,
			 "the set has key type %u of %u bytes; it must be `type cgroupsv2` (type %u, 8 bytes)",
			 si.key_type, si.key_len, NFTCG_TYPE_CGROUPV2);
		return -EINVAL;
	}
	return 0;
}

static int elem_cb(struct nftnl_set_elem *e, void *data)
{
	struct idset *out = data;
	const void *key;
	uint32_t len = 0;
	uint64_t id;

	key = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &len);
	if (!key || len != sizeof(id))
		return 0;
	memcpy(&id, key, sizeof(id));	/* host byte order, like nft */
	return idset_add(out, id) < 0 ? -1 : 0;
}

static int elems_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nftnl_set *s = nftnl_set_alloc();
	int ret = -1;

	if (!s)
		return -1;
	if (nftnl_set_elems_nlmsg_parse(nlh, s) >= 0)
		ret = nftnl_set_elem_foreach(s, elem_cb, data);
	nftnl_set_free(s);
	return ret;
}

int nfs_read_set(struct nfs *n, int family, const char *table,
		 const char *set, struct idset *out, char *err, size_t errlen)
{
	struct query q = { .n = n, .cb = elems_cb, .data = out };
	int ret = -EINTR, tries;

	for (tries = 0; tries < 5 && ret == -EINTR; tries++) {
		struct nftnl_set *s = set_named(table, set);
		struct nlmsghdr *nlh;

		if (!s || reserve(n, 0, MSG_RESERVE)) {
			if (s)
				nftnl_set_free(s);
			ret = -ENOMEM;
			break;
		}
		idset_clear(out);
		q.seq = ++n->seq;
		nlh = nftnl_nlmsg_build_hdr(n->buf, NFT_MSG_GETSETELEM, family,
					    NLM_F_DUMP, q.seq);
		nftnl_set_elems_nlmsg_build_payload(nlh, s);
		nftnl_set_free(s);
		ret = request(&q, nlh->nlmsg_len);
	}
	if (ret)
		describe(err, errlen, "reading the set", -ret, q.kmsg);
	return ret;
}

/* Append one NEWSETELEM/DESTROYSETELEM/DELSETELEM message for @ids. */
static int put_elems(struct nfs *n, size_t *off, int type, uint16_t flags,
		     int family, const char *table, const char *set,
		     const uint64_t *ids, size_t nids)
{
	struct nftnl_set *s = set_named(table, set);
	struct nlmsghdr *nlh;
	size_t i;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < nids; i++) {
		struct nftnl_set_elem *e = nftnl_set_elem_alloc();

		if (!e || nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, &ids[i],
					     sizeof(ids[i])) < 0) {
			if (e)
				nftnl_set_elem_free(e);
			nftnl_set_free(s);
			return -ENOMEM;
		}
		nftnl_set_elem_add(s, e);
	}
	if (reserve(n, *off, MSG_RESERVE)) {
		nftnl_set_free(s);
		return -ENOMEM;
	}
	nlh = nftnl_nlmsg_build_hdr(n->buf + *off, type, family,
				    flags | NLM_F_ACK, ++n->seq);
	nftnl_set_elems_nlmsg_build_payload(nlh, s);
	nftnl_set_free(s);	/* the payload is built: the objects go */
	*off += NLMSG_ALIGN(nlh->nlmsg_len);
	return 0;
}

struct sent {
	uint32_t first, last;	/* seq range of the acked messages */
	uint32_t first_del;	/* first seq of a delete message */
};

static int send_batch(struct nfs *n, int family, const char *table,
		      const char *set, const uint64_t *add, size_t nadd,
		      const uint64_t *del, size_t ndel, struct sent *st,
		      size_t *len)
{
	int del_type = n->no_destroy ? NFT_MSG_DELSETELEM :
				       NFT_MSG_DESTROYSETELEM;
	size_t off = 0, i, k;
	int ret;

	if (reserve(n, 0, MSG_RESERVE))
		return -ENOMEM;
	nftnl_batch_begin(n->buf, ++n->seq);
	off = NLMSG_ALIGN(((struct nlmsghdr *)n->buf)->nlmsg_len);
	st->first = n->seq + 1;
	for (i = 0; i < nadd; i += k) {
		k = nadd - i < IDS_PER_MSG ? nadd - i : IDS_PER_MSG;
		/* NLM_F_CREATE without NLM_F_EXCL: present ids are fine */
		ret = put_elems(n, &off, NFT_MSG_NEWSETELEM, NLM_F_CREATE,
				family, table, set, add + i, k);
		if (ret)
			return ret;
	}
	st->first_del = n->seq + 1;
	for (i = 0; i < ndel; i += k) {
		k = ndel - i < IDS_PER_MSG ? ndel - i : IDS_PER_MSG;
		ret = put_elems(n, &off, del_type, 0, family, table, set,
				del + i, k);
		if (ret)
			return ret;
	}
	st->last = n->seq;
	if (reserve(n, off, MSG_RESERVE))
		return -ENOMEM;
	nftnl_batch_end(n->buf + off, ++n->seq);
	off += NLMSG_ALIGN(((struct nlmsghdr *)(n->buf + off))->nlmsg_len);
	*len = off;
	return 0;
}

/*
 * Read one ACK per message of the batch.  The kernel acks every message
 * that has NLM_F_ACK, also when the batch is aborted; the begin message is
 * only answered when the whole batch is refused (e.g. EPERM).
 */
static int recv_acks(struct nfs *n, const struct sent *st, uint32_t begin,
		     int *first_err, uint32_t *err_seq, char *kmsg,
		     size_t kmsglen)
{
	uint32_t pending = st->last - st->first + 1;
	char msg[256];

	*first_err = 0;
	while (pending) {
		const struct nlmsghdr *nlh;
		ssize_t r = recv_wait(n);
		int rem;

		if (r < 0)
			return r;
		nlh = (const struct nlmsghdr *)n->rbuf;
		for (rem = r; mnl_nlmsg_ok(nlh, rem);
		     nlh = mnl_nlmsg_next(nlh, &rem)) {
			uint32_t seq;
			int e;

			if (nlh->nlmsg_type != NLMSG_ERROR)
				continue;
			e = ack_error(nlh, &seq, msg, sizeof(msg));
			if (seq == begin && e) {
				*first_err = e;
				*err_seq = seq;
				snprintf(kmsg, kmsglen, "%s", msg);
				return 0;
			}
			if (seq < st->first || seq > st->last)
				continue;	/* stale, from an old batch */
			pending--;
			if (e && !*first_err) {
				*first_err = e;
				*err_seq = seq;
				snprintf(kmsg, kmsglen, "%s", msg);
			}
		}
	}
	return 0;
}

static int commit_one(struct nfs *n, int family, const char *table,
		      const char *set, const uint64_t *add, size_t nadd,
		      const uint64_t *del, size_t ndel, bool *del_missing,
		      char *err, size_t errlen);

/*
 * NFT_MSG_DESTROYSETELEM (Linux 6.3) ignores absent ids; older kernels do
 * not know the message and refuse it with EINVAL.  Ask once, rather than
 * take any EINVAL of a delete for that: destroy id 0 (no cgroup's) from a
 * table that does not exist; ENOENT or success mean it is known.
 */
static void probe_destroy(struct nfs *n)
{
	static const uint64_t zero;
	char err[256];
	bool missing;
	int ret;

	ret = commit_one(n, NFPROTO_INET, "nft-cgroupd-probe", "probe", NULL,
			 0, &zero, 1, &missing, err, sizeof(err));
	n->probed = true;
	if (ret == -EINVAL || ret == -EOPNOTSUPP) {
		n->no_destroy = true;
		dbg("kernel lacks NFT_MSG_DESTROYSETELEM, using DELSETELEM");
	} else {
		dbg("kernel has NFT_MSG_DESTROYSETELEM (probe: %s)",
		    ret ? strerror(-ret) : "done");
	}
}

int nfs_commit(struct nfs *n, int family, const char *table, const char *set,
	       const uint64_t *add, size_t nadd, const uint64_t *del,
	       size_t ndel, bool *del_missing, char *err, size_t errlen)
{
	size_t a = 0, d = 0, ka, kd, max = n->ids_per_batch;
	int ret;

	if (ndel && !n->probed)
		probe_destroy(n);

	/*
	 * One sendmsg() per transaction, bounded by the socket's send buffer:
	 * big changes go as several transactions.
	 */
	do {
		ka = nadd - a < max ? nadd - a : max;
		kd = ndel - d < max - ka ? ndel - d : max - ka;
		ret = commit_one(n, family, table, set, add + a, ka, del + d,
				 kd, del_missing, err, errlen);
		if (ret)
			return ret;
		a += ka;
		d += kd;
	} while (a < nadd || d < ndel);
	return 0;
}

static int commit_one(struct nfs *n, int family, const char *table,
		      const char *set, const uint64_t *add, size_t nadd,
		      const uint64_t *del, size_t ndel, bool *del_missing,
		      char *err, size_t errlen)
{
	char kmsg[256] = "", what[96];
	struct sent st;
	uint32_t begin, err_seq = 0;
	int ret, e;
	size_t len;

	*del_missing = false;
	if (!nadd && !ndel)
		return 0;
	begin = n->seq + 1;
	ret = send_batch(n, family, table, set, add, nadd, del, ndel, &st, &len);
	if (ret) {
		describe(err, errlen, "building the batch", -ret, NULL);
		return ret;
	}
	if (mnl_socket_sendto(n->nl, n->buf, len) < 0) {
		ret = -errno;
		describe(err, errlen, "sending the batch", -ret, NULL);
		return ret;
	}
	ret = recv_acks(n, &st, begin, &e, &err_seq, kmsg, sizeof(kmsg));
	if (ret) {
		describe(err, errlen, "waiting for the kernel", -ret, NULL);
		return ret;
	}
	if (!e)
		return 0;
	if (err_seq >= st.first_del && err_seq <= st.last) {
		if (n->no_destroy && e == ENOENT) {
			*del_missing = true;
			snprintf(err, errlen, "deleting ids: some were not in the set");
			return -ENOENT;
		}
		snprintf(what, sizeof(what), "deleting %zu ids", ndel);
	} else if (err_seq == begin) {
		snprintf(what, sizeof(what), "the batch was refused");
	} else {
		snprintf(what, sizeof(what), "adding %zu ids", nadd);
	}
	describe(err, errlen, what, e, kmsg);
	return -e;
}

struct levels {
	const char *table, *set;
	unsigned int *v;
	size_t n, max;
};

static void level_add(struct levels *l, unsigned int level)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i] == level)
			return;
	if (l->n < l->max)
		l->v[l->n++] = level;
}

static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct levels *l = data;
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nftnl_expr_iter *it;
	struct nftnl_expr *e;
	/* level last loaded into each register by socket cgroupv2, or -1 */
	long reg_level[32];
	size_t i;

	if (!r)
		return -1;
	if (nftnl_rule_nlmsg_parse(nlh, r) < 0) {
		nftnl_rule_free(r);
		return -1;
	}
	if (nftnl_rule_is_set(r, NFTNL_RULE_TABLE) &&
	    strcmp(nftnl_rule_get_str(r, NFTNL_RULE_TABLE), l->table)) {
		nftnl_rule_free(r);	/* an old kernel that ignores the filter */
		return 0;
	}
	it = nftnl_expr_iter_create(r);
	if (!it) {
		nftnl_rule_free(r);
		return -1;
	}
	for (i = 0; i < 32; i++)
		reg_level[i] = -1;
	while ((e = nftnl_expr_iter_next(it))) {
		const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);
		uint32_t reg;

		if (!strcmp(name, "socket") &&
		    nftnl_expr_get_u32(e, NFTNL_EXPR_SOCKET_KEY) == NFT_SOCKET_CGROUPV2_KEY) {
			/* no level from an old libnftnl: no check then */
			reg = nftnl_expr_get_u32(e, NFTNL_EXPR_SOCKET_DREG);
			if (reg < 32 &&
			    nftnl_expr_is_set(e, NFTNL_EXPR_SOCKET_LEVEL_ATTR))
				reg_level[reg] = nftnl_expr_get_u32(e, NFTNL_EXPR_SOCKET_LEVEL_ATTR);
		} else if (!strcmp(name, "lookup")) {
			const char *set = nftnl_expr_get_str(e, NFTNL_EXPR_LOOKUP_SET);

			reg = nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_SREG);
			if (set && !strcmp(set, l->set) && reg < 32 &&
			    reg_level[reg] >= 0)
				level_add(l, reg_level[reg]);
		}
	}
	nftnl_expr_iter_destroy(it);
	nftnl_rule_free(r);
	return 0;
}

int nfs_rule_levels(struct nfs *n, int family, const char *table,
		    const char *set, unsigned int *levels, size_t max)
{
	struct levels l = { .table = table, .set = set, .v = levels, .max = max };
	struct query q = { .n = n, .cb = rule_cb, .data = &l };
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nlmsghdr *nlh;
	int ret;

	if (!r || reserve(n, 0, MSG_RESERVE) ||
	    nftnl_rule_set_str(r, NFTNL_RULE_TABLE, table) < 0) {
		if (r)
			nftnl_rule_free(r);
		return -ENOMEM;
	}
	q.seq = ++n->seq;
	nlh = nftnl_nlmsg_build_hdr(n->buf, NFT_MSG_GETRULE, family,
				    NLM_F_DUMP, q.seq);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	ret = request(&q, nlh->nlmsg_len);
	return ret ? ret : (int)l.n;
}
