// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect_drv: a driver-like module whose init makes four allocations,
 * for `meminspect fault sweep --module meminspect_drv -- insmod ...`
 * (selftests/test_fault_module.sh).  Failing each in turn gives:
 *
 *   1  ctx    kzalloc(96)           fails: nothing to undo, -ENOMEM
 *   2  table  kcalloc(16, 8)        fails: frees ctx, -ENOMEM (unwinds)
 *   3  ring   kmalloc(512)          fails: returns -ENOMEM keeping ctx and
 *                                   table: THE PLANTED LEAK (2 objects)
 *   4  name   kstrdup(), one frame  fails: frees ring, table, ctx (unwinds)
 *             below this module
 *
 * and a fifth run that fails nothing loads it.  Unloading frees all four.
 * The pointers live in this module's .bss, which goes with the module, so
 * after failure 3 nothing the kernel scans points at ctx or table and
 * kmemleak reports them.  Step 4 goes through kstrdup() so that a sweep
 * with aim-depth 1 stops at 3 failure points and one with aim-depth 2 or
 * more reaches it.
 *
 * With sizes=1 the init makes, instead, one allocation of each size class
 * (test_fault_points.sh: one allocation call is one failure point, on
 * every kernel, whatever its size):
 *
 *   1  small  kmalloc(64)
 *   2  large  kmalloc(64 KiB), a constant size: the large kmalloc entry
 *             point (5.10's kmalloc_order_trace(), 6.1's kmalloc_large(),
 *             __kmalloc_large_noprof() from 6.10)
 *   3  big    kmalloc(64 KiB), a size known at run time: __kmalloc(), which
 *             passes it on to the large kmalloc path
 *   4  huge   kvmalloc(1 MiB)
 *
 * each failing with the earlier ones freed, and a fifth run loads it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>

#define MI_DRV_CTX_SIZE		96
#define MI_DRV_TABLE_LEN	16
#define MI_DRV_RING_SIZE	512

static void *mi_drv_ctx;
static u64 *mi_drv_table;
static void *mi_drv_ring;
static char *mi_drv_name;

static bool sizes;
module_param(sizes, bool, 0400);
MODULE_PARM_DESC(sizes, "init makes one allocation of each size class instead");

/* a size the compiler cannot see: kmalloc() calls __kmalloc() with it */
static size_t mi_drv_big_size = SZ_64K;
static void *mi_drv_small, *mi_drv_large, *mi_drv_big, *mi_drv_huge;

static int __init mi_drv_sizes_init(void)
{
	mi_drv_small = kmalloc(64, GFP_KERNEL);
	if (!mi_drv_small)
		return -ENOMEM;
	mi_drv_large = kmalloc(SZ_64K, GFP_KERNEL);
	if (!mi_drv_large)
		goto free_small;
	mi_drv_big = kmalloc(READ_ONCE(mi_drv_big_size), GFP_KERNEL);
	if (!mi_drv_big)
		goto free_large;
	mi_drv_huge = kvmalloc(SZ_1M, GFP_KERNEL);
	if (!mi_drv_huge)
		goto free_big;
	return 0;

free_big:
	kfree(mi_drv_big);
free_large:
	kfree(mi_drv_large);
free_small:
	kfree(mi_drv_small);
	return -ENOMEM;
}

static int __init mi_drv_init(void)
{
	if (sizes)
		return mi_drv_sizes_init();
	mi_drv_ctx = kzalloc(MI_DRV_CTX_SIZE, GFP_KERNEL);
	if (!mi_drv_ctx)
		return -ENOMEM;
	mi_drv_table = kcalloc(MI_DRV_TABLE_LEN, sizeof(*mi_drv_table),
			       GFP_KERNEL);
	if (!mi_drv_table)
		goto free_ctx;
	mi_drv_ring = kmalloc(MI_DRV_RING_SIZE, GFP_KERNEL);
	if (!mi_drv_ring)
		return -ENOMEM;	/* planted leak: ctx and table are not freed */
	mi_drv_name = kstrdup(KBUILD_MODNAME, GFP_KERNEL);
	if (!mi_drv_name)
		goto free_ring;
	return 0;

free_ring:
	kfree(mi_drv_ring);
	kfree(mi_drv_table);
free_ctx:
	kfree(mi_drv_ctx);
	return -ENOMEM;
}

static void __exit mi_drv_exit(void)
{
	kvfree(mi_drv_huge);
	kfree(mi_drv_big);
	kfree(mi_drv_large);
	kfree(mi_drv_small);
	kfree(mi_drv_name);
	kfree(mi_drv_ring);
	kfree(mi_drv_table);
	kfree(mi_drv_ctx);
}

module_init(mi_drv_init);
module_exit(mi_drv_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("meminspect selftests: a driver init with a planted leak");
