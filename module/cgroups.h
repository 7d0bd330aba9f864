/* SPDX-License-Identifier: GPL-2.0 */
/* Memory cgroups with the pages charged to each (cgroups.c, docs/cgroups.md). */
#ifndef MI_CGROUPS_H
#define MI_CGROUPS_H

#include <linux/fs.h>

void mi_cgroups_init(void);
void mi_cgroups_exit(void);

extern const struct file_operations mi_cgroups_fops;

#endif /* MI_CGROUPS_H */
