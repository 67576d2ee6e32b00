// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * nft-cgroupd: keep nftables sets of type cgroupsv2 equal to the ids of the
 * cgroups whose path matches a pattern.
 */
#include "cmd_check.h"
#include "cmd_list.h"
#include "cmd_stats.h"
#include "daemon_main.h"

int main(int argc, char **argv)
{
	struct daemon d = { 0 };
	int status;

	status = options_parse(&d.opt, argc, argv);
	if (status >= 0)
		return status;
	if (d.opt.mode == MODE_LIST)
		return list_set(d.opt.list_spec, d.opt.cgroup_root);
	if (d.opt.mode == MODE_STATS)
		return stats_command(&d.opt);
	status = daemon_init(&d);
	if (status)	/* for --check, 1 would mean "some set would change" */
		return d.opt.mode == MODE_CHECK ? CHECK_TROUBLE : status;
	if (d.opt.mode == MODE_CHECK)
		status = check_run(&d);
	else if (d.opt.mode == MODE_ONCE)
		status = sync_any_failed(&d.sync) ? 1 : 0;
	else
		status = daemon_loop(&d);
	daemon_fini(&d);
	return status;
}
