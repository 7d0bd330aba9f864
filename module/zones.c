// SPDX-License-Identifier: GPL-2.0
/*
 * zones: one row per populated zone of every online node, with the figures
 * /proc/zoneinfo and /proc/buddyinfo show for it (docs/zones.md).
 *
 * Everything is read as those files read it: lockless, one racy read per
 * counter (free_area[].nr_free with data_race(), as frag_show_print()).
 * No lock is taken, so reading this file never holds off the allocator.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/vmstat.h>

#include "buddy.h"
#include "capabilities.h"
#include "compat.h"
#include "zone_walk.h"
#include "zones.h"

enum {
	MI_ROW_BOOST,
	MI_NR_ROWS
};

static struct mi_cap mi_zones_caps[MI_NR_ROWS] = {
	[MI_ROW_BOOST] = { .name = "zones.boost", .kind = MI_CAP_FIELD },
};

static struct mi_cap_table mi_zones_table;

static void mi_zone_row(struct seq_file *m, int nid, struct zone *zone,
			const void *res, void *state)
{
	unsigned long boost, pcp = 0;
	unsigned int i;
	int cpu;

	for_each_online_cpu(cpu)
		pcp += mi_zone_pcp_count(zone, cpu);

	seq_printf(m, "%d %s %lu %lu %lu %lu %lu %lu %lu %lu", nid, zone->name,
		   zone->zone_start_pfn, zone->spanned_pages,
		   zone->present_pages, zone_managed_pages(zone),
		   zone_page_state(zone, NR_FREE_PAGES),
		   min_wmark_pages(zone), low_wmark_pages(zone),
		   high_wmark_pages(zone));
	if (mi_zone_boost(zone, &boost))
		seq_printf(m, " %lu", boost);
	else
		seq_puts(m, " -");
	seq_printf(m, " %lu ", pcp);
	for (i = 0; i < ARRAY_SIZE(zone->lowmem_reserve); i++)
		seq_printf(m, "%s%ld", i ? "," : "", zone->lowmem_reserve[i]);
	for (i = 0; i < MI_NR_ORDERS; i++)
		seq_printf(m, " %lu", /* racy by design, as /proc/buddyinfo */
			   data_race(READ_ONCE(zone->free_area[i].nr_free)));
	seq_putc(m, '\n');
}

static void mi_zones_header(struct seq_file *m)
{
	unsigned int i;

	seq_puts(m, "node zone start_pfn spanned present managed free min low high boost pcp lowmem_reserve");
	for (i = 0; i < MI_NR_ORDERS; i++)
		seq_printf(m, " nr_free_%u", i);
	seq_putc(m, '\n');
}

static const struct mi_zone_table mi_zones_zone_table = {
	.header = mi_zones_header,
	.print = mi_zone_row,
};

MI_ZONE_TABLE_FOPS(mi_zones, &mi_zones_zone_table);

void mi_zones_init(void)
{
	unsigned long boost;

	if (mi_zone_boost(&NODE_DATA(first_online_node)->node_zones[0], &boost))
		mi_cap_set(&mi_zones_caps[MI_ROW_BOOST], true,
			   "zone->watermark_boost (5.0+); min, low and high include it, as in /proc/zoneinfo");
	else
		mi_cap_set(&mi_zones_caps[MI_ROW_BOOST], false,
			   "no zone->watermark_boost on this kernel (added in 5.0)");
	mi_caps_register(&mi_zones_table, mi_zones_caps, MI_NR_ROWS);
}

void mi_zones_exit(void)
{
	mi_caps_unregister(&mi_zones_table);
}
