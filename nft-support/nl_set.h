/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * nf_tables sets over netlink: check a set, read its elements, commit
 * changes.  Every request goes through nl_query.h's one query function or
 * one batch object.
 */
#ifndef NFTCG_NFTSET_H
#define NFTCG_NFTSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_query.h"
#include "util_idset.h"

/* nftables' datatype number of "cgroupsv2" (enum datatypes, TYPE_CGROUPV2). */
#define NFTCG_TYPE_CGROUPV2	46

struct nlmsghdr;
struct nftnl_expr;
struct nftnl_set;
struct nftnl_set_elem;

/* A set object naming TABLE and SET, or NULL when out of memory. */
struct nftnl_set *set_named(const char *table, const char *set);

/*
 * One request of @type (NFT_MSG_GETSET, or an element message) about @s,
 * which it takes (NULL: -ENOMEM), run to its last answer through @cb
 * (an nfs_answer_cb).
 */
int nfs_set_request(struct nfs *n, int type, uint16_t flags, int family,
		    struct nftnl_set *s,
		    int (*cb)(const struct nlmsghdr *nlh, void *data),
		    void *data, char *kmsg, size_t kmsglen);

/*
 * Each returns 0, or -errno with a sentence in @err that gives the
 * kernel's reason (and its extended ack message, if any).
 */
/*
 * Does FAMILY:TABLE:SET exist, and is it a plain set of type cgroupsv2?
 * *@counts: whether it is declared with a per-element `counter`.
 */
int nfs_check_set(struct nfs *n, int family, const char *table,
		  const char *set, bool *counts, char *err, size_t errlen);
/*
 * The handles of the set and of its table: new ones when a reload or
 * `nft -f` made them anew (a table's sets are numbered from 1 again).
 */
int nfs_set_handles(struct nfs *n, int family, const char *table,
		    const char *set, uint64_t *table_handle,
		    uint64_t *set_handle, char *err, size_t errlen);
/* Is @e a `counter` expression (of a set, or of an element)? */
bool nfs_expr_is_counter(struct nftnl_expr *e);
/* Replace @out with the set's elements. */
int nfs_read_set(struct nfs *n, int family, const char *table,
		 const char *set, struct idset *out, char *err, size_t errlen);

/*
 * Every element of the set (a dump of @type: NFT_MSG_GETSETELEM, or
 * NFT_MSG_GETSETELEM_RESET), as libnftnl's object: nfs_elem_id() gives its
 * id; its expressions (a `counter` set's per-element counter) are there
 * for nftnl_set_elem_expr_foreach().  @fn returns 0, or < 0 to fail the
 * read.  A dump interrupted by a change is started over: @restart (may be
 * NULL) is called before each attempt, to drop what the last one gave.
 */
typedef int (*nfs_elem_cb)(struct nftnl_set_elem *e, void *ctx);
typedef void (*nfs_restart_cb)(void *ctx);
/* An answer of element messages: @fn on each element (for nfs_set_request). */
struct nfs_elems {
	nfs_elem_cb fn;
	void *ctx;
};
int nfs_elems_answer(const struct nlmsghdr *nlh, void *data);
int nfs_read_elems(struct nfs *n, int type, int family, const char *table,
		   const char *set, nfs_elem_cb fn, nfs_restart_cb restart,
		   void *ctx, char *err, size_t errlen);
uint64_t nfs_elem_id(struct nftnl_set_elem *e);
/* How many of the ids to add and to delete were committed. */
struct nfs_done {
	size_t nadd, ndel;
};

/*
 * Add @add and delete @del: one transaction (all or nothing), or several
 * when they do not fit in the send buffer; @done says how far it came, the
 * first @done->nadd adds and @done->ndel deletes are in effect.
 * Adds of present ids and deletes of absent ones are no errors; with a
 * kernel that lacks NFT_MSG_DESTROYSETELEM a delete of an absent id fails
 * the transaction with -ENOENT and @del_missing set: re-read, then retry.
 */
int nfs_commit(struct nfs *n, int family, const char *table, const char *set,
	       const uint64_t *add, size_t nadd, const uint64_t *del,
	       size_t ndel, bool *del_missing, char *err, size_t errlen,
	       struct nfs_done *done);

/*
 * The levels N of the rules in TABLE that do `socket cgroupv2 level N`
 * and look the result up in SET, into @levels (at most @max, no
 * duplicates).  Returns how many, or -errno.
 */
int nfs_rule_levels(struct nfs *n, int family, const char *table,
		    const char *set, unsigned int *levels, size_t max);

#endif
