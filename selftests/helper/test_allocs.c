// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect_test's `allocs` file (test_allocs.sh): N kmalloc(S) objects
 * from one call site, allocs_fill(), so that meminspect's allocs/ table has
 * a site whose live count, bytes, allocations and frees are known exactly.
 *
 *   write "N S"  free what is held, then hold N objects of S bytes
 *                (N <= 200000, 1 <= S <= 32768: above 8192 a large kmalloc);
 *                "0" frees everything
 *   read         "N S" held now
 *
 * Unparsable input: -EINVAL; above the caps: -ERANGE; neither changes
 * anything.  A failed allocation frees what the write got and returns
 * -ENOMEM.
 */

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "test.h"

/* ---- allocs: N kmalloc(S) objects from one call site (test_allocs.sh) --- */

#define MI_ALLOCS_MAX_N		200000UL
/* above KMALLOC_MAX_CACHE_SIZE: large kmalloc()s, pages (allocs pages test) */
#define MI_ALLOCS_MAX_SIZE	32768UL

static struct {
	struct mutex lock;	/* serialises the allocs file */
	void **objs;
	unsigned long n, size;
} al = {
	.lock = __MUTEX_INITIALIZER(al.lock),
};

void mi_test_allocs_free(void)
{
	unsigned long i;

	for (i = 0; i < al.n; i++)
		kfree(al.objs[i]);
	kvfree(al.objs);
	al.objs = NULL;
	al.n = 0;
	al.size = 0;
}

/* The one call site of the objects: noinline so it keeps its own symbol. */
static noinline int allocs_fill(void **objs, unsigned long n,
				unsigned long size)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		objs[i] = kmalloc(size, GFP_KERNEL);
		if (!objs[i])
			return -ENOMEM;
	}
	return 0;
}

static ssize_t allocs_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	char tmp[48];
	int len;

	mutex_lock(&al.lock);
	len = scnprintf(tmp, sizeof(tmp), "%lu %lu\n", al.n, al.size);
	mutex_unlock(&al.lock);
	return simple_read_from_buffer(ubuf, count, ppos, tmp, len);
}

/* "N S": free what is held, then hold N objects of S bytes; "0": free. */
static ssize_t allocs_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	unsigned long n, size = 0;
	char buf[48];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	ret = sscanf(buf, "%lu %lu", &n, &size);
	if (ret < 1 || (n && ret != 2))
		return -EINVAL;
	if (n > MI_ALLOCS_MAX_N || (n && (!size || size > MI_ALLOCS_MAX_SIZE)))
		return -ERANGE;
	mutex_lock(&al.lock);
	mi_test_allocs_free();
	ret = 0;
	if (n) {
		al.objs = kvcalloc(n, sizeof(*al.objs), GFP_KERNEL);
		ret = -ENOMEM;
		if (al.objs) {
			/* objs is zeroed: a partial fill frees what it got */
			al.n = n;
			al.size = size;
			ret = allocs_fill(al.objs, n, size);
			if (ret)
				mi_test_allocs_free();
		}
	}
	mutex_unlock(&al.lock);
	return ret ?: count;
}

const struct file_operations mi_test_allocs_fops = {
	.owner = THIS_MODULE,
	.read = allocs_read,
	.write = allocs_write,
	.llseek = default_llseek,
};
