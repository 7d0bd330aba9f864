/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One walker for every per-zone table (zones, buddy, fragmentation,
 * fragmentation_types), as mm/vmstat.c serves buddyinfo, pagetypeinfo and
 * zoneinfo with frag_start()/frag_next() and walk_zones_in_node(): a
 * seq_file whose records are the online nodes, each shown by calling the
 * table's zone callback for every populated zone of the node.  A show that
 * overflows seq_file's buffer is retried for that node only, not for the
 * whole machine.  The tables differ only in their callbacks.
 */
#ifndef MI_ZONE_WALK_H
#define MI_ZONE_WALK_H

#include <linux/fs.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>

struct mi_zone_table {
	/* the header line, before the first node's rows */
	void (*header)(struct seq_file *m);
	/* one populated zone's rows; 0, or -errno to end the read with it */
	int (*zone)(struct seq_file *m, int nid, struct zone *zone, void *state);
	/* after the last node (notes over the whole read); NULL: none */
	void (*footer)(struct seq_file *m, void *state);
	/*
	 * Per-open state handed to the callbacks, zeroed at open and when a
	 * read starts again from the top.  Its first @tally_size bytes are
	 * what the callbacks add up across nodes (for the footer): they are
	 * put back as they were when seq_file shows a node again.
	 */
	size_t state_size, tally_size;
};

int mi_zone_table_open(struct file *file, const struct mi_zone_table *t);

/* The fops of a table: MI_ZONE_TABLE_FOPS(mi_buddy, &mi_buddy_table). */
#define MI_ZONE_TABLE_FOPS(name, table)					\
static int name##_open(struct inode *inode, struct file *file)		\
{									\
	return mi_zone_table_open(file, table);				\
}									\
const struct file_operations name##_fops = {				\
	.owner = THIS_MODULE,						\
	.open = name##_open,						\
	.read = seq_read,						\
	.llseek = seq_lseek,						\
	.release = seq_release_private,					\
}

/*
 * For figures summed over every zone: the populated zone after @zone (the
 * first one for NULL), over every online node; NULL after the last.
 */
struct zone *mi_next_populated_zone(struct zone *zone);

#endif /* MI_ZONE_WALK_H */
