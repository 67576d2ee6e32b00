// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of the accounting (acct_store.c) and its state file
 * (acct_statefile.c): totals across ids, counter resets, and hostile files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../acct_store.h"
#include "../acct_statefile.h"
#include "../util_textesc.h"

static int failed;
static char dir[] = "/tmp/acct_test.XXXXXX";

static void check(const char *name, int ok, const char *detail)
{
	printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name,
	       ok || !detail ? "" : ": ", ok || !detail ? "" : detail);
	if (!ok)
		failed = 1;
}

static int total_is(struct acct *a, const char *path, uint64_t pk,
		    uint64_t by, uint64_t restarts)
{
	struct acct_path *e = acct_find_path(a, path);

	return e && acct_total(e).packets == pk && acct_total(e).bytes == by &&
	       e->restarts == restarts;
}

static void test_restart_sum(void)
{
	struct acct *a = acct_new("inet:t:s");
	uint64_t *ids;
	size_t n;

	acct_bind(a, 10, "svc", true);
	acct_observe(a, 10, 3, 300, false);
	acct_depart(a, 10);
	acct_bind(a, 11, "svc", true);
	acct_observe(a, 11, 2, 20, false);
	check("acct: a restart sums old and new id", total_is(a, "svc", 5, 320, 1), NULL);
	acct_observe(a, 11, 1, 10, false);	/* made anew by someone else */
	check("acct: a counter going down is a baseline: it may be restored",
	      total_is(a, "svc", 5, 320, 1), NULL);
	acct_read_begin(a, 1, 7, false);	/* 11 absent from the dump */
	ids = acct_unseen(a, &n);
	check("acct: a live id absent from a reading is to be confirmed",
	      n == 1 && ids[0] == 11, NULL);
	free(ids);
	acct_observe(a, 11, 4, 40, false);	/* read alone: still there */
	check("acct: an absent element found when read alone: counted once",
	      total_is(a, "svc", 8, 350, 1), NULL);
	acct_read_begin(a, 1, 7, false);
	acct_gone(a, 11);	/* read alone: ENOENT */
	acct_observe(a, 11, 20, 200, false);	/* back, not made by us */
	check("acct: an element back after it was gone is a baseline",
	      total_is(a, "svc", 8, 350, 1), NULL);
	acct_observe(a, 11, 21, 210, false);
	check("acct: ... counted from there", total_is(a, "svc", 9, 360, 1),
	      NULL);
	acct_gone(a, 11);
	acct_made(a, 11);	/* the daemon made it again: from zero */
	acct_observe(a, 11, 2, 20, false);
	check("acct: an element the daemon made again counts from zero",
	      total_is(a, "svc", 11, 380, 1), NULL);
	check("acct: a new set handle makes the reading a baseline",
	      acct_read_begin(a, 1, 8, false), NULL);
	acct_observe(a, 11, 50, 500, false);	/* restored by nft -f */
	acct_observe(a, 11, 51, 510, false);
	check("acct: ... a restored counter is not counted",
	      total_is(a, "svc", 12, 390, 1) && a->set_handle == 8, NULL);
	check("acct: the same handles are no baseline, a moved set is",
	      !acct_read_begin(a, 1, 8, false) &&
	      acct_read_begin(a, 1, 8, true), NULL);
	check("acct: a set of a table made anew is (same set handle)",
	      acct_read_begin(a, 2, 8, false), NULL);
	acct_observe(a, 11, 51, 510, false);
	acct_observe(a, 11, 53, 530, true);	/* a reset: then from zero */
	acct_observe(a, 11, 1, 10, true);
	acct_observe(a, 11, 1, 10, true);	/* a dump started over */
	check("acct: readings that reset add what each counted",
	      total_is(a, "svc", 16, 430, 1), NULL);
	acct_observe(a, 99, 7, 7, false);
	check("acct: unknown ids are ignored", a->n == 1, NULL);
	acct_free(a);
}

/* A full reading without a live id that is not wanted: it departs. */
static void test_depart_absent(void)
{
	struct acct *a = acct_new("inet:t:s");
	struct idset want = { 0 };

	acct_bind(a, 50, "gone", true);
	acct_observe(a, 50, 2, 58, false);
	acct_bind(a, 51, "flushed", true);
	acct_bind(a, 52, "here", true);
	idset_add(&want, 51);
	idset_add(&want, 52);
	acct_read_begin(a, 0, 0, false);
	acct_observe(a, 52, 1, 29, false);
	check("acct: after a full reading, absent ids not wanted depart",
	      acct_depart_absent(a, &want) == 1 && !acct_find_id(a, 50) &&
	      total_is(a, "gone", 2, 58, 0) && acct_find_id(a, 51) &&
	      acct_find_id(a, 52), NULL);
	idset_free(&want);
	acct_free(a);
}

/* rmdir + mkdir in one burst: the new id is bound after the old's last read. */
static void test_expect_order(void)
{
	struct acct *a = acct_new("inet:t:s");
	struct idset want = { 0 }, have = { 0 };

	acct_bind(a, 20, "web", true);
	acct_observe(a, 20, 1, 100, false);
	idset_add(&want, 21);
	acct_expect(a, 21, "web", &want);
	acct_observe(a, 20, 5, 500, false);	/* the final reading before the delete */
	acct_depart(a, 20);
	acct_bind_added(a, &have, &want, &have);
	check("acct: expected id waits for its commit",
	      a->npend == 1 && !acct_find_id(a, 21), NULL);
	idset_add(&have, 21);
	acct_bind_added(a, &have, &want, &have);
	check("acct: final reading of the old id counted, new id bound",
	      total_is(a, "web", 5, 500, 1) && acct_find_id(a, 21), NULL);
	idset_free(&want);
	idset_free(&have);
	acct_free(a);
}

static void test_bounded_paths(void)
{
	struct acct *a = acct_new("inet:t:s");
	char p[32];
	uint64_t i;

	for (i = 1; i <= ACCT_MAX_PATHS; i++) {
		snprintf(p, sizeof(p), "session-%llu.scope", (unsigned long long)i);
		acct_bind(a, i, p, true);
		acct_depart(a, i);
	}
	acct_bind(a, ACCT_MAX_PATHS + 1, "new.scope", true);
	check("acct: at most ACCT_MAX_PATHS paths, the idle one forgotten",
	      a->n == ACCT_MAX_PATHS && acct_find_path(a, "new.scope") &&
	      acct_find_id(a, ACCT_MAX_PATHS + 1), NULL);
	acct_free(a);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Past the cap a new path costs O(1): no scan, no rehash. */
static void test_full_cost(void)
{
	struct acct *a = acct_new("inet:t:s");
	char p[32], msg[128];
	size_t idle = 0, k;
	uint64_t i;
	double t0, dt;

	for (i = 1; i <= ACCT_MAX_PATHS; i++) {
		snprintf(p, sizeof(p), "s-%llu.scope", (unsigned long long)i);
		acct_bind(a, i, p, true);
		if (i % 4)
			acct_depart(a, i);	/* one in four stays live */
	}
	t0 = mono();
	for (i = ACCT_MAX_PATHS + 1; i <= ACCT_MAX_PATHS + 2000; i++) {
		snprintf(p, sizeof(p), "s-%llu.scope", (unsigned long long)i);
		acct_bind(a, i, p, true);
		acct_depart(a, i);
	}
	dt = mono() - t0;
	for (k = a->oldest; k; k = a->p[k - 1].newer)
		idle++;
	snprintf(msg, sizeof(msg), "2,000 new paths in %.1f ms", dt * 1e3);
	check("acct: full: the idle paths that left first are forgotten",
	      a->n == ACCT_MAX_PATHS && !acct_find_path(a, "s-1.scope") &&
	      acct_find_path(a, "s-4.scope") && acct_find_id(a, 4) &&
	      acct_find_path(a, "s-2667.scope") &&
	      !acct_find_path(a, "s-2666.scope") &&
	      acct_find_path(a, "s-67536.scope") &&
	      idle == ACCT_MAX_PATHS - ACCT_MAX_PATHS / 4, msg);
	printf("INFO %s\n", msg);
	check("acct: full: a new path costs O(1) (2,000 in under 200 ms)",
	      dt < 0.2, msg);
	acct_free(a);
}

static void test_roundtrip(void)
{
	struct acct_store s = { 0 }, r = { 0 };
	struct acct *a = acct_store_get(&s, "inet:filter:web");
	char path[256], err[512];
	int ret;

	acct_bind(a, 30, "system.slice/web 1.service", true);
	acct_observe(a, 30, 8, 800, false);
	acct_depart(a, 30);
	acct_bind(a, 31, "system.slice/web 1.service", true);
	acct_observe(a, 31, 1, 10, false);
	snprintf(path, sizeof(path), "%s/state", dir);
	ret = state_save(path, &s);
	check("state: saved", !ret, strerror(-ret));
	ret = state_load(path, &r, err, sizeof(err));
	check("state: read back", !ret, err);
	a = acct_store_find(&r, "inet:filter:web");
	check("state: totals, live id and restarts survive",
	      a && total_is(a, "system.slice/web 1.service", 9, 810, 1) &&
	      acct_find_id(a, 31), NULL);
	acct_store_free(&s);
	acct_store_free(&r);
}

/* Version 3 keeps the boot, the set handle, the element's counter. */
static void test_roundtrip_v3(void)
{
	struct acct_store s = { 0 }, r = { 0 };
	struct acct *a = acct_store_get(&s, "inet:t:s");
	struct acct_path *e;
	char path[256], err[512];
	int ret;
	FILE *f;

	acct_store_boot(&s, "0a1b2c3d-0000-4000-8000-000000000001");
	acct_read_begin(a, 5, 77, false);
	acct_bind(a, 60, "reset", true);
	acct_observe(a, 60, 4, 40, true);	/* reset: the element is at 0 */
	acct_bind(a, 61, "found", false);	/* a baseline to take */
	snprintf(path, sizeof(path), "%s/state", dir);
	ret = state_save(path, &s);
	check("state v3: saved", !ret, strerror(-ret));
	ret = state_load(path, &r, err, sizeof(err));
	a = acct_store_find(&r, "inet:t:s");
	e = a ? acct_find_path(a, "reset") : NULL;
	check("state v3: boot id, set handle, element counter, baseline kept",
	      !ret && !*err && a && a->set_handle == 77 && a->table_handle == 5 && e &&
	      !strcmp(r.boot_id, "0a1b2c3d-0000-4000-8000-000000000001") &&
	      total_is(a, "reset", 4, 40, 0) && !e->elem.packets &&
	      acct_find_path(a, "found")->baseline, err);
	acct_observe(a, 60, 1, 10, false);
	acct_observe(a, 61, 9, 90, false);
	check("state v3: after a load, a reset element counts in full, the baseline not",
	      total_is(a, "reset", 5, 50, 0) && total_is(a, "found", 0, 0, 0),
	      NULL);
	check("state v3: another boot: live ids depart, totals kept",
	      acct_store_boot(&r, "0a1b2c3d-0000-4000-8000-000000000002") &&
	      !acct_find_id(a, 60) && !a->set_handle &&
	      total_is(a, "reset", 5, 50, 0), NULL);
	check("state v3: the same boot changes nothing",
	      !acct_store_boot(&r, "0a1b2c3d-0000-4000-8000-000000000002"),
	      NULL);
	acct_store_free(&s);
	acct_store_free(&r);

	/* version 2: the live count is the element's counter */
	f = fopen(path, "w");
	fputs("nft-cgroupd-state 2\nset inet:t:s\np 9 9 0 5 145 2 58 0 /a\n", f);
	fclose(f);
	ret = state_load(path, &r, err, sizeof(err));
	a = acct_store_find(&r, "inet:t:s");
	if (a)
		acct_observe(a, 9, 3, 87, false);
	check("state: version 2 read, its live count taken as the element's",
	      !ret && a && !*r.boot_id && !a->set_handle &&
	      total_is(a, "a", 8, 232, 0), err);
	acct_store_free(&r);

	/* bad version 3 lines: dropped one by one */
	f = fopen(path, "w");
	fputs("nft-cgroupd-state 3\nboot ../x\nset inet:t:s\nhandle 1 1x\n"
	      "p 9 9 0 5 145 2 58 0 0 2 0 /a\np 9 9 0 5 145 2 58 0 /b\n"
	      "p 8 8 0 1 29 0 0 0 0 0 0 /c\n", f);
	fclose(f);
	ret = state_load(path, &r, err, sizeof(err));
	a = acct_store_find(&r, "inet:t:s");
	check("state v3: bad boot, handle, flag and short path lines dropped",
	      !ret && a && a->n == 1 && total_is(a, "c", 1, 29, 0) &&
	      !*r.boot_id && !a->set_handle, err);
	acct_store_free(&r);
}

/*
 * A cgroup name is any bytes but '/' and NUL: each survives a save and a
 * load, and one such path does not cost the others their totals.
 */
static void test_any_byte(void)
{
	struct acct_store s = { 0 }, r = { 0 };
	struct acct *a = acct_store_get(&s, "inet:t:s");
	char name[300], path[256], err[512];
	int c, k = 0, ret;
	FILE *f;

	for (c = 1; c < 256; c++)
		if (c != '/')
			name[k++] = c;
	name[k] = '\0';
	acct_bind(a, 40, name, true);
	acct_observe(a, 40, 3, 87, false);
	acct_bind(a, 41, "svc/a\tb\\x09", true);
	acct_observe(a, 41, 1, 29, false);
	acct_bind(a, 42, "svc/plain", true);
	acct_observe(a, 42, 2, 58, false);
	snprintf(path, sizeof(path), "%s/state", dir);
	ret = state_save(path, &s);
	check("state: names with every byte saved", !ret, strerror(-ret));
	ret = state_load(path, &r, err, sizeof(err));
	check("state: names with every byte read back", !ret && !*err, err);
	a = acct_store_find(&r, "inet:t:s");
	check("state: every byte of a name survives, with its totals",
	      a && total_is(a, name, 3, 87, 0) &&
	      total_is(a, "svc/a\tb\\x09", 1, 29, 0) &&
	      total_is(a, "svc/plain", 2, 58, 0) && acct_find_id(a, 40), NULL);
	acct_store_free(&s);
	acct_store_free(&r);

	/* the daemon of version 1 wrote names raw: still read as they are */
	f = fopen(path, "w");
	fputs("nft-cgroupd-state 1\nset inet:t:s\np 0 9 0 5 145 0 0 1 /a\tb\\c\n", f);
	fclose(f);
	ret = state_load(path, &r, err, sizeof(err));
	a = acct_store_find(&r, "inet:t:s");
	check("state: version 1 file with raw names read",
	      !ret && a && total_is(a, "a\tb\\c", 5, 145, 0), err);
	acct_store_free(&r);
}

static size_t store_paths(const struct acct_store *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->v[i]->n;
	return n;
}

/*
 * What the daemon saves, it reads back: past the limits the writer leaves
 * out the paths idle the longest, and says how many.
 */
static void test_save_limits(void)
{
	struct acct_store s = { 0 }, r = { 0 };
	char p[4100], path[256], err[512], set[32];
	struct acct *a;
	uint64_t id = 1;
	int i, j, ret;

	snprintf(path, sizeof(path), "%s/state", dir);
	/* five counted sets, each full */
	for (i = 0; i < 5; i++) {
		snprintf(set, sizeof(set), "inet:t:s%d", i);
		a = acct_store_get(&s, set);
		for (j = 0; j < ACCT_MAX_PATHS; j++, id++) {
			snprintf(p, sizeof(p), "u%d.scope", j);
			acct_bind(a, id, p, true);
			if (i == 4 || j % 2)
				acct_depart(a, id);
			a->p[a->n - 1].idle_since = a->p[a->n - 1].live_id ? 0 :
						     (int64_t)id;
		}
	}
	ret = state_save(path, &s);
	check("state: five full sets: the paths past the limit left out",
	      ret == ACCT_MAX_PATHS, NULL);
	ret = state_load(path, &r, err, sizeof(err));
	a = acct_store_find(&r, "inet:t:s4");
	check("state: five full sets: read back, the live and recent paths kept",
	      !ret && !*err && store_paths(&r) == STATE_MAX_PATHS && a &&
	      acct_find_path(a, "u65535.scope") &&
	      acct_find_path(acct_store_find(&r, "inet:t:s0"), "u0.scope") &&
	      !acct_find_path(acct_store_find(&r, "inet:t:s0"), "u1.scope"),
	      err);
	acct_store_free(&s);
	acct_store_free(&r);

	/* 17,000 paths of 4 KB: more than 64 MiB */
	a = acct_store_get(&s, "inet:t:big");
	memset(p, 'x', 4000);
	for (j = 0; j < 17000; j++) {
		snprintf(p + 4000, 100, "/%d", j);
		acct_bind(a, j + 1, p, true);
	}
	ret = state_save(path, &s);
	check("state: 17,000 paths of 4 KB: the paths past 64 MiB left out",
	      ret > 0 && ret < 1000, NULL);
	ret = state_load(path, &r, err, sizeof(err));
	check("state: 17,000 paths of 4 KB: read back",
	      !ret && !*err && store_paths(&r) > 16000, err);
	acct_store_free(&s);
	acct_store_free(&r);
}

/* Write @content as a state file and load it into @s; @msg for a check. */
static int load_text(struct acct_store *s, const char *content, size_t len,
		     const char *want, char *err, size_t errlen, char *msg,
		     size_t msglen)
{
	char path[256];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/bad", dir);
	f = fopen(path, "w");
	fwrite(content, 1, len, f);
	fclose(f);
	*err = '\0';
	ret = state_load(path, s, err, errlen);
	snprintf(msg, msglen, "ret %d, message \"%s\", want \"%s\"", ret,
		 err, want);
	return ret;
}

/* A hostile state file: refused as a whole with FILE:LINE and the reason. */
static void hostile(const char *name, const char *content, size_t len,
		    const char *want)
{
	struct acct_store s = { 0 };
	char err[512], msg[1024];
	int ret;

	ret = load_text(&s, content, len, want, err, sizeof(err), msg,
			sizeof(msg));
	check(name, ret && strstr(err, want) && !s.n, msg);
}

#define H(name, text, want) hostile(name, text, sizeof(text) - 1, want)
#define MAGIC "nft-cgroupd-state 2\n"
/* A good set and path on lines 2 and 3, before the bad lines. */
#define GOOD MAGIC "set inet:t:ok\np 0 0 0 4 116 0 0 0 /ok\n"

/*
 * A bad line: dropped with FILE:LINE and the reason, the good lines before
 * (and @after, when it is a path of the set "ok") kept.
 */
static void bad_line(const char *name, const char *content, size_t len,
		     const char *want, const char *after)
{
	struct acct_store s = { 0 };
	char err[512], msg[1024];
	struct acct *a;
	int ret;

	ret = load_text(&s, content, len, want, err, sizeof(err), msg,
			sizeof(msg));
	a = acct_store_find(&s, "inet:t:ok");
	check(name, !ret && strstr(err, want) && a &&
	      total_is(a, "ok", 4, 116, 0) &&
	      (!after || acct_find_path(a, after)), msg);
	acct_store_free(&s);
}

#define B(name, text, want, after) \
	bad_line(name, GOOD text, sizeof(GOOD text) - 1, want, after)

/* Entries beyond the bound are dropped, in bounded time. */
static void test_too_many(char *path, size_t size)
{
	struct acct_store s = { 0 };
	char err[512];
	size_t n = 0;
	FILE *f;
	int i, ret;

	snprintf(path, size, "%s/many", dir);
	f = fopen(path, "w");
	fputs(MAGIC, f);
	for (i = 0; i <= STATE_MAX_PATHS; i++) {
		if (i % ACCT_MAX_PATHS == 0)
			fprintf(f, "set inet:t:s%d\n", i / ACCT_MAX_PATHS);
		fprintf(f, "p 0 0 0 0 0 0 0 0 /%d\n", i);
	}
	fclose(f);
	ret = state_load(path, &s, err, sizeof(err));
	for (i = 0; i < (int)s.n; i++)
		n += s.v[i]->n;
	check("state: more than STATE_MAX_PATHS paths: the rest dropped",
	      !ret && strstr(err, "too many paths") && n == STATE_MAX_PATHS,
	      err);
	acct_store_free(&s);
}

static void test_hostile(void)
{
	char *big = malloc(STATE_MAX_LINE + 200);
	char path[256], err[512];
	struct acct_store s = { 0 };
	int fd;

	H("state: wrong magic", "hello\n", "bad:1: not an nft-cgroupd state file");
	H("state: empty file", "", "bad:1: empty file");
	H("state: NUL byte in the magic", "nft-cgroupd-state 2\0\n", "bad:1: NUL byte");
	B("state: path before set", "set \\x\np 0 0 0 0 0 0 0 0 /a\n", "bad:4: bad set name", NULL);
	B("state: too few numbers", "p 1 1 0 0\np 0 0 0 0 0 0 0 0 /b\n", "bad:4: expected 8 numbers", "b");
	B("state: number overflows 64 bits", "p 0 0 0 18446744073709551616 0 0 0 0 /a\n",
	  "bad:4: expected 8 numbers", NULL);
	B("state: negative number", "p 0 0 0 -1 0 0 0 0 /a\n", "bad:4: expected 8", NULL);
	B("state: relative path", "p 0 0 0 0 0 0 0 0 a\n", "bad:4: bad path", NULL);
	B("state: raw control byte in path", "p 0 0 0 0 0 0 0 0 /a\tb\n", "bad:4: bad path", NULL);
	B("state: bad escape in path", "p 0 0 0 0 0 0 0 0 /a\\tb\n", "bad:4: bad path", NULL);
	B("state: escaped NUL in path", "p 0 0 0 0 0 0 0 0 /a\\x00b\n", "bad:4: bad path", NULL);
	B("state: live id without last id", "p 5 0 0 0 0 0 0 0 /a\n", "bad:4: inconsistent", NULL);
	B("state: duplicate path", "p 0 0 0 0 0 0 0 0 /ok\np 0 0 0 0 0 0 0 0 /b\n",
	  "bad:4: path or live id listed twice", "b");
	B("state: duplicate live id", "p 7 7 0 0 0 0 0 0 /a\np 7 7 0 0 0 0 0 0 /b\n",
	  "bad:5: path or live id listed twice", "a");
	B("state: set listed twice", "set inet:t:ok\np 0 0 0 0 0 0 0 0 /b\n", "bad:4: set listed twice", NULL);
	B("state: NUL byte", "p 0 0 0 0 0 0 0 0 /a\0x\np 0 0 0 0 0 0 0 0 /b\n", "bad:4: NUL byte", "b");
	B("state: truncated last line", "p 0 0", "bad:4: truncated", NULL);
	B("state: unknown line", "rm -rf /\np 0 0 0 0 0 0 0 0 /b\n", "bad:4: unknown line", "b");
	memset(big, 'x', STATE_MAX_LINE + 200);
	memcpy(big, GOOD "set ", sizeof(GOOD "set ") - 1);
	memcpy(big + STATE_MAX_LINE + 100, "\np 0 0 0 0 0 0 0 0 /b\n", 22);
	bad_line("state: overlong line", big, STATE_MAX_LINE + 122, "bad:4: line too long", "b");
	free(big);

	snprintf(path, sizeof(path), "%s/huge", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	check("state: huge (sparse) file refused before reading",
	      fd >= 0 && !ftruncate(fd, (off_t)STATE_MAX_BYTES + 1) &&
	      state_load(path, &s, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "not a regular file of at most 64 MiB"), err);
	close(fd);
	test_too_many(path, sizeof(path));
	snprintf(path, sizeof(path), "%s/link", dir);
	check("state: a symlink is not followed",
	      !symlink("/etc/passwd", path) &&
	      state_load(path, &s, err, sizeof(err)) == -ELOOP, err);
}

/* Paths are any bytes but '/' and NUL: each output quotes them. */
static void test_escapes(void)
{
	const char *path = "a\"b\\c\td\xff\xc3\xa9";
	char buf[256] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	/* the functions of --stats --json and of the metrics file */
	put_json_name(f, "", path);
	fputc(' ', f);
	put_prom_label(f, "x\"y\\z\n");
	fclose(f);
	check("escape: JSON string and Prometheus label value",
	      !strcmp(buf, "\"a\\\"b\\\\\\\\c\\\\x09d\\\\xff\xc3\xa9\" "
			   "x\\\"y\\\\\\\\z\\\\x0a"), buf);
}

/* Names as text, one function per format: valid UTF-8, no control byte. */
static void test_names(void)
{
	const char *name = "a\"b\\c\td\xff\xc3\xa9\xed\xa0\x80\xc2\x9b\x1b";
	char buf[512] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	put_json_name(f, "/", name);
	fputc(' ', f);
	put_prom_label(f, name);
	fputc(' ', f);
	put_term_name(f, name);
	fclose(f);
	check("names: JSON, Prometheus and terminal text",
	      !strcmp(buf, "\"/a\\\"b\\\\\\\\c\\\\x09d\\\\xff\xc3\xa9"
			   "\\\\xed\\\\xa0\\\\x80\\\\xc2\\\\x9b\\\\x1b\" "
			   "a\\\"b\\\\\\\\c\\\\x09d\\\\xff\xc3\xa9"
			   "\\\\xed\\\\xa0\\\\x80\\\\xc2\\\\x9b\\\\x1b "
			   "a\"b\\\\c\\x09d\\xff\xc3\xa9\\xed\\xa0\\x80\\xc2\\x9b\\x1b"),
	      buf);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir))
		return 1;
	test_restart_sum();
	test_expect_order();
	test_depart_absent();
	test_bounded_paths();
	test_full_cost();
	test_roundtrip();
	test_roundtrip_v3();
	test_any_byte();
	test_save_limits();
	test_hostile();
	test_escapes();
	test_names();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return failed;
}
