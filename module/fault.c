// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection (docs/fault.md): the knob files, the settings, arming,
 * and the stats and log the probe handler (fault_probe.c) fills in.
 *
 * All settings live in mi_fault.cur and change only under mi_fault.lock
 * (taken killably by writers), and only while disarmed.  Arming copies
 * them, with the names resolved (pid, cgroup, cache, module), into
 * mi_fault_cfg, which the handlers read without locking: nothing in it
 * changes until the probes are unregistered, except the module pointer
 * (fault_aim.c).  The counters of the decision (times, space, interval,
 * nth) are atomics reset at arming; stats are per-CPU; the log is a
 * preallocated ring of MI_FAULT_LOG entries, formatted when read.
 * Verbose lines are printed from a work item (queued through an irq_work,
 * which the handler may queue in any context), rate-limited.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "capabilities.h"
#include "compat.h"
#include "fault.h"
#include "slab.h"
#include "text.h"

#define MI_FAULT_LOG		64	/* entries kept by `log` */
#define MI_FAULT_LOG_STACK	8	/* frames kept for verbose 2 */
#define MI_FAULT_SYM_LEN	96	/* "function+0x1/0x2 [module]", cut */

struct mi_fault_log_ent {
	unsigned long seq;		/* 0: empty or being written */
	enum mi_fault_site site;
	pid_t pid;			/* -1: not in task context */
	char comm[MI_FAULT_COMM_LEN];
	unsigned long size;
	int order;
	gfp_t gfp;
	unsigned long caller;
	/* caller's name, kept when the aimed module goes ("": print caller) */
	char caller_sym[MI_FAULT_SYM_LEN];
	unsigned int nr_stack;
	unsigned long stack[MI_FAULT_LOG_STACK];
};

struct mi_fault_pcpu {
	u64 cnt[MI_NR_SITES][MI_NR_CNT];
	u32 rnd;			/* xorshift32 state, seeded at arming */
};

static DEFINE_PER_CPU(struct mi_fault_pcpu, mi_fault_pcpu);

struct mi_fault_armed mi_fault_cfg;
bool mi_fault_stopped;

static struct {
	struct mutex lock;		/* protects everything but the counters */
	struct mi_fault_settings cur;
	struct pid *pid;		/* cur.aim_pid resolved, referenced */
	struct cgroup *cgrp;		/* cur.aim_cgroup resolved, referenced */
	bool armed;
	bool ever_armed;		/* since load: unload waits for tasks */
	struct dentry *dir;
	/* the decision's state, reset at arming */
	atomic_t nth;
	atomic_t times;
	atomic_t interval;
	atomic_t space;
	/* the log */
	atomic_long_t seq;
	unsigned long printed;		/* last seq printed (work item only) */
	struct mi_fault_log_ent log[MI_FAULT_LOG];
	struct irq_work irq_work;
	struct work_struct work;
	/* duration: stops injecting from a timer, unregisters from a work */
	struct timer_list timer;
	struct work_struct disarm_work;
} mi_fault = {
	.lock = __MUTEX_INITIALIZER(mi_fault.lock),
};

static const char *const mi_site_names[MI_NR_SITES] = {
	[MI_SITE_SLAB] = "slab",
	[MI_SITE_PAGES] = "pages",
};

enum {
	MI_ROW_FILE, MI_ROW_SLAB, MI_ROW_PAGES, MI_ROW_AIM_CACHE, MI_ROW_AIM_MODULE,
	MI_ROW_AIM_CGROUP, MI_NR_ROWS
};

static struct mi_cap mi_fault_caps[MI_NR_ROWS] = {
	/*
	 * A mechanism row, not a file row: fault/ is a directory, and the
	 * reader reads every file row as a table.
	 */
	[MI_ROW_FILE] = { .name = "fault", .kind = MI_CAP_MECHANISM },
	[MI_ROW_SLAB] = { .name = "fault.slab", .kind = MI_CAP_MECHANISM },
	[MI_ROW_PAGES] = { .name = "fault.pages", .kind = MI_CAP_MECHANISM },
	[MI_ROW_AIM_CACHE] = { .name = "fault.aim_cache",
			  .kind = MI_CAP_MECHANISM },
	[MI_ROW_AIM_MODULE] = { .name = "fault.aim_module",
			   .kind = MI_CAP_MECHANISM },
	[MI_ROW_AIM_CGROUP] = { .name = "fault.aim_cgroup",
			   .kind = MI_CAP_MECHANISM },
};

static struct mi_cap_table mi_fault_table;

/* ---- called from the probe handler ------------------------------------ */

void mi_fault_count(enum mi_fault_site site, int what)
{
	/*
	 * one instruction on x86; an atomic on the per-CPU address with
	 * preemption off on arm64: safe in any context, NMI included
	 */
	this_cpu_inc(mi_fault_pcpu.cnt[site][what]);
}

NOKPROBE_SYMBOL(mi_fault_count);

/* percent 0..99, from this CPU's xorshift32 */
static unsigned int mi_fault_rnd100(void)
{
	u32 x = this_cpu_read(mi_fault_pcpu.rnd);

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	this_cpu_write(mi_fault_pcpu.rnd, x);
	return x % 100;
}

NOKPROBE_SYMBOL(mi_fault_rnd100);

/*
 * Fail this matching call?  nth alone decides when set; otherwise
 * failslab's order (lib/fault-inject.c, should_fail_ex()): times, space,
 * interval, probability.
 */
bool mi_fault_decide(const struct mi_fault_call *c)
{
	const struct mi_fault_settings *s = &mi_fault_cfg.set;
	int space;

	if (s->nth)
		return atomic_inc_return(&mi_fault.nth) == (int)s->nth;
	if (s->times != -1 && atomic_read(&mi_fault.times) <= 0)
		return false;
	/* racy between CPUs, as failslab's: space is a rough budget */
	space = atomic_read(&mi_fault.space);
	if (space > 0 && (unsigned long)space > c->size) {
		atomic_sub(c->size, &mi_fault.space);
		return false;
	}
	if (s->interval > 1 &&
	    atomic_inc_return(&mi_fault.interval) % s->interval)
		return false;
	if (s->probability < 100 && mi_fault_rnd100() >= s->probability)
		return false;
	/* times: exactly that many failures, even with racing CPUs */
	if (s->times != -1 && atomic_dec_if_positive(&mi_fault.times) < 0)
		return false;
	return true;
}

NOKPROBE_SYMBOL(mi_fault_decide);

void mi_fault_record(const struct mi_fault_call *c)
{
	unsigned long seq = atomic_long_inc_return(&mi_fault.seq);
	struct mi_fault_log_ent *e = &mi_fault.log[(seq - 1) % MI_FAULT_LOG];

	WRITE_ONCE(e->seq, 0);
	smp_wmb();		/* readers see seq 0 before the new fields */
	e->site = c->site;
	if (in_task()) {
		e->pid = task_tgid_nr(current);
		memcpy(e->comm, current->comm, sizeof(e->comm));
		e->comm[sizeof(e->comm) - 1] = '\0';
	} else {
		e->pid = -1;
		e->comm[0] = '\0';
	}
	e->size = c->size;
	e->order = c->order;
	e->gfp = c->gfp;
	e->caller = c->caller;
	e->caller_sym[0] = '\0';
	e->nr_stack = 0;
	if (mi_fault_cfg.set.verbose >= 2)
		e->nr_stack = stack_trace_save(e->stack, MI_FAULT_LOG_STACK, 0);
	smp_wmb();		/* the fields before the seq that validates them */
	WRITE_ONCE(e->seq, seq);
	if (mi_fault_cfg.set.verbose && !(c->gfp & __GFP_NOWARN))
		irq_work_queue(&mi_fault.irq_work);
}

NOKPROBE_SYMBOL(mi_fault_record);

/* ---- the log, read side ------------------------------------------------ */

/* Copy entry @seq into @out; false if it was overwritten or is being written. */
static bool mi_fault_log_get(unsigned long seq, struct mi_fault_log_ent *out)
{
	const struct mi_fault_log_ent *e = &mi_fault.log[(seq - 1) % MI_FAULT_LOG];

	if (READ_ONCE(e->seq) != seq)
		return false;
	/* the fields after the seq that validates them (mi_fault_record) */
	smp_rmb();
	memcpy(out, e, sizeof(*out));
	/* and the seq again after the fields: unchanged, they were whole */
	smp_rmb();
	return READ_ONCE(e->seq) == seq;
}

/*
 * The aimed module @mod is going (fault_aim.c's notifier, after the grace
 * period that ends every handler aiming at it): its symbols are still
 * there, so name the log's callers inside it now; read later, %pS would
 * print a bare address.  No handler records meanwhile (the aim matches
 * nothing); an entry is rewritten like the handler writes one, so a
 * reader copying it sees the seq change and skips it.
 */
void mi_fault_log_module_going(struct module *mod)
{
	struct mi_fault_log_ent *e;
	unsigned long seq;
	unsigned int i;

	for (i = 0; i < MI_FAULT_LOG; i++) {
		e = &mi_fault.log[i];
		seq = READ_ONCE(e->seq);
		if (!seq || e->caller_sym[0] || !within_module(e->caller, mod))
			continue;
		WRITE_ONCE(e->seq, 0);
		smp_wmb();	/* readers see seq 0 before the name changes */
		snprintf(e->caller_sym, sizeof(e->caller_sym), "%pS",
			 (void *)e->caller);
		smp_wmb();	/* the name before the seq that validates it */
		WRITE_ONCE(e->seq, seq);
	}
}

/* Verbose lines: from the work item, never from the handler. */
static void mi_fault_print_work(struct work_struct *work)
{
	static DEFINE_RATELIMIT_STATE(rs, 5 * HZ, 10);
	unsigned long last = atomic_long_read(&mi_fault.seq);
	struct mi_fault_log_ent e;
	unsigned long seq;
	unsigned int i;

	seq = mi_fault.printed + 1;
	if (last > MI_FAULT_LOG && seq < last - MI_FAULT_LOG + 1)
		seq = last - MI_FAULT_LOG + 1;
	for (; seq <= last; seq++) {
		if (!mi_fault_log_get(seq, &e) || (e.gfp & __GFP_NOWARN))
			continue;
		if (!__ratelimit(&rs))
			continue;
		pr_info("fault: injected %s failure #%lu: pid %d comm %s size %lu order %d gfp 0x%x caller %pS\n",
			mi_site_names[e.site], seq, e.pid, e.comm, e.size,
			e.order, (__force unsigned int)e.gfp,
			(void *)e.caller);
		for (i = 0; i < e.nr_stack; i++)
			pr_info("fault:   %pS\n", (void *)e.stack[i]);
	}
	mi_fault.printed = last;
}

static void mi_fault_irq_work(struct irq_work *work)
{
	schedule_work(&mi_fault.work);
}

/* ---- arming ------------------------------------------------------------ */

static void mi_fault_reset_counters(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct mi_fault_pcpu *p = per_cpu_ptr(&mi_fault_pcpu, cpu);

		memset(p->cnt, 0, sizeof(p->cnt));
		p->rnd = get_random_u32() | 1;	/* xorshift: never 0 */
	}
	atomic_set(&mi_fault.nth, 0);
	atomic_set(&mi_fault.times, mi_fault.cur.times);
	atomic_set(&mi_fault.interval, 0);
	atomic_set(&mi_fault.space, mi_fault.cur.space);
	atomic_long_set(&mi_fault.seq, 0);
	mi_fault.printed = 0;
	memset(mi_fault.log, 0, sizeof(mi_fault.log));
}

/* Stop printing: no irq_work or work item left running. */
static void mi_fault_quiesce(void)
{
	irq_work_sync(&mi_fault.irq_work);
	cancel_work_sync(&mi_fault.work);
}

/* Caller holds mi_fault.lock. */
static void mi_fault_disarm(void)
{
	if (!mi_fault.armed)
		return;
	/* no new failure from here on, on any CPU, before the slow part */
	WRITE_ONCE(mi_fault_stopped, true);
	timer_delete_sync(&mi_fault.timer);
	mi_fault_set_owner(true);
	mi_fault_probes_unregister();
	mi_fault_set_owner(false);
	mi_fault_quiesce();
	mi_fault_aim_module_arm(NULL);
	mi_fault.armed = false;
	mi_fault.cur.armed = false;
}

/* Caller holds mi_fault.lock. */
static int mi_fault_arm(void)
{
	const struct mi_fault_settings *s = &mi_fault.cur;
	char why[MI_CAP_DETAIL_LEN];
	enum mi_fault_site site;
	int err;

	if (mi_fault.armed)
		return -EBUSY;
	if (!s->sites)
		return -EINVAL;

	memset(&mi_fault_cfg, 0, sizeof(mi_fault_cfg));
	mi_fault_cfg.set = *s;
	mi_fault_cfg.pid = mi_fault.pid;
	mi_fault_cfg.cgrp = mi_fault.cgrp;
	if (s->aim_cache[0]) {
		/* re-resolved now: the cache may have gone since the write */
		err = mi_slab_find_cache(s->aim_cache, &mi_fault_cfg.cache);
		if (err)
			return err;
		mi_fault_cfg.cache_set = true;
	}
	if (s->aim_module[0]) {
		/* loaded now, or matched from when it comes (fault_aim.c) */
		mi_fault_cfg.mod_set = true;
		mi_fault_aim_module_arm(s->aim_module);
	}
	/* resolved again: a module's function may have gone since the write */
	err = mi_fault_exclude_arm(s->exclude_caller);
	if (err) {
		pr_warn("fault: arming: exclude-caller names a function that is gone\n");
		goto clear_mod;
	}
	mi_fault_reset_counters();

	WRITE_ONCE(mi_fault_stopped, false);
	/* the probes are live as they are registered: spare this task */
	mi_fault_set_owner(true);
	err = mi_fault_probes_register(s->sites, why, sizeof(why));
	if (err) {
		pr_warn("fault: arming: %s\n", why);
		goto clear_owner;
	}
	for (site = 0; site < MI_NR_SITES; site++) {
		if (!(s->sites & (1U << site)))
			continue;
		if (!mi_fault_verify(site)) {
			err = -EOPNOTSUPP;
			goto unregister;
		}
	}
	mi_fault_set_owner(false);
	mi_fault.armed = true;
	mi_fault.cur.armed = true;
	mi_fault.ever_armed = true;
	if (s->duration)
		mod_timer(&mi_fault.timer,
			  jiffies + msecs_to_jiffies(s->duration));
	return 0;

unregister:
	mi_fault_probes_unregister();
clear_owner:
	mi_fault_set_owner(false);
	mi_fault_quiesce();
clear_mod:
	mi_fault_aim_module_arm(NULL);
	return err;
}

/*
 * duration: the timer, in softirq context, cannot unregister probes (that
 * sleeps) and must not allocate (everything may be failing): it stops
 * injection with one store that every handler reads first, and queues the
 * preallocated work item that disarms for real.
 */
static void mi_fault_timer_fn(struct timer_list *timer)
{
	WRITE_ONCE(mi_fault_stopped, true);
	schedule_work(&mi_fault.disarm_work);
}

static void mi_fault_disarm_work_fn(struct work_struct *work)
{
	mutex_lock(&mi_fault.lock);
	/* an arming since the timer fired cleared the flag: nothing to do */
	if (mi_fault.armed && READ_ONCE(mi_fault_stopped))
		mi_fault_disarm();
	mutex_unlock(&mi_fault.lock);
}

/* ---- knob files -------------------------------------------------------- */

/*
 * Resolve the names of @s that differ from the current settings, then
 * commit @s; on error nothing changes.  Caller holds mi_fault.lock.
 */
static int mi_fault_commit(enum mi_fault_knob knob,
			   const struct mi_fault_settings *s)
{
	struct pid *pid = NULL;
	struct cgroup *cgrp = NULL;
	const void *cache;
	int err;

	switch (knob) {
	case MI_FK_AIM_PID:
		if (s->aim_pid) {
			/* in the writer's pid namespace */
			rcu_read_lock();
			pid = find_vpid(s->aim_pid);
			/* a process: a thread group leader is alive */
			if (pid && pid_task(pid, PIDTYPE_TGID))
				get_pid(pid);
			else
				pid = NULL;
			rcu_read_unlock();
			if (!pid)
				return -EINVAL;
		}
		put_pid(mi_fault.pid);
		mi_fault.pid = pid;
		break;
	case MI_FK_AIM_CGROUP:
		if (s->aim_cgroup[0]) {
			cgrp = cgroup_get_from_path(s->aim_cgroup);
			if (IS_ERR_OR_NULL(cgrp))
				return -EINVAL;
		}
		if (mi_fault.cgrp)
			cgroup_put(mi_fault.cgrp);
		mi_fault.cgrp = cgrp;
		break;
	case MI_FK_AIM_CACHE:
		if (s->aim_cache[0]) {
			err = mi_slab_find_cache(s->aim_cache, &cache);
			if (err)
				return err;
		}
		break;
	case MI_FK_EXCLUDE_CALLER:
		err = mi_fault_exclude_check(s->exclude_caller);
		if (err)
			return err;
		break;
	default:
		break;
	}
	mi_fault.cur = *s;
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
	enum mi_fault_knob knob = (uintptr_t)file->private_data;
	char buf[MI_FAULT_INPUT_MAX + 2];
	int len, err;

	err = mutex_lock_killable(&mi_fault.lock);
	if (err)
		return err;
	len = mi_fault_format_knob(knob, &mi_fault.cur, buf, sizeof(buf) - 1);
	mutex_unlock(&mi_fault.lock);
	buf[len++] = '\n';
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/*
 * A write to `armed`.  Nothing on this path allocates (the value is parsed
 * on the stack), so that a file opened before arming can always disarm,
 * even while every allocation of the writer fails; and any file position
 * is taken, so that one open file arms and disarms again and again.
 */
static ssize_t mi_fault_armed_write(const char *buf, size_t count)
{
	unsigned int v;
	int err;

	err = mi_fault_parse_uint(buf, count, 0, 1, &v);
	if (err)
		return err;
	err = mutex_lock_killable(&mi_fault.lock);
	if (err)
		return err;
	if (v)
		err = mi_fault_arm();
	else
		mi_fault_disarm();
	mutex_unlock(&mi_fault.lock);
	return err ? err : count;
}

static ssize_t mi_fault_knob_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	enum mi_fault_knob knob = (uintptr_t)file->private_data;
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
	if (knob == MI_FK_ARMED)
		return mi_fault_armed_write(buf, count);

	s = kmalloc(sizeof(*s), GFP_KERNEL);	/* too big for the stack */
	if (!s)
		return -ENOMEM;
	err = mutex_lock_killable(&mi_fault.lock);
	if (err)
		goto out_free;
	*s = mi_fault.cur;
	err = mi_fault_parse_knob(knob, buf, count, mi_fault_max_order(), s);
	if (err)
		goto out_unlock;
	if (mi_fault.armed) {
		err = -EBUSY;
		goto out_unlock;
	}
	err = mi_fault_commit(knob, s);
out_unlock:
	mutex_unlock(&mi_fault.lock);
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

/* ---- settings, stats, log ---------------------------------------------- */

static int mi_fault_settings_show(struct seq_file *m, void *unused)
{
	char buf[MI_FAULT_INPUT_MAX + 1];
	enum mi_fault_knob knob;
	int err;

	err = mutex_lock_killable(&mi_fault.lock);
	if (err)
		return err;
	seq_puts(m, "key value\n");
	for (knob = 0; knob < MI_FK_NR; knob++) {
		mi_fault_format_knob(knob, &mi_fault.cur, buf, sizeof(buf));
		seq_printf(m, "%s %s\n", mi_fault_knob_names[knob],
			   buf[0] ? buf : "-");
	}
	mutex_unlock(&mi_fault.lock);
	return 0;
}

static int mi_fault_stats_show(struct seq_file *m, void *unused)
{
	enum mi_fault_site site;
	u64 sum[MI_NR_CNT];
	int cpu, i, err;

	seq_puts(m, "site attached checked matched failed nofail\n");
	for (site = 0; site < MI_NR_SITES; site++) {
		memset(sum, 0, sizeof(sum));
		for_each_possible_cpu(cpu)
			for (i = 0; i < MI_NR_CNT; i++)
				sum[i] += READ_ONCE(per_cpu_ptr(&mi_fault_pcpu,
							cpu)->cnt[site][i]);
		seq_printf(m, "%s %s %llu %llu %llu %llu\n",
			   mi_site_names[site],
			   mi_fault_site_attached(site) ? "yes" : "no",
			   sum[MI_CNT_CHECKED], sum[MI_CNT_MATCHED],
			   sum[MI_CNT_FAILED], sum[MI_CNT_NOFAIL]);
	}
	/* under the lock: an arming rewrites what it shows */
	err = mutex_lock_killable(&mi_fault.lock);
	if (err)
		return err;
	mi_fault_show_unprobed(m);
	if (mi_fault.armed && mi_fault_cfg.mod_set)
		seq_printf(m, "# aim-module %s: %s\n", mi_fault.cur.aim_module,
			   mi_fault_aim_module_present() ? "loaded" :
			   "not loaded: matching from when it loads");
	mutex_unlock(&mi_fault.lock);
	return 0;
}

static int mi_fault_log_show(struct seq_file *m, void *unused)
{
	unsigned long last = atomic_long_read(&mi_fault.seq);
	struct mi_fault_log_ent e;
	unsigned long seq;

	seq_puts(m, "seq site pid comm size order gfp caller\n");
	seq = last > MI_FAULT_LOG ? last - MI_FAULT_LOG + 1 : 1;
	for (; seq <= last; seq++) {
		if (!mi_fault_log_get(seq, &e))
			continue;
		seq_printf(m, "%lu %s ", seq, mi_site_names[e.site]);
		if (e.pid < 0)
			seq_puts(m, "- ");
		else
			seq_printf(m, "%d ", e.pid);
		mi_put_comm(m, e.comm);
		if (e.size)
			seq_printf(m, " %lu", e.size);
		else
			seq_puts(m, " -");
		if (e.order < 0)
			seq_puts(m, " -");
		else
			seq_printf(m, " %d", e.order);
		if (e.caller_sym[0])
			seq_printf(m, " 0x%x %s\n", (__force unsigned int)e.gfp,
				   e.caller_sym);
		else
			seq_printf(m, " 0x%x %pS\n", (__force unsigned int)e.gfp,
				   (void *)e.caller);
	}
	return 0;
}

static int mi_fault_excluded_show(struct seq_file *m, void *unused)
{
	int err = mutex_lock_killable(&mi_fault.lock);

	if (err)
		return err;
	mi_fault_exclude_show(m);
	mutex_unlock(&mi_fault.lock);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(mi_fault_settings);
DEFINE_SHOW_ATTRIBUTE(mi_fault_stats);
DEFINE_SHOW_ATTRIBUTE(mi_fault_log);
DEFINE_SHOW_ATTRIBUTE(mi_fault_excluded);

/* ---- init and exit ----------------------------------------------------- */

int mi_fault_init(struct dentry *parent)
{
	char why[MI_CAP_DETAIL_LEN];
	enum mi_fault_knob knob;
	struct dentry *file;
	int err;

	mi_fault_settings_init(&mi_fault.cur, mi_fault_max_order());
	init_irq_work(&mi_fault.irq_work, mi_fault_irq_work);
	INIT_WORK(&mi_fault.work, mi_fault_print_work);
	INIT_WORK(&mi_fault.disarm_work, mi_fault_disarm_work_fn);
	timer_setup(&mi_fault.timer, mi_fault_timer_fn, 0);

	mi_fault_probes_init(&mi_fault_caps[MI_ROW_SLAB]);
	mi_fault_caller_init();
	mi_fault_exclude_init();
	err = mi_fault_aim_init();
	if (err)
		return err;
	if (mi_fault_aim_module_available())
		mi_cap_set(&mi_fault_caps[MI_ROW_AIM_MODULE], true,
			   "find_module (not exported) via ksyms; stack_trace_save past %u page allocator wrappers, within_module; module notifier",
			   mi_fault_nr_wrappers());
	else
		mi_cap_set(&mi_fault_caps[MI_ROW_AIM_MODULE], false,
			   "find_module not found (ksyms)");
	if (mi_slab_find_available(why, sizeof(why)))
		mi_cap_set(&mi_fault_caps[MI_ROW_AIM_CACHE], true,
			   "names looked up on slab_caches under slab_mutex; the cache argument compared");
	else
		mi_cap_set(&mi_fault_caps[MI_ROW_AIM_CACHE], false,
			   "slab_caches cannot be walked: %s", why);
	mi_cap_set(&mi_fault_caps[MI_ROW_AIM_CGROUP], true,
		   "cgroup_get_from_path at write, task_under_cgroup_hierarchy (cgroup v2)");
#ifdef MI_HAVE_SYNCHRONIZE_RCU_TASKS
	mi_cap_set(&mi_fault_caps[MI_ROW_FILE], true,
		   "directory fault/: fault injection knobs, settings, stats, log (docs/fault.md); unload waits for tasks on %s (synchronize_rcu_tasks)",
		   MI_FAULT_RET_PATH);
#else
	/* compat.h, mi_synchronize_rcu_tasks(): why the wait is needed */
	if (IS_ENABLED(CONFIG_PREEMPTION))
		mi_cap_set(&mi_fault_caps[MI_ROW_FILE], true,
			   "directory fault/: fault injection knobs, settings, stats, log (docs/fault.md); synchronize_rcu_tasks not exported: unload does not wait for tasks on %s",
			   MI_FAULT_RET_PATH);
	else
		mi_cap_set(&mi_fault_caps[MI_ROW_FILE], true,
			   "directory fault/: fault injection knobs, settings, stats, log (docs/fault.md); synchronize_rcu_tasks not exported, nor needed: the kernel is not preemptible (no CONFIG_PREEMPTION), no task is switched out on %s",
			   MI_FAULT_RET_PATH);
#endif

	mi_fault.dir = debugfs_create_dir("fault", parent);
	if (IS_ERR(mi_fault.dir)) {
		err = PTR_ERR(mi_fault.dir);
		goto aim_exit;
	}
	for (knob = 0; knob < MI_FK_NR; knob++) {
		file = debugfs_create_file(mi_fault_knob_names[knob], 0600,
					   mi_fault.dir,
					   (void *)(uintptr_t)knob,
					   &mi_fault_knob_fops);
		if (IS_ERR(file)) {
			err = PTR_ERR(file);
			goto remove;
		}
	}
	file = debugfs_create_file("settings", 0400, mi_fault.dir, NULL,
				   &mi_fault_settings_fops);
	if (!IS_ERR(file))
		file = debugfs_create_file("stats", 0400, mi_fault.dir, NULL,
					   &mi_fault_stats_fops);
	if (!IS_ERR(file))
		file = debugfs_create_file("log", 0400, mi_fault.dir, NULL,
					   &mi_fault_log_fops);
	if (!IS_ERR(file))
		file = debugfs_create_file("excluded", 0400, mi_fault.dir,
					   NULL, &mi_fault_excluded_fops);
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		goto remove;
	}
	mi_caps_register(&mi_fault_table, mi_fault_caps,
			 ARRAY_SIZE(mi_fault_caps));
	return 0;

remove:
	debugfs_remove_recursive(mi_fault.dir);
aim_exit:
	mi_fault_aim_exit();
	return err;
}

/* After the debugfs tree is gone: no writer is left. */
void mi_fault_exit(void)
{
	mi_caps_unregister(&mi_fault_table);
	mutex_lock(&mi_fault.lock);
	mi_fault_disarm();
	mutex_unlock(&mi_fault.lock);
	/* a duration's work item queued before the disarm: it finds nothing */
	cancel_work_sync(&mi_fault.disarm_work);
	/*
	 * Only unloading frees the ret stub a failed call returns through;
	 * disarming frees nothing, so the wait is here, once, not at every
	 * disarm (an RCU-tasks grace period takes long, a sweep disarms often).
	 */
	if (mi_fault.ever_armed)
		mi_synchronize_rcu_tasks();
	mi_fault_aim_exit();
	put_pid(mi_fault.pid);
	if (mi_fault.cgrp)
		cgroup_put(mi_fault.cgrp);
}
