// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup2_pattern.h"
#include "log.h"
#include "scan.h"

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

/* Absolute path of @n, or -ENAMETOOLONG. */
static int node_path(struct cgtree *t, const struct cgnode *n, char *buf)
{
	size_t len = 0;
	const struct cgnode *p;

	for (p = n; p->depth; p = p->parent)
		len += p->namelen + 1;
	if (t->root_len + len >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(buf, t->root_path, t->root_len);
	buf[t->root_len] = '/';
	cgnode_relpath(n, buf + t->root_len + 1, PATH_MAX - t->root_len - 1);
	if (!n->depth)
		buf[t->root_len] = '\0';
	return 0;
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

static void node_remove(struct cgtree *t, struct cgnode *n)
{
	struct cgnode **pp;

	while (n->child)
		node_remove(t, n->child);
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

static int add_watch(struct cgtree *t, struct cgnode *n, const char *path)
{
	int wd;

	if (n->wd >= 0)
		return 0;
	wd = inotify_add_watch(t->ifd, path, WATCH_MASK);
	if (wd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return -ENOENT;
		if (errno == ENOSPC) {
			if (!t->warned_nospc)
				err("cannot watch %s: inotify watch limit reached; raise fs.inotify.max_user_watches (rescanning periodically meanwhile)",
				    path);
			t->warned_nospc = true;
		} else {
			err("cannot watch %s: %s", path, strerror(errno));
		}
		t->degraded = true;
		return 0;
	}
	if (wd_link(t, n, wd)) {
		inotify_rm_watch(t->ifd, wd);
		t->degraded = true;
	}
	return 0;
}

/*
 * Bring the children of @n in line with its directory.  The watch is added
 * before reading the directory, so a child created meanwhile is either in
 * the listing or reported by an event.  New children are scanned the same
 * way; with @all, existing ones too.  Returns -ENOENT when @n is gone.
 */
static int sync_dir(struct cgtree *t, struct cgnode *n, bool all)
{
	char path[PATH_MAX];
	struct cgnode *c, *next;
	struct dirent *de;
	unsigned int gen;
	DIR *d;
	int ret;

	if (node_path(t, n, path)) {
		err("path of %s/.../%s too long, not scanned", t->root_path,
		    n->name);
		return 0;
	}
	ret = add_watch(t, n, path);
	if (ret)
		return ret;
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return -ENOENT;
		err("cannot read %s: %s", path, strerror(errno));
		t->degraded = true;
		return 0;
	}
	n->fresh = false;
	gen = ++t->gen;
	errno = 0;
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
				err("out of memory scanning %s", path);
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
	for (c = n->child; c; c = next) {
		next = c->next;
		if ((c->fresh || all) && sync_dir(t, c, all) == -ENOENT)
			node_remove(t, c);
	}
	return 0;
}

/* An event named @name in @p: look at what is there now. */
static void sync_child(struct cgtree *t, struct cgnode *p, const char *name)
{
	char path[PATH_MAX];
	size_t len = strlen(name);
	struct cgnode *c = lookup(t, p, name, len);
	struct stat st;

	if (node_path(t, p, path) || strlen(path) + 1 + len >= PATH_MAX)
		return;
	strcat(path, "/");
	strcat(path, name);
	if (lstat(path, &st) || !S_ISDIR(st.st_mode)) {
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
		err("out of memory adding %s", path);
		t->degraded = true;
		return;
	}
	if (sync_dir(t, c, false) == -ENOENT)
		node_remove(t, c);
}

int cgtree_open(struct cgtree *t, const char *root,
		const struct cgtree_ops *ops, void *ctx)
{
	struct stat st;
	size_t len = strlen(root);

	memset(t, 0, sizeof(*t));
	t->ifd = -1;
	t->ops = ops;
	t->ctx = ctx;
	while (len > 1 && root[len - 1] == '/')
		len--;
	t->root_path = strndup(root, len);
	if (!t->root_path)
		return -ENOMEM;
	t->root_len = len;
	if (stat(t->root_path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	t->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (t->ifd < 0)
		return -errno;
	t->root = node_new(t, NULL, "", 0, st.st_ino);
	if (!t->root)
		return -ENOMEM;
	if (sync_dir(t, t->root, false) == -ENOENT)
		return -ENOENT;
	if (t->root->wd < 0)
		return -EIO;
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
	free(t->nh);
	free(t->wh);
	free(t->root_path);
	memset(t, 0, sizeof(*t));
	t->ifd = -1;
}

int cgtree_process(struct cgtree *t)
{
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	struct cgnode *n;
	ssize_t len;
	char *p;

	for (;;) {
		len = read(t->ifd, buf, sizeof(buf));
		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		for (p = buf; p < buf + len;
		     p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->mask & IN_Q_OVERFLOW) {
				t->overflow = true;
				continue;
			}
			n = wd_lookup(t, ev->wd);
			if (!n)
				continue;
			if (ev->mask & IN_IGNORED) {
				wd_unlink(t, n);
				if (n == t->root) {
					err("cgroup root %s is gone",
					    t->root_path);
					while (n->child)
						node_remove(t, n->child);
				}
				continue;
			}
			if (ev->len && (ev->mask & IN_ISDIR))
				sync_child(t, n, ev->name);
		}
	}
}

void cgtree_rescan(struct cgtree *t)
{
	t->overflow = false;
	t->degraded = false;
	t->warned_nospc = false;
	if (t->root->wd < 0 && access(t->root_path, F_OK)) {
		while (t->root->child)
			node_remove(t, t->root->child);
		return;
	}
	sync_dir(t, t->root, true);
}

static void walk(struct cgnode *n,
		 void (*fn)(void *ctx, const struct cgnode *n), void *ctx)
{
	struct cgnode *c;

	fn(ctx, n);
	for (c = n->child; c; c = c->next)
		walk(c, fn, ctx);
}

void cgtree_foreach(struct cgtree *t,
		    void (*fn)(void *ctx, const struct cgnode *n), void *ctx)
{
	if (t->root)
		walk(t->root, fn, ctx);
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
	const struct cgnode *stackv[64], **v = stackv;
	struct comps c;
	struct cg2_path path = { .component = component, .ctx = &c,
				 .depth = n->depth };
	const struct cgnode *p;
	bool ret;

	if (n->depth > 64) {
		v = malloc(n->depth * sizeof(*v));
		if (!v) {
			err("out of memory matching a pattern");
			return false;
		}
	}
	for (p = n; p->depth; p = p->parent)
		v[p->depth - 1] = p;
	c.v = v;
	ret = cg2_match_exact(prog, &path);
	if (v != stackv)
		free(v);
	return ret;
}
