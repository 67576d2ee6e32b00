// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cg_rootwatch.h"

int rootwatch_open(struct rootwatch *w, int rootfd)
{
	w->fd = -1;
#ifdef STATX_MNT_ID
	struct statx stx;

	if (statx(rootfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx))
		return -errno;
	if (!(stx.stx_mask & STATX_MNT_ID))
		return -EOPNOTSUPP;	/* before Linux 5.8 */
	w->mnt_id = stx.stx_mnt_id;
#else
	(void)rootfd;
	return -EOPNOTSUPP;	/* headers before Linux 5.8 */
#endif
	w->fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	return w->fd < 0 ? -errno : 0;
}

int rootwatch_fd(const struct rootwatch *w)
{
	return w->fd;
}

/* Is a line of mountinfo (its first field is the mount id) ours? */
static int scan_lines(const char *buf, size_t len, uint64_t id)
{
	const char *p = buf, *end = buf + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (strtoull(p, NULL, 10) == id)
			return 1;
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

int rootwatch_attached(struct rootwatch *w)
{
	size_t len = 0, cap = 64 * 1024;
	char *buf = malloc(cap), *nb;
	ssize_t r;
	int ret;

	if (w->fd < 0 || !buf) {
		free(buf);
		return 1;	/* cannot tell: assume the best */
	}
	lseek(w->fd, 0, SEEK_SET);
	while ((r = read(w->fd, buf + len, cap - len - 1)) > 0) {
		len += r;
		if (cap - len - 1 == 0) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return 1;
			}
			buf = nb;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	ret = r < 0 ? 1 : scan_lines(buf, len, w->mnt_id);
	free(buf);
	return ret;
}

void rootwatch_close(struct rootwatch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
