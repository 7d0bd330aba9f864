// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection (docs/fault.md): the log of injected failures.  The
 * probe handler (fault_probe.c) writes an entry with mi_fault_record() in
 * any context; the ring of MI_FAULT_LOG entries is preallocated, reset at
 * arming, and formatted only when read (`log`).  Verbose lines are printed
 * from a work item (queued through an irq_work, which the handler may
 * queue in any context), rate-limited.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "fault.h"
#include "lockdown.h"
#include "text.h"

#define MI_FAULT_LOG		64	/* entries kept by `log` */
/*
 * frames kept for verbose 2: the allocating code's, from the first outside
 * the allocator, enough to reach the system call or exception entry of a
 * page fault (7 frames on 6.1) or of a system call (5 for brk()).
 */
#define MI_FAULT_LOG_STACK	16
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

static struct {
	atomic_long_t seq;
	unsigned long printed;		/* last seq printed (work item only) */
	struct mi_fault_log_ent ent[MI_FAULT_LOG];
	struct irq_work irq_work;
	struct work_struct work;
} mi_fault_log;

void mi_fault_record(struct mi_fault_call *c)
{
	const unsigned long *frames;
	unsigned long seq = atomic_long_inc_return(&mi_fault_log.seq);
	struct mi_fault_log_ent *e = &mi_fault_log.ent[(seq - 1) % MI_FAULT_LOG];

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
	if (mi_fault_cfg.set.verbose >= 2) {
		/* the call's one unwind (fault_frames.c), not one of our own */
		e->nr_stack = min_t(unsigned int, MI_FAULT_LOG_STACK,
				    mi_fault_frames(c, &frames));
		memcpy(e->stack, frames, e->nr_stack * sizeof(e->stack[0]));
	}
	smp_wmb();		/* the fields before the seq that validates them */
	WRITE_ONCE(e->seq, seq);
	if (mi_fault_cfg.set.verbose && !(c->gfp & __GFP_NOWARN))
		irq_work_queue(&mi_fault_log.irq_work);
}

NOKPROBE_SYMBOL(mi_fault_record);

/* ---- the log, read side ------------------------------------------------ */

/* Copy entry @seq into @out; false if it was overwritten or is being written. */
static bool mi_fault_log_get(unsigned long seq, struct mi_fault_log_ent *out)
{
	const struct mi_fault_log_ent *e = &mi_fault_log.ent[(seq - 1) % MI_FAULT_LOG];

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
		e = &mi_fault_log.ent[i];
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
	unsigned long last = atomic_long_read(&mi_fault_log.seq);
	struct mi_fault_log_ent e;
	unsigned long seq;
	unsigned int i;

	seq = mi_fault_log.printed + 1;
	if (last > MI_FAULT_LOG && seq < last - MI_FAULT_LOG + 1)
		seq = last - MI_FAULT_LOG + 1;
	for (; seq <= last; seq++) {
		if (!mi_fault_log_get(seq, &e) || (e.gfp & __GFP_NOWARN))
			continue;
		if (!__ratelimit(&rs))
			continue;
		pr_info("fault: injected %s failure #%lu: pid %d comm %s size %lu order %d gfp 0x%x caller %pS\n",
			mi_fault_site_names[e.site], seq, e.pid, e.comm, e.size,
			e.order, (__force unsigned int)e.gfp,
			(void *)e.caller);
		for (i = 0; i < e.nr_stack; i++)
			pr_info("fault:   %pS\n", (void *)e.stack[i]);
	}
	mi_fault_log.printed = last;
}

static void mi_fault_irq_work(struct irq_work *work)
{
	schedule_work(&mi_fault_log.work);
}

/* At arming, before the probes are registered: no writer. */
void mi_fault_log_reset(void)
{
	atomic_long_set(&mi_fault_log.seq, 0);
	mi_fault_log.printed = 0;
	memset(mi_fault_log.ent, 0, sizeof(mi_fault_log.ent));
}

/* Stop printing: no irq_work or work item left running. */
void mi_fault_log_quiesce(void)
{
	irq_work_sync(&mi_fault_log.irq_work);
	cancel_work_sync(&mi_fault_log.work);
}

void mi_fault_log_init(void)
{
	init_irq_work(&mi_fault_log.irq_work, mi_fault_irq_work);
	INIT_WORK(&mi_fault_log.work, mi_fault_print_work);
}

static int mi_fault_log_show(struct seq_file *m, void *unused)
{
	unsigned long last = atomic_long_read(&mi_fault_log.seq);
	bool hide = mi_lockdown_hides_addresses();
	struct mi_fault_log_ent e;
	unsigned long seq;

	seq_puts(m, "seq site pid comm size order gfp caller\n");
	seq = last > MI_FAULT_LOG ? last - MI_FAULT_LOG + 1 : 1;
	for (; seq <= last; seq++) {
		if (!mi_fault_log_get(seq, &e))
			continue;
		seq_printf(m, "%lu %s ", seq, mi_fault_site_names[e.site]);
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
		seq_printf(m, " 0x%x", (__force unsigned int)e.gfp);
		if (e.caller_sym[0])
			seq_printf(m, " %s", e.caller_sym);
		else
			mi_put_code(m, " ", e.caller, hide);
		seq_putc(m, '\n');
	}
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(mi_fault_log);

/* `log`, in @dir; removed with @dir. */
int mi_fault_log_create(struct dentry *dir)
{
	struct dentry *file;

	file = debugfs_create_file("log", 0400, dir, NULL, &mi_fault_log_fops);
	return PTR_ERR_OR_ZERO(file);
}
