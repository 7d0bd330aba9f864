/* SPDX-License-Identifier: GPL-2.0 */
/* allocs/: slab allocations by call site (allocs.c) */
#ifndef MI_ALLOCS_H
#define MI_ALLOCS_H

struct dentry;

int mi_allocs_init(struct dentry *parent);
void mi_allocs_exit(void);

#endif
