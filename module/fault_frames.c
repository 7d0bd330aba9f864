// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: the allocating code behind a call, as the probe handler
 * sees it: the call's one unwind, and the page allocator's wrappers.
 *
 * The page site is probed at the innermost entry of the page allocator
 * (fault_probe.c), whose return address is, more often than not, one of the
 * allocator's own wrappers: alloc_pages() and alloc_pages_mpol() on a NUMA
 * kernel, 7.x's __alloc_pages_noprof() and alloc_pages_noprof() above
 * __alloc_frozen_pages_noprof(), __get_free_pages(), the large-kmalloc
 * path.  How many there are differs from kernel to kernel, so a raw frame
 * count would make `aim-depth` mean something else on each.  Here frames
 * inside those wrappers are skipped: depth 1 is the first frame outside the
 * allocator, on every kernel, and that frame is the `caller` of the log.
 *
 * The wrappers are found by name at init (ksyms), each as the range of its
 * code; names a kernel does not have are skipped.  The handler only
 * compares addresses with those ranges: no lookup, no lock, no allocation.
 * Everything here runs in the handler but the init: Kbuild holds this
 * file's frames small (-Wframe-larger-than).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/stacktrace.h>

#include "fault.h"
/*
 * The page allocator's API functions that only pass the request on, from
 * 5.10 to 7.x (the _noprof names are the memory allocation profiling
 * rename, "mm: enable page allocation tagging", b951aaff5035, v6.10).
 */
static const char *const mi_wrapper_names[] = {
	"alloc_pages_current", "alloc_pages_vma", "alloc_pages",
	"alloc_pages_noprof", "alloc_pages_mpol", "alloc_pages_mpol_noprof",
	"__alloc_pages", "__alloc_pages_noprof", "alloc_frozen_pages_noprof",
	"__get_free_pages", "__get_free_pages_noprof",
	"get_free_pages_noprof",	/* the name __get_free_pages() got in v6.10 */
	"get_zeroed_page",
	"get_zeroed_page_noprof", "folio_alloc", "folio_alloc_noprof",
	"__folio_alloc", "__folio_alloc_noprof", "folio_alloc_mpol_noprof",
	"vma_alloc_folio", "vma_alloc_folio_noprof", "alloc_pages_exact",
	"alloc_pages_exact_noprof", "alloc_pages_exact_nid",
	"alloc_pages_exact_nid_noprof", "kmalloc_large", "kmalloc_large_node",
	"kmalloc_large_noprof", "kmalloc_large_node_noprof",
	"__kmalloc_large_node", "__kmalloc_large_node_noprof",
	"___kmalloc_large_node",
};

static struct mi_code_range mi_wrappers[ARRAY_SIZE(mi_wrapper_names)];
static unsigned int mi_nr_wrappers;
bool mi_code_ranges_hold(const struct mi_code_range *r, unsigned int nr,
			 unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (addr >= r[i].start && addr < r[i].end)
			return true;
	return false;
}

NOKPROBE_SYMBOL(mi_code_ranges_hold);

void mi_fault_caller_init(void)
{
	mi_nr_wrappers = mi_code_ranges_fill(mi_wrapper_names,
					     ARRAY_SIZE(mi_wrapper_names),
					     mi_wrappers);
}

unsigned int mi_fault_nr_wrappers(void)
{
	return mi_nr_wrappers;
}

bool mi_in_wrapper(unsigned long addr)
{
	return mi_code_ranges_hold(mi_wrappers, mi_nr_wrappers, addr);
}

NOKPROBE_SYMBOL(mi_in_wrapper);

/*
 * The frames the unwinder adds above the entry point (handler, kprobe,
 * ftrace), and the allocating code's frames kept after them: aim-depth's
 * most, and as many again for exclude-caller and the page fault entries,
 * which may lie deep below the allocation (a fault in a file's read-ahead
 * reaches the block layer's allocations).
 */
#define MI_STACK_EXTRA		16
#define MI_STACK_MAX		(2 * MI_FAULT_DEPTH_MAX + MI_STACK_EXTRA)

/*
 * One buffer per CPU, not the handler's stack: the handler runs on top of
 * the allocating code's stack and ftrace's register frame, inside any
 * allocation (deep writeback, reclaim, networking), and with VMAP_STACK an
 * overflow is a panic.  It is used with preemption off, by one handler at
 * a time: kprobes do not nest on a CPU (a probe hit while a handler runs,
 * from an interrupt or NMI too, is counted as missed, not handled).
 */
struct mi_stack_buf {
	unsigned long e[MI_STACK_MAX];
};

static DEFINE_PER_CPU(struct mi_stack_buf, mi_stack_buf);

/*
 * The stack of @c's allocating code, unwound once for the call: the first
 * frame outside the allocator, then its callers; the count is 0 if the
 * unwinder did not get past the probe (the caller alone is then known).
 * On the way past the allocator's own frames, @c->nested notes a probed
 * entry point among them.
 */
unsigned int mi_fault_frames(struct mi_fault_call *c,
			     const unsigned long **out)
{
	unsigned long *e;
	unsigned int n, i;

	if (c->nframes >= 0) {
		*out = c->frames;
		return c->nframes;
	}
	e = this_cpu_ptr(&mi_stack_buf)->e;
	n = stack_trace_save(e, MI_STACK_MAX, 0);
	/* find the entry point's caller; the frames above it are ours */
	for (i = 0; i < n; i++)
		if (e[i] == c->caller)
			break;
	if (i == n) {
		/*
		 * A frame-pointer unwinder (arm64's; x86-64's with
		 * UNWINDER_FRAME_POINTER) goes from the handler to the probe's
		 * register frame, reports its ip, then follows its frame
		 * pointer: the probed function has not made a frame yet, so the
		 * next address is the caller's caller, and the caller's return
		 * address (in arm64's link register, at x86-64's stack pointer)
		 * is in no frame record.  Put the caller in the ip's place.
		 * The ip is the probed address on arm64 but one byte past it on
		 * x86-64 (c->regs_ip, not the probe's address).
		 */
		for (i = 0; i < n; i++)
			if (e[i] == c->regs_ip)
				break;
		if (i < n)
			e[i] = c->caller;
	}
	for (; i < n && mi_in_wrapper(e[i]); i++)
		c->nested |= mi_fault_in_entry_point(e[i]);
	if (i < n)
		c->nested |= mi_fault_in_entry_point(e[i]);
	c->frames = e + i;
	c->nframes = n - i;
	*out = c->frames;
	return c->nframes;
}

NOKPROBE_SYMBOL(mi_fault_frames);

/* The first frame of @c outside the allocator (its raw caller if unknown). */
unsigned long mi_fault_alloc_caller(struct mi_fault_call *c)
{
	const unsigned long *frames;

	if (!mi_in_wrapper(c->caller))
		return c->caller;
	return mi_fault_frames(c, &frames) ? frames[0] : c->caller;
}

NOKPROBE_SYMBOL(mi_fault_alloc_caller);

/*
 * Was @c made by a probed entry point of an attached site, directly or
 * through the allocator's wrappers?  Then it is a part of that entry
 * point's allocation, which is the one failure point: the page allocation
 * of a large kmalloc, the kmalloc that kvmalloc tries first.
 */
bool mi_fault_nested(struct mi_fault_call *c)
{
	const unsigned long *frames;

	if (mi_fault_in_entry_point(c->caller))
		return true;
	if (!mi_in_wrapper(c->caller))
		return false;
	mi_fault_frames(c, &frames);
	return c->nested;
}

NOKPROBE_SYMBOL(mi_fault_nested);

/* Is a return address inside @mod among the first @depth frames of @c? */
bool mi_fault_caller_in(struct mi_fault_call *c, struct module *mod,
			unsigned int depth)
{
	const unsigned long *frames;
	unsigned int n, i;

	if (!mi_in_wrapper(c->caller)) {
		if (within_module(c->caller, mod))
			return true;
		if (depth <= 1)
			return false;
	}
	n = min(mi_fault_frames(c, &frames), depth);
	for (i = 0; i < n; i++)
		if (within_module(frames[i], mod))
			return true;
	return false;
}

NOKPROBE_SYMBOL(mi_fault_caller_in);

