/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* systemd's notification protocol (sd_notify(3)), without libsystemd. */
#ifndef NFTCG_SDNOTIFY_H
#define NFTCG_SDNOTIFY_H

/* Send @state ("READY=1", ...) to $NOTIFY_SOCKET, if there is one. */
void sd_notify(const char *state);
/*
 * RELOADING=1 with MONOTONIC_USEC=, as Type=notify-reload (systemd 253)
 * wants it; older systemd reads the RELOADING=1 alone.
 */
void sd_notify_reloading(void);
/*
 * How often to send WATCHDOG=1, in seconds (half of WatchdogSec=, from
 * $WATCHDOG_USEC for this process); 0 when systemd watches none.
 */
double sd_watchdog_interval(void);

#endif
