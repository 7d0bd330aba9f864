// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/meminspect/: the debugfs files a reader writes to, mirrored as
 * character devices (docs/lockdown.md).
 *
 * Under kernel lockdown debugfs opens no file with a write bit
 * (debugfs_locked_down() in fs/debugfs/file.c): mm and vmas, where the pid
 * is written to the open file, and every knob would be gone on a Secure
 * Boot machine.  Each such file that only chooses what is observed (a
 * process; what allocs/ and latency/ count and when) is also a misc device,
 * /dev/meminspect/<its path under the debugfs directory>, root only, with
 * the same file operations: a write and a read on one open file, as in
 * debugfs.  Lockdown's integrity level keeps root from changing the running
 * kernel; choosing what to read changes nothing in it, so these stay open
 * at integrity.  A knob that arms tracepoints (MI_MIRROR_TRACES) is refused
 * for writing at confidentiality, where the kernel refuses tracing
 * (LOCKDOWN_TRACEFS).  The injector's knobs, which make the kernel's
 * allocations fail, are not mirrored: under lockdown they are refused, as
 * the kernel's own fail_* knobs are.
 *
 * A misc device's file operations hold the module (.owner), and so do the
 * debugfs file's that an open mirror takes on: it cannot be unloaded while
 * a mirror is open, and the mirrors go first at exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "mirror.h"

#define MI_MIRROR_NAME_LEN	48

struct mi_mirror {
	struct list_head node;
	struct miscdevice misc;
	const struct file_operations *orig;	/* the debugfs file's */
	int (*open_data)(struct file *file, void *data);
	void *data;
	unsigned int flags;
	char name[MI_MIRROR_NAME_LEN];		/* "meminspect-allocs-armed" */
	char nodename[MI_MIRROR_NAME_LEN];	/* "meminspect/allocs/armed" */
};

static LIST_HEAD(mi_mirrors);
static DEFINE_MUTEX(mi_mirrors_lock);

static int mi_mirror_open(struct inode *inode, struct file *file)
{
	/* misc_open() points private_data at the device */
	struct mi_mirror *mr = container_of(file->private_data,
					    struct mi_mirror, misc);

	if ((mr->flags & MI_MIRROR_TRACES) && (file->f_mode & FMODE_WRITE)) {
		int err = security_locked_down(LOCKDOWN_TRACEFS);

		if (err)
			return err;
	}
	/*
	 * From here the file is the debugfs file's, as misc_open() hands a
	 * file to a driver's fops: the module reference moves with its owner
	 * (THIS_MODULE), and its open starts from no private data, as
	 * seq_open() expects.
	 */
	replace_fops(file, fops_get(mr->orig));
	file->private_data = NULL;
	if (mr->open_data)
		return mr->open_data(file, mr->data);
	return mr->orig->open ? mr->orig->open(inode, file) : 0;
}

static const struct file_operations mi_mirror_fops = {
	.owner = THIS_MODULE,
	.open = mi_mirror_open,
	.llseek = noop_llseek,
};

/**
 * mi_mirror_add - mirror a debugfs file as /dev/meminspect/@path
 * @path: its path under the module's debugfs directory ("allocs/armed")
 * @fops: its file operations, owned by this module
 * @open_data: its open, given the data debugfs passes in i_private; NULL
 *	when @fops->open reads no i_private
 * @data: that data
 * @flags: MI_MIRROR_TRACES for a knob that arms tracing
 *
 * Return: 0, or the error of misc_register() or of the allocation.  A
 * mirror that cannot be made leaves the debugfs file as it is.
 */
int mi_mirror_add(const char *path, const struct file_operations *fops,
		  int (*open_data)(struct file *file, void *data), void *data,
		  unsigned int flags)
{
	struct mi_mirror *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return -ENOMEM;
	mr->orig = fops;
	mr->open_data = open_data;
	mr->data = data;
	mr->flags = flags;
	snprintf(mr->name, sizeof(mr->name), "meminspect-%s", path);
	strreplace(mr->name, '/', '-');
	snprintf(mr->nodename, sizeof(mr->nodename), "meminspect/%s", path);
	mr->misc.minor = MISC_DYNAMIC_MINOR;
	mr->misc.name = mr->name;
	mr->misc.nodename = mr->nodename;
	mr->misc.mode = 0600;
	mr->misc.fops = &mi_mirror_fops;
	err = misc_register(&mr->misc);
	if (err) {
		pr_warn("cannot make /dev/%s: %d\n", mr->nodename, err);
		kfree(mr);
		return err;
	}
	mutex_lock(&mi_mirrors_lock);
	list_add_tail(&mr->node, &mi_mirrors);
	mutex_unlock(&mi_mirrors_lock);
	return 0;
}

/* Before the files' owners go: no new open after this. */
void mi_mirrors_remove(void)
{
	struct mi_mirror *mr, *tmp;

	mutex_lock(&mi_mirrors_lock);
	list_for_each_entry_safe(mr, tmp, &mi_mirrors, node) {
		list_del(&mr->node);
		misc_deregister(&mr->misc);
		kfree(mr);
	}
	mutex_unlock(&mi_mirrors_lock);
}
