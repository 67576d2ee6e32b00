/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Listen to nf_tables change notifications (what `nft monitor` shows), so
 * that a set that is created, flushed, deleted or edited by someone else
 * is re-read and refilled at once, e.g. after a firewall reload.
 */
#ifndef NFTCG_MONITOR_H
#define NFTCG_MONITOR_H

#include <stdbool.h>

struct mnl_socket;

struct monitor {
	struct mnl_socket *nl;
	unsigned int ignore_portid;	/* our own changes */
	char *buf;
};

/*
 * Called for a change to FAMILY:TABLE:SET by someone else; @set is NULL
 * when a whole table changed, and @table too when events were lost.
 * @rules is true when only the rules of the table changed.
 */
typedef void (*monitor_cb)(void *ctx, int family, const char *table,
			   const char *set, bool rules);

int monitor_open(struct monitor *m, unsigned int ignore_portid);
int monitor_fd(const struct monitor *m);
void monitor_process(struct monitor *m, monitor_cb cb, void *ctx);
void monitor_close(struct monitor *m);

#endif
