// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection (docs/fault.md): arming, the decision, the duration, the
 * stats and the fault/ directory.  The knob files are fault_knobs.c's, the
 * log fault_log.c's, the probe handler fault_probe.c's.
 *
 * Arming copies the settings (mi_fault_state, fault.h), with the names
 * resolved (pid, cgroup, cache, module), into mi_fault_cfg, which the
 * handlers read without locking: nothing in it changes until the probes
 * are unregistered, except the module pointer (fault_aim.c).  The
 * counters of the decision (times, space, interval, nth) are atomics
 * reset at arming; stats are per-CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include "capabilities.h"
#include "compat.h"
#include "fault.h"
#include "slab.h"

struct mi_fault_pcpu {
	u64 cnt[MI_NR_SITES][MI_NR_CNT];
	u32 rnd;			/* xorshift32 state, seeded at arming */
};

static DEFINE_PER_CPU(struct mi_fault_pcpu, mi_fault_pcpu);

struct mi_fault_armed mi_fault_cfg;
bool mi_fault_stopped;

/* Arming's own state; changed under mi_fault_state.lock but the counters. */
static struct {
	bool ever_armed;		/* since load: unload waits for tasks */
	struct dentry *dir;
	/* the decision's state, reset at arming */
	atomic_t nth;
	atomic_t times;
	atomic_t interval;
	atomic_t space;
	/* duration: stops injecting from a timer, unregisters from a work */
	struct timer_list timer;
	struct work_struct disarm_work;
	/*
	 * linger: the sites whose probes a disarm left attached (inert: the
	 * handlers see mi_fault_stopped), and the work that detaches them
	 * when the linger is over.  0: nothing lingers.
	 */
	unsigned int lingering;
	struct delayed_work linger_work;
} mi_fault;

const char *const mi_fault_site_names[MI_NR_SITES] = {
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
static bool mi_fault_decide(const struct mi_fault_call *c)
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

/*
 * A call mi_fault_decide() chose is spared after all (an excluded caller):
 * give back what the decision used up, so that interval and times fail
 * the next matching call.  Space and probability used nothing on the way
 * to a failure.
 */
static void mi_fault_undecide(void)
{
	const struct mi_fault_settings *s = &mi_fault_cfg.set;

	if (s->interval > 1)
		atomic_dec(&mi_fault.interval);
	if (s->times != -1)
		atomic_inc(&mi_fault.times);
}

NOKPROBE_SYMBOL(mi_fault_undecide);

/*
 * Fail this matching call: the decision, and the callers that panic on
 * failure or that the user spares (exclude-caller, mi_fault_excluded()).
 * The search of the stack costs more than the rest of the handler, so
 * without nth it is made for a call the decision chose to fail only (most
 * matching calls are let through).  With nth (a sweep: run N fails the Nth
 * point) a spared call must not use up a point, or the next call would be
 * failed by two runs in a row and the points after it named one run late:
 * there every matching call is searched first.  The same two orders as
 * lib/fault-inject.c's should_fail_ex(): fail_stacktrace() first for
 * fail-nth, last (after times, space, interval, probability) otherwise.
 */
bool mi_fault_should_fail(struct mi_fault_call *c)
{
	if (mi_fault_cfg.set.nth)
		return !mi_fault_excluded(c) && mi_fault_decide(c);
	if (!mi_fault_decide(c))
		return false;
	if (!mi_fault_excluded(c))
		return true;
	mi_fault_undecide();
	return false;
}

NOKPROBE_SYMBOL(mi_fault_should_fail);

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
	atomic_set(&mi_fault.times, mi_fault_state.cur.times);
	atomic_set(&mi_fault.interval, 0);
	atomic_set(&mi_fault.space, mi_fault_state.cur.space);
	mi_fault_log_reset();
}

/*
 * Detach probes that a disarm left lingering.  Caller holds
 * mi_fault_state.lock; the injector is disarmed.
 */
void mi_fault_linger_end(void)
{
	if (!mi_fault.lingering || mi_fault_state.armed)
		return;
	mi_fault_probes_unregister();
	mi_fault.lingering = 0;
}

static void mi_fault_linger_work_fn(struct work_struct *work)
{
	mutex_lock(&mi_fault_state.lock);
	/* an arming since took the probes over: it ends its own linger */
	mi_fault_linger_end();
	mutex_unlock(&mi_fault_state.lock);
}

/* Caller holds mi_fault_state.lock. */
void mi_fault_disarm(void)
{
	unsigned int linger = mi_fault_state.cur.linger;

	if (!mi_fault_state.armed)
		return;
	/* no new failure from here on, on any CPU, before the slow part */
	WRITE_ONCE(mi_fault_stopped, true);
	timer_delete_sync(&mi_fault.timer);
	mi_fault_set_owner(true);
	if (linger) {
		/*
		 * Keep the probes: unregistering costs an ftrace update per
		 * entry point (about 0.1 s each under TCG, ten for slab), and
		 * a sweep disarms and arms again at every run.  The handlers
		 * return at once while stopped; wait for those that read it
		 * before the store (they run with preemption off), as
		 * unregister_kprobes() would, before the next arming rewrites
		 * what they read.
		 */
		synchronize_rcu();
		mi_fault.lingering = mi_fault_cfg.set.sites;
		mod_delayed_work(system_wq, &mi_fault.linger_work,
				 msecs_to_jiffies(linger));
	} else {
		mi_fault_probes_unregister();
	}
	mi_fault_set_owner(false);
	mi_fault_log_quiesce();
	mi_fault_aim_module_arm(NULL);
	mi_fault_state.armed = false;
	mi_fault_state.cur.armed = false;
}

/* Caller holds mi_fault_state.lock. */
int mi_fault_arm(void)
{
	const struct mi_fault_settings *s = &mi_fault_state.cur;
	char why[MI_CAP_DETAIL_LEN];
	enum mi_fault_site site;
	int err;

	if (mi_fault_state.armed)
		return -EBUSY;
	if (!s->sites)
		return -EINVAL;

	memset(&mi_fault_cfg, 0, sizeof(mi_fault_cfg));
	mi_fault_cfg.set = *s;
	mi_fault_cfg.pid = mi_fault_state.pid;
	mi_fault_cfg.cgrp = mi_fault_state.cgrp;
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

	/* the probes are live as soon as stopped is clear: spare this task */
	mi_fault_set_owner(true);
	/*
	 * Probes left lingering by the last disarm for these same sites are
	 * taken over as they are; for other sites they are detached first.
	 */
	if (mi_fault.lingering != s->sites)
		mi_fault_linger_end();
	/* pairs with the handler's acquire: it sees mi_fault_cfg complete */
	smp_store_release(&mi_fault_stopped, false);
	if (mi_fault.lingering) {
		cancel_delayed_work(&mi_fault.linger_work);
		mi_fault.lingering = 0;
	} else {
		err = mi_fault_probes_register(s->sites, why, sizeof(why));
		if (err) {
			pr_warn("fault: arming: %s\n", why);
			goto clear_owner;
		}
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
	mi_fault_state.armed = true;
	mi_fault_state.cur.armed = true;
	mi_fault.ever_armed = true;
	if (s->duration)
		mod_timer(&mi_fault.timer,
			  jiffies + msecs_to_jiffies(s->duration));
	return 0;

unregister:
	WRITE_ONCE(mi_fault_stopped, true);
	mi_fault_probes_unregister();
clear_owner:
	mi_fault_set_owner(false);
	mi_fault_log_quiesce();
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
	mutex_lock(&mi_fault_state.lock);
	/* an arming since the timer fired cleared the flag: nothing to do */
	if (mi_fault_state.armed && READ_ONCE(mi_fault_stopped))
		mi_fault_disarm();
	mutex_unlock(&mi_fault_state.lock);
}

/* ---- stats ------------------------------------------------------------ */

static int mi_fault_stats_show(struct seq_file *m, void *unused)
{
	enum mi_fault_site site;
	u64 sum[MI_NR_CNT];
	int cpu, i, err;

	seq_puts(m, "site attached checked matched failed nofail spared\n");
	for (site = 0; site < MI_NR_SITES; site++) {
		memset(sum, 0, sizeof(sum));
		for_each_possible_cpu(cpu)
			for (i = 0; i < MI_NR_CNT; i++)
				sum[i] += READ_ONCE(per_cpu_ptr(&mi_fault_pcpu,
							cpu)->cnt[site][i]);
		seq_printf(m, "%s %s %llu %llu %llu %llu %llu\n",
			   mi_fault_site_names[site],
			   mi_fault_site_attached(site) ? "yes" : "no",
			   sum[MI_CNT_CHECKED], sum[MI_CNT_MATCHED],
			   sum[MI_CNT_FAILED], sum[MI_CNT_NOFAIL],
			   sum[MI_CNT_SPARED]);
	}
	/* under the lock: an arming rewrites what it shows */
	err = mutex_lock_killable(&mi_fault_state.lock);
	if (err)
		return err;
	mi_fault_show_unprobed(m);
	if (mi_fault_state.armed && mi_fault_cfg.mod_set)
		seq_printf(m, "# aim-module %s: %s\n",
			   mi_fault_state.cur.aim_module,
			   mi_fault_aim_module_present() ? "loaded" :
			   "not loaded: matching from when it loads");
	mutex_unlock(&mi_fault_state.lock);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(mi_fault_stats);

/* ---- init and exit ----------------------------------------------------- */

int mi_fault_init(struct dentry *parent)
{
	char why[MI_CAP_DETAIL_LEN];
	struct dentry *file;
	int err;

	mi_fault_settings_init(&mi_fault_state.cur, mi_fault_max_order());
	mi_fault_log_init();
	INIT_WORK(&mi_fault.disarm_work, mi_fault_disarm_work_fn);
	INIT_DELAYED_WORK(&mi_fault.linger_work, mi_fault_linger_work_fn);
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
	err = mi_fault_knobs_create(mi_fault.dir);
	if (err)
		goto remove;
	file = debugfs_create_file("stats", 0400, mi_fault.dir, NULL,
				   &mi_fault_stats_fops);
	err = PTR_ERR_OR_ZERO(file);
	if (!err)
		err = mi_fault_log_create(mi_fault.dir);
	if (err)
		goto remove;
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
	mutex_lock(&mi_fault_state.lock);
	mi_fault_disarm();
	mi_fault_linger_end();
	mutex_unlock(&mi_fault_state.lock);
	/* a duration's work item queued before the disarm: it finds nothing */
	cancel_work_sync(&mi_fault.disarm_work);
	/* the linger's work takes the lock: cancelled outside it */
	cancel_delayed_work_sync(&mi_fault.linger_work);
	/*
	 * Only unloading frees the ret stub a failed call returns through;
	 * disarming frees nothing, so the wait is here, once, not at every
	 * disarm (an RCU-tasks grace period takes long, a sweep disarms often).
	 */
	if (mi_fault.ever_armed)
		mi_synchronize_rcu_tasks();
	mi_fault_aim_exit();
	mi_fault_knobs_exit();
}
