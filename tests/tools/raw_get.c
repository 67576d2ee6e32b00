// SPDX-License-Identifier: GPL-2.0
/*
 * Read a match back from the kernel as userspace sees it: the first match
 * named NAME in an iptables-legacy table (IPT_SO_GET_INFO, then
 * IPT_SO_GET_ENTRIES) or in an nftables table of iptables-nft (an
 * NFT_MSG_GETRULE dump, the NFTA_MATCH_INFO of the first "match"
 * expression), so that a test can see every byte the kernel hands out,
 * including those it must hide.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nf_tables_compat.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "raw.h"

static_assert(offsetof(struct ipt_get_entries, entrytable) ==
	      offsetof(struct ip6t_get_entries, entrytable) &&
	      IPT_SO_GET_ENTRIES == IP6T_SO_GET_ENTRIES,
	      "ipt and ip6t get_entries differ");

static int found(const unsigned char *data, size_t size,
		 unsigned char **out, size_t *out_size)
{
	*out = malloc(size ? size : 1);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, data, size);
	*out_size = size;
	return 0;
}

/* Walk the entries blob; 0 and the data, -ENOENT, or -EPROTO if malformed. */
static int legacy_find(const struct raw_fam *f, const unsigned char *blob,
		       size_t size, const char *name,
		       unsigned char **data, size_t *data_size)
{
	size_t off = 0, m_off;
	__u16 t_off, next;

	while (off + f->entry_size <= size) {
		memcpy(&t_off, blob + off + f->target_offset_at, sizeof(t_off));
		memcpy(&next, blob + off + f->next_offset_at, sizeof(next));
		if (next < f->entry_size || t_off > next || off + next > size)
			return -EPROTO;
		for (m_off = f->entry_size; m_off + sizeof(struct xt_entry_match) <= t_off;) {
			const struct xt_entry_match *m =
				(const void *)(blob + off + m_off);
			__u16 msize = m->u.user.match_size;

			if (msize < sizeof(*m) || m_off + msize > t_off)
				return -EPROTO;
			if (!strncmp(m->u.user.name, name, sizeof(m->u.user.name)))
				return found(m->data, msize - sizeof(*m), data,
					     data_size);
			m_off += msize;
		}
		off += next;
	}
	return -ENOENT;
}

int raw_get_legacy(const struct raw_fam *f, int fd, const char *table,
		   const char *match, unsigned char **data, size_t *data_size)
{
	int ret;
	struct ipt_get_entries *ge = raw_get_entries(f, fd, table, &ret);

	if (!ge)
		return ret;
	ret = legacy_find(f, (const unsigned char *)ge->entrytable, ge->size,
			  match, data, data_size);
	free(ge);
	return ret;
}

/* --- nftables ------------------------------------------------------------ */

#define ATTR_OK(a, end) ((const char *)(a) + sizeof(struct nlattr) <= (end) && \
			 (a)->nla_len >= sizeof(struct nlattr) &&		\
			 (const char *)(a) + (a)->nla_len <= (end))
#define ATTR_NEXT(a) ((const struct nlattr *)((const char *)(a) + NLA_ALIGN((a)->nla_len)))
#define ATTR_DATA(a) ((const char *)(a) + NLA_HDRLEN)
#define ATTR_LEN(a) ((a)->nla_len - NLA_HDRLEN)
#define ATTR_TYPE(a) ((a)->nla_type & NLA_TYPE_MASK)

/* The attribute of TYPE among those in [p, end), or NULL. */
static const struct nlattr *attr_get(const char *p, const char *end, int type)
{
	const struct nlattr *a;

	for (a = (const void *)p; ATTR_OK(a, end); a = ATTR_NEXT(a))
		if (ATTR_TYPE(a) == type)
			return a;
	return NULL;
}

static bool attr_streq(const struct nlattr *a, const char *s)
{
	return a && strnlen(ATTR_DATA(a), ATTR_LEN(a)) == strlen(s) &&
	       !memcmp(ATTR_DATA(a), s, strlen(s));
}

/* One NEWRULE message: 0 and the data, or -ENOENT. */
static int nft_rule_find(const struct nlmsghdr *nlh, const char *table,
			 const char *match, unsigned char **data,
			 size_t *data_size)
{
	const char *p = (const char *)NLMSG_DATA(nlh) + sizeof(struct nfgenmsg);
	const char *end = (const char *)nlh + nlh->nlmsg_len;
	const struct nlattr *exprs, *e, *name, *edata, *mname, *info;

	if (!attr_streq(attr_get(p, end, NFTA_RULE_TABLE), table))
		return -ENOENT;
	exprs = attr_get(p, end, NFTA_RULE_EXPRESSIONS);
	if (!exprs)
		return -ENOENT;
	end = (const char *)exprs + exprs->nla_len;
	for (e = (const void *)ATTR_DATA(exprs); ATTR_OK(e, end); e = ATTR_NEXT(e)) {
		const char *ee = (const char *)e + e->nla_len;

		if (ATTR_TYPE(e) != NFTA_LIST_ELEM)
			continue;
		name = attr_get(ATTR_DATA(e), ee, NFTA_EXPR_NAME);
		edata = attr_get(ATTR_DATA(e), ee, NFTA_EXPR_DATA);
		if (!attr_streq(name, "match") || !edata)
			continue;
		ee = (const char *)edata + edata->nla_len;
		mname = attr_get(ATTR_DATA(edata), ee, NFTA_MATCH_NAME);
		info = attr_get(ATTR_DATA(edata), ee, NFTA_MATCH_INFO);
		if (attr_streq(mname, match) && info)
			return found((const void *)ATTR_DATA(info), ATTR_LEN(info),
				     data, data_size);
	}
	return -ENOENT;
}

int raw_get_nft(const struct raw_fam *f, const char *table, const char *match,
		unsigned char **data, size_t *data_size)
{
	struct {
		struct nlmsghdr nlh;
		struct nfgenmsg nfg;
	} req = {
		.nlh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_GETRULE,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = 1,
		},
		.nfg = {
			.nfgen_family = f->domain == AF_INET6 ? NFPROTO_IPV6 :
								 NFPROTO_IPV4,
			.version = NFNETLINK_V0,
		},
	};
	static char buf[1 << 16];
	const struct nlmsghdr *nlh;
	int fd, ret = -ENOENT;
	ssize_t n;
	bool done = false;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (fd < 0)
		return -errno;
	if (send(fd, &req, sizeof(req), 0) < 0) {
		ret = -errno;
		goto out;
	}
	/* Read the whole dump, keep the first hit. */
	while (!done) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		for (nlh = (const void *)buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *err = NLMSG_DATA(nlh);

				if (err->error) {
					ret = err->error;
					goto out;
				}
				continue;
			}
			if (ret == -ENOENT &&
			    nlh->nlmsg_type == (NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWRULE))
				ret = nft_rule_find(nlh, table, match, data, data_size);
		}
	}
out:
	close(fd);
	return ret;
}
