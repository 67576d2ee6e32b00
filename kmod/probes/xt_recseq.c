// SPDX-License-Identifier: GPL-2.0
/*
 * Compiles where x_tables keeps the per-CPU sequence that
 * ipt_do_table() and ip6t_do_table() make odd for the whole of their
 * outermost traversal (xt_write_recseq_begin()), which the lookup memo
 * relies on.
 */
#include <linux/netfilter/x_tables.h>

unsigned int cg2_probe(void);
unsigned int cg2_probe(void)
{
	unsigned int addend = xt_write_recseq_begin();

	xt_write_recseq_end(addend);
	return __this_cpu_read(xt_recseq.sequence);
}
