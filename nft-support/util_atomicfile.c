// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util_atomicfile.h"

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

/*
 * A new file of our own next to PATH (mkostemp: O_CREAT | O_EXCL under a
 * random name), never one that someone else planted there: a FIFO would
 * block open() for ever, a file of theirs would be renamed into place
 * still theirs.  Checked with fstat all the same.  The fd, or -errno.
 */
static int create_tmp(char *tmp, mode_t mode)
{
	struct stat st;
	int fd, ret;

	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
	} else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		   st.st_nlink != 1) {
		close(fd);
		return -EEXIST;		/* not ours: leave it */
	} else if (fchmod(fd, mode)) {
		/* @mode as given, not narrowed by the umask (UMask=0077 in
		 * the unit): node_exporter must read the metrics file */
		ret = -errno;
	} else {
		return fd;
	}
	close(fd);
	unlink(tmp);
	return ret;
}

/* Write the content to @fd, make it durable, close it; 0 or -errno. */
static int fill_fd(int fd, atomic_fill_fn *fill, void *ctx)
{
	FILE *f;
	int ret;

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
	int fd, ret;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = create_tmp(tmp, mode);
	if (fd < 0)
		return fd;
	ret = fill_fd(fd, fill, ctx);
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	return sync_dir(path);
}
