/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel differences of one process's memory, what /proc/PID/status,
 * smaps and maps read (procmem*.c; pages.c's mapped test): one small
 * function each, as in compat.h, which includes this file.  The MI_HAVE_*
 * flags come from probe.sh; each function cites the upstream change it
 * follows.
 */
#ifndef MI_COMPAT_PROCMEM_H
#define MI_COMPAT_PROCMEM_H

#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/huge_mm.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/page_idle.h>
#include <linux/shmem_fs.h>
#include <linux/spinlock.h>
#include <linux/static_call.h>
#include <linux/stringify.h>
#include <linux/swap.h>
#ifdef MI_HAVE_SOFTLEAF
#include <linux/leafops.h>
#else
#include <linux/swapops.h>
#endif

/*
 * A per-mm RSS counter as /proc/PID/status reads it.  "mm: fix the
 * inaccurate memory statistics issue for users" (v6.16, in Debian's 6.12
 * and 7.3) made status sum the per-CPU counters; before it status read the
 * approximate value (the per-thread cached deltas up to 6.1, the per-CPU
 * counter's global part from 6.2).
 */
static inline unsigned long mi_mm_counter(struct mm_struct *mm, int member)
{
#ifdef MI_HAVE_GET_MM_COUNTER_SUM
	return get_mm_counter_sum(mm, member);
#else
	return get_mm_counter(mm, member);
#endif
}

/*
 * Is @pmd a huge (or non-present huge) entry, the test that
 * pmd_trans_huge_lock() makes?  Its out-of-line half
 * __pmd_trans_huge_lock() is not exported, so procmem_walk.c takes
 * pmd_lock() itself and asks this under the lock.  pmd_is_huge() (7.3)
 * replaced the is_swap_pmd() || pmd_trans_huge() || pmd_devmap() test.
 */
static inline bool mi_pmd_is_huge(pmd_t pmd)
{
#ifdef MI_HAVE_PMD_IS_HUGE
	return pmd_is_huge(pmd);
#else
	return is_swap_pmd(pmd) || pmd_trans_huge(pmd) || pmd_devmap(pmd);
#endif
}

/*
 * @c, telling sparse that @x is held where @c is true: the kernel's own
 * __cond_lock() up to 6.x; 7.x has none (its lock annotations are
 * compiler-context-analysis.h's, and __acquire() is a no-op for sparse).
 */
#ifdef __CHECKER__
#define mi_cond_acquire(x, c)	((c) ? ({ __acquire(x); 1; }) : 0)
#else
#define mi_cond_acquire(x, c)	(c)
#endif

/*
 * The PTE table under a PMD, mapped and locked as smaps_pte_range() does
 * it with pte_offset_map_lock().
 *
 * "mm/pgtable: allow pte_offset_map[_lock]() to fail" (0d940a9b270b, v6.5)
 * made pte_offset_map_lock() call the unexported __pte_offset_map_lock(),
 * which fails if the table went away meanwhile: the walker retries the
 * PMD.  Later (in 7.3, not 6.12) pte_offset_map_lock() itself became out of
 * line.  probe.sh names the function to look up in MI_PTE_MAP_LOCK_SYM,
 * mi_pte_map_lock_sym() as a string; procmem.c's init points the static
 * call mi_pte_offset_map_lock (procmem_walk.c) at it.  Up to 6.4 the
 * function is inline (mi_pte_map_lock_sym() is NULL), cannot fail, and a
 * PTE table cannot go while mmap_lock is held: a none or bad PMD has none
 * (mi_pmd_no_pte_table()), and is skipped.
 */
#ifdef MI_PTE_MAP_LOCK_SYM
#define MI_PTE_MAP_LOCK_TYPE	typeof(MI_PTE_MAP_LOCK_SYM)
#else
#define MI_PTE_MAP_LOCK_TYPE	\
	pte_t *(struct mm_struct *, pmd_t *, unsigned long, spinlock_t **)
#endif
DECLARE_STATIC_CALL(mi_pte_offset_map_lock, MI_PTE_MAP_LOCK_TYPE);

static inline const char *mi_pte_map_lock_sym(void)
{
#ifdef MI_PTE_MAP_LOCK_SYM
	return __stringify(MI_PTE_MAP_LOCK_SYM);
#else
	return NULL;
#endif
}

/* Up to 6.4: no PTE table to map under @pmd (6.5 on the map checks). */
static inline bool mi_pmd_no_pte_table(pmd_t *pmd)
{
#ifdef MI_PTE_MAP_LOCK_SYM
	return false;
#else
	pmd_t pmdval = READ_ONCE(*pmd);

	return pmd_none(pmdval) || unlikely(pmd_bad(pmdval));
#endif
}

/*
 * True with *@pte mapped and *@ptl held (pte_unmap_unlock() undoes both);
 * false when the table went away (6.5 on): retry.
 */
static inline bool mi_pte_map_lock(struct mm_struct *mm, pmd_t *pmd,
				   unsigned long addr, pte_t **pte,
				   spinlock_t **ptl)
{
#ifdef MI_PTE_MAP_LOCK_SYM
	*pte = static_call(mi_pte_offset_map_lock)(mm, pmd, addr, ptl);
	/*
	 * The lock is taken in the call, which sparse cannot see; so is the
	 * RCU read lock pte_unmap() drops, where rcu_read_unlock() tells
	 * sparse of it (MI_RCU_SPARSE_CONTEXT, probe.sh).
	 */
#ifdef MI_RCU_SPARSE_CONTEXT
	return mi_cond_acquire(*ptl, mi_cond_acquire(RCU, !!*pte));
#else
	return mi_cond_acquire(*ptl, !!*pte);
#endif
#else
	*pte = pte_offset_map_lock(mm, pmd, addr, ptl);
	return true;
#endif
}

/*
 * Is @mapping shmem's, as smaps asks of a VMA's file?  "mm/shmem.c: make
 * shmem_mapping() inline" (30e6a51dbb05, after v5.10) made shmem_mapping()
 * an inline test of the exported shmem_aops (5.11 to 6.8, probe.sh), until
 * "shmem: move shmem_mapping out of line" (Christoph Hellwig, v6.9) made it
 * a function again.  Where it is a function (mi_shmem_mapping_inline()
 * false) procmem.c's init looks it up and points the static call
 * mi_shmem_mapping (procmem_walk.c) at it; where it is inline kallsyms has
 * no shmem_mapping.
 */
DECLARE_STATIC_CALL(mi_shmem_mapping, shmem_mapping);

static inline bool mi_shmem_mapping_inline(void)
{
#ifdef MI_HAVE_INLINE_SHMEM_MAPPING
	return true;
#else
	return false;
#endif
}

static inline bool mi_is_shmem_mapping(struct address_space *mapping)
{
#ifdef MI_HAVE_INLINE_SHMEM_MAPPING
	return shmem_mapping(mapping);
#else
	return static_call(mi_shmem_mapping)(mapping);
#endif
}

/*
 * Is the non-none, non-present @pte a swap entry (not a migration, device
 * or marker entry)?  Then *@entry is it.  "mm: introduce leaf entry type"
 * (7.3) replaced is_swap_pte()/non_swap_entry() with the softleaf API.
 */
static inline bool mi_pte_swap_entry(pte_t pte, swp_entry_t *entry)
{
#ifdef MI_HAVE_SOFTLEAF
	softleaf_t leaf = softleaf_from_pte(pte);

	*entry = leaf;
	return softleaf_is_swap(leaf);
#else
	if (!is_swap_pte(pte))
		return false;
	*entry = pte_to_swp_entry(pte);
	return !non_swap_entry(*entry);
#endif
}

/*
 * The page flags and counts smaps_account() reads.  Up to 6.1 it works on
 * the struct page (flag tests resolve to the head page as the page-flags
 * policies say); "fs/proc/task_mmu: convert smaps_account() to use a folio"
 * (6.12 has it) moved it to the folio.  The results are the same; the
 * helpers follow each kernel's own code.
 */
#ifdef MI_HAVE_PAGE_MAPCOUNT
static inline bool mi_page_anon(struct page *page)
{
	return PageAnon(page);
}

static inline bool mi_page_swapbacked(struct page *page)
{
	return PageSwapBacked(page);
}

static inline bool mi_page_dirty(struct page *page)
{
	return PageDirty(page);
}

static inline bool mi_page_young(struct page *page)
{
	return page_is_young(page) || PageReferenced(page);
}

static inline bool mi_page_mapped_once(struct page *page)
{
	return page_count(page) == 1;
}

/* Mapped in any page table (pages.c's file classes). */
static inline bool mi_page_mapped(struct page *page)
{
	return page_mapped(page);
}

/* The mapcount smaps divides a page's PSS by; *@exclusive: "private". */
static inline int mi_page_mapcount(struct page *page, bool *exclusive)
{
	int mapcount = page_mapcount(page);

	*exclusive = mapcount < 2;
	return mapcount;
}

static inline const char *mi_pss_source(void)
{
	return "page_mapcount() per page, as smaps (5.10-6.1)";
}
#else
static inline bool mi_page_anon(struct page *page)
{
	return folio_test_anon(page_folio(page));
}

static inline bool mi_page_swapbacked(struct page *page)
{
	return folio_test_swapbacked(page_folio(page));
}

static inline bool mi_page_dirty(struct page *page)
{
	return folio_test_dirty(page_folio(page));
}

static inline bool mi_page_young(struct page *page)
{
	struct folio *folio = page_folio(page);

	return folio_test_young(folio) || folio_test_referenced(folio);
}

static inline bool mi_page_mapped_once(struct page *page)
{
	return folio_ref_count(page_folio(page)) == 1;
}

static inline bool mi_page_mapped(struct page *page)
{
	return folio_mapped(page_folio(page));
}

#ifdef CONFIG_NO_PAGE_MAPCOUNT
/*
 * "mm: CONFIG_NO_PAGE_MAPCOUNT to prepare for not maintain per-page
 * mapcounts in large folios" (v6.15): smaps divides by the folio's average
 * per-page mapcount, rounded (fs/proc/internal.h,
 * folio_average_page_mapcount()), and calls a page private when the folio
 * is not maybe-mapped-shared.  Not built by Debian: untested.
 */
static inline int mi_page_mapcount(struct page *page, bool *exclusive)
{
	struct folio *folio = page_folio(page);
	int mapcount, entire, avg;

	*exclusive = !folio_maybe_mapped_shared(folio);
	if (!folio_test_large(folio))
		return atomic_read(&folio->_mapcount) + 1;
	mapcount = folio_large_mapcount(folio);
	if (unlikely(mapcount <= 0))
		return 0;
	entire = folio_entire_mapcount(folio);
	if (mapcount <= entire)
		return entire;
	mapcount -= entire;
	avg = ((unsigned int)mapcount + folio_large_nr_pages(folio) / 2) >>
	      folio_large_order(folio);
	return max_t(int, avg + entire, 1);
}

static inline const char *mi_pss_source(void)
{
	return "CONFIG_NO_PAGE_MAPCOUNT: average mapcount per folio, as smaps";
}
#else
/*
 * "mm: remove page_mapcount()" left smaps with folio_precise_page_mapcount()
 * (fs/proc/internal.h, 6.12; under CONFIG_PAGE_MAPCOUNT from 6.15): the
 * page's own mapcount (0 for a typed page) plus the folio's PMD mappings.
 */
static inline int mi_page_mapcount(struct page *page, bool *exclusive)
{
	struct folio *folio = page_folio(page);
	int mapcount = atomic_read(&page->_mapcount) + 1;

	if (page_mapcount_is_type(mapcount))
		mapcount = 0;
	if (folio_test_large(folio))
		mapcount += folio_entire_mapcount(folio);
	*exclusive = mapcount < 2;
	return mapcount;
}

static inline const char *mi_pss_source(void)
{
	return "folio_precise_page_mapcount() per page, as smaps (6.12+)";
}
#endif /* CONFIG_NO_PAGE_MAPCOUNT */
#endif /* MI_HAVE_PAGE_MAPCOUNT */

/*
 * How smaps_hugetlb_range() counts one hugetlb entry: into Shared_Hugetlb,
 * Private_Hugetlb, or not at all (none, or a swap entry without a page).
 * A hugetlb page is in no other smaps figure.
 */
enum mi_hugetlb_class {
	MI_HUGETLB_NONE,
	MI_HUGETLB_PRIVATE,
	MI_HUGETLB_SHARED,
};

/* vm_normal_page(), procmem_walk.c's static call (ksyms) */
DECLARE_STATIC_CALL(mi_vm_normal_page, vm_normal_page);

#ifdef CONFIG_HUGETLB_PAGE
/*
 * smaps_hugetlb_range() of the running kernel, for the hugetlb entry @pte
 * of @vma at @addr, whose value @ptent was read under its huge PTE lock:
 * that lock is what keeps a page behind a migration entry locked, which
 * the migration helpers below assert.  A PMD table shared with another
 * process (hugetlb_pmd_shared()) makes the page shared on every kernel.
 *
 * Up to 6.1: the page's mapcount (the hugetlb folio's, page_mapcount() of
 * its head), for a present entry or one with a page behind it (5.10: a
 * migration or device-private entry; "mm: remove special swap entry
 * functions" (Alistair Popple, v5.14) made that is_pfn_swap_entry()).
 * From 6.12 (David Hildenbrand's folio conversions of fs/proc/task_mmu.c
 * between v6.1 and v6.12; their subjects are not checked here): the
 * folio, a non-present entry is "maybe shared", and
 * folio_likely_mapped_shared() (folio_maybe_mapped_shared() from 6.15,
 * probe.sh), which for a hugetlb folio is mapcount > 1.  7.3 decodes the
 * entry with the softleaf API ("mm: introduce leaf entry type and use to
 * simplify leaf entry logic", Lorenzo Stoakes; MI_HAVE_SOFTLEAF).
 */
#ifdef MI_HAVE_PAGE_MAPCOUNT
/* 5.10, 6.1: the page behind a non-present hugetlb entry, or NULL */
static inline struct page *mi_hugetlb_swap_page(swp_entry_t swpent)
{
#ifdef MI_HAVE_IS_PFN_SWAP_ENTRY
	if (is_pfn_swap_entry(swpent))
		return pfn_swap_entry_to_page(swpent);
#else
	if (is_migration_entry(swpent))
		return migration_entry_to_page(swpent);
	if (is_device_private_entry(swpent))
		return device_private_entry_to_page(swpent);
#endif
	return NULL;
}
#endif

static inline enum mi_hugetlb_class
mi_hugetlb_class(struct vm_area_struct *vma, unsigned long addr, pte_t *pte,
		 pte_t ptent)
{
#ifdef MI_HAVE_PAGE_MAPCOUNT
	struct page *page = NULL;

	if (pte_present(ptent))
		page = static_call(mi_vm_normal_page)(vma, addr, ptent);
	else if (is_swap_pte(ptent))
		page = mi_hugetlb_swap_page(pte_to_swp_entry(ptent));
	if (!page)
		return MI_HUGETLB_NONE;
	if (page_mapcount(page) >= 2 || hugetlb_pmd_shared(pte))
		return MI_HUGETLB_SHARED;
	return MI_HUGETLB_PRIVATE;
#else
	struct folio *folio = NULL;
	bool present = pte_present(ptent);

	if (present) {
		folio = page_folio(pte_page(ptent));
	} else {
#ifdef MI_HAVE_SOFTLEAF
		const softleaf_t entry = softleaf_from_pte(ptent);

		if (softleaf_has_pfn(entry))
			folio = softleaf_to_folio(entry);
#else
		if (is_swap_pte(ptent)) {
			swp_entry_t swpent = pte_to_swp_entry(ptent);

			if (is_pfn_swap_entry(swpent))
				folio = pfn_swap_entry_folio(swpent);
		}
#endif
	}
	if (!folio)
		return MI_HUGETLB_NONE;
#ifdef MI_HAVE_FOLIO_MAYBE_MAPPED_SHARED
	if (!present || folio_maybe_mapped_shared(folio) ||
	    hugetlb_pmd_shared(pte))
#else
	if (!present || folio_likely_mapped_shared(folio) ||
	    hugetlb_pmd_shared(pte))
#endif
		return MI_HUGETLB_SHARED;
	return MI_HUGETLB_PRIVATE;
#endif
}
#endif /* CONFIG_HUGETLB_PAGE */

/* mm.hugetlb's detail: the rule of this kernel's smaps */
static inline const char *mi_hugetlb_source(void)
{
#if defined(MI_HAVE_PAGE_MAPCOUNT)
	return "page_mapcount() >= 2 or a shared PMD, as smaps (5.10-6.1)";
#elif defined(MI_HAVE_FOLIO_MAYBE_MAPPED_SHARED)
	return "not present, folio_maybe_mapped_shared() or a shared PMD, as smaps (6.15+)";
#else
	return "not present, folio_likely_mapped_shared() or a shared PMD, as smaps (6.12)";
#endif
}

/*
 * The VMAs of an mm in address order, from a given address, with one
 * lookup when placed and none per step.  "mm: add VMA iterator"
 * (f39af05949a4, v6.1) gave the maple tree's iterator (VMA_ITERATOR(),
 * vma_iter_init(), vma_next()), and "mm: remove the vma linked list"
 * (763ecb035029, v6.1) took away the vm_next list that 5.10 walks.
 * mi_vma_iter_set() places the iterator so that mi_vma_iter_next() returns
 * the VMA containing or following @addr, then each next one.  mmap_lock
 * must be held from the set on: after a drop the iterator must be set again.
 */
struct mi_vma_iter {
#ifdef MI_HAVE_VMA_ITERATOR
	struct vma_iterator vmi;
#else
	struct mm_struct *mm;
	unsigned long addr;
	struct vm_area_struct *last;	/* NULL: not stepped since the set */
	bool done;
#endif
};

static inline void mi_vma_iter_set(struct mi_vma_iter *it,
				   struct mm_struct *mm, unsigned long addr)
{
#ifdef MI_HAVE_VMA_ITERATOR
	vma_iter_init(&it->vmi, mm, addr);
#else
	it->mm = mm;
	it->addr = addr;
	it->last = NULL;
	it->done = false;
#endif
}

static inline struct vm_area_struct *mi_vma_iter_next(struct mi_vma_iter *it)
{
#ifdef MI_HAVE_VMA_ITERATOR
	return vma_next(&it->vmi);
#else
	if (it->done)
		return NULL;
	it->last = it->last ? it->last->vm_next : find_vma(it->mm, it->addr);
	it->done = !it->last;
	return it->last;
#endif
}

/*
 * The path and the inode /proc/PID/maps shows for a mapped file.  A file
 * opened by overlayfs on the layer below (a "backing file", FMODE_BACKING)
 * shows the overlay's path and inode, what the user mapped, where the
 * kernel has these helpers: "fs: create helper file_user_path() for user
 * displayed mapped file path" (08582d678fcf, v6.8), used by show_map_vma()
 * from then on, and file_user_inode(), the inode maps takes dev and inode
 * from where fs.h has it (a later upstream change, in Debian's 6.12 and 7.3
 * headers; its commit is not cited here: not checked).  Before them maps
 * prints f_path and file_inode() of the mapped file.
 */
static inline const struct path *mi_file_user_path(const struct file *f)
{
#ifdef MI_HAVE_FILE_USER_PATH
	return file_user_path(f);
#else
	return &f->f_path;
#endif
}

static inline const struct inode *mi_file_user_inode(const struct file *f)
{
#ifdef MI_HAVE_FILE_USER_INODE
	return file_user_inode(f);
#else
	return file_inode(f);
#endif
}

#endif /* MI_COMPAT_PROCMEM_H */
