/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * --metrics-file: the accounting in Prometheus' text format, for
 * node_exporter's textfile collector (which reads *.prom files whole, so
 * the file is replaced atomically).
 */
#ifndef NFTCG_METRICS_H
#define NFTCG_METRICS_H

#include "acct_store.h"

/* 0 or -errno. */
int metrics_write(const char *path, const struct acct_store *s);

#endif
