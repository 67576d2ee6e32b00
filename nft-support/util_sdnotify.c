// SPDX-License-Identifier: GPL-2.0 OR MIT
/* One datagram to $NOTIFY_SOCKET; no socket, no message, no error. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util_sdnotify.h"

void sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	/* an abstract socket: the '@' stands for the leading NUL */
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, state, strlen(state), 0, (struct sockaddr *)&sa,
	       offsetof(struct sockaddr_un, sun_path) + len);
	close(fd);
}

void sd_notify_reloading(void)
{
	struct timespec ts;
	char msg[64];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ULL +
		 (unsigned long long)ts.tv_nsec / 1000);
	sd_notify(msg);
}

double sd_watchdog_interval(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	unsigned long long v;
	char *end;

	if (!usec || (pid && strtoull(pid, NULL, 10) != (unsigned long long)getpid()))
		return 0;
	v = strtoull(usec, &end, 10);
	if (end == usec || *end)
		return 0;
	return v / 2e6;
}
