// SPDX-License-Identifier: GPL-2.0
/*
 * mm and vmas: one process's memory (docs/procmem.md).
 *
 * mm prints the target's mm_struct figures (as /proc/PID/status) and the
 * rollup of a page walk (as /proc/PID/smaps_rollup); vmas prints one row per
 * VMA with the same walk figures (as /proc/PID/smaps).  The walk counts
 * exactly what fs/proc/task_mmu.c counts on the running kernel, with the
 * kernel's own walker: walk_page_range() is not exported, so it is called
 * through a static call (ksyms.h); our pmd_entry callback handles huge PMDs
 * and maps the PTE table itself, as smaps_pte_range() does, so the walker
 * never splits a huge page.
 *
 * The target is per open file: the reading process unless a pid was
 * written to the file (looked up in the writer's pid namespace; access as
 * for /proc/PID/smaps).  mmap_lock is taken killably, only ever for a
 * bounded part of the walk: our callbacks stop the walker when the lock is
 * contended and at least every MI_HOLD_BUDGET entries visited, the lock is
 * dropped, and the walk resumes by address.
 * seq_file calls ->stop() before it copies to user space, so the lock is
 * never held across a copy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagewalk.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/static_call.h>
#include <linux/swap.h>
#include <linux/threads.h>
#include <linux/uaccess.h>

#include "capabilities.h"
#include "compat.h"
#include "ksyms.h"
#include "procmem.h"
#include "text.h"

/* smaps keeps PSS in 1/4096 bytes (PSS_SHIFT in fs/proc/task_mmu.c) */
#define MI_PSS_SHIFT	12

/*
 * Work between two drops of mmap_lock, by entries visited: a PTE is 1, a
 * huge PMD as many as the pages it may account one by one, a hole the
 * walker reports 1, a VMA 64.  Empty upper levels cost nothing (the
 * walker skips them without a callback, as for smaps).
 */
#define MI_HOLD_BUDGET	32768
#define MI_VMA_COST	64

/* Unexported helpers, found once at init and called directly (ksyms.h). */
DEFINE_STATIC_CALL_NULL(mi_walk_page_range, walk_page_range);
DEFINE_STATIC_CALL_NULL(mi_walk_page_vma, walk_page_vma);
DEFINE_STATIC_CALL_NULL(mi_vm_normal_page, vm_normal_page);
DEFINE_STATIC_CALL_NULL(mi_vm_normal_page_pmd, vm_normal_page_pmd);
DEFINE_STATIC_CALL_NULL(mi_mm_access, mm_access);
DEFINE_STATIC_CALL_NULL(mi_swp_swapcount, swp_swapcount);
#ifndef MI_HAVE_INLINE_SHMEM_MAPPING
DEFINE_STATIC_CALL_NULL(mi_shmem_mapping, shmem_mapping);
#endif
DEFINE_STATIC_CALL_NULL(mi_shmem_swap_usage, shmem_swap_usage);
DEFINE_STATIC_CALL_NULL(mi_shmem_partial_swap_usage,
			shmem_partial_swap_usage);
#ifdef MI_PTE_MAP_LOCK_SYM
DEFINE_STATIC_CALL_NULL(mi_pte_offset_map_lock, MI_PTE_MAP_LOCK_SYM);
#endif

static struct {
	bool walk;		/* the page walk works: rollup figures */
	bool swap;		/* swp_swapcount and the shmem swap helpers */
	bool swap_figs;		/* swap_kb, swap_pss_kb are right (mm.swap_pss) */
	bool access;		/* mm_access: other pids may be chosen */
	int *max_map_count;	/* sysctl_max_map_count */
} mi_pm;

enum {
	MI_ROW_ROLLUP,
	MI_ROW_SWAP,
	MI_ROW_PID,
	MI_ROW_MAX_MAP_COUNT,
	MI_NR_ROWS
};

static struct mi_cap mi_pm_caps[MI_NR_ROWS] = {
	[MI_ROW_ROLLUP] = { .name = "mm.rollup", .kind = MI_CAP_FIELD },
	[MI_ROW_SWAP] = { .name = "mm.swap_pss", .kind = MI_CAP_FIELD },
	[MI_ROW_PID] = { .name = "pid_select", .kind = MI_CAP_MECHANISM },
	[MI_ROW_MAX_MAP_COUNT] = { .name = "mm.max_map_count",
				   .kind = MI_CAP_FIELD },
};

static struct mi_cap_table mi_pm_table;

/* The walk figures, in bytes (PSS in bytes << MI_PSS_SHIFT), as smaps. */
struct mi_mss {
	unsigned long resident;
	unsigned long shared_clean;
	unsigned long shared_dirty;
	unsigned long private_clean;
	unsigned long private_dirty;
	unsigned long referenced;
	unsigned long anonymous;
	unsigned long lazyfree;
	unsigned long anon_thp;
	unsigned long shmem_thp;
	unsigned long file_thp;
	unsigned long swap;
	u64 pss;
	u64 pss_anon;
	u64 pss_file;
	u64 pss_shmem;
	u64 pss_dirty;
	u64 pss_locked;
	u64 swap_pss;
};

/*
 * One walk of @mm.  The caller holds mm_users and, while w->locked,
 * mmap_lock for read.  Each VMA is walked whole by one walker call, which
 * our callbacks stop (returning 1, the address to resume from in w->stop)
 * when the budget is spent or the lock is wanted; the caller then drops
 * the lock and resumes by address.  The walker's private data is the walk.
 */
struct mi_walk {
	struct mm_struct *mm;
	struct mi_mss *mss;	/* where the figures go */
	bool locked;		/* mmap_lock held for read */
	bool exited;		/* the target exited during the walk */
	bool moved;		/* a PMD or a hole was walked in this hold */
	bool reset;		/* the lock was dropped since vmi was placed */
	unsigned long work;	/* entries visited in this hold */
	unsigned long stop;	/* where a callback stopped the walk */
	unsigned long drops;	/* times the lock was dropped */
	struct mi_vma_iter vmi;	/* the VMAs, in address order */
	/*
	 * Shmem swap below this address was counted from the object
	 * (shmem_swap_usage() of a VMA walked from its start): a VMA found
	 * there after the lock was dropped (one split at the cursor, or put
	 * back in its place) must not count it again.  The walk only moves up.
	 */
	unsigned long swap_counted;
};

/*
 * Called by the callbacks before the entries at @addr: stop the walker
 * there when this hold has done its share, or someone waits for the lock
 * (a writer: mmap/munmap of the target), or the CPU is wanted.  At least
 * one PMD or hole is walked per hold, so contention cannot stall the walk.
 */
static bool mi_walk_stop_at(struct mi_walk *w, unsigned long addr)
{
	if (!w->moved)
		return false;
	if (w->work < MI_HOLD_BUDGET && !mmap_lock_is_contended(w->mm) &&
	    !need_resched())
		return false;
	w->stop = addr;
	return true;
}

static void mi_accumulate(struct mi_mss *mss, struct page *page,
			  unsigned long size, u64 pss, bool dirty, bool locked,
			  bool private)
{
	mss->pss += pss;
	if (mi_page_anon(page))
		mss->pss_anon += pss;
	else if (mi_page_swapbacked(page))
		mss->pss_shmem += pss;
	else
		mss->pss_file += pss;
	if (locked)
		mss->pss_locked += pss;
	if (dirty || mi_page_dirty(page)) {
		mss->pss_dirty += pss;
		if (private)
			mss->private_dirty += size;
		else
			mss->shared_dirty += size;
	} else {
		if (private)
			mss->private_clean += size;
		else
			mss->shared_clean += size;
	}
}

/* smaps_account() of the running kernel, for a present mapping */
static void mi_account(struct mi_mss *mss, struct page *page, bool compound,
		       bool young, bool dirty, bool locked)
{
	unsigned long nr = compound ? compound_nr(page) : 1;
	unsigned long size = nr * PAGE_SIZE;
	unsigned long i;

	if (mi_page_anon(page)) {
		mss->anonymous += size;
		if (!mi_page_swapbacked(page) && !dirty && !mi_page_dirty(page))
			mss->lazyfree += size;
	}
	mss->resident += size;
	if (young || mi_page_young(page))
		mss->referenced += size;

	/* A reference count of 1 means mapped exactly once (smaps' test). */
	if (mi_page_mapped_once(page)) {
		mi_accumulate(mss, page, size, (u64)size << MI_PSS_SHIFT, dirty,
			      locked, true);
		return;
	}
	for (i = 0; i < nr; i++, page++) {
		bool exclusive;
		int mapcount = mi_page_mapcount(page, &exclusive);
		u64 pss = (u64)PAGE_SIZE << MI_PSS_SHIFT;

		if (mapcount >= 2)
			pss = div_u64(pss, mapcount);
		mi_accumulate(mss, page, PAGE_SIZE, pss, dirty, locked,
			      exclusive);
	}
}

static void mi_account_swap(struct mi_mss *mss, swp_entry_t entry)
{
	u64 pss = (u64)PAGE_SIZE << MI_PSS_SHIFT;
	int mapcount = 1;

	mss->swap += PAGE_SIZE;
	if (mi_pm.swap)
		mapcount = static_call(mi_swp_swapcount)(entry);
	if (mapcount >= 2)
		pss = div_u64(pss, mapcount);
	mss->swap_pss += pss;
}

/* A private writable shmem VMA with swapped pages: count per hole. */
static void mi_shmem_swap_range(struct mm_walk *walk, unsigned long addr,
				unsigned long end)
{
	struct mi_walk *w = walk->private;
	struct vm_area_struct *vma = walk->vma;
	struct address_space *mapping = vma->vm_file->f_mapping;
	pgoff_t first = linear_page_index(vma, addr);
	pgoff_t last = linear_page_index(vma, end);

	w->mss->swap += static_call(mi_shmem_partial_swap_usage)(mapping,
								  first, last);
}

/* The walker's pte_hole: no page table there, so count the object's swap. */
static int mi_shmem_hole(unsigned long addr, unsigned long end,
			 __always_unused int depth, struct mm_walk *walk)
{
	struct mi_walk *w = walk->private;

	if (mi_walk_stop_at(w, addr))
		return 1;
	w->work++;
	w->moved = true;
	mi_shmem_swap_range(walk, addr, end);
	return 0;
}

/*
 * The holes a PTE table had, counted after its lock is dropped:
 * shmem_partial_swap_usage() may cond_resched(), which on a kernel without
 * CONFIG_PREEMPT_COUNT (Debian's 5.10) really schedules with the PTE lock
 * held, and a task spinning for that lock on the same CPU never lets it
 * run again (the soft lockup in mi_pmd_entry seen on 5.10).  One call per
 * run of holes, which sums to what one call per page would count.
 */
static void mi_shmem_holes(struct mm_walk *walk, unsigned long addr,
			   const unsigned long *holes, unsigned int nr)
{
	unsigned int b = 0, e;

	for (;;) {
		b = find_next_bit(holes, nr, b);
		if (b >= nr)
			break;
		e = find_next_zero_bit(holes, nr, b);
		mi_shmem_swap_range(walk, addr + b * PAGE_SIZE,
				    addr + e * PAGE_SIZE);
		b = e;
	}
}

static void mi_huge_pmd(pmd_t pmdval, unsigned long addr,
			struct mm_walk *walk)
{
	struct mi_mss *mss = ((struct mi_walk *)walk->private)->mss;
	struct vm_area_struct *vma = walk->vma;
	struct page *page;

	/*
	 * A non-present huge PMD is a THP under migration: smaps counts it,
	 * we skip it (transient; docs/procmem.md).
	 */
	if (!pmd_present(pmdval))
		return;
	/* NULL for the huge zero page, as smaps' lookup */
	page = static_call(mi_vm_normal_page_pmd)(vma, addr, pmdval);
	if (IS_ERR_OR_NULL(page))
		return;
	if (mi_page_anon(page))
		mss->anon_thp += HPAGE_PMD_SIZE;
	else if (mi_page_swapbacked(page))
		mss->shmem_thp += HPAGE_PMD_SIZE;
	else if (!is_zone_device_page(page))
		mss->file_thp += HPAGE_PMD_SIZE;
	mi_account(mss, page, true, pmd_young(pmdval), pmd_dirty(pmdval),
		   vma->vm_flags & VM_LOCKED);
}

/* smaps_pte_range(): the huge PMD or the PTEs under one PMD */
static int mi_pmd_entry(pmd_t *pmd, unsigned long addr, unsigned long end,
			struct mm_walk *walk)
{
	struct mi_walk *w = walk->private;
	struct mi_mss *mss = w->mss;
	struct vm_area_struct *vma = walk->vma;
	bool locked = vma->vm_flags & VM_LOCKED;
	bool shmem = walk->ops->pte_hole;	/* holes counted (below) */
	DECLARE_BITMAP(holes, PTRS_PER_PTE);
	unsigned long first = addr;
	spinlock_t *ptl;	/* the huge PMD's or the PTE table's lock */
	pte_t *start_pte, *pte;
	pmd_t pmdval __maybe_unused;

	/* Nothing below this PMD is left to the walker: it never splits. */
	walk->action = ACTION_CONTINUE;
	/* Stopped before this PMD: it is walked after the lock is retaken. */
	if (mi_walk_stop_at(w, addr))
		return 1;
	w->moved = true;

	if (mi_pmd_is_huge(READ_ONCE(*pmd))) {
		ptl = pmd_lock(walk->mm, pmd);
		if (mi_pmd_is_huge(*pmd)) {
			mi_huge_pmd(*pmd, addr, walk);
			spin_unlock(ptl);
			/* mi_account() may visit each of its pages */
			w->work += HPAGE_PMD_NR;
			goto out;
		}
		spin_unlock(ptl);
	}

#ifdef MI_PTE_MAP_LOCK_SYM
	/*
	 * Out of line and unexported from 6.5 (ksyms).  It fails (NULL) if
	 * the table went away meanwhile: the walker retries this PMD.
	 */
	start_pte = static_call(mi_pte_offset_map_lock)(walk->mm, pmd, addr,
							&ptl);
	if (!start_pte) {
		walk->action = ACTION_AGAIN;
		return 0;
	}
	__acquire(ptl);		/* taken in the call, which sparse cannot see */
#ifdef MI_RCU_SPARSE_CONTEXT
	__acquire(RCU);		/* so is the RCU read lock pte_unmap() drops */
#endif
#else
	/* Up to 6.4 a PTE table cannot go while mmap_lock is held. */
	pmdval = READ_ONCE(*pmd);
	if (pmd_none(pmdval) || unlikely(pmd_bad(pmdval)))
		return 0;
	start_pte = pte_offset_map_lock(walk->mm, pmd, addr, &ptl);
#endif
	if (shmem)
		bitmap_zero(holes, PTRS_PER_PTE);
	for (pte = start_pte; addr != end; pte++, addr += PAGE_SIZE) {
		pte_t ptent = ptep_get(pte);
		swp_entry_t entry;
		struct page *page;

		if (pte_present(ptent)) {
			page = static_call(mi_vm_normal_page)(vma, addr, ptent);
			if (page)
				mi_account(mss, page, false, pte_young(ptent),
					   pte_dirty(ptent), locked);
		} else if (pte_none(ptent)) {
			if (shmem)
				__set_bit((addr - first) >> PAGE_SHIFT, holes);
		} else if (mi_pte_swap_entry(ptent, &entry)) {
			mi_account_swap(mss, entry);
		}
		/* migration and device entries: skipped (docs/procmem.md) */
	}
	pte_unmap_unlock(start_pte, ptl);
	w->work += (end - first) >> PAGE_SHIFT;
	if (shmem)
		mi_shmem_holes(walk, first, holes,
			       (end - first) >> PAGE_SHIFT);
out:
	cond_resched();
	return 0;
}

static const struct mm_walk_ops mi_walk_ops = {
	.pmd_entry = mi_pmd_entry,
};

static const struct mm_walk_ops mi_shmem_walk_ops = {
	.pmd_entry = mi_pmd_entry,
	.pte_hole = mi_shmem_hole,
};

static bool mi_vma_is_shmem(struct vm_area_struct *vma)
{
	struct address_space *mapping;

	if (!vma->vm_file)
		return false;
	mapping = vma->vm_file->f_mapping;
#ifdef MI_HAVE_INLINE_SHMEM_MAPPING
	return shmem_mapping(mapping);	/* inline: 5.11 to 6.8 (probe.sh) */
#else
	return static_call(mi_shmem_mapping)(mapping);
#endif
}

static int mi_walk_lock(struct mi_walk *w)
{
	if (mmap_read_lock_killable(w->mm))
		return -EINTR;
	w->locked = true;
	w->work = 0;
	w->moved = false;
	/* Any VMA pointer, and the iterator's place, may be stale now. */
	w->reset = true;
	return 0;
}

static void mi_walk_unlock(struct mi_walk *w)
{
	if (w->locked) {
		mmap_read_unlock(w->mm);
		w->drops++;
	}
	w->locked = false;
}

/*
 * Drop and retake mmap_lock if @force (a callback stopped the walk), or if
 * it is wanted or held long enough.  w->exited when the target went away
 * meanwhile; -EINTR when a fatal signal stopped the relock.
 */
static int mi_walk_yield(struct mi_walk *w, bool force)
{
	if (!force && w->work < MI_HOLD_BUDGET &&
	    !mmap_lock_is_contended(w->mm) && !need_resched())
		return 0;
	mi_walk_unlock(w);
	cond_resched();
	/* Only we hold the mm: the target has exited (or exec'd away). */
	if (atomic_read(&w->mm->mm_users) <= 1) {
		w->exited = true;
		return 0;
	}
	return mi_walk_lock(w);
}

/*
 * The next VMA in address order: the iterator's next one while the lock
 * has been held since it was placed, else (the first call, or after a
 * drop) the one that contains or follows @addr, with the iterator placed
 * afresh there.  One lookup per drop, not one per VMA.
 */
static struct vm_area_struct *mi_walk_next_vma(struct mi_walk *w,
					       unsigned long addr)
{
	if (w->reset) {
		mi_vma_iter_set(&w->vmi, w->mm, addr);
		w->reset = false;
	}
	return mi_vma_iter_next(&w->vmi);
}

/*
 * smap_gather_stats()'s choice of walk for @vma from @addr.  Shmem swap is
 * counted from the object, once, when the walk starts at the VMA's start
 * and the mapping is shared or read-only (or nothing is swapped); else,
 * per hole in the page tables (private writable COW, or a resumed walk).
 * Below w->swap_counted the swap is counted already: no hole counting
 * there.  Returns the ops, valid for [addr, *ops_end).
 */
static const struct mm_walk_ops *mi_vma_ops(struct mi_walk *w,
					    struct vm_area_struct *vma,
					    unsigned long addr,
					    unsigned long *ops_end)
{
	unsigned long swapped;

	*ops_end = vma->vm_end;
	if (!mi_pm.swap || !mi_vma_is_shmem(vma))
		return &mi_walk_ops;
	if (addr < w->swap_counted) {
		*ops_end = min(vma->vm_end, w->swap_counted);
		return &mi_walk_ops;
	}
	swapped = static_call(mi_shmem_swap_usage)(vma);
	if (addr == vma->vm_start &&
	    (!swapped || (vma->vm_flags & VM_SHARED) ||
	     !(vma->vm_flags & VM_WRITE))) {
		w->mss->swap += swapped;
		w->swap_counted = vma->vm_end;
		return &mi_walk_ops;
	}
	return &mi_shmem_walk_ops;
}

/*
 * Walk [*addrp, end) of @vma (*addrp inside it) with one walker call, or
 * one per part when the shmem swap method changes inside it (above).  A
 * walk from the VMA's start goes to walk_page_vma(), as smaps does
 * (walk_page_range() would look the VMA up again).  Returns true when a
 * callback stopped the walker: then *addrp is where to resume, and the
 * caller must drop the lock.  Else *addrp is the end walked to.
 */
static bool mi_walk_vma(struct mi_walk *w, struct vm_area_struct *vma,
			unsigned long *addrp, unsigned long end)
{
	const struct mm_walk_ops *ops;
	unsigned long next, ops_end, addr = *addrp;
	int ret;

	end = min(end, vma->vm_end);
	while (addr < end) {
		ops = mi_vma_ops(w, vma, addr, &ops_end);
		next = min(end, ops_end);
		if (addr == vma->vm_start && next == vma->vm_end)
			ret = static_call(mi_walk_page_vma)(vma, ops, w);
		else
			ret = static_call(mi_walk_page_range)(w->mm, addr, next,
							      ops, w);
		/* > 0: our callback's stop; < 0: nothing walkable there */
		if (ret > 0) {
			*addrp = w->stop;
			return true;
		}
		addr = next;
	}
	*addrp = addr;
	return false;
}

/*
 * Walk [addr, end) of the VMAs, @vma first, into w->mss; *nr counts the
 * VMAs walked from their start.  Returns 0, or -EINTR when a fatal signal
 * stopped the relock (then !w->locked).
 *
 * Nothing learnt from a VMA outlives a drop of mmap_lock: the VMA found
 * at the same address afterwards may be another one in the same memory
 * (VMAs go straight back to their slab up to 6.x, and 7.x's cache is
 * SLAB_TYPESAFE_BY_RCU), so comparing pointers cannot tell.  After a drop
 * the walk resumes by address, with the VMA looked up and its ops chosen
 * again (mi_walk_vma() chooses them for every call).
 */
static int mi_walk_range(struct mi_walk *w, struct vm_area_struct *vma,
			 unsigned long addr, unsigned long end,
			 unsigned long *nr)
{
	bool stopped;
	int err;

	for (;;) {
		if (addr <= vma->vm_start) {
			addr = vma->vm_start;
			(*nr)++;
		}
		w->work += MI_VMA_COST;
		stopped = mi_walk_vma(w, vma, &addr, end);
		if (!stopped && addr >= end)
			return 0;
		err = mi_walk_yield(w, stopped);
		if (err || w->exited)
			return err;
		vma = mi_walk_next_vma(w, addr);
		if (!vma || vma->vm_start >= end)
			return 0;
	}
}

/* Per open file: the target.  NULL pid: the reading process. */
struct mi_target {
	struct mutex lock;	/* protects pid */
	struct pid *pid;
};

/* What a read found when it looked for the target's memory. */
struct mi_found {
	struct mm_struct *mm;	/* mm_users held, or NULL: see why */
	const char *why;
	pid_t nr;
	char comm[TASK_COMM_LEN];
};

/* The target's mm, as /proc/PID/smaps opens it (mm_access()), or an error. */
static int mi_target_find(struct mi_target *t, struct mi_found *f)
{
	struct task_struct *task;
	struct mm_struct *mm;

	memset(f, 0, sizeof(*f));
	if (mutex_lock_killable(&t->lock))
		return -EINTR;
	if (t->pid) {
		task = get_pid_task(t->pid, PIDTYPE_PID);
	} else {
		task = current;
		get_task_struct(task);
	}
	mutex_unlock(&t->lock);
	if (!task) {
		f->why = "the target has exited and been reaped";
		return 0;
	}
	f->nr = task_pid_vnr(task);
	get_task_comm(f->comm, task);
	if (task->flags & PF_KTHREAD) {
		f->why = "kernel thread: no user memory";
		goto put;
	}
	if (task != current && !mi_pm.access) {
		put_task_struct(task);
		return -EPERM;
	}
	mm = task == current ? get_task_mm(task) :
	     static_call(mi_mm_access)(task, PTRACE_MODE_READ_FSCREDS);
	/* No mm: NULL up to 6.x, -ESRCH in 7.x (mm_access() in kernel/fork.c) */
	if (mm == ERR_PTR(-ESRCH))
		mm = NULL;
	if (IS_ERR(mm)) {
		put_task_struct(task);
		return PTR_ERR(mm);
	}
	f->mm = mm;
	if (!mm)
		f->why = task->exit_state ?
			 "zombie: exited, its memory is gone" :
			 "exiting: its memory is gone";
put:
	put_task_struct(task);
	return 0;
}

static void mi_target_init(struct mi_target *t)
{
	mutex_init(&t->lock);
	t->pid = NULL;
}

static void mi_target_release(struct mi_target *t)
{
	put_pid(t->pid);
	mutex_destroy(&t->lock);
}

/*
 * Writing a pid chooses the target of this open file: "0" is the reading
 * process.  The pid is looked up in the writer's pid namespace and must be
 * readable as /proc/PID/smaps is; on any error nothing changes.  The file
 * position goes back to 0, so the next read starts afresh.
 */
static ssize_t mi_target_write(struct mi_target *t, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct mi_target probe = { };
	struct mi_found found;
	struct pid *pid = NULL;
	int nr, err;

	if (count > 32)
		return -EINVAL;
	err = kstrtoint_from_user(ubuf, count, 10, &nr);
	if (err)
		return err;
	if (nr < 0)
		return -EINVAL;
	if (nr > PID_MAX_LIMIT)
		return -ERANGE;
	if (nr) {
		pid = find_get_pid(nr);
		if (!pid)
			return -ESRCH;
		/* The access check, now, so a refused pid changes nothing. */
		mi_target_init(&probe);
		probe.pid = pid;
		err = mi_target_find(&probe, &found);
		mutex_destroy(&probe.lock);
		if (found.mm)
			mmput(found.mm);
		if (err) {
			put_pid(pid);
			return err;
		}
	}
	if (mutex_lock_killable(&t->lock)) {
		put_pid(pid);
		return -EINTR;
	}
	swap(t->pid, pid);
	mutex_unlock(&t->lock);
	put_pid(pid);
	*ppos = 0;
	return count;
}

/* "# pid N (comm): why": the comm escaped, so the note stays one line */
static void mi_put_note(struct seq_file *m, const struct mi_found *f)
{
	seq_printf(m, "# pid %d (", f->nr);
	mi_put_comm(m, f->comm);
	seq_printf(m, "): %s\n", f->why);
}

static void mi_put_kb(struct seq_file *m, unsigned long bytes)
{
	seq_printf(m, " %lu", bytes >> 10);
}

/*
 * The walk figures, or "-" for each when the walk is unavailable.  Without
 * the swap helpers (mm.swap_pss unavailable) swap_kb misses shmem swap and
 * swap_pss_kb cannot split shared entries: both are "-", not a wrong number.
 */
static void mi_put_mss(struct seq_file *m, const struct mi_mss *s)
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

#define MI_MSS_HEADER "rss_kb pss_kb pss_dirty_kb pss_anon_kb pss_file_kb " \
	"pss_shmem_kb uss_kb shared_clean_kb shared_dirty_kb "		\
	"private_clean_kb private_dirty_kb referenced_kb anonymous_kb "	\
	"lazyfree_kb anon_huge_kb shmem_pmd_kb file_pmd_kb swap_kb "	\
	"swap_pss_kb locked_kb"

/* ---- mm ---- */

#define MI_MM_HEADER "pid total_vm_kb hiwater_vm_kb mm_rss_kb mm_anon_kb " \
	"mm_file_kb mm_shmem_kb hiwater_rss_kb data_vm_kb " \
	"exec_vm_kb stack_vm_kb locked_vm_kb pinned_vm_kb swap_ents_kb "  \
	"pgtables_bytes map_count max_map_count start_code end_code "	  \
	"start_data end_data start_brk brk start_stack vmas_walked "	  \
	MI_MSS_HEADER " comm\n"

struct mi_mm_fig {
	unsigned long total_vm, hiwater_vm, anon, file, shmem, hiwater_rss;
	unsigned long data_vm, exec_vm, stack_vm, locked_vm, pinned_vm, swap;
	unsigned long pgtables, start_code, end_code, start_data, end_data;
	unsigned long start_brk, brk, start_stack;
	int map_count;
};

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

static int mi_mm_show(struct seq_file *m, void *unused)
{
	struct mi_target *t = m->private;
	struct mi_mss mss = { };
	struct mi_mm_fig g;
	struct mi_found f;
	struct mi_walk w = { };
	struct vm_area_struct *vma;
	unsigned long vmas = 0;
	const unsigned int kb = PAGE_SHIFT - 10;
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
	err = mi_walk_lock(&w);
	if (err)
		goto put;
	mi_mm_figures(f.mm, &g);
	vma = mi_pm.walk ? mi_walk_next_vma(&w, 0) : NULL;
	if (vma)
		err = mi_walk_range(&w, vma, 0, ULONG_MAX, &vmas);
	mi_walk_unlock(&w);
	if (err)
		goto put;

	seq_printf(m, "%d %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu",
		   f.nr, g.total_vm << kb, g.hiwater_vm << kb,
		   (g.anon + g.file + g.shmem) << kb, g.anon << kb,
		   g.file << kb, g.shmem << kb, g.hiwater_rss << kb,
		   g.data_vm << kb, g.exec_vm << kb, g.stack_vm << kb,
		   g.locked_vm << kb, g.pinned_vm << kb, g.swap << kb);
	seq_printf(m, " %lu %d", g.pgtables, g.map_count);
	if (mi_pm.max_map_count)
		seq_printf(m, " %d", READ_ONCE(*mi_pm.max_map_count));
	else
		seq_puts(m, " -");
	seq_printf(m, " 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx",
		   g.start_code, g.end_code, g.start_data, g.end_data,
		   g.start_brk, g.brk, g.start_stack);
	if (mi_pm.walk)
		seq_printf(m, " %lu", vmas);
	else
		seq_puts(m, " -");
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

static ssize_t mi_mm_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;

	return mi_target_write(m->private, ubuf, count, ppos);
}

const struct file_operations mi_mm_fops = {
	.owner = THIS_MODULE,
	.open = mi_mm_open,
	.read = seq_read,
	.write = mi_mm_write,
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
	struct mi_target target;
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

static ssize_t mi_vmas_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct mi_vmas_iter *it = m->private;

	return mi_target_write(&it->target, ubuf, count, ppos);
}

const struct file_operations mi_vmas_fops = {
	.owner = THIS_MODULE,
	.open = mi_vmas_open,
	.read = seq_read,
	.write = mi_vmas_write,
	.llseek = seq_lseek,
	.release = mi_vmas_release,
};

/* ---- init ---- */

void mi_procmem_init(void)
{
	struct mi_ksym_set walk = MI_KSYM_SET_INIT, swap, pid = MI_KSYM_SET_INIT;
	struct mi_ksym_set map_count = MI_KSYM_SET_INIT;
	struct mi_cap *caps = mi_pm_caps;

	/* Each found function becomes its static call's target. */
	mi_ksym_static_call(&walk, mi_walk_page_range, "walk_page_range");
	mi_ksym_static_call(&walk, mi_walk_page_vma, "walk_page_vma");
	mi_ksym_static_call(&walk, mi_vm_normal_page, "vm_normal_page");
	mi_ksym_static_call(&walk, mi_vm_normal_page_pmd, "vm_normal_page_pmd");
#ifdef MI_PTE_MAP_LOCK_SYM
	mi_ksym_static_call(&walk, mi_pte_offset_map_lock, __stringify(MI_PTE_MAP_LOCK_SYM));
#endif
	mi_pm.walk = walk.ok;
	mi_ksym_set_row(&caps[MI_ROW_ROLLUP], &walk,
			"walk_page_range, walk_page_vma, vm_normal_page(_pmd)%s (not exported) via ksyms; PSS by %s",
#ifdef MI_PTE_MAP_LOCK_SYM
			", " __stringify(MI_PTE_MAP_LOCK_SYM),
#else
			"",
#endif
			mi_pss_source());

	swap = (struct mi_ksym_set){ .ok = mi_pm.walk };
	if (IS_ENABLED(CONFIG_SWAP) && IS_ENABLED(CONFIG_SHMEM)) {
		mi_ksym_static_call(&swap, mi_swp_swapcount, "swp_swapcount");
#ifndef MI_HAVE_INLINE_SHMEM_MAPPING
		mi_ksym_static_call(&swap, mi_shmem_mapping, "shmem_mapping");
#endif
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

	mi_ksym_static_call(&pid, mi_mm_access, "mm_access");
	mi_pm.access = pid.ok;
	mi_ksym_set_row(&caps[MI_ROW_PID], &pid,
			"pid written to the open file; mm_access(PTRACE_MODE_READ_FSCREDS) (not exported) via ksyms, as /proc/PID/smaps");

	mi_pm.max_map_count = (int *)mi_ksym_in(&map_count, "sysctl_max_map_count");
	mi_ksym_set_row(&caps[MI_ROW_MAX_MAP_COUNT], &map_count,
			"sysctl_max_map_count (not exported) via ksyms");

	mi_caps_register(&mi_pm_table, mi_pm_caps, ARRAY_SIZE(mi_pm_caps));
}

void mi_procmem_exit(void)
{
	mi_caps_unregister(&mi_pm_table);
}
