// SPDX-License-Identifier: GPL-2.0
/*
 * allocs/ - slab allocations by call site, from the exported kmem
 * tracepoints (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free) and the
 * bulk frees, which fire none.  This file holds the two tables the probes
 * fill and their arming; allocs_probes.c the probes, allocs_bulk.c the
 * bulk frees, allocs_knobs.c the knobs, allocs_table.c the table file,
 * allocs_names.c the names of call sites in code that goes away.
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
#include <linux/kprobes.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "allocs.h"
#include "allocs_priv.h"
#include "capabilities.h"
#include "fault.h"
#include "fault_parse.h"
#include "slab.h"

#define MI_ALLOCS_PROBES	32	/* slots tried per insert or lookup */

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

/* called by allocs_bulk.c's kprobe handlers */
NOKPROBE_SYMBOL(mi_allocs_forget);

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
	mi_allocs_names_reset();
	mi_allocs.armed_at = jiffies;
	return 0;
}

int mi_allocs_set_armed(bool on)
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

enum {
	MI_ALLOCS_ROW_ALLOCS,
	MI_ALLOCS_ROW_AIM_CACHE,
	MI_ALLOCS_ROW_PAGES,
	MI_ALLOCS_ROW_BULK,
	MI_ALLOCS_NR_ROWS
};

static struct mi_cap mi_allocs_cap[MI_ALLOCS_NR_ROWS] = {
	[MI_ALLOCS_ROW_ALLOCS] = { .name = "allocs", .kind = MI_CAP_MECHANISM },
	[MI_ALLOCS_ROW_AIM_CACHE] = { .name = "allocs.aim_cache", .kind = MI_CAP_MECHANISM },
	[MI_ALLOCS_ROW_PAGES] = { .name = "allocs.pages", .kind = MI_CAP_MECHANISM },
	[MI_ALLOCS_ROW_BULK] = { .name = "allocs.bulk_free", .kind = MI_CAP_MECHANISM },
};

static struct mi_cap_table mi_allocs_caps;

int mi_allocs_init(struct dentry *parent)
{
	char why[MI_CAP_DETAIL_LEN];
	int err;

	/* a directory of knobs and one table: a mechanism row, as fault/ */
	mi_cap_set(&mi_allocs_cap[MI_ALLOCS_ROW_ALLOCS], true,
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
		mi_cap_set(&mi_allocs_cap[MI_ALLOCS_ROW_AIM_CACHE], false,
			   "slab_caches cannot be walked: %s", why);
	else if (!mi_slab_cache_of_available())
		mi_cap_set(&mi_allocs_cap[MI_ALLOCS_ROW_AIM_CACHE], false,
			   "member slab_cache of struct slab (struct page before 5.17) not found in BTF, or not a pointer");
	else
		mi_cap_set(&mi_allocs_cap[MI_ALLOCS_ROW_AIM_CACHE], true,
			   "names looked up on slab_caches under slab_mutex; each new object's cache read from its slab's slab_cache (BTF)");
	mi_allocs_pages_init(&mi_allocs_cap[MI_ALLOCS_ROW_PAGES]);
	mi_allocs_bulk_init(&mi_allocs_cap[MI_ALLOCS_ROW_BULK]);
	mi_allocs_probes_init();
	mi_caps_register(&mi_allocs_caps, mi_allocs_cap,
			 ARRAY_SIZE(mi_allocs_cap));
	err = mi_allocs_names_init();
	if (err)
		return err;
	mi_allocs.dir = debugfs_create_dir("allocs", parent);
	if (IS_ERR(mi_allocs.dir))
		return PTR_ERR(mi_allocs.dir);
	err = mi_allocs_knobs_create(mi_allocs.dir);
	if (err)
		return err;
	err = mi_allocs_table_create(mi_allocs.dir);
	if (err)
		return err;
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
	mi_allocs_names_exit();
	vfree(mi_allocs.objs);
	vfree(mi_allocs.sites);
}
