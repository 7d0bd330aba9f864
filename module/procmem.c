// SPDX-License-Identifier: GPL-2.0
/*
 * mm and vmas: one process's memory (docs/procmem.md).
 *
 * mm prints the target's mm_struct figures (as /proc/PID/status) and the
 * rollup of a page walk (as /proc/PID/smaps_rollup); vmas prints one row per
 * VMA with the same walk figures (as /proc/PID/smaps).  The walk, which
 * counts what fs/proc/task_mmu.c counts, is procmem_walk.c's; the target
 * process, chosen per open file, procmem_target.c's.
 *
 * The walk holds mmap_lock only for a bounded part of the walk, and drops
 * it in between (procmem_walk.c).  seq_file calls ->stop() before it copies
 * to user space, so the lock is never held across a copy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/static_call.h>

#include "capabilities.h"
#include "compat.h"
#include "ksyms.h"
#include "procmem.h"
#include "procmem_priv.h"
#include "text.h"

struct mi_pm_state mi_pm;	/* set by mi_procmem_init() */

enum {
	MI_ROW_ROLLUP,
	MI_ROW_SWAP,
	MI_ROW_PID,
	MI_ROW_MAX_MAP_COUNT,
	MI_ROW_HUGETLB,
	MI_ROW_PROCS,
	MI_NR_ROWS
};

static struct mi_cap mi_pm_caps[MI_NR_ROWS] = {
	[MI_ROW_ROLLUP] = { .name = "mm.rollup", .kind = MI_CAP_FIELD },
	[MI_ROW_SWAP] = { .name = "mm.swap_pss", .kind = MI_CAP_FIELD },
	[MI_ROW_PID] = { .name = "pid_select", .kind = MI_CAP_MECHANISM },
	[MI_ROW_MAX_MAP_COUNT] = { .name = "mm.max_map_count",
				   .kind = MI_CAP_FIELD },
	[MI_ROW_HUGETLB] = { .name = "mm.hugetlb", .kind = MI_CAP_FIELD },
	[MI_ROW_PROCS] = { .name = "procs_pids", .kind = MI_CAP_MECHANISM },
};

static struct mi_cap_table mi_pm_table;

/* "# pid N (comm): why": the comm escaped, so the note stays one line */
static void mi_put_note(struct seq_file *m, const struct mi_found *f)
{
	seq_printf(m, "# pid %d (", f->nr);
	mi_put_comm(m, f->comm);
	seq_printf(m, "): %s\n", f->why);
}

/*
 * The numbers go out through seq_put_decimal_ull() and mi_put_hex(), as
 * show_smap()'s do (fs/proc/task_mmu.c, "proc: smaps: use
 * seq_put_decimal_ull_width()"): a seq_printf() per number parses its format
 * each time, about 10k instructions of an mm read's 100k for a small
 * process, which made `top` cost more than a pass over smaps_rollup.
 */
static void mi_put_kb(struct seq_file *m, unsigned long bytes)
{
	seq_put_decimal_ull(m, " ", bytes >> 10);
}

/*
 * The walk figures, or "-" for each when the walk is unavailable.  Without
 * the swap helpers (mm.swap_pss unavailable) swap_kb misses shmem swap and
 * swap_pss_kb cannot split shared entries: both are "-", not a wrong number.
 */
void mi_put_mss(struct seq_file *m, const struct mi_mss *s)
{
	unsigned long v[] = {
		s->resident, s->pss >> MI_PSS_SHIFT,
		s->pss_dirty >> MI_PSS_SHIFT, s->pss_anon >> MI_PSS_SHIFT,
		s->pss_file >> MI_PSS_SHIFT, s->pss_shmem >> MI_PSS_SHIFT,
		s->private_clean + s->private_dirty, s->shared_clean,
		s->shared_dirty, s->private_clean, s->private_dirty,
		s->referenced, s->anonymous, s->lazyfree, s->anon_thp,
		s->shmem_thp, s->file_thp, s->swap,
		s->swap_pss >> MI_PSS_SHIFT, s->pss_locked >> MI_PSS_SHIFT,
		s->shared_hugetlb, s->private_hugetlb,
	};
	const unsigned int swap = 17, swap_pss = 18;	/* indices in v[] */
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		if (mi_pm.walk &&
		    (mi_pm.swap_figs || (i != swap && i != swap_pss)))
			mi_put_kb(m, v[i]);
		else
			seq_puts(m, " -");
	}
}

/* ---- mm ---- */

#define MI_MM_HEADER "pid total_vm_kb hiwater_vm_kb mm_rss_kb mm_anon_kb " \
	"mm_file_kb mm_shmem_kb hiwater_rss_kb data_vm_kb " \
	"exec_vm_kb stack_vm_kb locked_vm_kb pinned_vm_kb swap_ents_kb "  \
	"pgtables_bytes map_count max_map_count start_code end_code "	  \
	"start_data end_data start_brk brk start_stack vmas_walked "	  \
	MI_MSS_HEADER " comm\n"

/* The figures task_mem() prints for /proc/PID/status; mmap_lock held. */
static void mi_mm_figures(struct mm_struct *mm, struct mi_mm_fig *g)
{
	g->anon = mi_mm_counter(mm, MM_ANONPAGES);
	g->file = mi_mm_counter(mm, MM_FILEPAGES);
	g->shmem = mi_mm_counter(mm, MM_SHMEMPAGES);
	g->swap = mi_mm_counter(mm, MM_SWAPENTS);
	g->total_vm = mm->total_vm;
	g->hiwater_vm = max(mm->total_vm, mm->hiwater_vm);
	g->hiwater_rss = max(g->anon + g->file + g->shmem, mm->hiwater_rss);
	g->data_vm = mm->data_vm;
	g->exec_vm = mm->exec_vm;
	g->stack_vm = mm->stack_vm;
	g->locked_vm = mm->locked_vm;
	g->pinned_vm = atomic64_read(&mm->pinned_vm);
	g->pgtables = mm_pgtables_bytes(mm);
	g->map_count = mm->map_count;
	g->start_code = mm->start_code;
	g->end_code = mm->end_code;
	g->start_data = mm->start_data;
	g->end_data = mm->end_data;
	g->start_brk = mm->start_brk;
	g->brk = mm->brk;
	g->start_stack = mm->start_stack;
}

/*
 * The rollup walk of w->mm into w->mss, and with @g the mm_struct figures
 * in the same hold of mmap_lock (taken killably; the walk drops it between
 * bounded parts).  *vmas counts the VMAs walked.  mm and procs share it.
 */
int mi_walk_mm(struct mi_walk *w, struct mi_mm_fig *g, unsigned long *vmas)
{
	struct vm_area_struct *vma;
	int err;

	err = mi_walk_lock(w);
	if (err)
		return err;
	if (g)
		mi_mm_figures(w->mm, g);
	vma = mi_pm.walk ? mi_walk_next_vma(w, 0) : NULL;
	if (vma)
		err = mi_walk_range(w, vma, 0, ULONG_MAX, vmas);
	mi_walk_unlock(w);
	return err;
}

/* " 0x%lx": seq_put_hex_ll() is not exported to modules */
static void mi_put_hex(struct seq_file *m, unsigned long v)
{
	char buf[3 + 2 * sizeof(v)];
	char *p = buf + sizeof(buf);

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	*--p = ' ';
	seq_write(m, p, buf + sizeof(buf) - p);
}

static void mi_put_pages(struct seq_file *m, unsigned long pages)
{
	seq_put_decimal_ull(m, " ", pages << (PAGE_SHIFT - 10));
}

/*
 * The record's figures before the walk's, in MI_MM_HEADER's order.  One call
 * per figure, no array of them: mi_mm_show()'s frame is near the 1024 bytes
 * W=1 allows under KASAN (its redzones), and an array here tipped it over.
 */
static void mi_put_mm(struct seq_file *m, pid_t nr, const struct mi_mm_fig *g,
		      unsigned long vmas)
{
	seq_put_decimal_ll(m, "", nr);
	mi_put_pages(m, g->total_vm);
	mi_put_pages(m, g->hiwater_vm);
	mi_put_pages(m, g->anon + g->file + g->shmem);
	mi_put_pages(m, g->anon);
	mi_put_pages(m, g->file);
	mi_put_pages(m, g->shmem);
	mi_put_pages(m, g->hiwater_rss);
	mi_put_pages(m, g->data_vm);
	mi_put_pages(m, g->exec_vm);
	mi_put_pages(m, g->stack_vm);
	mi_put_pages(m, g->locked_vm);
	mi_put_pages(m, g->pinned_vm);
	mi_put_pages(m, g->swap);
	seq_put_decimal_ull(m, " ", g->pgtables);
	seq_put_decimal_ll(m, " ", g->map_count);
	if (mi_pm.max_map_count)
		seq_put_decimal_ll(m, " ", READ_ONCE(*mi_pm.max_map_count));
	else
		seq_puts(m, " -");
	mi_put_hex(m, g->start_code);
	mi_put_hex(m, g->end_code);
	mi_put_hex(m, g->start_data);
	mi_put_hex(m, g->end_data);
	mi_put_hex(m, g->start_brk);
	mi_put_hex(m, g->brk);
	mi_put_hex(m, g->start_stack);
	if (mi_pm.walk)
		seq_put_decimal_ull(m, " ", vmas);
	else
		seq_puts(m, " -");
}

static int mi_mm_show(struct seq_file *m, void *unused)
{
	struct mi_target *t = m->private;
	struct mi_mss mss = { };
	struct mi_mm_fig g;
	struct mi_found f;
	struct mi_walk w = { };
	unsigned long vmas = 0;
	int err;

	err = mi_target_find(t, &f);
	if (err)
		return err;
	seq_puts(m, MI_MM_HEADER);
	if (!f.mm) {
		mi_put_note(m, &f);
		return 0;
	}
	w.mm = f.mm;
	w.mss = &mss;
	err = mi_walk_mm(&w, &g, &vmas);
	if (err)
		goto put;

	mi_put_mm(m, f.nr, &g, vmas);
	mi_put_mss(m, &mss);
	seq_putc(m, ' ');
	mi_put_comm(m, f.comm);
	seq_putc(m, '\n');
	if (w.exited)
		seq_puts(m, "# the target exited during the read: the walk stopped there\n");
put:
	mmput(f.mm);
	return err;
}

static int mi_mm_open(struct inode *inode, struct file *file)
{
	struct mi_target *t;
	int err;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	mi_target_init(t);
	err = single_open(file, mi_mm_show, t);
	if (err) {
		mi_target_release(t);
		kfree(t);
	}
	return err;
}

static int mi_mm_release(struct inode *inode, struct file *file)
{
	struct mi_target *t = ((struct seq_file *)file->private_data)->private;

	mi_target_release(t);
	kfree(t);
	return single_release(inode, file);
}

const struct file_operations mi_mm_fops = {
	.owner = THIS_MODULE,
	.open = mi_mm_open,
	.read = seq_read,
	.write = mi_target_fwrite,
	.llseek = seq_lseek,
	.release = mi_mm_release,
};

/* ---- vmas ---- */

#define MI_VMAS_HEADER "start end perms flags offset dev inode size_kb " \
	MI_MSS_HEADER " name\n"

/*
 * Iterator state.  Record 0 is the header; record N >= 1 is the VMA that
 * contains or follows next_addr when N == next_pos.  Between reads only
 * the mm is kept (mm_count, like /proc/PID/smaps); each ->start() takes
 * mm_users and mmap_lock again, and ->stop() drops them.
 */
struct mi_vmas_iter {
	struct mi_target target;	/* first: mi_target_fwrite() */
	struct mm_struct *mm;	/* mmgrab()bed at record 0, or NULL */
	struct mi_walk w;
	bool got_mm;		/* mm_users held by this start/stop pair */
	bool noted;		/* the "exited" note was printed */
	loff_t next_pos;
	unsigned long next_addr;
	unsigned long cur_end;	/* end of the VMA last returned */
	struct mi_found found;	/* at record 0 */
	int err;
};

static_assert(offsetof(struct mi_vmas_iter, target) == 0);

#define MI_VMAS_NOTE	((void *)2)

/* The row's VMA: the one after the last row, or at next_addr after a drop */
static struct vm_area_struct *mi_vmas_find(struct mi_vmas_iter *it)
{
	struct vm_area_struct *vma = mi_walk_next_vma(&it->w, it->next_addr);

	if (vma)
		it->cur_end = vma->vm_end;
	return vma;
}

static void mi_vmas_drop(struct mi_vmas_iter *it)
{
	if (it->mm)
		mmdrop(it->mm);
	it->mm = NULL;
}

static void *mi_vmas_start(struct seq_file *m, loff_t *pos)
{
	struct mi_vmas_iter *it = m->private;
	int err;

	if (*pos == 0) {
		mi_vmas_drop(it);
		it->noted = false;
		it->next_pos = 1;
		it->next_addr = 0;
		err = mi_target_find(&it->target, &it->found);
		if (err)
			return ERR_PTR(err);
		if (it->found.mm) {
			/* Keep the mm, not its memory, between reads. */
			mmgrab(it->found.mm);
			it->mm = it->found.mm;
			mmput(it->found.mm);
			it->found.mm = NULL;
		}
		return SEQ_START_TOKEN;
	}
	if (!it->mm || *pos != it->next_pos)
		return NULL;
	if (!mmget_not_zero(it->mm)) {
		if (it->noted)
			return NULL;
		return MI_VMAS_NOTE;
	}
	it->got_mm = true;
	it->w.mm = it->mm;
	it->w.exited = false;
	err = mi_walk_lock(&it->w);
	if (err)
		return ERR_PTR(err);
	return mi_vmas_find(it);
}

static void *mi_vmas_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct mi_vmas_iter *it = m->private;

	++*pos;
	if (v == SEQ_START_TOKEN)
		return mi_vmas_start(m, pos);
	if (v == MI_VMAS_NOTE || it->w.exited || !it->w.locked)
		return NULL;
	it->next_pos = *pos;
	it->next_addr = it->cur_end;
	if (mi_walk_yield(&it->w, false) || it->w.exited)
		return NULL;
	return mi_vmas_find(it);
}

static void mi_vmas_stop(struct seq_file *m, void *v)
{
	struct mi_vmas_iter *it = m->private;

	mi_walk_unlock(&it->w);
	if (it->got_mm)
		mmput(it->mm);
	it->got_mm = false;
}

/* A VMA's name: an open file, or text copied to @name ("" for none). */
#define MI_VMA_NAME_LEN	64

static void mi_vmas_name(struct mm_struct *mm, struct vm_area_struct *vma,
			 struct file **file, char *name)
{
	const char *n = NULL;

	*file = NULL;
	name[0] = '\0';
	if (vma->vm_file) {
		*file = get_file(vma->vm_file);
		return;
	}
	/*
	 * Copied, not kept: the walk may drop mmap_lock before the name is
	 * printed, and what vm_ops->name() returns belongs to the VMA.
	 */
	if (vma->vm_ops && vma->vm_ops->name)
		n = vma->vm_ops->name(vma);
	if (!n && vma->vm_start <= mm->brk && vma->vm_end >= mm->start_brk)
		n = "[heap]";
	else if (!n && vma->vm_start <= mm->start_stack &&
		 vma->vm_end >= mm->start_stack)
		n = "[stack]";
	if (n)
		strscpy(name, n, MI_VMA_NAME_LEN);
}

static int mi_vmas_show(struct seq_file *m, void *v)
{
	struct mi_vmas_iter *it = m->private;
	struct vm_area_struct *vma = v;
	unsigned long start, end, flags, pgoff;
	unsigned long long ino = 0;
	struct mi_mss mss = { };
	char name[MI_VMA_NAME_LEN];
	struct file *file;
	dev_t dev = 0;
	int err = 0;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, MI_VMAS_HEADER);
		if (!it->mm)
			mi_put_note(m, &it->found);
		return 0;
	}
	if (v == MI_VMAS_NOTE) {
		seq_puts(m, "# the target exited during the read: no more rows\n");
		it->noted = true;
		return 0;
	}

	/* A snapshot of the row: the walk may drop mmap_lock. */
	start = vma->vm_start;
	end = vma->vm_end;
	flags = vma->vm_flags;
	pgoff = vma->vm_pgoff;
	mi_vmas_name(it->mm, vma, &file, name);
	if (file) {
		/* what maps shows: the overlay's file, not the layer's */
		const struct inode *inode = mi_file_user_inode(file);

		dev = inode->i_sb->s_dev;
		ino = inode->i_ino;
	}
	if (mi_pm.walk) {
		unsigned long drops = it->w.drops, nr = 0;

		/* Each row counts its own shmem swap (as smaps per VMA). */
		it->w.swap_counted = 0;
		it->w.mss = &mss;
		err = mi_walk_range(&it->w, vma, start, end, &nr);
		/*
		 * A drop inside the row left the iterator inside it: the
		 * next row is looked up from this row's end, as smaps does.
		 */
		if (it->w.drops != drops)
			it->w.reset = true;
	}

	seq_printf(m, "0x%lx 0x%lx %c%c%c%c 0x%lx 0x%llx %02x:%02x %llu %lu",
		   start, end, flags & VM_READ ? 'r' : '-',
		   flags & VM_WRITE ? 'w' : '-', flags & VM_EXEC ? 'x' : '-',
		   flags & VM_MAYSHARE ? 's' : 'p', flags,
		   (unsigned long long)pgoff << PAGE_SHIFT, MAJOR(dev),
		   MINOR(dev), ino, (end - start) >> 10);
	mi_put_mss(m, &mss);
	seq_putc(m, ' ');
	if (file) {
		seq_path(m, mi_file_user_path(file), "\n");
		fput(file);
	} else {
		seq_puts(m, name[0] ? name : "-");
	}
	seq_putc(m, '\n');
	if (!err && it->w.exited)
		seq_puts(m, "# the target exited during the read: the walk stopped there\n");
	return err;
}

static const struct seq_operations mi_vmas_sops = {
	.start = mi_vmas_start,
	.next = mi_vmas_next,
	.stop = mi_vmas_stop,
	.show = mi_vmas_show,
};

static int mi_vmas_open(struct inode *inode, struct file *file)
{
	struct mi_vmas_iter *it;

	it = __seq_open_private(file, &mi_vmas_sops, sizeof(*it));
	if (!it)
		return -ENOMEM;
	mi_target_init(&it->target);
	return 0;
}

static int mi_vmas_release(struct inode *inode, struct file *file)
{
	struct mi_vmas_iter *it = ((struct seq_file *)file->private_data)->private;

	mi_vmas_drop(it);
	mi_target_release(&it->target);
	return seq_release_private(inode, file);
}

const struct file_operations mi_vmas_fops = {
	.owner = THIS_MODULE,
	.open = mi_vmas_open,
	.read = seq_read,
	.write = mi_target_fwrite,
	.llseek = seq_lseek,
	.release = mi_vmas_release,
};

/* ---- init ---- */

void mi_procmem_init(void)
{
	struct mi_ksym_set walk = MI_KSYM_SET_INIT, swap, pid = MI_KSYM_SET_INIT;
	struct mi_ksym_set map_count = MI_KSYM_SET_INIT, procs;
	struct mi_cap *caps = mi_pm_caps;
	const char *ptl_sym = mi_pte_map_lock_sym();	/* compat_procmem.h */

	/* Each found function becomes its static call's target. */
	mi_ksym_static_call(&walk, mi_walk_page_range, "walk_page_range");
	mi_ksym_static_call(&walk, mi_walk_page_vma, "walk_page_vma");
	mi_ksym_static_call(&walk, mi_vm_normal_page, "vm_normal_page");
	mi_ksym_static_call(&walk, mi_vm_normal_page_pmd, "vm_normal_page_pmd");
	if (ptl_sym)
		mi_ksym_static_call(&walk, mi_pte_offset_map_lock, ptl_sym);
	mi_pm.walk = walk.ok;
	mi_ksym_set_row(&caps[MI_ROW_ROLLUP], &walk,
			"walk_page_range, walk_page_vma, vm_normal_page(_pmd)%s%s (not exported) via ksyms; PSS by %s",
			ptl_sym ? ", " : "", ptl_sym ?: "", mi_pss_source());

	swap = (struct mi_ksym_set){ .ok = mi_pm.walk };
	if (IS_ENABLED(CONFIG_SWAP) && IS_ENABLED(CONFIG_SHMEM)) {
		mi_ksym_static_call(&swap, mi_swp_swapcount, "swp_swapcount");
		if (!mi_shmem_mapping_inline())	/* compat_procmem.h */
			mi_ksym_static_call(&swap, mi_shmem_mapping,
					    "shmem_mapping");
		mi_ksym_static_call(&swap, mi_shmem_swap_usage, "shmem_swap_usage");
		mi_ksym_static_call(&swap, mi_shmem_partial_swap_usage,
				    "shmem_partial_swap_usage");
		mi_pm.swap = swap.ok;
		mi_pm.swap_figs = swap.ok;
		if (swap.ok || swap.missing)
			mi_ksym_set_row(&caps[MI_ROW_SWAP], &swap,
					"swp_swapcount, shmem_swap_usage (not exported) via ksyms");
		else
			mi_cap_set(&caps[MI_ROW_SWAP], false,
				   "the page walk is unavailable");
	} else {
		/* Nothing can be in swap, or no shmem: the figures are right. */
		mi_pm.swap_figs = mi_pm.walk;
		mi_cap_set(&caps[MI_ROW_SWAP], mi_pm.walk,
			   "no CONFIG_SWAP or CONFIG_SHMEM: swap is 0");
	}

	/* Without hugetlb there is no hugetlb VMA: the figures are 0. */
	if (!IS_ENABLED(CONFIG_HUGETLB_PAGE))
		mi_cap_set(&caps[MI_ROW_HUGETLB], false,
			   "no CONFIG_HUGETLB_PAGE: no hugetlb mappings, the fields are 0");
	else if (!mi_pm.walk)
		mi_cap_set(&caps[MI_ROW_HUGETLB], false,
			   "the page walk is unavailable");
	else
		mi_cap_set(&caps[MI_ROW_HUGETLB], true, "%s",
			   mi_hugetlb_source());

	mi_ksym_static_call(&pid, mi_mm_access, "mm_access");
	mi_pm.access = pid.ok;
	mi_ksym_set_row(&caps[MI_ROW_PID], &pid,
			"pid written to the open file; mm_access(PTRACE_MODE_READ_FSCREDS) (not exported) via ksyms, as /proc/PID/smaps");

	/* find_ge_pid is exported from 6.x on, not on 5.10: looked up */
	procs = (struct mi_ksym_set){ .ok = mi_pm.access,
				      .missing = pid.missing };
	mi_ksym_static_call(&procs, mi_find_ge_pid, "find_ge_pid");
	mi_pm.procs = procs.ok;
	mi_ksym_set_row(&caps[MI_ROW_PROCS], &procs,
			"thread groups as /proc lists them: find_ge_pid (not exported on every kernel) via ksyms, pids of the opener's pid namespace; mm_access as /proc/PID/smaps_rollup");

	mi_pm.max_map_count = (int *)mi_ksym_in(&map_count, "sysctl_max_map_count");
	mi_ksym_set_row(&caps[MI_ROW_MAX_MAP_COUNT], &map_count,
			"sysctl_max_map_count (not exported) via ksyms");

	mi_caps_register(&mi_pm_table, mi_pm_caps, ARRAY_SIZE(mi_pm_caps));
}

void mi_procmem_exit(void)
{
	mi_caps_unregister(&mi_pm_table);
}
