/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * xt_cgroup2: match packets by the cgroup v2 path of their socket.
 * The one ABI shared by xt_cgroup2.ko and libxt_cgroup2.so.
 */
#ifndef _UAPI_XT_CGROUP2_H
#define _UAPI_XT_CGROUP2_H

#include <linux/types.h>

/*
 * All patterns of one rule, packed one after another, each terminated by
 * a NUL.  2048 bytes hold a dozen or more typical service patterns and one
 * pattern as long as a deep cgroup path, yet keep the whole match under half
 * of the 4 KiB nft_compat can carry and small in the table blob that
 * iptables-legacy copies on every change.
 */
#define XT_CGROUP2_PATTERNS_SIZE	2048
/* At most this many patterns (--path options) in one rule. */
#define XT_CGROUP2_MAX_PATTERNS		64
/*
 * The matcher states (the unit of a glob's cost, see cgroup2_pattern.c) of
 * all patterns of one rule together: this bounds the memory of its
 * compiled tables and the time to build them.  Literal components cost
 * nothing.
 */
#define XT_CGROUP2_MAX_STATES		512

enum {
	/* Match when no pattern matches (the socket must still exist). */
	XT_CGROUP2_INVERT	= 1 << 0,
};

#define XT_CGROUP2_FLAGS_MASK	XT_CGROUP2_INVERT

/*
 * Revision 0: room for many patterns, or one as long as a deep cgroup path
 * (CG2_MAX_PATTERN_LEN, 1,023 bytes); 2,064 bytes a rule.
 */
struct xt_cgroup2_info {
	__u32	flags;		/* XT_CGROUP2_* */
	__u16	count;		/* number of patterns in @patterns */
	__u16	len;		/* bytes of @patterns used, last NUL included */
	char	patterns[XT_CGROUP2_PATTERNS_SIZE];	/* unused bytes zero */

	/* Kernel-private from here on: hidden from userspace by .usersize. */
	void	*priv __attribute__((aligned(8)));
};

/*
 * Revision 1: the same fields with 512 bytes of patterns, as -m cgroup
 * (xt_cgroup_info_v2) has for its one path, so a rule costs what one of
 * -m cgroup costs: 528 bytes in an iptables-legacy table, a 1 KiB object
 * in iptables-nft, where revision 0 takes 2 KiB and 4 KiB.  Any path of
 * -m cgroup (511 bytes) fits.  iptables picks one revision for all rules
 * of a command, the newest the kernel has; a rule whose patterns do not
 * fit here is loaded as revision 0 with XT_CGROUP2_REVISION=0 in the
 * environment of iptables (libxt_cgroup2.man).
 */
#define XT_CGROUP2_PATTERNS_SIZE_V1	512

struct xt_cgroup2_info_v1 {
	__u32	flags;
	__u16	count;
	__u16	len;
	char	patterns[XT_CGROUP2_PATTERNS_SIZE_V1];

	void	*priv __attribute__((aligned(8)));
};

#endif /* _UAPI_XT_CGROUP2_H */
