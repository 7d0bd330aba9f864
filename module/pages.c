// SPDX-License-Identifier: GPL-2.0
/*
 * pages: a census of every pfn of every populated zone, one row per node,
 * zone and class (docs/pages.md).
 *
 * Each pfn the zone spans is looked up with pfn_to_online_page() and its
 * flags are read racily, as /proc/kpageflags reads them
 * (stable_page_flags()): no lock is held across the walk, so a page that
 * changes state while the walk passes it is counted in the state it was
 * seen in.  A free buddy block is counted once from its head, 1 << order
 * pages, and its tail pfns are skipped.  Memory offline is held off for the
 * walk of one section at a time (offline_guard.c), so no struct page read
 * here is being removed; between sections a fatal signal ends the read.
 * The walk yields every MI_PAGES_STEP pfns with cond_resched().  A node is
 * walked once per read, whatever the reader's buffer (zone_walk.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hugetlb.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/page-flags.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>

#include "buddy.h"
#include "capabilities.h"
#include "compat.h"
#include "offline_guard.h"
#include "pages.h"
#include "params.h"
#include "zone_walk.h"

/* pfns looked at between two cond_resched() calls */
#define MI_PAGES_STEP	4096

static const char *const mi_pclass_names[MI_NR_PCLASS] = {
	[MI_PC_BUDDY] = "buddy_free",
	[MI_PC_FREE_OTHER] = "free_other",
	[MI_PC_SLAB] = "slab",
	[MI_PC_LARGE_KMALLOC] = "large_kmalloc",
	[MI_PC_PAGETABLE] = "pagetable",
	[MI_PC_ZSMALLOC] = "zsmalloc",
	[MI_PC_HUGETLB_FREE] = "hugetlb_free",
	[MI_PC_HUGETLB_USED] = "hugetlb_used",
	[MI_PC_ANON_LRU] = "anon_lru",
	[MI_PC_ANON_OTHER] = "anon_other",
	[MI_PC_SHMEM] = "shmem",
	[MI_PC_FILE_MAPPED] = "file_mapped",
	[MI_PC_FILE_UNMAPPED] = "file_unmapped",
	[MI_PC_RESERVED] = "reserved",
	[MI_PC_OFFLINE] = "offline",
	[MI_PC_UNCLASSIFIED] = "unclassified",
};

enum {
	MI_ROW_SLAB,
	MI_ROW_LARGE_KMALLOC,
	MI_ROW_PAGETABLE,
	MI_ROW_ZSMALLOC,
	MI_ROW_KSTACK,
	MI_ROW_VMALLOC,
	MI_ROW_PERCPU,
	MI_ROW_PCP,
	MI_NR_ROWS
};

static struct mi_cap mi_pages_caps[MI_NR_ROWS] = {
	[MI_ROW_SLAB] = { .name = "pages.slab", .kind = MI_CAP_FIELD },
	[MI_ROW_LARGE_KMALLOC] = { .name = "pages.large_kmalloc",
				   .kind = MI_CAP_FIELD },
	[MI_ROW_PAGETABLE] = { .name = "pages.pagetable", .kind = MI_CAP_FIELD },
	[MI_ROW_ZSMALLOC] = { .name = "pages.zsmalloc", .kind = MI_CAP_FIELD },
	[MI_ROW_KSTACK] = { .name = "pages.kernel_stack", .kind = MI_CAP_FIELD },
	[MI_ROW_VMALLOC] = { .name = "pages.vmalloc", .kind = MI_CAP_FIELD },
	[MI_ROW_PERCPU] = { .name = "pages.percpu", .kind = MI_CAP_FIELD },
	[MI_ROW_PCP] = { .name = "pages.free_other", .kind = MI_CAP_FIELD },
};

static struct mi_cap_table mi_pages_table;

/*
 * One zone's census, as its walk found it, with the zone's figures read
 * when the walk ended: a node shown again prints what the first show did.
 */
struct mi_pages_zone {
	unsigned long n[MI_NR_PCLASS];
	unsigned long walked, holes, free, pcp, present, spanned;
};

/* The cost of a read's walks, added up over every zone (the "# walk:" note). */
struct mi_pages_state {
	u64 nodes, zones, sections, pfns, longest_ns;
	int last_nid;	/* the node of the last zone walked, + 1 */
};

/*
 * The class of one in-use or free page that is not the head of a free
 * buddy block.  Compound tails are classed by their head, as
 * stable_page_flags() does.
 */
static enum mi_pclass mi_page_class(struct page *page)
{
	struct page *head = compound_head(page);

	if (!PageCompound(page) && PageReserved(page))
		return MI_PC_RESERVED;
	if (PageOffline(page))
		return MI_PC_OFFLINE;
	if (PageSlab(head))
		return MI_PC_SLAB;
	if (mi_page_large_kmalloc(head))
		return MI_PC_LARGE_KMALLOC;
	if (PageTable(page))
		return MI_PC_PAGETABLE;
	if (mi_page_zsmalloc(page))
		return MI_PC_ZSMALLOC;
	if (PageHuge(head))	/* a free hugetlb folio has no references */
		return page_count(head) ? MI_PC_HUGETLB_USED :
					  MI_PC_HUGETLB_FREE;
	if (!page_count(head))	/* per-CPU lists, or between states */
		return MI_PC_FREE_OTHER;
	if (mi_page_anon(head))
		return PageLRU(head) ? MI_PC_ANON_LRU : MI_PC_ANON_OTHER;
	if (mi_page_swapbacked(head) && head->mapping)
		return MI_PC_SHMEM;
	if (head->mapping)
		return mi_page_mapped(head) ? MI_PC_FILE_MAPPED :
					   MI_PC_FILE_UNMAPPED;
	return MI_PC_UNCLASSIFIED;
}

/*
 * A free buddy block's order, read racily from page_private() as
 * buddy_order_unsafe() does; 0 when the value cannot be the order of a
 * block that starts at @pfn and fits in the zone.
 */
static unsigned int mi_buddy_order(struct page *page, unsigned long pfn,
				   unsigned long end)
{
	/* racy by design: the block may be allocated under us (checked below) */
	unsigned long order = data_race(READ_ONCE(page->private));

	if (order >= MI_NR_ORDERS || (pfn & ((1UL << order) - 1)) ||
	    pfn + (1UL << order) > end)
		return 0;
	return order;
}

/*
 * test_census_step_ms: for test_pages.sh only.  The walk sleeps this long,
 * uninterruptibly, every MI_PAGES_STEP pfns, as a machine with that many
 * more pfns would take to walk them (asleep rather than busy: the time is
 * what the test needs, and the test guests share their host's CPUs), so
 * that a test can kill a reader in the middle of a long walk and time how
 * soon it ends: only the check between sections can end it.  0 (the
 * default): no sleep.  Set at load time only (0444);
 * 0..MI_CENSUS_STEP_MAX_MS, else -EINVAL or -ERANGE.
 */
static unsigned int mi_census_step_ms;

static int mi_census_step_set(const char *val, const struct kernel_param *kp)
{
	return mi_census_step_parse(val, kp->arg);
}

static const struct kernel_param_ops mi_census_step_ops = {
	.set = mi_census_step_set,
	.get = param_get_uint,
};

module_param_cb(test_census_step_ms, &mi_census_step_ops, &mi_census_step_ms,
		0444);
MODULE_PARM_DESC(test_census_step_ms,
		 "tests only: the pages census sleeps this long every 4096 pfns (0-100 ms, default 0)");

/* The pfns [@pfn, @end) of @zone, all in one section, handed to @c->page. */
static void mi_census_range(struct zone *zone, unsigned long pfn,
			    unsigned long end, struct mi_census *c)
{
	unsigned long next_step = pfn + MI_PAGES_STEP;

	while (pfn < end) {
		struct page *page = pfn_to_online_page(pfn);
		unsigned long nr = 1;

		/* by pfns, not pages looked at: a free block skips its tail */
		if (pfn >= next_step) {
			next_step = pfn + MI_PAGES_STEP;
			if (mi_census_step_ms)
				msleep(mi_census_step_ms);
			cond_resched();
		}
		if (!page || page_zone(page) != zone) {
			c->holes++;
			pfn++;
			continue;
		}
		/*
		 * A free block is aligned to its size and a section holds
		 * the largest: the block's end is within @end.
		 */
		if (PageBuddy(page)) {
			nr = 1UL << mi_buddy_order(page, pfn, end);
			c->page(page, MI_PC_BUDDY, nr, c->arg);
		} else {
			c->page(page, mi_page_class(page), 1, c->arg);
		}
		c->walked += nr;
		pfn += nr;
	}
}

/*
 * The census of one zone, one memory section at a time: memory offline is
 * held off for one section's pfns (offline_guard.c), then let through, and
 * a reader with a fatal signal stops there with -EINTR.  A zone of a TiB
 * is 2^28 pfns: held whole, an offline would wait seconds for it, and so
 * would the reader's death.
 */
int mi_census_zone(struct zone *zone, struct mi_census *c)
{
	unsigned long pfn = zone->zone_start_pfn;
	unsigned long end = zone_end_pfn(zone);
	int err;

	while (pfn < end) {
		unsigned long stop = min(end, ALIGN(pfn + 1, PAGES_PER_SECTION));
		u64 ns;

		err = mi_offline_hold();
		if (err)
			return err;
		ns = local_clock();
		mi_census_range(zone, pfn, stop, c);
		ns = local_clock() - ns;
		mi_offline_release();
		c->sections++;
		c->pfns += stop - pfn;
		c->longest_ns = max(c->longest_ns, ns);
		pfn = stop;
		cond_resched();
		if (fatal_signal_pending(current))
			return -EINTR;
	}
	return 0;
}

static void mi_pages_count(struct page *page, enum mi_pclass class,
			   unsigned long nr, void *arg)
{
	struct mi_pages_zone *z = arg;

	z->n[class] += nr;
}

static int mi_pages_walk(int nid, struct zone *zone, void *res, void *state)
{
	struct mi_pages_state *s = state;
	struct mi_pages_zone *z = res;
	struct mi_census c = { .page = mi_pages_count, .arg = z };
	int cpu, err;

	err = mi_census_zone(zone, &c);
	s->sections += c.sections;
	s->pfns += c.pfns;
	s->longest_ns = max(s->longest_ns, c.longest_ns);
	if (err)
		return err;
	z->walked = c.walked;
	z->holes = c.holes;
	s->zones++;
	if (s->last_nid != nid + 1) {
		s->nodes++;
		s->last_nid = nid + 1;
	}
	for_each_online_cpu(cpu)
		z->pcp += mi_zone_pcp_count(zone, cpu);
	z->free = zone_page_state(zone, NR_FREE_PAGES);
	z->present = zone->present_pages;
	z->spanned = zone->spanned_pages;
	return 0;
}

static void mi_pages_rows(struct seq_file *m, int nid, struct zone *zone,
			  const void *res, void *state)
{
	const struct mi_pages_zone *z = res;
	unsigned int i;

	for (i = 0; i < MI_NR_PCLASS; i++)
		seq_printf(m, "%d %s %s %lu %lu\n", nid, zone->name,
			   mi_pclass_names[i], z->n[i], z->n[i] << PAGE_SHIFT);
	seq_printf(m, "# node %d zone %s: walked %lu present %lu spanned %lu holes %lu; free %lu + pcp %lu (NR_FREE_PAGES, per-CPU lists)\n",
		   nid, zone->name, z->walked, z->present, z->spanned, z->holes,
		   z->free, z->pcp);
}

/*
 * What the read walked: nodes, zones, the sections each held memory
 * offline off for (of section_pfns pfns), the pfns looked at and the
 * longest of those holds.
 */
static void mi_pages_footer(struct seq_file *m, void *state)
{
	const struct mi_pages_state *s = state;

	seq_printf(m, "# walk: nodes %llu zones %llu sections %llu section_pfns %lu pfns %llu longest_section_ns %llu\n",
		   s->nodes, s->zones, s->sections, PAGES_PER_SECTION, s->pfns,
		   s->longest_ns);
}

static void mi_pages_header(struct seq_file *m)
{
	seq_puts(m, "node zone class pages bytes\n");
	seq_puts(m, "# flags read racily, as /proc/kpageflags reads them; kernel stacks, vmalloc and percpu pages have no per-pfn mark and count as unclassified\n");
}

static const struct mi_zone_table mi_pages_zone_table = {
	.header = mi_pages_header,
	.walk = mi_pages_walk,
	.print = mi_pages_rows,
	.footer = mi_pages_footer,
	.state_size = sizeof(struct mi_pages_state),
	.res_size = sizeof(struct mi_pages_zone),
};

MI_ZONE_TABLE_FOPS(mi_pages, &mi_pages_zone_table);

void mi_pages_init(void)
{
	mi_cap_set(&mi_pages_caps[MI_ROW_SLAB], true, "%s",
		   mi_page_slab_source());
	mi_cap_set(&mi_pages_caps[MI_ROW_PAGETABLE], true, "%s",
		   mi_page_table_source());
	if (mi_have_page_large_kmalloc())
		mi_cap_set(&mi_pages_caps[MI_ROW_LARGE_KMALLOC], true,
			   "PageLargeKmalloc(), the PGTY_large_kmalloc page type; NR_SLAB_UNRECLAIMABLE_B counts these pages too");
	else
		mi_cap_set(&mi_pages_caps[MI_ROW_LARGE_KMALLOC], false,
			   "no per-pfn mark for large kmalloc() folios before the PGTY_large_kmalloc page type: counted as unclassified, though NR_SLAB_UNRECLAIMABLE_B counts them");
	if (mi_have_page_zsmalloc())
		mi_cap_set(&mi_pages_caps[MI_ROW_ZSMALLOC], true,
			   "PageZsmalloc(), a page type (43d746dc49bb, v6.11)");
	else
		mi_cap_set(&mi_pages_caps[MI_ROW_ZSMALLOC], false,
			   "no per-pfn zsmalloc mark before 43d746dc49bb (v6.11): zsmalloc pages count as unclassified");
	mi_cap_set(&mi_pages_caps[MI_ROW_KSTACK], false,
		   "kernel stack pages carry no page flag or type: counted as unclassified");
	mi_cap_set(&mi_pages_caps[MI_ROW_VMALLOC], false,
		   "vmalloc pages carry no page flag or type: counted as unclassified");
	mi_cap_set(&mi_pages_caps[MI_ROW_PERCPU], false,
		   "percpu chunk pages carry no page flag or type: counted as unclassified");
	mi_cap_set(&mi_pages_caps[MI_ROW_PCP], true,
		   "pages with no references that are not buddy heads: the per-CPU lists (not visible per pfn; the # note gives their count from the zone's pcp lists), the tails of multi-page allocations made without __GFP_COMP (in use: only the first page holds a reference) and pages in transit");
	mi_caps_register(&mi_pages_table, mi_pages_caps, MI_NR_ROWS);
}

void mi_pages_exit(void)
{
	mi_caps_unregister(&mi_pages_table);
}
