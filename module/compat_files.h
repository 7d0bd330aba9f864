/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences met by files.c (the page cache by inode), one small
 * helper each; the -DMI_HAVE_* flags come from probe.sh.
 */
#ifndef MI_COMPAT_FILES_H
#define MI_COMPAT_FILES_H

#include <linux/fs.h>
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
 * of fs.h in the 6.12 and 7.3 headers ("fs: make __iget() a static inline",
 * hash not checked here).
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

#endif /* MI_COMPAT_FILES_H */
