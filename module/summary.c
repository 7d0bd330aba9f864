// SPDX-License-Identifier: GPL-2.0
/*
 * summary: memory on this box, one record per figure (docs/summary.md).
 *
 * Every figure that /proc/meminfo also shows is computed the way
 * fs/proc/meminfo.c computes it on the running kernel, so the two agree up
 * to the per-CPU counter drift between two reads.  Figures whose helper is
 * not exported are looked up once at init (ksyms); if a lookup fails the
 * figure is "-" and the capabilities file says why.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/static_call.h>
#include <linux/stddef.h>
#include <linux/swap.h>
#include <linux/vmstat.h>

#include "capabilities.h"
#include "compat.h"
#include "ksyms.h"
#include "show_fops.h"
#include "summary.h"

/*
 * Helpers that are not exported, resolved once by mi_summary_init() and
 * called directly through static calls (see ksyms.h for why never through
 * a pointer).  The bools say which ones were found.
 */
DEFINE_STATIC_CALL_NULL(mi_si_swapinfo, void (struct sysinfo *));
DEFINE_STATIC_CALL_NULL(mi_pcpu_nr_pages, unsigned long (void));
DEFINE_STATIC_CALL_NULL(mi_vmalloc_nr_pages, unsigned long (void));
DEFINE_STATIC_CALL_NULL(mi_total_swapcache_pages, unsigned long (void));

static struct {
	bool swapinfo, pcpu_pages, vmalloc_pages, swapcache_pages;
	struct hstate *hstates;				/* hstates[] */
	int *nr_hstates;				/* hugetlb_max_hstate */
	unsigned int *default_idx;			/* default_hstate_idx */
} mi_sym;

/* One figure: a value, or "-" when the kernel cannot provide it. */
struct mi_val {
	long long v;
	bool ok;
};

struct mi_summary {
	struct mi_val mem_total, mem_free, mem_available, buffers, cached;
	struct mi_val swap_cached, anon_pages, mapped, shmem;
	struct mi_val slab_reclaimable, slab_unreclaimable, kernel_stack;
	struct mi_val page_tables, sec_page_tables, percpu, vmalloc_used;
	struct mi_val swap_total, swap_free;
	struct mi_val hugepages_total, hugepages_free, hugepage_size, hugetlb;
	struct mi_val managed, pcp_free, highest_free_order;
	struct mi_val free_above_costly, unaccounted;
	/* unaccounted's terms that are not printed as figures, in kB */
	struct mi_val file_pages, misc_reclaimable, zspages;
	long long unaccounted_raw;
};

/* The file's records, in the order of docs/summary.md. */
static const struct mi_field {
	const char *name;
	size_t offset;
	const char *unit;
} mi_fields[] = {
#define MI_FIELD(f, unit) { #f, offsetof(struct mi_summary, f), unit }
	MI_FIELD(mem_total, "kB"),
	MI_FIELD(mem_free, "kB"),
	MI_FIELD(mem_available, "kB"),
	MI_FIELD(buffers, "kB"),
	MI_FIELD(cached, "kB"),
	MI_FIELD(swap_cached, "kB"),
	MI_FIELD(anon_pages, "kB"),
	MI_FIELD(mapped, "kB"),
	MI_FIELD(shmem, "kB"),
	MI_FIELD(slab_reclaimable, "kB"),
	MI_FIELD(slab_unreclaimable, "kB"),
	MI_FIELD(kernel_stack, "kB"),
	MI_FIELD(page_tables, "kB"),
	MI_FIELD(sec_page_tables, "kB"),
	MI_FIELD(percpu, "kB"),
	MI_FIELD(vmalloc_used, "kB"),
	MI_FIELD(swap_total, "kB"),
	MI_FIELD(swap_free, "kB"),
	MI_FIELD(hugepages_total, "pages"),
	MI_FIELD(hugepages_free, "pages"),
	MI_FIELD(hugepage_size, "kB"),
	MI_FIELD(hugetlb, "kB"),
	MI_FIELD(managed, "kB"),
	MI_FIELD(pcp_free, "kB"),
	MI_FIELD(highest_free_order, "order"),
	MI_FIELD(free_above_costly, "kB"),
	MI_FIELD(unaccounted, "kB"),
#undef MI_FIELD
};

/* capabilities rows for the figures whose source differs by kernel */
enum {
	MI_ROW_SWAP_CACHED,
	MI_ROW_CACHED,
	MI_ROW_PAGE_TABLES,
	MI_ROW_SEC_PAGE_TABLES,
	MI_ROW_PERCPU,
	MI_ROW_VMALLOC_USED,
	MI_ROW_SWAP_TOTAL,
	MI_ROW_SWAP_FREE,
	MI_ROW_HUGEPAGES_TOTAL,
	MI_ROW_HUGEPAGES_FREE,
	MI_ROW_HUGEPAGE_SIZE,
	MI_ROW_HUGETLB,
	MI_ROW_UNACCOUNTED,
	MI_NR_ROWS
};

static struct mi_cap mi_summary_caps[MI_NR_ROWS] = {
	[MI_ROW_SWAP_CACHED] = { .name = "summary.swap_cached" },
	[MI_ROW_CACHED] = { .name = "summary.cached" },
	[MI_ROW_PAGE_TABLES] = { .name = "summary.page_tables" },
	[MI_ROW_SEC_PAGE_TABLES] = { .name = "summary.sec_page_tables" },
	[MI_ROW_PERCPU] = { .name = "summary.percpu" },
	[MI_ROW_VMALLOC_USED] = { .name = "summary.vmalloc_used" },
	[MI_ROW_SWAP_TOTAL] = { .name = "summary.swap_total" },
	[MI_ROW_SWAP_FREE] = { .name = "summary.swap_free" },
	[MI_ROW_HUGEPAGES_TOTAL] = { .name = "summary.hugepages_total" },
	[MI_ROW_HUGEPAGES_FREE] = { .name = "summary.hugepages_free" },
	[MI_ROW_HUGEPAGE_SIZE] = { .name = "summary.hugepage_size" },
	[MI_ROW_HUGETLB] = { .name = "summary.hugetlb" },
	[MI_ROW_UNACCOUNTED] = { .name = "summary.unaccounted" },
};

static struct mi_cap_table mi_summary_table;

static inline long long mi_kb(unsigned long pages)
{
	return (long long)pages << (PAGE_SHIFT - 10);
}

static void mi_set(struct mi_val *val, long long v)
{
	val->v = v;
	val->ok = true;
}

static void mi_set_pages(struct mi_val *val, unsigned long pages)
{
	mi_set(val, mi_kb(pages));
}

/* Record in @cap that @name was found (@addr != 0) or why it was not. */
static bool mi_lookup_result(struct mi_cap *cap, const char *name,
			     unsigned long addr)
{
	if (addr)
		mi_cap_set(cap, true, "%s (not exported) via ksyms", name);
	else if (!mi_ksyms_available())
		mi_cap_set(cap, false,
			   "needs %s (not exported) but ksyms is unavailable",
			   name);
	else
		mi_cap_set(cap, false, "symbol %s not found%s", name,
			   mi_ksyms_scope());
	return addr;
}

static void mi_cap_copy(struct mi_cap *dst, const struct mi_cap *src)
{
	mi_cap_set(dst, src->available, "%s", src->detail);
}

/* swap_cached and cached: NR_SWAPCACHE, else total_swapcache_pages() */
static void mi_resolve_swapcache(void)
{
	struct mi_cap *caps = mi_summary_caps;
	unsigned long pages, addr;

	if (mi_nr_swapcache(&pages)) {
		mi_cap_set(&caps[MI_ROW_SWAP_CACHED], true, "%s",
			   mi_swapcache_source());
		mi_cap_set(&caps[MI_ROW_CACHED], true,
			   "file pages - swap cache - buffers, as /proc/meminfo");
		return;
	}
	addr = mi_ksym("total_swapcache_pages");
	if (addr)
		static_call_update(mi_total_swapcache_pages,
				   (unsigned long (*)(void))addr);
	mi_sym.swapcache_pages = mi_lookup_result(&caps[MI_ROW_SWAP_CACHED],
						  "total_swapcache_pages()",
						  addr);
	mi_cap_copy(&caps[MI_ROW_CACHED], &caps[MI_ROW_SWAP_CACHED]);
}

/* swap_total and swap_free: si_swapinfo(), as /proc/meminfo */
static void mi_resolve_swapinfo(void)
{
	struct mi_cap *caps = mi_summary_caps;
	unsigned long addr;

	if (!IS_ENABLED(CONFIG_SWAP)) {
		mi_cap_set(&caps[MI_ROW_SWAP_TOTAL], true, "no CONFIG_SWAP: 0");
		mi_cap_set(&caps[MI_ROW_SWAP_FREE], true, "no CONFIG_SWAP: 0");
		return;
	}
	addr = mi_ksym("si_swapinfo");
	if (addr)
		static_call_update(mi_si_swapinfo,
				   (void (*)(struct sysinfo *))addr);
	mi_sym.swapinfo = mi_lookup_result(&caps[MI_ROW_SWAP_TOTAL],
					   "si_swapinfo()", addr);
	mi_cap_copy(&caps[MI_ROW_SWAP_FREE], &caps[MI_ROW_SWAP_TOTAL]);
}

/* percpu: pcpu_nr_pages() */
static void mi_resolve_percpu(void)
{
	unsigned long addr = mi_ksym("pcpu_nr_pages");

	if (addr)
		static_call_update(mi_pcpu_nr_pages,
				   (unsigned long (*)(void))addr);
	mi_sym.pcpu_pages = mi_lookup_result(&mi_summary_caps[MI_ROW_PERCPU],
					     "pcpu_nr_pages()", addr);
}

/* vmalloc_used: NR_VMALLOC, else vmalloc_nr_pages() */
static void mi_resolve_vmalloc(void)
{
	struct mi_cap *cap = &mi_summary_caps[MI_ROW_VMALLOC_USED];
	unsigned long pages, addr;

	if (mi_nr_vmalloc(&pages)) {
		mi_cap_set(cap, true, "NR_VMALLOC");
		return;
	}
	addr = mi_ksym("vmalloc_nr_pages");
	if (addr)
		static_call_update(mi_vmalloc_nr_pages,
				   (unsigned long (*)(void))addr);
	mi_sym.vmalloc_pages = mi_lookup_result(cap, "vmalloc_nr_pages()",
						addr);
}

static void mi_resolve_hugetlb(void)
{
	static const char *const names[] = {
		"hstates", "hugetlb_max_hstate", "default_hstate_idx",
	};
	struct mi_cap *caps = mi_summary_caps;
	unsigned long addr[ARRAY_SIZE(names)];
	unsigned int i;

	if (!IS_ENABLED(CONFIG_HUGETLB_PAGE)) {
		for (i = MI_ROW_HUGEPAGES_TOTAL; i <= MI_ROW_HUGEPAGE_SIZE; i++)
			mi_cap_set(&caps[i], false, "no CONFIG_HUGETLB_PAGE");
		mi_cap_set(&caps[MI_ROW_HUGETLB], true,
			   "no CONFIG_HUGETLB_PAGE: 0");
		return;
	}

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		addr[i] = mi_ksym(names[i]);
		if (!addr[i]) {
			mi_lookup_result(&caps[MI_ROW_HUGETLB], names[i], 0);
			goto copy;
		}
	}
	mi_sym.hstates = (struct hstate *)addr[0];
	mi_sym.nr_hstates = (int *)addr[1];
	mi_sym.default_idx = (unsigned int *)addr[2];
	mi_cap_set(&caps[MI_ROW_HUGETLB], true,
		   "hstates[], hugetlb_max_hstate, default_hstate_idx (not exported) via ksyms");
copy:
	for (i = MI_ROW_HUGEPAGES_TOTAL; i <= MI_ROW_HUGEPAGE_SIZE; i++)
		mi_cap_copy(&caps[i], &caps[MI_ROW_HUGETLB]);
}

static void mi_resolve_unaccounted(void)
{
	struct mi_cap *cap = &mi_summary_caps[MI_ROW_UNACCOUNTED];
	const char *missing = NULL;
	unsigned long pages;

	if (!mi_summary_caps[MI_ROW_PERCPU].available)
		missing = "percpu";
	else if (!mi_summary_caps[MI_ROW_VMALLOC_USED].available)
		missing = "vmalloc_used";
	else if (!mi_summary_caps[MI_ROW_HUGETLB].available)
		missing = "hugetlb";
	else if (!mi_nr_kernel_misc_reclaimable(&pages))
		missing = "NR_KERNEL_MISC_RECLAIMABLE";
	else if (!mi_nr_zspages(&pages))
		missing = "NR_ZSPAGES";

	if (missing) {
		mi_cap_set(cap, false, "term %s is unavailable", missing);
		return;
	}
	mi_cap_set(cap, true, "formula of docs/summary.md%s%s",
		   mi_nr_sec_pagetable(&pages) ? "" :
		   "; no NR_SECONDARY_PAGETABLE here (term is 0)",
		   IS_ENABLED(CONFIG_VMAP_STACK) ?
		   "; kernel_stack not subtracted (VMAP_STACK: in vmalloc_used)" :
		   "");
}

/*
 * Zone figures.  free_area[].nr_free changes under zone->lock, which a
 * summary does not take: like /proc/buddyinfo (frag_show_print() reads it
 * with data_race()), a racy read per counter is enough for a snapshot and
 * never holds off the allocator.  Blocks in flight may be missed.  The
 * order loop is bounded by ARRAY_SIZE(), not MAX_ORDER, whose meaning
 * changed in 6.4 (inclusive) and whose name changed in 6.8.
 */
static void mi_read_zones(struct mi_summary *s)
{
	unsigned long managed = 0, pcp = 0, above_costly = 0;
	int highest = -1;
	int nid, cpu;

	for_each_online_node(nid) {
		pg_data_t *pgdat = NODE_DATA(nid);
		unsigned int z;

		for (z = 0; z < ARRAY_SIZE(pgdat->node_zones); z++) {
			struct zone *zone = &pgdat->node_zones[z];
			unsigned int order;

			if (!populated_zone(zone))
				continue;
			managed += zone_managed_pages(zone);
			for_each_online_cpu(cpu)
				pcp += mi_zone_pcp_count(zone, cpu);

			for (order = 0; order < ARRAY_SIZE(zone->free_area);
			     order++) {
				struct free_area *area = &zone->free_area[order];
				unsigned long nr;

				/* racy by design: see above */
				nr = data_race(READ_ONCE(area->nr_free));
				if (!nr)
					continue;
				highest = max_t(int, highest, order);
				if (order > PAGE_ALLOC_COSTLY_ORDER)
					above_costly += nr << order;
			}
		}
	}
	mi_set_pages(&s->managed, managed);
	mi_set_pages(&s->pcp_free, pcp);
	mi_set(&s->highest_free_order, highest);
	mi_set_pages(&s->free_above_costly, above_costly);
}

#ifdef CONFIG_HUGETLB_PAGE
/*
 * As hugetlb_report_meminfo(): the default hstate's pool, and the size of
 * every hstate's pool.  The counters are read without hugetlb_lock, as
 * there.
 */
static void mi_read_hugetlb(struct mi_summary *s)
{
	unsigned long long all_kb = 0;
	unsigned int def;
	int i, nr;

	if (!mi_sym.hstates)
		return;
	nr = min_t(int, READ_ONCE(*mi_sym.nr_hstates), HUGE_MAX_HSTATE);
	def = READ_ONCE(*mi_sym.default_idx);
	for (i = 0; i < nr; i++) {
		struct hstate *h = &mi_sym.hstates[i];
		unsigned long count;

		/* hugetlb_lock not taken, as hugetlb_report_meminfo() */
		count = data_race(READ_ONCE(h->nr_huge_pages));

		all_kb += (unsigned long long)count <<
			  (huge_page_order(h) + PAGE_SHIFT - 10);
		if (i != def)
			continue;
		mi_set(&s->hugepages_total, count);
		/* hugetlb_lock not taken, as hugetlb_report_meminfo() */
		count = data_race(READ_ONCE(h->free_huge_pages));
		mi_set(&s->hugepages_free, count);
		mi_set(&s->hugepage_size, huge_page_size(h) >> 10);
	}
	mi_set(&s->hugetlb, all_kb);
}
#else
static void mi_read_hugetlb(struct mi_summary *s)
{
	mi_set(&s->hugetlb, 0);	/* no hugetlb pool without hugetlb */
}
#endif

/* The figures that /proc/meminfo shows, computed as fs/proc/meminfo.c. */
static void mi_read_meminfo(struct mi_summary *s)
{
	unsigned long pages, file, swapcache;
	bool have_swapcache;
	struct sysinfo i;

	si_meminfo(&i);
	mi_set_pages(&s->mem_total, i.totalram);
	mi_set_pages(&s->mem_free, i.freeram);
	mi_set_pages(&s->mem_available, si_mem_available());
	mi_set_pages(&s->buffers, i.bufferram);
	mi_set_pages(&s->shmem, i.sharedram);

	have_swapcache = mi_nr_swapcache(&swapcache);
	if (!have_swapcache && mi_sym.swapcache_pages) {
		swapcache = static_call(mi_total_swapcache_pages)();
		have_swapcache = true;
	}
	file = global_node_page_state(NR_FILE_PAGES);
	mi_set_pages(&s->file_pages, file);
	if (have_swapcache) {
		long cached = (long)file - (long)swapcache - (long)i.bufferram;

		mi_set_pages(&s->swap_cached, swapcache);
		mi_set_pages(&s->cached, max(cached, 0L));
	}

	mi_set_pages(&s->anon_pages, global_node_page_state(NR_ANON_MAPPED));
	mi_set_pages(&s->mapped, global_node_page_state(NR_FILE_MAPPED));
	mi_set_pages(&s->slab_reclaimable,
		     global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B));
	mi_set_pages(&s->slab_unreclaimable,
		     global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B));
	mi_set(&s->kernel_stack, global_node_page_state(NR_KERNEL_STACK_KB));
	mi_set_pages(&s->page_tables, mi_nr_pagetable());
	if (mi_nr_sec_pagetable(&pages))
		mi_set_pages(&s->sec_page_tables, pages);
	if (mi_sym.pcpu_pages)
		mi_set_pages(&s->percpu, static_call(mi_pcpu_nr_pages)());
	if (mi_nr_vmalloc(&pages))
		mi_set_pages(&s->vmalloc_used, pages);
	else if (mi_sym.vmalloc_pages)
		mi_set_pages(&s->vmalloc_used,
			     static_call(mi_vmalloc_nr_pages)());

	if (!IS_ENABLED(CONFIG_SWAP)) {
		mi_set(&s->swap_total, 0);
		mi_set(&s->swap_free, 0);
	} else if (mi_sym.swapinfo) {
		static_call(mi_si_swapinfo)(&i);
		mi_set_pages(&s->swap_total, i.totalswap);
		mi_set_pages(&s->swap_free, i.freeswap);
	}

	if (mi_nr_kernel_misc_reclaimable(&pages))
		mi_set_pages(&s->misc_reclaimable, pages);
	if (mi_nr_zspages(&pages))
		mi_set_pages(&s->zspages, pages);
}

/*
 * unaccounted, as docs/summary.md defines it.  Any missing term makes it
 * "-".  Two terms are left out on purpose: sec_page_tables where the
 * kernel has no such counter (those pages are then unaccounted), and
 * kernel_stack with CONFIG_VMAP_STACK, because vmap'd stacks are vmalloc
 * pages and vmalloc_used already holds them.
 */
static void mi_compute_unaccounted(struct mi_summary *s)
{
	const struct mi_val *terms[] = {
		&s->mem_free, &s->pcp_free, &s->file_pages, &s->anon_pages,
		&s->slab_reclaimable, &s->slab_unreclaimable, &s->page_tables,
		&s->percpu, &s->vmalloc_used, &s->hugetlb,
		&s->misc_reclaimable, &s->zspages,
	};
	long long left = s->managed.v;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(terms); i++) {
		if (!terms[i]->ok)
			return;
		left -= terms[i]->v;
	}
	if (s->sec_page_tables.ok)
		left -= s->sec_page_tables.v;
	if (!IS_ENABLED(CONFIG_VMAP_STACK))
		left -= s->kernel_stack.v;

	s->unaccounted_raw = left;
	mi_set(&s->unaccounted, max(left, 0LL));
}

static int mi_summary_show(struct seq_file *m, void *unused)
{
	struct mi_summary s = {};
	unsigned int i;

	mi_read_meminfo(&s);
	mi_read_hugetlb(&s);
	mi_read_zones(&s);
	mi_compute_unaccounted(&s);

	seq_puts(m, "field value unit\n");
	for (i = 0; i < ARRAY_SIZE(mi_fields); i++) {
		const struct mi_field *f = &mi_fields[i];
		const struct mi_val *val = (const void *)((const char *)&s +
							  f->offset);

		if (val->ok)
			seq_printf(m, "%s %lld %s\n", f->name, val->v, f->unit);
		else
			seq_printf(m, "%s - %s\n", f->name, f->unit);
	}
	if (s.unaccounted.ok && s.unaccounted_raw < 0)
		seq_printf(m,
			   "# unaccounted was %lld kB: lockless counters drift; reported as 0\n",
			   s.unaccounted_raw);
	return 0;
}

MI_SHOW_OPEN(mi_summary)
const struct file_operations mi_summary_fops = MI_SHOW_FOPS(mi_summary);

void mi_summary_init(void)
{
	struct mi_cap *caps = mi_summary_caps;
	unsigned long pages;
	unsigned int i;

	for (i = 0; i < MI_NR_ROWS; i++)
		caps[i].kind = MI_CAP_FIELD;
	mi_cap_set(&caps[MI_ROW_PAGE_TABLES], true, "%s",
		   mi_nr_pagetable_source());
	if (mi_nr_sec_pagetable(&pages))
		mi_cap_set(&caps[MI_ROW_SEC_PAGE_TABLES], true,
			   "NR_SECONDARY_PAGETABLE");
	else
		mi_cap_set(&caps[MI_ROW_SEC_PAGE_TABLES], false,
			   "no NR_SECONDARY_PAGETABLE on this kernel (added in 6.0)");

	mi_resolve_swapcache();
	mi_resolve_swapinfo();
	mi_resolve_percpu();
	mi_resolve_vmalloc();
	mi_resolve_hugetlb();
	mi_resolve_unaccounted();

	mi_caps_register(&mi_summary_table, mi_summary_caps, MI_NR_ROWS);
}

void mi_summary_exit(void)
{
	mi_caps_unregister(&mi_summary_table);
}
