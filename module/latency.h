/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latency/: reclaim stall histograms from the vmscan tracepoints
 * (docs/latency.md).
 */
#ifndef MI_LATENCY_H
#define MI_LATENCY_H

#include <linux/fs.h>

int mi_latency_init(struct dentry *parent);
void mi_latency_exit(void);

#endif /* MI_LATENCY_H */
