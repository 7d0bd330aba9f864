// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect_bulk: a module that frees the ways no kmem tracepoint reports
 * (selftests/test_allocs_bulk.sh).  Its init allocates, from three call
 * sites of its own:
 *
 *   cached  objs/2 objects of its own cache (kmem_cache_alloc())
 *   bulk    objs/4 kmalloc(96) objects
 *   rcu     objs/4 kmalloc(96) objects with an rcu_head
 *
 * and keeps them.  Writing 1 to the release parameter frees them as a
 * driver would: the cache's by kmem_cache_free_bulk(), the bulk ones by
 * kfree_bulk(), the rcu ones one by one by kfree_rcu().  The objects'
 * pointers live in vmalloc memory, which allocs does not follow: its rows
 * for this module are the three above and nothing else.  Unloading frees
 * whatever was not released.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#define MI_BULK_OBJ_SIZE	96

struct mi_bulk_rcu_obj {
	struct rcu_head rcu;
	char data[MI_BULK_OBJ_SIZE - sizeof(struct rcu_head)];
};

static unsigned int objs = 1280;
module_param(objs, uint, 0400);
MODULE_PARM_DESC(objs, "objects allocated at init (a multiple of 4)");

static struct kmem_cache *mi_bulk_cache;
static void **mi_bulk_cached, **mi_bulk_bulk;
static struct mi_bulk_rcu_obj **mi_bulk_rcu;
static bool mi_bulk_released;
/* bench/allocs-bulk: what the two bulk calls took at the release */
static unsigned long long mi_bulk_ns;
module_param_named(release_ns, mi_bulk_ns, ullong, 0400);
MODULE_PARM_DESC(release_ns, "ns the release's kmem_cache_free_bulk() and kfree_bulk() took");
static DEFINE_MUTEX(mi_bulk_lock);

static void mi_bulk_free_all(void)
{
	unsigned int i;
	u64 start = ktime_get_ns();

	kmem_cache_free_bulk(mi_bulk_cache, objs / 2, mi_bulk_cached);
	kfree_bulk(objs / 4, mi_bulk_bulk);
	mi_bulk_ns = ktime_get_ns() - start;
	for (i = 0; i < objs / 4; i++)
		kfree_rcu(mi_bulk_rcu[i], rcu);
	mi_bulk_released = true;
}

static int mi_bulk_release_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err;

	err = kstrtobool(val, &on);
	if (err)
		return err;
	if (!on)
		return -EINVAL;
	if (mutex_lock_killable(&mi_bulk_lock))
		return -EINTR;
	err = mi_bulk_released ? -EBUSY : 0;
	if (!err)
		mi_bulk_free_all();
	mutex_unlock(&mi_bulk_lock);
	return err;
}

static int mi_bulk_release_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", mi_bulk_released);
}

static const struct kernel_param_ops mi_bulk_release_ops = {
	.set = mi_bulk_release_set,
	.get = mi_bulk_release_get,
};
module_param_cb(release, &mi_bulk_release_ops, NULL, 0600);
MODULE_PARM_DESC(release, "write 1: free every object (bulk, kfree_bulk, kfree_rcu)");

static void mi_bulk_free_arrays(void)
{
	vfree(mi_bulk_rcu);
	vfree(mi_bulk_bulk);
	vfree(mi_bulk_cached);
}

static int __init mi_bulk_init(void)
{
	unsigned int i;

	if (!objs || objs % 4)
		return -EINVAL;
	mi_bulk_cache = kmem_cache_create("meminspect_bulk", MI_BULK_OBJ_SIZE,
					  0, 0, NULL);
	if (!mi_bulk_cache)
		return -ENOMEM;
	mi_bulk_cached = vzalloc(array_size(objs / 2, sizeof(void *)));
	mi_bulk_bulk = vzalloc(array_size(objs / 4, sizeof(void *)));
	mi_bulk_rcu = vzalloc(array_size(objs / 4, sizeof(*mi_bulk_rcu)));
	if (!mi_bulk_cached || !mi_bulk_bulk || !mi_bulk_rcu)
		goto free_arrays;
	for (i = 0; i < objs / 2; i++) {
		mi_bulk_cached[i] = kmem_cache_alloc(mi_bulk_cache, GFP_KERNEL);
		if (!mi_bulk_cached[i])
			goto free_objs;
	}
	for (i = 0; i < objs / 4; i++) {
		mi_bulk_bulk[i] = kmalloc(MI_BULK_OBJ_SIZE, GFP_KERNEL);
		if (!mi_bulk_bulk[i])
			goto free_objs;
	}
	for (i = 0; i < objs / 4; i++) {
		mi_bulk_rcu[i] = kmalloc(sizeof(*mi_bulk_rcu[i]), GFP_KERNEL);
		if (!mi_bulk_rcu[i])
			goto free_objs;
	}
	return 0;

free_objs:
	/* what was allocated; the NULLs after it are skipped */
	for (i = 0; i < objs / 2; i++)
		if (mi_bulk_cached[i])
			kmem_cache_free(mi_bulk_cache, mi_bulk_cached[i]);
	for (i = 0; i < objs / 4; i++) {
		kfree(mi_bulk_bulk[i]);
		kfree(mi_bulk_rcu[i]);
	}
free_arrays:
	mi_bulk_free_arrays();
	kmem_cache_destroy(mi_bulk_cache);
	return -ENOMEM;
}

static void __exit mi_bulk_exit(void)
{
	if (!mi_bulk_released)
		mi_bulk_free_all();
	/* kfree_rcu()'s objects are kmalloc's, not the cache's: no wait */
	kmem_cache_destroy(mi_bulk_cache);
	mi_bulk_free_arrays();
}

module_init(mi_bulk_init);
module_exit(mi_bulk_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("meminspect selftests: objects freed by kmem_cache_free_bulk(), kfree_bulk() and kfree_rcu()");
