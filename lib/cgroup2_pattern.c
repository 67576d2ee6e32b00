// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The cgroup2 pattern engine (see cgroup2_pattern.h for the syntax).
 *
 * Compiled unchanged into the kernel module and into userspace, so it uses
 * nothing but strlen()/memcmp(), allocates nothing and recurses nowhere:
 * it runs in softirq context on the first packet of a cgroup.
 *
 * Matching works on the pattern text itself.  Both levels use the classic
 * wildcard algorithm that backtracks only to the last star, which is exact
 * when every other token matches exactly one element: "**" over components,
 * "*" over the bytes of one component.  Brace groups are handled by
 * trying each combination of alternatives (bounded by CG2_MAX_COMBOS at
 * validation), each being a plain glob.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#else
#include <string.h>
#endif
#include "cgroup2_pattern.h"

static const char *const cg2_errors[CG2_ERR_MAX] = {
	[CG2_OK]			= "is valid",
	[CG2_ERR_EMPTY]			= "is empty",
	[CG2_ERR_TOO_LONG]		= "is too long",
	[CG2_ERR_EMPTY_COMPONENT]	= "has an empty component (\"//\")",
	[CG2_ERR_DOT]			= "has a \".\" or \"..\" component",
	[CG2_ERR_BRACKET]		= "has an unterminated \"[\"",
	[CG2_ERR_SLASH_IN_BRACKET]	= "has a \"/\" inside \"[...]\"",
	[CG2_ERR_RANGE]			= "has a reversed range inside \"[...]\"",
	[CG2_ERR_BRACE]			= "has an unterminated \"{\"",
	[CG2_ERR_STRAY_BRACE]		= "has a \"}\" without \"{\"",
	[CG2_ERR_NESTED_BRACE]		= "has a \"{\" inside \"{...}\"",
	[CG2_ERR_SLASH_IN_BRACE]	= "has a \"/\" inside \"{...}\"",
	[CG2_ERR_TOO_MANY_GROUPS]	= "has more than 8 \"{...}\" groups in one component",
	[CG2_ERR_TOO_MANY_COMBOS]	=
		"has \"{...}\" groups that expand to more than 256 names in one component",
	[CG2_ERR_ESCAPE]		= "ends a component with a lone \"\\\"",
	[CG2_ERR_NUL]			= "contains a NUL byte",
};

const char *cg2_strerror(enum cg2_error err)
{
	if ((unsigned int)err >= CG2_ERR_MAX)
		return "has an unknown error";
	return cg2_errors[err];
}

/* The component [*cs, *ce) that starts at @p, and where the next one starts. */
static const char *cg2_component(const char *p, const char *end,
				 const char **ce)
{
	const char *q = p;

	while (q < end && *q != '/')
		q++;
	*ce = q;
	return q < end ? q + 1 : end;
}

/* Pattern text without its optional leading and trailing '/'. */
static void cg2_strip(const char *pat, size_t len, const char **start,
		      const char **end)
{
	const char *s = pat, *e = pat + len;

	if (s < e && *s == '/')
		s++;
	if (e > s && e[-1] == '/')
		e--;
	*start = s;
	*end = e;
}

static bool cg2_is_globstar(const char *cs, const char *ce)
{
	return ce - cs == 2 && cs[0] == '*' && cs[1] == '*';
}

/*
 * One member of a bracket expression at @p (an escaped or plain byte):
 * store it in @c and return what follows, or NULL at @end.
 */
static const char *cg2_bracket_char(const char *p, const char *end,
				    unsigned char *c)
{
	if (p < end && *p == '\\')
		p++;
	if (p >= end)
		return NULL;
	*c = (unsigned char)*p;
	return p + 1;
}

/*
 * Walk the bracket expression whose '[' is at @p.  Returns the byte after
 * its ']' or NULL if unterminated, and, when @ch is not negative, whether
 * the byte @ch is accepted; *@bad is set on a reversed range.
 */
static const char *cg2_bracket(const char *p, const char *end, int ch,
			       bool *hit, bool *bad)
{
	bool negate = false, found = false;
	unsigned char lo, hi;
	const char *q = p + 1;

	*bad = false;
	if (q < end && (*q == '!' || *q == '^')) {
		negate = true;
		q++;
	}
	/* A ']' first is a member, not the end. */
	for (bool first = true; q < end && (first || *q != ']'); first = false) {
		q = cg2_bracket_char(q, end, &lo);
		if (!q)
			return NULL;
		hi = lo;
		if (q + 1 < end && *q == '-' && q[1] != ']') {
			q = cg2_bracket_char(q + 1, end, &hi);
			if (!q)
				return NULL;
			if (hi < lo)
				*bad = true;
		}
		if (ch >= lo && ch <= hi)
			found = true;
	}
	if (q >= end)
		return NULL;
	*hit = found != negate;
	return q + 1;
}

/* Length of the token at @p: an escape, a bracket expression or a byte. */
static size_t cg2_token_len(const char *p, const char *end)
{
	bool hit, bad;
	const char *q;

	if (*p == '\\')
		return 2;
	if (*p == '[') {
		q = cg2_bracket(p, end, -1, &hit, &bad);
		if (q)
			return q - p;
	}
	return 1;
}

static enum cg2_error cg2_validate_component(const char *cs, const char *ce,
					     const char *pat_end,
					     const char **where)
{
	unsigned int groups = 0, alts = 0, combos = 1;
	bool in_brace = false, hit, bad;
	const char *p = cs, *q;

	if ((ce - cs == 1 && cs[0] == '.') ||
	    (ce - cs == 2 && cs[0] == '.' && cs[1] == '.')) {
		*where = cs;
		return CG2_ERR_DOT;
	}
	while (p < ce) {
		*where = p;
		switch (*p) {
		case '\\':
			if (p + 1 >= ce)
				return CG2_ERR_ESCAPE;
			p += 2;
			continue;
		case '[':
			q = cg2_bracket(p, ce, -1, &hit, &bad);
			if (!q) {
				/* Would it close in a later component? */
				q = cg2_bracket(p, pat_end, -1, &hit, &bad);
				return q ? CG2_ERR_SLASH_IN_BRACKET :
					   CG2_ERR_BRACKET;
			}
			if (bad)
				return CG2_ERR_RANGE;
			p = q;
			continue;
		case '{':
			if (in_brace)
				return CG2_ERR_NESTED_BRACE;
			if (++groups > CG2_MAX_GROUPS)
				return CG2_ERR_TOO_MANY_GROUPS;
			in_brace = true;
			alts = 1;
			break;
		case ',':
			if (in_brace)
				alts++;
			break;
		case '}':
			if (!in_brace)
				return CG2_ERR_STRAY_BRACE;
			in_brace = false;
			combos *= alts;
			if (combos > CG2_MAX_COMBOS)
				return CG2_ERR_TOO_MANY_COMBOS;
			break;
		}
		p++;
	}
	if (in_brace) {
		/* Back to the unclosed '{' for the offset; p is at ce. */
		do
			p--;
		while (*p != '{');
		*where = p;
		for (q = ce; q < pat_end; q++)
			if (*q == '}')
				return CG2_ERR_SLASH_IN_BRACE;
		return CG2_ERR_BRACE;
	}
	return CG2_OK;
}

enum cg2_error cg2_validate(const char *pat, size_t len, size_t max_len,
			    size_t *offset)
{
	const char *start, *end, *p, *ce, *where = pat;
	enum cg2_error err = CG2_OK;

	if (len == 0) {
		err = CG2_ERR_EMPTY;
		goto out;
	}
	if (len > max_len) {
		where = pat + max_len;
		err = CG2_ERR_TOO_LONG;
		goto out;
	}
	for (p = pat; p < pat + len; p++) {
		if (*p == '\0') {
			where = p;
			err = CG2_ERR_NUL;
			goto out;
		}
	}
	if (len == 1 && pat[0] == '/')
		goto out;	/* the root */
	cg2_strip(pat, len, &start, &end);
	for (p = start; ; ) {
		const char *next = cg2_component(p, end, &ce);

		if (ce == p) {
			where = p;
			err = CG2_ERR_EMPTY_COMPONENT;
			goto out;
		}
		err = cg2_validate_component(p, ce, end, &where);
		if (err != CG2_OK || ce == end)
			goto out;
		p = next;
	}
out:
	if (offset)
		*offset = where - pat;
	return err;
}

/*
 * A position in one component of a pattern with a fixed choice of brace
 * alternatives: @g is the index of the next group, @in tells whether @p is
 * inside the chosen alternative of group @g.
 */
struct cg2_cursor {
	const char *p;
	unsigned int g;
	bool in;
};

/* From @p inside a group, the ',' or '}' that ends the current alternative. */
static const char *cg2_alt_end(const char *p, const char *end)
{
	while (p < end && *p != ',' && *p != '}')
		p += cg2_token_len(p, end);
	return p;
}

/* Step over brace syntax until @c rests on a real token or at @end. */
static void cg2_settle(struct cg2_cursor *c, const char *end,
		       const unsigned char *choice)
{
	while (c->p < end) {
		if (*c->p == '{') {
			const char *q = c->p + 1;

			for (unsigned int k = choice[c->g]; k; k--)
				q = cg2_alt_end(q, end) + 1;
			c->p = q;
			c->in = true;
		} else if (c->in && (*c->p == ',' || *c->p == '}')) {
			const char *q = c->p;

			while (*q != '}')
				q = cg2_alt_end(q + 1, end);
			c->p = q + 1;
			c->in = false;
			c->g++;
		} else {
			return;
		}
	}
}

static void cg2_advance(struct cg2_cursor *c, const char *end,
			const unsigned char *choice)
{
	c->p += cg2_token_len(c->p, end);
	cg2_settle(c, end, choice);
}

static bool cg2_token_match(const char *p, const char *end, unsigned char ch)
{
	bool hit, bad;

	switch (*p) {
	case '?':
		return true;
	case '\\':
		return (unsigned char)p[1] == ch;
	case '[':
		if (cg2_bracket(p, end, ch, &hit, &bad))
			return hit;
		break;
	}
	return (unsigned char)*p == ch;
}

/* Glob [ps, pe) with the brace alternatives @choice against [s, se). */
static bool cg2_glob(const char *ps, const char *pe,
		     const unsigned char *choice, const char *s, const char *se)
{
	struct cg2_cursor c = { ps, 0, false }, star_c = c;
	const char *star_s = NULL;

	cg2_settle(&c, pe, choice);
	while (s < se) {
		if (c.p < pe && *c.p == '*') {
			while (c.p < pe && *c.p == '*')
				cg2_advance(&c, pe, choice);
			if (c.p == pe)
				return true;
			star_c = c;
			star_s = s;
			continue;
		}
		if (c.p < pe && cg2_token_match(c.p, pe, (unsigned char)*s)) {
			cg2_advance(&c, pe, choice);
			s++;
			continue;
		}
		if (!star_s)
			return false;
		c = star_c;
		s = ++star_s;
	}
	while (c.p < pe && *c.p == '*')
		cg2_advance(&c, pe, choice);
	return c.p == pe;
}

/* Does the pattern component [ps, pe) match the name [s, s + len)? */
static bool cg2_component_match(const char *ps, const char *pe,
				const char *s, size_t len)
{
	unsigned char choice[CG2_MAX_GROUPS] = { 0 };
	unsigned int alts[CG2_MAX_GROUPS];
	unsigned int groups = 0, g;
	bool in_brace = false;
	const char *p;

	for (p = ps; p < pe; p += cg2_token_len(p, pe)) {
		if (*p == '{') {
			alts[groups++] = 1;
			in_brace = true;
		} else if (*p == ',' && in_brace) {
			alts[groups - 1]++;
		} else if (*p == '}') {
			in_brace = false;
		}
	}
	/* Odometer over every combination of alternatives. */
	for (;;) {
		if (cg2_glob(ps, pe, choice, s, s + len))
			return true;
		for (g = 0; g < groups; g++) {
			if (++choice[g] < alts[g])
				break;
			choice[g] = 0;
		}
		if (g == groups)
			return false;
	}
}

static bool cg2_match(const char *pat, const struct cg2_path *path,
		      bool subtree)
{
	const char *pp, *end, *ce, *next, *star_pp = NULL;
	unsigned int si = 0, star_si = 0;
	const char *name;
	size_t len;

	cg2_strip(pat, strlen(pat), &pp, &end);
	for (;;) {
		if (pp == end) {
			if (subtree || si == path->depth)
				return true;
			goto backtrack;
		}
		next = cg2_component(pp, end, &ce);
		if (cg2_is_globstar(pp, ce)) {
			star_pp = next;
			star_si = si;
			pp = next;
			continue;
		}
		if (si < path->depth) {
			name = path->component(path->ctx, si, &len);
			if (cg2_component_match(pp, ce, name, len)) {
				pp = next;
				si++;
				continue;
			}
		}
backtrack:
		if (!star_pp || star_si >= path->depth)
			return false;
		si = ++star_si;
		pp = star_pp;
	}
}

bool cg2_match_exact(const char *pat, const struct cg2_path *path)
{
	return cg2_match(pat, path, false);
}

bool cg2_match_subtree(const char *pat, const struct cg2_path *path)
{
	return cg2_match(pat, path, true);
}

bool cg2_is_literal(const char *pat)
{
	for (const char *p = pat; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '*' || *p == '?' || *p == '[' || *p == '{')
			return false;
	}
	return true;
}

int cg2_depth(const char *pat)
{
	const char *p, *end, *ce;
	int depth = 0;

	cg2_strip(pat, strlen(pat), &p, &end);
	while (p < end) {
		const char *next = cg2_component(p, end, &ce);

		if (cg2_is_globstar(p, ce))
			return -1;
		depth++;
		p = next;
	}
	return depth;
}

size_t cg2_literal_path(const char *pat, char *buf, size_t size)
{
	const char *p, *end;
	size_t n = 0;

	cg2_strip(pat, strlen(pat), &p, &end);
	for (; p < end; p++) {
		if (*p == '\\' && p + 1 < end)
			p++;
		if (n + 1 < size)
			buf[n] = *p;
		n++;
	}
	if (size)
		buf[n < size ? n : size - 1] = '\0';
	return n;
}
