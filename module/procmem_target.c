// SPDX-License-Identifier: GPL-2.0
/*
 * The process that mm and vmas show (docs/procmem.md, "Choosing the
 * process").
 *
 * The target is per open file: the reading process unless a pid was
 * written to the file (looked up in the writer's pid namespace; access as
 * for /proc/PID/smaps, through mm_access(), which is not exported: a static
 * call, ksyms.h).
 */
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <linux/uaccess.h>

#include "procmem_priv.h"

/* Unexported, found once at init (procmem.c) and called directly. */
DEFINE_STATIC_CALL_NULL(mi_mm_access, mm_access);

/* The target's mm, as /proc/PID/smaps opens it (mm_access()), or an error. */
int mi_target_find(struct mi_target *t, struct mi_found *f)
{
	struct task_struct *task;
	struct mm_struct *mm;

	memset(f, 0, sizeof(*f));
	if (mutex_lock_killable(&t->lock))
		return -EINTR;
	if (t->pid) {
		task = get_pid_task(t->pid, PIDTYPE_PID);
	} else {
		task = current;
		get_task_struct(task);
	}
	mutex_unlock(&t->lock);
	if (!task) {
		f->why = "the target has exited and been reaped";
		return 0;
	}
	f->nr = task_pid_vnr(task);
	get_task_comm(f->comm, task);
	if (task->flags & PF_KTHREAD) {
		f->why = "kernel thread: no user memory";
		goto put;
	}
	if (task != current && !mi_pm.access) {
		put_task_struct(task);
		return -EPERM;
	}
	mm = task == current ? get_task_mm(task) :
	     static_call(mi_mm_access)(task, PTRACE_MODE_READ_FSCREDS);
	/* No mm: NULL up to 6.x, -ESRCH in 7.x (mm_access() in kernel/fork.c) */
	if (mm == ERR_PTR(-ESRCH))
		mm = NULL;
	if (IS_ERR(mm)) {
		put_task_struct(task);
		return PTR_ERR(mm);
	}
	f->mm = mm;
	if (!mm)
		f->why = task->exit_state ?
			 "zombie: exited, its memory is gone" :
			 "exiting: its memory is gone";
put:
	put_task_struct(task);
	return 0;
}

void mi_target_init(struct mi_target *t)
{
	mutex_init(&t->lock);
	t->pid = NULL;
}

void mi_target_release(struct mi_target *t)
{
	put_pid(t->pid);
	mutex_destroy(&t->lock);
}

/*
 * Writing a pid chooses the target of this open file: "0" is the reading
 * process.  The pid is looked up in the writer's pid namespace and must be
 * readable as /proc/PID/smaps is; on any error nothing changes.  The file
 * position goes back to 0, so the next read starts afresh.
 */
static ssize_t mi_target_write(struct mi_target *t, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct mi_target probe = { };
	struct mi_found found;
	struct pid *pid = NULL;
	int nr, err;

	if (count > 32)
		return -EINVAL;
	err = kstrtoint_from_user(ubuf, count, 10, &nr);
	if (err)
		return err;
	if (nr < 0)
		return -EINVAL;
	if (nr > PID_MAX_LIMIT)
		return -ERANGE;
	if (nr) {
		pid = find_get_pid(nr);
		if (!pid)
			return -ESRCH;
		/* The access check, now, so a refused pid changes nothing. */
		mi_target_init(&probe);
		probe.pid = pid;
		err = mi_target_find(&probe, &found);
		mutex_destroy(&probe.lock);
		if (found.mm)
			mmput(found.mm);
		if (err) {
			put_pid(pid);
			return err;
		}
	}
	if (mutex_lock_killable(&t->lock)) {
		put_pid(pid);
		return -EINTR;
	}
	swap(t->pid, pid);
	mutex_unlock(&t->lock);
	put_pid(pid);
	*ppos = 0;
	return count;
}

/*
 * The ->write of mm and vmas: the private data of the file's seq_file is
 * its struct mi_target, or a struct that starts with it (mi_vmas_iter).
 */
ssize_t mi_target_fwrite(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;

	return mi_target_write(m->private, ubuf, count, ppos);
}
