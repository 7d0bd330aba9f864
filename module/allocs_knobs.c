// SPDX-License-Identifier: GPL-2.0
/*
 * allocs/: the knobs, one file each.  armed (0/1; writing 1 resets the
 * counters and attaches the probes, 0 detaches them); the rest are set
 * only while disarmed: aim_pid (a process of the writer's pid namespace),
 * aim_comm, aim_module (only call sites in that module's text: the
 * injector's aim and parser), aim_cgroup (only tasks in that cgroup v2 or
 * below it, resolved with a reference at the write), aim_cache, hash_size
 * (slots of the ptr -> site table), sample_bytes (0: every allocation; N:
 * an allocation of s bytes is followed with probability min(1, s/N) and
 * weighted by its inverse), pages (page allocations too,
 * allocs_pages.c), page_stack (callers kept per page site).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "allocs_priv.h"
#include "fault_parse.h"
#include "mirror.h"

enum mi_allocs_knob {
	MI_ALLOCS_ARMED,
	MI_ALLOCS_AIM_PID,
	MI_ALLOCS_AIM_COMM,
	MI_ALLOCS_HASH_SIZE,
	MI_ALLOCS_SAMPLE_BYTES,
	MI_ALLOCS_AIM_MODULE,
	MI_ALLOCS_AIM_CGROUP,
	MI_ALLOCS_AIM_CACHE,
	MI_ALLOCS_PAGES,
	MI_ALLOCS_PAGE_STACK,
	MI_ALLOCS_NR_KNOBS
};

static const char *const mi_allocs_knob_names[MI_ALLOCS_NR_KNOBS] = {
	[MI_ALLOCS_ARMED] = "armed",
	[MI_ALLOCS_AIM_PID] = "aim_pid",
	[MI_ALLOCS_AIM_COMM] = "aim_comm",
	[MI_ALLOCS_HASH_SIZE] = "hash_size",
	[MI_ALLOCS_SAMPLE_BYTES] = "sample_bytes",
	[MI_ALLOCS_AIM_MODULE] = "aim_module",
	[MI_ALLOCS_AIM_CGROUP] = "aim_cgroup",
	[MI_ALLOCS_AIM_CACHE] = "aim_cache",
	[MI_ALLOCS_PAGES] = "pages",
	[MI_ALLOCS_PAGE_STACK] = "page_stack",
};

static int mi_allocs_knob_show(struct seq_file *m, void *v)
{
	enum mi_allocs_knob knob = (uintptr_t)m->private;

	if (mutex_lock_killable(&mi_allocs.lock))
		return -EINTR;
	switch (knob) {
	case MI_ALLOCS_ARMED:
		seq_printf(m, "%d\n", mi_allocs.armed);
		break;
	case MI_ALLOCS_AIM_PID:
		seq_printf(m, "%d\n", mi_allocs.aim_pid);
		break;
	case MI_ALLOCS_AIM_COMM:
		seq_printf(m, "%s\n", mi_allocs.aim_comm);
		break;
	case MI_ALLOCS_SAMPLE_BYTES:
		seq_printf(m, "%u\n", mi_allocs.sample_bytes);
		break;
	case MI_ALLOCS_AIM_MODULE:
		seq_printf(m, "%s\n", mi_allocs.aim_module);
		break;
	case MI_ALLOCS_AIM_CGROUP:
		seq_printf(m, "%s\n", mi_allocs.aim_cgroup);
		break;
	case MI_ALLOCS_AIM_CACHE:
		seq_printf(m, "%s\n", mi_allocs.aim_cache);
		break;
	case MI_ALLOCS_PAGES:
		seq_printf(m, "%d\n", mi_allocs.pages);
		break;
	case MI_ALLOCS_PAGE_STACK:
		seq_printf(m, "%u\n", mi_allocs.page_stack);
		break;
	default:
		seq_printf(m, "%u\n", mi_allocs.hash_size);
		break;
	}
	mutex_unlock(&mi_allocs.lock);
	return 0;
}

/* @data: the knob (enum mi_allocs_knob), debugfs' i_private or the mirror's */
static int mi_allocs_knob_open_data(struct file *file, void *data)
{
	return single_open(file, mi_allocs_knob_show, data);
}

static int mi_allocs_knob_open(struct inode *inode, struct file *file)
{
	return mi_allocs_knob_open_data(file, inode->i_private);
}

static int mi_allocs_knob_apply(enum mi_allocs_knob knob, const char *buf,
				size_t len)
{
	char comm[TASK_COMM_LEN];
	unsigned int u;
	bool on;
	int err;

	switch (knob) {
	case MI_ALLOCS_ARMED:
		err = mi_fault_parse_bool(buf, len, &on);
		return err ?: mi_allocs_set_armed(on);
	case MI_ALLOCS_AIM_PID:
		err = mi_fault_parse_uint(buf, len, 0, PID_MAX_LIMIT, &u);
		if (err)
			return err;
		if (mi_allocs.armed)
			return -EBUSY;
		return mi_allocs_aim_pid(u);
	case MI_ALLOCS_AIM_COMM:
		err = mi_fault_parse_comm(buf, len, comm, sizeof(comm));
		if (err)
			return err;
		if (mi_allocs.armed)
			return -EBUSY;
		strscpy(mi_allocs.aim_comm, comm, sizeof(mi_allocs.aim_comm));
		return 0;
	case MI_ALLOCS_SAMPLE_BYTES:
		err = mi_fault_parse_uint(buf, len, 0, MI_ALLOCS_SAMPLE_MAX, &u);
		if (err)
			return err;
		if (mi_allocs.armed)
			return -EBUSY;
		mi_allocs.sample_bytes = u;
		return 0;
	case MI_ALLOCS_AIM_MODULE:
		return mi_allocs_aim_module(buf, len);
	case MI_ALLOCS_AIM_CGROUP:
		return mi_allocs_aim_cgroup(buf, len);
	case MI_ALLOCS_AIM_CACHE:
		return mi_allocs_aim_cache(buf, len);
	case MI_ALLOCS_PAGES:
		err = mi_fault_parse_bool(buf, len, &on);
		if (err)
			return err;
		if (on && !mi_allocs_pages_available())
			return -EOPNOTSUPP;
		if (mi_allocs.armed)
			return -EBUSY;
		mi_allocs.pages = on;
		return 0;
	case MI_ALLOCS_PAGE_STACK:
		err = mi_fault_parse_uint(buf, len, 0, MI_ALLOCS_STACK_MAX, &u);
		if (err)
			return err;
		if (mi_allocs.armed)
			return -EBUSY;
		mi_allocs.page_stack = u;
		return 0;
	default:
		err = mi_fault_parse_uint(buf, len, MI_ALLOCS_HASH_MIN,
					  MI_ALLOCS_HASH_MAX, &u);
		if (err)
			return err;
		if (!is_power_of_2(u))
			return -EINVAL;
		if (mi_allocs.armed)
			return -EBUSY;
		mi_allocs.hash_size = u;
		return 0;
	}
}

static ssize_t mi_allocs_knob_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	enum mi_allocs_knob knob = (uintptr_t)m->private;
	/*
	 * the longest value is aim_cgroup's, a path as long as the
	 * injector's (systemd's and Docker's are 60 to 100 bytes), and a
	 * newline
	 */
	char buf[MI_FAULT_PATH_LEN + 1];
	int err;

	if (len >= sizeof(buf))
		return -ERANGE;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	if (mutex_lock_killable(&mi_allocs.lock))
		return -EINTR;
	err = mi_allocs_knob_apply(knob, buf, len);
	mutex_unlock(&mi_allocs.lock);
	return err ?: len;
}

static const struct file_operations mi_allocs_knob_fops = {
	.owner = THIS_MODULE,
	.open = mi_allocs_knob_open,
	.read = seq_read,
	.write = mi_allocs_knob_write,
	.llseek = seq_lseek,
	.release = single_release,
};

int mi_allocs_knobs_create(struct dentry *dir)
{
	struct dentry *file;
	uintptr_t knob;

	char path[32];

	for (knob = 0; knob < MI_ALLOCS_NR_KNOBS; knob++) {
		file = debugfs_create_file(mi_allocs_knob_names[knob], 0600,
					   dir, (void *)knob,
					   &mi_allocs_knob_fops);
		if (IS_ERR(file))
			return PTR_ERR(file);
		/* arming attaches tracepoints; the aims only choose */
		snprintf(path, sizeof(path), "allocs/%s",
			 mi_allocs_knob_names[knob]);
		mi_mirror_add(path, &mi_allocs_knob_fops,
			      mi_allocs_knob_open_data, (void *)knob,
			      MI_MIRROR_TRACES);
	}
	return 0;
}
