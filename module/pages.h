/* SPDX-License-Identifier: GPL-2.0 */
/* The pages census (pages.c, docs/pages.md). */
#ifndef MI_PAGES_H
#define MI_PAGES_H

#include <linux/fs.h>
#include <linux/mmzone.h>

/* The census classes, in the order the pages file prints them. */
enum mi_pclass {
	MI_PC_BUDDY,
	MI_PC_FREE_OTHER,
	MI_PC_SLAB,
	MI_PC_LARGE_KMALLOC,
	MI_PC_PAGETABLE,
	MI_PC_ZSMALLOC,
	MI_PC_HUGETLB_FREE,
	MI_PC_HUGETLB_USED,
	MI_PC_ANON_LRU,
	MI_PC_ANON_OTHER,
	MI_PC_SHMEM,
	MI_PC_FILE_MAPPED,
	MI_PC_FILE_UNMAPPED,
	MI_PC_RESERVED,
	MI_PC_OFFLINE,
	MI_PC_UNCLASSIFIED,
	MI_NR_PCLASS
};

/*
 * One walk of the census (pages.c): every pfn of a zone, classed, handed
 * to @page with its class; a free buddy block once, from its head, with
 * @nr its pages (1 for any other pfn).  @page runs with no lock held and
 * may not sleep: the struct page stays (memory offline is held off) but
 * what it describes may change under it.  The counters add up over the
 * zones walked with one struct.
 */
struct mi_census {
	void (*page)(struct page *page, enum mi_pclass class, unsigned long nr,
		     void *arg);
	void *arg;
	unsigned long walked, holes;	/* pfns */
	u64 sections, pfns, longest_ns;	/* the cost, for "# walk:" notes */
};

/* 0, or -EINTR (a fatal signal) / mi_offline_hold()'s error */
int mi_census_zone(struct zone *zone, struct mi_census *c);

void mi_pages_init(void);
void mi_pages_exit(void);

extern const struct file_operations mi_pages_fops;

#endif /* MI_PAGES_H */
