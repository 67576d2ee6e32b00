// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * nft-cgroupd: keep nftables sets of type cgroupsv2 equal to the ids of the
 * cgroups whose path matches a pattern.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cgroup2_user.h"
#include "bindings.h"
#include "levels.h"
#include "log.h"
#include "monitor.h"
#include "nftset.h"
#include "rootwatch.h"
#include "scan.h"

#define NFTCG_VERSION	"0.1"

struct daemon {
	struct config cfg;
	struct cgtree tree;
	struct nfs nfs;
	struct monitor mon;
	struct rootwatch rw;	/* is the root's mount still there */
	const char *config_file;
	char **args;		/* bindings from the command line */
	int nargs;
	double retry_interval;
	double rescan_interval;	/* while degraded, or without nf_tables events */
	double rescan_at;	/* absolute (monotonic) deadline, 0 for none */
	int root_level;		/* of the cgroup root in our cgroup ns, or -1 */
	bool once;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, state, strlen(state), 0, (struct sockaddr *)&sa,
	       offsetof(struct sockaddr_un, sun_path) + len);
	close(fd);
}

/* --- the wanted content, kept up to date by the tree callbacks --- */

static bool target_matches(const struct target *t, const struct cgnode *n)
{
	size_t i;

	for (i = 0; i < t->nb; i++)
		if (cgnode_match(t->b[i].prog, n))
			return true;
	return false;
}

static void want_add(struct target *t, const struct cgnode *n)
{
	if (!target_matches(t, n))
		return;
	if (idset_add(&t->want, n->id) < 0 || idset_add(&t->dirty, n->id) < 0) {
		err("%s: out of memory; will re-read everything", t->name);
		t->full = true;
	}
	if (log_verbose) {
		char rel[PATH_MAX];

		cgnode_relpath(n, rel, sizeof(rel));
		dbg("%s: + %llu /%s", t->name, (unsigned long long)n->id, rel);
	}
}

static void cb_added(void *ctx, const struct cgnode *n)
{
	struct config *cfg = ctx;
	size_t i;

	for (i = 0; i < cfg->n; i++)
		want_add(&cfg->t[i], n);
}

static void cb_removed(void *ctx, const struct cgnode *n)
{
	struct config *cfg = ctx;
	size_t i;

	for (i = 0; i < cfg->n; i++) {
		struct target *t = &cfg->t[i];

		if (idset_del(&t->want, n->id)) {
			if (idset_add(&t->dirty, n->id) < 0)
				t->full = true;
			dbg("%s: - %llu", t->name, (unsigned long long)n->id);
		}
	}
}

static const struct cgtree_ops tree_ops = {
	.added = cb_added,
	.removed = cb_removed,
};

/* --- committing to the kernel --- */

/*
 * @error is the -errno of the failure.  A table or set that was there and
 * went away is a firewall reload (nftables.service restart): notice, not
 * error; it is refilled as soon as it is back.
 */
static void target_fail(struct daemon *d, struct target *t, const char *msg,
			int error)
{
	int prio = error == -ENOENT && t->synced ? LOG_NOTICE_ : LOG_ERR_;
	char who[4096];
	size_t i, len;

	if (t->nb == 1) {
		snprintf(who, sizeof(who), "binding %s (%s)", t->b[0].spec,
			 t->b[0].where);
	} else {
		len = snprintf(who, sizeof(who), "set %s (bindings", t->name);
		for (i = 0; i < t->nb && len < sizeof(who); i++)
			len += snprintf(who + len, sizeof(who) - len, " %s",
					t->b[i].where);
		if (len < sizeof(who))
			snprintf(who + len, sizeof(who) - len, ")");
	}
	if (strcmp(msg, t->lasterr) || d->once)
		log_msg(prio, "%s: %s%s", who, msg,
			d->once ? "" : "; retrying");
	else
		dbg("%s: still failing: %s", who, msg);
	snprintf(t->lasterr, sizeof(t->lasterr), "%s", msg);
	t->failed = true;
	t->checked = false;
	t->full = true;
	t->retry_at = now() + d->retry_interval;
}

static int collect(const struct idset *from, const struct idset *minus,
		   uint64_t **out, size_t *n)
{
	size_t pos = 0, cap = 0;
	uint64_t id, *v = NULL, *nv;

	*n = 0;
	while (idset_next(from, &pos, &id)) {
		if (idset_has(minus, id))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[(*n)++] = id;
	}
	*out = v;
	return 0;
}

static int push(uint64_t **v, size_t *n, size_t *cap, uint64_t id)
{
	uint64_t *nv;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		nv = realloc(*v, *cap * sizeof(**v));
		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[(*n)++] = id;
	return 0;
}

/*
 * Warn about bindings that the rules using the set can never match: with
 * a fixed depth D, `socket cgroupv2 level` must be D (plus the level of
 * --cgroup-root); with "**", at least the smallest depth.
 */
static void check_levels(struct daemon *d, struct target *t)
{
	unsigned int lv[64], depth;
	char have[256];
	int n, i, fixed;
	size_t j, len;

	if (d->root_level < 0)
		return;
	n = nfs_rule_levels(&d->nfs, t->family, t->table, t->set, lv, 64);
	if (n <= 0) {
		if (n == 0)
			dbg("%s: no rule uses it with socket cgroupv2 yet", t->name);
		return;
	}
	len = 0;
	have[0] = '\0';
	for (i = 0; i < n && len < sizeof(have); i++)
		len += snprintf(have + len, sizeof(have) - len, "%s%u",
				i ? ", " : "", lv[i]);
	for (j = 0; j < t->nb; j++) {
		struct binding *b = &t->b[j];
		bool ok = false;

		depth = pattern_min_depth(b->pattern, &fixed) + d->root_level;
		for (i = 0; i < n; i++)
			if (fixed ? lv[i] == depth : lv[i] >= depth)
				ok = true;
		if (ok) {
			b->level_warned = false;
			continue;
		}
		if (!b->level_warned)
			warn("binding %s (%s): the rules on @%s use socket cgroupv2 level %s, which never matches this pattern: it needs level %u%s",
			     b->spec, b->where, t->set, have, depth,
			     fixed ? "" : " or more (one rule per level)");
		b->level_warned = true;
	}
}

/* Bring one set in line.  0 on success (or nothing to do), -1 on failure. */
static int target_sync(struct daemon *d, struct target *t, bool force)
{
	uint64_t *add = NULL, *del = NULL, id;
	size_t nadd = 0, ndel = 0, cap_a = 0, cap_d = 0, pos = 0, i;
	char msg[512];
	bool missing;
	int tries, ret = 0;

	if (t->failed && !force && now() < t->retry_at)
		return -1;
	if (!t->full && !t->dirty.used)
		return 0;
	for (tries = 0; tries < 3; tries++) {
		if (!t->checked) {
			ret = nfs_check_set(&d->nfs, t->family, t->table,
					    t->set, msg, sizeof(msg));
			if (ret) {
				target_fail(d, t, msg, ret);
				return -1;
			}
			t->checked = true;
			check_levels(d, t);
		}
		if (t->full) {
			ret = nfs_read_set(&d->nfs, t->family, t->table,
					   t->set, &t->have, msg, sizeof(msg));
			if (ret) {
				target_fail(d, t, msg, ret);
				return -1;
			}
			if (collect(&t->want, &t->have, &add, &nadd) ||
			    collect(&t->have, &t->want, &del, &ndel))
				goto nomem;
		} else {
			while (idset_next(&t->dirty, &pos, &id)) {
				bool w = idset_has(&t->want, id);
				bool h = idset_has(&t->have, id);

				if (w && !h && push(&add, &nadd, &cap_a, id))
					goto nomem;
				if (!w && h && push(&del, &ndel, &cap_d, id))
					goto nomem;
			}
		}
		ret = nfs_commit(&d->nfs, t->family, t->table, t->set, add,
				 nadd, del, ndel, &missing, msg, sizeof(msg));
		if (!ret)
			break;
		free(add);
		free(del);
		add = del = NULL;
		nadd = ndel = cap_a = cap_d = 0;
		pos = 0;
		if (!missing) {
			target_fail(d, t, msg, ret);
			return -1;
		}
		t->full = true;	/* our view was stale: read and diff again */
	}
	if (ret) {
		target_fail(d, t, msg, ret);
		return -1;
	}
	for (i = 0; i < nadd; i++)
		if (idset_add(&t->have, add[i]) < 0)
			t->full = true;
	for (i = 0; i < ndel; i++)
		idset_del(&t->have, del[i]);
	if (nadd || ndel)
		dbg("%s: added %zu, removed %zu, now %zu", t->name, nadd, ndel,
		    t->have.used);
	if (t->failed)
		info("%s: in sync again (%zu ids)", t->name, t->have.used);
	free(add);
	free(del);
	t->failed = false;
	t->synced = true;
	t->lasterr[0] = '\0';
	t->full = false;
	idset_clear(&t->dirty);
	return 0;
nomem:
	free(add);
	free(del);
	target_fail(d, t, strerror(ENOMEM), -ENOMEM);
	return -1;
}

static int sync_all(struct daemon *d, bool force)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < d->cfg.n; i++)
		if (target_sync(d, &d->cfg.t[i], force))
			ret = -1;
	return ret;
}

/* --- configuration --- */

static int load(struct daemon *d, struct config *cfg)
{
	char errbuf[4600], where[32];
	int ret = 0, i;

	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; i < d->nargs; i++) {
		snprintf(where, sizeof(where), "argument %d", i + 1);
		if (binding_add(cfg, d->args[i], where, errbuf,
				sizeof(errbuf))) {
			err("%s: %s", where, errbuf);
			ret = -1;
		}
	}
	if (d->config_file && config_load_file(cfg, d->config_file))
		ret = -1;
	if (!ret && !cfg->n) {
		if (!d->config_file) {
			err("no bindings (give FAMILY:TABLE:SET=PATTERN or --config)");
			ret = -1;
		} else {
			warn("%s has no bindings: nothing to do until it has (SIGHUP)",
			     d->config_file);
		}
	}
	if (ret)
		config_free(cfg);
	return ret;
}

static void fill_want(void *ctx, const struct cgnode *n)
{
	cb_added(ctx, n);
}

static void reload(struct daemon *d)
{
	struct config cfg;
	size_t i;

	sd_notify("RELOADING=1");
	info("reloading %s", d->config_file ? d->config_file : "bindings");
	if (load(d, &cfg)) {
		err("reload failed; keeping the current bindings");
		sd_notify("READY=1");
		return;
	}
	config_free(&d->cfg);
	d->cfg = cfg;
	d->tree.ctx = &d->cfg;
	cgtree_rescan(&d->tree);
	cgtree_foreach(&d->tree, fill_want, &d->cfg);
	for (i = 0; i < d->cfg.n; i++)
		d->cfg.t[i].full = true;
	sync_all(d, true);
	sd_notify("READY=1");
}

static void on_nft_change(void *ctx, int family, const char *table,
			  const char *set, bool rules)
{
	struct daemon *d = ctx;
	size_t i;

	if (!table)
		info("nf_tables events lost (receive buffer full): re-reading every set");
	for (i = 0; i < d->cfg.n; i++) {
		struct target *t = &d->cfg.t[i];

		if (table && (t->family != family || strcmp(t->table, table) ||
			      (set && strcmp(t->set, set))))
			continue;
		if (rules) {
			t->rules_changed = true;
			continue;
		}
		dbg("%s: changed by someone else; re-reading", t->name);
		t->full = true;
		t->checked = false;
		t->retry_at = 0;
	}
}

/* --- timers: absolute deadlines, so that no stream of events defers them --- */

/*
 * A periodic rescan is due while some directory has no watch (the inotify
 * limit) and, without nf_tables events, to catch changes made by others.
 * The deadline is set once and kept until it passes.
 */
static void arm_rescan(struct daemon *d)
{
	bool want = d->tree.degraded || monitor_fd(&d->mon) < 0;

	if (!want)
		d->rescan_at = 0;
	else if (!d->rescan_at)
		d->rescan_at = now() + d->rescan_interval;
}

static int poll_timeout(struct daemon *d)
{
	double wake = -1, tn = now();
	size_t i;

	arm_rescan(d);
	for (i = 0; i < d->cfg.n; i++) {
		struct target *t = &d->cfg.t[i];

		if ((t->failed || t->full || t->dirty.used) &&
		    (wake < 0 || t->retry_at < wake))
			wake = t->retry_at;
	}
	if (d->rescan_at && (wake < 0 || d->rescan_at < wake))
		wake = d->rescan_at;
	if (wake < 0)
		return -1;
	return wake <= tn ? 0 : (int)((wake - tn) * 1000) + 1;
}

/* After an event overflow, or when the periodic rescan is due. */
static void maybe_rescan(struct daemon *d)
{
	size_t i;

	if (!d->tree.overflow && !(d->rescan_at && now() >= d->rescan_at))
		return;
	if (d->tree.overflow)
		warn("inotify queue overflow: rescanning the cgroup tree and re-reading the sets");
	else
		dbg("periodic rescan: %s", d->tree.degraded ?
		    "directories without a watch" : "no nf_tables events");
	d->rescan_at = 0;
	cgtree_rescan(&d->tree);
	for (i = 0; i < d->cfg.n; i++) {
		d->cfg.t[i].full = true;
		d->cfg.t[i].checked = false;
	}
	sync_all(d, true);
	arm_rescan(d);
}

/*
 * The cgroup root removed, or its mount gone from our mount table: exit
 * non-zero and leave the sets alone, so that a restart (systemd's
 * Restart=) starts over from the cgroup tree as mounted then.
 */
static bool root_lost(struct daemon *d, short revents)
{
	if (d->tree.lost) {
		err("cgroup root %s is gone (removed, or its file system unmounted); exiting, the sets keep their content",
		    d->tree.root_path);
		return true;
	}
	if ((revents & (POLLPRI | POLLERR)) && !rootwatch_attached(&d->rw)) {
		err("cgroup root %s was unmounted; exiting, the sets keep their content",
		    d->tree.root_path);
		return true;
	}
	return false;
}

/* --- main --- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int list_set(const char *spec)
{
	char table[NFTCG_NAME_MAX], set[NFTCG_NAME_MAX], msg[4600];
	struct idset ids = { 0 };
	struct nfs nfs;
	uint64_t id, *v;
	size_t pos = 0, n = 0, i;
	int family, ret;

	if (target_parse(spec, strlen(spec), &family, table, set, msg,
			 sizeof(msg))) {
		err("--list: %s", msg);
		return 2;
	}
	ret = nfs_open(&nfs);
	if (ret) {
		err("netlink: %s", strerror(-ret));
		return 1;
	}
	if (nfs_read_set(&nfs, family, table, set, &ids, msg, sizeof(msg))) {
		err("%s: %s", spec, msg);
		nfs_close(&nfs);
		return 1;
	}
	v = malloc((ids.used + 1) * sizeof(*v));
	if (!v) {
		err("%s", strerror(ENOMEM));
		return 1;
	}
	while (idset_next(&ids, &pos, &id))
		v[n++] = id;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		printf("%llu\n", (unsigned long long)v[i]);
	free(v);
	idset_free(&ids);
	nfs_close(&nfs);
	return 0;
}

/* A number of seconds for option @opt: finite, from 10 ms to a day. */
static int parse_seconds(const char *opt, const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v) || v < 0.01 ||
	    v > 86400) {
		err("%s: \"%s\" is not a number of seconds from 0.01 to 86400",
		    opt, arg);
		return -1;
	}
	*out = v;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: nft-cgroupd [OPTIONS] [FAMILY:TABLE:SET=PATTERN]...\n"
"Keep nftables sets of type cgroupsv2 equal to the ids of the cgroups whose\n"
"path (relative to the cgroup2 root) matches PATTERN exactly.\n"
"\n"
"  -c, --config FILE       read bindings from FILE, one a line (# comments)\n"
"  -r, --cgroup-root DIR   the cgroup2 directory paths are relative to\n"
"                          (default: the cgroup2 mount in /proc/self/mountinfo)\n"
"  -1, --once              sync once and exit (non-zero if a binding failed)\n"
"  -R, --retry-interval S  retry failing bindings every S seconds (default 5)\n"
"  -I, --rescan-interval S while directories lack a watch (or nf_tables events\n"
"                          are unavailable), rescan and reconcile every S\n"
"                          seconds (default 30)\n"
"  -l, --list F:T:S        print the ids in set F:T:S, one a line, and exit\n"
"  -v, --verbose           log every change\n"
"  -h, --help              show this help\n"
"  -V, --version           show the version\n"
"\n"
"FAMILY is ip, ip6, inet, arp, bridge or netdev.  SIGHUP reloads the config.\n");
}

static void on_sighup_fill(struct daemon *d)
{
	reload(d);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config",         required_argument, NULL, 'c' },
		{ "cgroup-root",    required_argument, NULL, 'r' },
		{ "once",           no_argument,       NULL, '1' },
		{ "retry-interval", required_argument, NULL, 'R' },
		{ "rescan-interval", required_argument, NULL, 'I' },
		{ "list",           required_argument, NULL, 'l' },
		{ "verbose",        no_argument,       NULL, 'v' },
		{ "help",           no_argument,       NULL, 'h' },
		{ "version",        no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct daemon d = { .retry_interval = 5, .rescan_interval = 30,
			    .rw = { .fd = -1 } };
	char root[PATH_MAX];
	const char *root_opt = NULL;
	struct signalfd_siginfo si;
	sigset_t mask;
	double t0, t1;
	int sfd, ret, c, status = 0;
	bool quit = false;

	while ((c = getopt_long(argc, argv, "c:r:1R:I:l:vhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d.config_file = optarg;
			break;
		case 'r':
			root_opt = optarg;
			break;
		case '1':
			d.once = true;
			break;
		case 'R':
			if (parse_seconds("--retry-interval", optarg,
					  &d.retry_interval))
				return 2;
			break;
		case 'I':
			if (parse_seconds("--rescan-interval", optarg,
					  &d.rescan_interval))
				return 2;
			break;
		case 'l':
			return list_set(optarg);
		case 'v':
			log_verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("nft-cgroupd %s\n", NFTCG_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	d.args = argv + optind;
	d.nargs = argc - optind;
	/* Every pattern is checked before anything touches the kernel. */
	if (load(&d, &d.cfg))
		return 2;

	if (root_opt) {
		if (strlen(root_opt) >= sizeof(root)) {
			err("--cgroup-root: path too long");
			return 2;
		}
		strcpy(root, root_opt);
	} else {
		ret = cg2_find_mount(root, sizeof(root));
		if (ret) {
			err("cannot find the cgroup2 mount: %s%s", strerror(-ret),
			    ret == -ENOENT ? " (is cgroup2 mounted? see --cgroup-root)" : "");
			return 1;
		}
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0) {
		err("signalfd: %s", strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);

	ret = nfs_open(&d.nfs);
	if (ret) {
		err("netlink: %s", strerror(-ret));
		return 1;
	}
	if (!d.once) {
		/* The tests' way to run without events (a failing open). */
		ret = getenv("NFT_CGROUPD_TEST_NO_EVENTS") ? -EPERM :
		      monitor_open(&d.mon, nfs_portid(&d.nfs));
		if (ret) {
			warn("cannot listen to nf_tables events (%s): sets changed by others are re-read every %g s",
			     strerror(-ret), d.rescan_interval);
			monitor_close(&d.mon);
		}
	}

	d.root_level = cgroup_dir_level(root);
	if (d.root_level < 0)
		warn("%s: cannot tell its level in the cgroup namespace; rule levels are not checked",
		     root);
	else
		dbg("%s is at level %d: rules need level %d + the pattern's depth",
		    root, d.root_level, d.root_level);
	t0 = now();
	ret = cgtree_open(&d.tree, root, &tree_ops, &d.cfg);
	if (ret) {
		err("%s: %s", root, strerror(-ret));
		return 1;
	}
	if (!d.once && rootwatch_open(&d.rw, d.tree.rootfd))
		warn("%s: cannot follow the mount table; an unmount of the cgroup root goes unnoticed",
		     root);
	t1 = now();
	/* A failing binding is retried; only --once turns it into the status. */
	sync_all(&d, true);
	info("initial sync: %zu cgroups below %s, %zu sets, scan %.1f ms, total %.1f ms",
	     d.tree.count, root, d.cfg.n, (t1 - t0) * 1e3, (now() - t0) * 1e3);
	if (d.once)
		goto out;
	sd_notify("READY=1");

	while (!quit) {
		struct pollfd pfd[4] = {
			{ .fd = d.tree.ifd, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
			{ .fd = monitor_fd(&d.mon), .events = POLLIN },
			{ .fd = rootwatch_fd(&d.rw), .events = POLLPRI },
		};
		size_t i;

		if (poll(pfd, 4, poll_timeout(&d)) < 0 && errno != EINTR) {
			err("poll: %s", strerror(errno));
			status = 1;
			break;
		}
		if (pfd[1].revents & POLLIN) {
			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					on_sighup_fill(&d);
				} else {
					info("signal %u: exiting", si.ssi_signo);
					quit = true;
				}
			}
		}
		if (pfd[0].revents & POLLIN) {
			ret = cgtree_process(&d.tree);
			if (ret) {
				err("inotify: %s", strerror(-ret));
				status = 1;
				break;
			}
		}
		if (pfd[2].revents & POLLIN)
			monitor_process(&d.mon, on_nft_change, &d);
		maybe_rescan(&d);
		if (root_lost(&d, pfd[3].revents)) {
			status = 1;
			break;
		}
		/* All pending changes, one transaction per set. */
		sync_all(&d, false);
		for (i = 0; i < d.cfg.n; i++) {
			if (d.cfg.t[i].rules_changed && !d.cfg.t[i].failed)
				check_levels(&d, &d.cfg.t[i]);
			d.cfg.t[i].rules_changed = false;
		}
	}
	sd_notify("STOPPING=1");
out:
	if (d.once) {
		size_t i;

		for (i = 0; i < d.cfg.n; i++)
			if (d.cfg.t[i].failed)
				status = 1;
	}
	cgtree_close(&d.tree);
	rootwatch_close(&d.rw);
	monitor_close(&d.mon);
	nfs_close(&d.nfs);
	config_free(&d.cfg);
	close(sfd);
	return status;
}
