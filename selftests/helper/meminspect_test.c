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
 * A write that cannot be parsed fails with -EINVAL, one above the cap with
 * -ERANGE; neither changes anything.  If an allocation fails the write
 * returns -ENOMEM and keeps the pages it got: the count read back is always
 * the number really held.  Unloading frees everything.
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

/* 1 GiB worth: more than a test VM can spare, so a typo fails cleanly */
#define MI_TEST_MAX_PAGES	(SZ_1G >> PAGE_SHIFT)

/* longest accepted write: 20 digits of an unsigned long and a newline */
#define MI_TEST_MAX_INPUT	21

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
 * Caller holds held.lock.  Order-0 GFP_KERNEL allocations rarely fail: they
 * reclaim and may invoke the OOM killer instead.  Stop as soon as the writer
 * is killed, so that an OOM kill of the writer ends the loop.
 */
static int held_grow(unsigned long target)
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

static ssize_t pages_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	char tmp[24];
	unsigned long nr;
	int len, ret;

	ret = mutex_lock_killable(&held.lock);
	if (ret)
		return ret;
	nr = held.nr_pages;
	mutex_unlock(&held.lock);

	len = scnprintf(tmp, sizeof(tmp), "%lu\n", nr);
	return simple_read_from_buffer(buf, count, ppos, tmp, len);
}

static ssize_t pages_write(struct file *file, const char __user *buf,
			   size_t count, loff_t *ppos)
{
	unsigned long target;
	int ret;

	/* kstrtoul_from_user() would silently cut a longer write short */
	if (count > MI_TEST_MAX_INPUT)
		return -EINVAL;
	ret = kstrtoul_from_user(buf, count, 10, &target);
	if (ret)
		return ret;
	if (target > MI_TEST_MAX_PAGES)
		return -ERANGE;

	ret = mutex_lock_killable(&held.lock);
	if (ret)
		return ret;
	if (target > held.nr_pages)
		ret = held_grow(target);
	else
		held_shrink(target);
	mutex_unlock(&held.lock);

	if (ret)
		return ret;
	return count;
}

static const struct file_operations pages_fops = {
	.owner = THIS_MODULE,
	.read = pages_read,
	.write = pages_write,
	.llseek = default_llseek,
};

static int __init meminspect_test_init(void)
{
	struct dentry *file;
	int ret;

	held.dir = debugfs_create_dir("meminspect_test", NULL);
	if (IS_ERR(held.dir))
		return PTR_ERR(held.dir);

	file = debugfs_create_file("pages", 0600, held.dir, NULL, &pages_fops);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto err_remove_dir;
	}
	return 0;

err_remove_dir:
	debugfs_remove_recursive(held.dir);
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
	held_shrink(0);
}

module_init(meminspect_test_init);
module_exit(meminspect_test_exit);

MODULE_DESCRIPTION("meminspect selftest helper: hold unaccounted pages");
MODULE_LICENSE("GPL");
