// SPDX-License-Identifier: GPL-2.0
/*
 * cg2net: join a cgroup v2, then generate traffic and report the verdict
 * as one line on stdout.  The cgroup is joined before any socket exists,
 * because a socket keeps the cgroup of the process that created it.
 */
#include <signal.h>
#include <stdio.h>

#include "cg2net.h"

int main(int argc, char **argv)
{
	struct cg2net_opts o;
	int ret;

	ret = cg2net_parse(argc, argv, &o);
	if (ret)
		return ret;

	signal(SIGPIPE, SIG_IGN);

	/* In the tests, one exec instead of two (nsenter, then cg2net):
	 * under TCG an exec costs about 60 ms of CPU. */
	if (o.netns && netns_enter(o.netns))
		return result(CG_EXIT_SETUP, "error: cannot enter netns %s",
			      o.netns);

	if (o.cgroup && cg_join(o.root, o.cgroup))
		return result(CG_EXIT_SETUP, "error: cannot join cgroup %s",
			      o.cgroup);

	switch (o.mode) {
	case MODE_SEND:
		return run_send_udp(&o);
	case MODE_CONNECT:
		return run_connect_tcp(&o);
	case MODE_LISTEN:
		return run_listen(&o);
	}
	return CG_EXIT_USAGE;
}
