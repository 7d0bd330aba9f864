/* SPDX-License-Identifier: GPL-2.0 */
/* files: the page cache by inode (files.c, docs/files.md) */
#ifndef MI_FILES_H
#define MI_FILES_H

#include <linux/fs.h>

extern const struct file_operations mi_files_fops;

void mi_files_init(void);
void mi_files_exit(void);

#endif
