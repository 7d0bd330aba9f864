/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MI_SUMMARY_H
#define MI_SUMMARY_H

#include <linux/fs.h>

void mi_summary_init(void);
void mi_summary_exit(void);

extern const struct file_operations mi_summary_fops;

#endif /* MI_SUMMARY_H */
