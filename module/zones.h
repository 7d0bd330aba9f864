/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MI_ZONES_H
#define MI_ZONES_H

#include <linux/fs.h>

void mi_zones_init(void);
void mi_zones_exit(void);

extern const struct file_operations mi_zones_fops;

#endif /* MI_ZONES_H */
