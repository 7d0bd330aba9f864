// SPDX-License-Identifier: GPL-2.0
/*
 * allocs/: the probes on the kmem tracepoints, which record an allocation
 * at its call site (allocs.c's mi_allocs_record()) or forget a freed
 * object, and their attaching.  The tracepoints' call site is not always
 * the allocating code's: kvmalloc() and a large kmalloc() are traced from
 * inside the allocator, and are given their caller here.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>

#include "allocs_priv.h"
#include "fault.h"
#include "slab.h"

/*
 * kvmalloc() and its family (kvcalloc(), kvzalloc(), kvmalloc_array())
 * try kmalloc() first, whose tracepoint then names kvmalloc's own code:
 * every kvmalloc() in the kernel would be one row at kvmalloc_node+0x..
 * (seen on the debug lane against /proc/allocinfo, which names the
 * caller).  Its caller is read off the stack instead, for the allocations
 * wanted only.  kvmalloc_node() became __kvmalloc_node_noprof() with "mm:
 * enable slab allocation tagging for kmalloc and friends" (v6.10).
 */
static const char *const mi_allocs_kv_names[] = {
	"kvmalloc_node", "__kvmalloc_node_noprof",
};

static struct mi_code_range mi_allocs_kv[ARRAY_SIZE(mi_allocs_kv_names)];
static unsigned int mi_allocs_nr_kv;

/*
 * Where kvmalloc() itself hosts the inlined __do_kmalloc_node() (7.x), a
 * large kvmalloc() is traced twice as the large kmalloc() above: first
 * from inside __kmalloc_large_node_noprof() with a return address in
 * kvmalloc, then with kvmalloc's caller.  The first is the one whose
 * stack holds that function's frame before kvmalloc's: dropped.  (On 6.12
 * kvmalloc calls __kmalloc_node_noprof(), whose inner event the rule
 * above drops, and its one event has kvmalloc's address.)
 */
static const char *const mi_allocs_large_names[] = {
	"__kmalloc_large_node_noprof", "__kmalloc_large_noprof",
};

static struct mi_code_range mi_allocs_large[ARRAY_SIZE(mi_allocs_large_names)];
static unsigned int mi_allocs_nr_large;

/* the probe's frames, the tracepoint's, kmalloc's, kvmalloc's, its caller */
#define MI_ALLOCS_KV_STACK	16

/*
 * The return address past kvmalloc's frame; @call_site without one; 0
 * for the inner event of a large kvmalloc() traced twice.
 */
static unsigned long mi_allocs_kv_caller(unsigned long call_site)
{
	unsigned long entries[MI_ALLOCS_KV_STACK];
	unsigned int n, i;
	bool large = false;

	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i + 1 < n; i++) {
		if (mi_code_ranges_hold(mi_allocs_kv, mi_allocs_nr_kv,
					entries[i]))
			return large ? 0 : entries[i + 1];
		if (mi_code_ranges_hold(mi_allocs_large, mi_allocs_nr_large,
					entries[i]))
			large = true;
	}
	return call_site;
}

static void mi_allocs_record(unsigned long call_site, const void *ptr,
			     size_t bytes_req, size_t bytes_alloc)
{
	if (ZERO_OR_NULL_PTR(ptr) || !mi_allocs_wanted(bytes_req))
		return;
	if (mi_code_ranges_hold(mi_allocs_kv, mi_allocs_nr_kv, call_site)) {
		call_site = mi_allocs_kv_caller(call_site);
		if (!call_site)
			return;
	}
	mi_allocs_store(call_site, NULL, ptr, bytes_req, bytes_alloc, false);
}

/*
 * A large kmalloc() traced twice: from v6.10 ("mm/slab: enable slab
 * allocation tagging for kmalloc and friends", the _noprof split) a
 * kmalloc() above KMALLOC_MAX_CACHE_SIZE through __do_kmalloc_node()
 * calls __kmalloc_large_node_noprof(), which traces kmalloc with its own
 * _RET_IP_ (inside __kmalloc_noprof() and its siblings, where
 * __do_kmalloc_node() is inlined), then traces it again with the real
 * caller.  The inner event is dropped: its site is allocator code, and the
 * object would be recorded twice and one copy never freed (seen on 6.12:
 * a second row at __kmalloc_noprof+0x2e0).  No other kmalloc event has a
 * call site inside these functions.
 */
static const char *const mi_allocs_inner_names[] = {
	"__kmalloc_noprof", "__kmalloc_node_noprof",
	"__kmalloc_node_track_caller_noprof",
};

static struct mi_code_range mi_allocs_inner[ARRAY_SIZE(mi_allocs_inner_names)];
static unsigned int mi_allocs_nr_inner;

static void mi_allocs_record_kmalloc(unsigned long call_site,
				     const void *ptr, size_t bytes_req,
				     size_t bytes_alloc)
{
	if (bytes_alloc > KMALLOC_MAX_CACHE_SIZE &&
	    mi_code_ranges_hold(mi_allocs_inner, mi_allocs_nr_inner, call_site))
		return;
	mi_allocs_record(call_site, ptr, bytes_req, bytes_alloc);
}

/*
 * Tracepoint prototypes.  "mm/slab_common: unify NUMA and UMA version of
 * tracepoints" (11e9734bcb6a, v6.1) folded kmalloc_node and
 * kmem_cache_alloc_node into kmalloc and kmem_cache_alloc (with a node
 * argument), and kmem_cache_alloc passes the cache instead of sizes
 * ("mm/slab_common: drop kmem_alloc & avoid dereferencing fields when not
 * using", 2c1d697fb8ba, v6.1).
 */
#ifdef MI_HAVE_KMEM_TP_NODE_FOLDED
static void mi_allocs_tp_kmalloc(void *data, unsigned long call_site,
				 const void *ptr, size_t bytes_req,
				 size_t bytes_alloc, gfp_t gfp, int node)
{
	mi_allocs_record_kmalloc(call_site, ptr, bytes_req, bytes_alloc);
}

static void mi_allocs_tp_cache_alloc(void *data, unsigned long call_site,
				     const void *ptr, struct kmem_cache *s,
				     gfp_t gfp, int node)
{
	/* the tracepoint's own bytes_req and bytes_alloc (mm/slub.c) */
	mi_allocs_record(call_site, ptr, kmem_cache_size(s),
			 mi_slab_size_of(s));
}
#else
static void mi_allocs_tp_kmalloc(void *data, unsigned long call_site,
				 const void *ptr, size_t bytes_req,
				 size_t bytes_alloc, gfp_t gfp)
{
	mi_allocs_record_kmalloc(call_site, ptr, bytes_req, bytes_alloc);
}

static void mi_allocs_tp_kmalloc_node(void *data, unsigned long call_site,
				      const void *ptr, size_t bytes_req,
				      size_t bytes_alloc, gfp_t gfp, int node)
{
	mi_allocs_record_kmalloc(call_site, ptr, bytes_req, bytes_alloc);
}
#endif

static void mi_allocs_tp_kfree(void *data, unsigned long call_site,
			       const void *ptr)
{
	mi_allocs_forget(ptr);
}

/*
 * kmem_cache_free: "mm, tracing: record slab name for kmem_cache_free()"
 * (3544de8ee6e4, v5.12) added the cache's name; "mm/slab_common: ...
 * kmem_cache_free tracepoint takes the cache" (v6.1) replaced it with
 * the cache itself.  Only the pointer is used here.
 */
#if defined(MI_HAVE_KMEM_CACHE_FREE_CACHE)
static void mi_allocs_tp_cache_free(void *data, unsigned long call_site,
				    const void *ptr,
				    const struct kmem_cache *s)
#elif defined(MI_HAVE_KMEM_CACHE_FREE_NAME)
static void mi_allocs_tp_cache_free(void *data, unsigned long call_site,
				    const void *ptr, const char *name)
#else
static void mi_allocs_tp_cache_free(void *data, unsigned long call_site,
				    const void *ptr)
#endif
{
	mi_allocs_forget(ptr);
}

/*
 * The allocation tracepoints besides kmalloc: kmem_cache_alloc, and before
 * v6.1 the _node variants, unwound in reverse if one fails.
 */
static int mi_allocs_attach_cache_alloc(void)
{
#ifdef MI_HAVE_KMEM_TP_NODE_FOLDED
	return register_trace_kmem_cache_alloc(mi_allocs_tp_cache_alloc, NULL);
#else
	int err;

	err = register_trace_kmem_cache_alloc(mi_allocs_tp_kmalloc, NULL);
	if (err)
		return err;
	err = register_trace_kmalloc_node(mi_allocs_tp_kmalloc_node, NULL);
	if (err)
		goto out_cache_alloc;
	err = register_trace_kmem_cache_alloc_node(mi_allocs_tp_kmalloc_node,
						   NULL);
	if (err)
		goto out_kmalloc_node;
	return 0;

out_kmalloc_node:
	unregister_trace_kmalloc_node(mi_allocs_tp_kmalloc_node, NULL);
out_cache_alloc:
	unregister_trace_kmem_cache_alloc(mi_allocs_tp_kmalloc, NULL);
	return err;
#endif
}

static void mi_allocs_detach_cache_alloc(void)
{
#ifdef MI_HAVE_KMEM_TP_NODE_FOLDED
	unregister_trace_kmem_cache_alloc(mi_allocs_tp_cache_alloc, NULL);
#else
	unregister_trace_kmem_cache_alloc(mi_allocs_tp_kmalloc, NULL);
	unregister_trace_kmalloc_node(mi_allocs_tp_kmalloc_node, NULL);
	unregister_trace_kmem_cache_alloc_node(mi_allocs_tp_kmalloc_node,
					       NULL);
#endif
}

void mi_allocs_detach(void)
{
	unregister_trace_kmalloc(mi_allocs_tp_kmalloc, NULL);
	mi_allocs_detach_cache_alloc();
	unregister_trace_kfree(mi_allocs_tp_kfree, NULL);
	unregister_trace_kmem_cache_free(mi_allocs_tp_cache_free, NULL);
	mi_allocs_pages_detach();
	/* no probe runs on the tables once this returns */
	tracepoint_synchronize_unregister();
	mi_allocs_bulk_detach();
}

/*
 * Frees first, so no recorded object misses its free.  On failure only
 * what was registered is unregistered: removing a probe a tracepoint does
 * not hold WARNs (func_remove()) where no other probe is on it.
 */
int mi_allocs_attach(void)
{
	int err;

	err = mi_allocs_bulk_attach();
	if (err)
		return err;
	err = register_trace_kfree(mi_allocs_tp_kfree, NULL);
	if (err)
		goto out_bulk;
	err = register_trace_kmem_cache_free(mi_allocs_tp_cache_free, NULL);
	if (err)
		goto out_kfree;
	err = register_trace_kmalloc(mi_allocs_tp_kmalloc, NULL);
	if (err)
		goto out_cache_free;
	err = mi_allocs_attach_cache_alloc();
	if (err)
		goto out_kmalloc;
	if (mi_allocs.pages) {
		err = mi_allocs_pages_attach();
		if (err)
			goto out_pages;
	}
	return 0;

out_pages:
	mi_allocs_pages_detach();	/* what of the pair it registered */
	mi_allocs_detach_cache_alloc();
out_kmalloc:
	unregister_trace_kmalloc(mi_allocs_tp_kmalloc, NULL);
out_cache_free:
	unregister_trace_kmem_cache_free(mi_allocs_tp_cache_free, NULL);
out_kfree:
	unregister_trace_kfree(mi_allocs_tp_kfree, NULL);
	tracepoint_synchronize_unregister();
out_bulk:
	mi_allocs_bulk_detach();
	return err;
}

/* The allocator's own functions the probes look for, at module init. */
void mi_allocs_probes_init(void)
{
	mi_allocs_nr_inner = mi_code_ranges_fill(mi_allocs_inner_names,
						 ARRAY_SIZE(mi_allocs_inner_names),
						 mi_allocs_inner);
	mi_allocs_nr_kv = mi_code_ranges_fill(mi_allocs_kv_names,
					      ARRAY_SIZE(mi_allocs_kv_names),
					      mi_allocs_kv);
	mi_allocs_nr_large = mi_code_ranges_fill(mi_allocs_large_names,
						 ARRAY_SIZE(mi_allocs_large_names),
						 mi_allocs_large);
}

