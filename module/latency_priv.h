/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What latency.c (reclaim and compaction stalls) and latency_alloc.c (page
 * allocations by order) share: the log2 histogram and how a line of
 * latency/histograms is printed (docs/format.md).
 */
#ifndef MI_LATENCY_PRIV_H
#define MI_LATENCY_PRIV_H

#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

#include "capabilities.h"

/* Bucket i counts [2^i, 2^(i+1)) ns; bucket 0 also counts 0 ns. */
#define MI_LAT_BUCKETS	40	/* up to 2^40 ns, about 18 minutes */

struct mi_lat_hist {
	u64 events;
	u64 sum_ns;
	u64 buckets[MI_LAT_BUCKETS];
};

static inline unsigned int mi_lat_bucket(u64 ns)
{
	return min_t(unsigned int, ns > 1 ? ilog2(ns) : 0, MI_LAT_BUCKETS - 1);
}

/* "kind events sum_ns unpaired b0,...,b39" */
void mi_lat_hist_show(struct seq_file *m, const char *kind,
		      const struct mi_lat_hist *sum, long unpaired);

/*
 * latency_alloc.c, called by latency.c: attach and detach under its mutex
 * (arming, disarming), the rest without it (the reads) and at init.
 */
/* each kernel tracepoint of latency.c's one walk, before init */
void mi_lat_alloc_find_tp(struct tracepoint *tp);
void mi_lat_alloc_init(struct mi_cap *cap);
int mi_lat_alloc_attach(void);
void mi_lat_alloc_detach(void);
void mi_lat_alloc_hist_show(struct seq_file *m);
void mi_lat_alloc_note(struct seq_file *m);
int mi_lat_alloc_table_show(struct seq_file *m, void *unused);

#endif /* MI_LATENCY_PRIV_H */
