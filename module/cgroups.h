/* SPDX-License-Identifier: GPL-2.0 */
/* Memory cgroups with the pages charged to each (cgroups.c, docs/cgroups.md). */
#ifndef MI_CGROUPS_H
#define MI_CGROUPS_H

#include <linux/fs.h>

void mi_cgroups_init(void);
void mi_cgroups_exit(void);

/* cgroups_slab.c */
void mi_cg_slab_init(void);
void mi_cg_slab_exit(void);

extern const struct file_operations mi_cgroups_fops;
extern const struct file_operations mi_cgroup_slabs_fops;

#endif /* MI_CGROUPS_H */
