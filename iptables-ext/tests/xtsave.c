// SPDX-License-Identifier: GPL-2.0
/*
 * xtsave: parse one match, or one target, or a match then a target, the
 * way iptables does and print what iptables-save and iptables -L would
 * print for them, without a kernel.
 *
 *   XTABLES_LIBDIR=DIR xtsave [-6] 'RULE'
 *   xtsave --split 'RULE'	(the arguments of RULE, each NUL-terminated)
 *
 * RULE is a line in iptables-restore syntax such as
 * '-m cgroup2 ! --path "a b" --path c' or '-j CGROUP2LOG --log-prefix x'.
 * Prints the save form on the first line and the print (-L) form on the
 * second (the target's alone when there is one, as -L prints it last); exits 2 with the extension's
 * message on a parameter problem.  The host kernel lacks xt_cgroup2, so
 * iptables-save cannot be asked; run-t.sh checks this tool's view against
 * the real iptables-restore (see there).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xtables.h>

#define MAX_ARGS	512
#define PARAM_SIZE	1024	/* iptables-restore's argument buffer */
#ifndef XT_OPTION_OFFSET_SCALE
#define XT_OPTION_OFFSET_SCALE	256	/* xshared.h: options per extension */
#endif

static void xtsave_exit(enum xtables_exittype status, const char *msg, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

static void xtsave_exit(enum xtables_exittype status, const char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vfprintf(stderr, msg, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static int xtsave_compat_rev(const char *name, uint8_t rev, int opt)
{
	(void)name; (void)rev; (void)opt;
	return 1;
}

static struct option no_opts[] = { { NULL, 0, NULL, 0 } };

static struct xtables_globals xtsave_globals = {
	.program_name	= "xtsave",
	.program_version = "0",
	.orig_opts	= no_opts,
	.exit_err	= xtsave_exit,
	.compat_rev	= xtsave_compat_rev,
};

/*
 * Split @line as iptables-restore 1.8.9 does (add_param_to_argv): blanks
 * separate, a closing '"' ends an argument (even an empty one), inside
 * quotes a backslash takes the next byte literally, and an argument of
 * PARAM_SIZE bytes or more is an error (unless @nolimit).
 */
static void emit(char **argv, int *argc, char *param, size_t *len)
{
	if (*argc >= MAX_ARGS - 1)
		xtsave_exit(PARAMETER_PROBLEM, "too many arguments");
	param[*len] = '\0';
	/* xtables_strdup() is missing before iptables 1.8.8 */
	argv[*argc] = strdup(param);
	if (!argv[(*argc)++])
		xtsave_exit(RESOURCE_PROBLEM, "out of memory");
	*len = 0;
}

static int split(const char *line, char **argv, bool nolimit)
{
	size_t cap = strlen(line) + 1, len = 0;
	char *param = xtables_malloc(cap);
	int argc = 0, quote = 0, esc = 0;
	const char *c;

	argv[argc++] = "xtsave";
	for (c = line; ; c++) {
		if (quote && *c) {
			if (esc) {
				esc = 0;
			} else if (*c == '\\') {
				esc = 1;
				continue;
			} else if (*c == '"') {
				quote = 0;
				emit(argv, &argc, param, &len);
				continue;
			}
		} else if (*c == '"') {
			quote = 1;
			continue;
		} else if (*c == '\0' || *c == ' ' || *c == '\t' ||
			   *c == '\n') {
			if (len)
				emit(argv, &argc, param, &len);
			if (*c == '\0')
				break;
			continue;
		}
		param[len++] = *c;
		if (!nolimit && len >= PARAM_SIZE)
			xtsave_exit(PARAMETER_PROBLEM, "Parameter too long!");
	}
	free(param);
	argv[argc] = NULL;
	return argc;
}

int main(int argc, char **argv)
{
	struct xtables_match *m = NULL;
	struct xtables_target *t = NULL;
	char *args[MAX_ARGS];
	struct option *opts;
	bool invert = false;
	int nfproto = NFPROTO_IPV4;
	int n, c;
	size_t size;

	if (argc == 3 && strcmp(argv[1], "--split") == 0) {
		/* the arguments, NUL-terminated, for a shell to pass on */
		n = split(argv[2], args, true);
		for (c = 1; c < n; c++)
			fwrite(args[c], 1, strlen(args[c]) + 1, stdout);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "-6") == 0) {
		nfproto = NFPROTO_IPV6;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: xtsave [-6] 'RULE'\n");
		return 1;
	}
	if (xtables_init_all(&xtsave_globals, nfproto) < 0)
		xtsave_exit(OTHER_PROBLEM, "xtables_init_all failed");
	n = split(argv[1], args, false);

	opts = no_opts;
	opterr = 0;
	while ((c = getopt_long(n, args, "-:m:j:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			if (t)
				xtsave_exit(PARAMETER_PROBLEM,
					    "xtsave: one -j only");
			t = xtables_find_target(optarg, XTF_LOAD_MUST_SUCCEED);
			size = XT_ALIGN(sizeof(struct xt_entry_target)) + t->size;
			t->t = xtables_calloc(1, size);
			t->t->u.target_size = size;
			snprintf(t->t->u.user.name, sizeof(t->t->u.user.name),
				 "%s", t->name);
			t->t->u.user.revision = t->revision;
			if (t->init)
				t->init(t->t);
			opts = xtables_options_xfrm(no_opts, opts, t->x6_options,
						    &t->option_offset);
			break;
		case 'm':
			if (m || t)
				xtsave_exit(PARAMETER_PROBLEM,
					    "xtsave: one -m only, before any -j");
			m = xtables_find_match(optarg, XTF_LOAD_MUST_SUCCEED,
					       NULL);
			size = XT_ALIGN(sizeof(struct xt_entry_match)) + m->size;
			m->m = xtables_calloc(1, size);
			m->m->u.match_size = size;
			snprintf(m->m->u.user.name, sizeof(m->m->u.user.name),
				 "%s", m->name);
			m->m->u.user.revision = m->revision;
			if (m->init)
				m->init(m->m);
			opts = xtables_options_xfrm(no_opts, NULL,
						    m->x6_options,
						    &m->option_offset);
			break;
		case 1:
			/* "!" before an option, as iptables' do_parse takes it */
			if (strcmp(optarg, "!") != 0)
				xtsave_exit(PARAMETER_PROBLEM,
					    "Bad argument `%s'", optarg);
			if (invert)
				xtsave_exit(PARAMETER_PROBLEM,
					    "multiple consecutive ! not allowed");
			invert = true;
			continue;
		case ':':
			xtsave_exit(PARAMETER_PROBLEM,
				    "option \"%s\" requires an argument",
				    args[optind - 1]);
		case '?':
			xtsave_exit(PARAMETER_PROBLEM, "unknown option \"%s\"",
				    args[optind - 1]);
		default:
			if (t && c >= (int)t->option_offset &&
			    c < (int)(t->option_offset + XT_OPTION_OFFSET_SCALE))
				xtables_option_tpcall(c, args, invert, t, NULL);
			else if (m)
				xtables_option_mpcall(c, args, invert, m, NULL);
			else
				xtsave_exit(PARAMETER_PROBLEM, "no -m given");
			break;
		}
		invert = false;
	}
	if (!m && !t)
		xtsave_exit(PARAMETER_PROBLEM, "no -m given");
	if (invert)
		xtsave_exit(PARAMETER_PROBLEM, "\"!\" at the end");
	if (m)
		xtables_option_mfcall(m);
	if (t)
		xtables_option_tfcall(t);

	/* What the kernel hands back: userspacesize bytes, the rest hidden. */
	if (m) {
		memset(m->m->data + m->userspacesize, 0,
		       m->size - m->userspacesize);
		printf("-m %s", m->name);
		if (m->save)
			m->save(NULL, m->m);
	}
	if (t) {
		memset(t->t->data + t->userspacesize, 0,
		       t->size - t->userspacesize);
		printf("%s-j %s", m ? " " : "", t->name);
		if (t->save)
			t->save(NULL, t->t);
	}
	putchar('\n');
	if (t && t->print)
		t->print(NULL, t->t, 0);
	else if (m && m->print)
		m->print(NULL, m->m, 0);
	putchar('\n');
	return 0;
}
