// SPDX-License-Identifier: GPL-2.0
/* Hex strings of the raw tool: "2f7379" or "2f:73:79"; 0 or -1. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "raw.h"

static int nibble(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int hex_decode(const char *hex, unsigned char **out, size_t *len)
{
	unsigned char *buf = malloc(strlen(hex) / 2 + 1);
	size_t n = 0;
	int hi = -1, v;

	if (!buf)
		return -1;
	if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X'))
		hex += 2;
	for (; *hex; hex++) {
		if (*hex == ' ' || *hex == ':' || *hex == '\n')
			continue;
		v = nibble((unsigned char)*hex);
		if (v < 0)
			goto bad;
		if (hi < 0) {
			hi = v;
		} else {
			buf[n++] = (unsigned char)(hi << 4 | v);
			hi = -1;
		}
	}
	if (hi >= 0)
		goto bad;	/* odd number of digits */
	*out = buf;
	*len = n;
	return 0;
bad:
	free(buf);
	return -1;
}
