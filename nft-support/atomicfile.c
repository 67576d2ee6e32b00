// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"

/* The rename is only durable once the directory entry is. */
static int sync_dir(const char *path)
{
	char copy[PATH_MAX];
	int fd, ret = 0;

	snprintf(copy, sizeof(copy), "%s", path);
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

static int write_tmp(const char *tmp, mode_t mode, atomic_fill_fn *fill,
		     void *ctx)
{
	int fd, ret;
	FILE *f;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  mode);
	if (fd < 0)
		return -errno;
	/* @mode as given, not narrowed by the umask (UMask=0077 in the unit):
	 * node_exporter must read the metrics file */
	if (fchmod(fd, mode)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = fill(f, ctx);
	if (!ret && fflush(f))
		ret = -errno;
	if (!ret && ferror(f))
		ret = -EIO;
	if (!ret && fsync(fd))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

int atomic_write(const char *path, mode_t mode, atomic_fill_fn *fill,
		 void *ctx)
{
	char tmp[PATH_MAX];
	int ret;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	ret = write_tmp(tmp, mode, fill, ctx);
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	return sync_dir(path);
}
