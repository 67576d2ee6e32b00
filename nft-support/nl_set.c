// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * nf_tables objects as nft-cgroupd uses them: a few lines per request,
 * each built with libnftnl and sent through nl_query.c's one query function
 * or one batch object.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>
#include <libnftnl/common.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <libnftnl/rule.h>
#include <libnftnl/expr.h>

#include "util_log.h"
#include "nl_set.h"
#include "nl_query.h"
#include "util_family.h"

#ifndef NFT_MSG_DESTROYSETELEM
#define NFT_MSG_DESTROYSETELEM	30	/* Linux 6.3 */
#endif
/*
 * Enumerators (so always spelt out here): NFT_SOCKET_CGROUPV2 is missing
 * from Linux headers before 5.13, NFTNL_EXPR_SOCKET_LEVEL from libnftnl
 * before 1.2.0 (Debian 11), which then never sets the attribute.
 */
#define NFT_SOCKET_CGROUPV2_KEY		3
#define NFTNL_EXPR_SOCKET_LEVEL_ATTR	(NFTNL_EXPR_BASE + 2)

struct nftnl_set *set_named(const char *table, const char *set)
{
	struct nftnl_set *s = nftnl_set_alloc();

	if (s && (nftnl_set_set_str(s, NFTNL_SET_TABLE, table) < 0 ||
		  nftnl_set_set_str(s, NFTNL_SET_NAME, set) < 0)) {
		nftnl_set_free(s);
		s = NULL;
	}
	return s;
}

int nfs_set_request(struct nfs *n, int type, uint16_t flags, int family,
		    struct nftnl_set *s, nfs_answer_cb cb, void *data,
		    char *kmsg, size_t kmsglen)
{
	struct nlmsghdr *nlh;

	if (!s)
		return -ENOMEM;
	nlh = nfs_request(n, type, family, flags);
	if (!nlh) {
		nftnl_set_free(s);
		return -ENOMEM;
	}
	if (type == NFT_MSG_GETSET)
		nftnl_set_nlmsg_build_payload(nlh, s);
	else
		nftnl_set_elems_nlmsg_build_payload(nlh, s);
	nftnl_set_free(s);
	return nfs_query(n, nlh, cb, data, kmsg, kmsglen);
}

/* --- a table --- */

/* The handle of the table in an answer to GETTABLE. */
static int table_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nftnl_table *t = nftnl_table_alloc();
	uint64_t *handle = data;

	if (!t)
		return -1;
	if (nftnl_table_nlmsg_parse(nlh, t) >= 0)
		*handle = nftnl_table_get_u64(t, NFTNL_TABLE_HANDLE);
	nftnl_table_free(t);
	return 0;
}

static int get_table(struct nfs *n, int family, const char *table,
		     uint64_t *handle, char *kmsg, size_t kmsglen)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;

	nlh = nfs_request(n, NFT_MSG_GETTABLE, family, NLM_F_ACK);
	if (!t || !nlh || nftnl_table_set_str(t, NFTNL_TABLE_NAME, table) < 0) {
		if (t)
			nftnl_table_free(t);
		return -ENOMEM;
	}
	nftnl_table_nlmsg_build_payload(nlh, t);
	nftnl_table_free(t);
	return nfs_query(n, nlh, table_cb, handle, kmsg, kmsglen);
}

static int table_exists(struct nfs *n, int family, const char *table)
{
	uint64_t handle;
	char kmsg[256];

	return get_table(n, family, table, &handle, kmsg, sizeof(kmsg));
}

/* --- a set's type and flags --- */

struct setinfo {
	bool found;
	bool counts;		/* a per-element `counter` */
	uint32_t key_type, key_len, flags;
	uint64_t handle;
};

bool nfs_expr_is_counter(struct nftnl_expr *e)
{
	const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);

	return name && !strcmp(name, "counter");
}

static int note_counter(struct nftnl_expr *e, void *data)
{
	bool *counts = data;

	if (nfs_expr_is_counter(e))
		*counts = true;
	return 0;
}

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
	si->handle = nftnl_set_get_u64(s, NFTNL_SET_HANDLE);
	nftnl_set_expr_foreach(s, note_counter, &si->counts);
	nftnl_set_free(s);
	return 0;
}

static int get_set(struct nfs *n, int family, const char *table,
		   const char *set, struct setinfo *si, char *kmsg,
		   size_t kmsglen)
{
	return nfs_set_request(n, NFT_MSG_GETSET, NLM_F_ACK, family,
			       set_named(table, set), set_cb, si, kmsg,
			       kmsglen);
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

/* Is what the kernel described a plain set of type cgroupsv2? */
static int set_usable(const struct setinfo *si, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (si->flags & refused[i].flags) {
			snprintf(err, errlen, "%s; it must be a plain set of `type cgroupsv2`",
				 refused[i].why);
			return -EINVAL;
		}
	}
	if (si->key_type != NFTCG_TYPE_CGROUPV2 || si->key_len != 8) {
		snprintf(err, errlen,
			 "the set has key type %u of %u bytes; it must be `type cgroupsv2` (type %u, 8 bytes)",
			 si->key_type, si->key_len, NFTCG_TYPE_CGROUPV2);
		return -EINVAL;
	}
	return 0;
}

int nfs_check_set(struct nfs *n, int family, const char *table,
		  const char *set, bool *counts, char *err, size_t errlen)
{
	struct setinfo si = { 0 };
	char kmsg[256];
	int ret;

	ret = get_set(n, family, table, set, &si, kmsg, sizeof(kmsg));
	if (ret == -ENOENT) {
		if (table_exists(n, family, table) == -ENOENT)
			snprintf(err, errlen, "table %s %s not found",
				 family_name(family), table);
		else
			snprintf(err, errlen, "set %s not found in table %s",
				 set, table);
		return ret;
	}
	if (ret) {
		nfs_describe(err, errlen, "looking up the set", -ret, kmsg);
		return ret;
	}
	if (!si.found) {
		snprintf(err, errlen, "looking up the set: no answer");
		return -EPROTO;
	}
	*counts = si.counts;
	return set_usable(&si, err, errlen);
}

int nfs_set_handles(struct nfs *n, int family, const char *table,
		    const char *set, uint64_t *table_handle,
		    uint64_t *set_handle, char *err, size_t errlen)
{
	struct setinfo si = { 0 };
	char kmsg[256];
	int ret;

	*table_handle = 0;
	ret = get_table(n, family, table, table_handle, kmsg, sizeof(kmsg));
	if (!ret)
		ret = get_set(n, family, table, set, &si, kmsg, sizeof(kmsg));
	if (!ret && !si.found)
		ret = -EPROTO;
	if (ret)
		nfs_describe(err, errlen, "looking up the set", -ret, kmsg);
	*set_handle = si.handle;
	return ret;
}

/* --- a set's elements --- */

int nfs_elems_answer(const struct nlmsghdr *nlh, void *data)
{
	struct nfs_elems *el = data;
	struct nftnl_set *s = nftnl_set_alloc();
	int ret = -1;

	if (!s)
		return -1;
	if (nftnl_set_elems_nlmsg_parse(nlh, s) >= 0)
		ret = nftnl_set_elem_foreach(s, el->fn, el->ctx);
	nftnl_set_free(s);
	return ret;
}

int nfs_read_elems(struct nfs *n, int type, int family, const char *table,
		   const char *set, nfs_elem_cb fn, nfs_restart_cb restart,
		   void *ctx, char *err, size_t errlen)
{
	struct nfs_elems el = { .fn = fn, .ctx = ctx };
	char kmsg[256] = "";
	int ret = -EINTR, tries;

	/* A dump interrupted by a change starts over: five times at most. */
	for (tries = 0; tries < 5 && ret == -EINTR; tries++) {
		if (restart)
			restart(ctx);
		ret = nfs_set_request(n, type, NLM_F_DUMP, family,
				      set_named(table, set), nfs_elems_answer,
				      &el, kmsg, sizeof(kmsg));
	}
	if (ret)
		nfs_describe(err, errlen, "reading the set", -ret, kmsg);
	return ret;
}

/* The 8-byte key of an element of a cgroupsv2 set; 0 when it has none. */
uint64_t nfs_elem_id(struct nftnl_set_elem *e)
{
	const void *key;
	uint32_t len = 0;
	uint64_t id;

	key = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &len);
	if (!key || len != sizeof(id))
		return 0;
	memcpy(&id, key, sizeof(id));	/* host byte order, like nft */
	return id;
}

static int id_cb(struct nftnl_set_elem *e, void *data)
{
	uint64_t id = nfs_elem_id(e);

	return id && idset_add(data, id) < 0 ? -1 : 0;
}

static void ids_restart(void *data)
{
	idset_clear(data);
}

int nfs_read_set(struct nfs *n, int family, const char *table,
		 const char *set, struct idset *out, char *err, size_t errlen)
{
	return nfs_read_elems(n, NFT_MSG_GETSETELEM, family, table, set, id_cb,
			      ids_restart, out, err, errlen);
}

/* --- changing elements: transactions --- */

/* Add one NEWSETELEM/DESTROYSETELEM/DELSETELEM message for @ids to @b. */
static int put_elems(struct nfs_batch *b, int type, uint16_t flags,
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
	nlh = nfs_batch_msg(b, type, family, flags);
	if (!nlh) {
		nftnl_set_free(s);
		return -ENOMEM;
	}
	nftnl_set_elems_nlmsg_build_payload(nlh, s);
	nftnl_set_free(s);	/* the payload is built: the objects go */
	nfs_batch_next(b, nlh);
	return 0;
}

/* Messages of at most NFS_IDS_PER_MSG ids each. */
static int put_all(struct nfs_batch *b, int type, uint16_t flags, int family,
		   const char *table, const char *set, const uint64_t *ids,
		   size_t nids)
{
	size_t i, k;
	int ret;

	for (i = 0; i < nids; i += k) {
		k = nids - i < NFS_IDS_PER_MSG ? nids - i : NFS_IDS_PER_MSG;
		ret = put_elems(b, type, flags, family, table, set, ids + i, k);
		if (ret)
			return ret;
	}
	return 0;
}

/* Which part of a batch the kernel refused, for the message. */
static void refused_part(const struct nfs_batch *b, uint32_t first_del,
			 size_t nadd, size_t ndel, char *what, size_t size)
{
	if (b->error_seq >= first_del && b->error_seq <= b->last)
		snprintf(what, size, "deleting %zu ids", ndel);
	else if (b->error_seq == b->begin_seq)
		snprintf(what, size, "the batch was refused");
	else
		snprintf(what, size, "adding %zu ids", nadd);
}

static int commit_one(struct nfs *n, int family, const char *table,
		      const char *set, const uint64_t *add, size_t nadd,
		      const uint64_t *del, size_t ndel, bool *del_missing,
		      char *err, size_t errlen)
{
	int del_type = n->no_destroy ? NFT_MSG_DELSETELEM :
				       NFT_MSG_DESTROYSETELEM;
	struct nfs_batch b;
	uint32_t first_del;
	char what[96];
	int ret;

	*del_missing = false;
	if (!nadd && !ndel)
		return 0;
	ret = nfs_batch_begin(&b, n);
	/* NLM_F_CREATE without NLM_F_EXCL: present ids are fine */
	if (!ret)
		ret = put_all(&b, NFT_MSG_NEWSETELEM, NLM_F_CREATE, family,
			      table, set, add, nadd);
	first_del = nfs_batch_next_seq(&b);
	if (!ret)
		ret = put_all(&b, del_type, 0, family, table, set, del, ndel);
	if (ret) {
		nfs_describe(err, errlen, "building the batch", -ret, NULL);
		return ret;
	}
	ret = nfs_batch_talk(&b);
	if (ret) {
		nfs_describe(err, errlen, b.stage, -ret, NULL);
		return ret;
	}
	if (!b.error)
		return 0;
	if (n->no_destroy && b.error == ENOENT && b.error_seq >= first_del &&
	    b.error_seq <= b.last) {
		*del_missing = true;
		snprintf(err, errlen, "deleting ids: some were not in the set");
		return -ENOENT;
	}
	refused_part(&b, first_del, nadd, ndel, what, sizeof(what));
	nfs_describe(err, errlen, what, b.error, b.kmsg);
	return -b.error;
}

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
	       size_t ndel, bool *del_missing, char *err, size_t errlen,
	       struct nfs_done *done)
{
	size_t a = 0, d = 0, ka, kd, max = n->ids_per_batch;
	int ret;

	*done = (struct nfs_done){ 0 };
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
		*done = (struct nfs_done){ a, d };
	} while (a < nadd || d < ndel);
	return 0;
}

/* --- the levels of the rules that use a set --- */

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

/*
 * Follow registers through a rule: `socket cgroupv2 level N` loads one,
 * a lookup in our set reads it.
 */
static void rule_levels(struct nftnl_expr_iter *it, struct levels *l)
{
	/* level last loaded into each register by socket cgroupv2, or -1 */
	long reg_level[32];
	struct nftnl_expr *e;
	uint32_t reg;
	size_t i;

	for (i = 0; i < 32; i++)
		reg_level[i] = -1;
	while ((e = nftnl_expr_iter_next(it))) {
		const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);

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
}

static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct levels *l = data;
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nftnl_expr_iter *it;

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
	rule_levels(it, l);
	nftnl_expr_iter_destroy(it);
	nftnl_rule_free(r);
	return 0;
}

int nfs_rule_levels(struct nfs *n, int family, const char *table,
		    const char *set, unsigned int *levels, size_t max)
{
	struct levels l = { .table = table, .set = set, .v = levels, .max = max };
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nlmsghdr *nlh;
	char kmsg[256];
	int ret;

	nlh = nfs_request(n, NFT_MSG_GETRULE, family, NLM_F_DUMP);
	if (!r || !nlh || nftnl_rule_set_str(r, NFTNL_RULE_TABLE, table) < 0) {
		if (r)
			nftnl_rule_free(r);
		return -ENOMEM;
	}
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	ret = nfs_query(n, nlh, rule_cb, &l, kmsg, sizeof(kmsg));
	return ret ? ret : (int)l.n;
}
