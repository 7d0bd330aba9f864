// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection (docs/fault.md): the knob files of fault/, one per line
 * of mi_fault_knobs[] (fault_parse.c), and `settings` and `excluded`,
 * which show them.
 *
 * All settings live in mi_fault_state.cur and change only under
 * mi_fault_state.lock (taken killably by writers), and only while
 * disarmed.  A write is parsed into a copy, the names it gives are
 * resolved against the running kernel (pid, cgroup, cache, functions),
 * and only then is the copy committed: a refused write changes nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>

#include "fault.h"
#include "slab.h"

struct mi_fault_state mi_fault_state = {
	.lock = __MUTEX_INITIALIZER(mi_fault_state.lock),
};

/* the knob whose value is field @f of struct mi_fault_settings */
#define MI_KNOB_OF(f)	offsetof(struct mi_fault_settings, f)

/*
 * Resolve the name that knob @k gives in @s, then commit @s; on error
 * nothing changes.  Caller holds mi_fault_state.lock.
 */
static int mi_fault_commit(const struct mi_fault_knob *k,
			   const struct mi_fault_settings *s)
{
	struct pid *pid = NULL;
	struct cgroup *cgrp = NULL;
	const void *cache;
	int err;

	switch (k->offset) {
	case MI_KNOB_OF(aim_pid):
		if (s->aim_pid) {
			pid = mi_aim_pid_get(s->aim_pid);
			if (!pid)
				return -EINVAL;
		}
		put_pid(mi_fault_state.pid);
		mi_fault_state.pid = pid;
		break;
	case MI_KNOB_OF(aim_cgroup):
		if (s->aim_cgroup[0]) {
			cgrp = cgroup_get_from_path(s->aim_cgroup);
			if (IS_ERR_OR_NULL(cgrp))
				return -EINVAL;
		}
		if (mi_fault_state.cgrp)
			cgroup_put(mi_fault_state.cgrp);
		mi_fault_state.cgrp = cgrp;
		break;
	case MI_KNOB_OF(aim_cache):
		if (s->aim_cache[0]) {
			err = mi_slab_find_cache(s->aim_cache, &cache);
			if (err)
				return err;
		}
		break;
	case MI_KNOB_OF(exclude_caller):
		err = mi_fault_exclude_check(s->exclude_caller);
		if (err)
			return err;
		break;
	case MI_KNOB_OF(linger):
		/* any write ends a linger: the probes go now (a sweep's end) */
		mi_fault_linger_end();
		break;
	default:
		break;
	}
	mi_fault_state.cur = *s;
	return 0;
}

static int mi_fault_knob_open(struct inode *inode, struct file *file)
{
	file->private_data = inode->i_private;
	return nonseekable_open(inode, file);
}

static ssize_t mi_fault_knob_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	const struct mi_fault_knob *k = file->private_data;
	char buf[MI_FAULT_INPUT_MAX + 2];
	int len, err;

	err = mutex_lock_killable(&mi_fault_state.lock);
	if (err)
		return err;
	len = mi_fault_format_knob(k, &mi_fault_state.cur, buf,
				   sizeof(buf) - 1);
	mutex_unlock(&mi_fault_state.lock);
	buf[len++] = '\n';
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/*
 * A write to `armed` (@k).  Nothing on this path allocates (the value is
 * parsed on the stack), so that a file opened before arming can always
 * disarm, even while every allocation of the writer fails; and any file
 * position is taken, so that one open file arms and disarms again and
 * again.
 */
static ssize_t mi_fault_armed_write(const struct mi_fault_knob *k,
				    const char *buf, size_t count)
{
	unsigned int v;
	int err;

	err = mi_fault_parse_uint(buf, count, k->min, k->max, &v);
	if (err)
		return err;
	err = mutex_lock_killable(&mi_fault_state.lock);
	if (err)
		return err;
	if (v)
		err = mi_fault_arm();
	else
		mi_fault_disarm();
	mutex_unlock(&mi_fault_state.lock);
	return err ? err : count;
}

static ssize_t mi_fault_knob_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	const struct mi_fault_knob *k = file->private_data;
	struct mi_fault_settings *s;
	char buf[MI_FAULT_INPUT_MAX + 1];
	int err;

	/*
	 * Each write is one whole value, whatever the file position (a read
	 * on the same open file moves it), as the kernel's failslab knobs
	 * (simple_attr_write()) take it.
	 */
	if (count > MI_FAULT_INPUT_MAX)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	if (k->type == MI_KNOB_ARMED)
		return mi_fault_armed_write(k, buf, count);

	s = kmalloc(sizeof(*s), GFP_KERNEL);	/* too big for the stack */
	if (!s)
		return -ENOMEM;
	err = mutex_lock_killable(&mi_fault_state.lock);
	if (err)
		goto out_free;
	*s = mi_fault_state.cur;
	err = mi_fault_parse_knob(k, buf, count, mi_fault_max_order(), s);
	if (err)
		goto out_unlock;
	if (mi_fault_state.armed) {
		err = -EBUSY;
		goto out_unlock;
	}
	err = mi_fault_commit(k, s);
out_unlock:
	mutex_unlock(&mi_fault_state.lock);
out_free:
	kfree(s);
	if (err)
		return err;
	*ppos = 0;		/* the next read shows the new value */
	return count;
}

static const struct file_operations mi_fault_knob_fops = {
	.owner = THIS_MODULE,
	.open = mi_fault_knob_open,
	.read = mi_fault_knob_read,
	.write = mi_fault_knob_write,
};

static int mi_fault_settings_show(struct seq_file *m, void *unused)
{
	char buf[MI_FAULT_INPUT_MAX + 1];
	const struct mi_fault_knob *k;
	int err;

	err = mutex_lock_killable(&mi_fault_state.lock);
	if (err)
		return err;
	seq_puts(m, "key value\n");
	for (k = mi_fault_knobs; k->name; k++) {
		mi_fault_format_knob(k, &mi_fault_state.cur, buf, sizeof(buf));
		seq_printf(m, "%s %s\n", k->name, buf[0] ? buf : "-");
	}
	mutex_unlock(&mi_fault_state.lock);
	return 0;
}

static int mi_fault_excluded_show(struct seq_file *m, void *unused)
{
	int err = mutex_lock_killable(&mi_fault_state.lock);

	if (err)
		return err;
	mi_fault_exclude_show(m);
	mutex_unlock(&mi_fault_state.lock);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(mi_fault_settings);
DEFINE_SHOW_ATTRIBUTE(mi_fault_excluded);

/* The knob files, `settings` and `excluded`, in @dir; removed with @dir. */
int mi_fault_knobs_create(struct dentry *dir)
{
	const struct mi_fault_knob *k;
	struct dentry *file;

	for (k = mi_fault_knobs; k->name; k++) {
		file = debugfs_create_file(k->name, 0600, dir, (void *)k,
					   &mi_fault_knob_fops);
		if (IS_ERR(file))
			return PTR_ERR(file);
	}
	file = debugfs_create_file("settings", 0400, dir, NULL,
				   &mi_fault_settings_fops);
	if (!IS_ERR(file))
		file = debugfs_create_file("excluded", 0400, dir, NULL,
					   &mi_fault_excluded_fops);
	return PTR_ERR_OR_ZERO(file);
}

/* After the debugfs tree is gone and the injector disarmed. */
void mi_fault_knobs_exit(void)
{
	put_pid(mi_fault_state.pid);
	if (mi_fault_state.cgrp)
		cgroup_put(mi_fault_state.cgrp);
}
