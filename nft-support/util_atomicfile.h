/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Replace a file so that a reader (or a crash) sees the old content or the
 * new one, never a mix: write a new file PATH.XXXXXX of our own (mkostemp),
 * fsync it, rename it over PATH, fsync the directory.
 */
#ifndef NFTCG_ATOMICFILE_H
#define NFTCG_ATOMICFILE_H

#include <stdio.h>
#include <sys/types.h>

/* @fill writes the content to @f; it returns 0, or -errno. */
typedef int atomic_fill_fn(FILE *f, void *ctx);

/* 0, or -errno; on failure PATH is left as it was. */
int atomic_write(const char *path, mode_t mode, atomic_fill_fn *fill,
		 void *ctx);

#endif
