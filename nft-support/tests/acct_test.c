// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of the accounting (accounting.c) and its state file
 * (statefile.c): totals across ids, counter resets, and hostile files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../accounting.h"
#include "../statefile.h"
#include "../textesc.h"

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

	acct_bind(a, 10, "svc");
	acct_observe(a, 10, 3, 300);
	acct_depart(a, 10);
	acct_bind(a, 11, "svc");
	acct_observe(a, 11, 2, 20);
	check("acct: a restart sums old and new id", total_is(a, "svc", 5, 320, 1), NULL);
	acct_observe(a, 11, 1, 10);	/* element made anew: reload */
	check("acct: a counter going down is a new element, old reading kept",
	      total_is(a, "svc", 6, 330, 1), NULL);
	acct_read_begin(a);
	acct_read_end(a);	/* 11 absent from the set: reading folded */
	acct_read_begin(a);
	acct_observe(a, 11, 4, 40);
	acct_read_end(a);
	check("acct: an element missing from a reading keeps its counts",
	      total_is(a, "svc", 10, 370, 1), NULL);
	acct_observe(a, 99, 7, 7);
	check("acct: unknown ids are ignored", a->n == 1, NULL);
	acct_free(a);
}

/* rmdir + mkdir in one burst: the new id is bound after the old's last read. */
static void test_expect_order(void)
{
	struct acct *a = acct_new("inet:t:s");
	struct idset want = { 0 }, have = { 0 };

	acct_bind(a, 20, "web");
	acct_observe(a, 20, 1, 100);
	idset_add(&want, 21);
	acct_expect(a, 21, "web", &want);
	acct_observe(a, 20, 5, 500);	/* the final reading before the delete */
	acct_depart(a, 20);
	acct_bind_added(a, &have, &want);
	check("acct: expected id waits for its commit",
	      a->npend == 1 && !acct_find_id(a, 21), NULL);
	idset_add(&have, 21);
	acct_bind_added(a, &have, &want);
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
		acct_bind(a, i, p);
		acct_depart(a, i);
	}
	acct_bind(a, ACCT_MAX_PATHS + 1, "new.scope");
	check("acct: at most ACCT_MAX_PATHS paths, the idle one forgotten",
	      a->n == ACCT_MAX_PATHS && acct_find_path(a, "new.scope") &&
	      acct_find_id(a, ACCT_MAX_PATHS + 1), NULL);
	acct_free(a);
}

static void test_roundtrip(void)
{
	struct acct_store s = { 0 }, r = { 0 };
	struct acct *a = acct_store_get(&s, "inet:filter:web");
	char path[256], err[512];
	int ret;

	acct_bind(a, 30, "system.slice/web 1.service");
	acct_observe(a, 30, 8, 800);
	acct_depart(a, 30);
	acct_bind(a, 31, "system.slice/web 1.service");
	acct_observe(a, 31, 1, 10);
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

/* A hostile state file: refused with FILE:LINE and the reason. */
static void hostile(const char *name, const char *content, size_t len,
		    const char *want)
{
	struct acct_store s = { 0 };
	char path[256], err[512] = "", msg[1024];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/bad", dir);
	f = fopen(path, "w");
	fwrite(content, 1, len, f);
	fclose(f);
	ret = state_load(path, &s, err, sizeof(err));
	snprintf(msg, sizeof(msg), "ret %d, message \"%s\", want \"%s\"", ret,
		 err, want);
	check(name, ret && strstr(err, want) && !s.n, msg);
}

#define H(name, text, want) hostile(name, text, sizeof(text) - 1, want)
#define MAGIC "nft-cgroupd-state 1\n"

/* Entries beyond the bound are refused, in bounded time. */
static void test_too_many(char *path, size_t size)
{
	struct acct_store s = { 0 };
	char err[512];
	FILE *f;
	int i;

	snprintf(path, size, "%s/many", dir);
	f = fopen(path, "w");
	fputs(MAGIC, f);
	for (i = 0; i <= STATE_MAX_PATHS; i++) {
		if (i % ACCT_MAX_PATHS == 0)
			fprintf(f, "set inet:t:s%d\n", i / ACCT_MAX_PATHS);
		fprintf(f, "p 0 0 0 0 0 0 0 0 /%d\n", i);
	}
	fclose(f);
	check("state: more than STATE_MAX_PATHS paths refused",
	      state_load(path, &s, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "too many paths") && !s.n, err);
}

static void test_hostile(void)
{
	char *big = malloc(STATE_MAX_LINE + 64);
	char path[256], err[512];
	struct acct_store s = { 0 };
	int fd;

	H("state: wrong magic", "hello\n", "bad:1: not an nft-cgroupd state file");
	H("state: empty file", "", "bad:1: empty file");
	H("state: path before set", MAGIC "p 0 0 0 0 0 0 0 0 /a\n", "bad:2: path before");
	H("state: too few numbers", MAGIC "set inet:t:s\np 1 1 0 0\n", "bad:3: expected 8 numbers");
	H("state: number overflows 64 bits", MAGIC "set inet:t:s\np 0 0 0 18446744073709551616 0 0 0 0 /a\n",
	  "bad:3: expected 8 numbers");
	H("state: negative number", MAGIC "set inet:t:s\np 0 0 0 -1 0 0 0 0 /a\n", "bad:3: expected 8");
	H("state: relative path", MAGIC "set inet:t:s\np 0 0 0 0 0 0 0 0 a\n", "bad:3: bad path");
	H("state: control byte in path", MAGIC "set inet:t:s\np 0 0 0 0 0 0 0 0 /a\tb\n", "bad:3: bad path");
	H("state: live id without last id", MAGIC "set inet:t:s\np 5 0 0 0 0 0 0 0 /a\n", "bad:3: inconsistent");
	H("state: duplicate path", MAGIC "set inet:t:s\np 0 0 0 0 0 0 0 0 /a\np 0 0 0 0 0 0 0 0 /a\n",
	  "bad:4: path or live id listed twice");
	H("state: duplicate live id", MAGIC "set inet:t:s\np 7 7 0 0 0 0 0 0 /a\np 7 7 0 0 0 0 0 0 /b\n",
	  "bad:4: path or live id listed twice");
	H("state: set listed twice", MAGIC "set inet:t:s\nset inet:t:s\n", "bad:3: set listed twice");
	H("state: NUL byte", MAGIC "set inet:t:s\0x\n", "bad:2: NUL byte");
	H("state: truncated last line", MAGIC "set inet:t:s\np 0 0", "bad:3: truncated");
	H("state: unknown line", MAGIC "rm -rf /\n", "bad:2: unknown line");
	memset(big, 'x', STATE_MAX_LINE + 40);
	memcpy(big, MAGIC "set ", 24);
	big[STATE_MAX_LINE + 40] = '\n';
	hostile("state: overlong line", big, STATE_MAX_LINE + 41, "bad:2: line too long");
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

	put_json_string(f, path);
	fputc(' ', f);
	put_label_value(f, "x\"y\\z\n");
	fclose(f);
	check("escape: JSON string and Prometheus label value",
	      !strcmp(buf, "\"a\\\"b\\\\c\\u0009d\\u00ff\xc3\xa9\" x\\\"y\\\\z\\n"), buf);
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
	test_bounded_paths();
	test_roundtrip();
	test_hostile();
	test_escapes();
	test_names();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return failed;
}
