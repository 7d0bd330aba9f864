// SPDX-License-Identifier: GPL-2.0
/*
 * latency/page_alloc and the page_alloc_slow_order_N lines of
 * latency/histograms: every page allocation counted by order and path,
 * and the slow path timed (docs/latency.md).
 *
 * The fast path must stay near free, so it is only counted: a probe on the
 * mm_page_alloc tracepoint (not exported: found with
 * for_each_kernel_tracepoint()), which __alloc_pages() (5.10's
 * __alloc_pages_nodemask(), 6.10's __alloc_pages_noprof(), 6.15's
 * __alloc_frozen_pages_noprof()) fires once per call with the page (NULL on
 * failure) and the order, whichever path found the page.  The slow path is
 * timed by a kretprobe on __alloc_pages_slowpath() (GCC's clone
 * __alloc_pages_slowpath.constprop.0 on Debian's builds): the entry handler
 * keeps the start time in the instance, the return handler leaves the
 * time and the returned page in a pending slot of the task, and the
 * tracepoint that follows in the same call takes it, with the order.  An
 * allocation nested between the two (the memcg charge may reclaim) names
 * another page and is counted as fast; a failed charge frees the page and
 * the tracepoint sees NULL: still this call's slow path.
 *
 * The slots are keyed by task and context (an interrupt's allocation is not
 * its interrupted task's), claimed with cmpxchg and freed by the task that
 * claimed them; the probes never allocate, never print and never sleep.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/mm_types.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "buddy.h"
#include "ksyms.h"
#include "latency_priv.h"

#define MI_LAT_PENDING_BITS	8

struct mi_lat_alloc_cpu {
	u64 fast[MI_NR_ORDERS];		/* a page, without the slow path */
	u64 failed[MI_NR_ORDERS];	/* no page, after the slow path */
	struct mi_lat_hist slow[MI_NR_ORDERS];
};

static DEFINE_PER_CPU(struct mi_lat_alloc_cpu, mi_lat_alloc_cpu);

/* A slow path that returned, waiting for its call's tracepoint. */
struct mi_lat_pending {
	unsigned long key;	/* mi_lat_key() of the claimer; 0: free */
	struct page *page;
	u64 ns;
};

static struct mi_lat_pending mi_lat_pending[1 << MI_LAT_PENDING_BITS];
/*
 * Slots taken: while 0 (nearly always: a slot lives from a slow path's
 * return to its tracepoint), the fast path reads this one word and no slot.
 */
static atomic_t mi_lat_pending_nr;
/* returns that found their slot taken by another task: not timed */
static atomic_long_t mi_lat_alloc_unpaired;

static struct tracepoint *mi_lat_alloc_tp;
static bool mi_lat_alloc_tp_attached;
static const char *mi_lat_slow_sym;
static int mi_lat_slow_err = 1;	/* the last register_kretprobe(); 1: never */

/*
 * The task and its context: task_structs are aligned, so the low bits say
 * task (0), softirq (1) or hardirq (2) context.
 */
static unsigned long mi_lat_key(void)
{
	unsigned long ctx = in_task() ? 0 : hardirq_count() ? 2 : 1;

	return (unsigned long)current | ctx;
}

static struct mi_lat_pending *mi_lat_slot(unsigned long key)
{
	return &mi_lat_pending[hash_long(key, MI_LAT_PENDING_BITS)];
}

static void mi_lat_alloc_tp_probe(void *data, struct page *page,
				  unsigned int order, gfp_t gfp, int migratetype)
{
	unsigned long key;
	struct mi_lat_pending *p;

	if (unlikely(order >= MI_NR_ORDERS))
		return;
	if (likely(!atomic_read(&mi_lat_pending_nr)))
		goto fast;
	key = mi_lat_key();
	p = mi_lat_slot(key);
	if (READ_ONCE(p->key) == key && (!page || p->page == page)) {
		/* only this task (in this context) writes its own slot */
		u64 ns = p->ns;

		/*
		 * release: the reads of ns and page are done before another
		 * task's cmpxchg can claim the slot and rewrite them
		 */
		smp_store_release(&p->key, 0);
		atomic_dec(&mi_lat_pending_nr);
		this_cpu_inc(mi_lat_alloc_cpu.slow[order].events);
		this_cpu_add(mi_lat_alloc_cpu.slow[order].sum_ns, ns);
		this_cpu_inc(mi_lat_alloc_cpu.slow[order].buckets[mi_lat_bucket(ns)]);
		if (!page)
			this_cpu_inc(mi_lat_alloc_cpu.failed[order]);
		return;
	}
fast:
	if (likely(page))
		this_cpu_inc(mi_lat_alloc_cpu.fast[order]);
	else
		this_cpu_inc(mi_lat_alloc_cpu.failed[order]);
}

static int mi_lat_slow_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	*(u64 *)ri->data = ktime_get_ns();
	return 0;
}

static int mi_lat_slow_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long key = mi_lat_key();
	struct mi_lat_pending *p = mi_lat_slot(key);
	u64 ns = ktime_get_ns() - *(u64 *)ri->data;

	if (READ_ONCE(p->key) == key) {
		/* ours, left by a call whose tracepoint did not take it */
		atomic_long_inc(&mi_lat_alloc_unpaired);
	} else if (!cmpxchg(&p->key, 0, key)) {
		atomic_inc(&mi_lat_pending_nr);
	} else {
		/* another task's, between its return and its tracepoint */
		atomic_long_inc(&mi_lat_alloc_unpaired);
		return 0;
	}
	p->page = (struct page *)regs_return_value(regs);
	p->ns = ns;
	return 0;
}

static struct kretprobe mi_lat_slow_rp = {
	.entry_handler = mi_lat_slow_entry,
	.handler = mi_lat_slow_ret,
	.data_size = sizeof(u64),
};

void mi_lat_alloc_find_tp(struct tracepoint *tp)
{
	if (!strcmp(tp->name, "mm_page_alloc"))
		mi_lat_alloc_tp = tp;
}

/* The slow path's name in kallsyms: GCC may have cloned it. */
static const char *const mi_lat_slow_names[] = {
	"__alloc_pages_slowpath",
	"__alloc_pages_slowpath.constprop.0",
	"__alloc_pages_slowpath.isra.0",
};

void mi_lat_alloc_init(struct mi_cap *cap)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mi_lat_slow_names) && !mi_lat_slow_sym; i++)
		if (mi_ksym(mi_lat_slow_names[i]))
			mi_lat_slow_sym = mi_lat_slow_names[i];
	if (!mi_lat_alloc_tp)
		mi_cap_set(cap, false, "tracepoint mm_page_alloc not in this kernel");
	else if (!mi_ksyms_available())
		mi_cap_set(cap, false,
			   "allocations counted by order (tracepoint mm_page_alloc), but the slow path cannot be found: ksyms is unavailable");
	else if (!mi_lat_slow_sym)
		mi_cap_set(cap, false,
			   "allocations counted by order (tracepoint mm_page_alloc), but no __alloc_pages_slowpath in kallsyms (inlined): no slow path");
	else
		mi_cap_set(cap, true,
			   "table page_alloc: allocations by order, fast (tracepoint mm_page_alloc) and slow (kretprobe on %s, timed), histograms page_alloc_slow_order_N",
			   mi_lat_slow_sym);
}

static void mi_lat_alloc_reset(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&mi_lat_alloc_cpu, cpu), 0,
		       sizeof(struct mi_lat_alloc_cpu));
	memset(mi_lat_pending, 0, sizeof(mi_lat_pending));
	atomic_set(&mi_lat_pending_nr, 0);
	atomic_long_set(&mi_lat_alloc_unpaired, 0);
	mi_lat_slow_rp.nmissed = 0;
}

/*
 * The tracepoint first, so that every slow path timed has its tracepoint;
 * a kretprobe that cannot be registered leaves the counts by order (its
 * error is noted in the table).
 */
int mi_lat_alloc_attach(void)
{
	int err;

	mi_lat_alloc_reset();
	if (!mi_lat_alloc_tp)
		return 0;
	err = tracepoint_probe_register(mi_lat_alloc_tp, mi_lat_alloc_tp_probe,
					NULL);
	if (err) {
		pr_warn("cannot attach to mm_page_alloc: %d\n", err);
		return err;
	}
	WRITE_ONCE(mi_lat_alloc_tp_attached, true);
	if (!mi_lat_slow_sym)
		return 0;
	memset(&mi_lat_slow_rp.kp, 0, sizeof(mi_lat_slow_rp.kp));
	mi_lat_slow_rp.kp.symbol_name = mi_lat_slow_sym;
	/* tasks sleep in the slow path (reclaim): many at once */
	mi_lat_slow_rp.maxactive = max_t(int, 64, 4 * num_possible_cpus());
	err = register_kretprobe(&mi_lat_slow_rp);
	WRITE_ONCE(mi_lat_slow_err, err);
	if (err)
		pr_warn("cannot attach to %s: %d\n", mi_lat_slow_sym, err);
	return 0;
}

/* The kretprobe first: a return past this point finds no tracepoint. */
void mi_lat_alloc_detach(void)
{
	if (!mi_lat_slow_err) {
		/* waits for handlers running now; nmissed stays readable */
		unregister_kretprobe(&mi_lat_slow_rp);
		WRITE_ONCE(mi_lat_slow_err, 1);
	}
	if (mi_lat_alloc_tp_attached) {
		tracepoint_probe_unregister(mi_lat_alloc_tp,
					    mi_lat_alloc_tp_probe, NULL);
		tracepoint_synchronize_unregister();
		WRITE_ONCE(mi_lat_alloc_tp_attached, false);
	}
}

static void mi_lat_alloc_sum(struct mi_lat_alloc_cpu *sum)
{
	unsigned int cpu, o, b;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct mi_lat_alloc_cpu *c = per_cpu_ptr(&mi_lat_alloc_cpu, cpu);

		for (o = 0; o < MI_NR_ORDERS; o++) {
			sum->fast[o] += READ_ONCE(c->fast[o]);
			sum->failed[o] += READ_ONCE(c->failed[o]);
			sum->slow[o].events += READ_ONCE(c->slow[o].events);
			sum->slow[o].sum_ns += READ_ONCE(c->slow[o].sum_ns);
			for (b = 0; b < MI_LAT_BUCKETS; b++)
				sum->slow[o].buckets[b] +=
					READ_ONCE(c->slow[o].buckets[b]);
		}
	}
}

/*
 * page_alloc_slow_order_N lines; unpaired (on order 0's line, as the order
 * of a return that was not paired is unknown): kretprobe misses and
 * returns that found their slot taken.
 */
void mi_lat_alloc_hist_show(struct seq_file *m)
{
	struct mi_lat_alloc_cpu *sum;
	char kind[32];
	unsigned int o;
	long unpaired;

	sum = kmalloc(sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return;
	mi_lat_alloc_sum(sum);
	unpaired = atomic_long_read(&mi_lat_alloc_unpaired) +
		   READ_ONCE(mi_lat_slow_rp.nmissed);
	for (o = 0; o < MI_NR_ORDERS; o++) {
		snprintf(kind, sizeof(kind), "page_alloc_slow_order_%u", o);
		mi_lat_hist_show(m, kind, &sum->slow[o], o ? 0 : unpaired);
	}
	kfree(sum);
}

/* While armed: why the slow path is not timed, if it is not (lockless). */
void mi_lat_alloc_note(struct seq_file *m)
{
	int err = READ_ONCE(mi_lat_slow_err);

	if (READ_ONCE(mi_lat_alloc_tp_attached) && mi_lat_slow_sym && err < 0)
		seq_printf(m, "# page_alloc: slow path not attached: register_kretprobe(%s) error %d\n",
			   mi_lat_slow_sym, err);
}

/*
 * "order fast slow failed": allocations of each order since arming that
 * found their page on the fast path, that went through the slow path, and
 * that returned no page (docs/format.md).
 */
int mi_lat_alloc_table_show(struct seq_file *m, void *unused)
{
	struct mi_lat_alloc_cpu *sum;
	unsigned int o;

	sum = kmalloc(sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	mi_lat_alloc_sum(sum);
	seq_puts(m, "order fast slow failed\n");
	for (o = 0; o < MI_NR_ORDERS; o++)
		seq_printf(m, "%u %llu %llu %llu\n", o, sum->fast[o],
			   sum->slow[o].events, sum->failed[o]);
	kfree(sum);
	return 0;
}
