// SPDX-License-Identifier: GPL-2.0
/*
 * libxt_CGROUP2LOG: iptables/ip6tables support for the CGROUP2LOG target,
 * which logs like LOG (syslog) or NFLOG (nfnetlink_log) with the cgroup v2
 * path and id of the packet's socket in every line.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <xtables.h>

#include "xt_CGROUP2LOG.h"
#include "cg2_xtables.h"

/* See libxt_cgroup2.c: one layout for 32- and 64-bit userspace. */
_Static_assert(sizeof(struct xt_cgroup2log_info) == 64 &&
	       offsetof(struct xt_cgroup2log_info, root_id) == 48,
	       "struct xt_cgroup2log_info differs from the 64-bit kernel's");

/* LOG's default level, and the one nft's log statement assumes. */
#define CG2LOG_DEFAULT_LEVEL	LOG_WARNING

/* See libxt_cgroup2.c: what this libxtables offers, found by the Makefile. */
#ifdef HAVE_XT_XLATE_ADD_NOSPC
#define cg2log_xlate_add_nospc xt_xlate_add_nospc
#else
#define cg2log_xlate_add_nospc xt_xlate_add
#endif

enum {
	O_LOG_PREFIX = 0,
	O_LOG_LEVEL,
	O_LOG_TCPSEQ,
	O_LOG_TCPOPT,
	O_LOG_IPOPT,
	O_LOG_UID,
	O_LOG_MAC,
	O_NFLOG_GROUP,
	O_NFLOG_RANGE,
	O_NFLOG_SIZE,
	O_NFLOG_THRESHOLD,
	F_LOG = (1 << O_LOG_LEVEL) | (1 << O_LOG_TCPSEQ) | (1 << O_LOG_TCPOPT) |
		(1 << O_LOG_IPOPT) | (1 << O_LOG_UID) | (1 << O_LOG_MAC),
	F_NFLOG = (1 << O_NFLOG_GROUP) | (1 << O_NFLOG_RANGE) |
		  (1 << O_NFLOG_SIZE) | (1 << O_NFLOG_THRESHOLD),
};

#define s struct xt_cgroup2log_info
static const struct xt_option_entry cg2log_opts[] = {
	{.name = "log-prefix", .id = O_LOG_PREFIX, .type = XTTYPE_STRING,
	 .min = 1, .max = XT_CGROUP2LOG_PREFIX_SIZE - 1},
	{.name = "log-level", .id = O_LOG_LEVEL, .type = XTTYPE_SYSLOGLEVEL,
	 .flags = XTOPT_PUT, XTOPT_POINTER(s, level)},
	{.name = "log-tcp-sequence", .id = O_LOG_TCPSEQ, .type = XTTYPE_NONE},
	{.name = "log-tcp-options", .id = O_LOG_TCPOPT, .type = XTTYPE_NONE},
	{.name = "log-ip-options", .id = O_LOG_IPOPT, .type = XTTYPE_NONE},
	{.name = "log-uid", .id = O_LOG_UID, .type = XTTYPE_NONE},
	{.name = "log-macdecode", .id = O_LOG_MAC, .type = XTTYPE_NONE},
	{.name = "nflog-group", .id = O_NFLOG_GROUP, .type = XTTYPE_UINT16,
	 .flags = XTOPT_PUT, XTOPT_POINTER(s, group)},
	{.name = "nflog-range", .id = O_NFLOG_RANGE, .type = XTTYPE_UINT32,
	 .excl = 1 << O_NFLOG_SIZE},
	{.name = "nflog-size", .id = O_NFLOG_SIZE, .type = XTTYPE_UINT32,
	 .excl = 1 << O_NFLOG_RANGE},
	{.name = "nflog-threshold", .id = O_NFLOG_THRESHOLD,
	 .type = XTTYPE_UINT16, .flags = XTOPT_PUT, XTOPT_POINTER(s, threshold)},
	XTOPT_TABLEEND,
};
#undef s

static void cg2log_help(void)
{
	printf(
"CGROUP2LOG target options (log like LOG, or like NFLOG with --nflog-*):\n"
" --log-prefix PREFIX     prefix of each line, at most %u bytes; then come\n"
"                         \"CGROUP=PATH CGROUP_ID=ID \" (\"CGROUP=- \" without\n"
"                         a process's socket)\n"
"LOG mode (syslog, the kernel log):\n"
" --log-level LEVEL       syslog level, a number or a name (default warning)\n"
" --log-tcp-sequence      log TCP sequence numbers\n"
" --log-tcp-options       log TCP options\n"
" --log-ip-options        log IP/IPv6 options\n"
" --log-uid               log the UID and GID of the socket\n"
" --log-macdecode         decode the MAC header\n"
"NFLOG mode (nfnetlink_log, e.g. ulogd2):\n"
" --nflog-group N         netlink group, 0 to 65535 (default 0)\n"
" --nflog-size N          copy at most N bytes of the packet\n"
" --nflog-range N         the same as --nflog-size\n"
" --nflog-threshold N     packets queued in the kernel before sending\n"
"Rate limits: put -m limit before -j CGROUP2LOG.\n",
	       XT_CGROUP2LOG_PREFIX_SIZE - 1);
}

static void cg2log_init(struct xt_entry_target *t)
{
	struct xt_cgroup2log_info *info = (void *)t->data;

	info->level = CG2LOG_DEFAULT_LEVEL;
}

static void cg2log_parse(struct xt_option_call *cb)
{
	struct xt_cgroup2log_info *info = cb->data;

	xtables_option_parse(cb);
	switch (cb->entry->id) {
	case O_LOG_PREFIX:
		if (strchr(cb->arg, '\n'))
			xtables_error(PARAMETER_PROBLEM,
				      "CGROUP2LOG: --log-prefix: no newline allowed");
		snprintf(info->prefix, sizeof(info->prefix), "%s", cb->arg);
		break;
	case O_LOG_TCPSEQ:
		info->logflags |= XT_CGROUP2LOG_TCPSEQ;
		break;
	case O_LOG_TCPOPT:
		info->logflags |= XT_CGROUP2LOG_TCPOPT;
		break;
	case O_LOG_IPOPT:
		info->logflags |= XT_CGROUP2LOG_IPOPT;
		break;
	case O_LOG_UID:
		info->logflags |= XT_CGROUP2LOG_UID;
		break;
	case O_LOG_MAC:
		info->logflags |= XT_CGROUP2LOG_MACDECODE;
		break;
	case O_NFLOG_RANGE:
	case O_NFLOG_SIZE:
		info->len = cb->val.u32;
		info->flags |= XT_CGROUP2LOG_F_COPY_LEN;
		break;
	}
}

static void cg2log_check(struct xt_fcheck_call *cb)
{
	struct xt_cgroup2log_info *info = cb->data;

	if ((cb->xflags & F_LOG) && (cb->xflags & F_NFLOG))
		xtables_error(PARAMETER_PROBLEM,
			      "CGROUP2LOG: --log-level and --log-* flags (LOG mode) "
			      "exclude --nflog-* options (NFLOG mode)");
	if (cb->xflags & F_NFLOG) {
		info->flags |= XT_CGROUP2LOG_F_NFLOG;
		info->level = 0;
	}
}

static bool cg2log_nflog(const struct xt_cgroup2log_info *info)
{
	return info->flags & XT_CGROUP2LOG_F_NFLOG;
}

static const char *const cg2log_levels[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

static void cg2log_print(const void *ip, const struct xt_entry_target *t,
			 int numeric)
{
	const struct xt_cgroup2log_info *info = (const void *)t->data;

	(void)ip;
	(void)numeric;
	if (cg2log_nflog(info)) {
		printf(" CGROUP2LOG nflog-group %u", info->group);
		if (info->flags & XT_CGROUP2LOG_F_COPY_LEN)
			printf(" nflog-size %u", info->len);
		if (info->threshold)
			printf(" nflog-threshold %u", info->threshold);
	} else {
		/* names only: -L and -L -n print the same */
		if (info->level >= 8)
			printf(" CGROUP2LOG level %u", info->level);
		else
			printf(" CGROUP2LOG level %s", cg2log_levels[info->level]);
		if (info->logflags & XT_CGROUP2LOG_TCPSEQ)
			printf(" tcp-sequence");
		if (info->logflags & XT_CGROUP2LOG_TCPOPT)
			printf(" tcp-options");
		if (info->logflags & XT_CGROUP2LOG_IPOPT)
			printf(" ip-options");
		if (info->logflags & XT_CGROUP2LOG_UID)
			printf(" uid");
		if (info->logflags & XT_CGROUP2LOG_MACDECODE)
			printf(" macdecode");
	}
	if (info->prefix[0]) {
		printf(" prefix");
		xtables_save_string(info->prefix);
	}
}

static void cg2log_save(const void *ip, const struct xt_entry_target *t)
{
	const struct xt_cgroup2log_info *info = (const void *)t->data;

	(void)ip;
	if (info->prefix[0]) {
		printf(" --log-prefix");
		xtables_save_string(info->prefix);
	}
	if (cg2log_nflog(info)) {
		printf(" --nflog-group %u", info->group);
		if (info->flags & XT_CGROUP2LOG_F_COPY_LEN)
			printf(" --nflog-size %u", info->len);
		if (info->threshold)
			printf(" --nflog-threshold %u", info->threshold);
		return;
	}
	if (info->level != CG2LOG_DEFAULT_LEVEL)
		printf(" --log-level %u", info->level);
	if (info->logflags & XT_CGROUP2LOG_TCPSEQ)
		printf(" --log-tcp-sequence");
	if (info->logflags & XT_CGROUP2LOG_TCPOPT)
		printf(" --log-tcp-options");
	if (info->logflags & XT_CGROUP2LOG_IPOPT)
		printf(" --log-ip-options");
	if (info->logflags & XT_CGROUP2LOG_UID)
		printf(" --log-uid");
	if (info->logflags & XT_CGROUP2LOG_MACDECODE)
		printf(" --log-macdecode");
}

/*
 * nft's log statement has no cgroup: translate to what it can log (prefix,
 * level, flags, or the NFLOG group) and say on stderr what is lost.  Only
 * for iptables-translate: nft lists rules of iptables-nft through xlate too,
 * and a plain "log" there would hide our target, and lose CGROUP= when the
 * listing is saved and loaded again.
 */
static int cg2log_xlate(struct xt_xlate *xl,
			const struct xt_xlate_tg_params *params)
{
	const struct xt_cgroup2log_info *info = (const void *)params->target->data;
	const char *q = "\"";
	const char *p;

#ifdef HAVE_XT_XLATE_ESCAPE_QUOTES
	if (params->escape_quotes)
		q = "\\\"";
#endif
	if (!cg2_translating())
		return 0;
	xt_xlate_add(xl, "log");
	if (info->prefix[0]) {
		/* nft strings cannot hold '"' or '\': give up on those */
		if (strpbrk(info->prefix, "\"\\"))
			return 0;
		cg2log_xlate_add_nospc(xl, " prefix %s", q);
		for (p = info->prefix; *p; p++)
			cg2log_xlate_add_nospc(xl, "%c", *p);
		cg2log_xlate_add_nospc(xl, "%s", q);
	}
	if (cg2log_nflog(info)) {
		cg2log_xlate_add_nospc(xl, " group %u", info->group);
		if (info->flags & XT_CGROUP2LOG_F_COPY_LEN)
			cg2log_xlate_add_nospc(xl, " snaplen %u", info->len);
		if (info->threshold)
			cg2log_xlate_add_nospc(xl, " queue-threshold %u",
					       info->threshold);
	} else {
		if (info->level != CG2LOG_DEFAULT_LEVEL && info->level < 8)
			cg2log_xlate_add_nospc(xl, " level %s",
					       info->level == LOG_WARNING ?
					       "warn" : cg2log_levels[info->level]);
		if ((info->logflags & XT_CGROUP2LOG_LOGFLAGS_MASK) ==
		    XT_CGROUP2LOG_LOGFLAGS_MASK) {
			cg2log_xlate_add_nospc(xl, " flags all");
		} else {
			if (info->logflags & (XT_CGROUP2LOG_TCPSEQ |
					      XT_CGROUP2LOG_TCPOPT)) {
				cg2log_xlate_add_nospc(xl, " flags tcp");
				if (info->logflags & XT_CGROUP2LOG_TCPSEQ)
					cg2log_xlate_add_nospc(xl, " sequence");
				if ((info->logflags & XT_CGROUP2LOG_TCPSEQ) &&
				    (info->logflags & XT_CGROUP2LOG_TCPOPT))
					cg2log_xlate_add_nospc(xl, ",");
				else if (info->logflags & XT_CGROUP2LOG_TCPOPT)
					cg2log_xlate_add_nospc(xl, " ");
				if (info->logflags & XT_CGROUP2LOG_TCPOPT)
					cg2log_xlate_add_nospc(xl, "options");
			}
			if (info->logflags & XT_CGROUP2LOG_IPOPT)
				cg2log_xlate_add_nospc(xl, " flags ip options");
			if (info->logflags & XT_CGROUP2LOG_UID)
				cg2log_xlate_add_nospc(xl, " flags skuid");
			if (info->logflags & XT_CGROUP2LOG_MACDECODE)
				cg2log_xlate_add_nospc(xl, " flags ether");
		}
	}
	fprintf(stderr, "CGROUP2LOG: translated to a plain nft log statement: "
		"its lines carry no CGROUP= path or id; nft-cgroupd gives "
		"nftables per-service sets and counters instead\n");
	return 1;
}

static struct xtables_target cg2log_target = {
	.family		= NFPROTO_UNSPEC,
	.name		= "CGROUP2LOG",
	.revision	= 0,
	.version	= XTABLES_VERSION,
	.size		= XT_ALIGN(sizeof(struct xt_cgroup2log_info)),
	.userspacesize	= offsetof(struct xt_cgroup2log_info, root_id),
	.help		= cg2log_help,
	.init		= cg2log_init,
	.print		= cg2log_print,
	.save		= cg2log_save,
	.x6_parse	= cg2log_parse,
	.x6_fcheck	= cg2log_check,
	.x6_options	= cg2log_opts,
	.xlate		= cg2log_xlate,
};

static void __attribute__((constructor)) cg2log_tg_ldr(void)
{
	xtables_register_target(&cg2log_target);
}
