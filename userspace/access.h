/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reaching the module's files, and when that fails, naming the real reason
 * (debugfs not mounted, module not loaded, not root) with its exit status.
 * Every command loads through here, fault's included.
 */
#ifndef MI_ACCESS_H
#define MI_ACCESS_H

#include <stdbool.h>
#include <stddef.h>

struct mi_table;
struct mi_error;

struct mi_access {
	const char *dir;	/* where the module's files are */
	const char *sysfs;	/* "/sys"; $MEMINSPECT_SYSFS lets tests fake it */
	char debugfs[256];	/* sysfs + "/kernel/debug" */
	char default_dir[300];
};

/* From the environment: $MEMINSPECT_SYSFS, $MEMINSPECT_DIR. */
void mi_access_init(struct mi_access *a);

/* The loaded module's version into buf ("" when unknown); false if none. */
bool mi_module_version(const struct mi_access *a, char *buf, size_t len);
bool mi_module_loaded(const struct mi_access *a);

/* The exit status for a failed open or read, after saying why on stderr. */
int mi_open_failed(const struct mi_access *a, const struct mi_error *e);

/* Read and parse DIR/file; ST_OK, or the status from mi_open_failed(). */
int mi_load(const struct mi_access *a, const char *file, struct mi_table **t);

#endif
