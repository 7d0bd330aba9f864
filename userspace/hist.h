/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latency/histograms (docs/format.md): one log2 (ns) histogram per kind.
 * The parsed record, the bucket bounds, durations in ns/us/ms/s, and the
 * histograms as Prometheus histograms (docs/export.md).
 */
#ifndef MI_HIST_H
#define MI_HIST_H

#include <stdbool.h>
#include <stddef.h>

struct mi_table;
struct prom_out;

/* The module has 40; a longer list is an error (2^63 ns is the limit). */
#define MI_HIST_MAX_BUCKETS 63

struct mi_hist {
	const char *kind;	/* the table's value */
	unsigned long long events, sum_ns, unpaired;
	size_t nb;		/* buckets in the file */
	unsigned long long b[MI_HIST_MAX_BUCKETS];
};

/*
 * Bucket i counts [2^i, 2^(i+1)) ns; bucket 0 also counts 0 ns, so it is
 * [0, 2); the last one also counts anything longer: its hi is 0 (none).
 */
unsigned long long hist_lo_ns(size_t i);
unsigned long long hist_hi_ns(const struct mi_hist *h, size_t i);

/* Record rec of a latency/histograms table; false (message given) if malformed. */
bool hist_parse(const struct mi_table *t, size_t rec, struct mi_hist *h);
/* The view's check: every record parses. */
int check_latency(const struct mi_table *t);
/* latency/page_alloc's check: integer counts, one record per order. */
int check_page_alloc(const struct mi_table *t);
/* latency/stallers' check: integers but comm, one record per pid. */
int check_stallers(const struct mi_table *t);

/*
 * cur - prev, kind by kind (the same kind in both); false when a count went
 * down: the module was re-armed (or reloaded) in between.
 */
bool hist_sub(struct mi_hist *out, const struct mi_hist *cur, const struct mi_hist *prev);

/* ns with 3 significant digits: "512ns", "1.02us", "65.5us", "1.07s" */
void hist_fmt_ns(char *buf, size_t len, double ns);

/*
 * bpftrace's hist(): "@KIND: events N, sum S, mean M, unpaired U", then
 * one "[lo, hi)  count |@@@...|" row per bucket from the first to the last
 * non-empty one, a bar of 52 at the largest count.
 */
void hist_print(const struct mi_hist *h);

/*
 * meminspect_latency_seconds_bucket{kind,le} (cumulative), _sum, _count,
 * and meminspect_latency_unpaired_total{kind}. 0, -EINVAL or -ENOMEM.
 */
int prom_export_histograms(struct prom_out *o, const char *file, const struct mi_table *t);

#endif
