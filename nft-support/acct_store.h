/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Traffic per cgroup path, for one set declared with `counter`.  The kernel
 * counts per element, that is per cgroup id; a service restart (rmdir +
 * mkdir) makes a new id whose counter starts from zero.  Here the counts of
 * the ids a path had are summed: "done" holds those of ids that left the
 * set, "live" what the current id's element counted since it was bound.
 *
 * A reading adds to "live" what the element counted since the last one:
 * its counter minus "elem", the counter at the last reading (0 after a
 * reading that reset it, NFT_MSG_GETSETELEM_RESET).  An element counts
 * from zero only when the daemon made it: the first reading of any other
 * (found in the set already, back after it was gone, in a set made anew
 * or in another boot) is a baseline, not counted, since its counter may
 * have been restored from a dump (`nft -f`) and counted already.
 */
#ifndef NFTCG_ACCOUNTING_H
#define NFTCG_ACCOUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util_idset.h"

/* Paths kept per set; past it, the path idle the longest is forgotten. */
#define ACCT_MAX_PATHS	65536
/*
 * A path is shorter: CGTREE_MAX_DEPTH names of at most NAME_MAX bytes and
 * their separators.  A longer one is not counted.
 */
#define ACCT_MAX_PATH_LEN	65536

struct acct_ctr {
	uint64_t packets, bytes;
};

struct acct_path {
	char *path;		/* relative to the cgroup root */
	uint64_t live_id;	/* its id in the set now, or 0 */
	uint64_t last_id;	/* the id it had last, to count restarts */
	uint64_t restarts;	/* new ids seen after the first */
	struct acct_ctr done;	/* of the ids that left the set */
	struct acct_ctr live;	/* counted by live_id's element */
	struct acct_ctr elem;	/* its element's counter at the last reading */
	bool baseline;		/* the next reading is a baseline */
	int64_t idle_since;	/* wall clock seconds; 0 while live */
	size_t older, newer;	/* idle list (live_id 0): index + 1, 0 none */
	bool seen;		/* in the reading going on */
};

/* An id that entered the wanted content, bound once it is in the set. */
struct acct_pending {
	uint64_t id;
	char *path;
};

struct acct {
	char *name;		/* "inet:filter:web" */
	struct acct_pending *pend;
	size_t npend, pcap;
	struct acct_path *p;
	size_t n, cap;
	size_t *by_id, *by_path;	/* open addressing: index + 1, 0 empty */
	size_t hcap;
	size_t oldest, newest;	/* the idle paths in the order they left */
	/*
	 * The handles of the set last read and of its table (nf_tables
	 * numbers a table's sets from 1 again, tables never twice in a
	 * boot); 0: not known.
	 */
	uint64_t table_handle, set_handle;
	bool counting;		/* the set has per-element counters */
	bool changed;		/* since the last save */
	bool warned_full;
};

struct acct *acct_new(const char *name);
void acct_free(struct acct *a);

/* Totals of @e: done plus live. */
struct acct_ctr acct_total(const struct acct_path *e);
struct acct_path *acct_find_path(struct acct *a, const char *path);
struct acct_path *acct_find_id(struct acct *a, uint64_t id);

/*
 * @id is in the set for @path; @made: its element was made by the daemon
 * (counts from zero), else its first reading is a baseline.  A different
 * id of the same path is a restart: the old one's counts move to done.
 * -ENOMEM, or 0.
 */
int acct_bind(struct acct *a, uint64_t id, const char *path, bool made);
/*
 * The daemon made @id's element again (after it was gone, acct_gone()):
 * it counts from zero.
 */
void acct_made(struct acct *a, uint64_t id);
/* @id left the set: its counts move to done. */
void acct_depart(struct acct *a, uint64_t id);
/*
 * The state was written in another boot: its ids name other cgroups, or
 * none.  Every live id departs; the set's handles are forgotten.
 */
void acct_new_boot(struct acct *a);

/*
 * A reading of the whole set: begin, observe every element's counter,
 * then confirm the unseen.  @table_handle and @set_handle are the set's
 * (0: not known); @moved, the set was made anew during the reading.
 * Handles other than the last reading's (a firewall reload, `nft -f` of a
 * dump) make this reading a baseline for every live id: true then.
 */
bool acct_read_begin(struct acct *a, uint64_t table_handle,
		     uint64_t set_handle, bool moved);
/*
 * The counter of @id's element; @reset: the reading set it to zero.  A
 * counter below the last reading means the element was made anew by
 * someone else: a baseline.
 */
void acct_observe(struct acct *a, uint64_t id, uint64_t packets,
		  uint64_t bytes, bool reset);
/*
 * The live ids the reading did not have (malloc'ed, *@n of them; NULL
 * when none or out of memory): each is confirmed by reading its element
 * alone, then observed, or acct_gone().
 */
uint64_t *acct_unseen(const struct acct *a, size_t *n);
/*
 * @id's element is confirmed gone: its counts move to done, and the next
 * element of that id is a baseline unless the daemon makes it.
 */
void acct_gone(struct acct *a, uint64_t id);
/*
 * After a full reading: live ids that were not in it and are not in @want
 * left the set for good (removed by others, or while the daemon was
 * stopped, then a firewall reload or a reboot): they depart.  Returns how
 * many.
 */
size_t acct_depart_absent(struct acct *a, const struct idset *want);

/*
 * @id of @path is wanted in the set.  Bound later (acct_bind_added), after
 * the commit that puts it there, so that the final reading of an id the
 * path had before is taken first.  Entries whose id left @want are dropped
 * when the list grows past twice its size.  -ENOMEM, or 0.
 */
int acct_expect(struct acct *a, uint64_t id, const char *path,
		const struct idset *want);
/* Forget the expected ids (the set does not count). */
void acct_drop_pending(struct acct *a);
/*
 * Bind the expected ids now in @have, those in @made as made by the
 * daemon; keep the others for a later commit.
 */
void acct_bind_added(struct acct *a, const struct idset *have,
		     const struct idset *want, const struct idset *made);

/* Every set's accounting, by set name. */
struct acct_store {
	struct acct **v;
	size_t n;
	char boot_id[40];	/* of the boot the ids belong to; "": not known */
};

/*
 * The ids of @s belong to the boot @boot_id: when they belonged to another
 * one, every set's live ids depart (acct_new_boot()) and true is returned.
 */
bool acct_store_boot(struct acct_store *s, const char *boot_id);

/* The accounting of set @name, made when new; NULL when out of memory. */
struct acct *acct_store_get(struct acct_store *s, const char *name);
struct acct *acct_store_find(const struct acct_store *s, const char *name);
void acct_store_free(struct acct_store *s);

/* Used by the state file: a path with its counts as saved.  -errno or 0. */
int acct_restore(struct acct *a, const struct acct_path *e);
/* After the last acct_restore(): order the idle paths by idle_since. */
int acct_restore_end(struct acct *a);

#endif
