// SPDX-License-Identifier: GPL-2.0
/*
 * fragmentation: per zone and order, the unusable free space index and the
 * external fragmentation index computed with the kernel's own formulas
 * (mm/vmstat.c, as debugfs extfrag/ prints them), the free blocks of at
 * least that order, and the order-sized blocks they make, split by
 * migratetype (docs/fragmentation.md).  The counts come from one walk of
 * the free lists (buddy.c), so every figure of a zone is from the same
 * walk and the per-migratetype split adds up to the total.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "buddy.h"
#include "frag_math.h"
#include "show_fops.h"

static void mi_frag_header(struct seq_file *m)
{
	unsigned int mt;

	seq_puts(m, "node zone order free_blocks avail_blocks unusable_permille extfrag_permille");
	for (mt = 0; mt < MI_NR_MT; mt++) {
		const char *name = mi_mt_name(mt);

		seq_puts(m, " avail_");
		for (; *name; name++)
			seq_putc(m, tolower(*name));
	}
	seq_putc(m, '\n');
}

static void mi_frag_zone(struct seq_file *m, int nid, const struct zone *zone,
			 const struct mi_zone_free *zf)
{
	unsigned long totals[MI_NR_ORDERS];
	unsigned int order, k, mt;

	for (order = 0; order < MI_NR_ORDERS; order++) {
		totals[order] = 0;
		for (mt = 0; mt < MI_NR_MT; mt++)
			totals[order] += zf->blocks[order][mt];
	}
	for (order = 0; order < MI_NR_ORDERS; order++) {
		struct mi_contig info;
		unsigned long ge = 0;

		mi_fill_contig(totals, MI_NR_ORDERS, order, &info);
		for (k = order; k < MI_NR_ORDERS; k++)
			ge += totals[k];
		seq_printf(m, "%d %s %u %lu %lu %d %d", nid, zone->name, order,
			   ge, info.free_blocks_suitable,
			   mi_unusable_index(order, &info),
			   mi_extfrag_index(order, &info));
		for (mt = 0; mt < MI_NR_MT; mt++) {
			unsigned long avail = 0;

			for (k = order; k < MI_NR_ORDERS; k++)
				avail += zf->blocks[k][mt] << (k - order);
			seq_printf(m, " %lu", avail);
		}
		seq_putc(m, '\n');
	}
}

static int mi_frag_show(struct seq_file *m, void *unused)
{
	struct mi_walk_stats st = {};
	struct mi_zone_free *zf;
	int nid, err = 0;

	zf = kmalloc(sizeof(*zf), GFP_KERNEL);
	if (!zf)
		return -ENOMEM;

	mi_frag_header(m);
	for_each_online_node(nid) {
		pg_data_t *pgdat = NODE_DATA(nid);
		unsigned int z;

		for (z = 0; z < ARRAY_SIZE(pgdat->node_zones); z++) {
			struct zone *zone = &pgdat->node_zones[z];

			if (!populated_zone(zone))
				continue;
			err = mi_walk_zone(zone, zf, &st);
			if (err)
				goto out;
			mi_frag_zone(m, nid, zone, zf);
			mi_walk_notes(m, nid, zone, zf);
		}
	}
	mi_walk_stats_note(m, &st);
out:
	kfree(zf);
	return err;
}

MI_SHOW_OPEN(mi_frag)
const struct file_operations mi_fragmentation_fops = MI_SHOW_FOPS(mi_frag);
