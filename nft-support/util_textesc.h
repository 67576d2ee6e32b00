/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Cgroup paths are any bytes but '/' and NUL: quote them for each output. */
#ifndef NFTCG_TEXTESC_H
#define NFTCG_TEXTESC_H

#include <stdbool.h>
#include <stdio.h>

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
