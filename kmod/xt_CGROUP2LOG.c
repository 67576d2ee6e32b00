// SPDX-License-Identifier: GPL-2.0
/*
 * CGROUP2LOG: log a packet through the kernel's nf_log backends, as LOG
 * (syslog) or NFLOG (nfnetlink_log) do, with the cgroup v2 path and id of
 * its socket in the prefix: "PREFIX CGROUP=system.slice/web.service
 * CGROUP_ID=4711 ".  Bytes of names that could end the token or forge
 * another field (space, '=', '"', '\', control bytes, non-ASCII) are
 * written "\xNN".  The path is relative to the cgroup namespace root of
 * whoever inserted the rule, like the cgroup2 match's patterns; packets
 * without a process's socket, and sockets outside that namespace, log
 * "CGROUP=-".  The path is put together only for the packet being logged,
 * from the names of its cgroup's ancestors, in a bounded stack buffer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/cgroup.h>
#include <linux/string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/nf_log.h>
#include <net/sock.h>
#include <net/netfilter/nf_log.h>

#include "xt_CGROUP2LOG.h"
#include "xt_cgroup2_compat.h"
#include "xt_cgroup2_log.h"
#include "xt_cgroup2_sock.h"

/* @priv_flags: this rule holds IPv6 defragmentation */
#define CG2LOG_DEFRAG	1

#define CG2LOG_ELLIPSIS	"..."
#define CG2LOG_ESCLEN	4	/* "\xNN" */

/* hex_asc[] moved to <linux/hex.h> (6.12 has it, 6.1 not): our own */
static const char cg2log_hex[] = "0123456789abcdef";

/*
 * Bytes of a cgroup name written as "\xNN": a name may hold any byte but
 * '/' and newline, and must not forge fields of the line (SRC=...) nor
 * quote, nor carry control bytes to the terminal reading the log.
 */
static bool cg2log_escaped(u8 c)
{
	return c <= ' ' || c >= 0x7f || c == '\\' || c == '"' || c == '=';
}

/*
 * The path of @cgrp below @root, escaped, as the last bytes of @buf (@size
 * bytes, NUL included); returns where it starts.  The namespace root
 * itself is "/".  A path longer than @size - 1 bytes keeps its end: "..."
 * then the rest from the first '/' that fits, or the end of the last name
 * if even that one does not fit; an escape is never cut.  Every byte
 * written stays in @buf, so the walk ends once @buf is full.
 */
static const char *cg2log_path(struct cgroup *cgrp, int root_level,
			       char *buf, size_t size)
{
	char *end = buf + size - 1, *p = end, *q, *first = NULL;
	const char *name;
	size_t n;
	u8 c;

	*p = '\0';
	if (cgrp->level == root_level) {
		*--p = '/';
		return p;
	}
	for (; cgrp->level > root_level; cgrp = cgroup_parent(cgrp)) {
		if (p != end) {
			if (p == buf)
				goto cut;
			*--p = '/';
		}
		name = cg2_cgroup_name(cgrp);
		n = strlen(name);
		while (n--) {
			c = name[n];
			if (!cg2log_escaped(c)) {
				if (p == buf)
					goto cut;
				*--p = c;
				continue;
			}
			if (p - buf < CG2LOG_ESCLEN)
				goto cut;
			p -= CG2LOG_ESCLEN;
			p[0] = '\\';
			p[1] = 'x';
			p[2] = cg2log_hex[c >> 4];
			p[3] = cg2log_hex[c & 0xf];
		}
	}
	return p;
cut:
	/*
	 * @buf is full from @p on, in whole bytes and escapes (a '\' starts
	 * one): make room for the ellipsis at a '/' if one is left, else at
	 * the first byte or escape that leaves room for it.
	 */
	for (q = p; q < end; q += *q == '\\' ? CG2LOG_ESCLEN : 1) {
		if (q < buf + strlen(CG2LOG_ELLIPSIS))
			continue;
		if (*q == '/')
			break;
		if (!first)
			first = q;
	}
	if (q == end && first)
		q = first;
	q -= strlen(CG2LOG_ELLIPSIS);
	memcpy(q, CG2LOG_ELLIPSIS, strlen(CG2LOG_ELLIPSIS));
	return q;
}

/*
 * Fill @buf (NF_LOG_PREFIXLEN bytes) with the user's prefix, the cgroup
 * path and the id, then a space for syslog lines, which go on with "IN=";
 * nfnetlink_log carries the prefix apart, and ulogd adds its own space.
 * @cgrp is the packet's as cg2_packet_cgroup() finds it: NULL for
 * packets of no process (forwarded, kernel sockets, TIME_WAIT).
 */
static void cg2log_prefix(char *buf, const struct xt_cgroup2log_info *info,
			  struct cgroup *cgrp)
{
	char path[NF_LOG_PREFIXLEN], id[24];
	const char *prefix = info->prefix;
	const char *sep = info->flags & XT_CGROUP2LOG_F_NFLOG ? "" : " ";
	int root_level = info->root_level;
	size_t room;

	if (!cgrp || !cg2_cgroup_in_ns(cgrp, info->root_id, root_level))
		goto none;

	snprintf(id, sizeof(id), "%llu", (unsigned long long)cgroup_id(cgrp));
	/* prefix < 32 bytes and id < 21: at least 57 bytes for the path */
	room = NF_LOG_PREFIXLEN - strlen(prefix) - strlen(id) -
	       strlen("CGROUP= CGROUP_ID= ");
	snprintf(buf, NF_LOG_PREFIXLEN, "%sCGROUP=%s CGROUP_ID=%s%s", prefix,
		 cg2log_path(cgrp, root_level, path + sizeof(path) - room,
			     room),
		 id, sep);
	return;
none:
	snprintf(buf, NF_LOG_PREFIXLEN, "%sCGROUP=-%s", prefix, sep);
}

static unsigned int
cg2log_tg(struct sk_buff *skb, const struct xt_action_param *par)
{
	const struct xt_cgroup2log_info *info = par->targinfo;
	char prefix[NF_LOG_PREFIXLEN];
	struct nf_loginfo li = {};

	cg2log_prefix(prefix, info, cg2_packet_cgroup(skb, par));

	if (info->flags & XT_CGROUP2LOG_F_NFLOG) {
		li.type = NF_LOG_TYPE_ULOG;
		li.u.ulog.group = info->group;
		li.u.ulog.qthreshold = info->threshold;
		li.u.ulog.copy_len = info->len;
		if (info->flags & XT_CGROUP2LOG_F_COPY_LEN)
			li.u.ulog.flags |= NF_LOG_F_COPY_LEN;
	} else {
		li.type = NF_LOG_TYPE_LOG;
		li.u.log.level = info->level;
		li.u.log.logflags = info->logflags;
	}
	nf_log_packet(xt_net(par), xt_family(par), xt_hooknum(par), skb,
		      xt_in(par), xt_out(par), &li, "%s", prefix);
	return XT_CONTINUE;
}

/* The blob comes from userspace: trust nothing in it. */
static int cg2log_check_info(const struct xt_cgroup2log_info *info)
{
	if (info->flags & ~XT_CGROUP2LOG_FLAGS_MASK) {
		pr_info_ratelimited("CGROUP2LOG: unknown flags 0x%x\n",
				    info->flags & ~XT_CGROUP2LOG_FLAGS_MASK);
		return -EINVAL;
	}
	if (!memchr(info->prefix, '\0', sizeof(info->prefix))) {
		pr_info_ratelimited("CGROUP2LOG: prefix is not NUL-terminated within %zu bytes\n",
				    sizeof(info->prefix));
		return -EINVAL;
	}
	if (info->pad) {
		pr_info_ratelimited("CGROUP2LOG: reserved field is not zero\n");
		return -EINVAL;
	}
	if (info->flags & XT_CGROUP2LOG_F_NFLOG) {
		if (info->level || info->logflags) {
			pr_info_ratelimited("CGROUP2LOG: NFLOG mode with a log level or LOG flags\n");
			return -EINVAL;
		}
		if (info->len && !(info->flags & XT_CGROUP2LOG_F_COPY_LEN)) {
			pr_info_ratelimited("CGROUP2LOG: copy length %u without its flag\n",
					    info->len);
			return -EINVAL;
		}
		return 0;
	}
	if (info->flags & XT_CGROUP2LOG_F_COPY_LEN ||
	    info->group || info->threshold || info->len) {
		pr_info_ratelimited("CGROUP2LOG: LOG mode with NFLOG options\n");
		return -EINVAL;
	}
	if (info->level > 7) {
		pr_info_ratelimited("CGROUP2LOG: log level %u is not within 0..7\n",
				    info->level);
		return -EINVAL;
	}
	if (info->logflags & ~XT_CGROUP2LOG_LOGFLAGS_MASK) {
		pr_info_ratelimited("CGROUP2LOG: unknown LOG flags 0x%x\n",
				    info->logflags & ~XT_CGROUP2LOG_LOGFLAGS_MASK);
		return -EINVAL;
	}
	return 0;
}

static u8 cg2log_type(const struct xt_cgroup2log_info *info)
{
	return info->flags & XT_CGROUP2LOG_F_NFLOG ? NF_LOG_TYPE_ULOG :
						     NF_LOG_TYPE_LOG;
}

static int cg2log_tg_check(const struct xt_tgchk_param *par)
{
	struct xt_cgroup2log_info *info = par->targinfo;
	int ret, root_level;
	u64 root_id;

	if (par->family != NFPROTO_IPV4 && par->family != NFPROTO_IPV6) {
		pr_info_ratelimited("CGROUP2LOG: only for IPv4 and IPv6\n");
		return -EINVAL;
	}
	ret = cg2log_check_info(info);
	if (ret)
		return ret;
	/*
	 * The backend module, as LOG and NFLOG load theirs: nft_compat holds
	 * the nfnetlink mutex here, the soft dependency below serves it.
	 */
	ret = nf_logger_find_get(par->family, cg2log_type(info));
	if (ret && !par->nft_compat) {
		request_module("%s", info->flags & XT_CGROUP2LOG_F_NFLOG ?
				     "nfnetlink_log" : "nf_log_syslog");
		ret = nf_logger_find_get(par->family, cg2log_type(info));
	}
	if (ret) {
		pr_info_ratelimited("CGROUP2LOG: no %s logger for this family\n",
				    info->flags & XT_CGROUP2LOG_F_NFLOG ?
				    "nfnetlink_log" : "syslog");
		return ret;
	}
	/* The INPUT socket lookup needs IPv6 fragments reassembled. */
	ret = cg2_defrag_get(par->net, par->family, par->hook_mask);
	if (ret < 0) {
		nf_logger_put(par->family, cg2log_type(info));
		return ret;
	}
	info->priv_flags = ret ? CG2LOG_DEFRAG : 0;
	/*
	 * Paths are relative to the inserter's cgroup namespace, as the
	 * match's patterns.  Keep the root's id, not a reference.
	 */
	cg2_current_ns_root(&root_id, &root_level);
	info->root_id = root_id;
	info->root_level = root_level;
	return 0;
}

static void cg2log_tg_destroy(const struct xt_tgdtor_param *par)
{
	const struct xt_cgroup2log_info *info = par->targinfo;

	if (info->priv_flags & CG2LOG_DEFRAG)
		cg2_defrag_put(par->net);
	nf_logger_put(par->family, cg2log_type(info));
}

static struct xt_target cg2log_tg_reg __read_mostly = {
	.name		= "CGROUP2LOG",
	.revision	= 0,
	.family		= NFPROTO_UNSPEC,
	.checkentry	= cg2log_tg_check,
	.target		= cg2log_tg,
	.destroy	= cg2log_tg_destroy,
	.targetsize	= sizeof(struct xt_cgroup2log_info),
	.usersize	= offsetof(struct xt_cgroup2log_info, root_id),
	.me		= THIS_MODULE,
};

int cg2log_tg_register(void)
{
	return xt_register_target(&cg2log_tg_reg);
}

void cg2log_tg_unregister(void)
{
	xt_unregister_target(&cg2log_tg_reg);
}

MODULE_SOFTDEP("pre: nf_log_syslog nfnetlink_log");
MODULE_ALIAS("ipt_CGROUP2LOG");
MODULE_ALIAS("ip6t_CGROUP2LOG");
