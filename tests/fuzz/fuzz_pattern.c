// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Fuzz target and differential test of the pattern engine.
 *
 * Any bytes: cg2_validate() must not crash.  A valid pattern is matched
 * against paths and checked against an independent oracle: braces expanded
 * by string building, fnmatch(3) per component, plain recursion for "**"
 * (memoized), on the top CG2_MAX_DEPTH components of the path (a deeper
 * path is judged as its ancestor there); and the subtree match must equal
 * "the exact match of some prefix".
 *
 * Built with -fsanitize=fuzzer it is a libFuzzer target (make fuzz); built
 * plainly its main() runs a seeded, grammar-biased generator (make check).
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup2_pattern.h"
#include "cgroup2_user.h"

#define MAXC 128

static void die(const char *what, const char *pat, const char *path)
{
	fprintf(stderr, "FAIL %s: pattern \"%s\" path \"%s\"\n", what, pat, path);
	abort();
}

/* Split s at '/' into at most MAXC components; -1 when there are more. */
static int split(char *s, char **c)
{
	int n = 0;

	for (char *t = strtok(s, "/"); t; t = strtok(NULL, "/")) {
		if (n == MAXC)
			return -1;
		c[n++] = t;
	}
	return n;
}

static bool ref_glob(const char *pat, const char *name);

/* @memo[np][ns]: 0 unknown, 1 no, 2 yes (the suffixes of p and s) */
static bool ref_components(char **p, int np, char **s, int ns,
			   unsigned char (*memo)[MAXC + 1])
{
	bool r;

	if (np == 0)
		return ns == 0;
	if (memo[np][ns])
		return memo[np][ns] == 2;
	if (strcmp(p[0], "**") == 0)
		r = ref_components(p + 1, np - 1, s, ns, memo) ||
		    (ns && ref_components(p, np, s + 1, ns - 1, memo));
	else
		r = ns && ref_glob(p[0], s[0]) &&
		    ref_components(p + 1, np - 1, s + 1, ns - 1, memo);
	memo[np][ns] = r ? 2 : 1;
	return r;
}

/*
 * One component: expand its first brace group (escapes and brackets
 * respected) by building strings, recurse; fnmatch(3) the brace-free rest.
 */
static bool ref_glob(const char *pat, const char *name)
{
	char buf[512];
	const char *open = NULL, *close = NULL, *q;
	int depth = 0;

	for (q = pat; *q; q++) {
		if (*q == '\\' && q[1]) {
			q++;
		} else if (*q == '[') {
			const char *e = q + 1;

			if (*e == '!' || *e == '^')
				e++;
			if (*e == ']')
				e++;
			while (*e && *e != ']')
				e += (*e == '\\' && e[1]) ? 2 : 1;
			if (*e)
				q = e;
		} else if (*q == '{') {
			open = q;
			depth++;
		} else if (*q == '}' && depth) {
			close = q;
			break;
		}
	}
	if (open && close) {
		const char *a = open + 1;

		for (;;) {
			const char *e = a;

			while (e < close && *e != ',') {
				if (*e == '[') {
					const char *f = e + 1;

					if (*f == '!' || *f == '^')
						f++;
					if (*f == ']')
						f++;
					while (f < close && *f != ']')
						f += (*f == '\\') ? 2 : 1;
					e = f < close ? f + 1 : f;
				} else {
					e += (*e == '\\') ? 2 : 1;
				}
			}
			snprintf(buf, sizeof(buf), "%.*s%.*s%s", (int)(open - pat),
				 pat, (int)(e - a), a, close + 1);
			if (ref_glob(buf, name))
				return true;
			if (e >= close)
				return false;
			a = e + 1;
		}
	}
	return fnmatch(pat, name, 0) == 0;
}

/* "**" is a whole component of the pattern text, never a brace result. */
static bool ref_match(const char *pat, const char *path)
{
	char pbuf[512], sbuf[512], *pc[MAXC], *sc[MAXC];
	static unsigned char memo[MAXC + 1][MAXC + 1];
	int np, ns;

	snprintf(pbuf, sizeof(pbuf), "%s", pat);
	snprintf(sbuf, sizeof(sbuf), "%s", path);
	np = split(pbuf, pc);
	ns = split(sbuf, sc);
	if (ns > CG2_MAX_DEPTH)
		ns = CG2_MAX_DEPTH;
	memset(memo, 0, sizeof(memo));
	return ref_components(pc, np, sc, ns, memo);
}

static unsigned long dfas, dfa_rules, dfa_over;

/*
 * The rule automaton must agree with the pattern's own program (checked
 * against the oracle above): alone, and in a rule with the previous valid
 * pattern, where it matches when either does.
 */
static void check_rule(const char *pat, const char *path, int exact,
		       int subtree)
{
	static char prev[256];
	char rule[512];
	size_t n = strlen(prev);
	struct cg2_dfa *dfa = cg2_dfa_new(pat, 1, CG2_DFA_ALWAYS);

	if (dfa) {
		dfas++;
		if (cg2_dfa_match_string(dfa, path, false) != exact)
			die("automaton differs (exact)", pat, path);
		if (cg2_dfa_match_string(dfa, path, true) != subtree)
			die("automaton differs (subtree)", pat, path);
		free(dfa);
	} else {
		dfa_over++;
	}
	if (n) {
		memcpy(rule, prev, n + 1);
		memcpy(rule + n + 1, pat, strlen(pat) + 1);
		dfa = cg2_dfa_new(rule, 2, 0);
		if (dfa) {
			dfa_rules++;
			if (cg2_dfa_match_string(dfa, path, false) !=
			    (exact || cg2_match_string(prev, path, false)))
				die("rule automaton differs (exact)", rule, path);
			if (cg2_dfa_match_string(dfa, path, true) !=
			    (subtree || cg2_match_string(prev, path, true)))
				die("rule automaton differs (subtree)", rule, path);
			free(dfa);
		}
	}
	snprintf(prev, sizeof(prev), "%s", pat);
}

static void check_pair(const char *pat, const char *path)
{
	int exact = cg2_match_string(pat, path, false);
	int subtree = cg2_match_string(pat, path, true);
	char prefix[512];
	bool any = cg2_match_string(pat, "", false) == 1;
	size_t n;

	if (exact != ref_match(pat, path))
		die(exact ? "engine matches, oracle does not" :
			    "oracle matches, engine does not", pat, path);
	if (exact && !subtree)
		die("exact match without subtree match", pat, path);
	/* subtree == some prefix (including the empty one) matches exactly */
	for (n = 0; ; n++) {
		if (path[n] == '/' || path[n] == '\0') {
			snprintf(prefix, sizeof(prefix), "%.*s", (int)n, path);
			if (cg2_match_string(pat, prefix, false) == 1)
				any = true;
		}
		if (!path[n])
			break;
	}
	if (any != (subtree == 1))
		die("subtree differs from prefix matches", pat, path);
	check_rule(pat, path, exact, subtree);
}

/* ASCII, no POSIX [: [. [= (fnmatch has them, we do not), not too deep. */
static bool oracle_safe(const char *pat)
{
	int slashes = 0;

	for (const char *p = pat; *p; p++) {
		if ((unsigned char)*p >= 0x80 ||
		    (p[0] == '[' && p[1] && strchr(":.=", p[1])))
			return false;
		slashes += *p == '/';
	}
	return strlen(pat) < 200 && slashes < MAXC;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char pat[256], path[256];
	const uint8_t *sep = memchr(data, '\n', size);
	size_t plen = sep ? (size_t)(sep - data) : size;
	size_t slen = sep ? size - plen - 1 : 0;

	if (cg2_validate((const char *)data, plen, 255, NULL,
				  cg2_user_work()) != CG2_OK)
		return 0;
	memcpy(pat, data, plen);
	pat[plen] = '\0';
	if (slen >= sizeof(path) || (sep && memchr(sep + 1, '\0', slen)))
		return 0;
	if (sep)
		memcpy(path, sep + 1, slen);
	path[slen] = '\0';
	(void)cg2_depth(pat);
	(void)cg2_is_literal(pat);
	if (oracle_safe(pat) && oracle_safe(path))
		check_pair(pat, path);
	return 0;
}

#ifndef FUZZING_ENGINE
static const char *const ptok[] = {
	"a", "b", "ab", ".", "-", "@", "*", "?", "[ab]", "[!a]", "[a-b]", "[]a]",
	"{a,b}", "{,a}", "{a*,b}", "\\*", "\\a", "/", "/", "/", "**", ",", "}",
	"{", "[", "\\",
};
static const char *const stok[] = { "a", "b", "ab", "ba", "a.b", "-", "@", "*", "" };

static unsigned int rnd(unsigned long long *s, unsigned int n)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)(*s >> 33) % n;
}

int main(int argc, char **argv)
{
	unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
	unsigned long iters = argc > 2 ? strtoul(argv[2], NULL, 0) : 200000;
	unsigned long valid = 0;
	char in[600];

	for (unsigned long i = 0; i < iters; i++) {
		size_t n = 0;
		unsigned int k = 1 + rnd(&seed, 8);

		while (k--)
			n += snprintf(in + n, sizeof(in) - n, "%s",
				      ptok[rnd(&seed, sizeof(ptok) / sizeof(*ptok))]);
		in[n++] = '\n';
		for (k = rnd(&seed, 5); k--; )
			n += snprintf(in + n, sizeof(in) - n, "%s/",
				      stok[rnd(&seed, sizeof(stok) / sizeof(*stok))]);
		/* now and then a path around the depth cap, up to 100 deep */
		for (k = rnd(&seed, 128) ? 0 : 56 + rnd(&seed, 45); k--; )
			n += snprintf(in + n, sizeof(in) - n, "%s/",
				      stok[rnd(&seed, 2)]);
		valid += cg2_validate(in, strchr(in, '\n') - in, 255, NULL,
					  cg2_user_work()) == CG2_OK;
		LLVMFuzzerTestOneInput((const uint8_t *)in, n);
	}
	printf("PASS differential: %lu inputs, %lu valid patterns, seed %llu; automata: %lu of one pattern (%lu over budget), %lu of two\n",
	       iters, valid, argc > 1 ? strtoull(argv[1], NULL, 0) : 1,
	       dfas, dfa_over, dfa_rules);
	return 0;
}
#endif
