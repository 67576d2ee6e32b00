// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The cgroup2 pattern engine (see cgroup2_pattern.h for the syntax).
 *
 * Compiled unchanged into the kernel module and into userspace, so it uses
 * nothing but memcmp()/memset(), allocates nothing and recurses nowhere:
 * the matcher runs in softirq context on the first packet of a cgroup.
 *
 * cg2_compile() turns a pattern, once and in the control path, into
 * components of three kinds: a literal name (escapes removed), "**", or a
 * glob compiled to a Thompson NFA in which every epsilon edge points
 * forward: bracket expressions become 256-bit sets, brace groups SPLIT and
 * JUMP states, a run of stars one STAR state.  A glob runs as the bitmap of
 * its live states, never by backtracking or by trying brace combinations:
 * for each byte of a name, every live state is visited at most twice (the
 * step, then the epsilon closure in one forward sweep).  Components are
 * matched by the wildcard algorithm that backtracks only to the last "**";
 * it tries each (pattern component, path component) pair at most once,
 * since every retry shifts the alignment of that "**" segment forward.
 *
 * Cost bound.  Let a pattern have C components, T literal bytes and S glob
 * states (each glob component counts its states plus one, its accepting
 * state; S <= CG2_MAX_STATES is enforced by cg2_validate()), and let a path
 * have D components whose names hold L bytes.  Matching takes at most
 *
 *	(2 * S + T + 3 * C + 2) * (L + D + 2)	steps:
 *
 * (C + 1) * (D + 2) turns of the component loop, at most 1 + t steps for
 * each of the D names a literal of t bytes meets, and for each name of m
 * bytes a glob of s states meets, s for the first closure and 2 * s + 1
 * for each byte (the step and the closure visit every live state once).
 * A step is a live state visited, a byte compared or a turn of the loop;
 * host test builds count them in cg2_steps, and tests/unit checks the
 * bound on generated worst cases.  With the limits (S <= 256, T <= 1023,
 * C <= 512) that is under 4,100 * (L + D + 2) for any pattern, and the
 * measured worst is far below it: nothing multiplies with the number of
 * braces, stars or bracket members.  A rule's cost is the sum over its
 * patterns.  The stack holds two 32-byte state bitmaps.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#else
#include <string.h>
#endif
#include "cgroup2_pattern.h"

#ifdef CG2_COUNT_STEPS
unsigned long cg2_steps;
#define CG2_STEP(n)	(cg2_steps += (n))
#else
#define CG2_STEP(n)	do { } while (0)
#endif

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
	[CG2_ERR_TOO_COMPLEX]		=
		"needs more than 256 matcher states (each byte, \"?\", \"*\" run or \"[...]\" of a glob component is one, each \",\" of a \"{...}\" two, each glob component one more)",
	[CG2_ERR_ESCAPE]		= "ends a component with a lone \"\\\"",
	[CG2_ERR_NUL]			= "contains a NUL byte",
	[CG2_ERR_CONTROL]		=
		"contains a control character, which iptables-save cannot write",
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

/* A 256-bit set of bytes: a compiled bracket expression. */
struct cg2_set {
	unsigned char bits[32];
};

static void cg2_set_range(struct cg2_set *set, unsigned char lo,
			  unsigned char hi)
{
	for (unsigned int c = lo; c <= hi; c++)
		set->bits[c >> 3] |= 1 << (c & 7);
}

static bool cg2_set_has(const struct cg2_set *set, unsigned char c)
{
	return set->bits[c >> 3] & (1 << (c & 7));
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
 * its ']' or NULL if unterminated; *@bad is set on a reversed range.  When
 * @set is given, it receives the bytes the expression accepts.
 */
static const char *cg2_bracket(const char *p, const char *end,
			       struct cg2_set *set, bool *bad)
{
	bool negate = false;
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
		if (set && lo <= hi)
			cg2_set_range(set, lo, hi);
	}
	if (q >= end)
		return NULL;
	if (set && negate)
		for (unsigned int i = 0; i < sizeof(set->bits); i++)
			set->bits[i] = ~set->bits[i];
	return q + 1;
}

static bool cg2_is_glob_char(char c)
{
	return c == '*' || c == '?' || c == '[' || c == '{';
}

/* Does the valid component [cs, ce) hold glob syntax (escapes aside)? */
static bool cg2_component_is_glob(const char *cs, const char *ce)
{
	for (const char *p = cs; p < ce; p++) {
		if (*p == '\\')
			p++;
		else if (cg2_is_glob_char(*p))
			return true;
	}
	return false;
}

/*
 * The compiled form.  A glob component's states are numbered from 0; state
 * n (its length) accepts.  SPLIT goes on to the next state and to @arg,
 * JUMP to @arg, STAR consumes any byte and stays, or goes on: every edge
 * that consumes nothing points forward.
 */
enum cg2_op {
	CG2_OP_BYTE,		/* @arg is the byte */
	CG2_OP_SET,		/* @arg indexes the sets */
	CG2_OP_ANY,		/* "?" */
	CG2_OP_STAR,		/* "*" (a run of them) */
	CG2_OP_SPLIT,		/* a "{" or ",": next state and @arg */
	CG2_OP_JUMP,		/* the end of an alternative: to @arg */
};

struct cg2_state {
	unsigned char op;
	unsigned short arg;
};

enum cg2_kind { CG2_LITERAL, CG2_GLOB, CG2_GLOBSTAR };

struct cg2_comp {
	unsigned char kind;
	unsigned short first;	/* literal: offset in text; glob: first state */
	unsigned short len;	/* literal: bytes; glob: states (accept excluded) */
};

/* Followed by comps[ncomps], states[nstates], sets[nsets], text[ntext]. */
struct cg2_prog {
	unsigned short size, ncomps, nstates, nsets, ntext;
};

static const struct cg2_comp *cg2_comps(const struct cg2_prog *prog)
{
	return (const struct cg2_comp *)(prog + 1);
}

static const struct cg2_state *cg2_states(const struct cg2_prog *prog)
{
	return (const struct cg2_state *)(cg2_comps(prog) + prog->ncomps);
}

static const struct cg2_set *cg2_sets(const struct cg2_prog *prog)
{
	return (const struct cg2_set *)(cg2_states(prog) + prog->nstates);
}

static const char *cg2_text(const struct cg2_prog *prog)
{
	return (const char *)(cg2_sets(prog) + prog->nsets);
}

/*
 * Compiles in two passes: one that only counts (the arrays are NULL), to
 * size the program and to price a pattern in cg2_validate(), then one that
 * writes.
 */
struct cg2_builder {
	struct cg2_comp *comps;
	struct cg2_state *states;
	struct cg2_set *sets;
	char *text;
	unsigned int ncomps, nstates, nsets, ntext, cost;
	unsigned int base;	/* first state of the glob being compiled */
};

static unsigned int cg2_emit(struct cg2_builder *b, enum cg2_op op,
			     unsigned int arg)
{
	if (b->states) {
		b->states[b->nstates].op = op;
		b->states[b->nstates].arg = arg;
	}
	return b->nstates++;
}

static void cg2_patch(struct cg2_builder *b, unsigned int state,
		      unsigned int arg)
{
	if (b->states)
		b->states[state].arg = arg;
}

static void cg2_add_comp(struct cg2_builder *b, enum cg2_kind kind,
			 unsigned int first, unsigned int len)
{
	if (b->comps) {
		b->comps[b->ncomps].kind = kind;
		b->comps[b->ncomps].first = first;
		b->comps[b->ncomps].len = len;
	}
	b->ncomps++;
}

/* The literal component [cs, ce), escapes removed. */
static void cg2_compile_literal(struct cg2_builder *b, const char *cs,
				const char *ce)
{
	unsigned int first = b->ntext;

	for (const char *p = cs; p < ce; p++) {
		if (*p == '\\')
			p++;
		if (b->text)
			b->text[b->ntext] = *p;
		b->ntext++;
	}
	cg2_add_comp(b, CG2_LITERAL, first, b->ntext - first);
}

/*
 * A brace group in progress: the SPLIT that opened the current alternative
 * and the chain of JUMPs (linked through their @arg, 1-based) that end the
 * alternatives, patched to the group's end at its "}".  Targets are stored
 * relative to the glob's first state, as the matcher numbers them.
 */
struct cg2_group {
	unsigned int split, jumps;
};

static void cg2_group_next(struct cg2_builder *b, struct cg2_group *g)
{
	g->jumps = cg2_emit(b, CG2_OP_JUMP, g->jumps) + 1;
	cg2_patch(b, g->split, b->nstates - b->base);
	g->split = cg2_emit(b, CG2_OP_SPLIT, 0);
}

static void cg2_group_end(struct cg2_builder *b, struct cg2_group *g)
{
	unsigned int j = g->jumps, next;

	/* The last alternative's SPLIT has nowhere else to go. */
	cg2_patch(b, g->split, g->split + 1 - b->base);
	while (b->states && j) {
		next = b->states[j - 1].arg;
		b->states[j - 1].arg = b->nstates - b->base;
		j = next;
	}
}

/* One token of a glob: a byte, an escape, "?", "*" or a bracket. */
static const char *cg2_compile_token(struct cg2_builder *b, const char *p,
				     const char *ce, bool *star)
{
	struct cg2_set *set = b->sets ? &b->sets[b->nsets] : NULL;
	bool was_star = *star, bad;

	*star = false;
	switch (*p) {
	case '\\':
		cg2_emit(b, CG2_OP_BYTE, (unsigned char)p[1]);
		return p + 2;
	case '?':
		cg2_emit(b, CG2_OP_ANY, 0);
		return p + 1;
	case '*':
		if (!was_star)	/* "**" inside a name is one "*" */
			cg2_emit(b, CG2_OP_STAR, 0);
		*star = true;
		return p + 1;
	case '[':
		if (set)
			memset(set, 0, sizeof(*set));
		cg2_emit(b, CG2_OP_SET, b->nsets++);
		return cg2_bracket(p, ce, set, &bad);
	default:
		cg2_emit(b, CG2_OP_BYTE, (unsigned char)*p);
		return p + 1;
	}
}

/* The valid glob component [cs, ce) as states of its own. */
static void cg2_compile_glob(struct cg2_builder *b, const char *cs,
			     const char *ce)
{
	struct cg2_group g = { 0, 0 };
	unsigned int first = b->nstates;
	bool in_group = false, star = false;
	const char *p = cs;

	b->base = first;
	while (p < ce) {
		if (*p == '{') {
			g.jumps = 0;
			g.split = cg2_emit(b, CG2_OP_SPLIT, 0);
			in_group = true;
		} else if (*p == ',' && in_group) {
			cg2_group_next(b, &g);
		} else if (*p == '}') {
			cg2_group_end(b, &g);
			in_group = false;
		} else {
			p = cg2_compile_token(b, p, ce, &star);
			continue;
		}
		star = false;
		p++;
	}
	cg2_add_comp(b, CG2_GLOB, first, b->nstates - first);
	b->cost += b->nstates - first + 1;
}

static void cg2_compile_component(struct cg2_builder *b, const char *cs,
				  const char *ce)
{
	if (cg2_is_globstar(cs, ce))
		cg2_add_comp(b, CG2_GLOBSTAR, 0, 0);
	else if (cg2_component_is_glob(cs, ce))
		cg2_compile_glob(b, cs, ce);
	else
		cg2_compile_literal(b, cs, ce);
}

/* Run @b over every component of the valid pattern; "/" has none. */
static void cg2_build(struct cg2_builder *b, const char *pat, size_t len)
{
	const char *p, *end, *ce;

	cg2_strip(pat, len, &p, &end);
	while (p < end) {
		const char *next = cg2_component(p, end, &ce);

		cg2_compile_component(b, p, ce);
		p = next;
	}
}

static size_t cg2_layout(struct cg2_builder *b, struct cg2_prog *prog)
{
	size_t size = sizeof(*prog) + b->ncomps * sizeof(struct cg2_comp) +
		      b->nstates * sizeof(struct cg2_state) +
		      b->nsets * sizeof(struct cg2_set) + b->ntext;

	size = (size + 1) & ~(size_t)1;
	if (prog) {
		prog->size = size;
		prog->ncomps = b->ncomps;
		prog->nstates = b->nstates;
		prog->nsets = b->nsets;
		prog->ntext = b->ntext;
	}
	return size;
}

size_t cg2_compile(const char *pat, size_t len, struct cg2_prog *prog,
		   size_t size)
{
	struct cg2_builder b = { 0 };
	size_t need;

	cg2_build(&b, pat, len);
	need = cg2_layout(&b, NULL);
	if (need > size)
		return need;
	cg2_layout(&b, prog);
	b = (struct cg2_builder){
		.comps = (struct cg2_comp *)cg2_comps(prog),
		.states = (struct cg2_state *)cg2_states(prog),
		.sets = (struct cg2_set *)cg2_sets(prog),
		.text = (char *)cg2_text(prog),
	};
	cg2_build(&b, pat, len);
	return need;
}

unsigned int cg2_cost(const char *pat, size_t len)
{
	struct cg2_builder b = { 0 };

	cg2_build(&b, pat, len);
	return b.cost;
}

size_t cg2_prog_size(const struct cg2_prog *prog)
{
	return prog->size;
}

static enum cg2_error cg2_validate_component(const char *cs, const char *ce,
					     const char *pat_end,
					     const char **where)
{
	bool in_brace = false, bad;
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
			q = cg2_bracket(p, ce, NULL, &bad);
			if (!q) {
				/* Would it close in a later component? */
				q = cg2_bracket(p, pat_end, NULL, &bad);
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
			in_brace = true;
			break;
		case '}':
			if (!in_brace)
				return CG2_ERR_STRAY_BRACE;
			in_brace = false;
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

/* Bytes that no pattern may hold: NUL, and what iptables-save mangles. */
static enum cg2_error cg2_check_bytes(const char *pat, size_t len,
				      const char **where)
{
	for (const char *p = pat; p < pat + len; p++) {
		*where = p;
		if (*p == '\0')
			return CG2_ERR_NUL;
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			return CG2_ERR_CONTROL;
	}
	return CG2_OK;
}

/* Syntax of each component, then the price of the whole. */
static enum cg2_error cg2_check_components(const char *pat, size_t len,
					   const char **where)
{
	struct cg2_builder b = { 0 };
	const char *p, *end, *ce;
	enum cg2_error err;

	if (len == 1 && pat[0] == '/')
		return CG2_OK;	/* the root */
	cg2_strip(pat, len, &p, &end);
	for (;;) {
		const char *next = cg2_component(p, end, &ce);

		*where = p;
		if (ce == p)
			return CG2_ERR_EMPTY_COMPONENT;
		err = cg2_validate_component(p, ce, end, where);
		if (err != CG2_OK)
			return err;
		cg2_compile_component(&b, p, ce);
		if (b.cost > CG2_MAX_STATES) {
			*where = p;
			return CG2_ERR_TOO_COMPLEX;
		}
		if (ce == end)
			return CG2_OK;
		p = next;
	}
}

enum cg2_error cg2_validate(const char *pat, size_t len, size_t max_len,
			    size_t *offset)
{
	const char *where = pat;
	enum cg2_error err;

	if (max_len > CG2_MAX_PATTERN_LEN)
		max_len = CG2_MAX_PATTERN_LEN;
	if (len == 0) {
		err = CG2_ERR_EMPTY;
	} else if (len > max_len) {
		where = pat + max_len;
		err = CG2_ERR_TOO_LONG;
	} else {
		err = cg2_check_bytes(pat, len, &where);
		if (err == CG2_OK)
			err = cg2_check_components(pat, len, &where);
	}
	if (offset)
		*offset = where - pat;
	return err;
}

/* Live states of one glob component: bit i for state i. */
#define CG2_WORDS	(CG2_MAX_STATES / 64)

/* Add state @t (> the state being visited) to @set, and to @todo in word @w. */
static void cg2_add(unsigned long long *set, unsigned long long *todo,
		    unsigned int w, unsigned int t)
{
	unsigned long long bit = 1ULL << (t % 64);

	set[t / 64] |= bit;
	if (t / 64 == w)
		*todo |= bit;
}

/* Follow the edges that consume nothing: one forward sweep suffices. */
static void cg2_closure(const struct cg2_state *st, unsigned int n,
			unsigned long long *set)
{
	unsigned long long todo;
	unsigned int w, i;

	for (w = 0; w <= n / 64; w++) {
		todo = set[w];
		while (todo) {
			i = w * 64 + __builtin_ctzll(todo);
			todo &= todo - 1;
			CG2_STEP(1);
			if (i == n)
				return;
			if (st[i].op == CG2_OP_SPLIT) {
				cg2_add(set, &todo, w, i + 1);
				cg2_add(set, &todo, w, st[i].arg);
			} else if (st[i].op == CG2_OP_JUMP) {
				cg2_add(set, &todo, w, st[i].arg);
			} else if (st[i].op == CG2_OP_STAR) {
				cg2_add(set, &todo, w, i + 1);
			}
		}
	}
}

static bool cg2_consumes(const struct cg2_prog *prog,
			 const struct cg2_state *s, unsigned char c)
{
	switch (s->op) {
	case CG2_OP_BYTE:
		return s->arg == c;
	case CG2_OP_SET:
		return cg2_set_has(&cg2_sets(prog)[s->arg], c);
	case CG2_OP_ANY:
	case CG2_OP_STAR:
		return true;
	default:
		return false;
	}
}

/* The live states after byte @c; false when none is left. */
static bool cg2_step(const struct cg2_prog *prog, const struct cg2_state *st,
		     unsigned int n, const unsigned long long *cur,
		     unsigned long long *next, unsigned char c)
{
	unsigned long long todo, any = 0;
	unsigned int w, i;

	memset(next, 0, (n / 64 + 1) * sizeof(*next));
	for (w = 0; w <= n / 64; w++) {
		for (todo = cur[w]; todo; todo &= todo - 1) {
			i = w * 64 + __builtin_ctzll(todo);
			CG2_STEP(1);
			if (i == n || !cg2_consumes(prog, &st[i], c))
				continue;
			/* A star consumes and stays; its closure goes on. */
			i += st[i].op != CG2_OP_STAR;
			next[i / 64] |= 1ULL << (i % 64);
			any = 1;
		}
	}
	if (any)
		cg2_closure(st, n, next);
	return any;
}

static bool cg2_glob_match(const struct cg2_prog *prog,
			   const struct cg2_comp *comp, const char *s,
			   size_t len)
{
	const struct cg2_state *st = cg2_states(prog) + comp->first;
	unsigned long long a[CG2_WORDS] = { 1 }, b[CG2_WORDS];
	unsigned long long *cur = a, *next = b, *t;
	unsigned int n = comp->len;

	cg2_closure(st, n, cur);
	for (size_t i = 0; i < len; i++) {
		CG2_STEP(1);
		if (!cg2_step(prog, st, n, cur, next, (unsigned char)s[i]))
			return false;
		t = cur;
		cur = next;
		next = t;
	}
	return cur[n / 64] >> (n % 64) & 1;
}

static bool cg2_comp_match(const struct cg2_prog *prog,
			   const struct cg2_comp *comp, const char *name,
			   size_t len)
{
	if (comp->kind == CG2_GLOB)
		return cg2_glob_match(prog, comp, name, len);
	CG2_STEP(1 + (comp->len == len ? len : 0));
	return comp->len == len && !memcmp(cg2_text(prog) + comp->first,
					   name, len);
}

static bool cg2_match(const struct cg2_prog *prog, const struct cg2_path *path,
		      bool subtree)
{
	const struct cg2_comp *comps = cg2_comps(prog);
	unsigned int pi = 0, si = 0, star_pi = 0, star_si = 0;
	bool star = false;
	const char *name;
	size_t len;

	for (;;) {
		CG2_STEP(1);
		if (pi == prog->ncomps) {
			if (subtree || si == path->depth)
				return true;
			goto backtrack;
		}
		if (comps[pi].kind == CG2_GLOBSTAR) {
			star = true;
			star_pi = ++pi;
			star_si = si;
			continue;
		}
		if (si < path->depth) {
			name = path->component(path->ctx, si, &len);
			if (cg2_comp_match(prog, &comps[pi], name, len)) {
				pi++;
				si++;
				continue;
			}
		}
backtrack:
		if (!star || star_si >= path->depth)
			return false;
		si = ++star_si;
		pi = star_pi;
	}
}

bool cg2_match_exact(const struct cg2_prog *prog, const struct cg2_path *path)
{
	return cg2_match(prog, path, false);
}

bool cg2_match_subtree(const struct cg2_prog *prog,
		       const struct cg2_path *path)
{
	return cg2_match(prog, path, true);
}

bool cg2_is_literal(const char *pat)
{
	for (const char *p = pat; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (cg2_is_glob_char(*p))
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
