// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The cgroup2 pattern engine (see cgroup2_pattern.h for the syntax).
 *
 * Compiled unchanged into the kernel module and into userspace, so it uses
 * nothing but memcmp()/memcpy()/memset(), allocates nothing and recurses
 * nowhere: the matcher runs in softirq context on the first packet of a
 * cgroup.
 *
 * cg2_compile() turns a pattern, once and in the control path, into
 * components of three kinds: a literal name (escapes removed), "**", or a
 * glob.  A glob is first a Thompson NFA in which every epsilon edge points
 * forward (bracket expressions become 256-bit sets, brace groups SPLIT and
 * JUMP states, a run of stars one STAR state), then, by subset
 * construction, a DFA over byte classes: the packet path reads one table
 * entry per byte of a name, never backtracks and never tries brace
 * combinations.  Components are matched by the wildcard algorithm that
 * backtracks only to the last "**", and gives up on an alignment as soon as
 * the path has fewer components left than the rest of the pattern needs
 * (each component but "**" takes exactly one).
 *
 * A rule's patterns can also be compiled together, by cg2_dfa_build(),
 * into one DFA over the bytes of the whole path (a '/' after each name):
 * see "One automaton for a whole rule" below.
 *
 * Depth cap.  Only the top CG2_MAX_DEPTH (64) components of a path are
 * judged: a deeper cgroup gets the verdict of its ancestor at depth 64, so
 * D below is at most 64 and L at most 64 * 255 = 16,320 bytes, however
 * deep a tenant with a delegated subtree nests its cgroups.
 *
 * Cost bound.  Let a pattern have C components, N of them other than "**"
 * and M after its last "**" (M = N without one), and a path D components
 * (at most CG2_MAX_DEPTH) whose names hold L bytes.  Each name is read at
 * most
 *
 *	R = min(N, D - M + 1) times (never when D < M):
 *
 * no (pattern component, name) pair is tried twice, and the alignments
 * that read names start further right each time, none past D - M.
 * Reading a name of m bytes costs 2 + m steps (a literal compares only a
 * name of its own length; a glob reads a table entry per byte, and stops
 * early once the verdict is settled), and the component loop turns at most
 * 2 * C + D + 2 more times, so matching takes at most
 *
 *	R * (L + 2 * D) + 2 * C + D + 2	steps.
 *
 * The costliest pattern reads every name to its end with M near D / 2:
 * about D / 2 alignments read D / 2 names each.  With the cap, the worst
 * case no longer grows with the tree: at most 64 * (16,320 + 128) +
 * 2 * C + 66 steps, about 1.05M, for a pattern.  Measured with names of
 * 255 bytes (tests/unit, natively, CPU time): "**" then 32 components
 * "*a" then "b" takes 263k steps, 0.9 ms; a rule of 56 patterns "**",
 * "*a", "*a", "*X" (its 512 states) 2.68M steps, 9.8 ms, the same at
 * depth 64, 100, 1,000 and 10,000 (uncapped: 43M steps, 0.16 s, at
 * 1,000).  A step is a table entry read, a byte compared or a turn of
 * the loop; host test builds count them in cg2_steps, and tests/unit
 * checks the bound on generated worst cases.
 * Glob components cost at least two states of the budget (CG2_MAX_STATES),
 * so a pattern holds at most 128 of them, and literal components are at
 * most 1023 bytes in all: nothing multiplies with the number of braces,
 * stars or bracket members.  A rule's cost is the sum over its patterns.
 * The matcher keeps no bitmaps on the stack.
 *
 * Cost bound of a rule's automaton.  Whatever its patterns, a judgement
 * reads one table entry per byte of the top D <= 64 names and one per
 * name for its '/': at most L + D + 1 steps, 16,385 at the cap with
 * 255-byte names, and it stops at the first ancestor that matches or once
 * no pattern can match.  Measured (tests/unit, natively, CPU time, names
 * of 200 bytes under a short one): the costliest accepted rules, 64
 * patterns "**" "*X" at depth 2 and 56 patterns "**" "*a" "*a" "*X" at
 * depths 8 and 64, take 205, 1,411 and 12,667 steps (0.8, 3.7 and 35 us)
 * against 13,248, 56,840 and 690,312 steps (38, 143 and 1,860 us) when
 * each pattern's program runs in turn.  A rule without an automaton (past
 * its budget, or one pattern that reads each name once anyway) costs the
 * sum of its patterns' bounds above.  Building it, in the control path,
 * takes at most CG2_DFA_MAX_TABLE / 2 table entries, each a step of the
 * entry's row (at most CG2_DFA_MAX_NFA NFA states) and its closure over
 * the NFA (a mark per state, so each at most once): 6.6 ms natively for
 * the 56 patterns above, 1 ms to give up on 3 x "*X??????" (4^7 states).
 *
 * Compiling costs at most CG2_MAX_TABLE entries per pattern, each an NFA
 * step over at most CG2_MAX_STATES states and a hash lookup among the
 * known sets (1.8 ms natively for the costliest pattern a hill-climbing
 * search found); the tables it may write are bounded by the same budget
 * (see CG2_TABLE_PER_STATE).  It runs in a caller's work area, not on the
 * stack, once per pattern however often it is asked, and in the kernel
 * yields the CPU after each table row.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/string.h>
/* Compiling is control path work, bounded but not short: let others run. */
#define CG2_YIELD()	cond_resched()
#else
#define CG2_YIELD()	do { } while (0)
#include <assert.h>
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
	[CG2_ERR_TABLES]		=
		"compiles to more than 254 matcher states in a component or 8 KiB of matcher tables (a \"*\" followed by many \"?\" or \"[...]\", or a long glob of many different bytes, needs them)",
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
	/* Only in a rule's automaton, where '/' ends each name: */
	CG2_OP_SEP,		/* '/' */
	CG2_OP_NAMES,		/* "**": a name's first byte, or go on */
	CG2_OP_IN_NAME,		/* "**": more of that name, or '/' back */
	CG2_OP_ACCEPT,		/* state 0: a pattern matched */
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
	unsigned short need;	/* path components this one and the rest take */
};

/*
 * Followed by comps[ncomps]; then, when a component is a glob, classes[256]
 * and table[ntable]; then text[ntext].
 */
struct cg2_prog {
	unsigned short size, ncomps, nclasses, ntable, ntext;
};

static const struct cg2_comp *cg2_comps(const struct cg2_prog *prog)
{
	return (const struct cg2_comp *)(prog + 1);
}

static const unsigned char *cg2_classes(const struct cg2_prog *prog)
{
	return (const unsigned char *)(cg2_comps(prog) + prog->ncomps);
}

static const unsigned char *cg2_table(const struct cg2_prog *prog)
{
	return cg2_classes(prog) + (prog->ntable ? 256 : 0);
}

static const char *cg2_text(const struct cg2_prog *prog)
{
	return (const char *)(cg2_table(prog) + prog->ntable);
}

/*
 * Builds the NFA in two passes: one that only counts (the arrays are NULL),
 * to price a pattern before anything is written, then one that writes into
 * a struct cg2_work.
 */
struct cg2_builder {
	struct cg2_comp *comps;
	struct cg2_state *states;
	struct cg2_set *sets;
	char *text;
	unsigned short *at;	/* where each component starts in the pattern */
	unsigned int ncomps, nstates, nsets, ntext, cost;
	unsigned int base;	/* first state of the glob being compiled */
	unsigned int offset;	/* of the component being compiled */
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
		b->at[b->ncomps] = b->offset;
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

		b->offset = p - pat;
		cg2_compile_component(b, p, ce);
		p = next;
	}
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

/*
 * Subset construction.  Each glob component becomes a DFA over byte
 * classes (bytes that every bracket and byte of the pattern treats alike),
 * built once, here in the control path, by running the NFA on one byte of
 * each class from each set of live NFA states met.  A DFA state is a byte
 * in the table: 0 is dead, CG2_DFA_ALL "this name matches whatever
 * follows", k a row of the table.  Tables are refused, naming the
 * component, past CG2_MAX_DFA_STATES rows or CG2_MAX_TABLE bytes: the
 * sets of a "*" before many "?" double with each "?".
 */
#define CG2_WORDS		(CG2_MAX_STATES / 64)
#define CG2_MAX_COMPS		((CG2_MAX_PATTERN_LEN + 1) / 2)
#define CG2_MAX_DFA_STATES	254
#define CG2_DFA_ALL		255
#define CG2_MAX_TABLE		(CG2_MAX_STATES * CG2_TABLE_PER_STATE)
#define CG2_HASH_BITS		9	/* twice the rows: short chains */

/* A pattern being compiled: see CG2_WORK_SIZE. */
struct cg2_work {
	struct cg2_comp comps[CG2_MAX_COMPS];
	unsigned short at[CG2_MAX_COMPS];
	struct cg2_state states[CG2_MAX_STATES];
	struct cg2_set sets[CG2_MAX_STATES];
	char text[CG2_MAX_PATTERN_LEN];
	unsigned char classes[256];	/* byte -> class */
	unsigned char rep[256];		/* class -> one of its bytes */
	unsigned short split[2][256];	/* scratch of cg2_find_classes() */
	unsigned long long dstates[CG2_MAX_DFA_STATES][CG2_WORDS];
	unsigned char head[1 << CG2_HASH_BITS];	/* rows by hash, 1-based */
	unsigned char chain[CG2_MAX_DFA_STATES];	/* next row, same hash */
	unsigned char table[CG2_MAX_TABLE];
	unsigned int ncomps, nclasses, ntable, ntext, cost;
	/* The last pattern built, and its verdict: callers ask several times. */
	char built[CG2_MAX_PATTERN_LEN];
	unsigned int built_len, built_at, built_err;
	bool built_valid;
};

static_assert(sizeof(struct cg2_work) <= CG2_WORK_SIZE,
	      "CG2_WORK_SIZE is too small");

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

static bool cg2_consumes(const struct cg2_set *sets,
			 const struct cg2_state *s, unsigned char c)
{
	switch (s->op) {
	case CG2_OP_BYTE:
		return s->arg == c;
	case CG2_OP_SET:
		return cg2_set_has(&sets[s->arg], c);
	case CG2_OP_ANY:
	case CG2_OP_STAR:
		return true;
	default:
		return false;
	}
}

/* The live states after byte @c; false when none is left. */
static bool cg2_step(const struct cg2_work *w, const struct cg2_state *st,
		     unsigned int n, const unsigned long long *cur,
		     unsigned long long *next, unsigned char c)
{
	unsigned long long todo, any = 0;
	unsigned int k, i;

	memset(next, 0, CG2_WORDS * sizeof(*next));
	for (k = 0; k <= n / 64; k++) {
		for (todo = cur[k]; todo; todo &= todo - 1) {
			i = k * 64 + __builtin_ctzll(todo);
			if (i == n || !cg2_consumes(w->sets, &st[i], c))
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

/*
 * Split the bytes into classes: two bytes share one when every byte state
 * and bracket of the pattern consumes both or neither (partition
 * refinement, one state at a time).  This refines the @n classes by the
 * state @st, and returns how many there are then.
 */
static unsigned int cg2_refine(unsigned char *classes,
			       unsigned short (*split)[256],
			       const struct cg2_set *sets,
			       const struct cg2_state *st, unsigned int n)
{
	unsigned int c, in;

	if (st->op != CG2_OP_BYTE && st->op != CG2_OP_SET)
		return n;
	memset(split, 0xff, 2 * sizeof(*split));
	for (c = 0, n = 0; c < 256; c++) {
		in = cg2_consumes(sets, st, c);
		if (split[in][classes[c]] == 0xffff)
			split[in][classes[c]] = n++;
		classes[c] = split[in][classes[c]];
	}
	return n;
}

/* One byte of each class: the one the subset construction runs. */
static void cg2_class_reps(const unsigned char *classes, unsigned char *rep)
{
	for (unsigned int c = 256; c-- > 0;)
		rep[classes[c]] = c;
}

static void cg2_find_classes(struct cg2_work *w, unsigned int nstates)
{
	memset(w->classes, 0, sizeof(w->classes));
	w->nclasses = 1;
	for (unsigned int s = 0; s < nstates; s++)
		w->nclasses = cg2_refine(w->classes, w->split, w->sets,
					 &w->states[s], w->nclasses);
	cg2_class_reps(w->classes, w->rep);
}

static unsigned int cg2_hash(const unsigned long long *set)
{
	unsigned long long h = 0;

	for (unsigned int k = 0; k < CG2_WORDS; k++)
		h = (h ^ set[k]) * 0x9e3779b97f4a7c15ULL;
	return h >> (64 - CG2_HASH_BITS);
}

/*
 * The row of the live-state set @set among the @count known, or @count
 * when it is new (the caller checks the limits, then cg2_add_row()).
 */
static unsigned int cg2_find_row(struct cg2_work *w,
				 const unsigned long long *set,
				 unsigned int count)
{
	unsigned int h = cg2_hash(set), d;

	for (d = w->head[h]; d; d = w->chain[d - 1])
		if (!memcmp(w->dstates[d - 1], set, sizeof(w->dstates[0])))
			return d - 1;
	return count;
}

static void cg2_add_row(struct cg2_work *w, const unsigned long long *set,
			unsigned int row)
{
	unsigned int h = cg2_hash(set);

	memcpy(w->dstates[row], set, sizeof(w->dstates[0]));
	w->chain[row] = w->head[h];
	w->head[h] = row + 1;
}

static bool cg2_accepts(const unsigned long long *set, unsigned int n)
{
	return set[n / 64] >> (n % 64) & 1;
}

/*
 * An accepting row that leads only to itself matches whatever follows:
 * entries that lead to it become CG2_DFA_ALL, so the matcher stops there.
 */
static void cg2_mark_all(struct cg2_work *w, unsigned char *tab,
			 unsigned int rows)
{
	unsigned int width = w->nclasses + 1, d, k;

	for (d = 0; d < rows; d++) {
		for (k = 0; k < w->nclasses; k++)
			if (tab[d * width + k] != d + 1)
				break;
		if (k < w->nclasses || !tab[d * width + k])
			continue;
		for (k = 0; k < rows * width; k++)
			if (k % width != width - 1 && tab[k] == d + 1)
				tab[k] = CG2_DFA_ALL;
	}
}

/*
 * The DFA of glob component @comp, whose NFA is in @w, appended to the
 * table: a row per DFA state, an entry per byte class, then the row's
 * accepting flag.  @comp then holds the row offset and the row count.
 */
static enum cg2_error cg2_make_dfa(struct cg2_work *w, struct cg2_comp *comp)
{
	const struct cg2_state *st = w->states + comp->first;
	unsigned int n = comp->len, width = w->nclasses + 1;
	unsigned int count = 1, d, k, t;
	unsigned long long next[CG2_WORDS] = { 1 };
	unsigned char *tab = w->table + w->ntable;

	if (w->ntable + width > CG2_MAX_TABLE)
		return CG2_ERR_TABLES;
	memset(w->head, 0, sizeof(w->head));
	cg2_closure(st, n, next);
	cg2_add_row(w, next, 0);
	for (d = 0; d < count; d++) {
		for (k = 0; k < w->nclasses; k++) {
			t = 0;
			if (cg2_step(w, st, n, w->dstates[d], next, w->rep[k]))
				t = cg2_find_row(w, next, count) + 1;
			if (t > count) {
				if (count == CG2_MAX_DFA_STATES ||
				    w->ntable + (count + 1) * width >
				    CG2_MAX_TABLE)
					return CG2_ERR_TABLES;
				cg2_add_row(w, next, count++);
			}
			tab[d * width + k] = t;
		}
		tab[d * width + k] = cg2_accepts(w->dstates[d], n);
		CG2_YIELD();
	}
	cg2_mark_all(w, tab, count);
	comp->first = w->ntable;
	comp->len = count;
	w->ntable += count * width;
	return CG2_OK;
}

/*
 * Each component but "**" takes exactly one path component: the matcher
 * gives up on an alignment when the path has fewer left than the rest of
 * the pattern needs.
 */
static void cg2_count_needs(struct cg2_work *w)
{
	unsigned int i = w->ncomps, need = 0;

	while (i--) {
		need += w->comps[i].kind != CG2_GLOBSTAR;
		w->comps[i].need = need;
	}
}

/*
 * Compile the pattern, valid but for its price, into @w: its NFA, then the
 * DFA of each glob component.  On CG2_ERR_TABLES, *@where is the component.
 */
static enum cg2_error cg2_compile_work(const char *pat, size_t len,
				       struct cg2_work *w, const char **where)
{
	struct cg2_builder b = { 0 };
	enum cg2_error err;
	unsigned int i;

	cg2_build(&b, pat, len);
	if (b.cost > CG2_MAX_STATES || b.ncomps > CG2_MAX_COMPS ||
	    b.ntext > CG2_MAX_PATTERN_LEN)
		return CG2_ERR_TOO_COMPLEX;	/* cg2_validate() said so */
	b = (struct cg2_builder){ .comps = w->comps, .at = w->at,
				  .states = w->states, .sets = w->sets,
				  .text = w->text };
	cg2_build(&b, pat, len);
	w->ncomps = b.ncomps;
	cg2_count_needs(w);
	w->ntext = b.ntext;
	w->cost = b.cost;
	w->ntable = 0;
	cg2_find_classes(w, b.nstates);
	for (i = 0; i < w->ncomps; i++) {
		if (w->comps[i].kind != CG2_GLOB)
			continue;
		err = cg2_make_dfa(w, &w->comps[i]);
		if (err != CG2_OK) {
			*where = pat + w->at[i];
			return err;
		}
	}
	return CG2_OK;
}

/*
 * cg2_compile_work(), once per pattern: a kernel rule check validates,
 * prices and compiles (twice) each pattern, and the worst build costs
 * milliseconds.
 */
static enum cg2_error cg2_build_work(const char *pat, size_t len,
				     struct cg2_work *w, const char **where)
{
	const char *at = pat;

	if (len > CG2_MAX_PATTERN_LEN)
		return CG2_ERR_TOO_LONG;
	if (!w->built_valid || w->built_len != len ||
	    memcmp(w->built, pat, len)) {
		w->built_valid = false;
		w->built_err = cg2_compile_work(pat, len, w, &at);
		w->built_at = at - pat;
		w->built_len = len;
		memcpy(w->built, pat, len);
		w->built_valid = true;
	}
	*where = pat + w->built_at;
	return w->built_err;
}

static size_t cg2_layout(const struct cg2_work *w)
{
	size_t size = sizeof(struct cg2_prog) +
		      w->ncomps * sizeof(struct cg2_comp) +
		      (w->ntable ? 256 + w->ntable : 0) + w->ntext;

	return (size + 1) & ~(size_t)1;
}

/* Copy @n bytes to @out; returns what follows them. */
static char *cg2_put(char *out, const void *from, size_t n)
{
	memcpy(out, from, n);
	return out + n;
}

size_t cg2_compile(const char *pat, size_t len, struct cg2_prog *prog,
		   size_t size, struct cg2_work *w)
{
	const char *where;
	size_t need;
	char *out;

	if (cg2_build_work(pat, len, w, &where) != CG2_OK)
		return 0;
	need = cg2_layout(w);
	if (need > size)
		return need;
	prog->size = need;
	prog->ncomps = w->ncomps;
	prog->nclasses = w->nclasses;
	prog->ntable = w->ntable;
	prog->ntext = w->ntext;
	out = cg2_put((char *)(prog + 1), w->comps,
		      w->ncomps * sizeof(struct cg2_comp));
	if (w->ntable) {
		out = cg2_put(out, w->classes, sizeof(w->classes));
		out = cg2_put(out, w->table, w->ntable);
	}
	out = cg2_put(out, w->text, w->ntext);
	/* The even size's pad byte: a program is copied whole, pad too. */
	if (out < (char *)prog + need)
		*out = 0;
	return need;
}

unsigned int cg2_cost(const char *pat, size_t len, struct cg2_work *w)
{
	const char *where;
	unsigned int tables;

	if (cg2_build_work(pat, len, w, &where) != CG2_OK)
		return CG2_MAX_STATES + 1;
	tables = (w->ntable + CG2_TABLE_PER_STATE - 1) / CG2_TABLE_PER_STATE;
	return w->cost > tables ? w->cost : tables;
}

size_t cg2_prog_size(const struct cg2_prog *prog)
{
	return prog->size;
}

enum cg2_error cg2_validate(const char *pat, size_t len, size_t max_len,
			    size_t *offset, struct cg2_work *w)
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
		if (err == CG2_OK)
			err = cg2_build_work(pat, len, w, &where);
	}
	if (offset)
		*offset = where - pat;
	return err;
}

/*
 * Run the DFA of a glob component over @s: one table entry per byte, and
 * none once the name can no longer change the verdict.
 */
static bool cg2_glob_match(const struct cg2_prog *prog,
			   const struct cg2_comp *comp, const char *s,
			   size_t len)
{
	const unsigned char *classes = cg2_classes(prog);
	const unsigned char *tab = cg2_table(prog) + comp->first;
	unsigned int width = prog->nclasses + 1, q = 1;

	CG2_STEP(1);
	for (size_t i = 0; i < len; i++) {
		CG2_STEP(1);
		q = tab[(q - 1) * width + classes[(unsigned char)s[i]]];
		if ((unsigned char)(q - 1) >= CG2_DFA_ALL - 1)
			return q == CG2_DFA_ALL;
	}
	return tab[(q - 1) * width + width - 1];
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

/* Path components the pattern needs from component @pi on. */
static unsigned int cg2_need(const struct cg2_prog *prog, unsigned int pi)
{
	return pi < prog->ncomps ? cg2_comps(prog)[pi].need : 0;
}

static bool cg2_match(const struct cg2_prog *prog, const struct cg2_path *path,
		      bool subtree)
{
	const struct cg2_comp *comps = cg2_comps(prog);
	unsigned int pi = 0, si = 0, star_pi = 0, star_si = 0;
	unsigned int depth = path->depth;
	bool star = false;
	const char *name;
	size_t len;

	/* Deeper than the cap: judge the ancestor at the cap. */
	if (depth > CG2_MAX_DEPTH)
		depth = CG2_MAX_DEPTH;
	for (;;) {
		CG2_STEP(1);
		if (pi == prog->ncomps) {
			if (subtree || si == depth)
				return true;
			goto backtrack;
		}
		if (comps[pi].kind == CG2_GLOBSTAR) {
			star = true;
			star_pi = ++pi;
			star_si = si;
			continue;
		}
		/* Too few names left for the rest: read none of them. */
		if (si + comps[pi].need <= depth) {
			name = path->component(path->ctx, si, &len);
			if (cg2_comp_match(prog, &comps[pi], name, len)) {
				pi++;
				si++;
				continue;
			}
		}
backtrack:
		/* Alignments only move right: none left once one is too far. */
		if (!star || star_si + cg2_need(prog, star_pi) >= depth)
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

/*
 * One automaton for a whole rule.  The patterns of a rule become one NFA
 * over the bytes of the path, each name followed by a '/': a glob
 * component is its NFA above, with "*", "?" and brackets refusing '/'; a
 * literal one a state per byte; "**" a pair of states that read whole
 * names; each component but "**" ends with a state that reads the '/'.
 * Every pattern's end leads to state 0, which accepts.  Subset
 * construction over byte classes, at rule load, turns the union into a
 * DFA: a judgement then reads one table entry per byte of the top
 * CG2_MAX_DEPTH names, plus one per name for its '/', whatever the
 * patterns.  Budgets: CG2_DFA_MAX_STATES rows, CG2_DFA_MAX_TABLE bytes of
 * table, and the scratch sizes below; past any of them cg2_dfa_build()
 * answers 0 and the caller matches the patterns one by one.
 */

#define CG2_DFA_MAX_NFA		4096
#define CG2_DFA_MAX_SETS	512
#define CG2_DFA_POOL		(96 * 1024)	/* NFA states of all rows */
#define CG2_DFA_HASH_BITS	13
#define CG2_DFA_ENTRIES		(CG2_DFA_MAX_TABLE / 2)

struct cg2_dfa_work {
	struct cg2_state nfa[CG2_DFA_MAX_NFA];
	struct cg2_set sets[CG2_DFA_MAX_SETS];
	unsigned char classes[256];	/* byte -> class */
	unsigned char rep[256];		/* class -> one of its bytes */
	unsigned short split[2][256];
	unsigned long long mark[CG2_DFA_MAX_NFA / 64];
	unsigned short stack[CG2_DFA_MAX_NFA];
	unsigned short pool[CG2_DFA_POOL];	/* each row's NFA states */
	unsigned int row_at[CG2_DFA_MAX_STATES];
	unsigned short row_len[CG2_DFA_MAX_STATES];
	unsigned short head[1 << CG2_DFA_HASH_BITS];	/* rows, 1-based */
	unsigned short chain[CG2_DFA_MAX_STATES];
	unsigned char accept[CG2_DFA_MAX_STATES];
	unsigned short table[CG2_DFA_ENTRIES];
	unsigned int nnfa, nclasses, nrows, npool, nstack;
};

static_assert(sizeof(struct cg2_dfa_work) <= CG2_DFA_WORK_SIZE,
	      "CG2_DFA_WORK_SIZE is too small");

/*
 * Followed by accept[nrows] (padded to even), then table[nrows][nclasses]
 * of u16 rows: row 0 is dead, row 1 the start.
 */
struct cg2_dfa {
	unsigned int size;
	unsigned short nrows, nclasses;
	unsigned char classes[256];
};

static const unsigned char *cg2_dfa_accept(const struct cg2_dfa *dfa)
{
	return (const unsigned char *)(dfa + 1);
}

static const unsigned short *cg2_dfa_table(const struct cg2_dfa *dfa)
{
	return (const unsigned short *)(cg2_dfa_accept(dfa) +
					((dfa->nrows + 1) & ~1u));
}

/* Does the per-pattern matcher read each name of a path at most once? */
static bool cg2_reads_once(const char *pat, size_t len)
{
	const char *p, *end, *ce;
	bool star = false;
	unsigned int after = 0;

	cg2_strip(pat, len, &p, &end);
	while (p < end) {
		const char *next = cg2_component(p, end, &ce);

		if (cg2_is_globstar(p, ce)) {
			star = true;
			after = 0;
		} else if (star && ++after > 1) {
			return false;	/* backtracking reads names again */
		}
		p = next;
	}
	return true;
}

/* The NFA of one valid pattern, ending in a jump to state 0. */
static void cg2_nfa_pattern(struct cg2_builder *b, const char *pat,
			    size_t len)
{
	const char *p, *end, *ce;
	unsigned int first, i;

	cg2_strip(pat, len, &p, &end);
	while (p < end) {
		const char *next = cg2_component(p, end, &ce);

		if (cg2_is_globstar(p, ce)) {
			cg2_emit(b, CG2_OP_NAMES, 0);
			cg2_emit(b, CG2_OP_IN_NAME, 0);
			p = next;
			continue;
		}
		first = b->nstates;
		if (cg2_component_is_glob(p, ce)) {
			cg2_compile_glob(b, p, ce);
			/* Its epsilon targets were relative to its first state. */
			for (i = first; b->states && i < b->nstates; i++)
				if (b->states[i].op == CG2_OP_SPLIT ||
				    b->states[i].op == CG2_OP_JUMP)
					b->states[i].arg += first;
		} else {
			for (const char *q = p; q < ce; q++) {
				if (*q == '\\')
					q++;
				cg2_emit(b, CG2_OP_BYTE, (unsigned char)*q);
			}
		}
		cg2_emit(b, CG2_OP_SEP, 0);
		p = next;
	}
	cg2_emit(b, CG2_OP_JUMP, 0);
}

/*
 * The NFA of the @count patterns packed at @pats: state 0 accepts, then
 * each pattern behind a SPLIT that also leads to the next pattern's.
 * Once counting (no arrays), once writing; false when it does not fit.
 */
static bool cg2_nfa_rule(struct cg2_builder *b, const char *pats,
			 unsigned int count)
{
	unsigned int split;
	size_t n;

	cg2_emit(b, CG2_OP_ACCEPT, 0);
	for (unsigned int i = 0; i < count; i++, pats += n + 1) {
		n = strlen(pats);
		split = cg2_emit(b, CG2_OP_SPLIT, 0);
		cg2_nfa_pattern(b, pats, n);
		cg2_patch(b, split, i + 1 < count ? b->nstates : split + 1);
		if (b->nstates > CG2_DFA_MAX_NFA || b->nsets > CG2_DFA_MAX_SETS)
			return false;
	}
	return true;
}

static bool cg2_nfa_reads(const struct cg2_dfa_work *w,
			  const struct cg2_state *s, unsigned char c)
{
	switch (s->op) {
	case CG2_OP_SEP:
		return c == '/';
	case CG2_OP_NAMES:
	case CG2_OP_IN_NAME:
		return true;
	default:
		return c != '/' && cg2_consumes(w->sets, s, c);
	}
}

/* Where state @i goes on reading @c (it reads @c). */
static unsigned int cg2_nfa_target(const struct cg2_state *s, unsigned int i,
				   unsigned char c)
{
	switch (s->op) {
	case CG2_OP_STAR:
		return i;
	case CG2_OP_IN_NAME:
		return c == '/' ? i - 1 : i;
	default:
		return i + 1;
	}
}

static void cg2_nfa_add(struct cg2_dfa_work *w, unsigned int s)
{
	unsigned long long bit = 1ULL << (s % 64);

	if (w->mark[s / 64] & bit)
		return;
	w->mark[s / 64] |= bit;
	w->stack[w->nstack++] = s;
}

/* Close the marked set over the edges that read nothing. */
static void cg2_nfa_close(struct cg2_dfa_work *w)
{
	const struct cg2_state *s;
	unsigned int i;

	while (w->nstack) {
		i = w->stack[--w->nstack];
		s = &w->nfa[i];
		if (s->op == CG2_OP_SPLIT) {
			cg2_nfa_add(w, i + 1);
			cg2_nfa_add(w, s->arg);
		} else if (s->op == CG2_OP_JUMP) {
			cg2_nfa_add(w, s->arg);
		} else if (s->op == CG2_OP_STAR) {
			cg2_nfa_add(w, i + 1);
		} else if (s->op == CG2_OP_NAMES) {
			cg2_nfa_add(w, i + 2);
		}
	}
}

/* Bytes alike for every state that reads: '/' always a class of its own. */
static void cg2_dfa_classes(struct cg2_dfa_work *w)
{
	static const struct cg2_state slash = { CG2_OP_BYTE, '/' };

	memset(w->classes, 0, sizeof(w->classes));
	w->nclasses = cg2_refine(w->classes, w->split, w->sets, &slash, 1);
	for (unsigned int s = 0; s < w->nnfa; s++)
		w->nclasses = cg2_refine(w->classes, w->split, w->sets,
					 &w->nfa[s], w->nclasses);
	cg2_class_reps(w->classes, w->rep);
}

/*
 * Take the marked set (cleared on the way) as a sorted list of the states
 * that read or accept, at the end of the pool; its length.
 */
static unsigned int cg2_dfa_collect(struct cg2_dfa_work *w, bool *fits)
{
	unsigned int k, i, n = 0;
	unsigned long long m;
	unsigned char op;

	for (k = 0; k <= (w->nnfa - 1) / 64; k++) {
		for (m = w->mark[k]; m; m &= m - 1) {
			i = k * 64 + __builtin_ctzll(m);
			op = w->nfa[i].op;
			if (op == CG2_OP_SPLIT || op == CG2_OP_JUMP)
				continue;
			if (w->npool + n < CG2_DFA_POOL)
				w->pool[w->npool + n] = i;
			else
				*fits = false;
			n++;
		}
		w->mark[k] = 0;
	}
	return n;
}

static unsigned int cg2_dfa_hash(const unsigned short *set, unsigned int n)
{
	unsigned int h = 2166136261u;

	for (unsigned int i = 0; i < n; i++)
		h = (h ^ set[i]) * 16777619u;
	return (h ^ n) & ((1u << CG2_DFA_HASH_BITS) - 1);
}

/*
 * The row of the set just collected (@n states at the pool's end), added
 * when new; 0 (dead) for the empty set; -1 past a budget.
 */
static int cg2_dfa_row(struct cg2_dfa_work *w, unsigned int n, bool fits)
{
	const unsigned short *set = w->pool + w->npool;
	unsigned int h, r;

	if (!fits)
		return -1;
	if (n == 0 && w->nrows)
		return 0;
	h = cg2_dfa_hash(set, n);
	for (r = w->head[h]; r; r = w->chain[r - 1])
		if (w->row_len[r - 1] == n &&
		    !memcmp(w->pool + w->row_at[r - 1], set, n * sizeof(*set)))
			return r - 1;
	r = w->nrows;
	if (r == CG2_DFA_MAX_STATES ||
	    (r + 1) * w->nclasses > CG2_DFA_ENTRIES)
		return -1;
	w->row_at[r] = w->npool;
	w->row_len[r] = n;
	w->accept[r] = n && set[0] == 0;
	w->chain[r] = w->head[h];
	w->head[h] = r + 1;
	w->npool += n;
	w->nrows++;
	return r;
}

/* Row @r's entry for class @k: the closed set of what its states read. */
static int cg2_dfa_step(struct cg2_dfa_work *w, unsigned int r,
			unsigned int k)
{
	unsigned char c = w->rep[k];
	unsigned int i, s, n;
	bool fits = true;

	for (i = 0; i < w->row_len[r]; i++) {
		s = w->pool[w->row_at[r] + i];
		if (cg2_nfa_reads(w, &w->nfa[s], c))
			cg2_nfa_add(w, cg2_nfa_target(&w->nfa[s], s, c));
	}
	cg2_nfa_close(w);
	n = cg2_dfa_collect(w, &fits);	/* sets fits: not in one expression */
	return cg2_dfa_row(w, n, fits);
}

/* Subset construction from the NFA in @w; false past a budget. */
static bool cg2_dfa_construct(struct cg2_dfa_work *w)
{
	unsigned int r, k, n;
	bool fits = true;
	int t;

	w->nrows = 0;
	w->npool = 0;
	w->nstack = 0;
	memset(w->head, 0, sizeof(w->head));
	memset(w->mark, 0, sizeof(w->mark));
	cg2_dfa_row(w, 0, true);		/* row 0: dead */
	cg2_nfa_add(w, 1);
	cg2_nfa_close(w);
	n = cg2_dfa_collect(w, &fits);
	if (cg2_dfa_row(w, n, fits) != 1)
		return false;
	for (r = 0; r < w->nrows; r++) {
		for (k = 0; k < w->nclasses; k++) {
			t = r ? cg2_dfa_step(w, r, k) : 0;
			if (t < 0)
				return false;
			w->table[r * w->nclasses + k] = t;
		}
		CG2_YIELD();
	}
	return true;
}

size_t cg2_dfa_build(const char *pats, unsigned int count, unsigned int flags,
		     struct cg2_dfa_work *w)
{
	struct cg2_builder b = { 0 };
	size_t size;

	if (!count || (count == 1 && !(flags & CG2_DFA_ALWAYS) &&
		       cg2_reads_once(pats, strlen(pats))))
		return 0;
	if (!cg2_nfa_rule(&b, pats, count))
		return 0;
	b = (struct cg2_builder){ .states = w->nfa, .sets = w->sets };
	cg2_nfa_rule(&b, pats, count);
	w->nnfa = b.nstates;
	cg2_dfa_classes(w);
	if (!cg2_dfa_construct(w))
		return 0;
	size = sizeof(struct cg2_dfa) + ((w->nrows + 1) & ~1u) +
	       w->nrows * w->nclasses * sizeof(w->table[0]);
	return (size + 3) & ~(size_t)3;
}

void cg2_dfa_write(const struct cg2_dfa_work *w, struct cg2_dfa *dfa)
{
	char *out = (char *)(dfa + 1);

	dfa->nrows = w->nrows;
	dfa->nclasses = w->nclasses;
	memcpy(dfa->classes, w->classes, sizeof(dfa->classes));
	memcpy(out, w->accept, w->nrows);
	if (w->nrows & 1)
		out[w->nrows] = 0;
	memcpy((void *)cg2_dfa_table(dfa), w->table,
	       w->nrows * w->nclasses * sizeof(w->table[0]));
	dfa->size = (char *)(cg2_dfa_table(dfa) + w->nrows * w->nclasses) -
		    (char *)dfa;
	dfa->size = (dfa->size + 3) & ~3u;
}

size_t cg2_dfa_size(const struct cg2_dfa *dfa)
{
	return dfa->size;
}

unsigned int cg2_dfa_states(const struct cg2_dfa *dfa)
{
	return dfa->nrows - 1;
}

/*
 * One table entry per byte of each of the top CG2_MAX_DEPTH names and one
 * for its '/'; stops at the dead row, and (subtree) at the first ancestor
 * that matches.
 */
static bool cg2_dfa_match(const struct cg2_dfa *dfa,
			  const struct cg2_path *path, bool subtree)
{
	const unsigned char *accept = cg2_dfa_accept(dfa);
	const unsigned short *tab = cg2_dfa_table(dfa);
	unsigned int width = dfa->nclasses, q = 1, i, depth = path->depth;
	unsigned int slash = dfa->classes['/'];
	const unsigned char *name;
	size_t len, j;

	if (depth > CG2_MAX_DEPTH)
		depth = CG2_MAX_DEPTH;
	CG2_STEP(1);
	for (i = 0; i < depth; i++) {
		if (subtree && accept[q])
			return true;
		name = (const unsigned char *)path->component(path->ctx, i,
							      &len);
		CG2_STEP(len + 1);
		for (j = 0; j < len && q; j++)
			q = tab[q * width + dfa->classes[name[j]]];
		q = tab[q * width + slash];
		if (!q)
			return false;
	}
	return accept[q];
}

bool cg2_dfa_match_exact(const struct cg2_dfa *dfa,
			 const struct cg2_path *path)
{
	return cg2_dfa_match(dfa, path, false);
}

bool cg2_dfa_match_subtree(const struct cg2_dfa *dfa,
			   const struct cg2_path *path)
{
	return cg2_dfa_match(dfa, path, true);
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
