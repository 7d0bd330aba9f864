/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mm and vmas: one process's memory, as /proc/PID/status, smaps_rollup and
 * smaps show it; procs: every process's rollup (docs/procmem.md).
 */
#ifndef MI_PROCMEM_H
#define MI_PROCMEM_H

#include <linux/fs.h>

void mi_procmem_init(void);
void mi_procmem_exit(void);

extern const struct file_operations mi_mm_fops;
extern const struct file_operations mi_vmas_fops;
extern const struct file_operations mi_procs_fops;

#endif /* MI_PROCMEM_H */
