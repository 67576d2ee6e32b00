/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Cgroup paths are any bytes but '/' and NUL: quote them for each output. */
#ifndef NFTCG_TEXTESC_H
#define NFTCG_TEXTESC_H

#include <stdbool.h>
#include <stdio.h>

/* A JSON string with its quotes; bytes not valid UTF-8 become \u00XX. */
void put_json_string(FILE *f, const char *s);
/* A Prometheus label value: \\, \" and \n escaped, without the quotes. */
void put_label_value(FILE *f, const char *s);

/*
 * Names (cgroup paths, set names) as text: valid UTF-8, no raw control
 * byte, distinct for distinct names; see util_textesc.c.  One function per
 * output format:
 */
/* A Prometheus label value, without its quotes. */
void put_prom_label(FILE *f, const char *name);
/* A JSON string (RFC 8259) with its quotes: @prefix then @name. */
void put_json_name(FILE *f, const char *prefix, const char *name);
/* A column of a terminal table (--stats, --list, --check). */
void put_term_name(FILE *f, const char *name);

#endif
