/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fragmentation indexes of mm/vmstat.c (debugfs extfrag/), as pure
 * functions of free block counts per order: no zone, no lock, no
 * allocation, so the KUnit suite (module/kunit/) links this file alone.
 */
#ifndef MI_FRAG_MATH_H
#define MI_FRAG_MATH_H

#include <linux/types.h>

/* As struct contig_page_info in mm/vmstat.c, for one requested order. */
struct mi_contig {
	unsigned long free_pages;
	unsigned long free_blocks_total;
	unsigned long free_blocks_suitable;
};

void mi_fill_contig(const unsigned long *blocks, unsigned int nr_orders,
		    unsigned int suitable_order, struct mi_contig *info);
int mi_extfrag_index(unsigned int order, const struct mi_contig *info);
int mi_unusable_index(unsigned int order, const struct mi_contig *info);

#endif /* MI_FRAG_MATH_H */
