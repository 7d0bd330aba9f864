/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel lockdown: the level, its capabilities row, code addresses (lockdown.c) */
#ifndef MI_LOCKDOWN_H
#define MI_LOCKDOWN_H

#include <linux/types.h>

struct seq_file;

enum mi_lockdown_level {
	MI_LOCKDOWN_NONE,
	MI_LOCKDOWN_INTEGRITY,
	MI_LOCKDOWN_CONFIDENTIALITY,
};

enum mi_lockdown_level mi_lockdown_level(void);
bool mi_lockdown_hides_addresses(void);
void mi_put_code(struct seq_file *m, const char *sep, unsigned long addr,
		 bool hide);
void mi_lockdown_init(void);
void mi_lockdown_exit(void);

#endif
