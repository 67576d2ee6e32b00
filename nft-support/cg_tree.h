/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The cgroup tree below a root directory, kept current with inotify: one
 * watch per cgroup directory.  Every change is reported through the
 * added/removed callbacks, at any depth.
 */
#ifndef NFTCG_SCAN_H
#define NFTCG_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cg2_prog;

struct cgnode {
	struct cgnode *parent, *child, *next, *prev;	/* tree, siblings */
	struct cgnode *hnext;	/* (parent, name) hash chain */
	struct cgnode *wnext;	/* wd hash chain */
	uint64_t id;		/* inode number == cgroup id */
	unsigned int depth;	/* 0 for the root */
	int wd;			/* inotify watch, or -1 */
	unsigned int gen;
	bool fresh;		/* not scanned yet */
	size_t namelen;
	char name[];
};

struct cgtree_ops {
	void (*added)(void *ctx, const struct cgnode *n);
	void (*removed)(void *ctx, const struct cgnode *n);
};

/*
 * Directories are followed down to this many levels below the root; the
 * deepest ones are in the sets, what is below them is not read (the kernel's
 * `socket cgroupv2 level` stops at 255 anyway).
 */
#define CGTREE_MAX_DEPTH	256

struct cgtree {
	char *root_path;	/* for messages only */
	size_t root_len;
	int rootfd;		/* O_PATH: every access is relative to it */
	int ifd;
	int parent_wd;		/* watch on the root's parent, or -1 */
	char *pbuf;		/* the one path buffer, grown on the heap */
	size_t pcap;
	struct cgnode *root;
	struct cgnode **nh;	/* name hash */
	size_t nh_cap;
	struct cgnode **wh;	/* wd hash */
	size_t wh_cap;
	size_t count;
	unsigned int gen;
	bool overflow;		/* the event queue overflowed: rescan */
	bool degraded;		/* some directory could not be watched */
	bool lost;		/* the root directory is gone: nothing to follow */
	bool warned_nospc;
	bool warned_depth;	/* the depth limit was reported */
	const struct cgtree_ops *ops;
	void *ctx;
};

/* Open inotify, scan the whole tree below @root.  0 or -errno. */
int cgtree_open(struct cgtree *t, const char *root,
		const struct cgtree_ops *ops, void *ctx);
void cgtree_close(struct cgtree *t);
/*
 * Read and apply the queued events that one read() returns (64 KiB at
 * most: a bounded share of work per turn of the loop, so that churn in the
 * tree cannot starve commits and signals; the descriptor stays readable
 * while more are queued).  Returns 0, or -errno for a failure of the
 * inotify descriptor itself.  Sets t->overflow on IN_Q_OVERFLOW,
 * t->lost when the root's watch goes (the root removed or unmounted).
 */
int cgtree_process(struct cgtree *t);
/* Read every directory again and reconcile (after an overflow).  Sets
 * t->lost instead of reporting every cgroup gone when the root is. */
void cgtree_rescan(struct cgtree *t);
/* Call @fn for every node, the root included. */
void cgtree_foreach(struct cgtree *t,
		    void (*fn)(void *ctx, const struct cgnode *n), void *ctx);
/* Does the valid pattern @pat match the path of @n exactly? */
bool cgnode_match(const struct cg2_prog *prog, const struct cgnode *n);
/*
 * The path of @n relative to the root ("" for the root), into @buf; "" when
 * it does not fit.  Paths have no length limit: prefer cgnode_path().
 */
void cgnode_relpath(const struct cgnode *n, char *buf, size_t size);
/* The same on the heap, whatever its length (free it); NULL without memory. */
char *cgnode_path(const struct cgnode *n);

#endif
