/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The free-list walker behind the buddy and fragmentation files: exact
 * per-migratetype counts of every free list of a zone, with zone->lock held
 * for a bounded number of list entries at a time (docs/buddy.md).
 */
#ifndef MI_BUDDY_H
#define MI_BUDDY_H

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mmzone.h>
#include <linux/seq_file.h>
#include <linux/types.h>

#include "params.h"

/* Sized from the kernel's own arrays: see the notes in compat.h. */
#define MI_NR_ORDERS	ARRAY_SIZE(((struct zone *)NULL)->free_area)
#define MI_NR_MT	ARRAY_SIZE(((struct free_area *)NULL)->free_list)

/* Attempts per order before its counts are reported as unstable. */
#define MI_WALK_TRIES	4

/* The cost of a read's walks, added up over every zone (the "# walk:" note). */
struct mi_walk_stats {
	u64 zones, lists, entries, holds, retries, unstable;
	u64 longest_ns, longest_entries, total_ns;
};

/* One zone's free lists, as one walk found them. */
struct mi_zone_free {
	unsigned long blocks[MI_NR_ORDERS][MI_NR_MT];
	unsigned long nr_free[MI_NR_ORDERS];	/* at the order's last hold */
	unsigned int tries[MI_NR_ORDERS];
	bool stable[MI_NR_ORDERS];
};

/*
 * The zone walk of a table that walks the free lists (fragmentation_types;
 * zone_walk.h's walk): @res a struct mi_zone_free, @state the read's
 * struct mi_walk_stats.
 */
int mi_walk_zone_res(int nid, struct zone *zone, void *res, void *state);
/* The "# walk:" note after the last node, from @state (mi_walk_stats). */
void mi_walk_state_footer(struct seq_file *m, void *state);

const char *mi_mt_name(unsigned int mt);
int mi_walk_zone(struct zone *zone, struct mi_zone_free *zf,
		 struct mi_walk_stats *st);
void mi_walk_notes(struct seq_file *m, int nid, const struct zone *zone,
		   const struct mi_zone_free *zf);
void mi_walk_stats_note(struct seq_file *m, const struct mi_walk_stats *st);

void mi_buddy_init(void);
void mi_buddy_exit(void);

extern const struct file_operations mi_buddy_fops;
extern const struct file_operations mi_fragmentation_fops;
extern const struct file_operations mi_fragmentation_types_fops;

#endif /* MI_BUDDY_H */
