/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The cgroup2 pattern engine: parse, validate and match cgroup v2 path
 * patterns.  One implementation, compiled unchanged into xt_cgroup2.ko,
 * libxt_cgroup2.so and nft-cgroupd.
 *
 * Syntax, per '/'-separated component (a glob never crosses '/'):
 *   *  ?  [abc]  [a-z]  [!x] (or [^x])  {alt1,alt2}  \c (escape)
 * and a component that is exactly "**" matches zero or more components.
 * One leading and one trailing '/' are allowed and change nothing; "/"
 * alone names the root.  Empty components, "." and ".." are invalid.
 * Braces do not nest and stay within one component.
 */
#ifndef CGROUP2_PATTERN_H
#define CGROUP2_PATTERN_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#endif

/*
 * Limits shared by every front end and the kernel, so that all accept
 * exactly the same patterns.  CG2_MAX_PATTERN_LEN is the longest argument
 * iptables-restore reads back; CG2_MAX_STATES bounds the matcher's work
 * (see the cost bound at the top of cgroup2_pattern.c).
 */
#define CG2_MAX_PATTERN_LEN	1023
#define CG2_MAX_STATES		256

/*
 * Levels judged below the root the patterns are relative to: a deeper
 * cgroup gets the verdict of its ancestor at this depth (exact and subtree
 * match alike), so that whoever can create cgroups (a delegated subtree
 * has no depth limit unless cgroup.max.depth sets one) cannot make a
 * judgement cost more than this depth allows.
 */
#define CG2_MAX_DEPTH		64

/*
 * A compiled pattern's tables cost one matcher state per
 * CG2_TABLE_PER_STATE bytes: a pattern's price is the larger of its states
 * and that, so the budgets above also bound the tables (8 KiB a pattern).
 */
#define CG2_TABLE_PER_STATE	32

/*
 * Work area of cg2_validate(), cg2_cost() and cg2_compile(): the caller
 * provides CG2_WORK_SIZE bytes, zeroed before first use and 8-byte aligned
 * (too large for a kernel stack; one per caller at a time).  It keeps the
 * last pattern compiled, so validating, pricing and compiling one pattern
 * in a row compiles it once.
 */
#define CG2_WORK_SIZE		(40 * 1024)
struct cg2_work;

enum cg2_error {
	CG2_OK = 0,
	CG2_ERR_EMPTY,		/* pattern is empty */
	CG2_ERR_TOO_LONG,	/* longer than the caller's limit */
	CG2_ERR_EMPTY_COMPONENT,/* "a//b" */
	CG2_ERR_DOT,		/* "." or ".." component */
	CG2_ERR_BRACKET,	/* unterminated "[" */
	CG2_ERR_SLASH_IN_BRACKET,
	CG2_ERR_RANGE,		/* reversed range such as [z-a] */
	CG2_ERR_BRACE,		/* unterminated "{" */
	CG2_ERR_STRAY_BRACE,	/* "}" without "{" */
	CG2_ERR_NESTED_BRACE,	/* "{" inside "{...}" */
	CG2_ERR_SLASH_IN_BRACE,	/* "{a/b}" would cross components */
	CG2_ERR_TOO_COMPLEX,	/* more than CG2_MAX_STATES matcher states */
	CG2_ERR_ESCAPE,		/* "\" at the end of a component */
	CG2_ERR_NUL,		/* NUL byte inside the given length */
	CG2_ERR_CONTROL,	/* control byte: iptables-save cannot carry it */
	CG2_ERR_TABLES,		/* its DFA tables would be too large */
	CG2_ERR_MAX
};

/* A short English description of @err, e.g. "has an unterminated \"[\"". */
const char *cg2_strerror(enum cg2_error err);

/*
 * Validate the @len bytes at @pat (no NUL needed; a NUL inside is an error),
 * compiling it in @work to price it.  @max_len is the longest pattern the
 * caller accepts (at most CG2_MAX_PATTERN_LEN: a larger value is taken as
 * that).  On error, returns the error and stores the byte offset it refers
 * to in @offset (if set).
 */
enum cg2_error cg2_validate(const char *pat, size_t len, size_t max_len,
			    size_t *offset, struct cg2_work *work);

/*
 * A cgroup path as a sequence of components, below the root the pattern is
 * relative to.  component() returns component @i (0 is the top) and its
 * length; it must be valid for 0 <= i < depth.  The matcher asks for none
 * at or past CG2_MAX_DEPTH.
 */
struct cg2_path {
	const char *(*component)(const void *ctx, unsigned int i, size_t *len);
	const void *ctx;
	unsigned int depth;
};

/*
 * A pattern compiled once, in the control path, into the form the packet
 * path runs: components as literal names, "**" or DFAs over byte classes
 * (one table entry per byte of a name).  Opaque; it contains no pointers,
 * so it may be copied, and needs 2-byte alignment (any allocator's memory
 * will do).
 */
struct cg2_prog;

/*
 * Compile the valid pattern @pat (@len bytes) into @prog, which has room
 * for @size bytes, using @work.  Returns the size the compiled form needs:
 * when that is more than @size, nothing was written (call with size 0 to
 * learn it); 0 when @pat is not valid.
 */
size_t cg2_compile(const char *pat, size_t len, struct cg2_prog *prog,
		   size_t size, struct cg2_work *work);

/*
 * Price of the valid pattern @pat (@len bytes), computed in @work: its
 * matcher states or its table bytes / CG2_TABLE_PER_STATE, whichever is
 * more; at most CG2_MAX_STATES (literal components cost nothing).
 */
unsigned int cg2_cost(const char *pat, size_t len, struct cg2_work *work);

/* Bytes the compiled pattern takes (even: programs may be packed). */
size_t cg2_prog_size(const struct cg2_prog *prog);

/*
 * Does the compiled pattern @prog match @path itself (cg2_match_exact) or
 * @path or one of its ancestors (cg2_match_subtree, the semantics of the
 * match)?  No allocation, bounded stack (under 200 bytes), no sleeping.
 */
bool cg2_match_exact(const struct cg2_prog *prog, const struct cg2_path *path);
bool cg2_match_subtree(const struct cg2_prog *prog,
		       const struct cg2_path *path);

/*
 * A rule's patterns as one automaton: a DFA over the bytes of the whole
 * path, so that a judgement reads each of the top CG2_MAX_DEPTH names once
 * for all the patterns (see the cost bound in cgroup2_pattern.c).  Built
 * once, in the control path, in CG2_DFA_WORK_SIZE bytes of the caller's
 * scratch (8-byte aligned, need not be zeroed; too large for a stack),
 * within CG2_DFA_MAX_STATES states and CG2_DFA_MAX_TABLE table bytes: a
 * rule past them (only contrived globs, such as "*a" and many "?", or many
 * patterns with several "**" each) keeps its per-pattern programs.
 */
#define CG2_DFA_MAX_STATES	4096
#define CG2_DFA_MAX_TABLE	(64 * 1024)
#define CG2_DFA_WORK_SIZE	(360 * 1024)
#define CG2_DFA_ALWAYS		1	/* build it even for one pattern */
struct cg2_dfa_work;

/*
 * Opaque; no pointers (it may be copied), 4-byte alignment, at most
 * CG2_DFA_MAX_TABLE + 4.5 KiB + CG2_DFA_MAX_STATES bytes.
 */
struct cg2_dfa;

/*
 * Build in @work the automaton of the @count valid patterns packed at
 * @pats (each NUL-terminated, one after the other) and return the bytes
 * it takes, for cg2_dfa_write().  0 when there is none: past a budget, or
 * (without CG2_DFA_ALWAYS) for a single pattern that the per-pattern
 * matcher already judges reading each name at most once, with less memory.
 */
size_t cg2_dfa_build(const char *pats, unsigned int count, unsigned int flags,
		     struct cg2_dfa_work *work);

/* Write the automaton cg2_dfa_build() left in @work to @dfa. */
void cg2_dfa_write(const struct cg2_dfa_work *work, struct cg2_dfa *dfa);

size_t cg2_dfa_size(const struct cg2_dfa *dfa);

/* Its states, the dead one aside (for tests and tuning). */
unsigned int cg2_dfa_states(const struct cg2_dfa *dfa);

/*
 * As cg2_match_exact() and cg2_match_subtree(), for all the patterns at
 * once: does any match?  No allocation, a few words of stack.
 */
bool cg2_dfa_match_exact(const struct cg2_dfa *dfa,
			 const struct cg2_path *path);
bool cg2_dfa_match_subtree(const struct cg2_dfa *dfa,
			   const struct cg2_path *path);

#ifdef CG2_COUNT_STEPS
/* Host test builds only: work done by the matcher, see the cost bound. */
extern unsigned long cg2_steps;
#endif

/* True when the valid pattern @pat has no glob syntax (escapes allowed). */
bool cg2_is_literal(const char *pat);

/*
 * Number of components of the valid pattern @pat, or -1 when it contains a
 * "**" component and so has no fixed depth.  "/" has depth 0.
 */
int cg2_depth(const char *pat);

/*
 * Write the literal path named by the valid literal pattern @pat, escapes
 * removed and without leading or trailing '/', to @buf (NUL-terminated,
 * truncated to @size).  Returns the length it needs, without the NUL.
 */
size_t cg2_literal_path(const char *pat, char *buf, size_t size);

#endif /* CGROUP2_PATTERN_H */
