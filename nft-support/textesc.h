/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Cgroup paths are any bytes but '/' and NUL: quote them for each output. */
#ifndef NFTCG_TEXTESC_H
#define NFTCG_TEXTESC_H

#include <stdio.h>

/* A JSON string with its quotes; bytes not valid UTF-8 become \u00XX. */
void put_json_string(FILE *f, const char *s);
/* A Prometheus label value: \\, \" and \n escaped, without the quotes. */
void put_label_value(FILE *f, const char *s);

#endif
