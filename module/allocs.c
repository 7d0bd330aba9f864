// SPDX-License-Identifier: GPL-2.0
/*
 * allocs/ - slab allocations by call site, from the exported kmem
 * tracepoints (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free).
 *
 * Knobs: armed (0/1; writing 1 resets the counters and attaches the
 * probes, 0 detaches them), aim_pid and aim_comm (which allocations are
 * counted; set only while disarmed), hash_size (slots of the ptr -> site
 * table; set only while disarmed), sample_bytes (0: every allocation; N:
 * an allocation of s bytes is followed with probability min(1, s/N) and
 * weighted by its inverse; set only while disarmed), aim_module (only
 * call sites in that module's text; the injector's module aim and its
 * parser, set only while disarmed), aim_cgroup (only tasks in that cgroup
 * v2 or below it; the injector's parser, resolved with a reference at the
 * write, set only while disarmed), pages (0/1: page allocations too, from
 * the page allocator's tracepoints, allocs_pages.c; set only while
 * disarmed).  Read: table.
 *
 * The probes run in any context, so they neither allocate nor print nor
 * lock: the site table and the object hash are preallocated when arming
 * and filled with cmpxchg().  A full table is counted (overflow), never
 * waited on.  Frees are matched against the object hash whatever the aim,
 * so an object is counted live from its aimed allocation to its free.
 */
#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <trace/events/kmem.h>

#include "allocs.h"
#include "allocs_priv.h"
#include "capabilities.h"
#include "fault.h"
#include "fault_parse.h"
#include "slab.h"

#define MI_ALLOCS_PROBES	32	/* slots tried per insert or lookup */
#define MI_ALLOCS_HASH_MIN	1024
#define MI_ALLOCS_HASH_MAX	BIT(22)
#define MI_ALLOCS_HASH_DEFAULT	BIT(16)
#define MI_ALLOCS_SAMPLE_MAX	BIT(30)	/* sample_bytes at most 1 GiB */
/* object counts are kept in 1/1024ths: a sampled object stands for N/s */
#define MI_ALLOCS_FP_SHIFT	10
#define MI_ALLOCS_FP_ONE	BIT(MI_ALLOCS_FP_SHIFT)

/*
 * The sampler's state: one xorshift64 generator per CPU, seeded at arming.
 * Probes update it with this_cpu ops, no lock: an interrupt between the
 * read and the write repeats a draw, which is harmless.
 */
static DEFINE_PER_CPU(u64, mi_allocs_rng);

struct mi_allocs_state mi_allocs = {
	.lock = __MUTEX_INITIALIZER(mi_allocs.lock),
	.hash_size = MI_ALLOCS_HASH_DEFAULT,
};

static u32 mi_allocs_hash(unsigned long v)
{
	return hash_long(v, 32);
}

/* The aims on whose allocation it is: no site needed (page probes). */
static bool mi_allocs_task_aimed(void)
{
	if (mi_allocs.pid && task_tgid(current) != mi_allocs.pid)
		return false;
	if (mi_allocs.aim_comm[0] &&
	    strncmp(current->comm, mi_allocs.aim_comm, TASK_COMM_LEN))
		return false;
	if (mi_allocs.cgrp) {
		bool in;

		/* the task's css_set is RCU-protected (task_css_set_check()) */
		rcu_read_lock();
		in = task_under_cgroup_hierarchy(current, mi_allocs.cgrp);
		rcu_read_unlock();
		if (!in)
			return false;
	}
	return true;
}

/* The aims on the site and the object: a page is of no cache. */
static bool mi_allocs_site_aimed(unsigned long call_site, const void *ptr,
				 bool pages)
{
	if (mi_allocs.mod_set) {
		/* NULL until it loads and once it goes (fault_aim.c) */
		struct module *mod = mi_aim_module(MI_AIM_MOD_ALLOCS);

		if (!mod || !within_module(call_site, mod))
			return false;
	}
	/* last: the object's slab is a read of its head page */
	if (mi_allocs.cache &&
	    (pages || mi_slab_cache_of(ptr) != mi_allocs.cache))
		return false;
	return true;
}

/*
 * A row's key: the call site, or with callers (@stack, zero-filled past the
 * last) a hash of them all; never 0, the free slot.
 */
static unsigned long mi_allocs_key(unsigned long call_site,
				   const unsigned long *stack)
{
	unsigned long key = call_site;
	unsigned int i;

	for (i = 0; stack && i < MI_ALLOCS_STACK_MAX && stack[i]; i++)
		key = (key ^ stack[i]) * GOLDEN_RATIO_64;
	return key ?: 1;
}

/*
 * The slot of @call_site and @stack, claimed and filled if new; -1 when
 * the table is full.  The claimer writes the callers, then publishes the
 * site: a probe that finds the key counts at once, a reader shows the row
 * once the site is there.
 */
static int mi_allocs_site_get(unsigned long call_site,
			      const unsigned long *stack)
{
	unsigned long key = mi_allocs_key(call_site, stack);
	u32 h = mi_allocs_hash(key);
	unsigned int i, j;

	for (i = 0; i < MI_ALLOCS_PROBES * 2; i++) {
		u32 n = (h + i) & (MI_ALLOCS_SITES - 1);
		struct mi_allocs_site *s = &mi_allocs.sites[n];
		unsigned long old = READ_ONCE(s->key);

		if (old == key)
			return n;
		if (old)
			continue;
		old = cmpxchg(&s->key, 0UL, key);
		if (old == key)
			return n;
		if (old)
			continue;
		for (j = 0; stack && j < MI_ALLOCS_STACK_MAX; j++)
			s->stack[j] = stack[j];
		/* pairs with the acquire in mi_allocs_table_show() */
		smp_store_release(&s->call_site, call_site);
		return n;
	}
	return -1;
}

/* A row's site: %pS, then its callers, " < " before each. */
void mi_allocs_put_site(struct seq_file *m, const struct mi_allocs_site *s,
			unsigned long call_site)
{
	unsigned int i;

	seq_printf(m, "%pS", (void *)call_site);
	for (i = 0; i < MI_ALLOCS_STACK_MAX && s->stack[i]; i++)
		seq_printf(m, " < %pS", (void *)s->stack[i]);
}

/*
 * An object's weight, the same at its allocation and at its free (both
 * sizes are in its slot and sample_bytes does not change while armed):
 * exact, or sampled with probability p = s/N (s < N) and counted as 1/p
 * objects, N requested bytes and bytes_alloc * N/s allocated bytes, so
 * that each estimate's expectation is the exact figure.
 */
struct mi_allocs_weight {
	u64 objs_fp, req, alloc;
};

static void mi_allocs_weigh(u32 req, u32 alloc, struct mi_allocs_weight *w)
{
	u32 n = mi_allocs.sample_bytes;

	if (!n || req >= n) {
		w->objs_fp = MI_ALLOCS_FP_ONE;
		w->req = req;
		w->alloc = alloc;
		return;
	}
	/* req >= 1 here: a zero-size request is ZERO_SIZE_PTR, never kept */
	w->objs_fp = div_u64((u64)n << MI_ALLOCS_FP_SHIFT, req);
	w->req = n;
	w->alloc = div_u64((u64)alloc * n, req);
}

/* Follow an allocation of @req bytes?  Always when exact or req >= N. */
static bool mi_allocs_sampled(size_t req)
{
	u32 n = mi_allocs.sample_bytes;
	u64 x;

	if (!n || req >= n)
		return true;
	x = this_cpu_read(mi_allocs_rng);
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	this_cpu_write(mi_allocs_rng, x);
	/* the draw's top 32 bits, u in [0, 1): taken when u < req / n */
	return (x >> 32) * n < (u64)req << 32;
}

/*
 * The site's cache column: the cache of its first object, until an object
 * of another cache makes it SEVERAL (a kmalloc() of a variable size).  Read
 * from the object's slab (slab_lookup.c); a large kmalloc's pages and the
 * page allocator's (@pages) are PAGES.  Without the slab_cache offset a
 * slab site's column stays NONE ("-").
 */
static void mi_allocs_site_cache(struct mi_allocs_site *s, const void *ptr,
				 bool pages)
{
	unsigned long seen = READ_ONCE(s->cache), c;

	if (seen == MI_ALLOCS_CACHE_SEVERAL ||
	    (!pages && !mi_slab_cache_of_available()))
		return;
	c = pages ? MI_ALLOCS_CACHE_PAGES :
		(unsigned long)mi_slab_cache_of(ptr) ?: MI_ALLOCS_CACHE_PAGES;
	if (seen == c)
		return;
	if (seen == MI_ALLOCS_CACHE_NONE)
		seen = cmpxchg(&s->cache, MI_ALLOCS_CACHE_NONE, c);
	if (seen != MI_ALLOCS_CACHE_NONE && seen != c)
		WRITE_ONCE(s->cache, MI_ALLOCS_CACHE_SEVERAL);
}

/* The task aimed at and the allocation drawn (or exact)? */
bool mi_allocs_wanted(size_t bytes_req)
{
	return mi_allocs_task_aimed() && mi_allocs_sampled(bytes_req);
}

/*
 * A wanted allocation of @ptr at @call_site (with callers @stack, or NULL):
 * counted if the site is aimed.
 */
void mi_allocs_store(unsigned long call_site, const unsigned long *stack,
		     const void *ptr, size_t bytes_req, size_t bytes_alloc,
		     bool pages)
{
	unsigned long p = (unsigned long)ptr;
	struct mi_allocs_weight w;
	struct mi_allocs_site *s;
	u32 h, cap_mask, req, alloc;
	unsigned int i;
	int n;

	if (!mi_allocs_site_aimed(call_site, ptr, pages))
		return;
	n = mi_allocs_site_get(call_site, stack);
	if (n < 0) {
		atomic64_inc(&mi_allocs.site_overflow);
		return;
	}
	s = &mi_allocs.sites[n];
	mi_allocs_site_cache(s, ptr, pages);
	req = min_t(size_t, max_t(size_t, bytes_req, 1), U32_MAX);
	alloc = min_t(size_t, bytes_alloc, U32_MAX);
	mi_allocs_weigh(req, alloc, &w);
	atomic64_add(w.objs_fp, &s->allocs);

	h = mi_allocs_hash(p);
	cap_mask = mi_allocs.hash_cap - 1;
	for (i = 0; i < MI_ALLOCS_PROBES; i++) {
		struct mi_allocs_obj *o = &mi_allocs.objs[(h + i) & cap_mask];
		unsigned long old = READ_ONCE(o->ptr);

		if (old > MI_ALLOCS_TOMB)
			continue;
		/* claimed, filled, then published by the final ptr */
		if (cmpxchg(&o->ptr, old, MI_ALLOCS_BUSY) != old)
			continue;
		o->site = n;
		o->bytes_req = req;
		o->bytes_alloc = alloc;
		o->born = (u32)jiffies;
		/* pairs with the acquire in mi_allocs_forget(): fields first */
		smp_store_release(&o->ptr, p);
		atomic64_inc(&s->samples);
		atomic64_add(w.objs_fp, &s->live);
		atomic64_add(w.req, &s->live_req);
		atomic64_add(w.alloc, &s->live_alloc);
		return;
	}
	atomic64_inc(&mi_allocs.obj_overflow);
}

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

void mi_allocs_forget(const void *ptr)
{
	unsigned long p = (unsigned long)ptr;
	struct mi_allocs_weight w;
	u32 h, cap_mask;
	unsigned int i;

	if (ZERO_OR_NULL_PTR(ptr))
		return;
	h = mi_allocs_hash(p);
	cap_mask = mi_allocs.hash_cap - 1;
	for (i = 0; i < MI_ALLOCS_PROBES; i++) {
		struct mi_allocs_obj *o = &mi_allocs.objs[(h + i) & cap_mask];
		struct mi_allocs_site *s;
		/* pairs with the release in mi_allocs_record() */
		unsigned long cur = smp_load_acquire(&o->ptr);

		/*
		 * A slot never used since arming ends the search: an insert
		 * takes the first slot not in use, so every slot before a
		 * followed object's was in use then, and a used slot goes
		 * back to TOMB, never to 0, until the next arming.  Most
		 * frees are of objects not followed (sampled out, not aimed):
		 * they stop here instead of reading all MI_ALLOCS_PROBES slots.
		 */
		if (!cur)
			return;
		if (cur != p)
			continue;
		s = &mi_allocs.sites[o->site];
		mi_allocs_weigh(o->bytes_req, o->bytes_alloc, &w);
		atomic64_add(w.objs_fp, &s->frees);
		atomic64_dec(&s->samples);
		atomic64_sub(w.objs_fp, &s->live);
		atomic64_sub(w.req, &s->live_req);
		atomic64_sub(w.alloc, &s->live_alloc);
		/*
		 * Only this free owns the slot: no cmpxchg; the release
		 * orders the reads above before the slot's reuse.
		 */
		smp_store_release(&o->ptr, MI_ALLOCS_TOMB);
		return;
	}
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

static void mi_allocs_detach(void)
{
	unregister_trace_kmalloc(mi_allocs_tp_kmalloc, NULL);
	mi_allocs_detach_cache_alloc();
	unregister_trace_kfree(mi_allocs_tp_kfree, NULL);
	unregister_trace_kmem_cache_free(mi_allocs_tp_cache_free, NULL);
	mi_allocs_pages_detach();
	/* no probe runs on the tables once this returns */
	tracepoint_synchronize_unregister();
}

/*
 * Frees first, so no recorded object misses its free.  On failure only
 * what was registered is unregistered: removing a probe a tracepoint does
 * not hold WARNs (func_remove()) where no other probe is on it.
 */
static int mi_allocs_attach(void)
{
	int err;

	err = register_trace_kfree(mi_allocs_tp_kfree, NULL);
	if (err)
		return err;
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
	return err;
}

/* Caller holds mi_allocs.lock and the probes are detached. */
static int mi_allocs_reset(void)
{
	unsigned int i;

	if (!mi_allocs.sites) {
		mi_allocs.sites = vzalloc(array_size(MI_ALLOCS_SITES,
						     sizeof(*mi_allocs.sites)));
		if (!mi_allocs.sites)
			return -ENOMEM;
	}
	if (mi_allocs.hash_cap != mi_allocs.hash_size) {
		vfree(mi_allocs.objs);
		mi_allocs.hash_cap = 0;
		mi_allocs.objs = vzalloc(array_size(mi_allocs.hash_size,
						    sizeof(*mi_allocs.objs)));
		if (!mi_allocs.objs)
			return -ENOMEM;
		mi_allocs.hash_cap = mi_allocs.hash_size;
	} else {
		memset(mi_allocs.objs, 0,
		       array_size(mi_allocs.hash_cap, sizeof(*mi_allocs.objs)));
	}
	for (i = 0; i < MI_ALLOCS_SITES; i++) {
		struct mi_allocs_site *s = &mi_allocs.sites[i];

		s->key = 0;
		s->call_site = 0;
		memset(s->stack, 0, sizeof(s->stack));
		s->cache = MI_ALLOCS_CACHE_NONE;
		atomic64_set(&s->allocs, 0);
		atomic64_set(&s->frees, 0);
		atomic64_set(&s->live, 0);
		atomic64_set(&s->live_req, 0);
		atomic64_set(&s->live_alloc, 0);
		atomic64_set(&s->samples, 0);
	}
	for_each_possible_cpu(i)
		per_cpu(mi_allocs_rng, i) = get_random_u64() | 1;	/* never 0 */
	atomic64_set(&mi_allocs.site_overflow, 0);
	atomic64_set(&mi_allocs.obj_overflow, 0);
	atomic64_set(&mi_allocs.page_nosite, 0);
	mi_allocs.armed_at = jiffies;
	return 0;
}

static int mi_allocs_set_armed(bool on)
{
	int err = 0;

	if (mi_allocs.armed) {
		mi_allocs_detach();
		mi_allocs.armed = false;
		mi_allocs.disarmed_at = jiffies;
		mi_aim_module_arm(MI_AIM_MOD_ALLOCS, NULL);
	}
	if (!on)
		return 0;
	err = mi_allocs_reset();
	if (err)
		return err;
	/* a module not loaded yet is aimed at from when it loads */
	mi_allocs.mod_set = mi_allocs.aim_module[0];
	if (mi_allocs.mod_set)
		mi_aim_module_arm(MI_AIM_MOD_ALLOCS, mi_allocs.aim_module);
	err = mi_allocs_attach();
	if (err) {
		mi_aim_module_arm(MI_AIM_MOD_ALLOCS, NULL);
		return err;
	}
	mi_allocs.armed = true;
	return 0;
}

enum mi_allocs_knob {
	MI_ALLOCS_ARMED,
	MI_ALLOCS_AIM_PID,
	MI_ALLOCS_AIM_COMM,
	MI_ALLOCS_HASH_SIZE,
	MI_ALLOCS_SAMPLE_BYTES,
	MI_ALLOCS_AIM_MODULE,
	MI_ALLOCS_AIM_CGROUP,
	MI_ALLOCS_AIM_CACHE,
	MI_ALLOCS_PAGES,
	MI_ALLOCS_PAGE_STACK,
	MI_ALLOCS_NR_KNOBS
};

static const char *const mi_allocs_knob_names[MI_ALLOCS_NR_KNOBS] = {
	[MI_ALLOCS_ARMED] = "armed",
	[MI_ALLOCS_AIM_PID] = "aim_pid",
	[MI_ALLOCS_AIM_COMM] = "aim_comm",
	[MI_ALLOCS_HASH_SIZE] = "hash_size",
	[MI_ALLOCS_SAMPLE_BYTES] = "sample_bytes",
	[MI_ALLOCS_AIM_MODULE] = "aim_module",
	[MI_ALLOCS_AIM_CGROUP] = "aim_cgroup",
	[MI_ALLOCS_AIM_CACHE] = "aim_cache",
	[MI_ALLOCS_PAGES] = "pages",
	[MI_ALLOCS_PAGE_STACK] = "page_stack",
};

static int mi_allocs_knob_show(struct seq_file *m, void *v)
{
	enum mi_allocs_knob knob = (uintptr_t)m->private;

	if (mutex_lock_killable(&mi_allocs.lock))
		return -EINTR;
	switch (knob) {
	case MI_ALLOCS_ARMED:
		seq_printf(m, "%d\n", mi_allocs.armed);
		break;
	case MI_ALLOCS_AIM_PID:
		seq_printf(m, "%d\n", mi_allocs.aim_pid);
		break;
	case MI_ALLOCS_AIM_COMM:
		seq_printf(m, "%s\n", mi_allocs.aim_comm);
		break;
	case MI_ALLOCS_SAMPLE_BYTES:
		seq_printf(m, "%u\n", mi_allocs.sample_bytes);
		break;
	case MI_ALLOCS_AIM_MODULE:
		seq_printf(m, "%s\n", mi_allocs.aim_module);
		break;
	case MI_ALLOCS_AIM_CGROUP:
		seq_printf(m, "%s\n", mi_allocs.aim_cgroup);
		break;
	case MI_ALLOCS_AIM_CACHE:
		seq_printf(m, "%s\n", mi_allocs.aim_cache);
		break;
	case MI_ALLOCS_PAGES:
		seq_printf(m, "%d\n", mi_allocs.pages);
		break;
	case MI_ALLOCS_PAGE_STACK:
		seq_printf(m, "%u\n", mi_allocs.page_stack);
		break;
	default:
		seq_printf(m, "%u\n", mi_allocs.hash_size);
		break;
	}
	mutex_unlock(&mi_allocs.lock);
	return 0;
}

static int mi_allocs_knob_open(struct inode *inode, struct file *file)
{
	return single_open(file, mi_allocs_knob_show, inode->i_private);
}

static int mi_allocs_knob_apply(enum mi_allocs_knob knob, const char *buf,
				size_t len)
{
	char comm[TASK_COMM_LEN];
	unsigned int u;
	bool on;
	int err;

	switch (knob) {
	case MI_ALLOCS_ARMED:
		err = mi_fault_parse_bool(buf, len, &on);
		return err ?: mi_allocs_set_armed(on);
	case MI_ALLOCS_AIM_PID:
		err = mi_fault_parse_uint(buf, len, 0, PID_MAX_LIMIT, &u);
		if (err)
			return err;
		if (mi_allocs.armed)
			return -EBUSY;
		return mi_allocs_aim_pid(u);
	case MI_ALLOCS_AIM_COMM:
		err = mi_fault_parse_comm(buf, len, comm, sizeof(comm));
		if (err)
			return err;
		if (mi_allocs.armed)
			return -EBUSY;
		strscpy(mi_allocs.aim_comm, comm, sizeof(mi_allocs.aim_comm));
		return 0;
	case MI_ALLOCS_SAMPLE_BYTES:
		err = mi_fault_parse_uint(buf, len, 0, MI_ALLOCS_SAMPLE_MAX, &u);
		if (err)
			return err;
		if (mi_allocs.armed)
			return -EBUSY;
		mi_allocs.sample_bytes = u;
		return 0;
	case MI_ALLOCS_AIM_MODULE:
		return mi_allocs_aim_module(buf, len);
	case MI_ALLOCS_AIM_CGROUP:
		return mi_allocs_aim_cgroup(buf, len);
	case MI_ALLOCS_AIM_CACHE:
		return mi_allocs_aim_cache(buf, len);
	case MI_ALLOCS_PAGES:
		err = mi_fault_parse_bool(buf, len, &on);
		if (err)
			return err;
		if (on && !mi_allocs_pages_available())
			return -EOPNOTSUPP;
		if (mi_allocs.armed)
			return -EBUSY;
		mi_allocs.pages = on;
		return 0;
	case MI_ALLOCS_PAGE_STACK:
		err = mi_fault_parse_uint(buf, len, 0, MI_ALLOCS_STACK_MAX, &u);
		if (err)
			return err;
		if (mi_allocs.armed)
			return -EBUSY;
		mi_allocs.page_stack = u;
		return 0;
	default:
		err = mi_fault_parse_uint(buf, len, MI_ALLOCS_HASH_MIN,
					  MI_ALLOCS_HASH_MAX, &u);
		if (err)
			return err;
		if (!is_power_of_2(u))
			return -EINVAL;
		if (mi_allocs.armed)
			return -EBUSY;
		mi_allocs.hash_size = u;
		return 0;
	}
}

static ssize_t mi_allocs_knob_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	enum mi_allocs_knob knob = (uintptr_t)m->private;
	/*
	 * the longest value is aim_cgroup's, a path as long as the
	 * injector's (systemd's and Docker's are 60 to 100 bytes), and a
	 * newline
	 */
	char buf[MI_FAULT_PATH_LEN + 1];
	int err;

	if (len >= sizeof(buf))
		return -ERANGE;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	if (mutex_lock_killable(&mi_allocs.lock))
		return -EINTR;
	err = mi_allocs_knob_apply(knob, buf, len);
	mutex_unlock(&mi_allocs.lock);
	return err ?: len;
}

static const struct file_operations mi_allocs_knob_fops = {
	.owner = THIS_MODULE,
	.open = mi_allocs_knob_open,
	.read = seq_read,
	.write = mi_allocs_knob_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* A count kept in MI_ALLOCS_FP_ONE units, rounded to the nearest whole. */
static long long mi_allocs_fp_round(long long v)
{
	return div_s64(v + (v < 0 ? -1 : 1) * (MI_ALLOCS_FP_ONE / 2),
		       MI_ALLOCS_FP_ONE);
}

/*
 * table (docs/format.md): a header, one record per call site with an
 * allocation since arming, then a "# allocs:" note of key-value pairs:
 * the mode, the tables' sizes and what overflowed.  rate is allocations
 * per second since arming.  Sampled, every figure but samples is an
 * estimate.
 */
/*
 * A site's cache column: the cache's name, "(several)", "(pages)", or "-"
 * (not known: no names, no slab_cache offset, or a cache destroyed since;
 * looked up on slab_caches, so a stale address is never dereferenced).
 */
static const char *mi_allocs_cache_name(unsigned long cache, bool names)
{
	if (cache == MI_ALLOCS_CACHE_SEVERAL)
		return "(several)";
	if (cache == MI_ALLOCS_CACHE_PAGES)
		return "(pages)";
	if (cache == MI_ALLOCS_CACHE_NONE || !names)
		return "-";
	return mi_slab_name_of((const void *)cache) ?: "-";
}

static int mi_allocs_table_show(struct seq_file *m, void *v)
{
	unsigned long ms = 0;
	unsigned int i, used = 0;
	bool names = false;

	if (mutex_lock_killable(&mi_allocs.lock))
		return -EINTR;
	seq_puts(m, "live_objs live_bytes live_bytes_alloc allocs frees rate samples cache site\n");
	if (!mi_allocs.sites)
		goto note;
	/* the cache names: caches stay on slab_caches while it is held */
	names = !mi_slab_names_lock();
	/* since arming, until disarming */
	ms = max(1U, jiffies_to_msecs((mi_allocs.armed ? jiffies :
				       mi_allocs.disarmed_at) - mi_allocs.armed_at));
	for (i = 0; i < MI_ALLOCS_SITES; i++) {
		struct mi_allocs_site *s = &mi_allocs.sites[i];
		/* pairs with the release in mi_allocs_site_get() */
		unsigned long site = smp_load_acquire(&s->call_site);
		long long allocs = atomic64_read(&s->allocs);

		if (!READ_ONCE(s->key))
			continue;
		used++;
		if (!site || !allocs)
			continue;
		seq_printf(m, "%lld %lld %lld %lld %lld %lld %lld %s ",
			   mi_allocs_fp_round(atomic64_read(&s->live)),
			   (long long)atomic64_read(&s->live_req),
			   (long long)atomic64_read(&s->live_alloc),
			   mi_allocs_fp_round(allocs),
			   mi_allocs_fp_round(atomic64_read(&s->frees)),
			   div_s64(mi_allocs_fp_round(allocs) * 1000, ms),
			   (long long)atomic64_read(&s->samples),
			   mi_allocs_cache_name(READ_ONCE(s->cache), names));
		mi_allocs_put_site(m, s, site);
		seq_putc(m, '\n');
	}
	if (names)
		mi_slab_names_unlock();
note:
	seq_printf(m, "# allocs: armed %d mode %s sample_bytes %u elapsed_ms %lu sites %u sites_used %u hash_size %u table_bytes %zu site_overflow %lld obj_overflow %lld pages %d page_nosite %lld page_stack %u\n",
		   mi_allocs.armed,
		   mi_allocs.sample_bytes ? "sampled" : "exact",
		   mi_allocs.sample_bytes, ms, MI_ALLOCS_SITES, used,
		   mi_allocs.hash_cap,
		   (mi_allocs.sites ? MI_ALLOCS_SITES * sizeof(*mi_allocs.sites) : 0) +
		   mi_allocs.hash_cap * sizeof(*mi_allocs.objs),
		   (long long)atomic64_read(&mi_allocs.site_overflow),
		   (long long)atomic64_read(&mi_allocs.obj_overflow),
		   mi_allocs.pages,
		   (long long)atomic64_read(&mi_allocs.page_nosite),
		   mi_allocs.page_stack);
	mutex_unlock(&mi_allocs.lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mi_allocs_table);

static struct mi_cap mi_allocs_cap[] = {
	{ .name = "allocs", .kind = MI_CAP_MECHANISM },
	{ .name = "allocs.aim_cache", .kind = MI_CAP_MECHANISM },
	{ .name = "allocs.pages", .kind = MI_CAP_MECHANISM },
};

static struct mi_cap_table mi_allocs_caps;

int mi_allocs_init(struct dentry *parent)
{
	char why[MI_CAP_DETAIL_LEN];
	struct dentry *file;
	uintptr_t knob;

	/* a directory of knobs and one table: a mechanism row, as fault/ */
	mi_cap_set(&mi_allocs_cap[0], true,
		   "directory allocs/: slab allocations by call site from the kmem tracepoints (docs/allocs.md); %s",
#ifdef MI_HAVE_KMEM_TP_NODE_FOLDED
		   mi_slab_size_of_available() ?
		   "kmem_cache_alloc's sizes are its cache's object_size and size (BTF)" :
		   "kmem_cache_alloc's sizes are kmem_cache_size() of its cache (kmem_cache.size not in BTF)"
#else
		   "kmalloc_node and kmem_cache_alloc_node probed too, sizes from the tracepoint"
#endif
		   );
	if (!mi_slab_find_available(why, sizeof(why)))
		mi_cap_set(&mi_allocs_cap[1], false,
			   "slab_caches cannot be walked: %s", why);
	else if (!mi_slab_cache_of_available())
		mi_cap_set(&mi_allocs_cap[1], false,
			   "member slab_cache of struct slab (struct page before 5.17) not found in BTF, or not a pointer");
	else
		mi_cap_set(&mi_allocs_cap[1], true,
			   "names looked up on slab_caches under slab_mutex; each new object's cache read from its slab's slab_cache (BTF)");
	mi_allocs_pages_init(&mi_allocs_cap[2]);
	mi_allocs_nr_inner = mi_code_ranges_fill(mi_allocs_inner_names,
						 ARRAY_SIZE(mi_allocs_inner_names),
						 mi_allocs_inner);
	mi_allocs_nr_kv = mi_code_ranges_fill(mi_allocs_kv_names,
					      ARRAY_SIZE(mi_allocs_kv_names),
					      mi_allocs_kv);
	mi_allocs_nr_large = mi_code_ranges_fill(mi_allocs_large_names,
						 ARRAY_SIZE(mi_allocs_large_names),
						 mi_allocs_large);
	mi_caps_register(&mi_allocs_caps, mi_allocs_cap,
			 ARRAY_SIZE(mi_allocs_cap));
	mi_allocs.dir = debugfs_create_dir("allocs", parent);
	if (IS_ERR(mi_allocs.dir))
		return PTR_ERR(mi_allocs.dir);
	for (knob = 0; knob < MI_ALLOCS_NR_KNOBS; knob++) {
		file = debugfs_create_file(mi_allocs_knob_names[knob], 0600,
					   mi_allocs.dir, (void *)knob,
					   &mi_allocs_knob_fops);
		if (IS_ERR(file))
			return PTR_ERR(file);
	}
	file = debugfs_create_file("table", 0400, mi_allocs.dir, NULL,
				   &mi_allocs_table_fops);
	if (IS_ERR(file))
		return PTR_ERR(file);
	return mi_allocs_outstanding_create(mi_allocs.dir);
}

/* After debugfs_remove_recursive(): no knob write can arm again. */
void mi_allocs_exit(void)
{
	if (mi_allocs_caps.caps)
		mi_caps_unregister(&mi_allocs_caps);
	mi_allocs_caps.caps = NULL;
	mutex_lock(&mi_allocs.lock);
	mi_allocs_set_armed(false);	/* detaches, drops the module aim */
	if (mi_allocs.cgrp)
		cgroup_put(mi_allocs.cgrp);
	mi_allocs.cgrp = NULL;
	put_pid(mi_allocs.pid);
	mi_allocs.pid = NULL;
	mutex_unlock(&mi_allocs.lock);
	vfree(mi_allocs.objs);
	vfree(mi_allocs.sites);
}
