/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One walker for every per-zone table (zones, buddy, fragmentation,
 * fragmentation_types, pages), as mm/vmstat.c serves buddyinfo,
 * pagetypeinfo and zoneinfo with frag_start()/frag_next() and
 * walk_zones_in_node(): a seq_file whose records are the online nodes, each
 * shown by calling the table's callbacks for every populated zone of the
 * node.  The tables differ only in their callbacks.
 *
 * A table that walks (free lists, struct pages) computes a node's zones
 * into per-zone results first and prints from them.  seq_file shows a
 * record again when its text did not fit the buffer (a bigger buffer, or
 * the next read()); the results are kept for that, so one read walks each
 * node once and the figures of the second show are those of the first.
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
	/*
	 * Walk one populated zone into @res (@res_size bytes, zeroed before),
	 * adding the walk's cost to @state; 0, or -errno to end the read with
	 * it.  NULL for a table that reads counters only: its print reads
	 * them itself, again when a node is shown again.
	 */
	int (*walk)(int nid, struct zone *zone, void *res, void *state);
	/* one zone's rows, from @res (NULL without walk) */
	void (*print)(struct seq_file *m, int nid, struct zone *zone,
		      const void *res, void *state);
	/* after the last node (notes over the whole read); NULL: none */
	void (*footer)(struct seq_file *m, void *state);
	/*
	 * @state_size: per-open state handed to the callbacks (the totals
	 * of the footer), zeroed when a read starts from the top;
	 * @res_size: one zone's walk results.
	 */
	size_t state_size, res_size;
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
