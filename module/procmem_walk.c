// SPDX-License-Identifier: GPL-2.0
/*
 * The page walk behind mm and vmas (docs/procmem.md): what smaps counts.
 *
 * The walk counts exactly what fs/proc/task_mmu.c counts on the running
 * kernel, with the kernel's own walker: walk_page_range() is not exported,
 * so it is called through a static call (ksyms.h); our pmd_entry callback
 * handles huge PMDs and maps the PTE table itself, as smaps_pte_range()
 * does, so the walker never splits a huge page.
 *
 * mmap_lock is taken killably, only ever for a bounded part of the walk:
 * our callbacks stop the walker when the lock is contended and at least
 * every MI_HOLD_BUDGET entries visited, the lock is dropped, and the walk
 * resumes by address.
 */
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/hugetlb.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/pagewalk.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/shmem_fs.h>
#include <linux/static_call.h>
#include <linux/swap.h>

#include "compat.h"
#include "procmem_priv.h"

/*
 * Work between two drops of mmap_lock, by entries visited: a PTE is 1, a
 * huge PMD as many as the pages it may account one by one, a hole the
 * walker reports 1, a VMA 64.  Empty upper levels cost nothing (the
 * walker skips them without a callback, as for smaps).
 */
#define MI_HOLD_BUDGET	32768
#define MI_VMA_COST	64

/* Unexported helpers, found once at init (procmem.c) and called directly. */
DEFINE_STATIC_CALL_NULL(mi_walk_page_range, walk_page_range);
DEFINE_STATIC_CALL_NULL(mi_walk_page_vma, walk_page_vma);
DEFINE_STATIC_CALL_NULL(mi_vm_normal_page, vm_normal_page);
DEFINE_STATIC_CALL_NULL(mi_vm_normal_page_pmd, vm_normal_page_pmd);
DEFINE_STATIC_CALL_NULL(mi_swp_swapcount, swp_swapcount);
DEFINE_STATIC_CALL_NULL(mi_shmem_swap_usage, shmem_swap_usage);
DEFINE_STATIC_CALL_NULL(mi_shmem_partial_swap_usage,
			shmem_partial_swap_usage);
/* compat_procmem.h's: looked up where the kernel has them out of line */
DEFINE_STATIC_CALL_NULL(mi_shmem_mapping, shmem_mapping);
DEFINE_STATIC_CALL_NULL(mi_pte_offset_map_lock, MI_PTE_MAP_LOCK_TYPE);

/* This hold has done its share, or a writer waits, or the CPU is wanted. */
static inline bool mi_walk_hold_over(struct mi_walk *w)
{
	return w->work >= MI_HOLD_BUDGET || mmap_lock_is_contended(w->mm) ||
	       need_resched();
}

/*
 * Called by the callbacks before the entries at @addr: stop the walker
 * there when this hold has done its share, or someone waits for the lock
 * (a writer: mmap/munmap of the target), or the CPU is wanted.  At least
 * one PMD or hole is walked per hold, so contention cannot stall the walk.
 */
static bool mi_walk_stop_at(struct mi_walk *w, unsigned long addr)
{
	if (!w->moved || !mi_walk_hold_over(w))
		return false;
	w->stop = addr;
	return true;
}

static __always_inline void mi_accumulate(struct mi_mss *mss,
					  struct page *page, unsigned long size,
					  u64 pss, bool dirty, bool locked,
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

/*
 * smaps_account() of the running kernel, for a present mapping.  Always
 * inlined, with mi_accumulate(): as calls they cost 50 instructions a page
 * more than smaps' (a 65530-VMA target under QEMU's -icount, bench/procmem)
 */
static __always_inline void mi_account(struct mi_mss *mss, struct page *page,
				       bool compound, bool young, bool dirty,
				       bool locked)
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

/*
 * smaps_pte_range(): the huge PMD or the PTEs under one PMD.  @holes: where
 * a shmem VMA's holes are noted (mi_shmem_pmd_entry()), else NULL.  Inlined
 * into both callbacks, so that the common one has no bitmap on its stack
 * (zeroed on entry by CONFIG_INIT_STACK_ALL_ZERO, guarded by the stack
 * protector: a tenth of a small VMA's walk, counted in instructions).
 */
static __always_inline int mi_pmd_walk(pmd_t *pmd, unsigned long addr,
				       unsigned long end, struct mm_walk *walk,
				       unsigned long *holes)
{
	struct mi_walk *w = walk->private;
	struct mi_mss *mss = w->mss;
	struct vm_area_struct *vma = walk->vma;
	bool locked = vma->vm_flags & VM_LOCKED;
	bool shmem = holes;	/* holes counted (below) */
	unsigned long first = addr;
	spinlock_t *ptl;	/* the huge PMD's or the PTE table's lock */
	pte_t *start_pte, *pte;

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

	/* No table to map (up to 6.4: none or bad PMD): nothing there. */
	if (mi_pmd_no_pte_table(pmd))
		return 0;
	/* The table went away meanwhile (6.5 on): the walker retries. */
	if (!mi_pte_map_lock(walk->mm, pmd, addr, &start_pte, &ptl)) {
		walk->action = ACTION_AGAIN;
		return 0;
	}
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

static int mi_pmd_entry(pmd_t *pmd, unsigned long addr, unsigned long end,
			struct mm_walk *walk)
{
	return mi_pmd_walk(pmd, addr, end, walk, NULL);
}

static int mi_shmem_pmd_entry(pmd_t *pmd, unsigned long addr,
			      unsigned long end, struct mm_walk *walk)
{
	DECLARE_BITMAP(holes, PTRS_PER_PTE);

	return mi_pmd_walk(pmd, addr, end, walk, holes);
}

#ifdef CONFIG_HUGETLB_PAGE
/*
 * smaps_hugetlb_range(): one hugetlb entry, whole, into shared_hugetlb or
 * private_hugetlb (compat_procmem.h's rule of the running kernel) and
 * nowhere else, as smaps (Rss leaves hugetlb pages out).  The walker calls
 * it for each huge page of a hugetlb VMA that has a page table there; it
 * stops the walk before an entry as mi_pmd_walk() does before a PMD.  The
 * entry is read under its huge PTE lock, as 6.12's smaps reads it (5.10
 * and 6.1 read it unlocked): ptep_get(), not huge_ptep_get(), which is out
 * of line and unexported on arm64, where a contiguous hugetlb page's first
 * entry has the present bit and the pfn the rule reads.
 */
static int mi_hugetlb_entry(pte_t *pte, __always_unused unsigned long hmask,
			    unsigned long addr,
			    __always_unused unsigned long end,
			    struct mm_walk *walk)
{
	struct mi_walk *w = walk->private;
	struct vm_area_struct *vma = walk->vma;
	struct hstate *h = hstate_vma(vma);
	enum mi_hugetlb_class class;
	spinlock_t *ptl;	/* the huge PTE's lock */

	if (mi_walk_stop_at(w, addr))
		return 1;
	w->moved = true;
	w->work++;
	ptl = huge_pte_lock(h, walk->mm, pte);
	class = mi_hugetlb_class(vma, addr, pte, ptep_get(pte));
	spin_unlock(ptl);
	if (class == MI_HUGETLB_SHARED)
		w->mss->shared_hugetlb += huge_page_size(h);
	else if (class == MI_HUGETLB_PRIVATE)
		w->mss->private_hugetlb += huge_page_size(h);
	return 0;
}
#else
#define mi_hugetlb_entry	NULL
#endif

static const struct mm_walk_ops mi_walk_ops = {
	.pmd_entry = mi_pmd_entry,
	.hugetlb_entry = mi_hugetlb_entry,
};

/* shmem is never hugetlb (hugetlbfs is its own file system) */
static const struct mm_walk_ops mi_shmem_walk_ops = {
	.pmd_entry = mi_shmem_pmd_entry,
	.pte_hole = mi_shmem_hole,
};

static bool mi_vma_is_shmem(struct vm_area_struct *vma)
{
	if (!vma->vm_file)
		return false;
	return mi_is_shmem_mapping(vma->vm_file->f_mapping);
}

int mi_walk_lock(struct mi_walk *w)
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

void mi_walk_unlock(struct mi_walk *w)
{
	if (w->locked) {
		mmap_read_unlock(w->mm);
		w->drops++;
	}
	w->locked = false;
}

/*
 * After a drop, how long at most the walk waits for the task that waits
 * for mmap_lock to take it.  Bounded: past it the walk takes the lock
 * again anyway (the waiter then gets it at rwsem's handoff), so a waiter
 * that never runs cannot stall the walk.
 */
#define MI_LET_IN_US	2000

/*
 * Let the waiter we dropped mmap_lock for have it before we ask again.  A
 * reader that asks at once gets it back: rwsem lets a reader steal the
 * lock from a writer that was woken but is not running yet, and the
 * writer is served only when its handoff timeout (RWSEM_WAIT_TIMEOUT, a
 * jiffy: 4 ms at HZ=250) has passed (upstream "locking/rwsem: Enable
 * reader optimistic lock stealing", v5.11).  So a munmap() beside a walk
 * of one big VMA waited 4-16 ms, a walk's worth, whatever our stops
 * (bench/procmem part 3 on 6.1; docs/bench.md has every kernel's).  The
 * waiter leaves the wait list when it takes the lock; we sleep, not spin,
 * so that it can run on this CPU too.  On PREEMPT_RT the test stays true
 * while the writer holds the lock (rw_base_is_contended()): the wait then
 * ends when the writer is done, as our read lock would have.
 */
static void mi_walk_let_waiter_in(struct mi_walk *w)
{
	ktime_t end = ktime_add_us(ktime_get(), MI_LET_IN_US);

	while (mmap_lock_is_contended(w->mm) &&
	       ktime_before(ktime_get(), end) &&
	       !fatal_signal_pending(current))
		usleep_range(10, 20);
}

/*
 * Drop and retake mmap_lock if @force (a callback stopped the walk), or if
 * it is wanted or held long enough.  w->exited when the target went away
 * meanwhile; -EINTR when a fatal signal stopped the relock.
 */
int mi_walk_yield(struct mi_walk *w, bool force)
{
	if (!force && !mi_walk_hold_over(w))
		return 0;
	mi_walk_unlock(w);
	mi_walk_let_waiter_in(w);
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
static __always_inline struct vm_area_struct *
mi_walk_next(struct mi_walk *w, unsigned long addr)
{
	if (w->reset) {
		mi_vma_iter_set(&w->vmi, w->mm, addr);
		w->reset = false;
	}
	return mi_vma_iter_next(&w->vmi);
}

struct vm_area_struct *mi_walk_next_vma(struct mi_walk *w, unsigned long addr)
{
	return mi_walk_next(w, addr);
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
int mi_walk_range(struct mi_walk *w, struct vm_area_struct *vma,
		  unsigned long addr, unsigned long end, unsigned long *nr)
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
		/* checked here first: a call per VMA is a tenth of a small one's walk */
		if (stopped || mi_walk_hold_over(w)) {
			err = mi_walk_yield(w, true);
			if (err || w->exited)
				return err;
		}
		/* inlined: a call per VMA was 1 % of a 65530-VMA read */
		vma = mi_walk_next(w, addr);
		if (!vma || vma->vm_start >= end)
			return 0;
	}
}
