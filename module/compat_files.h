/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences met by files.c (the page cache by inode), one small
 * helper each; the -DMI_HAVE_* flags come from probe.sh.
 */
#ifndef MI_COMPAT_FILES_H
#define MI_COMPAT_FILES_H

#include <linux/fs.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/static_call.h>

/*
 * The inode's state bits, under inode->i_lock.  "fs: add inode_state_read()
 * and friends" (in the 7.3 headers, not in 6.12's; hash not checked here)
 * hid i_state behind accessors.
 */
static inline unsigned long mi_inode_state(struct inode *inode)
{
#ifdef MI_HAVE_INODE_STATE_READ
	return inode_state_read(inode);
#else
	return inode->i_state;
#endif
}

/*
 * __iget(): a reference on an inode found on a list, under i_lock, that may
 * have none yet (ihold() warns there).  Out of line and not exported up to
 * 6.1 (mi_iget_call, resolved through ksyms by files.c); a static inline
 * of fs.h since "inode: make __iget() a static inline" (v6.12, merged with
 * the bcachefs tree; its mainline hash not checked here).
 */
#ifdef MI_HAVE_INLINE_IGET
#define MI_IGET_NEEDS_KSYM	false
static inline void mi_iget(struct inode *inode)
{
	__iget(inode);
}
#else
#define MI_IGET_NEEDS_KSYM	true
DECLARE_STATIC_CALL(mi_iget_call, __iget);
static inline void mi_iget(struct inode *inode)
{
	static_call(mi_iget_call)(inode);
}
#endif

/*
 * Pages of one page-cache entry found in the xarray.  Since "mm: Introduce
 * struct folio" (7b230db3b8d3, v5.16) a large folio is one (multi-index)
 * entry at its first index and its marks are that entry's; before it (5.10)
 * the marks of a THP are set at its head page's index and the entry there
 * is the head page.
 */
#ifdef MI_HAVE_FOLIO_NR_PAGES
#define MI_ENTRY_PAGES_HOW	"folio_nr_pages()"
#else
#define MI_ENTRY_PAGES_HOW	"thp_nr_pages()"
#endif

static inline unsigned long mi_entry_pages(void *entry)
{
#ifdef MI_HAVE_FOLIO_NR_PAGES
	return folio_nr_pages((struct folio *)entry);
#else
	return thp_nr_pages((struct page *)entry);
#endif
}

/*
 * Pages an entry met by xas_for_each() stands for, so that the entries of
 * a mapping add up to its nrpages.  A large folio is one multi-index entry
 * since "mm: Introduce struct folio" (7b230db3b8d3, v5.16); before it a THP
 * is stored as its head page at every one of its indices, one each.
 */
static inline unsigned long mi_entry_span(void *entry)
{
#ifdef MI_HAVE_FOLIO_NR_PAGES
	return folio_nr_pages((struct folio *)entry);
#else
	return 1;
#endif
}

/*
 * A reference on a page-cache entry found under RCU, as the page cache's
 * own lookups take one (filemap_get_entry(), find_get_entry() on 5.10):
 * false if it is being freed or frozen.
 */
static inline bool mi_entry_tryget(void *entry)
{
#ifdef MI_HAVE_FOLIO_NR_PAGES
	return folio_try_get((struct folio *)entry);
#else
	return get_page_unless_zero((struct page *)entry);
#endif
}

static inline void mi_entry_put(void *entry)
{
#ifdef MI_HAVE_FOLIO_NR_PAGES
	folio_put((struct folio *)entry);
#else
	put_page((struct page *)entry);
#endif
}

/*
 * The memory cgroup @entry (referenced, under rcu_read_lock(), which keeps
 * that memcg from being freed) is charged to; NULL if none.
 * page->mem_cgroup until "mm: memcontrol: Use helpers to read page's memcg
 * data" (bcfe06bf2622, v5.11), page_memcg() then, folio_memcg() since
 * "mm/memcg: Add folio_memcg() and related functions" (61374127431a,
 * v5.16).
 */
#if !defined(CONFIG_MEMCG)
#define MI_HAVE_MEMCG	0
#define MI_MEMCG_HOW	""
#elif defined(MI_HAVE_FOLIO_MEMCG)
#define MI_HAVE_MEMCG	1
#define MI_MEMCG_HOW	"folio_memcg()"
static inline struct mem_cgroup *mi_entry_memcg(void *entry)
{
	return folio_memcg((struct folio *)entry);
}
#elif defined(MI_HAVE_PAGE_MEMCG)
#define MI_HAVE_MEMCG	1
#define MI_MEMCG_HOW	"page_memcg()"
static inline struct mem_cgroup *mi_entry_memcg(void *entry)
{
	return page_memcg((struct page *)entry);
}
#else
#define MI_HAVE_MEMCG	1
#define MI_MEMCG_HOW	"page->mem_cgroup"
static inline struct mem_cgroup *mi_entry_memcg(void *entry)
{
	return READ_ONCE(((struct page *)entry)->mem_cgroup);
}
#endif

#endif /* MI_COMPAT_FILES_H */
