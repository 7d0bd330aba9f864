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
	/* the module's character devices that mirror dir's writable files */
	const char *dev_dir;	/* "/dev/meminspect"; $MEMINSPECT_DEV_DIR */
	char debugfs[256];	/* sysfs + "/kernel/debug" */
	char default_dir[300];
	char lockdown[300];	/* sysfs + "/kernel/security/lockdown" */
};

/* From the environment: $MEMINSPECT_SYSFS, $MEMINSPECT_DIR, $MEMINSPECT_DEV_DIR. */
void mi_access_init(struct mi_access *a);

/*
 * Open the module's file @rel (a path below dir) with @flags, the one way
 * the reader opens a module file. Under kernel lockdown debugfs refuses
 * (EPERM) every file with a write bit, knobs and mm/vmas alike: then the
 * same file under dev_dir, if the module has it there, is opened instead
 * with the same flags. The path opened (or tried last) goes to @path.
 * The fd, or -1 with errno set.
 */
int mi_open(const struct mi_access *a, const char *rel, int flags, char *path, size_t len);

/*
 * The kernel's lockdown level ("none", "integrity", "confidentiality")
 * into @buf, from securityfs; NULL when it cannot be told (securityfs not
 * mounted, no lockdown LSM): the reader never mounts anything.
 */
const char *mi_lockdown_level(const struct mi_access *a, char *buf, size_t len);
/* The level when it is known and not "none"; else NULL. */
const char *mi_locked_down(const struct mi_access *a, char *buf, size_t len);

/* The loaded module's version into buf ("" when unknown); false if none. */
bool mi_module_version(const struct mi_access *a, char *buf, size_t len);
bool mi_module_loaded(const struct mi_access *a);

/*
 * The exit status for a failed open or read, after saying why on stderr
 * (an EPERM as root under lockdown names the lockdown and its level).
 */
int mi_open_failed(const struct mi_access *a, const struct mi_error *e);

/* Read and parse DIR/file; ST_OK, or the status from mi_open_failed(). */
int mi_load(const struct mi_access *a, const char *file, struct mi_table **t);

#endif
