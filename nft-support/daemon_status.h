/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the daemon tells about itself: a one-line STATUS= for systemd
 * (systemctl status), and a full dump to the log on SIGUSR1.
 */
#ifndef NFTCG_STATUS_H
#define NFTCG_STATUS_H

#include <stddef.h>

#include "daemon_main.h"

/* The one line: "2 sets: 1 in sync, 1 waiting (inet:t:s: ...); 5 ids". */
void status_line(const struct daemon *d, char *buf, size_t size);
/* Send STATUS= when the line changed since the last one sent. */
void status_notify(const struct daemon *d);
/* Log the state of the tree, the event sources and every set (SIGUSR1). */
void status_dump(const struct daemon *d);

#endif
