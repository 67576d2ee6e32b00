/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * CGROUP2LOG: log packets like LOG or NFLOG, each line naming the cgroup v2
 * path and id of the packet's socket.  The ABI shared by xt_cgroup2.ko and
 * libxt_CGROUP2LOG.so.
 */
#ifndef _UAPI_XT_CGROUP2LOG_H
#define _UAPI_XT_CGROUP2LOG_H

#include <linux/types.h>

/*
 * The user's prefix, NUL included.  The kernel adds "CGROUP=PATH
 * CGROUP_ID=ID " to it, all within the 128 bytes of a log prefix
 * (NF_LOG_PREFIXLEN): with 31 bytes here, at least 57 are left for PATH.
 */
#define XT_CGROUP2LOG_PREFIX_SIZE	32

/* @logflags, LOG mode: the values of LOG's (NF_LOG_* in linux/netfilter/nf_log.h) */
enum {
	XT_CGROUP2LOG_TCPSEQ	= 0x01,	/* TCP sequence numbers */
	XT_CGROUP2LOG_TCPOPT	= 0x02,	/* TCP options */
	XT_CGROUP2LOG_IPOPT	= 0x04,	/* IP/IPv6 options */
	XT_CGROUP2LOG_UID	= 0x08,	/* UID and GID of the socket */
	XT_CGROUP2LOG_MACDECODE	= 0x20,	/* MAC header decoded */
};

#define XT_CGROUP2LOG_LOGFLAGS_MASK	0x2f

/* @flags */
enum {
	/* NFLOG mode: nfnetlink_log to @group; else LOG mode (syslog). */
	XT_CGROUP2LOG_F_NFLOG		= 1 << 0,
	/* NFLOG mode: copy at most @len bytes of the packet. */
	XT_CGROUP2LOG_F_COPY_LEN	= 1 << 1,
};

#define XT_CGROUP2LOG_FLAGS_MASK	0x3

/* Revision 0.  Fields of the other mode must be zero. */
struct xt_cgroup2log_info {
	__u32	flags;		/* XT_CGROUP2LOG_F_* */
	__u8	level;		/* LOG: syslog level, 0 to 7 */
	__u8	logflags;	/* LOG: XT_CGROUP2LOG_* */
	__u16	group;		/* NFLOG: nfnetlink_log group */
	__u16	threshold;	/* NFLOG: packets queued before sending */
	__u16	pad;		/* zero */
	__u32	len;		/* NFLOG: bytes to copy, with F_COPY_LEN */
	char	prefix[XT_CGROUP2LOG_PREFIX_SIZE];	/* NUL-terminated */

	/* Kernel-private from here on: hidden from userspace by .usersize. */
	__u64	root_id __attribute__((aligned(8)));	/* inserter's cgroupns root */
	__u32	root_level;
	__u32	priv_flags;
};

#endif /* _UAPI_XT_CGROUP2LOG_H */
