// SPDX-License-Identifier: GPL-2.0
/*
 * files: the page cache by inode (docs/files.md).  The top files_top inodes
 * of every super block by pages cached, with their dirty and writeback
 * pages, and a total over all inodes.
 *
 * The walk is drop_pagecache_sb()'s (fs/drop_caches.c): iterate_supers()
 * (not exported: ksyms) holds each super block's s_umount for reading; its
 * s_inode_list_lock is held only to step from one inode to the next, at
 * most MI_FILES_LOCK_BUDGET inodes without pages per hold; the inode being
 * counted is held by a reference (__iget() under i_lock) with no spinlock
 * held, and the previous one is put outside the locks.  The dirty and
 * writeback counts walk the marked entries of the mapping's xarray under
 * RCU, MI_FILES_XA_BATCH entries per RCU section.  An inode that enters
 * the top N has its cgroup voted over its cached folios (mi_files_memcg()):
 * MI_FILES_MEMCG_CANDS candidates on the stack and, once chosen, one css
 * reference kept in its entry until the read ends.  A fatal signal ends
 * the read with -EINTR.  Memory: one array of files_top entries and one
 * PATH_MAX buffer per read, whatever the number of inodes or folios.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "capabilities.h"
#include "compat_files.h"
#include "files.h"
#include "ksyms.h"

#define MI_FILES_TOP_DEFAULT	100
#define MI_FILES_TOP_MAX	10000U
/* a path longer than this keeps its last part, after "..." */
#define MI_FILES_PATH_LEN	256
/*
 * Inodes passed over (no pages) per s_inode_list_lock hold: the lock is a
 * spinlock that inode creation and eviction on the super block wait for.
 * drop_pagecache_sb() bounds the same loop by need_resched() alone.
 */
#define MI_FILES_LOCK_BUDGET	1024
/* xarray entries counted per RCU read-side section */
#define MI_FILES_XA_BATCH	1024
/*
 * Candidates of the vote for an inode's cgroup: any memcg charged for more
 * than 1/(MI_FILES_MEMCG_CANDS + 1) of the inode's pages is among them
 * (Misra-Gries), and their pages are then counted exactly.
 */
#define MI_FILES_MEMCG_CANDS	4

enum {
	MI_ROW_WALK,
	MI_ROW_PATH,
	MI_ROW_DIRTY,
	MI_ROW_WRITEBACK,
	MI_ROW_CGROUP,
	MI_NR_ROWS
};

static struct mi_cap mi_files_caps[MI_NR_ROWS] = {
	[MI_ROW_WALK] = { .name = "files.walk", .kind = MI_CAP_MECHANISM },
	[MI_ROW_PATH] = { .name = "files.path", .kind = MI_CAP_FIELD },
	[MI_ROW_DIRTY] = { .name = "files.dirty", .kind = MI_CAP_FIELD },
	[MI_ROW_WRITEBACK] = { .name = "files.writeback", .kind = MI_CAP_FIELD },
	[MI_ROW_CGROUP] = { .name = "files.cgroup", .kind = MI_CAP_FIELD },
};

static struct mi_cap_table mi_files_table;

/* the types are those of the kernel's declarations in fs.h */
DEFINE_STATIC_CALL_NULL(mi_iterate_supers, iterate_supers);
#ifndef MI_HAVE_INLINE_IGET
DEFINE_STATIC_CALL_NULL(mi_iget_call, __iget);
#endif
static bool mi_files_ok;

static unsigned int mi_files_top = MI_FILES_TOP_DEFAULT;

static int mi_files_top_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int err = kstrtouint(val, 10, &v);

	if (err)
		return err;
	if (v < 1 || v > MI_FILES_TOP_MAX)
		return -ERANGE;
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops mi_files_top_ops = {
	.set = mi_files_top_set,
	.get = param_get_uint,
};

module_param_cb(files_top, &mi_files_top_ops, &mi_files_top, 0644);
MODULE_PARM_DESC(files_top,
		 "inodes the files table shows, most pages cached first (1-10000, default 100)");

struct mi_files_ent {
	unsigned long pages;
	unsigned long dirty;
	unsigned long writeback;
	unsigned long ino;
	dev_t dev;
	struct mem_cgroup *memcg;	/* css referenced; NULL: none */
	char path[MI_FILES_PATH_LEN];
};

struct mi_files_walk {
	struct mi_files_ent *heap;	/* min-heap on pages, then ino */
	unsigned int top, used;
	char *buf;			/* PATH_MAX, for dentry_path_raw() */
	int err;
	unsigned int run;		/* inodes passed over in this hold */
	unsigned long supers, inodes, pages, dirty, writeback;
	unsigned long busy_inodes, busy_pages;	/* being set up or evicted */
	unsigned long lock_holds;
	bool memcg;			/* the memory controller is on */
	unsigned long memcg_inodes, memcg_pages;	/* the votes' cost */
};

static bool mi_ent_less(const struct mi_files_ent *a,
			const struct mi_files_ent *b)
{
	if (a->pages != b->pages)
		return a->pages < b->pages;
	return a->ino > b->ino;
}

static void mi_heap_down(struct mi_files_walk *w, unsigned int i)
{
	struct mi_files_ent *h = w->heap;

	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, min = i;

		if (l < w->used && mi_ent_less(&h[l], &h[min]))
			min = l;
		if (r < w->used && mi_ent_less(&h[r], &h[min]))
			min = r;
		if (min == i)
			return;
		swap(h[i], h[min]);
		i = min;
	}
}

static void mi_heap_up(struct mi_files_walk *w, unsigned int i)
{
	struct mi_files_ent *h = w->heap;

	while (i) {
		unsigned int p = (i - 1) / 2;

		if (!mi_ent_less(&h[i], &h[p]))
			return;
		swap(h[i], h[p]);
		i = p;
	}
}

/*
 * Called after each entry of an xarray walk under RCU: every
 * MI_FILES_XA_BATCH entries, leave RCU (xas_pause() keeps the place),
 * reschedule and take RCU back. False on a fatal signal (w->err -EINTR):
 * the walk stops there.
 */
static bool mi_files_xa_breathe(struct mi_files_walk *w, struct xa_state *xas,
				unsigned int *batch)
	__must_hold(RCU)
{
	if (++*batch < MI_FILES_XA_BATCH)
		return true;
	*batch = 0;
	xas_pause(xas);
	rcu_read_unlock();
	cond_resched();
	rcu_read_lock();
	if (!fatal_signal_pending(current))
		return true;
	w->err = -EINTR;
	return false;
}

/*
 * Pages of the entries of @mapping marked @mark, as writeback's own walks
 * of the marks count them (tag_pages_for_writeback() pauses the same way).
 * A batch at a time under RCU: entries move while we count, so the figure
 * is as of no single instant.
 */
static unsigned long mi_count_marked(struct mi_files_walk *w,
				     struct address_space *mapping,
				     xa_mark_t mark)
{
	XA_STATE(xas, &mapping->i_pages, 0);
	unsigned long pages = 0;
	unsigned int batch = 0;
	void *entry;

	rcu_read_lock();
	xas_for_each_marked(&xas, entry, ULONG_MAX, mark) {
		if (xas_retry(&xas, entry) || xa_is_value(entry))
			continue;
		pages += mi_entry_pages(entry);
		if (!mi_files_xa_breathe(w, &xas, &batch))
			break;
	}
	rcu_read_unlock();
	return pages;
}

#ifdef CONFIG_MEMCG
struct mi_memcg_cand {
	struct mem_cgroup *memcg;	/* pass 1: only compared */
	unsigned long pages;
	bool cand;			/* a candidate for pass 2 */
	bool ref;			/* pass 2: css referenced */
};

/* Weighted Misra-Gries: @n more pages charged to @memcg. */
static void mi_memcg_summary(struct mi_memcg_cand *c, struct mem_cgroup *memcg,
			     unsigned long n)
{
	unsigned int i, empty = MI_FILES_MEMCG_CANDS;
	unsigned long least = ULONG_MAX, d;

	for (i = 0; i < MI_FILES_MEMCG_CANDS; i++) {
		if (c[i].pages && c[i].memcg == memcg) {
			c[i].pages += n;
			return;
		}
		if (!c[i].pages && empty == MI_FILES_MEMCG_CANDS)
			empty = i;
		else if (c[i].pages)
			least = min(least, c[i].pages);
	}
	if (empty == MI_FILES_MEMCG_CANDS) {
		/* every slot another's: the pages cancel as many of each */
		d = min(least, n);
		for (i = 0; i < MI_FILES_MEMCG_CANDS; i++) {
			c[i].pages -= d;
			if (!c[i].pages && empty == MI_FILES_MEMCG_CANDS)
				empty = i;
		}
		n -= d;
		if (!n)
			return;
	}
	c[empty].memcg = memcg;
	c[empty].pages = n;
}

/*
 * Pass 2: @n pages of @memcg, which a referenced folio is charged to under
 * RCU, so that it is alive here: its css is referenced at its first folio,
 * and the pages counted are those of the memcg referenced.
 */
static void mi_memcg_count(struct mi_memcg_cand *c, struct mem_cgroup *memcg,
			   unsigned long n)
{
	unsigned int i;

	for (i = 0; i < MI_FILES_MEMCG_CANDS; i++) {
		if (!c[i].cand || c[i].memcg != memcg)
			continue;
		if (memcg && !c[i].ref) {
			if (!css_tryget(&memcg->css))
				return;
			c[i].ref = true;
		}
		c[i].pages += n;
		return;
	}
}

/*
 * One pass over the cached folios of @mapping, each referenced while its
 * memcg is read (as filemap_get_entry() does), a batch at a time under RCU
 * as mi_count_marked().
 */
static void mi_memcg_pass(struct mi_files_walk *w,
			  struct address_space *mapping,
			  struct mi_memcg_cand *c, bool exact)
{
	XA_STATE(xas, &mapping->i_pages, 0);
	unsigned int batch = 0;
	void *entry;

	rcu_read_lock();
	xas_for_each(&xas, entry, ULONG_MAX) {
		struct mem_cgroup *memcg;
		unsigned long n;

		if (xas_retry(&xas, entry) || xa_is_value(entry))
			continue;
		/* being freed or split: not counted */
		if (!mi_entry_tryget(entry))
			continue;
		if (unlikely(entry != xas_reload(&xas))) {
			mi_entry_put(entry);
			continue;
		}
		memcg = mi_entry_memcg(entry);
		n = mi_entry_span(entry);
		if (exact)
			mi_memcg_count(c, memcg, n);
		else
			mi_memcg_summary(c, memcg, n);
		mi_entry_put(entry);
		w->memcg_pages += n;
		if (!mi_files_xa_breathe(w, &xas, &batch))
			break;
	}
	rcu_read_unlock();
}

/*
 * The memcg charged for the most of @mapping's cached pages, referenced
 * (NULL: none, or uncharged pages the most).  Two passes, memory bounded
 * by MI_FILES_MEMCG_CANDS: the candidates, then their exact pages.
 */
static struct mem_cgroup *mi_files_memcg(struct mi_files_walk *w,
					 struct address_space *mapping)
{
	struct mi_memcg_cand c[MI_FILES_MEMCG_CANDS] = {};
	unsigned int i, best = MI_FILES_MEMCG_CANDS;
	unsigned long most = 0;

	w->memcg_inodes++;
	mi_memcg_pass(w, mapping, c, false);
	for (i = 0; i < MI_FILES_MEMCG_CANDS; i++) {
		c[i].cand = c[i].pages;
		c[i].pages = 0;
	}
	if (!w->err)
		mi_memcg_pass(w, mapping, c, true);
	for (i = 0; i < MI_FILES_MEMCG_CANDS && !w->err; i++) {
		if (c[i].pages > most) {
			most = c[i].pages;
			best = i;
		}
	}
	for (i = 0; i < MI_FILES_MEMCG_CANDS; i++)
		if (c[i].ref && i != best)
			css_put(&c[i].memcg->css);
	return best < MI_FILES_MEMCG_CANDS ? c[best].memcg : NULL;
}

static void mi_memcg_put(struct mem_cgroup *memcg)
{
	if (memcg)
		css_put(&memcg->css);
}

/*
 * The memcg's cgroup path as /proc/PID/cgroup shows it (from the root of
 * its hierarchy); cgroup_path() takes kernfs' rename lock, so no other lock
 * is held here.  Blanks and backslashes octal, as /proc/mounts escapes them.
 */
static void mi_files_print_memcg(struct seq_file *m, struct mi_files_walk *w,
				 struct mem_cgroup *memcg)
{
	if (memcg && cgroup_path(memcg->css.cgroup, w->buf, PATH_MAX) >= 0)
		seq_escape(m, w->buf, " \t\n\\");
	else
		seq_putc(m, '-');
}
#else
static struct mem_cgroup *mi_files_memcg(struct mi_files_walk *w,
					 struct address_space *mapping)
{
	return NULL;
}

static void mi_memcg_put(struct mem_cgroup *memcg)
{
}

static void mi_files_print_memcg(struct seq_file *m, struct mi_files_walk *w,
				 struct mem_cgroup *memcg)
{
	seq_putc(m, '-');
}
#endif

/* The path of @inode within its file system, into @e->path ("-": none). */
static void mi_files_path(struct mi_files_walk *w, struct inode *inode,
			  struct mi_files_ent *e)
{
	struct dentry *dentry = d_find_alias(inode);
	const char *p;
	size_t len;

	strscpy(e->path, "-", sizeof(e->path));
	if (!dentry)
		return;
	p = dentry_path_raw(dentry, w->buf, PATH_MAX);
	if (!IS_ERR(p)) {
		len = strlen(p);
		if (len < sizeof(e->path))
			strscpy(e->path, p, sizeof(e->path));
		else
			snprintf(e->path, sizeof(e->path), "...%s",
				 p + len - (sizeof(e->path) - 4));
		/* as d_path() marks it, which /proc/PID/maps prints */
		if (d_unlinked(dentry) &&
		    strlen(e->path) + 10 < sizeof(e->path))
			strcat(e->path, " (deleted)");
	}
	dput(dentry);
}

/* One inode, held by a reference, no lock held. */
static void mi_files_inode(struct mi_files_walk *w, struct inode *inode)
{
	struct address_space *mapping = inode->i_mapping;
	struct mi_files_ent *e;
	struct mem_cgroup *memcg = NULL;
	unsigned long pages, dirty, wb;

	pages = READ_ONCE(mapping->nrpages);
	dirty = mi_count_marked(w, mapping, PAGECACHE_TAG_DIRTY);
	if (w->err)
		return;
	wb = mi_count_marked(w, mapping, PAGECACHE_TAG_WRITEBACK);
	if (w->err)
		return;
	w->inodes++;
	w->pages += pages;
	w->dirty += dirty;
	w->writeback += wb;
	if (!pages)
		return;
	if (w->used == w->top) {
		struct mi_files_ent cand = { .pages = pages, .ino = inode->i_ino };

		if (!mi_ent_less(&w->heap[0], &cand))
			return;
	}
	/* only for an inode that enters the top N: the vote walks its folios */
	if (w->memcg) {
		memcg = mi_files_memcg(w, mapping);
		if (w->err)
			return;
	}
	if (w->used < w->top) {
		e = &w->heap[w->used++];
	} else {
		e = &w->heap[0];
		mi_memcg_put(e->memcg);
	}
	e->memcg = memcg;
	e->pages = pages;
	e->dirty = dirty;
	e->writeback = wb;
	e->ino = inode->i_ino;
	e->dev = inode->i_sb->s_dev;
	mi_files_path(w, inode, e);
	if (e == &w->heap[0] && w->used == w->top)
		mi_heap_down(w, 0);
	else
		mi_heap_up(w, w->used - 1);
}

/* drop_pagecache_sb()'s walk; iterate_supers() holds s_umount. */
static void mi_files_sb(struct super_block *sb, void *arg)
{
	struct mi_files_walk *w = arg;
	struct inode *inode, *toput = NULL;

	if (w->err)
		return;
	w->supers++;
	w->run = 0;
	spin_lock(&sb->s_inode_list_lock);
	w->lock_holds++;
	list_for_each_entry(inode, &sb->s_inodes, i_sb_list) {
		unsigned long nr;

		spin_lock(&inode->i_lock);
		nr = READ_ONCE(inode->i_mapping->nrpages);
		/*
		 * Being set up or evicted: no reference can be taken, so it
		 * cannot be where the lock is dropped; these are few and
		 * short-lived, and drop_pagecache_sb() passes them over too.
		 */
		if (mi_inode_state(inode) & (I_FREEING | I_WILL_FREE | I_NEW)) {
			w->busy_inodes++;
			w->busy_pages += nr;
			w->run++;
			spin_unlock(&inode->i_lock);
			continue;
		}
		/* no pages: passed over, unless the hold has lasted long enough */
		if (!nr && ++w->run < MI_FILES_LOCK_BUDGET && !need_resched()) {
			w->inodes++;
			spin_unlock(&inode->i_lock);
			continue;
		}
		mi_iget(inode);
		spin_unlock(&inode->i_lock);
		spin_unlock(&sb->s_inode_list_lock);
		w->run = 0;

		mi_files_inode(w, inode);
		iput(toput);
		toput = inode;

		cond_resched();
		if (!w->err && fatal_signal_pending(current))
			w->err = -EINTR;
		if (w->err)
			goto out;
		spin_lock(&sb->s_inode_list_lock);
		w->lock_holds++;
	}
	spin_unlock(&sb->s_inode_list_lock);
out:
	iput(toput);
}

static int mi_ent_cmp_desc(const void *a, const void *b)
{
	const struct mi_files_ent *x = a, *y = b;

	if (mi_ent_less(x, y))
		return 1;
	return mi_ent_less(y, x) ? -1 : 0;
}

static int mi_files_show(struct seq_file *m, void *v)
{
	struct mi_files_walk w = {
		.top = READ_ONCE(mi_files_top),
		.memcg = !mem_cgroup_disabled(),
	};
	u64 start;
	unsigned int i;

	seq_puts(m, "dev ino pages dirty writeback cgroup path\n");
	if (!mi_files_ok) {
		seq_printf(m, "# unavailable: %s\n",
			   mi_files_caps[MI_ROW_WALK].detail);
		return 0;
	}
	w.heap = kvcalloc(w.top, sizeof(*w.heap), GFP_KERNEL);
	w.buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!w.heap || !w.buf) {
		w.err = -ENOMEM;
		goto out;
	}
	start = ktime_get_ns();
	static_call(mi_iterate_supers)(mi_files_sb, &w);
	if (w.err)
		goto out;
	sort(w.heap, w.used, sizeof(*w.heap), mi_ent_cmp_desc, NULL);
	for (i = 0; i < w.used; i++) {
		const struct mi_files_ent *e = &w.heap[i];

		seq_printf(m, "%02x:%02x %lu %lu %lu %lu ",
			   MAJOR(e->dev), MINOR(e->dev), e->ino, e->pages,
			   e->dirty, e->writeback);
		mi_files_print_memcg(m, &w, e->memcg);
		seq_printf(m, " %s\n", e->path);
	}
	seq_printf(m, "# total: inodes %lu pages %lu dirty %lu writeback %lu busy_inodes %lu busy_pages %lu\n",
		   w.inodes, w.pages, w.dirty, w.writeback, w.busy_inodes,
		   w.busy_pages);
	seq_printf(m, "# walk: supers %lu top %u shown %u lock_holds %lu memcg_inodes %lu memcg_pages %lu elapsed_ns %llu\n",
		   w.supers, w.top, w.used, w.lock_holds, w.memcg_inodes,
		   w.memcg_pages, ktime_get_ns() - start);
out:
	for (i = 0; w.heap && i < w.used; i++)
		mi_memcg_put(w.heap[i].memcg);
	kfree(w.buf);
	kvfree(w.heap);
	return w.err;
}

/*
 * single_open_size(): the table in one buffer of its largest size, so that
 * seq_read() never runs the walk again for a larger one.
 */
static int mi_files_open(struct inode *inode, struct file *file)
{
	size_t size = (size_t)READ_ONCE(mi_files_top) *
		      (MI_FILES_PATH_LEN + 80) + 512;

	return single_open_size(file, mi_files_show, inode->i_private, size);
}

const struct file_operations mi_files_fops = {
	.owner = THIS_MODULE,
	.open = mi_files_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

void mi_files_init(void)
{
	struct mi_ksym_set set = MI_KSYM_SET_INIT;
	struct mi_cap *caps = mi_files_caps;

	mi_ksym_static_call(&set, mi_iterate_supers, "iterate_supers");
#ifndef MI_HAVE_INLINE_IGET
	mi_ksym_static_call(&set, mi_iget_call, "__iget");
#endif
	mi_files_ok = set.ok;
	mi_ksym_set_row(&caps[MI_ROW_WALK], &set,
			"iterate_supers()%s (not exported) via ksyms; each super block's inodes as drop_pagecache_sb() walks them, s_inode_list_lock held for at most %u inodes, the marks counted %u entries per RCU section; killable",
			MI_IGET_NEEDS_KSYM ? " and __iget()" : "",
			MI_FILES_LOCK_BUDGET, MI_FILES_XA_BATCH);
	mi_cap_set(&caps[MI_ROW_PATH], true,
		   "the path within the inode's file system: dentry_path_raw() of its first alias (d_find_alias()), \" (deleted)\" when unlinked, - with no dentry; no exported interface leads from a super block to its mounts, so the mount point is not in it (the reader prefixes it from /proc/self/mountinfo)");
	mi_cap_set(&caps[MI_ROW_DIRTY], true,
		   "entries marked PAGECACHE_TAG_DIRTY in the mapping's xarray, in pages (%s): the pages /proc/meminfo Dirty counts; 0 on tmpfs, whose pages writeback never takes",
		   MI_ENTRY_PAGES_HOW);
	mi_cap_set(&caps[MI_ROW_WRITEBACK], true,
		   "entries marked PAGECACHE_TAG_WRITEBACK in the mapping's xarray, in pages (%s)",
		   MI_ENTRY_PAGES_HOW);
	if (!MI_HAVE_MEMCG)
		mi_cap_set(&caps[MI_ROW_CGROUP], false,
			   "the kernel is built without CONFIG_MEMCG: page cache is charged to no cgroup; -");
	else if (mem_cgroup_disabled())
		mi_cap_set(&caps[MI_ROW_CGROUP], false,
			   "the memory controller is disabled (cgroup_disable=memory): page cache is charged to no cgroup; -");
	else
		mi_cap_set(&caps[MI_ROW_CGROUP], true,
			   "the memcg charged for the most of the inode's cached pages (%s), by a vote over its folios for the inodes that enter the top N: %u candidates (Misra-Gries), then their exact pages; cgroup_path() of its cgroup, as /proc/PID/cgroup shows it; - where uncharged pages are the most",
			   MI_MEMCG_HOW, MI_FILES_MEMCG_CANDS);
	mi_caps_register(&mi_files_table, caps, MI_NR_ROWS);
}

void mi_files_exit(void)
{
	mi_caps_unregister(&mi_files_table);
}
