// SPDX-License-Identifier: GPL-2.0
/*
 * buddy: the exact number of free blocks on every free list (node, zone,
 * migratetype, order), found by walking the lists, and pageblocks per
 * migratetype (docs/buddy.md).  The walker here is also the source of the
 * fragmentation file (frag.c).
 *
 * /proc/pagetypeinfo walks each list under zone->lock with IRQs off and
 * stops at 100000 entries per list, because a longer walk would hold off
 * every allocation on the zone.  Here no hold walks more than walk_budget
 * entries: between holds the lock is dropped and the walk
 * resumes from a cursor that is validated under the lock again.  Why the
 * result is still trustworthy, and what is reported when it is not, is in
 * the comment above mi_count_order().  Memory offline waits for a walk in
 * progress, so the cursor's struct page is never one being poisoned or
 * removed (offline_guard.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/page-flags.h>
#include <linux/pageblock-flags.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/static_call.h>

#include "buddy.h"
#include "capabilities.h"
#include "compat.h"
#include "ksyms.h"
#include "offline_guard.h"
#include "zone_walk.h"

/*
 * Migratetype names, as the kernel's migratetype_names[] (not exported)
 * spells them, so that rows match /proc/pagetypeinfo.  Indexed by the
 * kernel's own enum; the size comes from free_area.free_list, so a
 * migratetype this table does not know prints as "mtN" rather than
 * reading past the end.
 */
static const char *const mi_mt_names[MI_NR_MT] = {
	[MIGRATE_UNMOVABLE] = "Unmovable",
	[MIGRATE_MOVABLE] = "Movable",
	[MIGRATE_RECLAIMABLE] = "Reclaimable",
	[MIGRATE_HIGHATOMIC] = "HighAtomic",
#ifdef CONFIG_CMA
	[MIGRATE_CMA] = "CMA",
#endif
#ifdef CONFIG_MEMORY_ISOLATION
	[MIGRATE_ISOLATE] = "Isolate",
#endif
};

const char *mi_mt_name(unsigned int mt)
{
	static const char *const unknown[] = {
		"mt0", "mt1", "mt2", "mt3", "mt4", "mt5", "mt6", "mt7",
	};

	if (mt < MI_NR_MT && mi_mt_names[mt])
		return mi_mt_names[mt];
	return mt < ARRAY_SIZE(unknown) ? unknown[mt] : "mt";
}

/*
 * walk_budget: list entries per zone->lock hold, set at load time only
 * (0444).  Small values make the tests exercise the resume path on small
 * lists; 1..MI_WALK_BUDGET_MAX, anything else fails the load with -EINVAL
 * (not a number) or -ERANGE.
 */
static unsigned int mi_walk_budget = MI_WALK_BUDGET_DEFAULT;

static int mi_budget_set(const char *val, const struct kernel_param *kp)
{
	return mi_walk_budget_parse(val, kp->arg);
}

static const struct kernel_param_ops mi_budget_ops = {
	.set = mi_budget_set,
	.get = param_get_uint,
};

module_param_cb(walk_budget, &mi_budget_ops, &mi_walk_budget, 0444);
MODULE_PARM_DESC(walk_budget,
		 "free-list entries walked per zone->lock hold (1-100000, default 1024)");

/* The pageblock lookup (compat.h), resolved once at init. */
DEFINE_STATIC_CALL_NULL(mi_pfnblock_mt, MI_PFNBLOCK_MT_PROTO);
static bool mi_have_pfnblock_mt;

enum {
	MI_ROW_PAGEBLOCKS,
	MI_ROW_WALK,
	MI_NR_ROWS
};

static struct mi_cap mi_buddy_caps[MI_NR_ROWS] = {
	[MI_ROW_PAGEBLOCKS] = { .name = "buddy.pageblocks",
				.kind = MI_CAP_FIELD },
	[MI_ROW_WALK] = { .name = "free_list_walk", .kind = MI_CAP_MECHANISM },
};

static struct mi_cap_table mi_buddy_table;

/* ---- the walker ---- */

struct mi_walk {
	struct zone *zone;
	struct mi_walk_stats *st;
	unsigned long flags;
	u64 t0;
	unsigned int per_hold;	/* mi_walk_budget */
	unsigned int budget;	/* entries left in this hold */
};

static void mi_hold_begin(struct mi_walk *w)
	__acquires(&w->zone->lock)
{
	spin_lock_irqsave(&w->zone->lock, w->flags);
	w->t0 = local_clock();
	w->budget = w->per_hold;
}

static void mi_hold_end(struct mi_walk *w)
	__releases(&w->zone->lock)
{
	u64 ns = local_clock() - w->t0;
	unsigned int used = w->per_hold - w->budget;

	spin_unlock_irqrestore(&w->zone->lock, w->flags);
	w->st->holds++;
	w->st->entries += used;
	w->st->total_ns += ns;
	if (ns > w->st->longest_ns) {
		w->st->longest_ns = ns;
		w->st->longest_entries = used;
	}
}

/*
 * Let the allocator in: drop zone->lock, reschedule, take it again.  Returns
 * -EINTR (lock held) when the reader got a fatal signal.
 */
static int mi_hold_cycle(struct mi_walk *w)
{
	mi_hold_end(w);
	cond_resched();
	mi_hold_begin(w);
	return fatal_signal_pending(current) ? -EINTR : 0;
}

/* Is @pos the head of one of the zone's free lists? */
static bool mi_is_list_head(const struct zone *zone, const struct list_head *pos)
{
	const void *p = pos;

	return p >= (const void *)&zone->free_area[0] &&
	       p < (const void *)&zone->free_area[MI_NR_ORDERS];
}

/*
 * Count free_area[@order].free_list[@mt], zone->lock held on entry and on
 * return.  After each walk_budget entries the lock is cycled and the walk
 * resumes at the entry it stopped at (remembered by pfn), if that page is
 * still a free buddy block of this order in this zone and (if @strict) the
 * order's nr_free has not moved from @nr0; otherwise -EAGAIN.  -EAGAIN also when the
 * walk reaches another list's head: the cursor block was moved to another
 * list while the lock was dropped.
 */
static int mi_count_list(struct mi_walk *w, unsigned int order,
			 unsigned int mt, unsigned long nr0, bool strict,
			 unsigned long *count)
{
	struct free_area *area = &w->zone->free_area[order];
	struct list_head *head = &area->free_list[mt];
	struct list_head *pos = head->next;
	unsigned long n = 0;
	struct page *page;
	unsigned long pfn;
	int err;

	w->st->lists++;
	err = 0;
	while (pos != head) {
		if (mi_is_list_head(w->zone, pos)) {
			err = -EAGAIN;
			break;
		}
		if (!w->budget) {
			pfn = page_to_pfn(list_entry(pos, struct page, lru));
			err = mi_hold_cycle(w);
			if (err)
				break;
			page = pfn_to_online_page(pfn);
			if ((strict && area->nr_free != nr0) || !page ||
			    page_zone(page) != w->zone || !PageBuddy(page) ||
			    page_private(page) != order) {
				err = -EAGAIN;
				break;
			}
			pos = &page->lru;
			continue;
		}
		n++;
		w->budget--;
		pos = pos->next;
	}
	*count = n;	/* on -EAGAIN: what was walked */
	return err;
}

/*
 * Count every list of one order.  The lists of an order change only under
 * zone->lock, and every change adds or removes a block, which moves
 * free_area[order].nr_free by one.  An order is reported stable when
 *   - every resume found the cursor block where it was and nr_free equal
 *     to its value at the order's first hold, and
 *   - at the order's last hold nr_free still had that value and equalled
 *     the sum of the counts over all migratetypes.
 * An order counted in one hold is an exact snapshot.  One counted across
 * holds is exact unless blocks were added and removed in equal numbers
 * between two holds and outside the cursor; a walk that sees any other
 * change starts the order again, up to MI_WALK_TRIES times.  The last try
 * walks every list even after a change, each as far as its cursor lasts; if
 * it is not stable either, its counts are kept, the order is flagged and a
 * note says so (mi_walk_notes()).
 */
static int mi_count_order(struct mi_walk *w, unsigned int order,
			  struct mi_zone_free *zf)
{
	struct free_area *area = &w->zone->free_area[order];
	unsigned int try, mt;
	bool changed;
	int err;

	for (try = 1; try <= MI_WALK_TRIES; try++) {
		unsigned long nr0, sum = 0;

		if (!w->budget) {
			err = mi_hold_cycle(w);
			if (err)
				return err;
		}
		nr0 = area->nr_free;
		memset(zf->blocks[order], 0, sizeof(zf->blocks[order]));
		changed = false;
		for (mt = 0; mt < MI_NR_MT; mt++) {
			unsigned long n = 0;

			err = mi_count_list(w, order, mt, nr0,
					    try < MI_WALK_TRIES, &n);
			if (err == -EINTR)
				return err;
			zf->blocks[order][mt] = n;
			sum += n;
			if (err)
				changed = true;
			/* the last try counts every list, as far as it can */
			if (changed && try < MI_WALK_TRIES)
				break;
		}
		zf->nr_free[order] = area->nr_free;
		zf->tries[order] = try;
		zf->stable[order] = !changed && sum == nr0 &&
				    area->nr_free == nr0;
		if (zf->stable[order])
			return 0;
		if (try < MI_WALK_TRIES)
			w->st->retries++;
	}
	/* no stable try: the last one's counts stay */
	w->st->unstable++;
	return 0;
}

int mi_walk_zone(struct zone *zone, struct mi_zone_free *zf,
		 struct mi_walk_stats *st)
{
	struct mi_walk w = {
		.zone = zone, .st = st, .per_hold = mi_walk_budget,
	};
	unsigned int order;
	int err;

	memset(zf, 0, sizeof(*zf));
	err = mi_offline_hold();
	if (err)
		return err;
	st->zones++;
	mi_hold_begin(&w);
	for (order = 0; order < MI_NR_ORDERS; order++) {
		err = mi_count_order(&w, order, zf);
		if (err)
			break;
	}
	mi_hold_end(&w);
	mi_offline_release();
	return err;
}

int mi_walk_zone_res(int nid, struct zone *zone, void *res, void *state)
{
	return mi_walk_zone(zone, res, state);
}

void mi_walk_notes(struct seq_file *m, int nid, const struct zone *zone,
		   const struct mi_zone_free *zf)
{
	unsigned int order;

	for (order = 0; order < MI_NR_ORDERS; order++) {
		if (zf->stable[order])
			continue;
		seq_printf(m,
			   "# unstable: node %d zone %s order %u: the lists changed during each of %u tries (nr_free now %lu); counts are the last try's\n",
			   nid, zone->name, order, zf->tries[order],
			   zf->nr_free[order]);
	}
}

/*
 * What a hold is: on PREEMPT_RT zone->lock is a sleeping lock (an rtmutex),
 * spin_lock_irqsave() leaves IRQs on and the walker can be preempted while
 * holding it, so a hold's time is how long the zone's allocators waited for
 * the lock, not a time with IRQs off.
 */
#define MI_HOLD_KIND (IS_ENABLED(CONFIG_PREEMPT_RT) ? "preemptible" : "irqs_off")

void mi_walk_stats_note(struct seq_file *m, const struct mi_walk_stats *st)
{
	seq_printf(m,
		   "# walk: budget %u zones %llu lists %llu entries %llu holds %llu longest_hold_ns %llu longest_hold_entries %llu total_hold_ns %llu retries %llu unstable %llu hold %s\n",
		   mi_walk_budget, st->zones, st->lists, st->entries, st->holds,
		   st->longest_ns, st->longest_entries, st->total_ns, st->retries,
		   st->unstable, MI_HOLD_KIND);
}

/* ---- pageblocks ---- */

/*
 * Pageblocks per migratetype, counted as pagetypeinfo counts them
 * (pagetypeinfo_showblockcount_print()): every pageblock_nr_pages from the
 * zone's start, online and in this zone.  The bitmap is read without
 * zone->lock: a pageblock changing type meanwhile is counted as either.
 * Memory offline waits meanwhile (offline_guard.c), so a page that
 * pfn_to_online_page() returns stays initialised while it is read.
 */
static int mi_count_pageblocks(struct zone *zone, unsigned long *count)
{
	unsigned long pfn = zone->zone_start_pfn, end = zone_end_pfn(zone);
	unsigned int n = 0;
	int err;

	err = mi_offline_hold();
	if (err)
		return err;

	for (; pfn < end; pfn += pageblock_nr_pages) {
		struct page *page = pfn_to_online_page(pfn);
		unsigned long mt;

		if (!page || page_zone(page) != zone)
			continue;
		mt = static_call(mi_pfnblock_mt)MI_PFNBLOCK_MT_ARGS(page, pfn);
		if (mt < MI_NR_MT)
			count[mt]++;
		if (!(++n % 1024))
			cond_resched();
	}
	mi_offline_release();
	return 0;
}

/* ---- the buddy file ---- */

static void mi_order_header(struct seq_file *m, const char *prefix)
{
	unsigned int order;

	for (order = 0; order < MI_NR_ORDERS; order++)
		seq_printf(m, " %s%u", prefix, order);
}

static void mi_buddy_header(struct seq_file *m)
{
	seq_puts(m, "node zone migratetype pageblocks");
	mi_order_header(m, "order_");
	seq_puts(m, " free_pages\n");
}

/* One zone of the buddy file: its free lists and its pageblocks. */
struct mi_buddy_res {
	struct mi_zone_free zf;
	unsigned long pageblocks[MI_NR_MT];
};

static int mi_buddy_walk(int nid, struct zone *zone, void *res, void *state)
{
	struct mi_buddy_res *r = res;
	int err;

	err = mi_walk_zone(zone, &r->zf, state);
	if (err || !mi_have_pfnblock_mt)
		return err;
	return mi_count_pageblocks(zone, r->pageblocks);
}

static void mi_buddy_zone(struct seq_file *m, int nid, struct zone *zone,
			  const void *res, void *state)
{
	const struct mi_buddy_res *r = res;
	const struct mi_zone_free *zf = &r->zf;
	unsigned int mt, order;

	for (mt = 0; mt < MI_NR_MT; mt++) {
		unsigned long pages = 0;

		seq_printf(m, "%d %s %s", nid, zone->name, mi_mt_name(mt));
		if (mi_have_pfnblock_mt)
			seq_printf(m, " %lu", r->pageblocks[mt]);
		else
			seq_puts(m, " -");
		for (order = 0; order < MI_NR_ORDERS; order++) {
			unsigned long n = zf->blocks[order][mt];

			seq_printf(m, " %lu", n);
			pages += n << order;
		}
		seq_printf(m, " %lu\n", pages);
	}
	mi_walk_notes(m, nid, zone, zf);
}

void mi_walk_state_footer(struct seq_file *m, void *state)
{
	mi_walk_stats_note(m, state);
}

static const struct mi_zone_table mi_buddy_zone_table = {
	.header = mi_buddy_header,
	.walk = mi_buddy_walk,
	.print = mi_buddy_zone,
	.footer = mi_walk_state_footer,
	.state_size = sizeof(struct mi_walk_stats),
	.res_size = sizeof(struct mi_buddy_res),
};

MI_ZONE_TABLE_FOPS(mi_buddy, &mi_buddy_zone_table);

void mi_buddy_init(void)
{
	struct mi_ksym_set set = MI_KSYM_SET_INIT;
	struct mi_cap *caps = mi_buddy_caps;
	int err;

	mi_have_pfnblock_mt = mi_ksym_static_call(&set, mi_pfnblock_mt, MI_PFNBLOCK_MT_SYM);
	mi_ksym_set_row(&caps[MI_ROW_PAGEBLOCKS], &set,
			"%s() (not exported) via ksyms, as /proc/pagetypeinfo",
			MI_PFNBLOCK_MT_SYM);
	err = mi_offline_guard_init();
	if (err)
		mi_cap_set(&caps[MI_ROW_WALK], false,
			   "the memory notifier that holds off memory offline during a walk did not register (%d): buddy and fragmentation_types fail with ENODEV",
			   err);
	else if (IS_ENABLED(CONFIG_PREEMPT_RT))
		mi_cap_set(&caps[MI_ROW_WALK], true,
			   "buddy and fragmentation_types walk the free lists under zone->lock (PREEMPT_RT: a sleeping lock, IRQs on, the holder preemptible) for at most %u entries per hold; %u tries per order; memory offline waits for a walk (memory notifier)",
			   mi_walk_budget, MI_WALK_TRIES);
	else
		mi_cap_set(&caps[MI_ROW_WALK], true,
			   "buddy and fragmentation_types walk the free lists under zone->lock with IRQs off for at most %u entries per hold; %u tries per order; memory offline waits for a walk (memory notifier)",
			   mi_walk_budget, MI_WALK_TRIES);
	mi_caps_register(&mi_buddy_table, caps, MI_NR_ROWS);
}

void mi_buddy_exit(void)
{
	mi_caps_unregister(&mi_buddy_table);
	mi_offline_guard_exit();
}
