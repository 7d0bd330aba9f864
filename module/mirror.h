/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/meminspect/: writable debugfs files mirrored outside debugfs (mirror.c) */
#ifndef MI_MIRROR_H
#define MI_MIRROR_H

#include <linux/fs.h>

#define MI_MIRROR_TRACES	0x1	/* a write arms tracing: refused at confidentiality */

int mi_mirror_add(const char *path, const struct file_operations *fops,
		  int (*open_data)(struct file *file, void *data), void *data,
		  unsigned int flags);
void mi_mirrors_remove(void);

#endif
