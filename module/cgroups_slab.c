// SPDX-License-Identifier: GPL-2.0
/*
 * The slab side of the cgroups census (docs/cgroups.md): every slab object
 * charged to a memory cgroup, by cgroup (the cgroups file's slab_bytes)
 * and by cgroup and cache (the cgroup_slabs file).
 *
 * Since "mm: memcg/slab: use a single set of kmem_caches for all accounted
 * allocations" (9855609bde03, v5.9) objects are charged one by one: a slab
 * holding charged objects has a vector with one obj_cgroup pointer per
 * object, page->obj_cgroups up to 5.16, slab->memcg_data up to 6.9 and
 * slab->obj_exts (struct slabobj_ext, with a per-slab stride from v7.0,
 * when the vector may sit in the slab's own leftover space or objects)
 * after; its low bit marks it.  The census meets every slab's head page;
 * here each vector is read and each pointer's obj_cgroup->memcg looked up
 * in the read's table, as the kernel's tools/cgroup/memcg_slabinfo.py
 * does with drgn.
 *
 * The vector is freed with its slab, and no lock or reference a module can
 * take keeps a slab from being freed, so the vector and the obj_cgroups
 * are only read with copy_from_kernel_nofault() (which neither faults nor
 * is checked by KASAN), from addresses of the direct map, inside one RCU
 * section per slab (obj_cgroups are freed after a grace period).  After
 * each chunk of the vector the slab's cache and vector words are read
 * again: a slab that changed is left, counted in a note, and only chunks
 * read from a slab that was still the same are counted.  The memcg an
 * obj_cgroup names is only compared with the table, never dereferenced.
 * The layouts come from the running kernel's BTF (btf.c), as slab.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "btf.h"
#include "capabilities.h"
#include "cgroups.h"
#include "cgroups_priv.h"
#include "compat.h"
#include "memcg_name.h"
#include "slab.h"

/* caches in one read's snapshot; slabs of others are counted in a note */
#define MI_CGS_CACHES		1024
#define MI_CGS_CACHE_BITS	11
/* (cgroup, cache) pairs of one cgroup_slabs read */
#define MI_CGS_PAIRS		16384
#define MI_CGS_PAIR_BITS	15
/* vector entries read at a time, then the slab is checked again */
#define MI_CGS_CHUNK		32
/* a stride: an object with its metadata at most (v7.0 keeps the entry in the object) */
#define MI_CGS_MAX_STRIDE	SZ_64K
/* the pair of objects charged to no memcg */
#define MI_CG_NONE		U32_MAX

struct mi_cgs_cache {
	const void *s;			/* only compared after the snapshot */
	u32 size;			/* s->size: the object and its metadata */
	u64 uncharged;			/* objects in use charged to no memcg */
	char name[64];
};

struct mi_cgs_pair {
	u32 cg;				/* index into the read's table, or MI_CG_NONE */
	u32 cache;
	u64 objs;
};

struct mi_cg_slabs {
	struct mi_cgs_cache *cache;	/* MI_CGS_CACHES */
	u16 *cslot;			/* index + 1 into @cache */
	unsigned int ncache, cache_over;
	struct mi_cgs_pair *pair;	/* MI_CGS_PAIRS, NULL for cgroups */
	u32 *pslot;
	unsigned int npair;
	u64 pairs_over;			/* objects of pairs past the cap */
	struct {			/* the "# slab walk:" note */
		u64 slabs, objs, moved, no_cache, unlisted, faults;
	} n;
};

/* Where this kernel keeps what is read, from BTF at load. */
static struct {
	u32 cache_off;			/* slab->slab_cache */
	u32 vec_off;			/* the vector word */
	u32 cnt_off, inuse_shift, inuse_bits, objs_shift, objs_bits;
	u32 stride_off;			/* slab->stride, v7.0 */
	bool stride_ok;
	u32 entry;			/* bytes per entry without a stride */
	u32 objcg_off;			/* the obj_cgroup pointer in an entry */
	const char *vec_name;
	bool ok;
	char why[MI_CAP_DETAIL_LEN];
} mi_cgs;

enum { MI_ROW_SLAB_BYTES, MI_ROW_DYING_SLAB, MI_NR_ROWS };

static struct mi_cap mi_cgs_caps[MI_NR_ROWS] = {
	[MI_ROW_SLAB_BYTES] = { .name = "cgroups.slab_bytes", .kind = MI_CAP_FIELD },
	[MI_ROW_DYING_SLAB] = { .name = "cgroups.dying_slab", .kind = MI_CAP_FIELD },
};

static struct mi_cap_table mi_cgs_table;

/* ---- layout ---------------------------------------------------------- */

static bool mi_cgs_word(u32 sid, const char *name, u32 size, u32 *off)
{
	struct mi_btf_member bm;

	if (!sid || !mi_btf_member(sid, name, &bm) || bm.bit_size ||
	    bm.bit_offset % 8 || bm.size != size)
		return false;
	*off = bm.bit_offset / 8;
	return true;
}

/* a bitfield of at most 32 bits inside the u32 at *@off */
static bool mi_cgs_bits(u32 sid, const char *name, u32 *off, u32 *shift,
			u32 *bits)
{
	struct mi_btf_member bm;

	if (!sid || !mi_btf_member(sid, name, &bm) || !bm.bit_size ||
	    bm.bit_offset % 32 + bm.bit_size > 32)
		return false;
	*off = bm.bit_offset / 32 * 4;
	*shift = bm.bit_offset % 32;
	*bits = bm.bit_size;
	return true;
}

/* Called by mi_slab_init() with the BTF open. */
void mi_cg_slab_layout(void)
{
	struct mi_btf_member bm;
	u32 sid, eid, ioff;

	/* a struct slab with a slab_list is SLUB's (5.17 on), else struct page */
	sid = mi_btf_struct("slab");
	if (!sid || !mi_btf_member(sid, "slab_list", &bm))
		sid = mi_btf_struct("page");
	mi_cgs.entry = sizeof(void *);
	if (mi_cgs_word(sid, "obj_exts", sizeof(long), &mi_cgs.vec_off)) {
		/* struct slabobj_ext: the allocation profiling series, v6.10 */
		mi_cgs.vec_name = "obj_exts";
		eid = mi_btf_struct("slabobj_ext");
		mi_cgs.entry = eid ? mi_btf_size(eid) : 0;
		if (!mi_cgs_word(eid, "objcg", sizeof(void *), &mi_cgs.objcg_off) &&
		    !mi_cgs_word(eid, "_objcg", sizeof(void *), &mi_cgs.objcg_off))
			mi_cgs.entry = 0;
		/*
		 * slab->stride: v7.0's slabobj_ext in a slab's unused space
		 * or in its objects (7.2's mm/slab.h slab_get_stride(); the
		 * commit's hash not checked here)
		 */
		mi_cgs.stride_ok = mi_cgs_word(sid, "stride", sizeof(u32),
					       &mi_cgs.stride_off);
	} else if (mi_cgs_word(sid, "memcg_data", sizeof(long), &mi_cgs.vec_off)) {
		/* "mm: memcontrol: Use helpers to read page's memcg data" (bcfe06bf2622, v5.11) */
		mi_cgs.vec_name = "memcg_data";
	} else if (mi_cgs_word(sid, "obj_cgroups", sizeof(void *), &mi_cgs.vec_off)) {
		mi_cgs.vec_name = "obj_cgroups";
	} else {
		snprintf(mi_cgs.why, sizeof(mi_cgs.why),
			 "no obj_exts, memcg_data or obj_cgroups member in struct slab/page (BTF)");
		return;
	}
	if (!mi_cgs.entry || mi_cgs.entry > MI_CGS_MAX_STRIDE ||
	    !mi_cgs_word(sid, "slab_cache", sizeof(void *), &mi_cgs.cache_off) ||
	    !mi_cgs_bits(sid, "inuse", &ioff, &mi_cgs.inuse_shift, &mi_cgs.inuse_bits) ||
	    !mi_cgs_bits(sid, "objects", &mi_cgs.cnt_off, &mi_cgs.objs_shift,
			 &mi_cgs.objs_bits) || ioff != mi_cgs.cnt_off) {
		snprintf(mi_cgs.why, sizeof(mi_cgs.why),
			 "struct slabobj_ext, or slab_cache, inuse or objects of struct slab/page, not found in BTF or not of the expected size");
		return;
	}
	mi_cgs.ok = true;
}

bool mi_cg_slab_available(void)
{
	return MI_MEMCG_KMEM && mi_cgs.ok &&
	       mi_slab_size_of_available();
}

/* ---- one read's tables --------------------------------------------- */

struct mi_cg_slabs *mi_cg_slabs_alloc(bool pairs)
{
	struct mi_cg_slabs *cs;

	if (!mi_cg_slab_available())
		return NULL;
	cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	if (!cs)
		return ERR_PTR(-ENOMEM);
	cs->cache = kvcalloc(MI_CGS_CACHES, sizeof(*cs->cache), GFP_KERNEL);
	cs->cslot = kvcalloc(BIT(MI_CGS_CACHE_BITS), sizeof(u16), GFP_KERNEL);
	if (pairs) {
		cs->pair = kvcalloc(MI_CGS_PAIRS, sizeof(*cs->pair), GFP_KERNEL);
		cs->pslot = kvcalloc(BIT(MI_CGS_PAIR_BITS), sizeof(u32), GFP_KERNEL);
	}
	if (!cs->cache || !cs->cslot || (pairs && (!cs->pair || !cs->pslot))) {
		mi_cg_slabs_free(cs);
		return ERR_PTR(-ENOMEM);
	}
	return cs;
}

void mi_cg_slabs_free(struct mi_cg_slabs *cs)
{
	if (IS_ERR_OR_NULL(cs))
		return;
	kvfree(cs->cache);
	kvfree(cs->cslot);
	kvfree(cs->pair);
	kvfree(cs->pslot);
	kfree(cs);
}

static u16 *mi_cgs_cache_slot(struct mi_cg_slabs *cs, const void *s)
{
	u32 i = hash_ptr((void *)s, MI_CGS_CACHE_BITS);
	u32 mask = BIT(MI_CGS_CACHE_BITS) - 1;

	while (cs->cslot[i] && cs->cache[cs->cslot[i] - 1].s != s)
		i = (i + 1) & mask;
	return &cs->cslot[i];
}

static void mi_cgs_add_cache(void *s, const char *name, void *arg)
{
	struct mi_cg_slabs *cs = arg;
	struct mi_cgs_cache *c;

	if (cs->ncache == MI_CGS_CACHES) {
		cs->cache_over++;
		return;
	}
	c = &cs->cache[cs->ncache];
	c->s = s;
	c->size = mi_slab_size_of(s);
	c->uncharged = 0;
	strscpy(c->name, name, sizeof(c->name));
	/* the line format has no spaces inside a value, as in slabs */
	strreplace(c->name, ' ', '_');
	*mi_cgs_cache_slot(cs, s) = ++cs->ncache;
}

/* Every cache, its name and size, under slab_mutex: before the census. */
int mi_cg_slabs_begin(struct mi_cg_read *r)
{
	struct mi_cg_slabs *cs = r->slabs;
	int err;

	if (!cs)
		return 0;
	memset(cs->cslot, 0, sizeof(u16) << MI_CGS_CACHE_BITS);
	cs->ncache = 0;
	cs->cache_over = 0;
	cs->npair = 0;
	cs->pairs_over = 0;
	memset(&cs->n, 0, sizeof(cs->n));
	if (cs->pslot)
		memset(cs->pslot, 0, sizeof(u32) << MI_CGS_PAIR_BITS);
	err = mi_slab_names_lock();
	if (err)
		return err;
	mi_slab_each(mi_cgs_add_cache, cs);
	mi_slab_names_unlock();
	return 0;
}

static void mi_cgs_pair_add(struct mi_cg_slabs *cs, u32 cg, u32 cache, u64 n)
{
	u32 i = hash_32(cg * MI_CGS_CACHES + cache, MI_CGS_PAIR_BITS);
	u32 mask = BIT(MI_CGS_PAIR_BITS) - 1;
	struct mi_cgs_pair *p;

	if (!cs->pair || !n)
		return;
	/* never full: at most MI_CGS_PAIRS of twice as many slots are used */
	while (cs->pslot[i]) {
		p = &cs->pair[cs->pslot[i] - 1];
		if (p->cg == cg && p->cache == cache) {
			p->objs += n;
			return;
		}
		i = (i + 1) & mask;
	}
	if (cs->npair == MI_CGS_PAIRS) {
		cs->pairs_over += n;
		return;
	}
	p = &cs->pair[cs->npair];
	p->cg = cg;
	p->cache = cache;
	p->objs = n;
	cs->pslot[i] = ++cs->npair;
}

/* ---- the walk: one slab ---------------------------------------------- */

struct mi_cgs_slab {
	struct page *head;
	const void *s;
	unsigned long vec;
	u32 objects, inuse, stride;
};

static void mi_cgs_snap(struct mi_cgs_slab *sl)
{
	const char *p = (const char *)sl->head;
	u32 cnt;

	sl->s = READ_ONCE(*(void * const *)(p + mi_cgs.cache_off));
	sl->vec = READ_ONCE(*(const unsigned long *)(p + mi_cgs.vec_off));
	cnt = READ_ONCE(*(const u32 *)(p + mi_cgs.cnt_off));
	sl->objects = (cnt >> mi_cgs.objs_shift) & (BIT(mi_cgs.objs_bits) - 1);
	sl->inuse = (cnt >> mi_cgs.inuse_shift) & (BIT(mi_cgs.inuse_bits) - 1);
	sl->stride = mi_cgs.stride_ok ?
		     READ_ONCE(*(const u32 *)(p + mi_cgs.stride_off)) : mi_cgs.entry;
}

/* Is the slab still the one @sl read?  The reads before are ordered. */
static bool mi_cgs_same(const struct mi_cgs_slab *sl)
{
	const char *p = (const char *)sl->head;

	/* the words read before (and the vector chunk) before these */
	smp_rmb();
	return PageSlab(sl->head) &&
	       READ_ONCE(*(void * const *)(p + mi_cgs.cache_off)) == sl->s &&
	       READ_ONCE(*(const unsigned long *)(p + mi_cgs.vec_off)) == sl->vec;
}

/*
 * The table index + 1 of @objcg's memcg, 0 if not listed; under RCU.
 * struct obj_cgroup is public (<linux/memcontrol.h>) with CONFIG_MEMCG.
 */
static u32 mi_cgs_owner(struct mi_cg_read *r, unsigned long objcg)
{
#if MI_MEMCG_KMEM
	struct mem_cgroup *memcg;

	if (!virt_addr_valid((void *)objcg) ||
	    copy_from_kernel_nofault(&memcg, (char *)objcg +
				     offsetof(struct obj_cgroup, memcg),
				     sizeof(memcg))) {
		r->slabs->n.faults++;
		return 0;
	}
	return memcg ? mi_cg_index(r, memcg) : 0;
#else
	return 0;
#endif
}

/* Read entries [@i, @i + @n) of the vector into @buf: 0 or -EFAULT. */
static int mi_cgs_read(const struct mi_cgs_slab *sl, u32 i, u32 n,
		       unsigned long *buf)
{
	unsigned long base = (sl->vec & ~7UL) + (unsigned long)i * sl->stride +
			     mi_cgs.objcg_off;
	u32 j;

	if (sl->stride == sizeof(long))
		return copy_from_kernel_nofault(buf, (void *)base, n * sizeof(long)) ?
		       -EFAULT : 0;
	for (j = 0; j < n; j++, base += sl->stride)
		if (copy_from_kernel_nofault(&buf[j], (void *)base, sizeof(long)))
			return -EFAULT;
	return 0;
}

/*
 * The charged objects of one slab, added to their memcgs' and pairs';
 * the number counted, or -1 if the slab changed or could not be read.
 */
static long mi_cgs_vector(struct mi_cg_read *r, const struct mi_cgs_slab *sl,
			  u32 ci)
{
	struct mi_cg_slabs *cs = r->slabs;
	u64 full = cs->cache[ci].size + sizeof(void *);	/* obj_full_size() */
	unsigned long buf[MI_CGS_CHUNK], last = 0;
	u32 i, j, n, idx = 0;
	long charged = 0;

	for (i = 0; i < sl->objects; i += n) {
		n = min_t(u32, sl->objects - i, MI_CGS_CHUNK);
		if (mi_cgs_read(sl, i, n, buf)) {
			cs->n.faults++;
			return -1;
		}
		if (!mi_cgs_same(sl))
			return -1;
		for (j = 0; j < n; j++) {
			/* a free object's entry is NULL */
			unsigned long objcg = buf[j] & ~7UL;

			if (!objcg)
				continue;
			if (objcg != last) {
				last = objcg;
				idx = mi_cgs_owner(r, objcg);
			}
			charged++;
			if (!idx) {
				cs->n.unlisted++;
				continue;
			}
			r->cg[idx - 1].slab_bytes += full;
			mi_cgs_pair_add(cs, idx - 1, ci, 1);
		}
	}
	return charged;
}

/* The census's callback for a slab's head page: no lock held, no sleep. */
void mi_cg_slab_page(struct mi_cg_read *r, struct page *head)
{
	struct mi_cg_slabs *cs = r->slabs;
	struct mi_cgs_slab sl = { .head = head };
	unsigned long v;
	long charged = 0;
	u16 ci;

	rcu_read_lock();
	mi_cgs_snap(&sl);
	if (!mi_cgs_same(&sl) || !sl.objects || sl.inuse > sl.objects) {
		cs->n.moved++;
		goto out;
	}
	ci = *mi_cgs_cache_slot(cs, sl.s);
	if (!ci) {		/* a cache made after the snapshot */
		cs->n.no_cache++;
		goto out;
	}
	v = sl.vec & ~7UL;
	/* the low bit marks a vector (MEMCG_DATA_OBJCGS, MEMCG_DATA_OBJEXTS) */
	if ((sl.vec & 1) && v && virt_addr_valid((void *)v) &&
	    sl.stride >= sizeof(long) && sl.stride <= MI_CGS_MAX_STRIDE &&
	    mi_cgs.objcg_off + sizeof(long) <= sl.stride) {
		charged = mi_cgs_vector(r, &sl, ci - 1);
		if (charged < 0) {
			cs->n.moved++;
			goto out;
		}
	}
	cs->n.slabs++;
	cs->n.objs += sl.inuse;
	if (sl.inuse > charged) {
		cs->cache[ci - 1].uncharged += sl.inuse - charged;
		mi_cgs_pair_add(cs, MI_CG_NONE, ci - 1, sl.inuse - charged);
	}
out:
	rcu_read_unlock();
}

/* ---- after the walk ------------------------------------------------------ */

static int mi_cgs_pair_cmp(const void *a, const void *b)
{
	const struct mi_cgs_pair *p = a, *q = b;

	if (p->cg != q->cg)
		return p->cg < q->cg ? -1 : 1;
	return p->cache < q->cache ? -1 : p->cache > q->cache;
}

/*
 * The pairs in the cgroups' order (the tree's), the caches' within; the
 * records of the read's file: its pairs for cgroup_slabs, else its memcgs.
 */
unsigned int mi_cg_slabs_end(struct mi_cg_read *r)
{
	struct mi_cg_slabs *cs = r->slabs;

	if (!r->pairs || !cs)
		return r->nr;
	sort(cs->pair, cs->npair, sizeof(*cs->pair), mi_cgs_pair_cmp, NULL);
	return cs->npair;
}

void mi_cg_slab_notes(struct seq_file *m, struct mi_cg_read *r)
{
	struct mi_cg_slabs *cs = r->slabs;
	u64 bytes = 0, objs = 0;
	unsigned int i;

	if (!cs)
		return;
	for (i = 0; i < cs->ncache; i++) {
		objs += cs->cache[i].uncharged;
		bytes += cs->cache[i].uncharged * cs->cache[i].size;
	}
	seq_printf(m, "# slab uncharged: %llu objects %llu bytes in use charged to no memory cgroup (the root's, and caches that do not account)\n",
		   objs, bytes);
	seq_printf(m, "# slab walk: slabs %llu objects %llu moved %llu unlisted_objects %llu no_cache_slabs %llu faults %llu\n",
		   cs->n.slabs, cs->n.objs, cs->n.moved, cs->n.unlisted, cs->n.no_cache,
		   cs->n.faults);
	if (cs->cache_over)
		seq_printf(m, "# cap: %u slab caches past the first %u not read\n",
			   cs->cache_over, MI_CGS_CACHES);
	if (cs->pairs_over)
		seq_printf(m, "# cap: %llu objects of (cgroup, cache) pairs past the first %u not shown\n",
			   cs->pairs_over, MI_CGS_PAIRS);
}

/* ---- the cgroup_slabs file ----------------------------------------------- */

static int mi_cgs_show(struct seq_file *m, void *v)
{
	struct mi_cg_read *r = m->private;
	struct mi_cg_slabs *cs = r->slabs;
	long rec = (long)v - 1;
	const struct mi_cgs_pair *p;
	const struct mi_cgs_cache *c;
	const struct mi_cg *cg;

	if (!rec) {
		seq_puts(m, "id cache objects bytes path\n");
		seq_puts(m, "# objects of each cache charged to each memory cgroup itself; bytes as memory.stat counts them (object size + one obj_cgroup pointer); id - for objects in use charged to none\n");
		return 0;
	}
	if (rec == r->nrec + 1) {
		mi_cg_slab_notes(m, r);
		return 0;
	}
	p = &cs->pair[rec - 1];
	c = &cs->cache[p->cache];
	if (p->cg == MI_CG_NONE) {
		seq_printf(m, "- %s %llu %llu -\n", c->name, p->objs,
			   p->objs * c->size);
		return 0;
	}
	cg = &r->cg[p->cg];
	seq_printf(m, "%llu %s %llu %llu ", cg->ino, c->name, p->objs,
		   p->objs * (c->size + sizeof(void *)));
	mi_memcg_put_path(m, cg->memcg, r->path, PATH_MAX);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations mi_cgs_sops = {
	.start = mi_cg_seq_start,
	.next = mi_cg_seq_next,
	.stop = mi_cg_seq_stop,
	.show = mi_cgs_show,
};

/* Where slab cannot be attributed: the header and why, so every reader reads the file. */
static int mi_cgs_none_show(struct seq_file *m, void *v)
{
	seq_puts(m, "id cache objects bytes path\n");
	seq_printf(m, "# no slab attribution on this kernel (capabilities: cgroups.slab_bytes no): %s\n",
		   mi_cgs_caps[MI_ROW_SLAB_BYTES].detail);
	return 0;
}

static int mi_cgs_open(struct inode *inode, struct file *file)
{
	if (!mi_cg_slab_available())
		return single_open(file, mi_cgs_none_show, NULL);
	return mi_cg_seq_open(inode, file, &mi_cgs_sops, true);
}

static int mi_cgs_release(struct inode *inode, struct file *file)
{
	if (((struct seq_file *)file->private_data)->op != &mi_cgs_sops)
		return single_release(inode, file);
	return mi_cg_seq_release(inode, file);
}

const struct file_operations mi_cgroup_slabs_fops = {
	.owner = THIS_MODULE,
	.open = mi_cgs_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = mi_cgs_release,
};

void mi_cg_slab_init(void)
{
	if (!MI_MEMCG_KMEM)
		mi_cap_set(&mi_cgs_caps[MI_ROW_SLAB_BYTES], false,
			   "the kernel has no CONFIG_MEMCG_KMEM (CONFIG_MEMCG from 6.10): slab objects are not charged");
	else if (!mi_cgs.ok)
		mi_cap_set(&mi_cgs_caps[MI_ROW_SLAB_BYTES], false, "%s",
			   mi_cgs.why[0] ? mi_cgs.why : "no BTF (capabilities row btf)");
	else if (!mi_slab_size_of_available())
		mi_cap_set(&mi_cgs_caps[MI_ROW_SLAB_BYTES], false,
			   "kmem_cache.size not found in BTF");
	else
		mi_cap_set(&mi_cgs_caps[MI_ROW_SLAB_BYTES], true,
			   "each slab's obj_cgroup vector (slab->%s%s, BTF) read with copy_from_kernel_nofault() from the census walk, each slab checked again after every %u entries; obj_cgroup->memcg compared with the listed memcgs; bytes per object kmem_cache.size + one pointer, as obj_full_size()",
			   mi_cgs.vec_name, mi_cgs.stride_ok ? ", slab->stride" : "",
			   MI_CGS_CHUNK);
	/* memcg_reparent_objcgs(), with the single set of kmem_caches (9855609bde03, v5.9) */
	mi_cap_set(&mi_cgs_caps[MI_ROW_DYING_SLAB], false,
		   "when a removed cgroup goes offline (a work item after rmdir) its obj_cgroups move to the parent (memcg_reparent_objcgs()): its slab objects are its parent's from then on and never keep it dying; its slab_bytes is then 0");
	mi_caps_register(&mi_cgs_table, mi_cgs_caps, MI_NR_ROWS);
}

void mi_cg_slab_exit(void)
{
	mi_caps_unregister(&mi_cgs_table);
}
