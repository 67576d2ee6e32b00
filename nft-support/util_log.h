/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Messages to stderr (the journal under systemd), one line each. */
#ifndef NFTCG_LOG_H
#define NFTCG_LOG_H

extern int log_verbose;

void log_msg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define LOG_ERR_	3
#define LOG_WARN_	4
#define LOG_NOTICE_	5
#define LOG_INFO_	6
#define LOG_DEBUG_	7

#define err(...)	log_msg(LOG_ERR_, __VA_ARGS__)
#define warn(...)	log_msg(LOG_WARN_, __VA_ARGS__)
#define info(...)	log_msg(LOG_INFO_, __VA_ARGS__)
#define dbg(...)	do { if (log_verbose) log_msg(LOG_DEBUG_, __VA_ARGS__); } while (0)

#endif
