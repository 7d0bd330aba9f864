// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect: read-only views of kernel memory state under
 * /sys/kernel/debug/meminspect/.  This file builds and removes the debugfs
 * tree; every file's content lives in its own source file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/module.h>

#include "allocs.h"
#include "lockdown.h"
#include "mirror.h"
#include "buddy.h"
#include "capabilities.h"
#include "cgroups.h"
#include "fault.h"
#include "files.h"
#include "ksyms.h"
#include "latency.h"
#include "pressure.h"
#include "procmem.h"
#include "slab.h"
#include "summary.h"
#include "pages.h"
#include "zones.h"

/*
 * The files, 0400 (0600 where a write chooses what to show): they show
 * kernel internals, for root only.
 *
 * Unloading while a reader is busy is safe: debugfs hands each open file
 * a proxy, whose open takes a reference on fops->owner (THIS_MODULE), so
 * the module cannot be removed while any file is open; and
 * debugfs_remove_recursive() waits for calls already inside a proxy, so a
 * file being opened as the module goes away sees it removed, never freed
 * code.
 */
static const struct mi_file {
	const char *name;
	const struct file_operations *fops;
	const char *detail;
	umode_t mode;		/* 0: 0400 */
} mi_files[] = {
	{ "summary", &mi_summary_fops,
	  "memory totals with their /proc/meminfo counterparts" },
	{ "capabilities", &mi_capabilities_fops,
	  "what this module provides on this kernel, and how" },
	{ "slabs", &mi_slabs_fops,
	  "one record per slab cache, with /proc/slabinfo's counts, waste and flags" },
	{ "zones", &mi_zones_fops,
	  "every populated zone: watermarks, reserves, per-CPU and free pages per order" },
	{ "buddy", &mi_buddy_fops,
	  "exact free blocks per node, zone, migratetype and order; pageblocks" },
	{ "fragmentation", &mi_fragmentation_fops,
	  "unusable and extfrag indexes and free blocks per order, from nr_free" },
	{ "fragmentation_types", &mi_fragmentation_types_fops,
	  "free blocks per order and migratetype, from a walk of the free lists" },
	{ "pages", &mi_pages_fops,
	  "a census of every pfn per node, zone and class (buddy, slab, anon, file, ...)" },
	{ "mm", &mi_mm_fops,
	  "one process's mm_struct and page-walk rollup (pid written to the open file)",
	  0600 },
	{ "vmas", &mi_vmas_fops,
	  "one row per VMA of one process, with its page-walk figures", 0600 },
	{ "procs", &mi_procs_fops,
	  "every process's page-walk rollup, one record each, pids of the reader's pid namespace" },
	{ "cgroups", &mi_cgroups_fops,
	  "one record per memory cgroup, live or dying, with its census pages and slab bytes" },
	{ "cgroup_slabs", &mi_cgroup_slabs_fops,
	  "slab objects and bytes per memory cgroup and cache, from the census walk" },
	{ "pressure", &mi_pressure_fops,
	  "reclaim counters with per-open deltas, PSI memory, watermark distances, kswapd" },
	{ "files", &mi_files_fops,
	  "the page cache by inode: the top files_top inodes by pages, dirty, writeback; a total" },
};

static struct mi_cap mi_file_caps[ARRAY_SIZE(mi_files)];
static struct mi_cap_table mi_file_table;
static struct dentry *mi_dir;

/* The state mi_init() set up before the debugfs tree, in reverse. */
static void mi_state_exit(void)
{
	mi_caps_unregister(&mi_file_table);
	mi_lockdown_exit();
	mi_kernel_caps_exit();
	mi_files_exit();
	mi_pressure_exit();
	mi_procmem_exit();
	mi_cgroups_exit();
	mi_pages_exit();
	mi_buddy_exit();
	mi_zones_exit();
	mi_slab_exit();
	mi_summary_exit();
	mi_ksyms_exit();
}

static int __init mi_init(void)
{
	unsigned int i;
	int err;

	mi_ksyms_init();
	mi_ksyms_cache_fill();
	mi_summary_init();
	mi_slab_init();
	mi_zones_init();
	mi_buddy_init();
	mi_pages_init();
	mi_cgroups_init();
	mi_procmem_init();
	mi_pressure_init();
	mi_files_init();
	mi_kernel_caps_init();
	mi_lockdown_init();

	for (i = 0; i < ARRAY_SIZE(mi_files); i++) {
		mi_file_caps[i].name = mi_files[i].name;
		mi_file_caps[i].kind = MI_CAP_FILE;
		mi_cap_set(&mi_file_caps[i], true, "%s", mi_files[i].detail);
	}
	mi_caps_register(&mi_file_table, mi_file_caps, ARRAY_SIZE(mi_file_caps));

	mi_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(mi_dir)) {
		err = PTR_ERR(mi_dir);
		pr_err("cannot create the debugfs directory: %d\n", err);
		goto unregister_files;
	}
	for (i = 0; i < ARRAY_SIZE(mi_files); i++) {
		struct dentry *file;

		file = debugfs_create_file(mi_files[i].name,
					   mi_files[i].mode ?: 0400, mi_dir,
					   NULL, mi_files[i].fops);
		if (IS_ERR(file)) {
			err = PTR_ERR(file);
			pr_err("cannot create debugfs file %s: %d\n",
			       mi_files[i].name, err);
			goto remove_dir;
		}
		/* a file written to (mm, vmas) is mirrored for lockdown */
		if (mi_files[i].mode & 0200)
			mi_mirror_add(mi_files[i].name, mi_files[i].fops,
				      NULL, NULL, 0);
	}
	err = mi_fault_init(mi_dir);
	if (err) {
		pr_err("cannot create the fault directory: %d\n", err);
		goto remove_dir;
	}
	err = mi_allocs_init(mi_dir);
	if (err) {
		pr_err("cannot create the allocs directory: %d\n", err);
		goto remove_subdirs;
	}
	err = mi_latency_init(mi_dir);
	if (err) {
		pr_err("cannot create the latency directory: %d\n", err);
		goto remove_subdirs;
	}
	mi_ksyms_cache_drop();
	return 0;

/* the subdirectories' exits are safe after a failed or absent init */
remove_subdirs:
	mi_mirrors_remove();
	debugfs_remove_recursive(mi_dir);
	mi_latency_exit();
	mi_allocs_exit();
	mi_fault_exit();
	goto unregister_files;
remove_dir:
	mi_mirrors_remove();
	debugfs_remove_recursive(mi_dir);
unregister_files:
	mi_state_exit();
	mi_ksyms_cache_drop();
	return err;
}

static void __exit mi_exit(void)
{
	mi_mirrors_remove();
	debugfs_remove_recursive(mi_dir);
	mi_latency_exit();
	mi_allocs_exit();
	mi_fault_exit();
	mi_state_exit();
}

module_init(mi_init);
module_exit(mi_exit);

MODULE_DESCRIPTION("Read-only views of kernel memory state in debugfs");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1.0");
