// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <stdio.h>

#include "textesc.h"

/* Length of the valid UTF-8 sequence at @s, or 0. */
static int utf8_len(const unsigned char *s)
{
	int n, i;

	if (*s < 0x80)
		return 1;
	if (*s >= 0xc2 && *s <= 0xdf)
		n = 2;
	else if (*s >= 0xe0 && *s <= 0xef)
		n = 3;
	else if (*s >= 0xf0 && *s <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void put_json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	fputc('"', f);
	while (*s) {
		n = utf8_len(s);
		if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s++);
		} else if (*s < 0x20 || *s == 0x7f || !n) {
			fprintf(f, "\\u%04x", *s++);
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
	fputc('"', f);
}

void put_label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}
