// SPDX-License-Identifier: GPL-2.0
/*
 * latency/: how long tasks stall in direct reclaim, memcg reclaim and
 * direct compaction, as per-CPU log2 (ns) histograms summed on read, and
 * which tasks stalled longest (docs/latency.md).  Page allocations by
 * order and path are latency_alloc.c's, armed by the same knob.
 *
 * `armed` (0/1) attaches probes to the vmscan begin/end tracepoints, which
 * are not exported: they are found by name with for_each_kernel_tracepoint()
 * and attached with tracepoint_probe_register(); and a kretprobe on
 * try_to_compact_pages().  Disarmed, nothing is attached.  Arming zeroes
 * the histograms and the stallers table first, so they cover one armed
 * window.
 *
 * Begin and end are paired per task in a fixed table of slots claimed with
 * cmpxchg, one slot a task: the probes never allocate, never print and
 * never sleep.  A begin that finds no free slot, an end with no begin
 * (armed mid-stall) and a begin whose end was not seen are counted as
 * unpaired instead.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/compaction.h>
#include <linux/debugfs.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include "capabilities.h"
#include "ksyms.h"
#include "latency.h"
#include "latency_priv.h"
#include "mirror.h"
#include "show_fops.h"

#define MI_LAT_SLOTS	256	/* tasks in reclaim at once */

enum mi_lat_kind {
	MI_LAT_DIRECT_RECLAIM,
	MI_LAT_MEMCG_RECLAIM,
	MI_LAT_DIRECT_COMPACTION,
	MI_LAT_NR_KINDS
};

static const char *const mi_lat_names[MI_LAT_NR_KINDS] = {
	[MI_LAT_DIRECT_RECLAIM] = "direct_reclaim",
	[MI_LAT_MEMCG_RECLAIM] = "memcg_reclaim",
	[MI_LAT_DIRECT_COMPACTION] = "direct_compaction",
};

struct mi_lat_cpu {
	struct mi_lat_hist hist[MI_LAT_NR_KINDS];
};

static DEFINE_PER_CPU(struct mi_lat_cpu, mi_lat_cpu);

/*
 * One task between begin and end.  @task is only compared, never followed,
 * so it alone cannot tell a task from one that exited and whose
 * task_struct was reused: @gen is the task's start_time, which a task
 * created at the same address later has larger, so that a slot left by a
 * task that is gone is never taken for its successor's begin.  (A pid is
 * reused as well; an address and a start time together are not.)
 */
struct mi_lat_slot {
	struct task_struct *task;
	u64 gen;
	u64 start_ns;
	unsigned int kind;
};

static struct mi_lat_slot mi_lat_slots[MI_LAT_SLOTS];
static atomic_long_t mi_lat_unpaired[MI_LAT_NR_KINDS];

/*
 * The top stalled tasks: one entry per task (by pid) that ended a stall of
 * any kind while armed.  An entry is claimed with cmpxchg on its pid, then
 * its comm and cgroup are written and @ready is released; the totals are
 * atomic.  A stall of a task that finds no entry and no free one is added
 * to the overflow counters instead.  Zeroed on arming, never allocated.
 */
#define MI_LAT_STALLERS	64

struct mi_lat_staller {
	atomic_t pid;		/* 0: free */
	int ready;		/* comm and cgroup written */
	char comm[TASK_COMM_LEN];
	u64 cgroup;		/* cgroup v2 id (kernfs inode number), 0: none */
	atomic64_t events;
	atomic64_t stall_ns;
};

static struct mi_lat_staller mi_lat_stallers[MI_LAT_STALLERS];
static atomic64_t mi_lat_over_events;
static atomic64_t mi_lat_over_ns;

/* The cgroup v2 id of @task's cgroup; 0 without cgroups. */
static u64 mi_lat_cgroup_id(struct task_struct *task)
{
	u64 id = 0;

#ifdef CONFIG_CGROUPS
	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(task));
	rcu_read_unlock();
#endif
	return id;
}

static void mi_lat_staller_add(u64 ns)
{
	struct task_struct *me = current;
	int pid = task_pid_nr(me);
	unsigned int i;

	for (i = 0; i < MI_LAT_STALLERS; i++) {
		struct mi_lat_staller *st = &mi_lat_stallers[i];
		int cur = atomic_read(&st->pid);

		if (!cur) {
			if (atomic_cmpxchg(&st->pid, 0, pid) != 0) {
				/* taken meanwhile: it may be ours */
				if (atomic_read(&st->pid) != pid)
					continue;
			} else {
				/*
				 * as the sched tracepoints copy comm: no
				 * task_lock(), which get_task_comm() takes
				 * up to 6.12 (__get_task_comm()) and which
				 * sleeps on PREEMPT_RT
				 */
				memcpy(st->comm, me->comm, TASK_COMM_LEN);
				st->comm[TASK_COMM_LEN - 1] = '\0';
				st->cgroup = mi_lat_cgroup_id(me);
				/* pairs with the reader's acquire of ready */
				smp_store_release(&st->ready, 1);
			}
		} else if (cur != pid) {
			continue;
		}
		atomic64_inc(&st->events);
		atomic64_add(ns, &st->stall_ns);
		return;
	}
	atomic64_inc(&mi_lat_over_events);
	atomic64_add(ns, &mi_lat_over_ns);
}

/* One stall of @kind that lasted @ns, ended by the current task. */
static void mi_lat_record(unsigned int kind, u64 ns)
{
	struct mi_lat_hist *hist;

	hist = &get_cpu_ptr(&mi_lat_cpu)->hist[kind];
	hist->events++;
	hist->sum_ns += ns;
	hist->buckets[mi_lat_bucket(ns)]++;
	put_cpu_ptr(&mi_lat_cpu);
	mi_lat_staller_add(ns);
}

/* The slot @me holds, or NULL: only @me claims a slot for @me. */
static struct mi_lat_slot *mi_lat_slot_of(struct task_struct *me)
{
	unsigned int i;

	for (i = 0; i < MI_LAT_SLOTS; i++)
		if (READ_ONCE(mi_lat_slots[i].task) == me)
			return &mi_lat_slots[i];
	return NULL;
}

/*
 * A begin takes over the slot its task already holds: that slot's begin had
 * no end seen (or belongs to a task gone from the same address), and a
 * later end must not be measured from it, which would count time the task
 * spent outside reclaim as a stall.  One slot a task, so an end finds the
 * one begin that can be its own.
 */
static void mi_lat_begin(unsigned int kind)
{
	struct task_struct *me = current;
	struct mi_lat_slot *slot = mi_lat_slot_of(me);
	unsigned int i;

	if (slot) {
		atomic_long_inc(&mi_lat_unpaired[slot->kind]);
		goto fill;
	}
	for (i = 0; i < MI_LAT_SLOTS; i++) {
		slot = &mi_lat_slots[i];
		if (!READ_ONCE(slot->task) && !cmpxchg(&slot->task, NULL, me))
			goto fill;
	}
	atomic_long_inc(&mi_lat_unpaired[kind]);
	return;
fill:
	/* only this task writes its own slot until it frees it */
	slot->kind = kind;
	slot->gen = me->start_time;
	WRITE_ONCE(slot->start_ns, ktime_get_ns());
}

static void mi_lat_end(unsigned int kind)
{
	struct task_struct *me = current;
	struct mi_lat_slot *slot = mi_lat_slot_of(me);
	unsigned int begun;
	bool paired;
	u64 ns;

	if (!slot) {
		atomic_long_inc(&mi_lat_unpaired[kind]);
		return;
	}
	ns = ktime_get_ns() - READ_ONCE(slot->start_ns);
	begun = slot->kind;
	paired = begun == kind && slot->gen == me->start_time;
	/* pairs with the cmpxchg of a begin that claims the slot next */
	smp_store_release(&slot->task, NULL);
	if (paired) {
		mi_lat_record(kind, ns);
	} else {
		/* the slot's begin had no end, this end no begin */
		atomic_long_inc(&mi_lat_unpaired[begun]);
		atomic_long_inc(&mi_lat_unpaired[kind]);
	}
}

/*
 * The probes' prototypes follow the tracepoints': "mm: vmscan: add memcg
 * info to vmscan tracepoints" (in the 7.3 headers, not in 6.12; hash not
 * checked here) moved gfp_flags first and added the memcg to begin and end.
 * probe.sh sets MI_HAVE_VMSCAN_TP_MEMCG from the header.
 */
#ifdef MI_HAVE_VMSCAN_TP_MEMCG
static void mi_lat_direct_begin(void *data, gfp_t gfp, int order,
				struct mem_cgroup *memcg)
{
	mi_lat_begin(MI_LAT_DIRECT_RECLAIM);
}

static void mi_lat_memcg_begin(void *data, gfp_t gfp, int order,
			       struct mem_cgroup *memcg)
{
	mi_lat_begin(MI_LAT_MEMCG_RECLAIM);
}

static void mi_lat_direct_end(void *data, unsigned long nr_reclaimed,
			      struct mem_cgroup *memcg)
{
	mi_lat_end(MI_LAT_DIRECT_RECLAIM);
}

static void mi_lat_memcg_end(void *data, unsigned long nr_reclaimed,
			     struct mem_cgroup *memcg)
{
	mi_lat_end(MI_LAT_MEMCG_RECLAIM);
}
#else
static void mi_lat_direct_begin(void *data, int order, gfp_t gfp)
{
	mi_lat_begin(MI_LAT_DIRECT_RECLAIM);
}

static void mi_lat_memcg_begin(void *data, int order, gfp_t gfp)
{
	mi_lat_begin(MI_LAT_MEMCG_RECLAIM);
}

static void mi_lat_direct_end(void *data, unsigned long nr_reclaimed)
{
	mi_lat_end(MI_LAT_DIRECT_RECLAIM);
}

static void mi_lat_memcg_end(void *data, unsigned long nr_reclaimed)
{
	mi_lat_end(MI_LAT_MEMCG_RECLAIM);
}
#endif

struct mi_lat_tp {
	const char *name;
	void *probe;
	bool end;
	struct tracepoint *tp;
	bool attached;
};

/* each kind's begin, then its end (mi_lat_cap() reads them in pairs) */
static struct mi_lat_tp mi_lat_tps[] = {
	{ "mm_vmscan_direct_reclaim_begin", mi_lat_direct_begin, false },
	{ "mm_vmscan_direct_reclaim_end", mi_lat_direct_end, true },
	{ "mm_vmscan_memcg_reclaim_begin", mi_lat_memcg_begin, false },
	{ "mm_vmscan_memcg_reclaim_end", mi_lat_memcg_end, true },
};

static void mi_lat_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mi_lat_tps); i++)
		if (!strcmp(tp->name, mi_lat_tps[i].name))
			mi_lat_tps[i].tp = tp;
	mi_lat_alloc_find_tp(tp);
}

/*
 * Direct compaction: a kretprobe on try_to_compact_pages(), the one call
 * of __alloc_pages_direct_compact(), which counts COMPACTSTALL after it
 * returns: since "mm: compaction: update the COMPACT[STALL|FAIL] events
 * properly" (06dac2f467fe, v5.13) unless it returned COMPACT_SKIPPED,
 * before it always (probe.sh sets MI_COMPACTSTALL_COUNTS_SKIPPED).  The
 * entry handler keeps the start time in the instance's data; an instance
 * the kretprobe could not get (all maxactive in use) is counted by the
 * kprobes core in nmissed, shown as this kind's unpaired.
 */
static int mi_lat_compact_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	*(u64 *)ri->data = ktime_get_ns();
	return 0;
}

static int mi_lat_compact_ret(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	u64 ns = ktime_get_ns() - *(u64 *)ri->data;

#ifndef MI_COMPACTSTALL_COUNTS_SKIPPED
	if ((enum compact_result)regs_return_value(regs) == COMPACT_SKIPPED)
		return 0;
#endif
	mi_lat_record(MI_LAT_DIRECT_COMPACTION, ns);
	return 0;
}

static struct kretprobe mi_lat_compact_rp = {
	.kp.symbol_name = "try_to_compact_pages",
	.entry_handler = mi_lat_compact_entry,
	.handler = mi_lat_compact_ret,
	.data_size = sizeof(u64),
};

static bool mi_lat_compact_attached;
/* the last arming's register_kretprobe() error; 1: never armed */
static int mi_lat_compact_err = 1;

static DEFINE_MUTEX(mi_lat_lock);	/* armed, attach and reset */
static bool mi_lat_armed;

/*
 * The begins first, then the ends: the mirror of mi_lat_attach(), so that a
 * stall in flight at the disarm can still end and be counted.  A slot left
 * by one whose end came too late is cleared by the next arming.
 */
static void mi_lat_detach(void)
{
	unsigned int i, pass;

	/* pass 0 the begins, pass 1 the ends */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < ARRAY_SIZE(mi_lat_tps); i++) {
			if (!mi_lat_tps[i].attached ||
			    mi_lat_tps[i].end != pass)
				continue;
			tracepoint_probe_unregister(mi_lat_tps[i].tp,
						    mi_lat_tps[i].probe, NULL);
			mi_lat_tps[i].attached = false;
		}
	/* no probe is running on any CPU past this */
	tracepoint_synchronize_unregister();
	if (mi_lat_compact_attached) {
		/* waits for handlers running now; nmissed stays readable */
		unregister_kretprobe(&mi_lat_compact_rp);
		mi_lat_compact_attached = false;
	}
	mi_lat_alloc_detach();
}

static void mi_lat_reset(void)
{
	unsigned int cpu, k;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&mi_lat_cpu, cpu), 0,
		       sizeof(struct mi_lat_cpu));
	memset(mi_lat_slots, 0, sizeof(mi_lat_slots));
	for (k = 0; k < MI_LAT_NR_KINDS; k++)
		atomic_long_set(&mi_lat_unpaired[k], 0);
	memset(mi_lat_stallers, 0, sizeof(mi_lat_stallers));
	atomic64_set(&mi_lat_over_events, 0);
	atomic64_set(&mi_lat_over_ns, 0);
	mi_lat_compact_rp.nmissed = 0;
}

/*
 * The ends first, then the begins (as allocs/ attaches the frees before the
 * allocations): a begin seen while armed then always has its end attached.
 * Begins first would let a task's begin fire before its end's probe is in,
 * leaving a slot whose start the task's next stall would be measured from.
 */
static int mi_lat_attach(void)
{
	unsigned int i, pass;
	int err;

	mi_lat_reset();
	/* pass 0 the ends, pass 1 the begins */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < ARRAY_SIZE(mi_lat_tps); i++) {
			if (!mi_lat_tps[i].tp || mi_lat_tps[i].end == pass)
				continue;
			err = tracepoint_probe_register(mi_lat_tps[i].tp,
							mi_lat_tps[i].probe,
							NULL);
			if (err) {
				pr_warn("cannot attach to %s: %d\n",
					mi_lat_tps[i].name, err);
				mi_lat_detach();
				return err;
			}
			mi_lat_tps[i].attached = true;
		}
	/*
	 * A kernel without the function (no CONFIG_COMPACTION) keeps the
	 * reclaim kinds: the error is kept for the capabilities row.
	 */
	mi_lat_compact_rp.kp.addr = NULL;
	mi_lat_compact_rp.kp.flags = 0;
	/* enough instances for a task in compaction on every CPU, twice */
	mi_lat_compact_rp.maxactive = max_t(int, 16, 2 * num_possible_cpus());
	WRITE_ONCE(mi_lat_compact_err, register_kretprobe(&mi_lat_compact_rp));
	mi_lat_compact_attached = !mi_lat_compact_err;
	err = mi_lat_alloc_attach();
	if (err)
		mi_lat_detach();
	return err;
}

static ssize_t mi_lat_armed_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	unsigned int want;
	int err;

	/* only "0" or "1" (a newline may follow); anything else changes nothing */
	err = kstrtouint_from_user(ubuf, count, 10, &want);
	if (err || want > 1)
		return -EINVAL;
	if (mutex_lock_killable(&mi_lat_lock))
		return -EINTR;
	if (want && !mi_lat_armed) {
		err = mi_lat_attach();
		if (!err)
			WRITE_ONCE(mi_lat_armed, true);
	} else if (!want && mi_lat_armed) {
		mi_lat_detach();
		WRITE_ONCE(mi_lat_armed, false);
	}
	mutex_unlock(&mi_lat_lock);
	return err ? err : count;
}

static ssize_t mi_lat_armed_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char buf[3];

	buf[0] = READ_ONCE(mi_lat_armed) ? '1' : '0';
	buf[1] = '\n';
	return simple_read_from_buffer(ubuf, count, ppos, buf, 2);
}

static const struct file_operations mi_lat_armed_fops = {
	.owner = THIS_MODULE,
	.read = mi_lat_armed_read,
	.write = mi_lat_armed_write,
	.llseek = default_llseek,
};

void mi_lat_hist_show(struct seq_file *m, const char *kind,
		      const struct mi_lat_hist *sum, long unpaired)
{
	unsigned int b;

	seq_printf(m, "%s %llu %llu %ld ", kind, sum->events, sum->sum_ns,
		   unpaired);
	for (b = 0; b < MI_LAT_BUCKETS; b++)
		seq_printf(m, "%s%llu", b ? "," : "", sum->buckets[b]);
	seq_putc(m, '\n');
}

/*
 * One line per kind: "kind events sum_ns unpaired b0,b1,...,b39" where bi
 * counts stalls of [2^i, 2^(i+1)) ns (docs/format.md), then the page
 * allocator's slow path by order.  The per-CPU sums are read without a
 * lock: a line may miss a stall that ends during the read.
 */
static int mi_lat_histograms_show(struct seq_file *m, void *unused)
{
	unsigned int cpu, k, b;

	seq_puts(m, "kind events sum_ns unpaired buckets\n");
	for (k = 0; k < MI_LAT_NR_KINDS; k++) {
		struct mi_lat_hist sum = {};

		for_each_possible_cpu(cpu) {
			const struct mi_lat_hist *h =
				&per_cpu_ptr(&mi_lat_cpu, cpu)->hist[k];

			sum.events += READ_ONCE(h->events);
			sum.sum_ns += READ_ONCE(h->sum_ns);
			for (b = 0; b < MI_LAT_BUCKETS; b++)
				sum.buckets[b] += READ_ONCE(h->buckets[b]);
		}
		mi_lat_hist_show(m, mi_lat_names[k], &sum,
				 k == MI_LAT_DIRECT_COMPACTION ?
				 (long)READ_ONCE(mi_lat_compact_rp.nmissed) :
				 atomic_long_read(&mi_lat_unpaired[k]));
	}
	mi_lat_alloc_hist_show(m);
	/*
	 * The errors of the arming in force, read without the lock: an arming
	 * or disarming holds it for seconds (unregistering an optimized
	 * kprobe waits for synchronize_rcu_tasks()), and readers must not
	 * wait on it.  A read during one may miss or show its note.
	 */
	if (READ_ONCE(mi_lat_armed)) {
		int err = READ_ONCE(mi_lat_compact_err);

		if (err)
			seq_printf(m, "# direct_compaction: not attached: register_kretprobe error %d\n",
				   err);
		mi_lat_alloc_note(m);
	}
	return 0;
}

MI_SHOW_OPEN(mi_lat_histograms)
static const struct file_operations mi_lat_histograms_fops =
	MI_SHOW_FOPS(mi_lat_histograms);

struct mi_lat_row {
	u64 stall_ns;
	u64 events;
	u64 cgroup;
	int pid;
	char comm[TASK_COMM_LEN];
};

static int mi_lat_row_cmp(const void *a, const void *b)
{
	const struct mi_lat_row *x = a, *y = b;

	if (x->stall_ns != y->stall_ns)
		return x->stall_ns < y->stall_ns ? 1 : -1;
	return x->pid - y->pid;
}

/*
 * "pid cgroup_id events stall_ns comm", longest total stall first (comm is
 * last: it may hold spaces), then "# overflow: ..." (docs/format.md).  Read
 * without a lock: an entry being claimed is left out until it is complete.
 */
static int mi_lat_stallers_show(struct seq_file *m, void *unused)
{
	struct mi_lat_row *rows;
	unsigned int i, n = 0;

	rows = kcalloc(MI_LAT_STALLERS, sizeof(*rows), GFP_KERNEL);
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < MI_LAT_STALLERS; i++) {
		struct mi_lat_staller *st = &mi_lat_stallers[i];

		/* pairs with the release in mi_lat_staller_add() */
		if (!smp_load_acquire(&st->ready))
			continue;
		rows[n].pid = atomic_read(&st->pid);
		rows[n].cgroup = st->cgroup;
		rows[n].events = atomic64_read(&st->events);
		rows[n].stall_ns = atomic64_read(&st->stall_ns);
		memcpy(rows[n].comm, st->comm, TASK_COMM_LEN);
		rows[n].comm[TASK_COMM_LEN - 1] = '\0';
		n++;
	}
	sort(rows, n, sizeof(*rows), mi_lat_row_cmp, NULL);
	seq_puts(m, "pid cgroup_id events stall_ns comm\n");
	for (i = 0; i < n; i++)
		seq_printf(m, "%d %llu %llu %llu %s\n", rows[i].pid,
			   rows[i].cgroup, rows[i].events, rows[i].stall_ns,
			   rows[i].comm);
	seq_printf(m, "# overflow: events %lld stall_ns %lld table %u\n",
		   (long long)atomic64_read(&mi_lat_over_events),
		   (long long)atomic64_read(&mi_lat_over_ns), MI_LAT_STALLERS);
	kfree(rows);
	return 0;
}

MI_SHOW_OPEN(mi_lat_stallers)
static const struct file_operations mi_lat_stallers_fops =
	MI_SHOW_FOPS(mi_lat_stallers);

MI_SHOW_OPEN(mi_lat_alloc_table)
static const struct file_operations mi_lat_alloc_table_fops =
	MI_SHOW_FOPS(mi_lat_alloc_table);

enum {
	MI_ROW_DIR, MI_ROW_RECLAIM, MI_ROW_MEMCG, MI_ROW_COMPACTION,
	MI_ROW_STALLERS, MI_ROW_PAGE_ALLOC, MI_NR_ROWS
};

static struct mi_cap mi_lat_caps[MI_NR_ROWS] = {
	/*
	 * a directory of a knob and one table: a mechanism row, as fault/ and
	 * allocs/ (meminspect report and export read latency/histograms by it)
	 */
	[MI_ROW_DIR] = { .name = "latency", .kind = MI_CAP_MECHANISM },
	[MI_ROW_RECLAIM] = { .name = "latency.direct_reclaim",
				 .kind = MI_CAP_FIELD },
	[MI_ROW_MEMCG] = { .name = "latency.memcg_reclaim",
			       .kind = MI_CAP_FIELD },
	[MI_ROW_COMPACTION] = { .name = "latency.direct_compaction",
				.kind = MI_CAP_FIELD },
	[MI_ROW_STALLERS] = { .name = "latency.stallers",
			      .kind = MI_CAP_FIELD },
	[MI_ROW_PAGE_ALLOC] = { .name = "latency.page_alloc",
				.kind = MI_CAP_FIELD },
};

static struct mi_cap_table mi_lat_table;
static struct dentry *mi_lat_dir;

static void mi_lat_cap(struct mi_cap *cap, unsigned int begin)
{
	bool ok = mi_lat_tps[begin].tp && mi_lat_tps[begin + 1].tp;

	mi_cap_set(cap, ok, ok ?
		   "tracepoints %s/%s, found with for_each_kernel_tracepoint(), paired per task" :
		   "tracepoint %s or %s not in this kernel",
		   mi_lat_tps[begin].name, mi_lat_tps[begin + 1].name);
}

int mi_latency_init(struct dentry *parent)
{
	for_each_kernel_tracepoint(mi_lat_find_tp, NULL);
	mi_cap_set(&mi_lat_caps[MI_ROW_DIR], true,
		   "directory latency/: knob armed, tables histograms, stallers and page_alloc, log2 (ns) histograms of reclaim and compaction stalls and of the page allocator's slow path by order (docs/latency.md)");
	mi_lat_cap(&mi_lat_caps[MI_ROW_RECLAIM], 0);
	mi_lat_cap(&mi_lat_caps[MI_ROW_MEMCG], 2);
	if (mi_ksyms_available() && !mi_ksym("try_to_compact_pages"))
		mi_cap_set(&mi_lat_caps[MI_ROW_COMPACTION], false,
			   "no try_to_compact_pages in this kernel (CONFIG_COMPACTION off)");
	else
		mi_cap_set(&mi_lat_caps[MI_ROW_COMPACTION], true,
			   "kretprobe on try_to_compact_pages, counted %s (the calls __alloc_pages_direct_compact() counts in compact_stall)",
#ifdef MI_COMPACTSTALL_COUNTS_SKIPPED
			   "on every return"
#else
			   "unless it returns COMPACT_SKIPPED"
#endif
			   );
	mi_cap_set(&mi_lat_caps[MI_ROW_STALLERS], true,
		   "table stallers: top %u stalled tasks over every kind, pid cgroup v2 id events stall_ns comm, preallocated, overflow counted",
		   MI_LAT_STALLERS);
	mi_lat_alloc_init(&mi_lat_caps[MI_ROW_PAGE_ALLOC]);
	mi_caps_register(&mi_lat_table, mi_lat_caps, MI_NR_ROWS);

	mi_lat_dir = debugfs_create_dir("latency", parent);
	if (IS_ERR(mi_lat_dir)) {
		mi_caps_unregister(&mi_lat_table);
		return PTR_ERR(mi_lat_dir);
	}
	debugfs_create_file("armed", 0600, mi_lat_dir, NULL,
			    &mi_lat_armed_fops);
	mi_mirror_add("latency/armed", &mi_lat_armed_fops, NULL, NULL,
		      MI_MIRROR_TRACES);
	debugfs_create_file("histograms", 0400, mi_lat_dir, NULL,
			    &mi_lat_histograms_fops);
	debugfs_create_file("stallers", 0400, mi_lat_dir, NULL,
			    &mi_lat_stallers_fops);
	debugfs_create_file("page_alloc", 0400, mi_lat_dir, NULL,
			    &mi_lat_alloc_table_fops);
	return 0;
}

/* After the debugfs tree is gone: no writer can arm again. */
void mi_latency_exit(void)
{
	mutex_lock(&mi_lat_lock);
	if (mi_lat_armed)
		mi_lat_detach();
	mi_lat_armed = false;
	mutex_unlock(&mi_lat_lock);
	mi_caps_unregister(&mi_lat_table);
}
