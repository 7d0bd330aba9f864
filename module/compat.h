/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the supported kernels, one small function each.
 * The MI_HAVE_* flags come from probe.sh (run by Kbuild); each function
 * cites the upstream change it follows.  Nothing here checks
 * LINUX_VERSION_CODE: distribution backports would defeat that.
 */
#ifndef MI_COMPAT_H
#define MI_COMPAT_H

#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/huge_mm.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/swap.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/uaccess.h>
#include <linux/vmstat.h>
#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#endif

#ifdef MI_PROBE_FAILED
#error "probe.sh could not read the kernel headers; see its message"
#endif

/* One process's memory: page walk, page counts, VMAs, mapped files. */
#include "compat_procmem.h"

/*
 * "mm: memcontrol: account pagetables per node" (f0c0c115fb81, v5.11)
 * moved NR_PAGETABLE from the zone counters to the node counters.
 */
static inline unsigned long mi_nr_pagetable(void)
{
#ifdef MI_HAVE_NODE_PAGETABLE
	return global_node_page_state(NR_PAGETABLE);
#else
	return global_zone_page_state(NR_PAGETABLE);
#endif
}

static inline const char *mi_nr_pagetable_source(void)
{
#ifdef MI_HAVE_NODE_PAGETABLE
	return "NR_PAGETABLE (node counter)";
#else
	return "NR_PAGETABLE (zone counter)";
#endif
}

/*
 * "mm: add NR_SECONDARY_PAGETABLE to count secondary page table uses."
 * (ebc97a52b5d6, v6.0).  Returns false where the counter does not exist.
 */
static inline bool mi_nr_sec_pagetable(unsigned long *pages)
{
#ifdef MI_HAVE_NR_SECONDARY_PAGETABLE
	*pages = global_node_page_state(NR_SECONDARY_PAGETABLE);
	return true;
#else
	*pages = 0;
	return false;
#endif
}

/*
 * "mm: memcg: add swapcache stat for memcg v2" (b6038942480e, v5.12) added
 * NR_SWAPCACHE, which /proc/meminfo reads from then on.  Before it the
 * count comes from total_swapcache_pages(), which is not exported: returns
 * false and the caller looks it up.  Without CONFIG_SWAP there is no swap
 * cache at all.
 */
static inline bool mi_nr_swapcache(unsigned long *pages)
{
#if !IS_ENABLED(CONFIG_SWAP)
	*pages = 0;
	return true;
#elif defined(MI_HAVE_NR_SWAPCACHE)
	*pages = global_node_page_state(NR_SWAPCACHE);
	return true;
#else
	*pages = 0;
	return false;
#endif
}

static inline const char *mi_swapcache_source(void)
{
#if !IS_ENABLED(CONFIG_SWAP)
	return "no CONFIG_SWAP: 0";
#else
	return "NR_SWAPCACHE";
#endif
}

/*
 * "mm: vmalloc: streamline vmalloc memory accounting" (Johannes Weiner,
 * 2026; in 7.3, not in 6.12) replaced the unexported vmalloc_nr_pages()
 * with the node counter NR_VMALLOC.  Returns false before it: the caller
 * looks vmalloc_nr_pages() up.
 */
static inline bool mi_nr_vmalloc(unsigned long *pages)
{
#ifdef MI_HAVE_NR_VMALLOC
	*pages = global_node_page_state(NR_VMALLOC);
	return true;
#else
	*pages = 0;
	return false;
#endif
}

/*
 * "mm: add NR_ZSMALLOC to vmstat" (91537fee0013, v4.8): NR_ZSPAGES exists
 * only with CONFIG_ZSMALLOC; without zsmalloc there are no zspages.
 */
static inline bool mi_nr_zspages(unsigned long *pages)
{
#if !IS_ENABLED(CONFIG_ZSMALLOC)
	*pages = 0;
	return true;
#elif defined(MI_HAVE_NR_ZSPAGES)
	*pages = global_zone_page_state(NR_ZSPAGES);
	return true;
#else
	*pages = 0;
	return false;
#endif
}

/*
 * "mm: rename and change semantics of nr_indirectly_reclaimable_bytes"
 * (b29940c1abd7, v4.20): NR_KERNEL_MISC_RECLAIMABLE.
 */
static inline bool mi_nr_kernel_misc_reclaimable(unsigned long *pages)
{
#ifdef MI_HAVE_NR_KERNEL_MISC_RECLAIMABLE
	*pages = global_node_page_state(NR_KERNEL_MISC_RECLAIMABLE);
	return true;
#else
	*pages = 0;
	return false;
#endif
}

/*
 * Pages on one CPU's per-cpu free list of @zone.
 * "mm/page_alloc: split per cpu page lists and zone stats" (28f836b6777b,
 * v5.14) turned zone->pageset->pcp.count into zone->per_cpu_pageset->count.
 * The owning CPU changes count under its pcp lock; a summary reads it
 * racily, as /proc/zoneinfo does.
 */
static inline int mi_zone_pcp_count(struct zone *zone, int cpu)
{
#ifdef MI_HAVE_PER_CPU_PAGESET
	/* racy read of another CPU's count, as /proc/zoneinfo */
	return data_race(READ_ONCE(per_cpu_ptr(zone->per_cpu_pageset,
					       cpu)->count));
#else
	/* racy read of another CPU's count, as /proc/zoneinfo */
	return data_race(READ_ONCE(per_cpu_ptr(zone->pageset,
					       cpu)->pcp.count));
#endif
}

/*
 * Is the instruction at @addr an ENDBR, or the NOP that the kernel seals an
 * unused ENDBR with at boot ("x86/alternative: Use .ibt_endbr_seal to seal
 * indirect calls", v5.18)?  The kernel's own test is used because the
 * sealing NOP changed over time.  "x86/ibt: Clean up is_endbr()" (Peter
 * Zijlstra, Nov 2024; not in 6.12, in 7.3) renamed the value test
 * is_endbr(u32) to __is_endbr(u32).  Without CONFIG_X86_KERNEL_IBT the kernel
 * is built without ENDBRs ("x86/ibt: Base IBT bits", v5.18, added the
 * header).
 */
static inline bool mi_is_endbr(unsigned long addr)
{
#ifdef CONFIG_X86_KERNEL_IBT
	u32 insn;

	if (copy_from_kernel_nofault(&insn, (const void *)addr, sizeof(insn)))
		return false;
#ifdef MI_HAVE___IS_ENDBR
	return __is_endbr(insn);
#else
	return is_endbr(insn);
#endif
#else
	return false;
#endif
}

/*
 * Architecture glue of the fault injector's probe handler (fault_probe.c),
 * for a kprobe at the first instruction of a function.  The generic
 * regs_get_kernel_argument(), regs_set_return_value() and
 * instruction_pointer_set() do the rest on both x86-64 and arm64 (all three
 * exist on every kernel of the matrix, 5.10 included).
 *
 * MI_NR_REG_ARGS: the arguments passed in registers (x86-64: di, si, dx,
 * cx, r8, r9; arm64: x0..x7); the table never names a later one.
 *
 * mi_entry_caller(): the function's return address.  x86-64's CALL pushed
 * it, so it is the word at the stack pointer; arm64's BL left it in the
 * link register (x30), which the function stores only in its prologue (and
 * signs there with pointer authentication: at the entry it is plain).
 *
 * MI_KPROBE_KIND: how such a probe is made, for capabilities: through
 * ftrace where the kernel has KPROBES_ON_FTRACE (Debian's amd64 kernels),
 * else as a breakpoint (arm64: BRK, no KPROBES_ON_FTRACE there).
 */
#ifdef CONFIG_ARM64
#define MI_NR_REG_ARGS	8
#else
#define MI_NR_REG_ARGS	6
#endif

static __always_inline unsigned long mi_entry_caller(struct pt_regs *regs)
{
#ifdef CONFIG_ARM64
	return procedure_link_pointer(regs);
#else
	return *(unsigned long *)kernel_stack_pointer(regs);
#endif
}

/*
 * Arguments that some kmalloc entry points gain before the gfp mask, 0 or
 * 1 each, for the table of entry points in fault_probe.c (constants: they
 * sit in its initialisers): the bucket pointer ("mm/slab: Introduce
 * kmem_buckets_create() and family", 67f2df3b82d0, v6.11, with
 * CONFIG_SLAB_BUCKETS) and the allocation token
 * (CONFIG_KMALLOC_PARTITION_CACHES, 7.x; an empty struct without it, which
 * takes no register).
 */
#if defined(MI_HAVE_BUCKET_PARAMS) && IS_ENABLED(CONFIG_SLAB_BUCKETS)
#define MI_KMALLOC_BUCKET_ARGS	1
#else
#define MI_KMALLOC_BUCKET_ARGS	0
#endif
#if defined(MI_HAVE_KMALLOC_TOKEN) && \
	IS_ENABLED(CONFIG_KMALLOC_PARTITION_CACHES)
#define MI_KMALLOC_TOKEN_ARGS	1
#else
#define MI_KMALLOC_TOKEN_ARGS	0
#endif

/*
 * The gfp mask of __kvmalloc_node_noprof() (the kvmalloc entry point from
 * "mm: enable slab allocation tagging for kmalloc and friends", v6.10):
 * after the size, the bucket (as __kmalloc_node_noprof()), the alignment
 * that "mm: add kvmalloc_node_align()" put before it (MI_HAVE_KVMALLOC_ALIGN)
 * and the token, which 7.x's DECL_KMALLOC_PARAMS() puts after the bucket.
 */
#ifdef MI_HAVE_KVMALLOC_ALIGN
#define MI_KVMALLOC_ALIGN_ARGS	1
#else
#define MI_KVMALLOC_ALIGN_ARGS	0
#endif
#define MI_KVMALLOC_GFP_ARG	(1 + MI_KMALLOC_BUCKET_ARGS + \
				 MI_KMALLOC_TOKEN_ARGS + MI_KVMALLOC_ALIGN_ARGS)

#ifdef CONFIG_KPROBES_ON_FTRACE
#define MI_KPROBE_KIND	"ftrace"
#else
#define MI_KPROBE_KIND	"breakpoint"
#endif

/*
 * The migratetype of the pageblock holding @pfn, read as /proc/pagetypeinfo
 * reads it (get_pageblock_migratetype()).  Up to 6.16 the kernel function
 * is get_pfnblock_flags_mask(page, pfn, MIGRATETYPE_MASK); Zi Yan's
 * "mm/page_alloc: pageblock flags functions clean up" series (v6.17, with
 * "mm/page_isolation: make page isolation a standalone bit") replaced it
 * with get_pfnblock_migratetype(page, pfn).  Neither is exported: the
 * caller looks MI_PFNBLOCK_MT_SYM up and calls it through a static call of
 * type MI_PFNBLOCK_MT_PROTO with the arguments MI_PFNBLOCK_MT_ARGS().
 * (5.10 declares the page argument without const: same ABI.)
 */
#ifdef MI_HAVE_GET_PFNBLOCK_MIGRATETYPE
#define MI_PFNBLOCK_MT_SYM	"get_pfnblock_migratetype"
#define MI_PFNBLOCK_MT_PROTO	\
	enum migratetype (const struct page *, unsigned long)
#define MI_PFNBLOCK_MT_ARGS(page, pfn)	(page, pfn)
#else
#define MI_PFNBLOCK_MT_SYM	"get_pfnblock_flags_mask"
#define MI_PFNBLOCK_MT_PROTO	\
	unsigned long (const struct page *, unsigned long, unsigned long)
#define MI_PFNBLOCK_MT_ARGS(page, pfn)	(page, pfn, MIGRATETYPE_MASK)
#endif

/*
 * "mm, page_alloc: reduce fragmentation by boosting watermarks"
 * (1c30844d2dfe, v5.0) added zone->watermark_boost, which the
 * *_wmark_pages() helpers add to every watermark.
 */
static inline bool mi_zone_boost(const struct zone *zone, unsigned long *pages)
{
#ifdef MI_HAVE_WATERMARK_BOOST
	/* racy read, as /proc/zoneinfo: changes under zone->lock */
	*pages = data_race(READ_ONCE(zone->watermark_boost));
	return true;
#else
	*pages = 0;
	return false;
#endif
}

/*
 * Wait until no task can still be on an ftrace trampoline that returns into
 * this module (mi_fault_ret_null(), fault_probe.c): a task preempted there
 * holds no RCU read lock, so unregister_kprobes()' grace period does not
 * cover it; an RCU-tasks grace period does (every task has since scheduled
 * voluntarily or run in user space), as ftrace_shutdown() waits before it
 * frees a trampoline.  synchronize_rcu_tasks() is exported only with
 * CONFIG_TASKS_RCU (probe.sh); without it (5.10, and Debian's arm64 6.1 and
 * 6.12: voluntary preemption only, no task is switched out on the way back)
 * false is returned and capabilities says so.  On arm64 the way back is the
 * BRK exception's return into mi_fault_ret_null() itself, where a task of a
 * preemptible kernel (7.3-arm64) can be preempted just the same.
 */
/*
 * The way a failed call goes back through this module, named in the fault
 * row of capabilities: the ftrace path's trampoline (x86-64), or, on arm64
 * (no KPROBES_ON_FTRACE), the BRK exception's return into the stub itself.
 * On arm64 the task that is preempted there sits in mi_fault_ret_null().
 */
#ifdef CONFIG_ARM64
#define MI_FAULT_RET_PATH	"the ret stub the breakpoint returns into"
#else
#define MI_FAULT_RET_PATH	"the ftrace trampoline"
#endif

#ifdef MI_HAVE_SYNCHRONIZE_RCU_TASKS
#include <linux/rcupdate.h>
static inline bool mi_synchronize_rcu_tasks(void)
{
	synchronize_rcu_tasks();
	return true;
}
#else
static inline bool mi_synchronize_rcu_tasks(void)
{
	return false;
}
#endif

/*
 * The census's page marks (pages.c).  "mm/zsmalloc: use a proper page
 * type" (43d746dc49bb, v6.11) added PageZsmalloc(); before it zsmalloc
 * pages have no mark.
 */
static inline bool mi_have_page_zsmalloc(void)
{
#ifdef MI_HAVE_PAGE_ZSMALLOC
	return true;
#else
	return false;
#endif
}

static inline bool mi_page_zsmalloc(struct page *page)
{
#ifdef MI_HAVE_PAGE_ZSMALLOC
	return PageZsmalloc(page);
#else
	return false;
#endif
}

/*
 * The PGTY_large_kmalloc page type (in 7.3, not in 6.12): large kmalloc()
 * folios carry PageLargeKmalloc(); before it they have no mark.
 */
static inline bool mi_have_page_large_kmalloc(void)
{
#ifdef MI_HAVE_PAGE_LARGE_KMALLOC
	return true;
#else
	return false;
#endif
}

static inline bool mi_page_large_kmalloc(struct page *page)
{
#ifdef MI_HAVE_PAGE_LARGE_KMALLOC
	return PageLargeKmalloc(page);
#else
	return false;
#endif
}

/* "mm: turn PG_slab into a page type" (46df8e73a4a3, v6.10). */
static inline const char *mi_page_slab_source(void)
{
#ifdef MI_HAVE_SLAB_PAGE_TYPE
	return "PageSlab(), a page type (46df8e73a4a3, v6.10) on the folio head";
#else
	return "PageSlab(), the PG_slab flag (a page type from 46df8e73a4a3, v6.10) on the head";
#endif
}

/*
 * "mm: mark pages in use for page tables" (1d40a5ea01d5, v4.18): PageTable()
 * is a page type on every kernel this module builds for.
 */
static inline const char *mi_page_table_source(void)
{
	return "PageTable(), a page type (1d40a5ea01d5, v4.18)";
}

/*
 * pg_data_t.kswapd_failures became an atomic_t in 7.x (upstream "mm/vmscan:
 * make kswapd_failures atomic"-era change; probe.sh looks for the type, not
 * the version).  Before it a plain int, written by kswapd without a lock.
 */
static inline int mi_kswapd_failures(pg_data_t *pgdat)
{
#ifdef MI_HAVE_ATOMIC_KSWAPD_FAILURES
	return atomic_read(&pgdat->kswapd_failures);
#else
	return READ_ONCE(pgdat->kswapd_failures);
#endif
}

/*
 * The memory cgroup a page that is not a slab page is charged to, or NULL;
 * @page is a head page read racily (the census holds no lock), so the
 * answer may be stale.  Under rcu_read_lock(): where the page holds an
 * obj_cgroup (kmem pages; every folio with MI_HAVE_LRU_FOLIO_OBJCG) it is
 * dereferenced, and obj_cgroups are freed after a grace period.  The memcg
 * returned is only compared, never dereferenced.  page_memcg_check() came
 * with "mm: memcontrol: Use helpers to read page's memcg data"
 * (bcfe06bf2622, v5.11); before it page->mem_cgroup, whose low bit marks
 * a slab's obj_cgroups vector (per-object slab accounting, v5.9).
 */
static inline struct mem_cgroup *mi_page_memcg(struct page *page)
{
#if !IS_ENABLED(CONFIG_MEMCG)
	return NULL;
#elif defined(MI_HAVE_PAGE_MEMCG_CHECK)
	return page_memcg_check(page);
#else
	unsigned long v = (unsigned long)READ_ONCE(page->mem_cgroup);

	return v & 1UL ? NULL : (struct mem_cgroup *)v;
#endif
}

/*
 * Are slab objects charged to memcgs one by one (cgroups_slab.c)?  With
 * CONFIG_MEMCG_KMEM while the headers have that option, with CONFIG_MEMCG
 * after (probe.sh, MI_HAVE_MEMCG_KMEM_OPTION).
 */
#if IS_ENABLED(CONFIG_MEMCG_KMEM) || \
	(IS_ENABLED(CONFIG_MEMCG) && !defined(MI_HAVE_MEMCG_KMEM_OPTION))
#define MI_MEMCG_KMEM 1
#else
#define MI_MEMCG_KMEM 0
#endif

#endif /* MI_COMPAT_H */
