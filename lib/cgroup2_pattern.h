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

/* Brace groups in one component, and the alternatives they multiply to. */
#define CG2_MAX_GROUPS		8
#define CG2_MAX_COMBOS		256

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
	CG2_ERR_TOO_MANY_GROUPS,/* more than CG2_MAX_GROUPS in a component */
	CG2_ERR_TOO_MANY_COMBOS,/* braces expand beyond CG2_MAX_COMBOS */
	CG2_ERR_ESCAPE,		/* "\" at the end of a component */
	CG2_ERR_NUL,		/* NUL byte inside the given length */
	CG2_ERR_MAX
};

/* A short English description of @err, e.g. "has an unterminated \"[\"". */
const char *cg2_strerror(enum cg2_error err);

/*
 * Validate the @len bytes at @pat (no NUL needed; a NUL inside is an error).
 * @max_len is the longest pattern the caller accepts.  On error, returns
 * the error and stores the byte offset it refers to in @offset (if set).
 */
enum cg2_error cg2_validate(const char *pat, size_t len, size_t max_len,
			    size_t *offset);

/*
 * A cgroup path as a sequence of components, below the root the pattern is
 * relative to.  component() returns component @i (0 is the top) and its
 * length; it must be valid for 0 <= i < depth.
 */
struct cg2_path {
	const char *(*component)(const void *ctx, unsigned int i, size_t *len);
	const void *ctx;
	unsigned int depth;
};

/*
 * Does the valid, NUL-terminated pattern @pat match @path itself
 * (cg2_match_exact) or @path or one of its ancestors (cg2_match_subtree,
 * the semantics of the match)?  No allocation, bounded stack, no sleeping.
 */
bool cg2_match_exact(const char *pat, const struct cg2_path *path);
bool cg2_match_subtree(const char *pat, const struct cg2_path *path);

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
