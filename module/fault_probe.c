// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: the allocation entry points and the probe handler
 * (mechanism rows "fault.slab" and "fault.pages" in capabilities).
 *
 * Debian's kernels have no CONFIG_FAULT_INJECTION, and from 6.11 not even
 * the should_failslab()/should_fail_alloc_page() hook functions, so a
 * kprobe sits at the entry of each exported allocation function instead.
 * Every entry point of every supported kernel is in one table, with the
 * argument that holds the cache, the size, the gfp mask and the order
 * (the argument's index, read with regs_get_kernel_argument(): x86-64's
 * di, si, dx, cx, r8, r9; arm64's x0..x7); names the running kernel lacks
 * are skipped.  On x86-64 a probe at a function entry is ftrace-based
 * (KPROBES_ON_FTRACE, set on every Debian amd64 kernel), and the ftrace path
 * honours a changed regs->ip; arm64 has no KPROBES_ON_FTRACE, its probe is a
 * BRK whose exception return honours a changed pc.  To fail a call, the
 * handler sets the return register to 0 (regs_set_return_value()) and the
 * instruction pointer to mi_fault_ret_null(), whose return goes back to the
 * caller with NULL, and returns 1, so the allocator is never entered.  A
 * post handler keeps an x86 probe from being optimised into a jump, which
 * would not honour regs->ip (arm64 has no optimised kprobes).
 *
 * The handler runs with preemption off, possibly in IRQ or NMI context,
 * inside any allocation: it allocates nothing, prints nothing, sleeps
 * never and takes no lock; counters are per-CPU, the log is a
 * preallocated ring (fault.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "capabilities.h"
#include "compat.h"
#include "fault.h"
#include "ksyms.h"

/* NA: no such argument.  MI_KMALLOC_{BUCKET,TOKEN}_ARGS: compat.h. */
#define NA	(-1)

struct mi_fault_ep {
	const char *name;
	enum mi_fault_site site;
	s8 cache, size, gfp, order;	/* argument index, NA: none */
	bool large;		/* the large kmalloc path: may be tail-called */
};

/*
 * One allocation call is one failure point: an entry point called by
 * another probed one (__kmalloc() passing a large size to
 * kmalloc_order_trace() on 5.10, __kmalloc_noprof() to
 * __kmalloc_large_node_noprof() from 6.10, kvmalloc's kmalloc, a large
 * kmalloc's page allocation) is part of the outer call, which alone is
 * checked, counted and failed (mi_fault_in_entry_point(), and
 * fault_frames.c's mi_fault_nested() past the page allocator's wrappers).
 */
static const struct mi_fault_ep mi_fault_eps[] = {
	/* slab, up to 6.9 */
	{ "kmem_cache_alloc", MI_SITE_SLAB, 0, NA, 1, NA },
	{ "kmem_cache_alloc_node", MI_SITE_SLAB, 0, NA, 1, NA },
	{ "kmem_cache_alloc_lru", MI_SITE_SLAB, 0, NA, 2, NA },		/* 6.0 */
	{ "kmem_cache_alloc_trace", MI_SITE_SLAB, 0, 2, 1, NA },	/* to 6.0 */
	{ "kmem_cache_alloc_node_trace", MI_SITE_SLAB, 0, 3, 1, NA },	/* to 6.0 */
	{ "kmalloc_trace", MI_SITE_SLAB, 0, 2, 1, NA },			/* 6.1 */
	{ "kmalloc_node_trace", MI_SITE_SLAB, 0, 3, 1, NA },		/* 6.1 */
	{ "__kmalloc", MI_SITE_SLAB, NA, 0, 1, NA },
	{ "__kmalloc_node", MI_SITE_SLAB, NA, 0, 1, NA },
	{ "__kmalloc_track_caller", MI_SITE_SLAB, NA, 0, 1, NA },	/* to 6.0 */
	{ "__kmalloc_node_track_caller", MI_SITE_SLAB, NA, 0, 1, NA },
	{ "kmalloc_large", MI_SITE_SLAB, NA, 0, 1, NA, .large = true },		/* 6.1 */
	{ "kmalloc_large_node", MI_SITE_SLAB, NA, 0, 1, NA, .large = true },		/* 6.1 */
	/* large kmallocs, to 6.0: kmalloc() of a constant large size */
	{ "kmalloc_order_trace", MI_SITE_SLAB, NA, 0, 1, NA, .large = true },
	{ "kmalloc_order", MI_SITE_SLAB, NA, 0, 1, NA, .large = true },
	{ "kvmalloc_node", MI_SITE_SLAB, NA, 0, 1, NA },		/* to 6.9 */
	/* slab, 6.10 on: "mm/slab: enable slab allocation tagging" */
	{ "kmem_cache_alloc_noprof", MI_SITE_SLAB, 0, NA, 1, NA },
	{ "kmem_cache_alloc_lru_noprof", MI_SITE_SLAB, 0, NA, 2, NA },
	{ "kmem_cache_alloc_node_noprof", MI_SITE_SLAB, 0, NA, 1, NA },
	{ "__kmalloc_noprof", MI_SITE_SLAB, NA, 0, 1 + MI_KMALLOC_TOKEN_ARGS, NA },
	{ "__kmalloc_node_noprof", MI_SITE_SLAB, NA, 0,
	  1 + MI_KMALLOC_BUCKET_ARGS + MI_KMALLOC_TOKEN_ARGS, NA },
	{ "__kmalloc_node_track_caller_noprof", MI_SITE_SLAB, NA, 0,
	  1 + MI_KMALLOC_BUCKET_ARGS + MI_KMALLOC_TOKEN_ARGS, NA },
	{ "__kmalloc_cache_noprof", MI_SITE_SLAB, 0, 2, 1, NA },
	{ "__kmalloc_cache_node_noprof", MI_SITE_SLAB, 0, 3, 1, NA },
	{ "__kmalloc_large_noprof", MI_SITE_SLAB, NA, 0, 1, NA, .large = true },
	{ "__kmalloc_large_node_noprof", MI_SITE_SLAB, NA, 0, 1, NA, .large = true },
	{ "__kvmalloc_node_noprof", MI_SITE_SLAB, NA, 0, MI_KVMALLOC_GFP_ARG, NA },
	/*
	 * pages: the one function every alloc_pages() variant reaches, the
	 * first of these the kernel has (each later one calls the earlier):
	 * "mm/page_alloc: add __alloc_frozen_pages()" (v6.14) made frozen
	 * pages the inner function, which slab calls directly.
	 */
	{ "__alloc_frozen_pages_noprof", MI_SITE_PAGES, NA, NA, 0, 1 },
	{ "__alloc_pages_noprof", MI_SITE_PAGES, NA, NA, 0, 1 },	/* 6.10 */
	{ "__alloc_pages", MI_SITE_PAGES, NA, NA, 0, 1 },		/* 5.13 */
	{ "__alloc_pages_nodemask", MI_SITE_PAGES, NA, NA, 0, 1 },	/* to 5.12 */
};

/*
 * kmalloc_large() and kmalloc_large_node() are entry points only where
 * kmalloc_trace() is ("mm/slab_common: unify NUMA and UMA version of
 * tracepoints", v6.1); before, 5.10's static kmalloc_large_node() is called
 * by __kmalloc_node() and would see its large calls a second time.
 */
static bool mi_fault_ep_wanted(unsigned int i, const bool *present)
{
	const char *name = mi_fault_eps[i].name;
	unsigned int j;

	if (!strcmp(name, "kmalloc_large") ||
	    !strcmp(name, "kmalloc_large_node")) {
		for (j = 0; j < ARRAY_SIZE(mi_fault_eps); j++)
			if (!strcmp(mi_fault_eps[j].name, "kmalloc_trace"))
				return present[j];
		return false;
	}
	if (mi_fault_eps[i].site == MI_SITE_PAGES) {
		for (j = 0; j < i; j++)
			if (mi_fault_eps[j].site == MI_SITE_PAGES && present[j])
				return false;
	}
	return true;
}

#define MI_NR_EPS	ARRAY_SIZE(mi_fault_eps)

static struct mi_fault_probe {
	struct kprobe kp;
	bool present;		/* the running kernel has the symbol */
	bool registered;
	int err;		/* of the last arming's register_kprobe() */
	struct mi_code_range range;	/* its code; 0, 0 if unknown */
} mi_fault_probes[MI_NR_EPS];

/*
 * A kmalloc entry point called with a size past the kmalloc caches, on
 * this CPU, last: its task, stack pointer and return address at the entry.
 * 5.10's __kmalloc() and __kmalloc_track_caller() pass such a size on to
 * kmalloc_order_trace() by a tail call (kmalloc_large() is inline there),
 * so the inner entry has the same return address and stack pointer as the
 * outer one, and its direct caller is not __kmalloc().  A large path entry
 * that finds them here is the rest of that call; one with a caller and
 * stack pointer of its own is a kmalloc() of a constant large size, made
 * directly.  Per CPU: the two hits are a few instructions apart, with the
 * handler's preemption off at each (a migration in between would make the
 * inner one a point of its own).
 */
struct mi_fault_tail {
	const struct task_struct *task;
	unsigned long sp, caller;
};

static DEFINE_PER_CPU(struct mi_fault_tail, mi_fault_tail);

/* Is this call of @ep the tail of the last large kmalloc on this CPU? */
static bool mi_fault_tail_call(const struct mi_fault_ep *ep,
			       const struct mi_fault_call *c,
			       struct pt_regs *regs)
{
	struct mi_fault_tail *t = this_cpu_ptr(&mi_fault_tail);
	unsigned long sp = kernel_stack_pointer(regs);

	if (ep->large) {
		if (t->task != current || t->sp != sp || t->caller != c->caller)
			return false;
		t->task = NULL;
		return true;
	}
	if (ep->site == MI_SITE_SLAB && ep->size != NA &&
	    c->size > KMALLOC_MAX_CACHE_SIZE) {
		t->task = current;
		t->sp = sp;
		t->caller = c->caller;
	}
	return false;
}

NOKPROBE_SYMBOL(mi_fault_tail_call);

/*
 * The code of the entry points being armed or armed, for
 * mi_fault_in_entry_point(): filled before their probes are registered
 * (each probe sees the calls of the others as nested from its first hit),
 * packed again after with those that were registered, emptied when they
 * are unregistered.  The handler reads the count once, then the ranges.
 */
static struct mi_code_range mi_ep_ranges[MI_NR_EPS];
static unsigned int mi_nr_ep_ranges;

/*
 * For the selftests (test_fault_knobs.sh): an entry point whose
 * register_kprobe() is taken as failed (-EBUSY), so that the stats note of
 * an entry point that did not attach can be checked; no real failure can
 * be made on demand.  Empty (the default): every one is registered.
 */
static char *fault_refuse_ep = "";
module_param(fault_refuse_ep, charp, 0400);
MODULE_PARM_DESC(fault_refuse_ep,
		 "tests only: arming takes register_kprobe() of this fault entry point as failed");

/* the registered probes, for the one unregister_kprobes() call */
static struct kprobe *mi_fault_kps[MI_NR_EPS];

static bool mi_site_attached[MI_NR_SITES];

/*
 * The task arming or disarming: the probes registered first are live while
 * the others are registered (and while disarming), and what kprobes and
 * ftrace allocate then must not be failed even if that task is aimed.
 * mi_fault_force: fail the owner's next allocation, see mi_fault_verify().
 */
static struct task_struct *mi_fault_owner;
static bool mi_fault_force;
static const char *mi_fault_force_hit;

static const char *const mi_site_names[MI_NR_SITES] = {
	[MI_SITE_SLAB] = "slab",
	[MI_SITE_PAGES] = "pages",
};

unsigned int mi_fault_max_order(void)
{
	return ARRAY_SIZE(((struct zone *)NULL)->free_area) - 1;
}

/*
 * The stub a failed call "returns" through: entered by the ftrace return
 * (x86-64) with the entry point's own return address on the stack, or by
 * the BRK exception's return (arm64) with it still in the link register, so
 * its return goes back to the allocating code with NULL.
 */
static noinline void *mi_fault_ret_null(void)
{
	return NULL;
}

NOKPROBE_SYMBOL(mi_fault_ret_null);

/* Argument @n (0-based) of the probed function, at its entry; 0 for NA. */
static unsigned long mi_arg(struct pt_regs *regs, int n)
{
	if (n < 0 || n >= MI_NR_REG_ARGS)
		return 0;
	return regs_get_kernel_argument(regs, n);
}

NOKPROBE_SYMBOL(mi_arg);

bool mi_fault_in_entry_point(unsigned long addr)
{
	return mi_code_ranges_hold(mi_ep_ranges, READ_ONCE(mi_nr_ep_ranges),
				   addr);
}

NOKPROBE_SYMBOL(mi_fault_in_entry_point);

/* Pack the ranges of the entry points of @sites (@all) or the registered. */
static void mi_fault_ep_ranges_fill(unsigned int sites, bool all)
{
	unsigned int i, n = 0;

	WRITE_ONCE(mi_nr_ep_ranges, 0);
	/* handlers that read the old count have their ranges until here */
	synchronize_rcu();
	for (i = 0; i < MI_NR_EPS; i++) {
		struct mi_fault_probe *p = &mi_fault_probes[i];

		if (!(sites & (1U << mi_fault_eps[i].site)) || !p->range.end)
			continue;
		if (all ? p->present : p->registered)
			mi_ep_ranges[n++] = p->range;
	}
	smp_wmb();	/* the ranges before the count that covers them */
	WRITE_ONCE(mi_nr_ep_ranges, n);
}

static int mi_fault_pre(struct kprobe *kp, struct pt_regs *regs)
{
	const struct mi_fault_ep *ep;
	struct mi_fault_call c;
	unsigned int order;

	/*
	 * Disarming, disarmed with the probes lingering, or the duration is
	 * over: not even counted.  Acquire: pairs with arming's release, after
	 * which mi_fault_cfg is complete.
	 */
	if (smp_load_acquire(&mi_fault_stopped))
		return 0;
	ep = &mi_fault_eps[container_of(kp, struct mi_fault_probe, kp) -
			   mi_fault_probes];
	c.site = ep->site;
	c.caller = mi_entry_caller(regs);
	c.regs_ip = instruction_pointer(regs);
	c.nframes = -1;
	c.frames = NULL;
	c.nested = false;
	c.gfp = (__force gfp_t)(unsigned int)mi_arg(regs, ep->gfp);
	c.cache = ep->cache == NA ? NULL : (void *)mi_arg(regs, ep->cache);
	c.order = -1;
	c.size = 0;
	if (ep->order != NA) {
		order = mi_arg(regs, ep->order);
		c.order = order;
		if (order < BITS_PER_LONG - PAGE_SHIFT)
			c.size = PAGE_SIZE << order;
	} else if (ep->size != NA) {
		c.size = mi_arg(regs, ep->size);
	} else if (c.cache) {
		c.size = kmem_cache_size((struct kmem_cache *)c.cache);
	}

	/* the arming or disarming task: never failed, except to verify */
	if (unlikely(READ_ONCE(mi_fault_owner) == current) && in_task()) {
		if (!READ_ONCE(mi_fault_force))
			return 0;
		/* arming's own verifying allocation: fail it, count nothing */
		WRITE_ONCE(mi_fault_force, false);
		WRITE_ONCE(mi_fault_force_hit, ep->name);
		goto fail;
	}

	/* made by another probed entry point: part of that one's call */
	if (mi_fault_in_entry_point(c.caller) || mi_fault_tail_call(ep, &c, regs))
		return 0;
	mi_fault_count(c.site, MI_CNT_CHECKED);
	/*
	 * kmalloc(0) returns ZERO_SIZE_PTR, never NULL, however short of
	 * memory the kernel is (mm/slab_common.c): callers need not check it,
	 * so a NULL from here would be a failure the kernel never makes.
	 */
	if (c.site == MI_SITE_SLAB && ep->size != NA && !c.size)
		return 0;
	/*
	 * The aims first: they reject most calls (an arming aims at
	 * something), and their first checks are single compares, cheaper
	 * than within_module()'s walk of the module's memory ranges.
	 */
	if (!mi_fault_aim_match(&mi_fault_cfg, &c))
		return 0;
	/* never fail the module's own allocations */
	if (within_module(c.caller, THIS_MODULE))
		return 0;
	/*
	 * The pages of a large kmalloc, through the page allocator's wrappers:
	 * an unwind, so after the aims, which turn most calls away.
	 */
	if (c.site == MI_SITE_PAGES && mi_fault_site_attached(MI_SITE_SLAB) &&
	    mi_fault_nested(&c))
		return 0;
	mi_fault_count(c.site, MI_CNT_MATCHED);
	if (c.gfp & __GFP_NOFAIL) {
		mi_fault_count(c.site, MI_CNT_NOFAIL);
		return 0;
	}
	/* the decision, and the callers that are spared (fault.c) */
	if (!mi_fault_should_fail(&c))
		return 0;
	mi_fault_count(c.site, MI_CNT_FAILED);
	/* the log names the allocating code, not an allocator wrapper */
	c.caller = mi_fault_alloc_caller(&c);
	mi_fault_record(&c);
fail:
	regs_set_return_value(regs, 0);
	instruction_pointer_set(regs, (unsigned long)mi_fault_ret_null);
	return 1;
}

NOKPROBE_SYMBOL(mi_fault_pre);

/* Never called for a failed call; its presence keeps the probe unoptimised. */
static void mi_fault_post(struct kprobe *kp, struct pt_regs *regs,
			  unsigned long flags)
{
}

NOKPROBE_SYMBOL(mi_fault_post);

/* The current task arms or disarms (@owner), or has finished (!@owner). */
void mi_fault_set_owner(bool owner)
{
	WRITE_ONCE(mi_fault_owner, owner ? current : NULL);
}

bool mi_fault_site_attached(enum mi_fault_site site)
{
	return READ_ONCE(mi_site_attached[site]);
}

/*
 * `stats` notes: one line per entry point the last arming could not probe
 * (its site is attached without it).  Under fault.c's lock.
 */
void mi_fault_show_unprobed(struct seq_file *m)
{
	unsigned int i;

	for (i = 0; i < MI_NR_EPS; i++)
		if (mi_fault_probes[i].err)
			seq_printf(m, "# %s: entry point %s not attached: register_kprobe error %d\n",
				   mi_site_names[mi_fault_eps[i].site],
				   mi_fault_eps[i].name, mi_fault_probes[i].err);
}

void mi_fault_probes_unregister(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < MI_NR_EPS; i++) {
		if (!mi_fault_probes[i].registered)
			continue;
		mi_fault_kps[n++] = &mi_fault_probes[i].kp;
		mi_fault_probes[i].registered = false;
	}
	/*
	 * One call: it disarms them all, then waits once for the handlers
	 * running on other CPUs (one RCU grace period, not one per probe).
	 */
	if (n)
		unregister_kprobes(mi_fault_kps, n);
	for (i = 0; i < MI_NR_SITES; i++)
		WRITE_ONCE(mi_site_attached[i], false);
	WRITE_ONCE(mi_nr_ep_ranges, 0);
}

/*
 * Attach every present entry point of @sites.  A name that cannot be
 * probed is skipped; a site with no probe at all fails the whole call
 * (-EOPNOTSUPP, @why says which).
 */
int mi_fault_probes_register(unsigned int sites, char *why, size_t len)
{
	unsigned int i, n[MI_NR_SITES] = { 0 };
	int err, last[MI_NR_SITES] = { 0 };
	enum mi_fault_site s;

	mi_fault_ep_ranges_fill(sites, true);
	for (i = 0; i < MI_NR_EPS; i++) {
		struct mi_fault_probe *p = &mi_fault_probes[i];

		s = mi_fault_eps[i].site;
		p->err = 0;
		if (!(sites & (1U << s)) || !p->present)
			continue;
		memset(&p->kp, 0, sizeof(p->kp));
		p->kp.symbol_name = mi_fault_eps[i].name;
		p->kp.pre_handler = mi_fault_pre;
		p->kp.post_handler = mi_fault_post;
		if (!strcmp(fault_refuse_ep, mi_fault_eps[i].name))
			err = -EBUSY;
		else
			err = register_kprobe(&p->kp);
		if (err) {
			/* the site works without it, but not fully: stats says so */
			pr_warn("fault: arming: register_kprobe(%s): %d; the %s site goes without it\n",
				mi_fault_eps[i].name, err, mi_site_names[s]);
			p->err = err;
			last[s] = err;
			continue;
		}
		p->registered = true;
		n[s]++;
	}
	mi_fault_ep_ranges_fill(sites, false);
	for (s = 0; s < MI_NR_SITES; s++) {
		if (!(sites & (1U << s)))
			continue;
		if (!n[s]) {
			scnprintf(why, len, "no %s entry point could be probed (last error %d)",
				  mi_site_names[s], last[s]);
			mi_fault_probes_unregister();
			return -EOPNOTSUPP;
		}
		WRITE_ONCE(mi_site_attached[s], true);
	}
	return 0;
}

/*
 * One allocation of @site from this module, with the handler told to fail
 * it (whatever the aims): true if it failed.  Only the owner (the arming
 * task, mi_fault_set_owner()) in task context is forced, and nothing else
 * runs between setting and clearing the flag.  The size is read with
 * READ_ONCE(), so it is not a constant and the call goes to an
 * out-of-line entry point rather than an inline fast path.
 */
bool mi_fault_verify(enum mi_fault_site site)
{
	static size_t size = 64;
	struct page *page;
	void *obj;
	bool failed;

	WRITE_ONCE(mi_fault_force_hit, NULL);
	WRITE_ONCE(mi_fault_force, true);
	if (site == MI_SITE_SLAB) {
		obj = kmalloc(READ_ONCE(size), GFP_KERNEL | __GFP_NOWARN);
		WRITE_ONCE(mi_fault_force, false);
		failed = !obj;
		kfree(obj);
	} else {
		page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0);
		WRITE_ONCE(mi_fault_force, false);
		failed = !page;
		if (page)
			__free_pages(page, 0);
	}
	if (!failed)
		pr_warn("fault: arming: a %s allocation from module code was not failed: %s\n",
			mi_site_names[site],
			mi_fault_force_hit ?
			"the handler ran but overriding the return had no effect" :
			"no probed entry point saw it");
	return failed;
}

/*
 * Which entry points the running kernel has (kallsyms), into one
 * capabilities row per site.  Without ksyms every name is tried at arming.
 */
int mi_fault_probes_init(struct mi_cap *caps)
{
	/* static: too big for the stack; init runs once, before any reader */
	static char list[MI_NR_SITES][MI_CAP_DETAIL_LEN];
	unsigned int i, n[MI_NR_SITES] = { 0 };
	bool ksyms = mi_ksyms_available();
	bool found[MI_NR_EPS];
	enum mi_fault_site s;

	if (!ksyms) {
		/* no kallsyms: every name is tried at arming */
		for (i = 0; i < MI_NR_EPS; i++)
			mi_fault_probes[i].present = true;
	}
	for (i = 0; ksyms && i < MI_NR_EPS; i++)
		found[i] = mi_ksym(mi_fault_eps[i].name);
	for (i = 0; ksyms && i < MI_NR_EPS; i++) {
		char *l;

		s = mi_fault_eps[i].site;
		mi_fault_probes[i].present = found[i] &&
			mi_fault_ep_wanted(i, found);
		if (!mi_fault_probes[i].present)
			continue;
		mi_func_range(mi_fault_eps[i].name,
			      &mi_fault_probes[i].range.start,
			      &mi_fault_probes[i].range.end);
		l = list[s];
		scnprintf(l + strlen(l), sizeof(list[s]) - strlen(l), "%s%s",
			  n[s] ? " " : "", mi_fault_eps[i].name);
		n[s]++;
	}
	for (s = 0; s < MI_NR_SITES; s++) {
		if (!ksyms)
			mi_cap_set(&caps[s], true,
				   "kprobes at the %s entry points, found at arming (ksyms unavailable)",
				   mi_site_names[s]);
		else if (n[s])
			mi_cap_set(&caps[s], true, "kprobes (" MI_KPROBE_KIND
				   ", ret stub) at %s", list[s]);
		else
			mi_cap_set(&caps[s], false,
				   "none of the known %s entry points is in kallsyms",
				   mi_site_names[s]);
	}
	return 0;
}
