// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <stdio.h>

#include "util_textesc.h"

/*
 * Names as text, the same in every output: a cgroup name is any bytes but
 * '/' and NUL, so each byte that is not part of well-formed UTF-8, and
 * each control character (C0, DEL, C1), is written \xHH, and a backslash
 * \\: the text is valid UTF-8, holds no raw control byte, and tells every
 * two names apart.  Each output format then escapes that text its own way,
 * in exactly one function below.
 */

/*
 * Length of the well-formed UTF-8 sequence at @s (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF), or 0.
 */
static int utf8_strict_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (*s < 0x80)
		return 1;
	if (*s >= 0xc2 && *s <= 0xdf) {
		n = 2;
	} else if (*s >= 0xe0 && *s <= 0xef) {
		n = 3;
		if (*s == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (*s == 0xed)
			hi = 0x9f;	/* U+D800-U+DFFF */
	} else if (*s >= 0xf0 && *s <= 0xf4) {
		n = 4;
		if (*s == 0xf0)
			lo = 0x90;	/* overlong */
		else if (*s == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * The text of name @str; @quoted: inside a Prometheus label value or a
 * JSON string, whose escapes agree on what this text can hold: '\\' and
 * '"' are preceded by a backslash (a newline never appears raw).
 */
static void put_name(FILE *f, const char *str, bool quoted)
{
	const unsigned char *s = (const unsigned char *)str;
	const char *bs = quoted ? "\\\\" : "\\";
	int n, i;

	while (*s) {
		n = utf8_strict_len(s);
		if (!n || *s < 0x20 || *s == 0x7f ||
		    (*s == 0xc2 && s[1] < 0xa0)) {
			for (i = 0; i < (n ? n : 1); i++)
				fprintf(f, "%sx%02x", bs, s[i]);
			s += n ? n : 1;
		} else if (*s == '\\') {
			fprintf(f, "%s%s", bs, bs);
			s++;
		} else if (*s == '"' && quoted) {
			fputs("\\\"", f);
			s++;
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
}

void put_prom_label(FILE *f, const char *name)
{
	put_name(f, name, true);
}

void put_json_name(FILE *f, const char *prefix, const char *name)
{
	fputc('"', f);
	put_name(f, prefix, true);
	put_name(f, name, true);
	fputc('"', f);
}

void put_term_name(FILE *f, const char *name)
{
	put_name(f, name, false);
}
