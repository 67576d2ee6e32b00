/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* nf_tables' family names (ip, ip6, inet, arp, bridge, netdev). */
#ifndef NFTCG_UTIL_FAMILY_H
#define NFTCG_UTIL_FAMILY_H

#include <stddef.h>

/* NFPROTO_* of the @len bytes at @name, or -1 for no family. */
int family_parse(const char *name, size_t len);
/* The name of NFPROTO_* @family, "?" for none. */
const char *family_name(int family);

#endif
