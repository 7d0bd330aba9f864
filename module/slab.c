// SPDX-License-Identifier: GPL-2.0
/*
 * slabs: one record per slab cache (docs/slabs.md).
 *
 * struct kmem_cache, struct kmem_cache_node and struct slab are private to
 * mm/ (from 6.8 even struct kmem_cache) and their layouts change with the
 * version and the config, so none of them is copied here.  At load time
 * the module asks the running kernel's own BTF (btf.c) where each member
 * it reads sits, and checks each member's size; a member that is missing
 * or has an unexpected size turns the fields that need it into "-", and
 * the capabilities file says which member was missing.  slab_caches and
 * slab_mutex are not exported: ksyms finds them (data, only read and
 * locked, never called).
 *
 * The counts are computed as SLUB's get_slabinfo() computes them for
 * /proc/slabinfo: total objects and slabs from the per-node counters,
 * free objects from the node partial lists (objects held by per-CPU slabs
 * and sheaves count as active).  The partial lists are walked under the
 * node's list_lock with IRQs off; a list longer than MI_PARTIAL_SCAN slabs
 * is sampled at both ends and extrapolated, as count_partial_free_approx()
 * ("mm, slub: use count_partial_free_approx() in slab_out_of_memory()",
 * v6.10) does, and the file says so in a "# estimated" note.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "btf.h"
#include "capabilities.h"
#include "ksyms.h"
#include "slab.h"

/* the kernel's MAX_PARTIAL_TO_SCAN (mm/slub.c, v6.10) */
#define MI_PARTIAL_SCAN		10000UL
/* kmem_cache.oo: order above OO_SHIFT, objects below (mm/slub.c) */
#define MI_OO_SHIFT		16
#define MI_OO_MASK		((1U << MI_OO_SHIFT) - 1)
/* a slab is at most a few MiB: higher is a misread, not a slab */
#define MI_MAX_SLAB_ORDER	10

/* One member read by the walk: byte offset and size, or bitfield. */
struct mi_mem {
	const char *owner;	/* BTF struct name, for capabilities */
	const char *name;
	u32 off, size;		/* bytes */
	u32 bit_shift, bits;	/* bitfields: inside the u32 at @off */
	bool ok;
};

/*
 * The members, found by mi_slab_layout(): MI_KC_* of struct kmem_cache,
 * MI_KN_* of struct kmem_cache_node, MI_SL_* of struct slab.
 */
enum {
	MI_KC_NAME, MI_KC_LIST, MI_KC_SIZE, MI_KC_OBJECT_SIZE, MI_KC_ALIGN, MI_KC_FLAGS, MI_KC_OO,
	MI_KC_REFCOUNT, MI_KC_NODE,
	MI_KN_LIST_LOCK, MI_KN_NR_PARTIAL, MI_KN_PARTIAL, MI_KN_NR_SLABS, MI_KN_TOTAL_OBJECTS,
	MI_SL_SLAB_LIST, MI_SL_INUSE, MI_SL_OBJECTS,
	MI_NR_MEMS
};

static struct {
	struct list_head *caches;	/* slab_caches */
	struct mutex *mutex;		/* slab_mutex */
	struct mi_mem mem[MI_NR_MEMS];
	u32 node_stride, node_ptr, node_nr; /* kmem_cache's node pointers */
	bool walk;			/* caches, names and nodes readable */
	bool partial_walk;		/* free objects on partial lists */
	char why[MI_CAP_DETAIL_LEN];	/* why not @walk */
} mi_slab;

/* capabilities rows */
enum {
	MI_ROW_BTF, MI_ROW_LIST,
	MI_ROW_OBJECT_SIZE, MI_ROW_SLAB_SIZE, MI_ROW_ALIGN, MI_ROW_OBJS, MI_ROW_ORDER,
	MI_ROW_ACTIVE_OBJS, MI_ROW_TOTAL_OBJS, MI_ROW_ACTIVE_SLABS, MI_ROW_TOTAL_SLABS,
	MI_ROW_PARTIAL, MI_ROW_MEMORY, MI_ROW_LIVE, MI_ROW_WASTE, MI_ROW_WASTE_PCT,
	MI_ROW_ALIASES, MI_ROW_FLAGS,
	MI_NR_ROWS
};

static struct mi_cap mi_slab_caps[MI_NR_ROWS] = {
	[MI_ROW_BTF] = { .name = "btf", .kind = MI_CAP_MECHANISM },
	[MI_ROW_LIST] = { .name = "slab_caches", .kind = MI_CAP_MECHANISM },
	[MI_ROW_OBJECT_SIZE] = { .name = "slabs.object_size", .kind = MI_CAP_FIELD },
	[MI_ROW_SLAB_SIZE] = { .name = "slabs.slab_size", .kind = MI_CAP_FIELD },
	[MI_ROW_ALIGN] = { .name = "slabs.align", .kind = MI_CAP_FIELD },
	[MI_ROW_OBJS] = { .name = "slabs.objs_per_slab", .kind = MI_CAP_FIELD },
	[MI_ROW_ORDER] = { .name = "slabs.order", .kind = MI_CAP_FIELD },
	[MI_ROW_ACTIVE_OBJS] = { .name = "slabs.active_objs", .kind = MI_CAP_FIELD },
	[MI_ROW_TOTAL_OBJS] = { .name = "slabs.total_objs", .kind = MI_CAP_FIELD },
	[MI_ROW_ACTIVE_SLABS] = { .name = "slabs.active_slabs", .kind = MI_CAP_FIELD },
	[MI_ROW_TOTAL_SLABS] = { .name = "slabs.total_slabs", .kind = MI_CAP_FIELD },
	[MI_ROW_PARTIAL] = { .name = "slabs.partial_slabs", .kind = MI_CAP_FIELD },
	[MI_ROW_MEMORY] = { .name = "slabs.memory_bytes", .kind = MI_CAP_FIELD },
	[MI_ROW_LIVE] = { .name = "slabs.live_bytes", .kind = MI_CAP_FIELD },
	[MI_ROW_WASTE] = { .name = "slabs.waste_bytes", .kind = MI_CAP_FIELD },
	[MI_ROW_WASTE_PCT] = { .name = "slabs.waste_pct", .kind = MI_CAP_FIELD },
	[MI_ROW_ALIASES] = { .name = "slabs.aliases", .kind = MI_CAP_FIELD },
	[MI_ROW_FLAGS] = { .name = "slabs.flags", .kind = MI_CAP_FIELD },
};

static struct mi_cap_table mi_slab_table;

/* ---- layout: where the members are on this kernel -------------------- */

/*
 * Find member @name of struct @sid (BTF id) into @m, and check its size:
 * @size bytes, or a bitfield of at most 32 bits inside one u32 when @size
 * is 0.
 */
static void mi_find_mem(u32 sid, const char *owner, const char *name,
			u32 size, struct mi_mem *m)
{
	struct mi_btf_member bm;

	m->owner = owner;
	m->name = name;
	m->ok = false;
	if (!sid || !mi_btf_member(sid, name, &bm))
		return;
	if (size) {
		if (bm.bit_size || bm.bit_offset % 8 || bm.size != size)
			return;
		m->off = bm.bit_offset / 8;
		m->size = size;
	} else {
		if (!bm.bit_size || bm.bit_offset % 32 + bm.bit_size > 32)
			return;
		m->off = bm.bit_offset / 32 * 4;
		m->bit_shift = bm.bit_offset % 32;
		m->bits = bm.bit_size;
		m->size = 4;
	}
	m->ok = true;
}

/*
 * kmem_cache's per-node pointers: "struct kmem_cache_node *node[]" up to
 * 6.17; from "slab: add sheaves to most caches" (v6.18 series) an array
 * "per_node[]" of structs whose member "node" is the pointer.
 */
static void mi_find_nodes(u32 cid)
{
	struct mi_mem *m = &mi_slab.mem[MI_KC_NODE];
	struct mi_btf_member bm, pm;
	u32 elem, n;

	m->owner = "kmem_cache";
	m->name = "node";
	m->ok = false;
	if (mi_btf_member(cid, "node", &bm) && !bm.bit_size &&
	    mi_btf_array(bm.type, &elem, &n) && mi_btf_ptr(elem, &elem)) {
		mi_slab.node_stride = sizeof(void *);
		mi_slab.node_ptr = 0;
	} else if (mi_btf_member(cid, "per_node", &bm) && !bm.bit_size &&
		   mi_btf_array(bm.type, &elem, &n) && mi_btf_is_struct(elem) &&
		   mi_btf_member(elem, "node", &pm) && !pm.bit_size &&
		   pm.size == sizeof(void *)) {
		m->name = "per_node[].node";
		mi_slab.node_stride = mi_btf_size(elem);
		mi_slab.node_ptr = pm.bit_offset / 8;
	} else {
		return;
	}
	if (!n || bm.bit_offset % 8 || !mi_slab.node_stride)
		return;
	m->off = bm.bit_offset / 8;
	mi_slab.node_nr = min_t(u32, n, nr_node_ids);
	m->ok = true;
}

static void mi_slab_layout(void)
{
	struct mi_mem *m = mi_slab.mem;
	u32 cid, nid, sid;

	cid = mi_btf_struct("kmem_cache");
	nid = mi_btf_struct("kmem_cache_node");
	/*
	 * "mm: Split slab into its own type" (d122019bf061, v5.17): before
	 * it the slab fields live in struct page.
	 */
	sid = mi_btf_struct("slab");
	if (!sid || !mi_btf_member(sid, "slab_list", &(struct mi_btf_member){}))
		sid = mi_btf_struct("page");

	mi_find_mem(cid, "kmem_cache", "name", sizeof(void *), &m[MI_KC_NAME]);
	mi_find_mem(cid, "kmem_cache", "list", sizeof(struct list_head),
		    &m[MI_KC_LIST]);
	mi_find_mem(cid, "kmem_cache", "size", sizeof(u32), &m[MI_KC_SIZE]);
	mi_find_mem(cid, "kmem_cache", "object_size", sizeof(u32),
		    &m[MI_KC_OBJECT_SIZE]);
	mi_find_mem(cid, "kmem_cache", "align", sizeof(u32), &m[MI_KC_ALIGN]);
	mi_find_mem(cid, "kmem_cache", "flags", sizeof(slab_flags_t),
		    &m[MI_KC_FLAGS]);
	mi_find_mem(cid, "kmem_cache", "oo", sizeof(u32), &m[MI_KC_OO]);
	mi_find_mem(cid, "kmem_cache", "refcount", sizeof(int),
		    &m[MI_KC_REFCOUNT]);
	mi_find_nodes(cid);

	mi_find_mem(nid, "kmem_cache_node", "list_lock", sizeof(spinlock_t),
		    &m[MI_KN_LIST_LOCK]);
	mi_find_mem(nid, "kmem_cache_node", "nr_partial",
		    sizeof(unsigned long), &m[MI_KN_NR_PARTIAL]);
	mi_find_mem(nid, "kmem_cache_node", "partial",
		    sizeof(struct list_head), &m[MI_KN_PARTIAL]);
	mi_find_mem(nid, "kmem_cache_node", "nr_slabs", sizeof(atomic_long_t),
		    &m[MI_KN_NR_SLABS]);
	mi_find_mem(nid, "kmem_cache_node", "total_objects",
		    sizeof(atomic_long_t), &m[MI_KN_TOTAL_OBJECTS]);

	mi_find_mem(sid, sid == mi_btf_struct("page") ? "page" : "slab",
		    "slab_list", sizeof(struct list_head), &m[MI_SL_SLAB_LIST]);
	mi_find_mem(sid, m[MI_SL_SLAB_LIST].owner, "inuse", 0, &m[MI_SL_INUSE]);
	mi_find_mem(sid, m[MI_SL_SLAB_LIST].owner, "objects", 0, &m[MI_SL_OBJECTS]);
}

/* ---- capabilities ------------------------------------------------------- */

/* The first member of @need[] that is missing, or NULL. */
static const struct mi_mem *mi_missing(const int *need, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!mi_slab.mem[need[i]].ok)
			return &mi_slab.mem[need[i]];
	return NULL;
}

/* Row @row: available iff every member in @need[] was found. */
static void mi_row(int row, const int *need, int n, const char *how)
{
	struct mi_cap *cap = &mi_slab_caps[row];
	const struct mi_mem *miss;

	if (!mi_slab.walk) {
		mi_cap_set(cap, false, "%s", mi_slab.why);
		return;
	}
	miss = mi_missing(need, n);
	if (miss)
		mi_cap_set(cap, false,
			   "member %s.%s not found in BTF, or not of the expected size",
			   miss->owner, miss->name);
	else
		mi_cap_set(cap, true, "%s", how);
}

#define MI_ROW(row, how, ...) do {				\
	static const int need[] = { __VA_ARGS__ };		\
	mi_row(row, need, ARRAY_SIZE(need), how);		\
} while (0)

static void mi_slab_rows(void)
{
	MI_ROW(MI_ROW_OBJECT_SIZE, "kmem_cache.object_size (BTF)", MI_KC_OBJECT_SIZE);
	MI_ROW(MI_ROW_SLAB_SIZE, "kmem_cache.size (BTF), object with metadata",
	       MI_KC_SIZE);
	MI_ROW(MI_ROW_ALIGN, "kmem_cache.align (BTF)", MI_KC_ALIGN);
	MI_ROW(MI_ROW_OBJS, "kmem_cache.oo (BTF) below OO_SHIFT 16", MI_KC_OO);
	MI_ROW(MI_ROW_ORDER, "kmem_cache.oo (BTF) above OO_SHIFT 16", MI_KC_OO);
	MI_ROW(MI_ROW_TOTAL_OBJS, "sum of kmem_cache_node.total_objects (BTF)",
	       MI_KN_TOTAL_OBJECTS);
	MI_ROW(MI_ROW_TOTAL_SLABS, "sum of kmem_cache_node.nr_slabs (BTF)",
	       MI_KN_NR_SLABS);
	MI_ROW(MI_ROW_PARTIAL, "sum of kmem_cache_node.nr_partial (BTF)",
	       MI_KN_NR_PARTIAL);
	MI_ROW(MI_ROW_ACTIVE_OBJS,
	       "total_objs - free objects on node partial lists, as get_slabinfo(); walk capped at 10000 slabs per node",
	       MI_KN_TOTAL_OBJECTS, MI_KN_LIST_LOCK, MI_KN_PARTIAL, MI_SL_SLAB_LIST, MI_SL_INUSE,
	       MI_SL_OBJECTS);
	MI_ROW(MI_ROW_ACTIVE_SLABS,
	       "total_slabs - empty slabs on node partial lists",
	       MI_KN_NR_SLABS, MI_KN_LIST_LOCK, MI_KN_PARTIAL, MI_SL_SLAB_LIST, MI_SL_INUSE,
	       MI_SL_OBJECTS);
	MI_ROW(MI_ROW_MEMORY, "total_slabs * (PAGE_SIZE << order), as slabtop",
	       MI_KN_NR_SLABS, MI_KC_OO);
	MI_ROW(MI_ROW_LIVE, "active_objs * object_size", MI_KN_TOTAL_OBJECTS,
	       MI_KN_LIST_LOCK, MI_KN_PARTIAL, MI_SL_SLAB_LIST, MI_SL_INUSE, MI_SL_OBJECTS,
	       MI_KC_OBJECT_SIZE);
	MI_ROW(MI_ROW_WASTE, "memory_bytes - live_bytes", MI_KN_TOTAL_OBJECTS,
	       MI_KN_NR_SLABS, MI_KC_OO, MI_KN_LIST_LOCK, MI_KN_PARTIAL, MI_SL_SLAB_LIST,
	       MI_SL_INUSE, MI_SL_OBJECTS, MI_KC_OBJECT_SIZE);
	MI_ROW(MI_ROW_WASTE_PCT, "100 * waste_bytes / memory_bytes, rounded down",
	       MI_KN_TOTAL_OBJECTS, MI_KN_NR_SLABS, MI_KC_OO, MI_KN_LIST_LOCK, MI_KN_PARTIAL,
	       MI_SL_SLAB_LIST, MI_SL_INUSE, MI_SL_OBJECTS, MI_KC_OBJECT_SIZE);
	MI_ROW(MI_ROW_ALIASES,
	       "kmem_cache.refcount - 1 (BTF), as /sys/kernel/slab/*/aliases; names only in sysfs",
	       MI_KC_REFCOUNT);
	MI_ROW(MI_ROW_FLAGS, "kmem_cache.flags (BTF), SLAB_* of <linux/slab.h>",
	       MI_KC_FLAGS);
	mi_slab.partial_walk = !mi_missing((const int[]){ MI_KN_LIST_LOCK, MI_KN_PARTIAL,
		MI_SL_SLAB_LIST, MI_SL_INUSE, MI_SL_OBJECTS, MI_KN_TOTAL_OBJECTS }, 6);
}

void mi_slab_init(void)
{
	char desc[64];
	int err;

	err = mi_btf_open(mi_slab.why, sizeof(mi_slab.why));
	if (err) {
		mi_cap_set(&mi_slab_caps[MI_ROW_BTF], false, "%s", mi_slab.why);
		goto rows;
	}
	mi_btf_describe(desc, sizeof(desc));
	mi_cap_set(&mi_slab_caps[MI_ROW_BTF], true,
		   "vmlinux BTF at __start_BTF (not exported) via ksyms, %s; read at load",
		   desc);
	mi_slab_layout();
	mi_slab_object_layout();
	mi_cg_slab_layout();
	mi_btf_close();

	mi_slab.caches = (struct list_head *)mi_ksym("slab_caches");
	mi_slab.mutex = (struct mutex *)mi_ksym("slab_mutex");
	if (!mi_slab.caches || !mi_slab.mutex) {
		snprintf(mi_slab.why, sizeof(mi_slab.why), "symbol %s not found%s",
			 mi_slab.caches ? "slab_mutex" : "slab_caches",
			 mi_ksyms_scope());
	} else if (!mi_slab.mem[MI_KC_NAME].ok || !mi_slab.mem[MI_KC_LIST].ok ||
		   !mi_slab.mem[MI_KC_NODE].ok) {
		const struct mi_mem *mem = mi_slab.mem;
		const struct mi_mem *m = !mem[MI_KC_NAME].ok ? &mem[MI_KC_NAME] :
			!mem[MI_KC_LIST].ok ? &mem[MI_KC_LIST] : &mem[MI_KC_NODE];

		snprintf(mi_slab.why, sizeof(mi_slab.why),
			 "member %s.%s not found in BTF, or not of the expected size",
			 m->owner, m->name);
	} else {
		mi_slab.walk = true;
	}
rows:
	if (mi_slab.walk)
		mi_cap_set(&mi_slab_caps[MI_ROW_LIST], true,
			   "slab_caches, slab_mutex (not exported) via ksyms; kmem_cache.list, .name, .%s (BTF)",
			   mi_slab.mem[MI_KC_NODE].name);
	else
		mi_cap_set(&mi_slab_caps[MI_ROW_LIST], false, "%s", mi_slab.why);
	mi_slab_rows();
	mi_caps_register(&mi_slab_table, mi_slab_caps,
			 ARRAY_SIZE(mi_slab_caps));
}

void mi_slab_exit(void)
{
	mi_caps_unregister(&mi_slab_table);
}

/* ---- the walk ------------------------------------------------------------ */

struct mi_slab_row {
	char *name;			/* in the snapshot's allocation */
	u32 object_size, size, align, oo, flags;
	int refcount;
	unsigned long total_objs, total_slabs, nr_partial;
	unsigned long free_objs, empty_slabs;
	unsigned long scanned, partial_seen;	/* estimate when != */
};

struct mi_slab_snap {
	unsigned int nr;
	struct mi_slab_row row[];
};

static u32 mi_rd32(const void *base, const struct mi_mem *m)
{
	return m->ok ? READ_ONCE(*(const u32 *)(base + m->off)) : 0;
}

static unsigned long mi_rdlong(const void *base, const struct mi_mem *m)
{
	return m->ok ? READ_ONCE(*(const unsigned long *)(base + m->off)) : 0;
}

static u32 mi_rdbits(const void *base, const struct mi_mem *m)
{
	u32 w = READ_ONCE(*(const u32 *)(base + m->off));

	return (w >> m->bit_shift) & (u32)GENMASK(m->bits - 1, 0);
}

/* Objects - inuse of the slab whose slab_list is @pos; counts empties. */
static void mi_count_slab(struct mi_slab_row *r, const struct list_head *pos)
{
	const void *slab = (const void *)pos - mi_slab.mem[MI_SL_SLAB_LIST].off;
	u32 objs = mi_rdbits(slab, &mi_slab.mem[MI_SL_OBJECTS]);
	u32 inuse = mi_rdbits(slab, &mi_slab.mem[MI_SL_INUSE]);

	if (inuse < objs)
		r->free_objs += objs - inuse;
	if (!inuse)
		r->empty_slabs++;
}

/*
 * Free objects and empty slabs on one node's partial list, under its
 * list_lock with IRQs off, as count_partial_free_approx() (v6.10): the
 * whole list up to MI_PARTIAL_SCAN slabs, else MI_PARTIAL_SCAN / 2 from
 * each end, scaled up to the list's length.
 */
static void mi_walk_partial(struct mi_slab_row *r, void *n)
{
	spinlock_t *lock = n + mi_slab.mem[MI_KN_LIST_LOCK].off;
	struct list_head *head = n + mi_slab.mem[MI_KN_PARTIAL].off;
	unsigned long nr, scanned = 0, free0 = r->free_objs;
	unsigned long empty0 = r->empty_slabs;
	struct list_head *pos;
	unsigned long flags;

	spin_lock_irqsave(lock, flags);
	nr = mi_rdlong(n, &mi_slab.mem[MI_KN_NR_PARTIAL]);
	if (nr <= MI_PARTIAL_SCAN) {
		list_for_each(pos, head) {
			mi_count_slab(r, pos);
			/* nr_partial and the list agree under the lock */
			if (++scanned == MI_PARTIAL_SCAN)
				break;
		}
		nr = scanned;
	} else {
		list_for_each(pos, head) {
			mi_count_slab(r, pos);
			if (++scanned == MI_PARTIAL_SCAN / 2)
				break;
		}
		list_for_each_prev(pos, head) {
			mi_count_slab(r, pos);
			if (++scanned == MI_PARTIAL_SCAN)
				break;
		}
	}
	spin_unlock_irqrestore(lock, flags);

	if (scanned && scanned < nr) {
		r->free_objs = free0 + mult_frac(r->free_objs - free0, nr,
						 scanned);
		r->empty_slabs = empty0 + mult_frac(r->empty_slabs - empty0,
						    nr, scanned);
	}
	r->scanned += scanned;
	r->partial_seen += nr;
}

/* Caller holds slab_mutex: @s is on slab_caches and cannot go away. */
static void mi_read_cache(struct mi_slab_row *r, void *s)
{
	const struct mi_mem *m = mi_slab.mem;
	u32 i;

	r->object_size = mi_rd32(s, &m[MI_KC_OBJECT_SIZE]);
	r->size = mi_rd32(s, &m[MI_KC_SIZE]);
	r->align = mi_rd32(s, &m[MI_KC_ALIGN]);
	r->oo = mi_rd32(s, &m[MI_KC_OO]);
	r->flags = mi_rd32(s, &m[MI_KC_FLAGS]);
	r->refcount = (int)mi_rd32(s, &m[MI_KC_REFCOUNT]);

	for (i = 0; i < mi_slab.node_nr; i++) {
		void *n = READ_ONCE(*(void **)(s + m[MI_KC_NODE].off +
					       i * mi_slab.node_stride + mi_slab.node_ptr));

		if (!n)
			continue;
		if (m[MI_KN_TOTAL_OBJECTS].ok)
			r->total_objs += atomic_long_read(n +
							  m[MI_KN_TOTAL_OBJECTS].off);
		if (m[MI_KN_NR_SLABS].ok)
			r->total_slabs += atomic_long_read(n +
							   m[MI_KN_NR_SLABS].off);
		/* racy read outside list_lock, as /sys/kernel/slab/NAME/partial */
		r->nr_partial += data_race(mi_rdlong(n, &m[MI_KN_NR_PARTIAL]));
		if (mi_slab.partial_walk)
			mi_walk_partial(r, n);
	}
}

static void mi_snap_free(struct mi_slab_snap *snap)
{
	if (!IS_ERR_OR_NULL(snap))
		kvfree(snap);
}

/*
 * A snapshot is one allocation (records, then the names) from the page
 * allocator: never from a slab cache, so that taking it does not change
 * the counts it records.  kvmalloc() of more than KMALLOC_MAX_CACHE_SIZE
 * bytes goes to the page allocator (or vmalloc) on every kernel.
 */
static struct mi_slab_snap *mi_snap_alloc(unsigned int nr, size_t names)
{
	size_t size = struct_size((struct mi_slab_snap *)NULL, row, nr);

	if (size + names < size)
		return NULL;
	size = max_t(size_t, size + names, KMALLOC_MAX_CACHE_SIZE + 1);
	return kvzalloc(size, GFP_KERNEL);
}

static const char *mi_cache_name(void *s)
{
	const char *name = READ_ONCE(*(const char **)(s + mi_slab.mem[MI_KC_NAME].off));

	return name ?: "?";
}

/*
 * Copy every cache's figures under slab_mutex (taken killably), so that
 * the lock is not held while the reader copies text out.  Caches on
 * slab_caches cannot be destroyed while it is held: kmem_cache_destroy()
 * takes it to unlink them.
 */
static struct mi_slab_snap *mi_snap_take(void)
{
	struct mi_slab_snap *snap = NULL;
	struct list_head *pos;
	unsigned int nr = 0;
	size_t names = 0;
	char *name, *end;
	int err;

	if (!mi_slab.walk)
		return mi_snap_alloc(0, 0) ?: ERR_PTR(-ENOMEM);

	err = mutex_lock_killable(mi_slab.mutex);
	if (err)
		return ERR_PTR(err);
	list_for_each(pos, mi_slab.caches) {
		names += strlen(mi_cache_name((void *)pos -
					      mi_slab.mem[MI_KC_LIST].off)) + 1;
		nr++;
	}
	snap = mi_snap_alloc(nr, names);
	if (!snap) {
		err = -ENOMEM;
		goto unlock;
	}
	name = (char *)&snap->row[nr];
	end = name + names;
	list_for_each(pos, mi_slab.caches) {
		void *s = (void *)pos - mi_slab.mem[MI_KC_LIST].off;
		struct mi_slab_row *r;
		ssize_t len;

		/* names do not change, and slab_mutex keeps the list still */
		if (WARN_ON_ONCE(name >= end || snap->nr >= nr))
			break;
		r = &snap->row[snap->nr++];
		r->name = name;
		len = strscpy(name, mi_cache_name(s), end - name);
		name += (len < 0 ? end - name - 1 : len) + 1;
		/* the line format has no spaces inside a value */
		strreplace(r->name, ' ', '_');
		mi_read_cache(r, s);
		cond_resched();
	}
unlock:
	mutex_unlock(mi_slab.mutex);
	return err ? ERR_PTR(err) : snap;
}

/* Can mi_slab_find_cache() work on this kernel?  Why not, into @why. */
bool mi_slab_find_available(char *why, size_t len)
{
	if (!mi_slab.walk)
		strscpy(why, mi_slab.why, len);
	return mi_slab.walk;
}

/* slab_mutex for mi_slab_search(): 0, -EOPNOTSUPP (no list) or -EINTR */
int mi_slab_names_lock(void)
{
	return mi_slab.walk ? mutex_lock_killable(mi_slab.mutex) : -EOPNOTSUPP;
}

void mi_slab_names_unlock(void)
{
	mutex_unlock(mi_slab.mutex);
}

/*
 * The cache called @name, or (@name NULL) the one at @cache, on
 * slab_caches, its name in *@namep; NULL if none.  Caller holds
 * mi_slab_names_lock().
 */
void *mi_slab_search(const char *name, const void *cache, const char **namep)
{
	struct list_head *pos;

	list_for_each(pos, mi_slab.caches) {
		void *s = (void *)pos - mi_slab.mem[MI_KC_LIST].off;

		*namep = mi_cache_name(s);
		if (name ? !strcmp(*namep, name) : s == cache)
			return s;
	}
	return NULL;
}

/* Each cache on slab_caches and its name to @fn; under mi_slab_names_lock(). */
void mi_slab_each(void (*fn)(void *s, const char *name, void *arg), void *arg)
{
	struct list_head *pos;

	list_for_each(pos, mi_slab.caches) {
		void *s = (void *)pos - mi_slab.mem[MI_KC_LIST].off;

		fn(s, mi_cache_name(s), arg);
	}
}

/* ---- the file ------------------------------------------------------------ */

static const struct {
	slab_flags_t flag;
	const char *name;
} mi_flag_names[] = {
	{ SLAB_HWCACHE_ALIGN, "hwcache_align" },
	{ SLAB_RECLAIM_ACCOUNT, "reclaim_account" },
	{ SLAB_ACCOUNT, "account" },
	{ SLAB_TYPESAFE_BY_RCU, "typesafe_by_rcu" },
	{ SLAB_POISON, "poison" },
	{ SLAB_RED_ZONE, "red_zone" },
	{ SLAB_STORE_USER, "store_user" },
	{ SLAB_CONSISTENCY_CHECKS, "consistency_checks" },
	{ SLAB_TRACE, "trace" },
	{ SLAB_CACHE_DMA, "cache_dma" },
	{ SLAB_CACHE_DMA32, "cache_dma32" },
	{ SLAB_PANIC, "panic" },
	{ SLAB_NOLEAKTRACE, "noleaktrace" },
};

static void mi_put_num(struct seq_file *m, bool ok, unsigned long long v)
{
	if (ok)
		seq_put_decimal_ull(m, " ", v);
	else
		seq_puts(m, " -");
}

static void mi_show_row(struct seq_file *m, const struct mi_slab_row *r)
{
	const struct mi_mem *mem = mi_slab.mem;
	bool walk = mi_slab.partial_walk, oo = mem[MI_KC_OO].ok;
	bool slabs = mem[MI_KN_NR_SLABS].ok, osz = mem[MI_KC_OBJECT_SIZE].ok;
	unsigned long active = r->total_objs - min(r->free_objs, r->total_objs);
	u32 order = r->oo >> MI_OO_SHIFT;
	unsigned long long memory = 0, live = (u64)active * r->object_size;
	bool first = true;
	unsigned int i;

	if (order > MI_MAX_SLAB_ORDER)
		oo = false;
	if (oo)
		memory = (u64)r->total_slabs * (PAGE_SIZE << order);

	seq_puts(m, r->name);
	mi_put_num(m, osz, r->object_size);
	mi_put_num(m, mem[MI_KC_SIZE].ok, r->size);
	mi_put_num(m, mem[MI_KC_ALIGN].ok, r->align);
	mi_put_num(m, oo, r->oo & MI_OO_MASK);
	mi_put_num(m, oo, order);
	mi_put_num(m, walk, active);
	mi_put_num(m, mem[MI_KN_TOTAL_OBJECTS].ok, r->total_objs);
	mi_put_num(m, walk && slabs,
		   r->total_slabs - min(r->empty_slabs, r->total_slabs));
	mi_put_num(m, slabs, r->total_slabs);
	mi_put_num(m, mem[MI_KN_NR_PARTIAL].ok, r->nr_partial);
	mi_put_num(m, slabs && oo, memory);
	mi_put_num(m, walk && osz, live);
	mi_put_num(m, walk && osz && slabs && oo,
		   memory - min(live, memory));
	mi_put_num(m, walk && osz && slabs && oo,
		   memory ? div64_u64((memory - min(live, memory)) * 100,
				      memory) : 0);
	mi_put_num(m, mem[MI_KC_REFCOUNT].ok, r->refcount < 0 ? 0 :
		   r->refcount - 1);
	seq_putc(m, ' ');
	if (!mem[MI_KC_FLAGS].ok) {
		seq_puts(m, "-\n");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(mi_flag_names); i++) {
		if (!mi_flag_names[i].flag ||
		    !(r->flags & (__force u32)mi_flag_names[i].flag))
			continue;
		if (!first)
			seq_putc(m, ',');
		seq_puts(m, mi_flag_names[i].name);
		first = false;
	}
	seq_puts(m, first ? "none\n" : "\n");
}

static void mi_show_notes(struct seq_file *m, const struct mi_slab_snap *s)
{
	unsigned int i;

	if (!mi_slab.walk)
		seq_printf(m, "# unavailable: %s\n", mi_slab.why);
	for (i = 0; i < s->nr; i++) {
		const struct mi_slab_row *r = &s->row[i];

		if (r->scanned < r->partial_seen)
			seq_printf(m,
				   "# estimated: %s: free objects and empty slabs extrapolated from %lu of %lu partial slabs\n",
				   r->name, r->scanned, r->partial_seen);
	}
}

/*
 * Positions: 0 the header, 1..nr the caches, nr + 1 the notes.  The
 * snapshot is taken at the first start(), after seq_read() has allocated
 * its buffer, as /proc/slabinfo's counts include its own buffer, and again
 * at every read from offset 0 (a rewind by lseek() or pread()): then
 * start() is at position 0 with read_pos 0.  A read that continues, or a
 * seek elsewhere (seq_file replays from position 0 with read_pos where
 * the last read ended), keeps the snapshot, so one pass stays consistent.
 */
static void *mi_slabs_start(struct seq_file *m, loff_t *pos)
{
	const struct mi_slab_snap *snap = m->private;

	if (snap && !*pos && !m->read_pos) {
		mi_snap_free((struct mi_slab_snap *)snap);
		snap = NULL;
		m->private = NULL;
	}
	if (!snap) {
		snap = mi_snap_take();
		if (IS_ERR(snap))
			return ERR_CAST(snap);
		m->private = (void *)snap;
	}
	return *pos <= snap->nr + 1 ? (void *)(uintptr_t)(*pos + 1) : NULL;
}

static void *mi_slabs_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return mi_slabs_start(m, pos);
}

static void mi_slabs_stop(struct seq_file *m, void *v)
{
}

static int mi_slabs_show(struct seq_file *m, void *v)
{
	const struct mi_slab_snap *snap = m->private;
	unsigned long i = (uintptr_t)v - 1;

	/* v is only a position: the snapshot is m->private */

	if (!i)
		seq_puts(m, "name object_size slab_size align objs_per_slab order active_objs total_objs active_slabs total_slabs partial_slabs memory_bytes live_bytes waste_bytes waste_pct aliases flags\n");
	else if (i <= snap->nr)
		mi_show_row(m, &snap->row[i - 1]);
	else
		mi_show_notes(m, snap);
	return 0;
}

static const struct seq_operations mi_slabs_sops = {
	.start = mi_slabs_start,
	.next = mi_slabs_next,
	.stop = mi_slabs_stop,
	.show = mi_slabs_show,
};

static int mi_slabs_open(struct inode *inode, struct file *file)
{
	return seq_open(file, &mi_slabs_sops);
}

static int mi_slabs_release(struct inode *inode, struct file *file)
{
	mi_snap_free(((struct seq_file *)file->private_data)->private);
	return seq_release(inode, file);
}

const struct file_operations mi_slabs_fops = {
	.owner = THIS_MODULE,
	.open = mi_slabs_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = mi_slabs_release,
};
