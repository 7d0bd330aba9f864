// SPDX-License-Identifier: GPL-2.0
/*
 * cgroups: one record per memory cgroup, live or dying, with the pages the
 * census finds charged to it, by class (docs/cgroups.md).
 *
 * A read first lists the memcgs: css_for_each_descendant_pre() from the
 * root under rcu_read_lock(), which visits dying csses too, each taken with
 * css_tryget() (a css whose count already reached zero is being freed and
 * is left out).  The references keep every listed memcg, its cgroup and
 * its kernfs node until the next read or the close, so no address in the
 * table is freed and handed to another memcg meanwhile.  Then the pages
 * census (pages.c) walks every zone and hands each page here: its memcg is
 * read racily under rcu_read_lock() (mi_page_memcg()) and only looked up,
 * by address, in the table; pages of memcgs not listed (made after the
 * list, or past the cap) are counted in a note.  The table is allocated at
 * open, outside any lock, and capped at MI_CG_MAX memcgs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/limits.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "capabilities.h"
#include "cgroups.h"
#include "cgroups_priv.h"
#include "compat.h"
#include "memcg_name.h"
#include "zone_walk.h"

enum { MI_ROW_LIST, MI_ROW_DYING, MI_NR_ROWS };

static struct mi_cap mi_cg_caps[MI_NR_ROWS] = {
	[MI_ROW_LIST] = { .name = "cgroups.list", .kind = MI_CAP_MECHANISM },
	[MI_ROW_DYING] = { .name = "cgroups.dying_page_cache",
			   .kind = MI_CAP_FIELD },
};

static struct mi_cap_table mi_cg_table;

static u32 *mi_cg_find(struct mi_cg_read *r, const struct mem_cgroup *memcg)
{
	u32 i = hash_ptr((void *)memcg, MI_CG_HASH_BITS);
	u32 mask = BIT(MI_CG_HASH_BITS) - 1;

	/* never full: at most MI_CG_MAX of the 2 * MI_CG_MAX slots are used */
	while (r->slot[i] && r->cg[r->slot[i] - 1].memcg != memcg)
		i = (i + 1) & mask;
	return &r->slot[i];
}

/* @memcg's index + 1 in the table, or 0 */
u32 mi_cg_index(struct mi_cg_read *r, const struct mem_cgroup *memcg)
{
	return *mi_cg_find(r, memcg);
}

static void mi_cg_put_all(struct mi_cg_read *r)
{
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		css_put(&r->cg[i].memcg->css);
	r->nr = 0;
	r->walked = false;
}

/*
 * Every memcg, root first, parents before children.  A memcg has one
 * hierarchy: the root of the reader's own memcg's is everybody's (cgroup
 * v2; on v1 the memory hierarchy's root).
 */
static void mi_cg_list(struct mi_cg_read *r)
{
	struct cgroup_subsys_state *root, *pos;

	memset(r->slot, 0, sizeof(u32) << MI_CG_HASH_BITS);
	r->over = 0;
	rcu_read_lock();
	root = task_css(current, memory_cgrp_id);
	while (root->parent)
		root = root->parent;
	css_for_each_descendant_pre(pos, root) {
		struct mem_cgroup *memcg = mem_cgroup_from_css(pos);
		struct mi_cg *cg;

		if (r->nr == MI_CG_MAX) {
			r->over++;
			continue;
		}
		if (!css_tryget(pos))
			continue;
		cg = &r->cg[r->nr];
		memset(cg, 0, sizeof(*cg));
		cg->memcg = memcg;
		cg->ino = mi_memcg_ino(memcg);
		cg->dying = mi_memcg_dying(memcg);
		*mi_cg_find(r, memcg) = ++r->nr;
	}
	rcu_read_unlock();
}

/* The census's callback: no lock held, no sleep (pages.h). */
static void mi_cg_page(struct page *page, enum mi_pclass class,
		       unsigned long nr, void *arg)
{
	struct mi_cg_read *r = arg;
	struct mem_cgroup *memcg;
	int col;
	u32 i;

	switch (class) {
	case MI_PC_ANON_LRU:
	case MI_PC_ANON_OTHER:
		col = MI_CG_ANON;
		break;
	case MI_PC_FILE_MAPPED:
	case MI_PC_FILE_UNMAPPED:
		col = MI_CG_FILE;
		break;
	case MI_PC_SHMEM:
		col = MI_CG_SHMEM;
		break;
	case MI_PC_SLAB:
		/* a slab once, from its head page (cgroups_slab.c) */
		if (r->slabs && !PageTail(page))
			mi_cg_slab_page(r, page);
		return;
	default:
		return;
	}
	/* a tail is charged with its head, as the census classes it */
	rcu_read_lock();
	memcg = mi_page_memcg(compound_head(page));
	i = memcg ? *mi_cg_find(r, memcg) : 0;
	rcu_read_unlock();
	if (i)
		r->cg[i - 1].n[col] += nr;
	else if (memcg)
		r->unlisted += nr;
	else
		r->uncharged += nr;
}

int mi_cg_walk(struct mi_cg_read *r)
{
	struct zone *zone = NULL;
	int err;

	mi_cg_put_all(r);
	r->nrec = 0;
	memset(&r->census, 0, sizeof(r->census));
	r->census.page = mi_cg_page;
	r->census.arg = r;
	r->unlisted = 0;
	r->uncharged = 0;
	r->zones = 0;
	if (mem_cgroup_disabled())
		return 0;
	err = mi_cg_slabs_begin(r);
	if (err)
		return err;
	mi_cg_list(r);
	while ((zone = mi_next_populated_zone(zone))) {
		err = mi_census_zone(zone, &r->census);
		if (err) {
			mi_cg_put_all(r);
			return err;
		}
		r->zones++;
	}
	r->nrec = mi_cg_slabs_end(r);
	r->walked = true;
	return 0;
}

/*
 * Records of both files (cgroups, cgroup_slabs): 0 the header (a read from
 * the top walks first), 1..nrec the records (memcgs, or cgroup and cache
 * pairs), nrec + 1 the notes.  The header is short: seq_file never shows it
 * again with a bigger buffer, so one read walks once.
 */
void *mi_cg_seq_start(struct seq_file *m, loff_t *pos)
{
	struct mi_cg_read *r = m->private;

	if (!*pos) {
		int err = mi_cg_walk(r);

		if (err)
			return ERR_PTR(err);
	} else if (!r->walked) {
		return NULL;
	}
	return *pos <= r->nrec + 1 ? (void *)(long)(*pos + 1) : NULL;
}

void *mi_cg_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct mi_cg_read *r = m->private;

	++*pos;
	return *pos <= r->nrec + 1 ? (void *)(long)(*pos + 1) : NULL;
}

void mi_cg_seq_stop(struct seq_file *m, void *v)
{
}

static void mi_cg_notes(struct seq_file *m, struct mi_cg_read *r)
{
	if (mem_cgroup_disabled())
		seq_puts(m, "# memory controller disabled (cgroup_disable=memory): no memcg\n");
	if (r->over)
		seq_printf(m, "# cap: %lu memory cgroups past the first %u not shown\n",
			   r->over, MI_CG_MAX);
	seq_printf(m, "# unlisted: %lu pages charged to memory cgroups not listed (made after the list was taken, or past the cap)\n",
		   r->unlisted);
	seq_printf(m, "# uncharged: %lu anon, file and shmem pages charged to no memory cgroup\n",
		   r->uncharged);
	seq_printf(m, "# walk: zones %llu sections %llu section_pfns %lu pfns %llu longest_section_ns %llu\n",
		   r->zones, r->census.sections, PAGES_PER_SECTION,
		   r->census.pfns, r->census.longest_ns);
	mi_cg_slab_notes(m, r);
}

static int mi_cg_show(struct seq_file *m, void *v)
{
	struct mi_cg_read *r = m->private;
	long rec = (long)v - 1;
	const struct mi_cg *cg;
	int i;

	if (!rec) {
		seq_puts(m, "id state anon_pages file_pages shmem_pages slab_bytes path\n");
		seq_puts(m, "# pages of each memory cgroup itself, not of its descendants; memory.stat's file is file_pages + shmem_pages\n");
		return 0;
	}
	if (rec == r->nrec + 1) {
		mi_cg_notes(m, r);
		return 0;
	}
	cg = &r->cg[rec - 1];
	seq_printf(m, "%llu %s", cg->ino, cg->dying ? "dying" : "online");
	for (i = 0; i < MI_CG_NR; i++)
		seq_put_decimal_ull(m, " ", cg->n[i]);
	if (r->slabs)
		seq_printf(m, " %llu ", cg->slab_bytes);
	else
		seq_puts(m, " - ");
	mi_memcg_put_path(m, cg->memcg, r->path, PATH_MAX);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations mi_cg_sops = {
	.start = mi_cg_seq_start,
	.next = mi_cg_seq_next,
	.stop = mi_cg_seq_stop,
	.show = mi_cg_show,
};

/* The tables of one open file: 0 or -ENOMEM (undone by the close). */
int mi_cg_read_open(struct mi_cg_read *r, bool pairs)
{
	r->cg = kvcalloc(MI_CG_MAX, sizeof(*r->cg), GFP_KERNEL);
	r->slot = kvcalloc(BIT(MI_CG_HASH_BITS), sizeof(u32), GFP_KERNEL);
	r->path = kmalloc(PATH_MAX, GFP_KERNEL);
	r->slabs = mi_cg_slabs_alloc(pairs);
	r->pairs = pairs;
	if (IS_ERR(r->slabs)) {
		r->slabs = NULL;
		return -ENOMEM;
	}
	return r->cg && r->slot && r->path ? 0 : -ENOMEM;
}

void mi_cg_read_close(struct mi_cg_read *r)
{
	mi_cg_put_all(r);
	mi_cg_slabs_free(r->slabs);
	kvfree(r->cg);
	kvfree(r->slot);
	kfree(r->path);
}

int mi_cg_seq_release(struct inode *inode, struct file *file)
{
	mi_cg_read_close(((struct seq_file *)file->private_data)->private);
	return seq_release_private(inode, file);
}

/* The open of both files: @pairs for cgroup_slabs' (cgroup, cache) table. */
int mi_cg_seq_open(struct inode *inode, struct file *file,
		   const struct seq_operations *sops, bool pairs)
{
	struct mi_cg_read *r;
	int err;

	r = __seq_open_private(file, sops, sizeof(*r));
	if (!r)
		return -ENOMEM;
	err = mi_cg_read_open(r, pairs);
	if (err)
		mi_cg_seq_release(inode, file);
	return err;
}

static int mi_cg_open(struct inode *inode, struct file *file)
{
	return mi_cg_seq_open(inode, file, &mi_cg_sops, false);
}

const struct file_operations mi_cgroups_fops = {
	.owner = THIS_MODULE,
	.open = mi_cg_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = mi_cg_seq_release,
};

void mi_cgroups_init(void)
{
	if (mem_cgroup_disabled())
		mi_cap_set(&mi_cg_caps[MI_ROW_LIST], false,
			   "the memory controller is disabled (cgroup_disable=memory)");
	else
		mi_cap_set(&mi_cg_caps[MI_ROW_LIST], true,
			   "css_next_descendant_pre() from the root memcg under RCU, live and dying, each held by css_tryget() for the read; pages by page_memcg_check() (page->mem_cgroup before v5.11)");
#ifdef MI_HAVE_LRU_FOLIO_OBJCG
	mi_cap_set(&mi_cg_caps[MI_ROW_DYING], false,
		   "folios are charged through an obj_cgroup that moves to the parent when the cgroup is removed: a removed cgroup's page cache is its parent's, and does not keep it dying");
#else
	mi_cap_set(&mi_cg_caps[MI_ROW_DYING], true,
		   "page cache charged to a removed cgroup keeps its memcg dying, with its pages, until they are reclaimed");
#endif
	mi_caps_register(&mi_cg_table, mi_cg_caps, MI_NR_ROWS);
	mi_cg_slab_init();
}

void mi_cgroups_exit(void)
{
	mi_cg_slab_exit();
	mi_caps_unregister(&mi_cg_table);
}
