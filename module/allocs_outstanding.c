// SPDX-License-Identifier: GPL-2.0
/*
 * allocs/outstanding: the objects allocs/ follows that are still live and
 * at least a minimum age old, by call site, with a few of their addresses:
 * what bcc's memleak -K shows, without BPF.  The minimum age in seconds
 * is written to the open file (0 until then: every live object), then the
 * file is read; each open file has its own.
 *
 * The walk reads the object table without a lock, as the probes fill it
 * (cmpxchg, never waiting): a slot freed or refilled during the walk is
 * counted as it was or left out, and no object is ever dereferenced.  It
 * holds allocs' mutex (the tables' lifetime), visits hash_cap slots at
 * most and reschedules every 4096.
 */
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "allocs_priv.h"
#include "lockdown.h"
#include "mirror.h"

#define MI_OUT_ADDRS	4		/* addresses shown per site */
#define MI_OUT_AGE_MAX	86400		/* a day, in seconds */

struct mi_out_site {
	u64 objs, bytes;
	u32 oldest;			/* jiffies */
	unsigned long addr[MI_OUT_ADDRS];
};

struct mi_out_open {
	unsigned int min_age_s;
};

/* Every followed object at least @min_age jiffies old, into @acc by site. */
static unsigned long mi_out_walk(struct mi_out_site *acc, u32 min_age)
{
	u32 now = (u32)jiffies;
	unsigned long live = 0;
	unsigned int i;

	for (i = 0; i < mi_allocs.hash_cap; i++) {
		const struct mi_allocs_obj *o = &mi_allocs.objs[i];
		/* pairs with the release in mi_allocs_record(): fields after */
		unsigned long p = smp_load_acquire(&o->ptr);
		struct mi_out_site *a;
		s32 age;
		u32 site;

		if (!(i & 4095))
			cond_resched();
		if (p <= MI_ALLOCS_BUSY)
			continue;
		live++;
		site = READ_ONCE(o->site);
		/* born after @now was read: age 0 */
		age = max_t(s32, 0, (s32)(now - READ_ONCE(o->born)));
		if (site >= MI_ALLOCS_SITES || (u32)age < min_age)
			continue;
		a = &acc[site];
		if (a->objs < MI_OUT_ADDRS)
			a->addr[a->objs] = p;
		a->objs++;
		a->bytes += READ_ONCE(o->bytes_req);
		a->oldest = max_t(u32, a->oldest, age);
	}
	return live;
}

static int mi_out_show(struct seq_file *m, void *v)
{
	const struct mi_out_open *op = m->private;
	unsigned int min_age_s = READ_ONCE(op->min_age_s);
	struct mi_out_site *acc;
	unsigned long live = 0, site;
	bool hide = mi_lockdown_hides_addresses();
	unsigned int i, j;

	acc = vzalloc(array_size(MI_ALLOCS_SITES, sizeof(*acc)));
	if (!acc)
		return -ENOMEM;
	if (mutex_lock_killable(&mi_allocs.lock)) {
		vfree(acc);
		return -EINTR;
	}
	seq_puts(m, "objs bytes oldest_s addrs site\n");
	if (mi_allocs.objs && mi_allocs.sites)
		live = mi_out_walk(acc, min_age_s * HZ);
	for (i = 0; mi_allocs.sites && i < MI_ALLOCS_SITES; i++) {
		const struct mi_out_site *a = &acc[i];

		if (!a->objs)
			continue;
		seq_printf(m, "%llu %llu %u ", a->objs, a->bytes,
			   a->oldest / HZ);
		/*
		 * raw addresses, as kmemleak's debugfs file: root only; none
		 * under lockdown=confidentiality
		 */
		if (hide)
			seq_putc(m, '-');
		for (j = 0; !hide && j < min_t(u64, a->objs, MI_OUT_ADDRS); j++)
			seq_printf(m, "%s0x%lx", j ? "," : "", a->addr[j]);
		seq_putc(m, ' ');
		/* pairs with the release in mi_allocs_site_get() */
		site = smp_load_acquire(&mi_allocs.sites[i].call_site);
		mi_allocs_put_site(m, &mi_allocs.sites[i], site, hide);
		seq_putc(m, '\n');
	}
	seq_printf(m, "# outstanding: armed %d mode %s min_age_s %u followed %lu\n",
		   mi_allocs.armed,
		   mi_allocs.sample_bytes ? "sampled" : "exact", min_age_s,
		   live);
	mutex_unlock(&mi_allocs.lock);
	vfree(acc);
	return 0;
}

static int mi_out_open(struct inode *inode, struct file *file)
{
	struct mi_out_open *op = kzalloc(sizeof(*op), GFP_KERNEL);
	int err;

	if (!op)
		return -ENOMEM;
	err = single_open(file, mi_out_show, op);
	if (err)
		kfree(op);
	return err;
}

static int mi_out_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	kfree(m->private);
	return single_release(inode, file);
}

/* The minimum age in seconds, 0 .. MI_OUT_AGE_MAX, for this open file. */
static ssize_t mi_out_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct mi_out_open *op = m->private;
	unsigned int u;
	char buf[24];
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	err = mi_fault_parse_uint(buf, len, 0, MI_OUT_AGE_MAX, &u);
	if (err)
		return err;
	WRITE_ONCE(op->min_age_s, u);
	return len;
}

static const struct file_operations mi_out_fops = {
	.owner = THIS_MODULE,
	.open = mi_out_open,
	.read = seq_read,
	.write = mi_out_write,
	.llseek = seq_lseek,
	.release = mi_out_release,
};

int mi_allocs_outstanding_create(struct dentry *dir)
{
	struct dentry *file;

	file = debugfs_create_file("outstanding", 0600, dir, NULL,
				   &mi_out_fops);
	if (IS_ERR(file))
		return PTR_ERR(file);
	mi_mirror_add("allocs/outstanding", &mi_out_fops, NULL, NULL, 0);
	return 0;
}
