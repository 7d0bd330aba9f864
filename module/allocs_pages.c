// SPDX-License-Identifier: GPL-2.0
/*
 * allocs/ - page allocations by call site (knob "pages"), from the page
 * allocator's mm_page_alloc and mm_page_free tracepoints: not exported,
 * found by name with for_each_kernel_tracepoint() and attached with
 * tracepoint_probe_register().
 *
 * mm_page_alloc fires inside the allocator (__alloc_pages_nodemask() on
 * 5.10, __alloc_pages() on 6.1, __alloc_pages_noprof() on 6.12,
 * __alloc_frozen_pages_noprof() on 7.x) and passes no call site, so the
 * site is read off the stack: the first frame past this module's probe,
 * the tracepoint's iterator, that function and the allocator's wrappers
 * (the injector's list, fault_caller.c), as the injector's `caller` is.
 * The pages of a large kmalloc() are left to the kmalloc tracepoint,
 * which counts them already (at the same site): never twice.
 *
 * A page is followed by its struct page, which no slab object's address
 * can equal; mm_page_free (free_pages_prepare(), every path that gives
 * pages back to the buddy allocator) ends it with the order it had.
 *
 * The probes neither allocate nor print nor lock (allocs.c's rules); the
 * unwind is paid only by allocations that the task aims and the sampler
 * keep.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "allocs_priv.h"
#include "capabilities.h"
#include "fault.h"
#include "ksyms.h"

/* frames between the probe and the allocating code besides the wrappers */
static const char *const mi_pg_inner_names[] = {
	"__traceiter_mm_page_alloc",	/* several probes: the iterator */
	"__alloc_pages_nodemask",	/* 5.10 */
	"__alloc_frozen_pages_noprof",	/* 7.x: the injector's entry there */
};

/*
 * A large kmalloc(): 5.10's kmalloc_order(), then the kmalloc_large*()
 * family ("mm/slab_common: kmalloc_node: pass large requests to page
 * allocator", v6.1; the _noprof names from v6.10).
 */
static const char *const mi_pg_kmalloc_names[] = {
	"kmalloc_order", "kmalloc_order_trace", "kmalloc_large",
	"kmalloc_large_node", "kmalloc_large_noprof",
	"kmalloc_large_node_noprof", "__kmalloc_large_node",
	"__kmalloc_large_node_noprof", "___kmalloc_large_node",
};

static struct mi_code_range mi_pg_inner[ARRAY_SIZE(mi_pg_inner_names)];
static struct mi_code_range mi_pg_kmalloc[ARRAY_SIZE(mi_pg_kmalloc_names)];
static unsigned int mi_pg_nr_inner, mi_pg_nr_kmalloc;

static struct tracepoint *mi_pg_alloc_tp, *mi_pg_free_tp;
static bool mi_pg_alloc_on, mi_pg_free_on;

/* the unwind: the probe's frames, the allocator's, then the caller's */
#define MI_PG_STACK	24

/*
 * -1: not an allocator frame; 0: one; 1: a large kmalloc()'s (first: some
 * of those are in the injector's wrapper list too)
 */
static int mi_pg_frame_kind(unsigned long addr)
{
	if (mi_code_ranges_hold(mi_pg_kmalloc, mi_pg_nr_kmalloc, addr))
		return 1;
	if (mi_code_ranges_hold(mi_pg_inner, mi_pg_nr_inner, addr) ||
	    mi_in_wrapper(addr))
		return 0;
	return -1;
}

/*
 * The allocating code's return address, or 0: a large kmalloc()'s pages
 * (@large set), or no frame outside the allocator within MI_PG_STACK.
 * @stack gets the page_stack frames past it (zero-filled).
 */
static unsigned long mi_pg_site(bool *large, unsigned long *stack)
{
	unsigned long entries[MI_PG_STACK];
	unsigned int n, i, j, depth = READ_ONCE(mi_allocs.page_stack);
	int kind;

	*large = false;
	memset(stack, 0, MI_ALLOCS_STACK_MAX * sizeof(*stack));
	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++) {
		if (within_module(entries[i], THIS_MODULE))
			continue;
		kind = mi_pg_frame_kind(entries[i]);
		if (kind < 0)
			break;
		if (kind)
			*large = true;
	}
	if (i == n || *large)
		return 0;
	for (j = 0; j < depth && i + 1 + j < n; j++)
		stack[j] = entries[i + 1 + j];
	return entries[i];
}

static void mi_pg_alloc_probe(void *data, struct page *page,
			      unsigned int order, gfp_t gfp, int migratetype)
{
	unsigned long stack[MI_ALLOCS_STACK_MAX];
	size_t bytes = PAGE_SIZE << order;
	unsigned long site;
	bool large;

	if (!page || !mi_allocs_wanted(bytes))
		return;
	site = mi_pg_site(&large, stack);
	if (site)
		mi_allocs_store(site, stack, page, bytes, bytes, true);
	else if (!large)
		atomic64_inc(&mi_allocs.page_nosite);
}

static void mi_pg_free_probe(void *data, struct page *page,
			     unsigned int order)
{
	mi_allocs_forget(page);
}

static void mi_pg_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "mm_page_alloc"))
		mi_pg_alloc_tp = tp;
	else if (!strcmp(tp->name, "mm_page_free"))
		mi_pg_free_tp = tp;
}

bool mi_allocs_pages_available(void)
{
	return mi_pg_alloc_tp && mi_pg_free_tp && mi_fault_nr_wrappers();
}

/* Process context, at module init, after fault_caller.c's wrappers. */
void mi_allocs_pages_init(struct mi_cap *cap)
{
	for_each_kernel_tracepoint(mi_pg_find_tp, NULL);
	mi_pg_nr_inner = mi_code_ranges_fill(mi_pg_inner_names,
					     ARRAY_SIZE(mi_pg_inner_names),
					     mi_pg_inner);
	mi_pg_nr_kmalloc = mi_code_ranges_fill(mi_pg_kmalloc_names,
					       ARRAY_SIZE(mi_pg_kmalloc_names),
					       mi_pg_kmalloc);
	if (!mi_pg_alloc_tp || !mi_pg_free_tp)
		mi_cap_set(cap, false,
			   "tracepoint mm_page_alloc or mm_page_free not in this kernel");
	else if (!mi_fault_nr_wrappers())
		mi_cap_set(cap, false,
			   "the page allocator's wrappers cannot be found (ksyms unavailable): no call site past them");
	else
		mi_cap_set(cap, true,
			   "knob pages: tracepoints mm_page_alloc/mm_page_free (for_each_kernel_tracepoint()), the call site from stack_trace_save() past %u allocator functions, a large kmalloc's pages left to the kmalloc tracepoint",
			   mi_fault_nr_wrappers() + mi_pg_nr_inner +
			   mi_pg_nr_kmalloc);
}

/* Caller holds mi_allocs.lock; the free probe first, as allocs.c's. */
int mi_allocs_pages_attach(void)
{
	int err;

	err = tracepoint_probe_register(mi_pg_free_tp, mi_pg_free_probe, NULL);
	if (err)
		return err;
	mi_pg_free_on = true;
	err = tracepoint_probe_register(mi_pg_alloc_tp, mi_pg_alloc_probe,
					NULL);
	if (err)
		return err;
	mi_pg_alloc_on = true;
	return 0;
}

/*
 * Caller holds mi_allocs.lock and waits in tracepoint_synchronize_
 * unregister() afterwards.  Only what was registered is unregistered:
 * removing a probe from a tracepoint that has none WARNs (func_remove()).
 */
void mi_allocs_pages_detach(void)
{
	if (mi_pg_alloc_on)
		tracepoint_probe_unregister(mi_pg_alloc_tp, mi_pg_alloc_probe,
					    NULL);
	if (mi_pg_free_on)
		tracepoint_probe_unregister(mi_pg_free_tp, mi_pg_free_probe,
					    NULL);
	mi_pg_alloc_on = false;
	mi_pg_free_on = false;
}
