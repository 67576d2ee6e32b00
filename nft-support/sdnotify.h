/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* systemd's notification protocol (sd_notify(3)), without libsystemd. */
#ifndef NFTCG_SDNOTIFY_H
#define NFTCG_SDNOTIFY_H

/* Send @state ("READY=1", ...) to $NOTIFY_SOCKET, if there is one. */
void sd_notify(const char *state);

#endif
