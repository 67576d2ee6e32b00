// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup2_pattern.h"
#include "util_log.h"
#include "cg_tree.h"

/*
 * IN_ONLYDIR: never watch anything but a directory.  IN_CREATE/IN_DELETE
 * report mkdir/rmdir of children (cgroupfs has no rename, so no IN_MOVED_*);
 * IN_IGNORED, always reported, tells that a watch went with its directory.
 */
#define WATCH_MASK	(IN_CREATE | IN_DELETE | IN_ONLYDIR)

static size_t name_hash(const struct cgnode *parent, const char *name,
			size_t len)
{
	size_t h = (size_t)(uintptr_t)parent * 0x9e3779b97f4a7c15ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static int grow(struct cgnode ***tab, size_t *cap, size_t count, bool byname)
{
	struct cgnode **old = *tab, **nt, *n, *next;
	size_t ncap, i, h;

	if (count < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 256;
	nt = calloc(ncap, sizeof(*nt));
	if (!nt)
		return -ENOMEM;	/* keep the old table: slower, still correct */
	for (i = 0; i < *cap; i++) {
		for (n = old[i]; n; n = next) {
			if (byname) {
				next = n->hnext;
				h = name_hash(n->parent, n->name, n->namelen);
				n->hnext = nt[h & (ncap - 1)];
				nt[h & (ncap - 1)] = n;
			} else {
				next = n->wnext;
				h = (size_t)n->wd;
				n->wnext = nt[h & (ncap - 1)];
				nt[h & (ncap - 1)] = n;
			}
		}
	}
	free(old);
	*tab = nt;
	*cap = ncap;
	return 0;
}

static struct cgnode *lookup(struct cgtree *t, const struct cgnode *parent,
			     const char *name, size_t len)
{
	struct cgnode *n;

	if (!t->nh_cap)
		return NULL;
	n = t->nh[name_hash(parent, name, len) & (t->nh_cap - 1)];
	for (; n; n = n->hnext)
		if (n->parent == parent && n->namelen == len &&
		    !memcmp(n->name, name, len))
			return n;
	return NULL;
}

static struct cgnode *wd_lookup(struct cgtree *t, int wd)
{
	struct cgnode *n;

	if (!t->wh_cap)
		return NULL;
	for (n = t->wh[(size_t)wd & (t->wh_cap - 1)]; n; n = n->wnext)
		if (n->wd == wd)
			return n;
	return NULL;
}

static void wd_unlink(struct cgtree *t, struct cgnode *n)
{
	struct cgnode **pp;

	if (n->wd < 0)
		return;
	for (pp = &t->wh[(size_t)n->wd & (t->wh_cap - 1)]; *pp;
	     pp = &(*pp)->wnext) {
		if (*pp == n) {
			*pp = n->wnext;
			break;
		}
	}
	n->wd = -1;
}

static int wd_link(struct cgtree *t, struct cgnode *n, int wd)
{
	struct cgnode *old = wd_lookup(t, wd);

	if (old == n)
		return 0;
	if (old)
		wd_unlink(t, old);	/* a watch is per inode: cannot happen */
	/* There are at most as many watches as nodes. */
	if (grow(&t->wh, &t->wh_cap, t->count, false) && !t->wh_cap)
		return -ENOMEM;
	n->wd = wd;
	n->wnext = t->wh[(size_t)wd & (t->wh_cap - 1)];
	t->wh[(size_t)wd & (t->wh_cap - 1)] = n;
	return 0;
}

void cgnode_relpath(const struct cgnode *n, char *buf, size_t size)
{
	const struct cgnode *p;
	size_t len = 0, pos;

	for (p = n; p && p->depth; p = p->parent)
		len += p->namelen + (p->depth > 1);
	if (!size)
		return;
	if (len >= size) {
		buf[0] = '\0';
		return;
	}
	buf[len] = '\0';
	pos = len;
	for (p = n; p && p->depth; p = p->parent) {
		pos -= p->namelen;
		memcpy(buf + pos, p->name, p->namelen);
		if (p->depth > 1)
			buf[--pos] = '/';
	}
}

char *cgnode_path(const struct cgnode *n)
{
	const struct cgnode *p;
	size_t len = 1;
	char *b;

	for (p = n; p->depth; p = p->parent)
		len += p->namelen + 1;
	b = malloc(len);
	if (b)
		cgnode_relpath(n, b, len);
	return b;
}

/*
 * The path of @n below the root ("." for the root), plus "/@name" when
 * @name is given, in the tree's one heap buffer; NULL when out of memory.
 * The depth limit bounds it (CGTREE_MAX_DEPTH components of NAME_MAX).
 */
static char *node_rel(struct cgtree *t, const struct cgnode *n,
		      const char *name, size_t len)
{
	const struct cgnode *p;
	size_t need = 3 + len, pos;
	char *b;

	for (p = n; p->depth; p = p->parent)
		need += p->namelen + 1;
	if (need > t->pcap) {
		b = realloc(t->pbuf, need);
		if (!b)
			return NULL;
		t->pbuf = b;
		t->pcap = need;
	}
	strcpy(t->pbuf, ".");
	if (n->depth)
		cgnode_relpath(n, t->pbuf, t->pcap);
	if (name) {
		pos = n->depth ? strlen(t->pbuf) : 0;
		if (pos)
			t->pbuf[pos++] = '/';
		memcpy(t->pbuf + pos, name, len);
		t->pbuf[pos + len] = '\0';
	}
	return t->pbuf;
}

/*
 * openat() below the root, whatever the length of @rel: a path longer than
 * PATH_MAX is opened a piece at a time.  -1 with errno set on failure.
 */
static int open_rel(struct cgtree *t, char *rel, int flags)
{
	int fd = t->rootfd, nfd, e;
	char *cut;

	while (strlen(rel) >= PATH_MAX) {
		cut = memrchr(rel, '/', PATH_MAX - 1);
		if (!cut) {
			nfd = -1;
			errno = ENAMETOOLONG;
		} else {
			*cut = '\0';
			nfd = openat(fd, rel, O_PATH | O_DIRECTORY |
				     O_NOFOLLOW | O_CLOEXEC);
			*cut = '/';
		}
		e = errno;
		if (fd != t->rootfd)
			close(fd);
		errno = e;
		if (nfd < 0)
			return -1;
		fd = nfd;
		rel = cut + 1;
	}
	nfd = openat(fd, rel, flags | O_NOFOLLOW | O_CLOEXEC);
	e = errno;
	if (fd != t->rootfd)
		close(fd);
	errno = e;
	return nfd;
}

/* lstat() of @rel below the root.  0, or -1 with errno set. */
static int stat_rel(struct cgtree *t, char *rel, struct stat *st)
{
	char *slash;
	int fd, ret;

	if (strlen(rel) < PATH_MAX)
		return fstatat(t->rootfd, rel, st, AT_SYMLINK_NOFOLLOW);
	slash = strrchr(rel, '/');
	*slash = '\0';
	fd = open_rel(t, rel, O_PATH | O_DIRECTORY);
	*slash = '/';
	if (fd < 0)
		return -1;
	ret = fstatat(fd, slash + 1, st, AT_SYMLINK_NOFOLLOW);
	close(fd);
	return ret;
}

static struct cgnode *node_new(struct cgtree *t, struct cgnode *parent,
			       const char *name, size_t len, uint64_t id)
{
	struct cgnode *n;
	size_t h;

	if (grow(&t->nh, &t->nh_cap, t->count, true) && !t->nh_cap)
		return NULL;
	n = calloc(1, sizeof(*n) + len + 1);
	if (!n)
		return NULL;
	memcpy(n->name, name, len);
	n->namelen = len;
	n->id = id;
	n->wd = -1;
	n->fresh = true;
	n->parent = parent;
	if (parent) {
		n->depth = parent->depth + 1;
		n->next = parent->child;
		if (parent->child)
			parent->child->prev = n;
		parent->child = n;
		h = name_hash(parent, name, len) & (t->nh_cap - 1);
		n->hnext = t->nh[h];
		t->nh[h] = n;
	}
	t->count++;
	if (t->ops->added)
		t->ops->added(t->ctx, n);
	return n;
}

/* Unlink and free @n, which has no children. */
static void node_drop(struct cgtree *t, struct cgnode *n)
{
	struct cgnode **pp;

	if (t->ops->removed)
		t->ops->removed(t->ctx, n);
	if (n->wd >= 0) {
		/* Usually gone with its directory already; harmless if so. */
		inotify_rm_watch(t->ifd, n->wd);
		wd_unlink(t, n);
	}
	if (n->parent) {
		if (n->prev)
			n->prev->next = n->next;
		else
			n->parent->child = n->next;
		if (n->next)
			n->next->prev = n->prev;
		pp = &t->nh[name_hash(n->parent, n->name, n->namelen) &
			    (t->nh_cap - 1)];
		for (; *pp; pp = &(*pp)->hnext) {
			if (*pp == n) {
				*pp = n->hnext;
				break;
			}
		}
	}
	t->count--;
	free(n);
}

/* Remove @top and its subtree, children first, without recursion. */
static void node_remove(struct cgtree *t, struct cgnode *top)
{
	struct cgnode *n = top, *p;
	bool last;

	do {
		while (n->child)
			n = n->child;
		p = n->parent;
		last = n == top;
		node_drop(t, n);
		n = p;
	} while (!last);
}

/* Watch the directory open as @fd.  inotify takes a path: the fd's one. */
static void add_watch(struct cgtree *t, struct cgnode *n, int fd,
		      const char *rel)
{
	char proc[40];
	int wd;

	if (n->wd >= 0)
		return;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(t->ifd, proc, WATCH_MASK);
	if (wd < 0) {
		if (errno == ENOSPC) {
			if (!t->warned_nospc)
				err("cannot watch %s/%s: inotify watch limit reached; raise fs.inotify.max_user_watches (rescanning periodically meanwhile)",
				    t->root_path, rel);
			t->warned_nospc = true;
		} else {
			err("cannot watch %s/%s: %s", t->root_path, rel,
			    strerror(errno));
		}
		t->degraded = true;
		return;
	}
	if (wd_link(t, n, wd)) {
		inotify_rm_watch(t->ifd, wd);
		t->degraded = true;
	}
}

/* Directory @rel open for reading, watched; -ENOENT if @n is gone. */
static int open_dir(struct cgtree *t, struct cgnode *n, char *rel)
{
	struct stat st;
	int fd;

	fd = open_rel(t, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return -ENOENT;
		err("cannot read %s/%s: %s", t->root_path, rel, strerror(errno));
		t->degraded = true;
		return -EIO;
	}
	/* Removed and created again since its parent was read: the new one
	 * is the parent's business (its events are queued). */
	if (fstat(fd, &st) || st.st_ino != n->id) {
		close(fd);
		return -ENOENT;
	}
	add_watch(t, n, fd, rel);
	return fd;
}

/*
 * Bring the children of @n in line with its directory, one level only.
 * The watch is added before reading the directory, so a child created
 * meanwhile is either in the listing or reported by an event.  New
 * children are left fresh for the walk.  Returns -ENOENT when @n is gone.
 */
static int sync_dir(struct cgtree *t, struct cgnode *n)
{
	char *rel = node_rel(t, n, NULL, 0);
	struct cgnode *c, *next;
	struct dirent *de;
	unsigned int gen;
	DIR *d;
	int fd;

	if (!rel) {
		err("out of memory scanning %s", t->root_path);
		t->degraded = true;
		return 0;
	}
	fd = open_dir(t, n, rel);
	if (fd < 0)
		return fd == -ENOENT ? -ENOENT : 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		t->degraded = true;
		return 0;
	}
	n->fresh = false;
	gen = ++t->gen;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		uint64_t id = de->d_ino;

		if (de->d_type != DT_DIR) {
			struct stat st;

			if (de->d_type != DT_UNKNOWN ||
			    fstatat(dirfd(d), de->d_name, &st,
				    AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
				continue;
			id = st.st_ino;
		}
		if (de->d_name[0] == '.' && (len == 1 ||
		    (len == 2 && de->d_name[1] == '.')))
			continue;
		c = lookup(t, n, de->d_name, len);
		if (c && c->id != id) {
			/* removed and created again since we looked */
			node_remove(t, c);
			c = NULL;
		}
		if (!c) {
			c = node_new(t, n, de->d_name, len, id);
			if (!c) {
				err("out of memory scanning %s", t->root_path);
				t->degraded = true;
				continue;
			}
		}
		c->gen = gen;
	}
	closedir(d);
	for (c = n->child; c; c = next) {
		next = c->next;
		if (c->gen != gen)
			node_remove(t, c);
	}
	return 0;
}

/*
 * Does the walk read @n?  New directories (all of them with @all), down to
 * CGTREE_MAX_DEPTH: `socket cgroupv2 level` stops at 255, and a delegated
 * user must not be able to make us walk without end.
 */
static bool wants_visit(struct cgtree *t, struct cgnode *n, bool all)
{
	if (!n->fresh && !all)
		return false;
	if (n->depth < CGTREE_MAX_DEPTH)
		return true;
	if (n->fresh) {
		char *rel = node_rel(t, n, NULL, 0);

		if (!t->warned_depth)
			warn("%s/%s: more than %d levels below the root; not following the directories below it",
			     t->root_path, rel ? rel : "...", CGTREE_MAX_DEPTH);
		else
			dbg("%s/%s: too deep, not followed", t->root_path,
			    rel ? rel : "...");
		t->warned_depth = true;
		n->fresh = false;
	}
	return false;
}

/* The node after @n, in preorder below @top, that the walk reads. */
static struct cgnode *next_visit(struct cgtree *t, struct cgnode *n,
				 struct cgnode *top, bool all, bool below)
{
	struct cgnode *c;

	if (below)
		for (c = n->child; c; c = c->next)
			if (wants_visit(t, c, all))
				return c;
	for (; n != top; n = n->parent)
		for (c = n->next; c; c = c->next)
			if (wants_visit(t, c, all))
				return c;
	return NULL;
}

/*
 * Read @top and every new directory below it (every one with @all).  No
 * recursion: the tree's own links are the stack, so depth costs no stack.
 * Returns -ENOENT when @top is gone.
 */
static int scan(struct cgtree *t, struct cgnode *top, bool all)
{
	struct cgnode *n, *next;
	int ret;

	if (top->depth && !wants_visit(t, top, true))
		return 0;
	ret = sync_dir(t, top);
	if (ret)
		return ret;
	for (n = next_visit(t, top, top, all, true); n; n = next) {
		ret = sync_dir(t, n);
		next = next_visit(t, n, top, all, ret == 0);
		if (ret == -ENOENT)
			node_remove(t, n);
	}
	return 0;
}

/* An event named @name in @p: look at what is there now. */
static void sync_child(struct cgtree *t, struct cgnode *p, const char *name)
{
	size_t len = strlen(name);
	struct cgnode *c = lookup(t, p, name, len);
	char *rel = node_rel(t, p, name, len);
	struct stat st;

	if (!rel) {
		err("out of memory following %s", t->root_path);
		t->degraded = true;
		return;
	}
	if (stat_rel(t, rel, &st) || !S_ISDIR(st.st_mode)) {
		if (c)
			node_remove(t, c);
		return;
	}
	if (c && c->id == st.st_ino)
		return;
	if (c)
		node_remove(t, c);
	c = node_new(t, p, name, len, st.st_ino);
	if (!c) {
		err("out of memory following %s", t->root_path);
		t->degraded = true;
		return;
	}
	if (scan(t, c, false) == -ENOENT)
		node_remove(t, c);
}

/* Does the root, held open, still exist?  A removed directory reads ENOENT. */
static bool root_dead(struct cgtree *t)
{
	char buf[512];
	int fd = openat(t->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool dead;

	if (fd < 0)
		return errno == ENOENT;
	/* not readdir(): glibc takes that ENOENT for the end of the listing */
	dead = syscall(SYS_getdents64, fd, buf, sizeof(buf)) < 0 &&
	       errno == ENOENT;
	close(fd);
	return dead;
}

/*
 * Our fd keeps the root's inode, so the root's own watch does not report
 * its removal while we hold it: its parent's does (a root that is a
 * cgroup below the mount's root).
 */
static void watch_parent(struct cgtree *t)
{
	struct stat st, pst;
	char proc[40];
	int fd;

	t->parent_wd = -1;
	fd = openat(t->rootfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* ".." of a mount's root is in another file system, or itself */
	if (!fstat(fd, &pst) && !fstat(t->rootfd, &st) &&
	    pst.st_dev == st.st_dev && pst.st_ino != st.st_ino) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		t->parent_wd = inotify_add_watch(t->ifd, proc,
						 IN_DELETE | IN_ONLYDIR);
	}
	close(fd);
}

static void parent_event(struct cgtree *t, const struct inotify_event *ev)
{
	if (ev->mask & IN_IGNORED)
		t->parent_wd = -1;
	else if ((ev->mask & IN_DELETE) && root_dead(t))
		t->lost = true;
}

int cgtree_open(struct cgtree *t, const char *root,
		const struct cgtree_ops *ops, void *ctx)
{
	struct stat st;
	size_t len = strlen(root);

	memset(t, 0, sizeof(*t));
	t->ifd = -1;
	t->rootfd = -1;
	t->parent_wd = -1;
	t->ops = ops;
	t->ctx = ctx;
	while (len > 1 && root[len - 1] == '/')
		len--;
	t->root_path = strndup(root, len);
	if (!t->root_path)
		return -ENOMEM;
	t->root_len = len;
	/* Held for good: everything is relative to it, not to the path. */
	t->rootfd = open(t->root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->rootfd < 0 || fstat(t->rootfd, &st))
		return -errno;
	t->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (t->ifd < 0)
		return -errno;
	t->root = node_new(t, NULL, "", 0, st.st_ino);
	if (!t->root)
		return -ENOMEM;
	if (scan(t, t->root, false) == -ENOENT)
		return -ENOENT;
	if (t->root->wd < 0)
		return -EIO;
	watch_parent(t);
	return 0;
}

void cgtree_close(struct cgtree *t)
{
	const struct cgtree_ops *ops = t->ops;
	static const struct cgtree_ops none;

	t->ops = &none;		/* no callbacks while tearing down */
	if (t->root)
		node_remove(t, t->root);
	t->ops = ops;
	if (t->ifd >= 0)
		close(t->ifd);
	if (t->rootfd >= 0)
		close(t->rootfd);
	free(t->nh);
	free(t->wh);
	free(t->pbuf);
	free(t->root_path);
	memset(t, 0, sizeof(*t));
	t->ifd = -1;
	t->rootfd = -1;
}

int cgtree_process(struct cgtree *t)
{
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	struct cgnode *n;
	ssize_t len;
	char *p;

	do
		len = read(t->ifd, buf, sizeof(buf));
	while (len < 0 && errno == EINTR);
	if (len < 0)
		return errno == EAGAIN ? 0 : -errno;
	for (p = buf; p < buf + len; p += sizeof(*ev) + ev->len) {
		ev = (const struct inotify_event *)p;
		if (ev->mask & IN_Q_OVERFLOW) {
			t->overflow = true;
			continue;
		}
		if (ev->wd == t->parent_wd) {
			parent_event(t, ev);
			continue;
		}
		n = wd_lookup(t, ev->wd);
		if (!n)
			continue;
		if (ev->mask & IN_IGNORED) {
			wd_unlink(t, n);
			/* removed, or its file system unmounted: the sets
			 * stay as they are, main() exits */
			if (n == t->root)
				t->lost = true;
			continue;
		}
		if (ev->len && (ev->mask & IN_ISDIR))
			sync_child(t, n, ev->name);
		/* No parent to watch (a mount's root): a cgroup goes only
		 * once empty, so look when its last child went; best
		 * effort, it may go later. */
		if (n == t->root && t->parent_wd < 0 &&
		    (ev->mask & IN_DELETE) && !n->child && root_dead(t))
			t->lost = true;
	}
	return 0;
}

void cgtree_rescan(struct cgtree *t)
{
	t->overflow = false;
	t->degraded = false;
	if (root_dead(t) || scan(t, t->root, true) == -ENOENT)
		t->lost = true;
	/* the watch limit is reported again only once it was lifted */
	if (!t->degraded)
		t->warned_nospc = false;
}

void cgtree_foreach(struct cgtree *t,
		    void (*fn)(void *ctx, const struct cgnode *n), void *ctx)
{
	const struct cgnode *n = t->root;

	/* preorder over the tree's links; the root has no siblings */
	while (n) {
		fn(ctx, n);
		if (n->child) {
			n = n->child;
			continue;
		}
		while (n && !n->next)
			n = n->parent;
		if (n)
			n = n->next;
	}
}

struct comps {
	const struct cgnode **v;
};

static const char *component(const void *ctx, unsigned int i, size_t *len)
{
	const struct comps *c = ctx;

	*len = c->v[i]->namelen;
	return c->v[i]->name;
}

bool cgnode_match(const struct cg2_prog *prog, const struct cgnode *n)
{
	const struct cgnode *v[CG2_MAX_DEPTH];
	struct comps c = { v };
	struct cg2_path path = { .component = component, .ctx = &c,
				 .depth = n->depth };
	const struct cgnode *p;

	/* The matcher reads no name below CG2_MAX_DEPTH: the ancestor's. */
	for (p = n; p->depth > CG2_MAX_DEPTH; p = p->parent)
		;
	for (; p->depth; p = p->parent)
		v[p->depth - 1] = p;
	return cg2_match_exact(prog, &path);
}
