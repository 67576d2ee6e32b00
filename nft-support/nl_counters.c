// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>
#include <libnftnl/expr.h>
#include <libnftnl/set.h>

#include "nl_counters.h"
#include "nl_query.h"
#include "nl_set.h"
#include "util_log.h"

#ifndef NFT_MSG_GETSETELEM_RESET
#define NFT_MSG_GETSETELEM_RESET	33	/* Linux 6.5 */
#endif

/* Elements named per GETSETELEM request: 20 bytes each, well below 64 KiB. */
#define IDS_PER_GET	512

void counter_list_free(struct counter_list *l)
{
	free(l->v);
	*l = (struct counter_list){ 0 };
}

static int counter_push(struct counter_list *l, const struct elem_counter *c)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct elem_counter *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = *c;
	return 0;
}

struct found {
	struct elem_counter c;
	bool counter;
};

/* The element's counter, among its expressions. */
static int find_counter(struct nftnl_expr *e, void *data)
{
	struct found *f = data;

	if (f->counter || !nfs_expr_is_counter(e))
		return 0;
	f->c.packets = nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_PACKETS);
	f->c.bytes = nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_BYTES);
	f->counter = true;
	return 0;
}

struct reading {
	struct idset *ids;
	struct counter_list *out;
};

/* The set with the elements @ids, or NULL when out of memory. */
static struct nftnl_set *set_with(const char *table, const char *set,
				  const uint64_t *ids, size_t nids)
{
	struct nftnl_set *s = set_named(table, set);
	struct nftnl_set_elem *e;
	size_t i;

	for (i = 0; s && i < nids; i++) {
		e = nftnl_set_elem_alloc();
		if (!e || nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, &ids[i],
					     sizeof(ids[i])) < 0) {
			if (e)
				nftnl_set_elem_free(e);
			nftnl_set_free(s);
			return NULL;
		}
		nftnl_set_elem_add(s, e);
	}
	return s;
}

static int ignore_elem(struct nftnl_set_elem *e, void *data)
{
	(void)e;
	(void)data;
	return 0;
}

/*
 * NFT_MSG_GETSETELEM_RESET (Linux 6.5) reads and resets in one step; older
 * kernels do not know the message (EINVAL).  Ask once, as nftset.c does
 * for DESTROYSETELEM: id 0 of a table that does not exist; ENOENT means
 * the message is known.
 */
static bool can_reset(struct nfs *n)
{
	static const uint64_t zero;
	struct nfs_elems el = { .fn = ignore_elem };
	char kmsg[256];
	int ret;

	if (n->reset_probed)
		return !n->no_reset;
	ret = nfs_set_request(n, NFT_MSG_GETSETELEM_RESET, NLM_F_ACK,
			      NFPROTO_INET, set_with("nft-cgroupd-probe",
						     "probe", &zero, 1),
			      nfs_elems_answer, &el, kmsg, sizeof(kmsg));
	n->reset_probed = true;
	n->no_reset = ret == -EINVAL || ret == -EOPNOTSUPP;
	if (n->no_reset)
		dbg("kernel lacks NFT_MSG_GETSETELEM_RESET: counters read, then compared");
	else
		dbg("kernel has NFT_MSG_GETSETELEM_RESET: counters read and reset in one step (probe: %s)",
		    ret ? strerror(-ret) : "done");
	return !n->no_reset;
}

/* The message that reads elements, resetting them if asked and possible. */
static int get_type(struct nfs *n, bool reset, struct counter_list *out)
{
	out->reset = reset && can_reset(n);
	return out->reset ? NFT_MSG_GETSETELEM_RESET : NFT_MSG_GETSETELEM;
}

static int elem_cb(struct nftnl_set_elem *e, void *data)
{
	struct reading *r = data;
	struct found f = { .c.id = nfs_elem_id(e) };

	if (!f.c.id)
		return 0;
	if (idset_add(r->ids, f.c.id) < 0)
		return -1;
	nftnl_set_elem_expr_foreach(e, find_counter, &f);
	if (f.counter && counter_push(r->out, &f.c))
		return -1;
	return 0;
}

/*
 * Before each attempt at a dump: what the last one gave goes, but the
 * counters it reset (they count from zero since).
 */
static void reading_restart(void *data)
{
	struct reading *r = data;

	idset_clear(r->ids);
	if (!r->out->reset)
		r->out->n = 0;
}

int nfs_read_counters(struct nfs *n, int family, const char *table,
		      const char *set, bool reset, struct idset *ids,
		      struct counter_list *out, char *err, size_t errlen)
{
	struct reading r = { .ids = ids, .out = out };
	uint64_t tb, sb;
	int ret, type = get_type(n, reset, out);

	out->n = 0;
	ret = nfs_set_handles(n, family, table, set, &tb, &sb, err, errlen);
	if (!ret)
		ret = nfs_read_elems(n, type, family, table, set, elem_cb,
				     reading_restart, &r, err, errlen);
	if (!ret)
		ret = nfs_set_handles(n, family, table, set, &out->table_handle,
				      &out->set_handle, err, errlen);
	out->moved = tb != out->table_handle || sb != out->set_handle;
	return ret;
}

/* One GETSETELEM for @nids elements: one answer each, then the ACK. */
static int get_elems(struct nfs *n, int type, int family, const char *table,
		     const char *set, const uint64_t *ids, size_t nids,
		     struct reading *r, char *kmsg, size_t kmsglen)
{
	struct nfs_elems el = { .fn = elem_cb, .ctx = r };

	return nfs_set_request(n, type, NLM_F_ACK, family,
			       set_with(table, set, ids, nids),
			       nfs_elems_answer, &el, kmsg, kmsglen);
}

int nfs_read_elem_counters(struct nfs *n, int family, const char *table,
			   const char *set, bool reset, const uint64_t *ids,
			   size_t nids, struct counter_list *out, char *err,
			   size_t errlen)
{
	struct idset seen = { 0 };
	struct reading r = { .ids = &seen, .out = out };
	char kmsg[256] = "";
	size_t i, k;
	int ret = 0, type = get_type(n, reset, out);

	out->n = 0;
	for (i = 0; !ret && i < nids; i += k) {
		k = nids - i < IDS_PER_GET ? nids - i : IDS_PER_GET;
		ret = get_elems(n, type, family, table, set, ids + i, k, &r,
				kmsg, sizeof(kmsg));
	}
	idset_free(&seen);
	if (ret)
		nfs_describe(err, errlen, "reading elements' counters", -ret,
			     kmsg);
	return ret;
}
