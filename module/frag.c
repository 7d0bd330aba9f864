// SPDX-License-Identifier: GPL-2.0
/*
 * Two files (docs/fragmentation.md):
 *
 * fragmentation: per zone and order, the unusable free space index and the
 * external fragmentation index computed with the kernel's own formulas
 * (mm/vmstat.c, as debugfs extfrag/ prints them), the free blocks of at
 * least that order and the order-sized blocks they make.  All of it follows
 * from free_area[order].nr_free alone, read as the kernel's
 * fill_contig_page_info() reads it: without zone->lock, once per order.
 * No free list is walked, so a monitor can poll it at the price of
 * debugfs extfrag/ (bench/buddy).
 *
 * fragmentation_types: the order-sized blocks split by migratetype.  Only
 * a walk of the free lists (buddy.c) knows which list a block is on, so
 * this file alone pays for one, and only a reader who opens it does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/ctype.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "buddy.h"
#include "frag_math.h"
#include "zone_walk.h"

/* ---- fragmentation: from nr_free ---- */

/*
 * Each order's nr_free read once, without zone->lock, as mm/vmstat.c's
 * fill_contig_page_info() does ("nr_free is used only for diagnostic
 * purposes", data_race() there too).  The orders are not one snapshot: a
 * block that splits or merges meanwhile can be missed or seen twice, as
 * by the kernel's own extfrag/ and, since 6.x, buddyinfo.  Every figure of
 * a zone is computed from this one copy, so the rows agree with each other.
 */
static void mi_read_nr_free(const struct zone *zone, unsigned long *blocks)
{
	unsigned int order;

	for (order = 0; order < MI_NR_ORDERS; order++) {
		const struct free_area *area = &zone->free_area[order];

		/* no zone->lock: a diagnostic read, as the kernel's (above) */
		blocks[order] = data_race(READ_ONCE(area->nr_free));
	}
}

static void mi_frag_zone(struct seq_file *m, int nid, struct zone *zone,
			 const void *res, void *state)
{
	unsigned long blocks[MI_NR_ORDERS];
	unsigned int order, k;

	mi_read_nr_free(zone, blocks);
	for (order = 0; order < MI_NR_ORDERS; order++) {
		struct mi_contig info;
		unsigned long ge = 0;

		mi_fill_contig(blocks, MI_NR_ORDERS, order, &info);
		for (k = order; k < MI_NR_ORDERS; k++)
			ge += blocks[k];
		/*
		 * seq_put_decimal_*() rather than one seq_printf(): the
		 * format parsing was most of the cost of a read, which is
		 * meant to stay near extfrag/'s (docs/bench.md)
		 */
		seq_put_decimal_ll(m, "", nid);
		seq_putc(m, ' ');
		seq_puts(m, zone->name);
		seq_put_decimal_ull(m, " ", order);
		seq_put_decimal_ull(m, " ", ge);
		seq_put_decimal_ull(m, " ", info.free_blocks_suitable);
		seq_put_decimal_ll(m, " ", mi_unusable_index(order, &info));
		seq_put_decimal_ll(m, " ", mi_extfrag_index(order, &info));
		seq_putc(m, '\n');
	}
}

static void mi_frag_header(struct seq_file *m)
{
	seq_puts(m, "node zone order free_blocks avail_blocks unusable_permille extfrag_permille\n");
}

static const struct mi_zone_table mi_frag_zone_table = {
	.header = mi_frag_header,
	.print = mi_frag_zone,
};

MI_ZONE_TABLE_FOPS(mi_fragmentation, &mi_frag_zone_table);

/* ---- fragmentation_types: from one walk of the free lists ---- */

static void mi_frag_types_header(struct seq_file *m)
{
	unsigned int mt;

	seq_puts(m, "node zone order avail_blocks");
	for (mt = 0; mt < MI_NR_MT; mt++) {
		const char *name = mi_mt_name(mt);

		seq_puts(m, " avail_");
		for (; *name; name++)
			seq_putc(m, tolower(*name));
	}
	seq_putc(m, '\n');
}

/* avail_blocks of one order on one migratetype's lists, and in all */
static void mi_frag_types_zone(struct seq_file *m, int nid, struct zone *zone,
			       const void *res, void *state)
{
	const struct mi_zone_free *zf = res;
	unsigned int order, k, mt;

	for (order = 0; order < MI_NR_ORDERS; order++) {
		unsigned long avail[MI_NR_MT], total = 0;

		for (mt = 0; mt < MI_NR_MT; mt++) {
			avail[mt] = 0;
			for (k = order; k < MI_NR_ORDERS; k++)
				avail[mt] += zf->blocks[k][mt] << (k - order);
			total += avail[mt];
		}
		seq_printf(m, "%d %s %u %lu", nid, zone->name, order, total);
		for (mt = 0; mt < MI_NR_MT; mt++)
			seq_printf(m, " %lu", avail[mt]);
		seq_putc(m, '\n');
	}
	mi_walk_notes(m, nid, zone, zf);
}

static const struct mi_zone_table mi_frag_types_zone_table = {
	.header = mi_frag_types_header,
	.walk = mi_walk_zone_res,
	.print = mi_frag_types_zone,
	.footer = mi_walk_state_footer,
	.state_size = sizeof(struct mi_walk_stats),
	.res_size = sizeof(struct mi_zone_free),
};

MI_ZONE_TABLE_FOPS(mi_fragmentation_types, &mi_frag_types_zone_table);
