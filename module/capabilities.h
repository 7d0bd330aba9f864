/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capabilities file: what the module can provide on this kernel.
 * Each feature keeps its rows in a static array of struct mi_cap, fills in
 * availability and detail at init, and registers the array once with its
 * own struct mi_cap_table; the file prints every registered row (files
 * first, then fields, then mechanisms).
 */
#ifndef MI_CAPABILITIES_H
#define MI_CAPABILITIES_H

#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/list.h>

enum mi_cap_kind {
	MI_CAP_FILE,		/* a file the module creates */
	MI_CAP_FIELD,		/* FILE.FIELD whose source varies by kernel */
	MI_CAP_MECHANISM,	/* something other rows depend on */
	MI_CAP_NR_KINDS
};

#define MI_CAP_DETAIL_LEN	384

struct mi_cap {
	const char *name;
	enum mi_cap_kind kind;
	bool available;
	char detail[MI_CAP_DETAIL_LEN];	/* free text, no newline */
};

struct mi_cap_table {
	struct list_head node;
	struct mi_cap *caps;
	unsigned int nr;
	/* rows that change at run time: set again before each read */
	void (*refresh)(struct mi_cap *caps);
};

__printf(3, 4)
void mi_cap_set(struct mi_cap *cap, bool available, const char *fmt, ...);
void mi_caps_register(struct mi_cap_table *table, struct mi_cap *caps,
		      unsigned int nr);
void mi_caps_unregister(struct mi_cap_table *table);

void mi_kernel_caps_init(void);
void mi_kernel_caps_exit(void);

extern const struct file_operations mi_capabilities_fops;

#endif /* MI_CAPABILITIES_H */
