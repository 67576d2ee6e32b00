// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host unit tests of the pattern engine (lib/cgroup2_pattern.c): the same
 * file the kernel module compiles.  One PASS/FAIL line per case.
 */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup2_pattern.h"
#include "cgroup2_user.h"

static int passed, failed;

static void report(int ok, const char *what, const char *a, const char *b)
{
	if (ok) {
		passed++;
		printf("PASS %s: \"%s\" %s\n", what, a, b);
	} else {
		failed++;
		printf("FAIL %s: \"%s\" %s\n", what, a, b);
	}
}

/* pattern, path, exact?, subtree? */
static const struct {
	const char *pat, *path;
	int exact, subtree;
} matches[] = {
	{ "system.slice/foo.service", "system.slice/foo.service", 1, 1 },
	{ "/system.slice/foo.service", "system.slice/foo.service", 1, 1 },
	{ "system.slice/foo.service/", "system.slice/foo.service", 1, 1 },
	{ "system.slice/foo.service", "system.slice/foo.service/x/y", 0, 1 },
	{ "system.slice/foo.service", "system.slice", 0, 0 },
	{ "system.slice/foo.service", "system.slice/foo.servicex", 0, 0 },
	{ "system.slice/foo.service", "user.slice/foo.service", 0, 0 },
	{ "system.slice/foo", "system.slice/foo.service", 0, 0 },
	{ "/", "", 1, 1 },
	{ "/", "a/b", 0, 1 },
	{ "system.slice/*.service", "system.slice/nginx.service", 1, 1 },
	{ "system.slice/*.service", "system.slice/.service", 1, 1 },
	{ "system.slice/*.service", "system.slice/nginx.socket", 0, 0 },
	{ "system.slice/*.service", "system.slice/a/b.service", 0, 0 },
	{ "system.slice/*", "system.slice", 0, 0 },
	{ "*", "anything/below", 0, 1 },
	{ "a*b*c", "aXXbYYc", 1, 1 },
	{ "a*b*c", "abcbc", 1, 1 },
	{ "a*b*c", "acb", 0, 0 },
	{ "*a", "aaaa", 1, 1 },
	{ "?.slice", "x.slice", 1, 1 },
	{ "?.slice", "xy.slice", 0, 0 },
	{ "[abc]x", "bx", 1, 1 },
	{ "[abc]x", "dx", 0, 0 },
	{ "[a-z]9", "q9", 1, 1 },
	{ "[a-z]9", "Q9", 0, 0 },
	{ "[!x]y", "ay", 1, 1 },
	{ "[!x]y", "xy", 0, 0 },
	{ "[^x]y", "xy", 0, 0 },
	{ "[]]", "]", 1, 1 },
	{ "[!]]", "]", 0, 0 },
	{ "[a-]", "-", 1, 1 },
	{ "[\\]]", "]", 1, 1 },
	{ "system.slice/{nginx,php-fpm}.service", "system.slice/nginx.service", 1, 1 },
	{ "system.slice/{nginx,php-fpm}.service", "system.slice/php-fpm.service", 1, 1 },
	{ "system.slice/{nginx,php-fpm}.service", "system.slice/apache.service", 0, 0 },
	{ "{web,api,worker}", "worker", 1, 1 },
	{ "{web,api,worker}", "wor", 0, 0 },
	{ "{,x}y", "y", 1, 1 },
	{ "{,x}y", "xy", 1, 1 },
	{ "{a,b}{c,d}", "bd", 1, 1 },
	{ "{a,b}{c,d}", "bb", 0, 0 },
	{ "{a*,b}c", "axyzc", 1, 1 },
	{ "{[,],x}", ",", 1, 1 },
	{ "{ab,a}b", "ab", 1, 1 },
	{ "x{a,ab}*c", "xabzc", 1, 1 },
	{ "a,b", "a,b", 1, 1 },
	{ "\\*", "*", 1, 1 },
	{ "\\*", "x", 0, 0 },
	{ "\\{a,b\\}", "{a,b}", 1, 1 },
	{ "user@1000.service", "user@1000.service", 1, 1 },
	{ "user.slice/user-*.slice/user@*.service", "user.slice/user-1000.slice/user@1000.service", 1, 1 },
	{ "user.slice/user-*.slice/**/app-firefox-*.scope", "user.slice/user-1000.slice/user@1000.service/app.slice/app-firefox-12.scope", 1, 1 },
	{ "user.slice/user-*.slice/**/app-firefox-*.scope", "user.slice/user-1000.slice/app-firefox-1.scope", 1, 1 },
	{ "user.slice/user-*.slice/**/app-firefox-*.scope", "user.slice/user-1000.slice/app-chrome-1.scope", 0, 0 },
	{ "machine.slice/*/payload", "machine.slice/vm1/payload", 1, 1 },
	{ "machine.slice/*/payload", "machine.slice/vm1/x/payload", 0, 0 },
	{ "**", "", 1, 1 },
	{ "**", "a/b/c", 1, 1 },
	{ "**/x", "x", 1, 1 },
	{ "**/x", "a/b/x", 1, 1 },
	{ "**/x", "a/b/x/y", 0, 1 },
	{ "**/x", "a/b/y", 0, 0 },
	{ "a/**", "a", 1, 1 },
	{ "a/**", "a/b/c", 1, 1 },
	{ "a/**", "b", 0, 0 },
	{ "a/**/z", "a/z", 1, 1 },
	{ "a/**/z", "a/b/c/z", 1, 1 },
	{ "a/**/z", "a/b/c/y", 0, 0 },
	{ "a/**/b/**/c", "a/x/b/y/b/c", 1, 1 },
	{ "a/**/b/**/c", "a/c/b", 0, 0 },
	{ "**/**/x", "x", 1, 1 },
	{ "a**b", "axxb", 1, 1 },
	{ "é/*", "é/ü", 1, 1 },
	{ "with space/x", "with space/x", 1, 1 },
};

static const struct {
	const char *pat;
	enum cg2_error err;
	size_t offset;
} invalid[] = {
	{ "", CG2_ERR_EMPTY, 0 },
	{ "a//b", CG2_ERR_EMPTY_COMPONENT, 2 },
	{ "//", CG2_ERR_EMPTY_COMPONENT, 1 },
	{ "a/./b", CG2_ERR_DOT, 2 },
	{ "..", CG2_ERR_DOT, 0 },
	{ "a/..", CG2_ERR_DOT, 2 },
	{ "a/[b", CG2_ERR_BRACKET, 2 },
	{ "[", CG2_ERR_BRACKET, 0 },
	{ "[]", CG2_ERR_BRACKET, 0 },
	{ "[a/b]", CG2_ERR_SLASH_IN_BRACKET, 0 },
	{ "[z-a]", CG2_ERR_RANGE, 0 },
	{ "x{a,b", CG2_ERR_BRACE, 1 },
	{ "a}", CG2_ERR_STRAY_BRACE, 1 },
	{ "{a,{b}}", CG2_ERR_NESTED_BRACE, 3 },
	{ "{a/b}", CG2_ERR_SLASH_IN_BRACE, 0 },
	{ "a\\", CG2_ERR_ESCAPE, 1 },
	{ "a\\/b", CG2_ERR_ESCAPE, 1 },
	/* 2^10 DFA states: where the "a" was among the last 10 bytes. */
	{ "*a?????????", CG2_ERR_TABLES, 0 },
	{ "x/**/*[ab]?????????", CG2_ERR_TABLES, 5 },
};

static const char *const valid[] = {
	"/", "a", "/a/", "a/b/c", "**", "[]]", "[!]]", "{}", "{,}", "a,b",
	"{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}", "{a}{a}{a}{a}{a}{a}{a}{a}",
	"{a}{a}{a}{a}{a}{a}{a}{a}{a}", "{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b}",
	"\\.", ".x", "...", "[.]", "a/**/b", "x]", "a-b", "[\\]]",
	"*a??????", "{nginx,postgresql,redis,memcached}*.service",
	"user.slice/user-*.slice/**",
};

struct info_case {
	const char *pat;
	int literal, depth;
	const char *path;
};

static const struct info_case infos[] = {
	{ "/", 1, 0, "" },
	{ "system.slice/foo.service", 1, 2, "system.slice/foo.service" },
	{ "/a/b/", 1, 2, "a/b" },
	{ "a\\*b/c", 1, 2, "a*b/c" },
	{ "a*", 0, 1, NULL },
	{ "a/?", 0, 2, NULL },
	{ "a/[x]", 0, 2, NULL },
	{ "{a,b}", 0, 1, NULL },
	{ "a/**/b", 0, -1, NULL },
};

static void test_matches(void)
{
	char what[64];

	for (size_t i = 0; i < sizeof(matches) / sizeof(matches[0]); i++) {
		const char *pat = matches[i].pat, *path = matches[i].path;
		int e = cg2_match_string(pat, path, false);
		int s = cg2_match_string(pat, path, true);

		if (cg2_validate(pat, strlen(pat), 2047, NULL,
				 cg2_user_work()) != CG2_OK) {
			report(0, "valid", pat, "(rejected)");
			continue;
		}
		snprintf(what, sizeof(what), "exact=%d", matches[i].exact);
		report(e == matches[i].exact, what, pat, path);
		snprintf(what, sizeof(what), "subtree=%d", matches[i].subtree);
		report(s == matches[i].subtree, what, pat, path);
	}
}

static void test_validation(void)
{
	char got[128];

	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		size_t off = ~(size_t)0;
		enum cg2_error err = cg2_validate(invalid[i].pat,
						  strlen(invalid[i].pat), 2047,
						  &off, cg2_user_work());

		snprintf(got, sizeof(got), "%s at %zu",
			 cg2_strerror(err), off);
		report(err == invalid[i].err && off == invalid[i].offset,
		       "invalid", invalid[i].pat, got);
	}
	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		enum cg2_error err = cg2_validate(valid[i], strlen(valid[i]),
						  2047, NULL, cg2_user_work());

		report(err == CG2_OK, "valid", valid[i], cg2_strerror(err));
	}
	/* Tables count against the budget: 128 rows of 3 bytes here. */
	snprintf(got, sizeof(got), "cost %u",
		 cg2_cost("*a??????", 8, cg2_user_work()));
	report(strcmp(got, "cost 12") == 0, "cost", "*a??????", got);
	/* Limits the kernel relies on: length and embedded NUL. */
	report(cg2_validate("abcd", 4, 3, NULL,
				  cg2_user_work()) == CG2_ERR_TOO_LONG,
	       "invalid", "abcd", "longer than 3");
	report(cg2_validate("abc", 3, 3, NULL, cg2_user_work()) == CG2_OK,
	       "valid", "abc", "exactly 3");
	report(cg2_validate("a\0b", 3, 10, NULL,
				  cg2_user_work()) == CG2_ERR_NUL,
	       "invalid", "a\\0b", "NUL inside");
	/* The kernel hands over exact lengths: never read past them. */
	{
		char *exact = malloc(2);
		size_t off = 9;

		memcpy(exact, "{v", 2);
		report(cg2_validate(exact, 2, 10, &off,
					  cg2_user_work()) == CG2_ERR_BRACE &&
		       off == 0, "invalid", "{v", "unterminated, no NUL after");
		free(exact);
	}
	report(strcmp(cg2_strerror(CG2_ERR_MAX), "has an unknown error") == 0,
	       "strerror", "CG2_ERR_MAX", "unknown");
}

static void test_info(void)
{
	char buf[256], what[64];

	for (size_t i = 0; i < sizeof(infos) / sizeof(infos[0]); i++) {
		const struct info_case *c = &infos[i];

		snprintf(what, sizeof(what), "literal=%d depth=%d",
			 c->literal, c->depth);
		report(cg2_is_literal(c->pat) == c->literal &&
		       cg2_depth(c->pat) == c->depth, what, c->pat, "");
		if (c->path) {
			cg2_literal_path(c->pat, buf, sizeof(buf));
			report(strcmp(buf, c->path) == 0, "literal_path",
			       c->pat, buf);
		}
	}
	/* Truncation still terminates and reports the full length. */
	report(cg2_literal_path("abcdef", buf, 4) == 6 &&
	       strcmp(buf, "abc") == 0, "literal_path", "abcdef", "truncated");
}

/*
 * The cost bound stated at the top of cgroup2_pattern.c, checked with the
 * engine's step counter on generated worst cases: the longest pattern of
 * each construct the state budget admits (grown until cg2_validate()
 * refuses it), after no prefix, "**" or a literal, against the deepest and
 * longest paths (255-byte names that keep every star alive).
 */
struct shape {
	unsigned int comps;	/* C */
	unsigned int names;	/* N: components other than "**" */
	unsigned int after;	/* M: components after the last "**" */
};

/* The shape of a test pattern: no escaped '/', no leading '/'. */
static struct shape shape_of(const char *pat)
{
	struct shape sh = { 0 };
	const char *p = pat, *e;

	for (; *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, "/");
		if (e == p)
			continue;
		sh.comps++;
		if (e - p == 2 && !strncmp(p, "**", 2)) {
			sh.after = 0;
			continue;
		}
		sh.names++;
		sh.after++;
	}
	return sh;
}

/* The bound stated at the top of cgroup2_pattern.c. */
static unsigned long stated_bound(const char *pat, unsigned int depth,
				  unsigned long bytes)
{
	struct shape sh = shape_of(pat);
	unsigned long reads = 0;

	if (depth > CG2_MAX_DEPTH)
		depth = CG2_MAX_DEPTH;
	if (depth + 1 > sh.after)
		reads = depth + 1 - sh.after;
	if (reads > sh.names)
		reads = sh.names;
	return reads * (bytes + 2 * depth) + 2 * sh.comps + depth + 2;
}

/* The longest "PREFIX UNIT UNIT ... SUFFIX" that is still valid. */
static void grow(char *out, size_t size, const char *prefix, const char *unit,
		 const char *suffix)
{
	char try[2 * CG2_MAX_PATTERN_LEN];
	size_t n = strlen(prefix);

	memcpy(out, prefix, n + 1);
	for (;;) {
		snprintf(try, sizeof(try), "%s%s%s", out, unit, suffix);
		if (strlen(try) >= size ||
		    cg2_validate(try, strlen(try), CG2_MAX_PATTERN_LEN,
				 NULL, cg2_user_work()) != CG2_OK)
			break;
		strcat(out, unit);
	}
	strcat(out, suffix);
}

/* NAMES components of LEN bytes of @c, joined by '/'. */
static char *make_path(unsigned int names, size_t len, char c)
{
	char *path = malloc(names * (len + 1) + 1), *p = path;

	for (unsigned int i = 0; i < names; i++) {
		memset(p, c, len);
		p += len;
		*p++ = '/';
	}
	p[path == p ? 0 : -1] = '\0';
	return path;
}

static double worst_ratio;

static void check_bound(const char *pat, unsigned int depth, size_t len,
			char c)
{
	char *path = make_path(depth, len, c), what[160], shown[48];
	unsigned long bound, per_byte;
	unsigned long states = cg2_cost(pat, strlen(pat), cg2_user_work());
	unsigned long bytes = depth * len + depth + 2;

	cg2_steps = 0;
	cg2_match_string(pat, path, true);
	bound = stated_bound(pat, depth,
			     (depth < CG2_MAX_DEPTH ? depth : CG2_MAX_DEPTH) * len);
	per_byte = cg2_steps / bytes;
	if ((double)cg2_steps / bytes > worst_ratio)
		worst_ratio = (double)cg2_steps / bytes;
	snprintf(what, sizeof(what),
		 "(%zu bytes) %u x %zu-byte names: %lu steps <= bound %lu (%lu a byte)",
		 strlen(pat), depth, len, cg2_steps, bound, per_byte);
	snprintf(shown, sizeof(shown), "%.40s%s", pat,
		 strlen(pat) > 40 ? "..." : "");
	report(states <= CG2_MAX_STATES && cg2_steps <= bound, "cost", shown,
	       what);
	free(path);
}

static void test_cost(void)
{
	static const char *const units[] = {
		"*a", "a*", "*?", "?", "[a-z]", "[!b]*", "{a,aa}", "{a,b}*",
		"*{a,b}", "{,a}", "{a*,*a}", "\\a", "a",
	};
	static const char *const prefixes[] = { "", "**/", "a/**/", "**/**/" };
	static const struct { unsigned int depth; size_t len; } paths[] = {
		{ 1, 255 }, { 3, 255 }, { 8, 255 }, { 64, 255 }, { 1000, 1 },
	};
	char pat[CG2_MAX_PATTERN_LEN + 1], what[64];

	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
		for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
			grow(pat, sizeof(pat), prefixes[p], units[u], "b");
			for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
				check_bound(pat, paths[i].depth, paths[i].len, 'a');
		}
	/* Many glob components, each against every path component. */
	grow(pat, sizeof(pat), "**", "/*a*", "/b");
	check_bound(pat, 64, 255, 'a');
	/* The same with no early verdict: every name read to its end. */
	grow(pat, sizeof(pat), "**", "/*a", "/b");
	check_bound(pat, 8, 200, 'a');
	check_bound(pat, 100, 200, 'a');
	/* Segments of every length after "**", alone and after another. */
	for (unsigned int k = 1; k <= 12; k++) {
		static const char *const heads[] = { "**", "**/*a/**", "*a/**" };

		for (size_t h = 0; h < sizeof(heads) / sizeof(heads[0]); h++) {
			snprintf(pat, sizeof(pat), "%s", heads[h]);
			for (unsigned int i = 0; i < k; i++)
				strcat(pat, "/*a");
			strcat(pat, "/b");
			for (unsigned int depth = 1; depth <= 16; depth++)
				check_bound(pat, depth, 50, 'a');
		}
	}
	snprintf(what, sizeof(what), "%.0f steps per path byte at most",
		 worst_ratio);
	/* At most 128 glob components, each reading every name once. */
	report(worst_ratio <= 2 * (CG2_MAX_STATES / 2) + 2,
	       "cost", "worst of all", what);
}

/*
 * The depth cap: a path deeper than CG2_MAX_DEPTH is judged as its
 * ancestor at that depth, with the work of that ancestor, however deep.
 */
static unsigned long steps_of(const struct cg2_prog *const *progs,
			      unsigned int n, const struct cg2_path *path,
			      bool *any)
{
	cg2_steps = 0;
	*any = false;
	for (unsigned int i = 0; i < n; i++)
		*any |= cg2_match_subtree(progs[i], path);
	return cg2_steps;
}

static unsigned long past_cap;	/* components read past the cap */

struct names {
	const char *top;	/* component 0, or NULL: @name too */
	const char *name;	/* every other component */
	const char *mark;	/* component @at, or NULL */
	unsigned int at;
};

static const char *names_component(const void *ctx, unsigned int i,
				   size_t *len)
{
	const struct names *nm = ctx;
	const char *s = nm->name;

	if (i == 0 && nm->top)
		s = nm->top;
	else if (nm->mark && i == nm->at)
		s = nm->mark;
	if (i >= CG2_MAX_DEPTH)
		past_cap++;
	*len = strlen(s);
	return s;
}

static void cap_steps(const char *what, const char *pat, unsigned int n,
		      const char *top, const char *name, unsigned long bound)
{
	static const unsigned int depths[] = { 100, 1000, 10000 };
	struct names nm = { top, name, NULL, 0 };
	struct cg2_path path = { names_component, &nm, CG2_MAX_DEPTH };
	struct cg2_prog *progs[64];
	unsigned long at_cap, steps;
	char msg[200];
	bool v_cap, v;

	for (unsigned int i = 0; i < n; i++)
		progs[i] = cg2_prog_new(pat);
	at_cap = steps_of((const struct cg2_prog *const *)progs, n, &path,
			  &v_cap);
	for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		path.depth = depths[d];
		steps = steps_of((const struct cg2_prog *const *)progs, n,
				 &path, &v);
		snprintf(msg, sizeof(msg),
			 "x %u at depth %u: %lu steps, as at depth %u (%lu), <= bound %lu",
			 n, depths[d], steps, CG2_MAX_DEPTH, at_cap, bound);
		report(steps == at_cap && v == v_cap && steps <= bound,
		       what, pat, msg);
	}
	for (unsigned int i = 0; i < n; i++)
		free(progs[i]);
}

static void test_depth_cap(void)
{
	static const char *const pats[] = {
		"**/x", "**/y", "a/**/y/**", "a/**/y/a", "a/**/y/x",
		"**/a", "a/**/a/x", "**/y/**/x", "*/**",
	};
	static const unsigned int deep[] = { 65, 100, 1000, 10000 };
	char worst[CG2_MAX_PATTERN_LEN + 1], fox[300], msg[120];
	struct names nm = { NULL, "a", "y", CG2_MAX_DEPTH - 1 };
	struct names xm = { NULL, "a", "x", 69 };
	struct cg2_path anc = { names_component, &nm, CG2_MAX_DEPTH };
	struct cg2_path path = { names_component, &nm, 0 };
	struct cg2_path xp = { names_component, &xm, 0 };
	unsigned long bound;

	/*
	 * a/a/.../y (the ancestor at depth 64)/a/.../x at depth 70 and more:
	 * every deeper path gets the ancestor's verdicts, exact and subtree;
	 * "x" at depth 70 is never seen.
	 */
	for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
		struct cg2_prog *prog = cg2_prog_new(pats[p]);
		bool e = cg2_match_exact(prog, &anc);
		bool t = cg2_match_subtree(prog, &anc);

		for (size_t d = 0; d < sizeof(deep) / sizeof(deep[0]); d++) {
			nm.mark = "y";
			xm.mark = "x";
			path.depth = xp.depth = deep[d];
			snprintf(msg, sizeof(msg),
				 "at depth %u: exact %d subtree %d, as its depth-%u ancestor",
				 deep[d], e, t, CG2_MAX_DEPTH);
			report(cg2_match_exact(prog, &path) == e &&
			       cg2_match_subtree(prog, &path) == t,
			       "depth cap", pats[p], msg);
			/* "x" past the cap, under no "y": as the all-"a" path */
			if (deep[d] > 70) {
				xm.mark = NULL;
				e = cg2_match_subtree(prog, &xp);
				xm.mark = "x";
				snprintf(msg, sizeof(msg),
					 "x at depth 70 of %u: not seen (subtree %d)",
					 deep[d], e);
				report(cg2_match_subtree(prog, &xp) == e,
				       "depth cap", pats[p], msg);
				e = cg2_match_exact(prog, &anc);
			}
		}
		free(prog);
	}
	/* The README's user.slice pattern, names that keep its glob reading. */
	snprintf(fox, sizeof(fox), "app-firefox-%0240d.scop", 0);
	bound = stated_bound("user.slice/**/app-firefox-*.scope", CG2_MAX_DEPTH,
			     CG2_MAX_DEPTH * strlen(fox));
	cap_steps("depth cap", "user.slice/**/app-firefox-*.scope", 1,
		  "user.slice", fox, bound);
	/* A rule of 56 patterns "**", "*a", "*a", "*X": 255-byte names */
	memset(fox, 'a', 255);
	fox[255] = '\0';
	bound = 56 * stated_bound("**/*a/*a/*X", CG2_MAX_DEPTH,
				  CG2_MAX_DEPTH * 255);
	cap_steps("depth cap", "**/*a/*a/*X", 56, NULL, fox, bound);
	/* The costliest single pattern: M = 32, half the cap, every name
	 * read to its end. */
	strcpy(worst, "**");
	for (int i = 0; i < CG2_MAX_DEPTH / 2; i++)
		strcat(worst, "/*a");
	strcat(worst, "/b");
	bound = stated_bound(worst, CG2_MAX_DEPTH, CG2_MAX_DEPTH * 255);
	cap_steps("depth cap", worst, 1, NULL, fox, bound);
	snprintf(msg, sizeof(msg), "%lu components read past depth %u",
		 past_cap, CG2_MAX_DEPTH);
	report(!past_cap, "depth cap", "all of the above", msg);
}

/* The automaton of the @n patterns @pats, packed as the kernel packs them. */
static struct cg2_dfa *dfa_of(const char *const *pats, unsigned int n,
			      unsigned int flags)
{
	char packed[8192];
	size_t at = 0;

	for (unsigned int i = 0; i < n; i++) {
		memcpy(packed + at, pats[i], strlen(pats[i]) + 1);
		at += strlen(pats[i]) + 1;
	}
	return cg2_dfa_new(packed, n, flags);
}

/* More of the grammar, each feature against '/' and the other names. */
static const struct {
	const char *pat, *path;
	int exact, subtree;
} dfa_matches[] = {
	{ "a?b", "a/b", 0, 0 },
	{ "a*b", "a/b", 0, 0 },
	{ "a[!x]b", "a/b", 0, 0 },
	{ "a[!x]b", "a-b", 1, 1 },
	{ "{x,y}z", "yz", 1, 1 },
	{ "{x,y}z", "xyz", 0, 0 },
	{ "{,x}z/q", "z/q/r", 0, 1 },
	{ "{a*,*b}", "zzb", 1, 1 },
	{ "\\*x", "*x", 1, 1 },
	{ "\\*x", "ax", 0, 0 },
	{ "[\\]]x", "]x", 1, 1 },
	{ "**", "", 1, 1 },
	{ "**", "a/b", 1, 1 },
	{ "a/**", "a", 1, 1 },
	{ "a/**", "ab", 0, 0 },
	{ "**/x", "ax", 0, 0 },
	{ "**/x", "a/x", 1, 1 },
	{ "**/x/**", "a/x/b", 1, 1 },
	{ "*/**/*", "a", 0, 0 },
	{ "*/**/*", "a/b", 1, 1 },
	{ "x**y", "xay", 1, 1 },
	{ "[\x80-\xff]", "\xe9", 1, 1 },
	{ "[\x80-\xff]", "e", 0, 0 },
};

static void dfa_check(const char *pat, const char *path, int exact,
		      int subtree)
{
	struct cg2_dfa *dfa = dfa_of(&pat, 1, CG2_DFA_ALWAYS);
	char what[64];

	if (!dfa) {
		report(0, "automaton", pat, "(not built)");
		return;
	}
	snprintf(what, sizeof(what), "automaton exact=%d subtree=%d", exact,
		 subtree);
	report(cg2_dfa_match_string(dfa, path, false) == exact &&
	       cg2_dfa_match_string(dfa, path, true) == subtree,
	       what, pat, path);
	free(dfa);
}

/* Every case of the per-pattern tables, and more grammar, as automata. */
static void test_dfa_matches(void)
{
	for (size_t i = 0; i < sizeof(matches) / sizeof(matches[0]); i++)
		dfa_check(matches[i].pat, matches[i].path, matches[i].exact,
			  matches[i].subtree);
	for (size_t i = 0; i < sizeof(dfa_matches) / sizeof(dfa_matches[0]); i++) {
		const char *pat = dfa_matches[i].pat, *path = dfa_matches[i].path;

		report(cg2_match_string(pat, path, false) == dfa_matches[i].exact &&
		       cg2_match_string(pat, path, true) == dfa_matches[i].subtree,
		       "program", pat, path);
		dfa_check(pat, path, dfa_matches[i].exact,
			  dfa_matches[i].subtree);
	}
}

/*
 * A rule matches when any of its patterns does; a single pattern that
 * reads each name once keeps its program (no automaton) unless asked.
 */
static void test_dfa_rules(void)
{
	static const char *const rule[] = {
		"system.slice/sshd.service", "user.slice/**/app-*.scope",
		"**/web.service", "kb.slice/x?.service",
	};
	static const struct { const char *path; int exact, subtree; } paths[] = {
		{ "system.slice/sshd.service", 1, 1 },
		{ "system.slice/sshd.service/x", 0, 1 },
		{ "system.slice", 0, 0 },
		{ "user.slice/user-1.slice/app-a.scope", 1, 1 },
		{ "user.slice/app-a.scope/app-b.scope/c", 0, 1 },
		{ "a/b/web.service", 1, 1 },
		{ "a/b/web.services", 0, 0 },
		{ "kb.slice/x1.service", 1, 1 },
		{ "kb.slice/x12.service", 0, 0 },
		{ "", 0, 0 },
	};
	static const char *const once[] = {
		"system.slice/sshd.service", "**/*z", "a/**/b/**/c", "*/x/*",
	};
	static const char *const twice[] = { "**/a/b", "user.slice/**/x/*" };
	struct cg2_dfa *dfa = dfa_of(rule, 4, 0);
	char what[80];

	for (size_t i = 0; dfa && i < sizeof(paths) / sizeof(paths[0]); i++) {
		snprintf(what, sizeof(what), "rule of 4, exact=%d subtree=%d",
			 paths[i].exact, paths[i].subtree);
		report(cg2_dfa_match_string(dfa, paths[i].path, false) ==
		       paths[i].exact &&
		       cg2_dfa_match_string(dfa, paths[i].path, true) ==
		       paths[i].subtree, what, rule[0], paths[i].path);
	}
	report(!!dfa, "automaton", rule[0], "and 3 more: built");
	free(dfa);
	for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++)
		report(cg2_dfa_build(once[i], 1, 0, cg2_user_dfa_work()) == 0,
		       "automaton", once[i],
		       "none: the program reads each name once");
	for (size_t i = 0; i < sizeof(twice) / sizeof(twice[0]); i++)
		report(cg2_dfa_build(twice[i], 1, 0, cg2_user_dfa_work()) != 0,
		       "automaton", twice[i],
		       "built: the program may read a name twice");
}

/*
 * Byte classes: every byte a name may hold, against a rule whose brackets
 * and bytes cut the byte range in overlapping pieces, agrees with the
 * patterns' own programs.
 */
static void test_dfa_classes(void)
{
	static const char *const rule[] = {
		"[a-f]x", "c*", "[!b-d]y", "*[\x7f-\xfe]", "\xff?", "[]-]z",
	};
	struct cg2_dfa *dfa = dfa_of(rule, 6, 0);
	unsigned int bad = 0, tried = 0;
	char path[3] = { 0, 0, 0 }, what[64];
	const char *tails = "xyz\xff.";

	for (unsigned int c = 1; dfa && c < 256; c++) {
		if (c == '/')
			continue;
		for (const char *t = tails; *t; t++) {
			int any = 0;

			path[0] = c;
			path[1] = *t;
			for (size_t i = 0; i < 6; i++)
				any |= cg2_match_string(rule[i], path, false);
			bad += cg2_dfa_match_string(dfa, path, false) != any;
			tried++;
		}
	}
	snprintf(what, sizeof(what), "%u of %u two-byte names disagree",
		 bad, tried);
	report(dfa && !bad && tried == 254 * 5, "byte classes", rule[0], what);
	free(dfa);
}

/*
 * Budgets: the exponential family in one rule goes past the states, and
 * the rule keeps its programs; a rule of real service patterns stays far
 * below.
 */
static void test_dfa_budget(void)
{
	static const char *const blowup[] = {
		"*a??????", "*b??????", "*c??????",
	};
	static const char *const real[] = {
		"system.slice/*.service", "user.slice/user-*.slice/**",
		"user.slice/**/app-firefox-*.scope", "**/docker-*.scope",
		"machine.slice/{libvirt,qemu}-*.scope", "system.slice/sshd.service",
	};
	struct cg2_dfa *dfa;
	char what[80];
	size_t size;

	for (size_t i = 0; i < 3; i++)
		report(cg2_validate(blowup[i], strlen(blowup[i]), 255, NULL,
				    cg2_user_work()) == CG2_OK,
		       "valid", blowup[i], "(2^7 states alone)");
	size = cg2_dfa_build("*a??????\0*b??????\0*c??????", 3, 0,
			     cg2_user_dfa_work());
	report(size == 0, "automaton budget", "*a?????? *b?????? *c??????",
	       "none: more than CG2_DFA_MAX_STATES states");
	dfa = dfa_of(blowup, 2, 0);
	snprintf(what, sizeof(what), "two of them: %u states",
		 dfa ? cg2_dfa_states(dfa) : 0);
	report(dfa && cg2_dfa_states(dfa) <= CG2_DFA_MAX_STATES,
	       "automaton budget", blowup[0], what);
	free(dfa);
	dfa = dfa_of(real, 6, 0);
	snprintf(what, sizeof(what), "6 service patterns: %u states, %zu bytes",
		 dfa ? cg2_dfa_states(dfa) : 0, dfa ? cg2_dfa_size(dfa) : 0);
	report(dfa && cg2_dfa_states(dfa) < 200, "automaton budget", real[0],
	       what);
	free(dfa);
}

/*
 * The kernel's worst_rule: two patterns whose every state stays alive on
 * "a"s, so each row holds hundreds of NFA states and the row pool runs
 * out.  Once it did silently (the budget flag was read before it was
 * set): a 1,151-state automaton that matched nothing.  Whatever is built
 * must agree with the programs; this rule must be refused.
 */
static void test_dfa_pool(void)
{
	char w1[300] = "**/", w2[300] = "**/", packed[600], path[700];
	const char *pats[2] = { w1, w2 };
	char a[201], b[201], c[201];
	struct cg2_dfa *dfa;
	int bad = 0;

	for (int i = 0; i < 127; i++) {
		strcat(w1, "*?");
		strcat(w2, "*a");
	}
	strcat(w1, "b");
	strcat(w2, "c");
	memset(a, 'a', 200);
	a[200] = b[200] = c[200] = '\0';
	memcpy(b, a, 200);
	memcpy(c, a, 200);
	b[199] = 'b';
	c[199] = 'c';
	b[190] = c[190] = 'i';
	memcpy(packed, w1, strlen(w1) + 1);
	memcpy(packed + strlen(w1) + 1, w2, strlen(w2) + 1);
	report(cg2_dfa_build(packed, 2, 0, cg2_user_dfa_work()) == 0,
	       "automaton budget", "worst_rule's two patterns",
	       "none: its rows need more than the pool of NFA states");
	for (int p = 0; p < 2; p++) {
		dfa = dfa_of(&pats[p], 1, CG2_DFA_ALWAYS);
		for (int n = 0; dfa && n < 27; n++) {
			const char *names[3] = { a, b, c };

			snprintf(path, sizeof(path), "w/%s/%s", names[n / 9 % 3],
				 names[n / 3 % 3]);
			if (n % 3)
				snprintf(path, sizeof(path), "%s", names[n % 3]);
			bad += cg2_dfa_match_string(dfa, path, true) !=
			       cg2_match_string(pats[p], path, true);
		}
		report(dfa && !bad, "automaton budget", p ? "**/127 x *a, c" :
		       "**/127 x *?, b", "built alone, as the program");
		free(dfa);
	}
}

/* The depth cap, as the programs: a deeper path is judged at depth 64. */
static void test_dfa_depth_cap(void)
{
	static const char *const pats[] = {
		"**/x", "**/y", "a/**/y/**", "a/**/y/a", "a/**/y/x",
		"**/a", "a/**/a/x", "**/y/**/x", "*/**",
	};
	static const unsigned int deep[] = { 64, 65, 100, 1000, 10000 };
	struct names nm = { NULL, "a", "y", CG2_MAX_DEPTH - 1 };
	struct names xm = { NULL, "a", "x", 69 };
	struct cg2_path path = { names_component, &nm, 0 };
	struct cg2_path xp = { names_component, &xm, 0 };
	char msg[120];

	past_cap = 0;
	for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
		struct cg2_dfa *dfa = dfa_of(&pats[p], 1, CG2_DFA_ALWAYS);
		struct cg2_prog *prog = cg2_prog_new(pats[p]);

		for (size_t d = 0; dfa && d < sizeof(deep) / sizeof(deep[0]); d++) {
			path.depth = xp.depth = deep[d];
			snprintf(msg, sizeof(msg),
				 "automaton at depth %u: as the program", deep[d]);
			report(cg2_dfa_match_exact(dfa, &path) ==
			       cg2_match_exact(prog, &path) &&
			       cg2_dfa_match_subtree(dfa, &path) ==
			       cg2_match_subtree(prog, &path) &&
			       cg2_dfa_match_subtree(dfa, &xp) ==
			       cg2_match_subtree(prog, &xp) &&
			       cg2_dfa_match_exact(dfa, &xp) ==
			       cg2_match_exact(prog, &xp),
			       "depth cap", pats[p], msg);
		}
		report(!!dfa, "depth cap", pats[p], "automaton built");
		free(dfa);
		free(prog);
	}
	snprintf(msg, sizeof(msg), "%lu components read past depth %u",
		 past_cap, CG2_MAX_DEPTH);
	report(!past_cap, "depth cap", "automata", msg);
}

static double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/*
 * The costliest accepted rules (tests/bench/lib.sh WIDE: 64 x "**" "*X" at
 * depth 2, 56 x "**" "*a" "*a" "*X" at 8, the latter at 64 too) over
 * kbench's first-judgement paths: a short name, then 200-byte names of
 * "a" ending in a digit.  Steps and CPU time of the programs one by one,
 * then of the rule's automaton, which must read one entry per byte and
 * one per name: at most L + D + 1 steps.
 */
static void wide_rule(char *const *pats, unsigned int n, unsigned int depth)
{
	static char name[201];
	struct names nm = { "k1", name, NULL, 0 };
	struct cg2_path path = { names_component, &nm, depth };
	struct cg2_prog *progs[64];
	struct cg2_dfa *dfa = dfa_of((const char *const *)pats, n, 0);
	unsigned long prog_steps, dfa_steps, bytes;
	double t0, t_prog, t_dfa;
	bool any = false, dfa_any;
	char what[200];
	int reps = 200;

	memset(name, 'a', 199);
	name[199] = '7';
	bytes = strlen("k1") + (depth - 1) * 200;
	for (unsigned int i = 0; i < n; i++)
		progs[i] = cg2_prog_new(pats[i]);
	prog_steps = steps_of((const struct cg2_prog *const *)progs, n, &path,
			      &any);
	t0 = cpu_us();
	for (int r = 0; r < reps; r++)
		steps_of((const struct cg2_prog *const *)progs, n, &path, &any);
	t_prog = (cpu_us() - t0) / reps;
	cg2_steps = 0;
	dfa_any = dfa && cg2_dfa_match_subtree(dfa, &path);
	dfa_steps = cg2_steps;
	t0 = cpu_us();
	for (int r = 0; dfa && r < reps; r++)
		cg2_dfa_match_subtree(dfa, &path);
	t_dfa = (cpu_us() - t0) / reps;
	snprintf(what, sizeof(what),
		 "x %u at depth %u (%lu name bytes): programs %lu steps %.1f us, automaton (%u states, %zu bytes) %lu steps %.2f us",
		 n, depth, bytes, prog_steps, t_prog,
		 dfa ? cg2_dfa_states(dfa) : 0, dfa ? cg2_dfa_size(dfa) : 0,
		 dfa_steps, t_dfa);
	report(dfa && dfa_any == any && dfa_steps <= bytes + depth + 1,
	       "one pass", pats[0], what);
	for (unsigned int i = 0; i < n; i++)
		free(progs[i]);
	free(dfa);
}

static void test_one_pass(void)
{
	static const char ends[] = "bcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_@+=~%^:.,#&";
	static const unsigned int depths[] = { 2, 8, 64 };
	char *pats[64];

	for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		unsigned int n = depths[d] == 2 ? 64 : 56;

		for (unsigned int i = 0; i < n; i++) {
			pats[i] = malloc(32);
			snprintf(pats[i], 32, "**%s/*%c",
				 depths[d] == 2 ? "" : "/*a/*a", ends[i]);
		}
		wide_rule(pats, n, depths[d]);
		for (unsigned int i = 0; i < n; i++)
			free(pats[i]);
	}
}

int main(void)
{
	test_matches();
	test_validation();
	test_info();
	test_cost();
	test_depth_cap();
	test_dfa_matches();
	test_dfa_rules();
	test_dfa_classes();
	test_dfa_budget();
	test_dfa_pool();
	test_dfa_depth_cap();
	test_one_pass();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
