// SPDX-License-Identifier: GPL-2.0
/*
 * The per-node seq_file behind every per-zone table (zone_walk.h).
 * Records: position p < number of online nodes is the p-th online node;
 * one more position is the footer, when the table has one.
 */
#include <linux/module.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "zone_walk.h"

struct mi_zone_iter {
	const struct mi_zone_table *t;
	int shown_nid;		/* the node whose show began last; NUMA_NO_NODE */
	void *state;		/* t->state_size bytes */
	void *tally;		/* the tally as it was before shown_nid's first show */
};

/*
 * The footer's record: not a node (nodes are nid + 1, never NULL), and not
 * an ERR_PTR, which seq_file would take for a failed start().
 */
#define MI_ZONE_FOOTER	((void *)(long)(MAX_NUMNODES + 1))

static void *mi_zone_record(struct mi_zone_iter *it, loff_t pos)
{
	int nid;

	for_each_online_node(nid)
		if (pos-- == 0)
			return (void *)(long)(nid + 1);
	return pos == 0 && it->t->footer ? MI_ZONE_FOOTER : NULL;
}

static void *mi_zone_start(struct seq_file *m, loff_t *pos)
{
	struct mi_zone_iter *it = m->private;

	if (!*pos) {	/* a read from the top: nothing added up yet */
		memset(it->state, 0, it->t->state_size);
		it->shown_nid = NUMA_NO_NODE;
	}
	return mi_zone_record(it, *pos);
}

static void *mi_zone_next(struct seq_file *m, void *v, loff_t *pos)
{
	return mi_zone_record(m->private, ++*pos);
}

static void mi_zone_stop(struct seq_file *m, void *v)
{
}

static int mi_zone_show(struct seq_file *m, void *v)
{
	struct mi_zone_iter *it = m->private;
	const struct mi_zone_table *t = it->t;
	struct zone *zone;
	int nid, err;

	if (v == MI_ZONE_FOOTER) {
		t->footer(m, it->state);
		return 0;
	}
	nid = (int)(long)v - 1;
	/* shown again after an overflow: the tally as before its first show */
	if (nid == it->shown_nid) {
		memcpy(it->state, it->tally, t->tally_size);
	} else {
		memcpy(it->tally, it->state, t->tally_size);
		it->shown_nid = nid;
	}
	if (nid == first_online_node)
		t->header(m);
	for (zone = NODE_DATA(nid)->node_zones;
	     zone < NODE_DATA(nid)->node_zones + MAX_NR_ZONES; zone++) {
		if (!populated_zone(zone))
			continue;
		err = t->zone(m, nid, zone, it->state);
		if (err)
			return err;
	}
	return 0;
}

static const struct seq_operations mi_zone_sops = {
	.start = mi_zone_start,
	.next = mi_zone_next,
	.stop = mi_zone_stop,
	.show = mi_zone_show,
};

int mi_zone_table_open(struct file *file, const struct mi_zone_table *t)
{
	struct mi_zone_iter *it;

	it = __seq_open_private(file, &mi_zone_sops,
				sizeof(*it) + t->state_size + t->tally_size);
	if (!it)
		return -ENOMEM;
	it->t = t;
	it->shown_nid = NUMA_NO_NODE;
	it->state = it + 1;
	it->tally = (char *)it->state + t->state_size;
	return 0;
}

struct zone *mi_next_populated_zone(struct zone *zone)
{
	int nid = zone ? zone_to_nid(zone) : first_online_node;

	zone = zone ? zone + 1 : NODE_DATA(nid)->node_zones;
	for (;;) {
		for (; zone < NODE_DATA(nid)->node_zones + MAX_NR_ZONES; zone++)
			if (populated_zone(zone))
				return zone;
		nid = next_online_node(nid);
		if (nid >= MAX_NUMNODES)
			return NULL;
		zone = NODE_DATA(nid)->node_zones;
	}
}
