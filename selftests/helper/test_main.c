// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect_test: hold a chosen number of pages that no kernel counter
 * attributes to anyone, so that the selftests can watch meminspect's
 * "unaccounted" figure move.
 *
 * <debugfs>/meminspect_test/pages (0600):
 *   write N  hold exactly N order-0 pages (allocate more, or free down to N)
 *   read     the number of pages held
 *
 * <debugfs>/meminspect_test/pages_o4 (0600): the same for order-4 blocks
 *   (GFP_KERNEL | __GFP_NORETRY: a costly order, so the allocator tries
 *   direct compaction first, and gives up rather than loop); for the
 *   direct compaction test of latency/ (test_latency.sh)
 *
 * A write that cannot be parsed fails with -EINVAL, one above the cap with
 * -ERANGE; neither changes anything.  If an allocation fails the write
 * returns -ENOMEM and keeps the pages it got: the count read back is always
 * the number really held.  Unloading frees everything.
 *
 * Slab files, all 0600, for the `slabs` tests:
 *   slab_size    object size S of the cache "meminspect_test_obj" (8 to
 *                PAGE_SIZE * 2); writing recreates the cache, -EBUSY while
 *                it holds objects
 *   slab_objs    write N: hold exactly N objects of that cache, then
 *                kmem_cache_shrink() it, so that no free object stays in a
 *                per-CPU slab or sheaf and /proc/slabinfo's count is exact
 *   slab_caches  write N: keep N extra empty caches "meminspect_test_cK",
 *                unmergeable (they have a constructor), object sizes
 *                cycling from 16 to 1024 bytes
 *   slab_alias   write 1: create the mergeable cache
 *                "meminspect_test_alias" (96 bytes, no flags), which
 *                SLUB merges into an existing cache; write 0: destroy it
 * Unparsable input: -EINVAL; above the cap: -ERANGE; neither changes
 * anything.
 *
 * Fault injection files (meminspect's fault/ tests and bench/fault):
 *   fault_alloc  write "KIND ARG N": N allocations, each freed at once:
 *                cache   from the cache "meminspect_test_fault" (192 bytes,
 *                        unmergeable: it has a constructor); ARG ignored
 *                kmalloc kmalloc(ARG bytes), ARG 0..KMALLOC_MAX_CACHE_SIZE
 *                        (0: ZERO_SIZE_PTR, which the kernel never fails)
 *                pages   alloc_pages(order ARG), ARG 0..MAX_ORDER
 *                nofail  kmalloc(ARG bytes, __GFP_NOFAIL), ARG 1..PAGE_SIZE
 *                kstrdup kstrdup() of an ARG-byte string, ARG 1..256 (the allocation
 *                        is made by kstrdup, one frame below this module)
 *                read "KIND ARG N ok failed first_failed ns": the last
 *                write's successes, failures, the 1-based index of the
 *                first failure (0: none) and the mean ns per allocation and
 *                free
 *   fault_setup  write 1: run a probe-like routine making MI_SETUP_STEPS
 *                allocations (cache, kmalloc, pages), then tear them down;
 *                on a failure it unwinds what it made and the write
 *                returns -ENOMEM.  read "runs ok failed live last_failed
 *                steps": live objects (0 whenever no routine runs), the
 *                step that failed last (0: none).  The module parameter
 *                setup_at_init=1 runs the routine once at module init,
 *                which then fails with -ENOMEM if it does.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>

#include "test.h"

/* 1 GiB worth: more than a test VM can spare, so a typo fails cleanly */
#define MI_TEST_MAX_PAGES	(SZ_1G >> PAGE_SHIFT)

/* longest accepted write: 20 digits of an unsigned long and a newline */
#define MI_TEST_MAX_INPUT	21

/*
 * Parse an unsigned decimal write of at most MI_TEST_MAX_INPUT bytes
 * (kstrtoul_from_user() alone would silently cut a longer one short).
 */
static int mi_test_parse(const char __user *buf, size_t count,
			 unsigned long max, unsigned long *val)
{
	int ret;

	if (count > MI_TEST_MAX_INPUT)
		return -EINVAL;
	ret = kstrtoul_from_user(buf, count, 10, val);
	if (ret)
		return ret;
	return *val > max ? -ERANGE : 0;
}

/*
 * A numeric file: a read shows *@val, a write of a value of at most @max
 * hands it to @set.  Both under @lock, taken killably; a bad value changes
 * nothing.  It is the debugfs file's data: simple_open() makes it the
 * open file's private_data.
 */
struct mi_test_num {
	struct mutex *lock;	/* the lock of the state @val and @set touch */
	const unsigned long *val;
	unsigned long max;
	int (*set)(unsigned long val);	/* called with @lock held */
};

static ssize_t mi_test_num_read(struct file *file, char __user *buf,
				size_t count, loff_t *ppos)
{
	const struct mi_test_num *num = file->private_data;
	char tmp[24];
	unsigned long nr;
	int len, ret;

	ret = mutex_lock_killable(num->lock);
	if (ret)
		return ret;
	nr = *num->val;
	mutex_unlock(num->lock);

	len = scnprintf(tmp, sizeof(tmp), "%lu\n", nr);
	return simple_read_from_buffer(buf, count, ppos, tmp, len);
}

static ssize_t mi_test_num_write(struct file *file, const char __user *buf,
				 size_t count, loff_t *ppos)
{
	const struct mi_test_num *num = file->private_data;
	unsigned long val;
	int ret;

	ret = mi_test_parse(buf, count, num->max, &val);
	if (ret)
		return ret;
	ret = mutex_lock_killable(num->lock);
	if (ret)
		return ret;
	ret = num->set(val);
	mutex_unlock(num->lock);
	return ret ? ret : count;
}

static const struct file_operations mi_test_num_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = mi_test_num_read,
	.write = mi_test_num_write,
	.llseek = default_llseek,
};

static struct {
	struct mutex lock;	/* serialises resizing; protects the two below */
	struct list_head pages;	/* held pages, linked through page->lru */
	unsigned long nr_pages;	/* length of @pages */
	struct dentry *dir;
} held = {
	.lock = __MUTEX_INITIALIZER(held.lock),
	.pages = LIST_HEAD_INIT(held.pages),
};

/* Caller holds held.lock (or is the module exit, when no file is left). */
static void held_shrink(unsigned long target)
{
	struct page *page;

	while (held.nr_pages > target) {
		page = list_first_entry(&held.pages, struct page, lru);
		list_del(&page->lru);
		__free_pages(page, 0);
		held.nr_pages--;
		cond_resched();
	}
}

/*
 * Caller holds held.lock; noinline: the pages' call site in meminspect's
 * allocs table is this function.  Order-0 GFP_KERNEL allocations rarely
 * fail: they reclaim and may invoke the OOM killer instead.  Stop as soon as
 * the writer is killed, so that an OOM kill of the writer ends the loop.
 */
static noinline int held_grow(unsigned long target)
{
	struct page *page;

	while (held.nr_pages < target) {
		if (fatal_signal_pending(current))
			return -EINTR;
		page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0);
		if (!page)
			return -ENOMEM;
		list_add(&page->lru, &held.pages);
		held.nr_pages++;
		cond_resched();
	}
	return 0;
}

/*
 * Caller holds held.lock.  held_grow() is not a tail call (the barrier
 * after it): allocs' page_stack test expects this frame between held_grow()
 * and mi_test_num_write().
 */
static int pages_set(unsigned long target)
{
	int ret = 0;

	if (target > held.nr_pages) {
		ret = held_grow(target);
		barrier();
	} else {
		held_shrink(target);
	}
	return ret;
}

/* Order-4 blocks, linked through the head page's lru. */
#define MI_TEST_O4		4
#define MI_TEST_MAX_O4		(MI_TEST_MAX_PAGES >> MI_TEST_O4)

static struct {
	struct mutex lock;	/* protects the two below */
	struct list_head blocks;
	unsigned long nr;
} o4 = {
	.lock = __MUTEX_INITIALIZER(o4.lock),
	.blocks = LIST_HEAD_INIT(o4.blocks),
};

/* Caller holds o4.lock (or is the module exit). */
static int pages_o4_set(unsigned long target)
{
	struct page *page;

	while (o4.nr > target) {
		page = list_first_entry(&o4.blocks, struct page, lru);
		list_del(&page->lru);
		__free_pages(page, MI_TEST_O4);
		o4.nr--;
		cond_resched();
	}
	while (o4.nr < target) {
		if (fatal_signal_pending(current))
			return -EINTR;
		page = alloc_pages(GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN,
				   MI_TEST_O4);
		if (!page)
			return -ENOMEM;
		list_add(&page->lru, &o4.blocks);
		o4.nr++;
		cond_resched();
	}
	return 0;
}

/* ---- slab caches ---- */

#define MI_TEST_MIN_OBJ		8
#define MI_TEST_MAX_OBJ		(PAGE_SIZE * 2)
#define MI_TEST_MAX_OBJS	BIT(20)
#define MI_TEST_MAX_CACHES	4000
#define MI_TEST_ALIAS_SIZE	96

static struct {
	struct mutex lock;	/* protects everything below */
	struct kmem_cache *cache;	/* meminspect_test_obj */
	unsigned long size;	/* its object size */
	void *objs;		/* held objects, linked through their 1st word */
	unsigned long nr_objs;
	struct kmem_cache **caches;	/* meminspect_test_cK */
	unsigned long nr_caches;
	struct kmem_cache *alias;
	unsigned long alias_on;	/* !!alias, what slab_alias reads */
} sl = {
	.lock = __MUTEX_INITIALIZER(sl.lock),
	.size = 200,
};

/* A constructor makes a cache unmergeable (slab_unmergeable()). */
static void mi_test_ctor(void *obj)
{
}

/* Caller holds sl.lock. */
static int objs_create_cache(void)
{
	if (sl.cache)
		return 0;
	sl.cache = kmem_cache_create("meminspect_test_obj", sl.size, 0, 0,
				     mi_test_ctor);
	return sl.cache ? 0 : -ENOMEM;
}

/* Caller holds sl.lock (or is the module exit). */
static void objs_resize_down(unsigned long target)
{
	while (sl.nr_objs > target) {
		void *obj = sl.objs;

		sl.objs = *(void **)obj;
		kmem_cache_free(sl.cache, obj);
		sl.nr_objs--;
		cond_resched();
	}
}

/* Caller holds sl.lock. */
static int objs_resize_up(unsigned long target)
{
	while (sl.nr_objs < target) {
		void *obj;

		if (fatal_signal_pending(current))
			return -EINTR;
		obj = kmem_cache_alloc(sl.cache, GFP_KERNEL | __GFP_NOWARN);
		if (!obj)
			return -ENOMEM;
		*(void **)obj = sl.objs;
		sl.objs = obj;
		sl.nr_objs++;
		cond_resched();
	}
	return 0;
}

/* Caller holds sl.lock. */
static int slab_objs_set(unsigned long target)
{
	int ret;

	ret = objs_create_cache();
	if (ret)
		return ret;
	if (target > sl.nr_objs)
		ret = objs_resize_up(target);
	else
		objs_resize_down(target);
	/* free objects in per-CPU slabs or sheaves go back to the nodes */
	kmem_cache_shrink(sl.cache);
	return ret;
}

/* Caller holds sl.lock.  Only while no object is held. */
static int slab_size_set(unsigned long size)
{
	if (size < MI_TEST_MIN_OBJ)
		return -ERANGE;
	if (sl.nr_objs)
		return -EBUSY;
	kmem_cache_destroy(sl.cache);
	sl.cache = NULL;
	sl.size = size;
	return objs_create_cache();
}

/* Caller holds sl.lock (or is the module exit). */
static void caches_resize_down(unsigned long target)
{
	while (sl.nr_caches > target) {
		kmem_cache_destroy(sl.caches[--sl.nr_caches]);
		cond_resched();
	}
}

/* Caller holds sl.lock. */
static int caches_resize_up(unsigned long target)
{
	char name[40];	/* "meminspect_test_c" and 20 digits */

	while (sl.nr_caches < target) {
		struct kmem_cache *c;

		if (fatal_signal_pending(current))
			return -EINTR;
		snprintf(name, sizeof(name), "meminspect_test_c%lu",
			 sl.nr_caches);
		c = kmem_cache_create(name, 16 << (sl.nr_caches % 7), 0, 0,
				      mi_test_ctor);
		if (!c)
			return -ENOMEM;
		sl.caches[sl.nr_caches++] = c;
	}
	return 0;
}

/* Caller holds sl.lock. */
static int slab_caches_set(unsigned long target)
{
	if (target > sl.nr_caches)
		return caches_resize_up(target);
	caches_resize_down(target);
	return 0;
}

/* Caller holds sl.lock. */
static int slab_alias_set(unsigned long on)
{
	if (on && !sl.alias) {
		sl.alias = kmem_cache_create("meminspect_test_alias",
					     MI_TEST_ALIAS_SIZE, 0, 0, NULL);
		if (!sl.alias)
			return -ENOMEM;
	} else if (!on) {
		kmem_cache_destroy(sl.alias);
		sl.alias = NULL;
	}
	sl.alias_on = !!sl.alias;
	return 0;
}

/* ---- fault injection ----------------------------------------------------- */

#define MI_FAULT_OBJ_SIZE	192
#define MI_FAULT_MAX_N		10000000UL
#define MI_SETUP_STEPS		5
#define MI_KSTRDUP_MAX		256

static bool setup_at_init;
module_param(setup_at_init, bool, 0400);
MODULE_PARM_DESC(setup_at_init, "run the fault_setup routine at init");

static struct {
	struct mutex lock;	/* serialises the fault files */
	struct kmem_cache *cache;	/* meminspect_test_fault */
	char last[128];		/* fault_alloc's last result */
	unsigned long runs, ok, failed, last_failed;
	atomic_long_t live;	/* objects the setup routine holds */
} fa = {
	.lock = __MUTEX_INITIALIZER(fa.lock),
};

/* Allocate one object of @kind, or NULL; *@order for pages. */
static void *fault_one(int kind, unsigned long arg, const char *str)
{
	struct page *page;

	switch (kind) {
	case 0:
		return kmem_cache_alloc(fa.cache, GFP_KERNEL | __GFP_NOWARN);
	case 1:
		return kmalloc(arg, GFP_KERNEL | __GFP_NOWARN);
	case 2:
		page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, arg);
		return page;
	case 3:
		return kmalloc(arg, GFP_KERNEL | __GFP_NOFAIL);
	case 4:
		return kstrdup(str, GFP_KERNEL | __GFP_NOWARN);
	}
	return NULL;
}

static void fault_free(int kind, unsigned long arg, void *p)
{
	if (kind == 0)
		kmem_cache_free(fa.cache, p);
	else if (kind == 2)
		__free_pages(p, arg);
	else
		kfree(p);
}

static const char *const fault_kinds[] = {
	"cache", "kmalloc", "pages", "nofail", "kstrdup",
};

static ssize_t fault_alloc_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	unsigned long arg, n, i, ok = 0, failed = 0, first = 0;
	static char str[MI_KSTRDUP_MAX + 1];
	char buf[64], name[16];
	int kind, ret;
	u64 t0, ns;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%15s %lu %lu", name, &arg, &n) != 3)
		return -EINVAL;
	for (kind = 0; kind < ARRAY_SIZE(fault_kinds); kind++)
		if (!strcmp(name, fault_kinds[kind]))
			break;
	if (kind == ARRAY_SIZE(fault_kinds))
		return -EINVAL;
	if (n > MI_FAULT_MAX_N ||
	    (kind == 1 && arg > KMALLOC_MAX_CACHE_SIZE) ||
	    (kind == 2 && arg >= ARRAY_SIZE(((struct zone *)NULL)->free_area)) ||
	    (kind == 3 && (!arg || arg > PAGE_SIZE)) ||
	    (kind == 4 && (!arg || arg > MI_KSTRDUP_MAX)))
		return -ERANGE;
	ret = mutex_lock_killable(&fa.lock);
	if (ret)
		return ret;
	/* the source string: static, so that only kstrdup() allocates */
	if (kind == 4) {
		memset(str, 'x', arg);
		str[arg] = '\0';
	}
	t0 = ktime_get_ns();
	for (i = 1; i <= n; i++) {
		void *p = fault_one(kind, arg, str);

		if (p) {
			ok++;
			fault_free(kind, arg, p);
		} else {
			failed++;
			if (!first)
				first = i;
		}
		if (!(i % 1024)) {
			if (fatal_signal_pending(current))
				break;
			cond_resched();
		}
	}
	ns = n ? div64_u64(ktime_get_ns() - t0, n) : 0;
	scnprintf(fa.last, sizeof(fa.last), "%s %lu %lu %lu %lu %lu %llu\n",
		  name, arg, n, ok, failed, first, ns);
	mutex_unlock(&fa.lock);
	return count;
}

static ssize_t fault_alloc_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char tmp[sizeof(fa.last)];
	int ret;

	ret = mutex_lock_killable(&fa.lock);
	if (ret)
		return ret;
	strscpy(tmp, fa.last[0] ? fa.last : "- 0 0 0 0 0 0\n", sizeof(tmp));
	mutex_unlock(&fa.lock);
	return simple_read_from_buffer(ubuf, count, ppos, tmp, strlen(tmp));
}

/*
 * A driver probe in miniature: five allocations of three kinds, each one
 * undone in reverse order if a later one fails, then (the "remove") all
 * freed.  fa.live counts what is held: back to 0 on every path.
 */
struct setup_state {
	void *obj1, *buf1, *buf2, *obj2;
	struct page *pages;
};

static int setup_run(unsigned long *failed_step)
{
	struct setup_state st = { };
	int step = 1;

	st.obj1 = kmem_cache_alloc(fa.cache, GFP_KERNEL | __GFP_NOWARN);
	if (!st.obj1)
		goto fail;
	atomic_long_inc(&fa.live);
	step++;
	st.buf1 = kmalloc(512, GFP_KERNEL | __GFP_NOWARN);
	if (!st.buf1)
		goto free_obj1;
	atomic_long_inc(&fa.live);
	step++;
	st.pages = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 1);
	if (!st.pages)
		goto free_buf1;
	atomic_long_inc(&fa.live);
	step++;
	st.buf2 = kzalloc(2048, GFP_KERNEL | __GFP_NOWARN);
	if (!st.buf2)
		goto free_pages;
	atomic_long_inc(&fa.live);
	step++;
	st.obj2 = kmem_cache_alloc(fa.cache, GFP_KERNEL | __GFP_NOWARN);
	if (!st.obj2)
		goto free_buf2;
	atomic_long_inc(&fa.live);

	/* the "remove": undo everything */
	kmem_cache_free(fa.cache, st.obj2);
	atomic_long_dec(&fa.live);
	*failed_step = 0;
	step = 0;
free_buf2:
	kfree(st.buf2);
	atomic_long_dec(&fa.live);
free_pages:
	__free_pages(st.pages, 1);
	atomic_long_dec(&fa.live);
free_buf1:
	kfree(st.buf1);
	atomic_long_dec(&fa.live);
free_obj1:
	kmem_cache_free(fa.cache, st.obj1);
	atomic_long_dec(&fa.live);
fail:
	if (!step)
		return 0;
	*failed_step = step;
	return -ENOMEM;
}

/* Caller holds fa.lock. */
static int setup_once(void)
{
	int ret;

	ret = setup_run(&fa.last_failed);
	fa.runs++;
	if (ret)
		fa.failed++;
	else
		fa.ok++;
	return ret;
}

/* Caller holds fa.lock.  1 runs the set-up once; nothing else is valid. */
static int fault_setup_set(unsigned long v)
{
	return v == 1 ? setup_once() : -EINVAL;
}

static ssize_t fault_setup_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char tmp[128];
	int len, ret;

	ret = mutex_lock_killable(&fa.lock);
	if (ret)
		return ret;
	len = scnprintf(tmp, sizeof(tmp), "%lu %lu %lu %ld %lu %d\n", fa.runs,
			fa.ok, fa.failed, atomic_long_read(&fa.live),
			fa.last_failed, MI_SETUP_STEPS);
	mutex_unlock(&fa.lock);
	return simple_read_from_buffer(ubuf, count, ppos, tmp, len);
}

static int fault_init(void)
{
	int ret;

	fa.cache = kmem_cache_create("meminspect_test_fault",
				     MI_FAULT_OBJ_SIZE, 0, 0, mi_test_ctor);
	if (!fa.cache)
		return -ENOMEM;
	if (!setup_at_init)
		return 0;
	mutex_lock(&fa.lock);
	ret = setup_once();
	mutex_unlock(&fa.lock);
	if (ret) {
		pr_info("setup at init failed at step %lu, live %ld\n",
			fa.last_failed, atomic_long_read(&fa.live));
		kmem_cache_destroy(fa.cache);
		return ret;
	}
	pr_info("setup at init succeeded, live %ld\n",
		atomic_long_read(&fa.live));
	return 0;
}

static void slab_release_all(void)
{
	objs_resize_down(0);
	kmem_cache_destroy(sl.cache);
	sl.cache = NULL;
	caches_resize_down(0);
	kvfree(sl.caches);
	kmem_cache_destroy(sl.alias);
	sl.alias = NULL;
	kmem_cache_destroy(fa.cache);
	fa.cache = NULL;
}

static const struct file_operations fault_alloc_fops = {
	.owner = THIS_MODULE,
	.read = fault_alloc_read,
	.write = fault_alloc_write,
	.llseek = default_llseek,
};

/* fault_setup: written as a numeric file, read as its own report */
static const struct file_operations fault_setup_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = fault_setup_read,
	.write = mi_test_num_write,
	.llseek = default_llseek,
};

#define MI_TEST_NUM(l, v, m, s) \
	{ .lock = (l), .val = (v), .max = (m), .set = (s) }

/* The files: a numeric one is its struct mi_test_num. */
static const struct {
	const char *name;
	const struct file_operations *fops;
	struct mi_test_num num;	/* the file's private data, if .set */
} mi_test_files[] = {
	{ "pages", &mi_test_num_fops,
	  MI_TEST_NUM(&held.lock, &held.nr_pages, MI_TEST_MAX_PAGES, pages_set) },
	{ "pages_o4", &mi_test_num_fops,
	  MI_TEST_NUM(&o4.lock, &o4.nr, MI_TEST_MAX_O4, pages_o4_set) },
	{ "slab_objs", &mi_test_num_fops,
	  MI_TEST_NUM(&sl.lock, &sl.nr_objs, MI_TEST_MAX_OBJS, slab_objs_set) },
	{ "slab_size", &mi_test_num_fops,
	  MI_TEST_NUM(&sl.lock, &sl.size, MI_TEST_MAX_OBJ, slab_size_set) },
	{ "slab_caches", &mi_test_num_fops,
	  MI_TEST_NUM(&sl.lock, &sl.nr_caches, MI_TEST_MAX_CACHES,
		      slab_caches_set) },
	{ "slab_alias", &mi_test_num_fops,
	  MI_TEST_NUM(&sl.lock, &sl.alias_on, 1, slab_alias_set) },
	{ "fault_alloc", &fault_alloc_fops },
	{ "fault_setup", &fault_setup_fops,
	  MI_TEST_NUM(&fa.lock, &fa.runs, 1, fault_setup_set) },
	{ "allocs", &mi_test_allocs_fops },
};

static int __init meminspect_test_init(void)
{
	struct dentry *file;
	unsigned int i;
	int ret;

	sl.caches = kvcalloc(MI_TEST_MAX_CACHES, sizeof(*sl.caches),
			     GFP_KERNEL);
	if (!sl.caches)
		return -ENOMEM;
	ret = fault_init();
	if (ret)
		goto err_free;
	held.dir = debugfs_create_dir("meminspect_test", NULL);
	if (IS_ERR(held.dir)) {
		ret = PTR_ERR(held.dir);
		goto err_free;
	}
	for (i = 0; i < ARRAY_SIZE(mi_test_files); i++) {
		const void *num = mi_test_files[i].num.set ?
				  &mi_test_files[i].num : NULL;

		file = debugfs_create_file(mi_test_files[i].name, 0600,
					   held.dir, (void *)num,
					   mi_test_files[i].fops);
		if (IS_ERR(file)) {
			ret = PTR_ERR(file);
			goto err_remove_dir;
		}
	}
	return 0;

err_remove_dir:
	debugfs_remove_recursive(held.dir);
	kmem_cache_destroy(fa.cache);
err_free:
	kvfree(sl.caches);
	return ret;
}

static void __exit meminspect_test_exit(void)
{
	/*
	 * Removal waits for readers and writers still inside the file
	 * operations, and an open file pins the module, so nobody can touch
	 * the list after this: no lock needed to free it.
	 */
	debugfs_remove_recursive(held.dir);
	mi_test_allocs_free();
	held_shrink(0);
	pages_o4_set(0);
	slab_release_all();
}

module_init(meminspect_test_init);
module_exit(meminspect_test_exit);

MODULE_DESCRIPTION("meminspect selftest helper: hold unaccounted pages, slab objects and caches");
MODULE_LICENSE("GPL");
