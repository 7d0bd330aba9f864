/* SPDX-License-Identifier: GPL-2.0 */
/* The pages census (pages.c, docs/pages.md). */
#ifndef MI_PAGES_H
#define MI_PAGES_H

#include <linux/fs.h>

void mi_pages_init(void);
void mi_pages_exit(void);

extern const struct file_operations mi_pages_fops;

#endif /* MI_PAGES_H */
