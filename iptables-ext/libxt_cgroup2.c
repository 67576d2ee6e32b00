// SPDX-License-Identifier: GPL-2.0
/*
 * libxt_cgroup2: iptables/ip6tables support for the "cgroup2" match,
 * which matches packets by the cgroup v2 path of their socket against
 * one or more path patterns.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xtables.h>

#include "xt_cgroup2.h"
#include "cgroup2_pattern.h"
#include "cgroup2_user.h"
#include "cg2_xtables.h"

/*
 * One layout for 32- and 64-bit userspace: the x_tables compat path of a
 * 64-bit kernel copies the match of a 32-bit iptables as it is, so both
 * must agree on its size and offsets (priv is aligned to 8 for this;
 * docs/recipes/32-bit-userspace.md).
 */
_Static_assert(sizeof(struct xt_cgroup2_info) == 2064 &&
	       offsetof(struct xt_cgroup2_info, priv) == 2056,
	       "struct xt_cgroup2_info differs from the 64-bit kernel's");
_Static_assert(sizeof(struct xt_cgroup2_info_v1) == 528 &&
	       offsetof(struct xt_cgroup2_info_v1, priv) == 520,
	       "struct xt_cgroup2_info_v1 differs from the 64-bit kernel's");

/*
 * The fields both revisions begin with; they differ only in the room for
 * patterns.  Every function below works on this and that room's size.
 */
struct cg2_head {
	__u32	flags;
	__u16	count;
	__u16	len;
	char	patterns[];
};

#define CG2_SAME_HEAD(type)						\
	(offsetof(type, flags) == offsetof(struct cg2_head, flags) &&	\
	 offsetof(type, count) == offsetof(struct cg2_head, count) &&	\
	 offsetof(type, len) == offsetof(struct cg2_head, len) &&	\
	 offsetof(type, patterns) == offsetof(struct cg2_head, patterns))
_Static_assert(CG2_SAME_HEAD(struct xt_cgroup2_info) &&
	       CG2_SAME_HEAD(struct xt_cgroup2_info_v1),
	       "the revisions of the match no longer begin alike");

struct cg2_info {
	struct cg2_head	*head;
	size_t		size;		/* of head->patterns */
};

/* The match data @data of revision @revision. */
static struct cg2_info cg2_info(const void *data, unsigned int revision)
{
	struct cg2_info info = { (struct cg2_head *)data,
				 XT_CGROUP2_PATTERNS_SIZE };

	if (revision == 1)
		info.size = XT_CGROUP2_PATTERNS_SIZE_V1;
	return info;
}

/*
 * A rule's match, as iptables read it from the kernel or built it; never
 * past its end (iptables 1.8.7 prints a rule of any revision with ours).
 */
static struct cg2_info cg2_entry_info(const struct xt_entry_match *m)
{
	struct cg2_info info = cg2_info(m->data, m->u.user.revision);
	size_t head = XT_ALIGN(sizeof(*m)) + sizeof(struct cg2_head);
	size_t room = m->u.match_size > head ? m->u.match_size - head : 0;

	if (info.size > room)
		info.size = room;
	return info;
}

#ifndef __unused
#define __unused __attribute__((unused))
#endif

/*
 * libxtables as of iptables 1.8.7 to 1.8.13; the Makefile probes xtables.h
 * (1.8.7 and 1.8.9 both are libxtables.so.12: no version number tells):
 * - xt_xlate_add_nospc() exists from 1.8.9, when xt_xlate_add() began to
 *   put a space before its text; before, xt_xlate_add() added text as is
 *   (and iptables-translate a space after each match).
 * - 1.8.7 and 1.8.8 iptables-translate print the nft command unquoted and
 *   set escape_quotes: every '"' of ours must then be written '\"'.
 */
#ifdef HAVE_XT_XLATE_ADD_NOSPC
#define cg2_xlate_add_nospc xt_xlate_add_nospc
#else
#define cg2_xlate_add_nospc xt_xlate_add
#endif

/* The double quote of nft strings, as this translation must print it. */
static const char *cg2_xlate_quote(const struct xt_xlate_mt_params *params)
{
#ifdef HAVE_XT_XLATE_ESCAPE_QUOTES
	if (params->escape_quotes)
		return "\\\"";
#endif
	(void)params;
	return "\"";
}

/* Longest nft comment is 128 bytes; ours stays well below. */
#define CG2_XLATE_COMMENT \
	"cgroup2: path resolved once at load: no late binding, lost on restart"

enum {
	O_PATH = 0,
};

static const struct xt_option_entry cgroup2_opts[] = {
	{.name = "path", .id = O_PATH, .type = XTTYPE_STRING,
	 .flags = XTOPT_INVERT | XTOPT_MULTI},
	XTOPT_TABLEEND,
};

/* The end of the used part of @patterns, trusting @len no further. */
static const char *cg2_end(struct cg2_info info)
{
	return info.head->patterns + (info.head->len < info.size ?
				      info.head->len : info.size);
}

/*
 * Walk the patterns of a match from the kernel or our own parser; stop at
 * the first one that is not NUL-terminated within @len.
 */
#define for_each_pattern(pat, info)					\
	for ((pat) = (info).head->patterns;				\
	     (pat) < cg2_end(info) &&					\
	     memchr((pat), '\0', cg2_end(info) - (pat));			\
	     (pat) += strlen(pat) + 1)

static void cgroup2_help(void)
{
	printf(
"cgroup2 match options (xt_cgroup2 " XT_CGROUP2_VERSION "):\n"
"[!] --path PATTERN    match sockets in a cgroup matching PATTERN, or below\n"
"                      it; repeat --path to match any of several patterns;\n"
"                      a single \"!\" before the first --path inverts them all\n"
"                      (at most 64 patterns in 512 bytes, one NUL after each;\n"
"                      with XT_CGROUP2_REVISION=0 in the environment, in\n"
"                      2048 bytes, each at most 1023)\n"
"PATTERN is a cgroup v2 path relative to the cgroup2 root (of the caller's\n"
"cgroup namespace), one glob per \"/\"-separated component:\n"
"  * ? [a-z] [!x] {web,db} \\c (literal c); a component \"**\" spans any depth\n"
"  e.g. --path 'system.slice/*.service' --path 'user.slice/**/app-{a,b}.scope'\n"
"A cgroup need not exist yet: the rule matches it once it is created, and\n"
"again after it is removed and created anew.\n");
}

/* Bytes that make a pattern ambiguous or unreadable when printed bare. */
static bool cg2_needs_quotes(const char *p)
{
	if (*p == '\0')
		return true;
	for (; *p; p++) {
		unsigned char c = *p;

		if (c <= ' ' || c == 0x7f || c == '"' || c == '\\' || c == ',')
			return true;
	}
	return false;
}

/*
 * Print a pattern for people: bare when unambiguous, else in double quotes
 * with '"' and '\' escaped and control bytes as \xHH (always so when
 * @quote).  At most @max bytes of the pattern are shown (0: all), then "...".
 */
static void cg2_print_pattern(FILE *f, const char *p, size_t max, bool quote)
{
	size_t i;

	if (!quote && !cg2_needs_quotes(p) && (max == 0 || strlen(p) <= max)) {
		fputs(p, f);
		return;
	}
	fputc('"', f);
	for (i = 0; p[i] && (max == 0 || i < max); i++) {
		unsigned char c = p[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < ' ' || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputs(p[i] ? "...\"" : "\"", f);
}

/* Exits with "cgroup2: --path "PAT": WHAT"; PAT is cut short if huge. */
static void __attribute__((noreturn, format(printf, 2, 3)))
cg2_path_error(const char *pat, const char *fmt, ...)
{
	/* 64 bytes shown, each at most 4 ("\xHH"), quotes and "..." */
	char shown[512] = "", what[256];
	FILE *f;
	va_list ap;

	f = fmemopen(shown, sizeof(shown) - 1, "w");
	if (f) {
		cg2_print_pattern(f, pat, 64, true);
		fclose(f);
	} else {
		snprintf(shown, sizeof(shown), "\"?\"");
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	xtables_error(PARAMETER_PROBLEM, "cgroup2: --path %s: %s", shown, what);
}

/*
 * The engine's verdict on @pat, the kernel's own (CG2_MAX_PATTERN_LEN is
 * the longest argument iptables-restore reads back), with the details.
 */
static void cg2_check_pattern(const char *pat, size_t len)
{
	enum cg2_error err;
	size_t offset;

	err = cg2_validate(pat, len, CG2_MAX_PATTERN_LEN, &offset,
			   cg2_user_work());
	switch (err) {
	case CG2_OK:
		return;
	case CG2_ERR_TOO_LONG:
		cg2_path_error(pat, "is too long: %zu bytes, at most %u",
			       len, CG2_MAX_PATTERN_LEN);
	case CG2_ERR_CONTROL:
		cg2_path_error(pat, "contains a control character (byte 0x%02x)",
			       (unsigned char)pat[offset]);
	default:
		cg2_path_error(pat, "%s", cg2_strerror(err));
	}
}

/*
 * Patterns this process has checked, with their price in matcher states:
 * restoring 1,000 rules over ten services checks ten patterns, not 1,000
 * (the engine's check was half of what each such rule cost iptables-nft in
 * userspace, callgrind).  Direct-mapped, so bounded: a pattern that loses
 * its slot is only checked again.  @looked: cg2_check_exists() has run.
 */
#define CG2_SEEN_SLOTS	64

static struct cg2_seen {
	char		*pat;
	unsigned int	states;
	bool		looked;
} cg2_seen[CG2_SEEN_SLOTS];

static struct cg2_seen *cg2_seen_slot(const char *pat)
{
	unsigned int h = 2166136261u;	/* FNV-1a */
	const char *c;

	for (c = pat; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	return &cg2_seen[h % CG2_SEEN_SLOTS];
}

static struct cg2_seen *cg2_seen_find(const char *pat)
{
	struct cg2_seen *s = cg2_seen_slot(pat);

	return s->pat && strcmp(s->pat, pat) == 0 ? s : NULL;
}

/* The price of @pat, checked once; exits with the engine's reason if bad. */
static unsigned int cg2_pattern_states(const char *pat, size_t len)
{
	struct cg2_seen *s = cg2_seen_find(pat);
	unsigned int states;
	char *copy;

	if (s)
		return s->states;
	cg2_check_pattern(pat, len);
	/* Built by cg2_check_pattern() above: this only reads its price. */
	states = cg2_cost(pat, len, cg2_user_work());
	copy = strdup(pat);
	if (copy) {		/* else only not remembered */
		s = cg2_seen_slot(pat);
		free(s->pat);
		*s = (struct cg2_seen){ .pat = copy, .states = states };
	}
	return states;
}

/*
 * Matcher states of the patterns of the rule being parsed, which the
 * kernel budgets: each pattern is priced once, as it is parsed (a rule's
 * options are parsed in order, from an empty one), not again for each
 * later --path.
 */
static unsigned int cg2_rule_states;

static void cg2_parse(struct xt_option_call *cb, struct cg2_info info)
{
	struct cg2_head *head = info.head;
	const char *pat = cb->arg;
	unsigned int states;
	size_t len;

	/* The set is inverted as a whole: "!" only before the first --path. */
	if (cb->invert && head->count > 0)
		xtables_error(PARAMETER_PROBLEM,
			      "cgroup2: \"!\" before the second or a later "
			      "--path: put one \"!\" before the first --path; "
			      "it inverts the whole set");
	xtables_option_parse(cb);

	len = strlen(pat);
	if (head->count == 0)
		cg2_rule_states = 0;
	states = cg2_rule_states + cg2_pattern_states(pat, len);
	if (states > XT_CGROUP2_MAX_STATES)
		cg2_path_error(pat, "brings the patterns of this rule to %u "
			       "matcher states, more than %u: spread them over "
			       "several rules", states, XT_CGROUP2_MAX_STATES);

	if (head->count >= XT_CGROUP2_MAX_PATTERNS)
		cg2_path_error(pat, "one --path too many: a rule holds at "
			       "most %u patterns", XT_CGROUP2_MAX_PATTERNS);
	if (len + 1 > info.size - head->len)
		cg2_path_error(pat, "does not fit: the patterns of one rule "
			       "take at most %zu bytes, one NUL after each%s",
			       info.size, info.size < XT_CGROUP2_PATTERNS_SIZE ?
			       " (XT_CGROUP2_REVISION=0 in the environment "
			       "gives 2048, at 4 times the memory a rule)" : "");
	cg2_rule_states = states;
	memcpy(head->patterns + head->len, pat, len + 1);
	head->len += len + 1;
	head->count++;
	if (cb->invert)
		head->flags |= XT_CGROUP2_INVERT;
}

static void cgroup2_parse_v0(struct xt_option_call *cb)
{
	cg2_parse(cb, cg2_info(cb->data, 0));
}

static void cgroup2_parse_v1(struct xt_option_call *cb)
{
	cg2_parse(cb, cg2_info(cb->data, 1));
}

/*
 * Literal patterns that name no existing cgroup, remembered across all rules
 * of this process and reported in one line at exit, so that restoring
 * hundreds of rules at boot says it once.
 */
static struct {
	char **names;
	unsigned int count;
	char mount[4096];
	int mount_err;		/* 0 once found; >0 not looked up yet */
} cg2_missing = { .mount_err = 1 };

/*
 * iptables-restore --test (-t) parses the rules and commits nothing; Debian's
 * netfilter-persistent runs it before every real load at boot
 * (IPTABLES_TEST_RULESET=yes), and the warning would come twice.  libxtables
 * does not tell extensions (the restore tools keep the flag in a local
 * variable), so read our own command line as their getopt_long would:
 * "-t" in a cluster of short options, "--test" or an unambiguous
 * abbreviation, skipping the arguments of -T/--table and -M/--modprobe.
 * Only in a program named *-restore (in "iptables -t nat", -t is the
 * table).  When unsure (no /proc, an odd line), it is no test: the
 * warning is printed.
 */
static bool cg2_args_test(const char *arg, const char *end)
{
	const char *a, *next;
	bool skip = false;

	for (a = arg; a < end; a = next) {
		next = a + strlen(a) + 1;
		if (skip) {
			skip = false;
		} else if (strcmp(a, "--") == 0) {
			break;
		} else if (strncmp(a, "--", 2) == 0) {
			size_t n = strcspn(a + 2, "=");

			if (n >= 2 && strncmp(a + 2, "test", n) == 0 &&
			    n <= 4 && a[2 + n] == '\0')
				return true;
			skip = a[2 + n] == '\0' && n >= 1 &&
			       ((n >= 2 && strncmp(a + 2, "table", n) == 0) ||
				strncmp(a + 2, "modprobe", n) == 0);
		} else if (a[0] == '-') {
			const char *c;

			for (c = a + 1; *c; c++) {
				if (*c == 't')
					return true;
				if (*c == 'T' || *c == 'M') {
					skip = c[1] == '\0';
					break;
				}
				if ((*c == 'w' || *c == 'W') && c[1] >= '0' &&
				    c[1] <= '9')
					break;	/* -w5: its optional argument */
			}
		}
	}
	return false;
}

static bool cg2_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool cg2_restore_testing(void)
{
	static int testing = -1;
	char buf[8192];
	const char *end, *arg;
	size_t n;
	FILE *f;

	if (testing >= 0)
		return testing;
	testing = 0;
	if (!xt_params || !xt_params->program_name ||
	    !cg2_ends_with(xt_params->program_name, "-restore"))
		return false;
	f = fopen("/proc/self/cmdline", "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (n == 0)
		return false;
	buf[n] = '\0';		/* a cut-off last argument ends here */
	end = buf + n;
	if (end[-1] == '\0')
		end--;
	/* iptables-restore ..., or xtables-nft-multi iptables-restore ... */
	arg = buf;
	if (!cg2_ends_with(arg, "-restore")) {
		arg += strlen(arg) + 1;
		if (arg >= end || !cg2_ends_with(arg, "-restore"))
			return false;
	}
	arg += strlen(arg) + 1;
	testing = cg2_args_test(arg, end + 1);
	return testing;
}

static void cg2_report_missing(void)
{
	unsigned int i;

	if (cg2_missing.count == 0)
		return;
	fputs("cgroup2: warning: no cgroup ", stderr);
	cg2_print_pattern(stderr, cg2_missing.names[0], 64, true);
	fprintf(stderr, " under %s", cg2_missing.mount);
	if (cg2_missing.count > 1)
		fprintf(stderr, " (nor %u more)", cg2_missing.count - 1);
	if (cg2_translating())
		fprintf(stderr, ", where nft looks; nft refuses the "
			"translation until it exists\n");
	else
		fprintf(stderr, "; the rule%s accepted and will match once "
			"the cgroup%s\n", cg2_missing.count > 1 ? "s are" : " is",
			cg2_missing.count > 1 ? "s exist" : " exists");
	for (i = 0; i < cg2_missing.count; i++)
		free(cg2_missing.names[i]);
	free(cg2_missing.names);
	cg2_missing.names = NULL;
	cg2_missing.count = 0;
}

static void cg2_note_missing(const char *path)
{
	char **names;
	unsigned int i;

	for (i = 0; i < cg2_missing.count; i++)
		if (strcmp(cg2_missing.names[i], path) == 0)
			return;
	names = realloc(cg2_missing.names,
			(cg2_missing.count + 1) * sizeof(*names));
	if (!names)
		return;		/* only a hint: drop it */
	cg2_missing.names = names;
	names[cg2_missing.count] = strdup(path);
	if (!names[cg2_missing.count])
		return;
	if (cg2_missing.count++ == 0)
		atexit(cg2_report_missing);
}

/* Note the literal @pat if it names no cgroup now; if unsure, say nothing. */
static void cg2_check_exists(const char *pat)
{
	char path[XT_CGROUP2_PATTERNS_SIZE], full[sizeof(path) + 4096 + 1];
	struct stat st;

	/* The nft CLI resolves paths under this fixed prefix, not the mount. */
	if (cg2_missing.mount_err > 0 && cg2_translating()) {
		snprintf(cg2_missing.mount, sizeof(cg2_missing.mount),
			 "/sys/fs/cgroup");
		cg2_missing.mount_err = 0;
	}
	if (cg2_missing.mount_err > 0)
		cg2_missing.mount_err = cg2_find_mount(cg2_missing.mount,
						       sizeof(cg2_missing.mount));
	if (cg2_missing.mount_err < 0)
		return;		/* no cgroup2 here: nothing to compare with */
	if (cg2_literal_path(pat, path, sizeof(path)) >= sizeof(path) ||
	    path[0] == '\0')
		return;
	snprintf(full, sizeof(full), "%s/%s", cg2_missing.mount, path);
	if (stat(full, &st) == 0) {
		if (!S_ISDIR(st.st_mode))	/* e.g. "cgroup.procs" */
			cg2_note_missing(path);
	} else if (errno == ENOENT || errno == ENOTDIR) {
		cg2_note_missing(path);
	}
}

/*
 * Whether @pat's cgroup is still to be looked for: once per pattern that
 * cg2_seen remembers (a missing one is reported once anyway).
 */
static bool cg2_first_look(const char *pat)
{
	struct cg2_seen *s = cg2_seen_find(pat);

	if (!s)
		return true;
	if (s->looked)
		return false;
	s->looked = true;
	return true;
}

static void cg2_check_all(struct cg2_info info)
{
	const char *pat;

	if (cg2_restore_testing())
		return;		/* the real load that follows says it */
	for_each_pattern(pat, info)
		if (cg2_is_literal(pat) && cg2_first_look(pat))
			cg2_check_exists(pat);
}

static void cg2_check(struct xt_fcheck_call *cb, struct cg2_info info)
{
	if (!(cb->xflags & (1 << O_PATH)) || info.head->count == 0)
		xtables_error(PARAMETER_PROBLEM,
			      "cgroup2: --path PATTERN is required");
	if (cg2_translating())
		return;		/* checked in xlate, if it translates */
	cg2_check_all(info);
}

static void cgroup2_check_v0(struct xt_fcheck_call *cb)
{
	cg2_check(cb, cg2_info(cb->data, 0));
}

static void cgroup2_check_v1(struct xt_fcheck_call *cb)
{
	cg2_check(cb, cg2_info(cb->data, 1));
}

static void cgroup2_print(const void *ip __unused,
			  const struct xt_entry_match *match,
			  int numeric __unused)
{
	struct cg2_info info = cg2_entry_info(match);
	const char *pat, *sep = " ";

	printf(" cgroup2 %spath",
	       info.head->flags & XT_CGROUP2_INVERT ? "! " : "");
	for_each_pattern(pat, info) {
		fputs(sep, stdout);
		cg2_print_pattern(stdout, pat, 0, false);
		sep = ",";
	}
}

static void cgroup2_save(const void *ip __unused,
			 const struct xt_entry_match *match)
{
	struct cg2_info info = cg2_entry_info(match);
	const char *pat;

	if (info.head->flags & XT_CGROUP2_INVERT)
		printf(" !");
	for_each_pattern(pat, info) {
		printf(" --path");
		xtables_save_string(pat);
	}
}

/* Why the patterns have no nft equivalent, or NULL when they have one. */
static const char *cg2_xlate_obstacle(struct cg2_info info, int *depth)
{
	char path[XT_CGROUP2_PATTERNS_SIZE];
	const char *pat;
	int d;

	/*
	 * nft's "level N != X" never matches a socket above level N (the root
	 * cgroup, say): it would drop what "! --path" matches.
	 */
	if (info.head->flags & XT_CGROUP2_INVERT)
		return "an inverted match exactly (\"!=\" skips sockets above the pattern's level)";
	*depth = -1;
	for_each_pattern(pat, info) {
		d = cg2_depth(pat);
		if (d < 0)
			return "a \"**\" pattern";
		if (!cg2_is_literal(pat))
			return "a glob pattern";
		if (*depth >= 0 && d != *depth)
			return "patterns of different depths";
		*depth = d;
		cg2_literal_path(pat, path, sizeof(path));
		/* nft strings have no escapes; the translation is shell-quoted */
		if (strpbrk(path, "\"'\\"))
			return "a path with a quote or backslash";
	}
	if (*depth < 0)
		return "no pattern";
	return NULL;
}

/*
 * Add @s between the quotes @q in pieces: libxtables 1.8.9 formats each
 * addition in a 1024-byte buffer and corrupts the rule when one is longer.
 */
static void cg2_xlate_string(struct xt_xlate *xl, const char *s, const char *q)
{
	size_t len = strlen(s), n;

	cg2_xlate_add_nospc(xl, "%s", q);
	for (; len > 0; s += n, len -= n) {
		n = len < 512 ? len : 512;
		cg2_xlate_add_nospc(xl, "%.*s", (int)n, s);
	}
	cg2_xlate_add_nospc(xl, "%s", q);
}

static int cgroup2_xlate(struct xt_xlate *xl,
			 const struct xt_xlate_mt_params *params)
{
	struct cg2_info info = cg2_entry_info(params->match);
	char path[XT_CGROUP2_PATTERNS_SIZE], comment[256];
	const char *q = cg2_xlate_quote(params), *why, *pat, *old;
	size_t qlen = strlen(q), olen;
	int depth;

	/*
	 * nft lists rules of iptables-nft through xlate too: there a native
	 * form would hide that the kernel runs our late-binding match, and
	 * saving it would lose that.  Let nft show "xt match cgroup2".
	 */
	if (!cg2_translating())
		return 0;
	why = cg2_xlate_obstacle(info, &depth);
	if (why) {
		fprintf(stderr, "cgroup2: rule not translated: nft's \"socket "
			"cgroupv2\" cannot express %s; nft-cgroupd applies "
			"cgroup2 patterns to nftables sets\n", why);
		return 0;
	}

	xt_xlate_add(xl, "socket cgroupv2 level %d ", depth);
	if (info.head->count > 1)
		cg2_xlate_add_nospc(xl, "{ ");
	for_each_pattern(pat, info) {
		if (pat != info.head->patterns)
			cg2_xlate_add_nospc(xl, ", ");
		if (depth == 0)
			snprintf(path, sizeof(path), "/");
		else
			cg2_literal_path(pat, path, sizeof(path));
		cg2_xlate_string(xl, path, q);
	}
	if (info.head->count > 1)
		cg2_xlate_add_nospc(xl, " }");

	/*
	 * nft allows one comment a rule, so merge ours into the one -m comment
	 * gave, if it came first and there is room; a later one replaces it.
	 * libxt_comment stores its comment already quoted, with @q.
	 */
	old = xt_xlate_get_comment(xl);
	olen = old ? strlen(old) : 0;
	if (!old) {
		snprintf(comment, sizeof(comment), "%s%s%s",
			 q, CG2_XLATE_COMMENT, q);
		xt_xlate_add_comment(xl, comment);
	} else if (olen >= 2 * qlen && strncmp(old, q, qlen) == 0 &&
		   strcmp(old + olen - qlen, q) == 0 &&
		   olen - 2 * qlen + 2 + strlen(CG2_XLATE_COMMENT) <= 128) {
		snprintf(comment, sizeof(comment), "%.*s; %s%s",
			 (int)(olen - qlen), old, CG2_XLATE_COMMENT, q);
		xt_xlate_add_comment(xl, comment);
	}
	cg2_check_all(info);
	return 1;
}

static struct xtables_match cgroup2_mt_reg[] = {
	{
		.family		= NFPROTO_UNSPEC,
		.name		= "cgroup2",
		.revision	= 0,
		.version	= XTABLES_VERSION,
		.size		= XT_ALIGN(sizeof(struct xt_cgroup2_info)),
		.userspacesize	= offsetof(struct xt_cgroup2_info, priv),
		.help		= cgroup2_help,
		.print		= cgroup2_print,
		.save		= cgroup2_save,
		.x6_parse	= cgroup2_parse_v0,
		.x6_fcheck	= cgroup2_check_v0,
		.x6_options	= cgroup2_opts,
		.xlate		= cgroup2_xlate,
	},
	{
		.family		= NFPROTO_UNSPEC,
		.name		= "cgroup2",
		.revision	= 1,
		.version	= XTABLES_VERSION,
		.size		= XT_ALIGN(sizeof(struct xt_cgroup2_info_v1)),
		.userspacesize	= offsetof(struct xt_cgroup2_info_v1, priv),
		.help		= cgroup2_help,
		.print		= cgroup2_print,
		.save		= cgroup2_save,
		.x6_parse	= cgroup2_parse_v1,
		.x6_fcheck	= cgroup2_check_v1,
		.x6_options	= cgroup2_opts,
		.xlate		= cgroup2_xlate,
	},
};

/*
 * iptables uses one revision for every rule of a command: the newest the
 * kernel has.  A rule set with a rule whose patterns outgrow revision 1
 * loads as revision 0 with XT_CGROUP2_REVISION=0; "1" asks for revision 1
 * alone.  Anything else is ignored, with a word why.
 */
static void __attribute__((constructor)) cgroup2_mt_ldr(void)
{
	const char *want = getenv("XT_CGROUP2_REVISION");
	size_t i;

	for (i = 0; i < sizeof(cgroup2_mt_reg) / sizeof(*cgroup2_mt_reg); i++) {
		if (want && (!strcmp(want, "0") || !strcmp(want, "1")) &&
		    cgroup2_mt_reg[i].revision != want[0] - '0')
			continue;
		xtables_register_match(&cgroup2_mt_reg[i]);
	}
	if (want && strcmp(want, "0") && strcmp(want, "1"))
		fprintf(stderr, "cgroup2: XT_CGROUP2_REVISION=%s ignored: "
			"it is 0 or 1\n", want);
}
