// SPDX-License-Identifier: GPL-2.0
/*
 * Fragmentation index math (frag_math.h): the formulas of mm/vmstat.c's
 * fill_contig_page_info(), __fragmentation_index() and
 * unusable_free_index(), on counts the caller supplies.
 */
#include <linux/math64.h>
#include <linux/string.h>

#include "frag_math.h"

/*
 * fill_contig_page_info() from @blocks[order], the free blocks of each
 * order (the walked counts instead of free_area[].nr_free).
 */
void mi_fill_contig(const unsigned long *blocks, unsigned int nr_orders,
		    unsigned int suitable_order, struct mi_contig *info)
{
	unsigned int order;

	memset(info, 0, sizeof(*info));
	for (order = 0; order < nr_orders; order++) {
		info->free_blocks_total += blocks[order];
		info->free_pages += blocks[order] << order;
		if (order >= suitable_order)
			info->free_blocks_suitable += blocks[order] <<
						      (order - suitable_order);
	}
}

/* __fragmentation_index(): -1000 means an allocation would succeed */
int mi_extfrag_index(unsigned int order, const struct mi_contig *info)
{
	unsigned long requested = 1UL << order;

	if (!info->free_blocks_total)
		return 0;
	if (info->free_blocks_suitable)
		return -1000;
	return 1000 - div_u64(1000 + div_u64(info->free_pages * 1000ULL,
					     requested),
			      info->free_blocks_total);
}

/* unusable_free_index(): no free memory counts as all of it unusable */
int mi_unusable_index(unsigned int order, const struct mi_contig *info)
{
	if (!info->free_pages)
		return 1000;
	return div_u64((info->free_pages -
			(info->free_blocks_suitable << order)) * 1000ULL,
		       info->free_pages);
}
