/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MI_PRESSURE_H
#define MI_PRESSURE_H

#include <linux/fs.h>

void mi_pressure_init(void);
void mi_pressure_exit(void);

extern const struct file_operations mi_pressure_fops;

#endif /* MI_PRESSURE_H */
