// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: libxt_cgroup2's option parsing, print, save and
 * translate (iptables-ext/libxt_cgroup2.c, included whole: its functions
 * are static).  Input: the first byte's low bit is "!", the next picks
 * revision 1 over 0, then one --path argument a line.  Parse errors end in xtables_error(), which this target
 * turns into a longjmp; an accepted rule is printed, saved and translated,
 * and its save line must give back every pattern byte for byte.
 */
#include <getopt.h>
#include <setjmp.h>
#include <stdint.h>

#include "../../iptables-ext/libxt_cgroup2.c"

static jmp_buf parse_failed;

static void __attribute__((noreturn)) fuzz_exit(enum xtables_exittype status,
						const char *msg, ...)
{
	(void)status;
	(void)msg;
	longjmp(parse_failed, 1);
}

static struct xtables_globals fuzz_globals = {
	.program_name = "fuzz_ext",
	.program_version = "0",
	.exit_err = fuzz_exit,
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	xtables_init_all(&fuzz_globals, NFPROTO_IPV4);
	/* Print, save and translate write to stdout: keep the log readable. */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

/*
 * xtables_save_string: bare when every byte is in [A-Za-z0-9_-], else
 * "..." with \", \\ and \' escaped.  Undo it.
 */
static const char *unquote_next(const char *s, char *out, size_t size)
{
	bool quoted;
	size_t n = 0;

	s = strstr(s, " --path ");
	if (!s)
		return NULL;
	s += 8;
	quoted = *s == '"';
	for (s += quoted; *s && *s != (quoted ? '"' : ' '); s++) {
		if (quoted && *s == '\\' && s[1])
			s++;
		if (n + 1 < size)
			out[n++] = *s;
	}
	out[n] = '\0';
	return quoted && !*s ? NULL : s + quoted;
}

/* The save line must give back each pattern exactly. */
static void check_save(const struct xt_entry_match *m)
{
	struct cg2_info info = cg2_entry_info(m);
	char *line = NULL, pat[CG2_MAX_PATTERN_LEN + 2];
	const char *p = info.head->patterns, *s;
	size_t size = 0;
	FILE *saved = stdout;
	unsigned int i;

	stdout = open_memstream(&line, &size);
	cgroup2_save(NULL, m);
	fclose(stdout);
	stdout = saved;
	for (i = 0, s = line; i < info.head->count; i++, p += strlen(p) + 1) {
		s = unquote_next(s, pat, sizeof(pat));
		if (!s || strcmp(pat, p))
			abort();	/* iptables-restore would read back another rule */
	}
	free(line);
}

static void translate(const struct xt_entry_match *m)
{
	struct xt_xlate *xl = xt_xlate_alloc(1024);
	struct xt_xlate_mt_params params = { .match = m, .numeric = 1 };

	cgroup2_xlate(xl, &params);
	xt_xlate_free(xl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xt_entry_match *m;
	struct xt_option_call cb = { 0 };
	char *text, *arg, *save;
	unsigned int rev;
	size_t msize;

	if (size < 1)
		return 0;
	rev = data[0] >> 1 & 1;
	msize = XT_ALIGN(sizeof(*m)) + (rev ? XT_ALIGN(sizeof(struct xt_cgroup2_info_v1)) :
					     XT_ALIGN(sizeof(struct xt_cgroup2_info)));
	m = calloc(1, msize);
	m->u.match_size = msize;
	m->u.user.revision = rev;
	text = strndup((const char *)data + 1, size - 1);
	cb.entry = &cgroup2_opts[0];
	cb.ext_name = "cgroup2";
	cb.data = m->data;
	cb.invert = data[0] & 1;
	cb.match = &m;
	if (setjmp(parse_failed) == 0) {
		for (arg = strtok_r(text, "\n", &save); arg; arg = strtok_r(NULL, "\n", &save)) {
			/* libxtables checks getopt's optarg for the argument. */
			cb.arg = optarg = arg;
			cg2_parse(&cb, cg2_entry_info(m));
			cb.xflags |= 1 << O_PATH;
			cb.invert = false;
		}
		if (cg2_entry_info(m).head->count) {
			cgroup2_print(NULL, m, 0);
			check_save(m);
			translate(m);
		}
	}
	free(text);
	free(m);
	return 0;
}
