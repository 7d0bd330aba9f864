// SPDX-License-Identifier: GPL-2.0
/*
 * The per-node seq_file behind every per-zone table (zone_walk.h).
 * Records: position p < number of online nodes is the p-th online node;
 * one more position is the footer, when the table has one.
 *
 * seq_file shows a record again when its text overflowed the buffer: with
 * a buffer twice as big in the same read() (seq_read_iter()'s first
 * record), or in the next read() (a later record that did not fit behind
 * the others).  Either way the record's show is the next show, so keeping
 * the walk of the one node whose text overflowed is enough.
 */
#include <linux/bits.h>
#include <linux/module.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "zone_walk.h"

struct mi_zone_iter {
	const struct mi_zone_table *t;
	/*
	 * The node whose walk @res holds, kept while seq_file has still to
	 * show it again (its text overflowed the buffer); NUMA_NO_NODE when
	 * none is.  Bit i of @kept_zones: node_zones[i] was walked into the
	 * i-th result (the zones walked, not those populated at the replay).
	 */
	int kept_nid;
	unsigned long kept_zones;
	void *state;		/* t->state_size bytes */
	void *res;		/* MAX_NR_ZONES results of t->res_size bytes */
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

/*
 * A start at 0 is a read from the top, unless it is seq_file showing the
 * first node again with a bigger buffer (its walk is kept): then nothing
 * is added up yet, and a node walked by an earlier read is walked again.
 */
static void *mi_zone_start(struct seq_file *m, loff_t *pos)
{
	struct mi_zone_iter *it = m->private;

	if (!*pos && it->kept_nid != first_online_node) {
		memset(it->state, 0, it->t->state_size);
		it->kept_nid = NUMA_NO_NODE;
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

static void *mi_zone_res(struct mi_zone_iter *it, unsigned int i)
{
	return (char *)it->res + i * it->t->res_size;
}

/* Walk every populated zone of @nid into it->res. */
static int mi_zone_walk_node(struct mi_zone_iter *it, int nid)
{
	const struct mi_zone_table *t = it->t;
	unsigned int i;
	int err;

	it->kept_nid = NUMA_NO_NODE;
	it->kept_zones = 0;
	memset(it->res, 0, MAX_NR_ZONES * t->res_size);
	for (i = 0; i < MAX_NR_ZONES; i++) {
		struct zone *zone = &NODE_DATA(nid)->node_zones[i];

		if (!populated_zone(zone))
			continue;
		err = t->walk(nid, zone, mi_zone_res(it, i), it->state);
		if (err)
			return err;
		it->kept_zones |= BIT(i);
	}
	it->kept_nid = nid;
	return 0;
}

static int mi_zone_show(struct seq_file *m, void *v)
{
	struct mi_zone_iter *it = m->private;
	const struct mi_zone_table *t = it->t;
	unsigned int i;
	int nid, err;

	if (v == MI_ZONE_FOOTER) {
		t->footer(m, it->state);
		return 0;
	}
	nid = (int)(long)v - 1;
	if (t->walk && it->kept_nid != nid) {
		err = mi_zone_walk_node(it, nid);
		if (err)
			return err;
	}
	if (nid == first_online_node)
		t->header(m);
	for (i = 0; i < MAX_NR_ZONES; i++) {
		struct zone *zone = &NODE_DATA(nid)->node_zones[i];

		if (t->walk ? !(it->kept_zones & BIT(i)) : !populated_zone(zone))
			continue;
		t->print(m, nid, zone, t->walk ? mi_zone_res(it, i) : NULL,
			 it->state);
	}
	/*
	 * Overflowed: seq_file drops this text and shows the node again,
	 * from the kept walk.  Shown whole: a later show of the node belongs
	 * to another read (a seek), which walks it again.
	 */
	it->kept_nid = t->walk && seq_has_overflowed(m) ? nid : NUMA_NO_NODE;
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
	size_t state_size = ALIGN(t->state_size, sizeof(u64));
	struct mi_zone_iter *it;

	it = __seq_open_private(file, &mi_zone_sops,
				sizeof(*it) + state_size +
				MAX_NR_ZONES * t->res_size);
	if (!it)
		return -ENOMEM;
	it->t = t;
	it->kept_nid = NUMA_NO_NODE;
	it->state = it + 1;
	it->res = (char *)it->state + state_size;
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
