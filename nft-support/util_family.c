// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <string.h>
#include <linux/netfilter.h>

#include "util_family.h"

static const struct {
	const char *name;
	int family;
} families[] = {
	{ "ip",     NFPROTO_IPV4 },
	{ "ip6",    NFPROTO_IPV6 },
	{ "inet",   NFPROTO_INET },
	{ "arp",    NFPROTO_ARP },
	{ "bridge", NFPROTO_BRIDGE },
	{ "netdev", NFPROTO_NETDEV },
};

int family_parse(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (strlen(families[i].name) == len &&
		    !memcmp(families[i].name, name, len))
			return families[i].family;
	return -1;
}

const char *family_name(int family)
{
	size_t i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (families[i].family == family)
			return families[i].name;
	return "?";
}
