/* SPDX-License-Identifier: GPL-2.0 */
/* The CGROUP2LOG target (xt_CGROUP2LOG.c), registered with the match. */
#ifndef _XT_CGROUP2_LOG_H
#define _XT_CGROUP2_LOG_H

int cg2log_tg_register(void);
void cg2log_tg_unregister(void);

#endif /* _XT_CGROUP2_LOG_H */
