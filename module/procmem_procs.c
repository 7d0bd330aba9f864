// SPDX-License-Identifier: GPL-2.0
/*
 * procs: every process's rollup in one read-only file (docs/procmem.md,
 * "procs").
 *
 * One record per thread group that has user memory, in pid order, with the
 * figures of mm's rollup (the same walk, mi_walk_mm()).  Read-only, so it
 * opens under lockdown (docs/lockdown.md), and one open and read serve a
 * whole `top` where mm needs a write and a read per process.
 *
 * The processes are found as /proc's readdir finds them (next_tgid() in
 * fs/proc/base.c): the first pid at or above a number, in the opener's pid
 * namespace, under RCU; its thread group leader is pinned by a reference
 * before RCU is dropped.  The file position is that number plus one (0 is
 * the header), so a read resumes after the last process it showed, however
 * the pids changed meanwhile.
 */
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/threads.h>

#include "procmem.h"
#include "procmem_priv.h"
#include "text.h"

/* Not exported on every kernel (5.10): found at init (procmem.c). */
DEFINE_STATIC_CALL_NULL(mi_find_ge_pid, find_ge_pid);

#define MI_PROCS_HEADER "pid " MI_MSS_HEADER " comm\n"

/*
 * Per open file.  The last record walked is kept: when it does not fit in
 * what is left of the seq_file buffer, seq_read() drops it and shows the
 * same process again at the next read (or into a bigger buffer); that
 * shows the kept figures instead of walking the process twice.  A process
 * is the same one when its number and start time are.
 */
struct mi_procs_iter {
	struct pid_namespace *ns;	/* the opener's */
	pid_t nr;			/* the current task's tgid in ns */
	pid_t kept_nr;			/* 0: nothing kept */
	u64 kept_start;
	struct mi_mss kept;
	char kept_comm[TASK_COMM_LEN];
};

/*
 * The first thread group leader whose tgid in it->ns is at least @nr, with
 * a reference, or NULL past the last.  As next_tgid(): a pid that is no
 * thread group's (a thread, or a leader gone) is passed over.
 */
static struct task_struct *mi_procs_find(struct mi_procs_iter *it, int nr)
{
	struct task_struct *task;
	struct pid *pid;

	for (;;) {
		rcu_read_lock();
		pid = static_call(mi_find_ge_pid)(nr, it->ns);
		if (!pid) {
			rcu_read_unlock();
			return NULL;
		}
		nr = pid_nr_ns(pid, it->ns);
		task = pid_task(pid, PIDTYPE_TGID);
		if (task)
			get_task_struct(task);
		rcu_read_unlock();
		if (task) {
			it->nr = nr;
			return task;
		}
		nr++;
	}
}

static void *mi_procs_at(struct mi_procs_iter *it, loff_t *pos)
{
	struct task_struct *task;

	if (*pos > PID_MAX_LIMIT)
		return NULL;
	task = mi_procs_find(it, *pos - 1);
	if (task)
		*pos = (loff_t)it->nr + 1;
	return task;
}

static void *mi_procs_start(struct seq_file *m, loff_t *pos)
{
	struct mi_procs_iter *it = m->private;

	if (*pos == 0) {
		/* a read from the start walks everything again */
		it->kept_nr = 0;
		return SEQ_START_TOKEN;
	}
	return mi_procs_at(it, pos);
}

static void mi_procs_put(void *v)
{
	if (v && v != SEQ_START_TOKEN && !IS_ERR(v))
		put_task_struct(v);
}

static void *mi_procs_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct mi_procs_iter *it = m->private;

	*pos = v == SEQ_START_TOKEN ? 1 : (loff_t)it->nr + 2;
	mi_procs_put(v);
	/* between processes: a killed reader stops, a wanted CPU is given */
	if (fatal_signal_pending(current))
		return ERR_PTR(-EINTR);
	cond_resched();
	return mi_procs_at(it, pos);
}

static void mi_procs_stop(struct seq_file *m, void *v)
{
	mi_procs_put(v);
}

static void mi_procs_put_record(struct seq_file *m, pid_t nr,
				const struct mi_mss *mss, const char *comm)
{
	seq_put_decimal_ll(m, "", nr);
	mi_put_mss(m, mss);
	seq_putc(m, ' ');
	mi_put_comm(m, comm);
	seq_putc(m, '\n');
}

/*
 * One process: its rollup, walked as mm walks it, with the access check of
 * /proc/PID/smaps_rollup (mm_access()).  A kernel thread, a process with
 * no memory left (a zombie, or one exiting), one the reader may not read,
 * and one that exits during its walk are passed over (SEQ_SKIP).
 */
static int mi_procs_show(struct seq_file *m, void *v)
{
	struct mi_procs_iter *it = m->private;
	struct task_struct *task = v;
	struct mi_walk w = { };
	unsigned long vmas = 0;
	struct mm_struct *mm;
	int err;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, MI_PROCS_HEADER);
		return 0;
	}
	if (it->kept_nr == it->nr && it->kept_start == task->start_time) {
		mi_procs_put_record(m, it->nr, &it->kept, it->kept_comm);
		return 0;
	}
	if (task->flags & PF_KTHREAD)
		return SEQ_SKIP;
	mm = static_call(mi_mm_access)(task, PTRACE_MODE_READ_FSCREDS);
	if (IS_ERR_OR_NULL(mm))
		return SEQ_SKIP;
	memset(&it->kept, 0, sizeof(it->kept));
	it->kept_nr = 0;
	w.mm = mm;
	w.mss = &it->kept;
	err = mi_walk_mm(&w, NULL, &vmas);
	mmput(mm);
	if (err)
		return err;
	if (w.exited)
		return SEQ_SKIP;
	get_task_comm(it->kept_comm, task);
	it->kept_nr = it->nr;
	it->kept_start = task->start_time;
	mi_procs_put_record(m, it->nr, &it->kept, it->kept_comm);
	return 0;
}

static const struct seq_operations mi_procs_sops = {
	.start = mi_procs_start,
	.next = mi_procs_next,
	.stop = mi_procs_stop,
	.show = mi_procs_show,
};

static int mi_procs_open(struct inode *inode, struct file *file)
{
	struct mi_procs_iter *it;

	/* without mm_access() no access check: no file (docs/capabilities.md) */
	if (!mi_pm.procs)
		return -EOPNOTSUPP;
	it = __seq_open_private(file, &mi_procs_sops, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->ns = get_pid_ns(task_active_pid_ns(current));
	return 0;
}

static int mi_procs_release(struct inode *inode, struct file *file)
{
	struct mi_procs_iter *it = ((struct seq_file *)file->private_data)->private;

	put_pid_ns(it->ns);
	return seq_release_private(inode, file);
}

const struct file_operations mi_procs_fops = {
	.owner = THIS_MODULE,
	.open = mi_procs_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = mi_procs_release,
};
