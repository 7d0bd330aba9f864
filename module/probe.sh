#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# probe.sh SRCTREE - print the -DMI_HAVE_* flags for the kernel whose
# headers are in SRCTREE (on Debian: linux-headers-X-common).  Kbuild runs it
# once per build and adds the output to ccflags-y.
#
# Each probe greps one header for the name that one upstream change added,
# so backports are detected where a version check would miss them.  Probes
# only look for names: members that sit inside "#ifdef CONFIG_*" in the
# header are resolved in compat.h with IS_ENABLED().

srctree=${1:?usage: probe.sh SRCTREE [OBJTREE]}
# the build tree, for Module.symvers (what the kernel exports)
symvers=${2:-$srctree}/Module.symvers
mmzone=$srctree/include/linux/mmzone.h

if [ ! -r "$mmzone" ]; then
	echo "probe.sh: cannot read $mmzone" >&2
	echo "-DMI_PROBE_FAILED"
	exit 0
fi

# enum_has ENUM ITEM: is ITEM a member of "enum ENUM {" in mmzone.h?
enum_has()
{
	awk -v head="enum $1 {" -v item="$2" '
		index($0, head) == 1 { inside = 1; next }
		inside && $0 ~ ("^[ \t]*" item "[ \t]*(,|=|$)") { found = 1 }
		inside && /}/ { inside = 0 }
		END { exit !found }
	' "$mmzone"
}

flags=

# flag NAME[=VALUE]: add -DNAME[=VALUE] to the flags printed at the end.
flag()
{
	flags="$flags -D$1"
}

# probe NAME FILE PATTERN: flag NAME when FILE has a line that matches the
# grep PATTERN (a FILE that is missing has none).
probe()
{
	grep -q -- "$3" "$2" 2>/dev/null && flag "$1"
}

# "kallsyms: Add helper kallsyms_on_each_match_symbol()" (4dc533e0f2c0,
# v6.2), of the series that made kallsyms_lookup_name() a binary search
# (60443c88f3a8): without it ksyms_cache.c reads kallsyms once at init.
probe MI_HAVE_KALLSYMS_MATCH "$srctree/include/linux/kallsyms.h" kallsyms_on_each_match_symbol

# "mm: memcontrol: account pagetables per node" (f0c0c115fb81, v5.11):
# NR_PAGETABLE moved from zone_stat_item to node_stat_item.
enum_has node_stat_item NR_PAGETABLE && flag MI_HAVE_NODE_PAGETABLE

# "mm: add NR_SECONDARY_PAGETABLE to count secondary page table uses."
# (ebc97a52b5d6, v6.0): KVM (and from 6.11 IOMMU) page tables, SecPageTables.
enum_has node_stat_item NR_SECONDARY_PAGETABLE &&
	flag MI_HAVE_NR_SECONDARY_PAGETABLE

# "mm: memcg: add swapcache stat for memcg v2" (b6038942480e, v5.12):
# NR_SWAPCACHE node counter; before it total_swapcache_pages() summed the
# swap address spaces and was not exported.
enum_has node_stat_item NR_SWAPCACHE && flag MI_HAVE_NR_SWAPCACHE

# "mm: vmalloc: streamline vmalloc memory accounting" (Johannes Weiner, 2026;
# in the 7.3 headers, not in 6.12): NR_VMALLOC node counter replaces the
# unexported vmalloc_nr_pages(), which is removed.
enum_has node_stat_item NR_VMALLOC && flag MI_HAVE_NR_VMALLOC

# "mm: add NR_ZSMALLOC to vmstat" (91537fee0013, v4.8): zsmalloc pages
# (zram, zswap) as the zone counter NR_ZSPAGES, when CONFIG_ZSMALLOC is set.
enum_has zone_stat_item NR_ZSPAGES && flag MI_HAVE_NR_ZSPAGES

# "mm: rename and change semantics of nr_indirectly_reclaimable_bytes"
# (b29940c1abd7, v4.20): NR_KERNEL_MISC_RECLAIMABLE node counter.
enum_has node_stat_item NR_KERNEL_MISC_RECLAIMABLE &&
	flag MI_HAVE_NR_KERNEL_MISC_RECLAIMABLE

# "mm/page_alloc: split per cpu page lists and zone stats" (28f836b6777b,
# v5.14): zone->pageset (struct per_cpu_pageset, pcp.count) became
# zone->per_cpu_pageset (struct per_cpu_pages, count).
probe MI_HAVE_PER_CPU_PAGESET "$mmzone" \
	'struct per_cpu_pages[[:space:]]*__percpu[[:space:]]*\*per_cpu_pageset;'

# "x86/ibt: Clean up is_endbr()" (Peter Zijlstra, Nov 2024; not in 6.12, in
# 7.3): the value test is_endbr(u32) became __is_endbr(u32); is_endbr() now
# takes an address and is not exported.
probe MI_HAVE___IS_ENDBR "$srctree/arch/x86/include/asm/ibt.h" '__is_endbr(u32'

# "mm, page_alloc: reduce fragmentation by boosting watermarks"
# (1c30844d2dfe, v5.0): zone->watermark_boost.
probe MI_HAVE_WATERMARK_BOOST "$mmzone" \
	'unsigned long[[:space:]]*watermark_boost;'

# Zi Yan's "mm/page_alloc: pageblock flags functions clean up" (v6.17):
# get_pfnblock_migratetype() replaces get_pfnblock_flags_mask().
probe MI_HAVE_GET_PFNBLOCK_MIGRATETYPE \
	"$srctree/include/linux/pageblock-flags.h" 'get_pfnblock_migratetype('
# Page walk (mm, vmas).  mm.h and friends of the running kernel:
mm_h=$srctree/include/linux/mm.h
huge_mm_h=$srctree/include/linux/huge_mm.h

# "mm: remove page_mapcount()" (Matthew Wilcox, v6.12 cycle; fs/proc moved to
# folio_precise_page_mapcount(), 6.12): smaps counts on struct page with the
# inline page_mapcount() where it still exists (5.10, 6.1).
probe MI_HAVE_PAGE_MAPCOUNT "$mm_h" \
	'static inline int page_mapcount(struct page'

# "mm/pgtable: allow pte_offset_map[_lock]() to fail" (0d940a9b270b, v6.5)
# made pte_offset_map_lock() call the unexported __pte_offset_map_lock();
# later (in 7.3, not 6.12) pte_offset_map_lock() itself became out of line.
if grep -q '^pte_t \*__pte_offset_map_lock(' "$mm_h" 2>/dev/null; then
	flag MI_PTE_MAP_LOCK_SYM=__pte_offset_map_lock
elif grep -q '^pte_t \*pte_offset_map_lock(' "$mm_h" 2>/dev/null; then
	flag MI_PTE_MAP_LOCK_SYM=pte_offset_map_lock
fi

# For sparse only: where rcu_read_unlock() says __release(RCU) (up to 6.x;
# 7.x spells it __release_shared(RCU)), the RCU read lock that
# __pte_offset_map_lock() takes must be announced to sparse as well.
probe MI_RCU_SPARSE_CONTEXT "$srctree/include/linux/rcupdate.h" \
	'__release(RCU);'

# "mm/huge_memory: introduce pmd_is_huge()" (in 7.3, not 6.12): the one test
# for a huge or non-present (migration) PMD entry, after pmd_devmap() went.
probe MI_HAVE_PMD_IS_HUGE "$huge_mm_h" 'static inline bool pmd_is_huge('

# "mm: introduce leaf entry type and use to simplify leaf entry logic"
# (Lorenzo Stoakes, in 7.3): softleaf_from_pte() replaces is_swap_pte() and
# pte_to_swp_entry() for decoding non-present PTEs.
[ -r "$srctree/include/linux/leafops.h" ] &&
	flag MI_HAVE_SOFTLEAF

# "mm: fix the inaccurate memory statistics issue for users" (v6.16;
# backported to 6.12.y, Debian 6.12.95 has it): /proc/PID/status sums the
# per-CPU RSS counters with get_mm_counter_sum() instead of reading the
# approximate get_mm_counter().
probe MI_HAVE_GET_MM_COUNTER_SUM "$mm_h" 'get_mm_counter_sum('

# smaps_hugetlb_range()'s rule for Shared_Hugetlb (compat_procmem.h's
# mi_hugetlb_class()).  "mm: remove special swap entry functions"
# (Alistair Popple, v5.14) gave is_pfn_swap_entry() and
# pfn_swap_entry_to_page(), which 6.1's smaps uses for a non-present entry;
# 5.10's asks is_migration_entry() and is_device_private_entry().
probe MI_HAVE_IS_PFN_SWAP_ENTRY "$srctree/include/linux/swapops.h" \
	'static inline bool is_pfn_swap_entry('
# "mm: rename folio_likely_mapped_shared() to folio_maybe_mapped_shared()"
# (David Hildenbrand, v6.15; in 7.3, 6.12 has the old name), the test smaps
# makes of a hugetlb folio from 6.12 on.
probe MI_HAVE_FOLIO_MAYBE_MAPPED_SHARED "$mm_h" \
	'static inline bool folio_maybe_mapped_shared('

# "mm: add VMA iterator" (f39af05949a4, v6.1): VMA_ITERATOR() and
# vma_next() over the maple tree; 5.10 has the vm_next list instead.
probe MI_HAVE_VMA_ITERATOR "$srctree/include/linux/mm_types.h" \
	'define VMA_ITERATOR('

# "fs: create helper file_user_path() for user displayed mapped file path"
# (08582d678fcf, v6.8) and file_user_inode() (later; in Debian's 6.12 and
# 7.3 headers, not 6.1's): what /proc/PID/maps prints for an overlayfs
# backing file.
fs_h=$srctree/include/linux/fs.h
probe MI_HAVE_FILE_USER_PATH "$fs_h" 'file_user_path(const struct file'
probe MI_HAVE_FILE_USER_INODE "$fs_h" 'file_user_inode(const struct file'

# "mm/shmem.c: make shmem_mapping() inline" (30e6a51dbb05, after v5.10):
# shmem_mapping() became an inline test of the exported shmem_aops, until
# "shmem: move shmem_mapping out of line" (Christoph Hellwig, v6.9) made it
# a function again.  Where it is inline, kallsyms has no shmem_mapping.
probe MI_HAVE_INLINE_SHMEM_MAPPING "$srctree/include/linux/shmem_fs.h" \
	'extern const struct address_space_operations shmem_aops;'

# "mm/slab: Introduce kmem_buckets_create() and family" (67f2df3b82d0,
# v6.11): with CONFIG_SLAB_BUCKETS, __kmalloc_node_noprof() and
# __kmalloc_node_track_caller_noprof() take a bucket pointer after the size.
probe MI_HAVE_BUCKET_PARAMS "$srctree/include/linux/slab.h" \
	'define DECL_BUCKET_PARAMS'

# CONFIG_KMALLOC_PARTITION_CACHES (7.x): the kmalloc entry points take an
# allocation token after the size (and the bucket).
probe MI_HAVE_KMALLOC_TOKEN "$srctree/include/linux/slab.h" \
	'define DECL_TOKEN_PARAMS'

# "mm: add kvmalloc_node_align()": __kvmalloc_node_noprof() takes an
# alignment after the size (and the bucket), before the gfp mask.
probe MI_HAVE_KVMALLOC_ALIGN "$srctree/include/linux/slab.h" \
	'define kvmalloc_node_align_noprof'

# synchronize_rcu_tasks(): "rcu: Add call_rcu_tasks()" (8315f42295d2, v3.18),
# built and exported only with CONFIG_TASKS_RCU, which ftrace selects on
# preemptible kernels to free its trampolines (ftrace_shutdown()).  Debian's
# 6.1, 6.12 and 7.3 (PREEMPT_DYNAMIC) and arm64 7.3 (PREEMPT_LAZY) export
# it; 5.10 and arm64 6.1 and 6.12 (voluntary preemption, no TASKS_RCU) do not.
probe MI_HAVE_SYNCHRONIZE_RCU_TASKS "$symvers" \
	'[[:space:]]synchronize_rcu_tasks[[:space:]]'

# allocs.c's kmem tracepoint prototypes (include/trace/events/kmem.h).
kmem=$srctree/include/trace/events/kmem.h
# "mm/slab_common: unify NUMA and UMA version of tracepoints" (11e9734bcb6a,
# v6.1): kmalloc_node and kmem_cache_alloc_node are gone, kmalloc and
# kmem_cache_alloc take a node, and kmem_cache_alloc the cache ("mm/
# slab_common: drop kmem_alloc & avoid dereferencing fields when not
# using", 2c1d697fb8ba, v6.1).
probe MI_HAVE_KMEM_TP_NODE_FOLDED "$kmem" '^TRACE_EVENT(kmem_cache_alloc,'
# kmem_cache_free: "mm, tracing: record slab name for kmem_cache_free()"
# (3544de8ee6e4, v5.12) added the name; "mm/slab_common: kmem_cache_free
# tracepoint: pass the cache" (v6.1, with the change above) the cache.
if grep -q 'const void \*ptr, const struct kmem_cache \*s)' "$kmem" 2>/dev/null; then
	flag MI_HAVE_KMEM_CACHE_FREE_CACHE
elif grep -q 'const void \*ptr, const char \*name)' "$kmem" 2>/dev/null; then
	flag MI_HAVE_KMEM_CACHE_FREE_NAME
fi

# "mm: turn PG_slab into a page type" (46df8e73a4a3, v6.10): PageSlab()
# reads page_type instead of the PG_slab flag.
pageflags=$srctree/include/linux/page-flags.h
probe MI_HAVE_SLAB_PAGE_TYPE "$pageflags" \
	'PAGE_TYPE_OPS(Slab\|static inline bool PageSlab'

# "mm/zsmalloc: use a proper page type" (43d746dc49bb, v6.11): zsmalloc
# pages carry PageZsmalloc(); before it they had no per-pfn mark.
probe MI_HAVE_PAGE_ZSMALLOC "$pageflags" 'PAGE_TYPE_OPS(Zsmalloc'

# The PGTY_large_kmalloc page type (Matthew Wilcox; in the 7.3 headers, not
# in 6.12): kmalloc()s above the largest kmalloc cache come from the page
# allocator and are counted in NR_SLAB_UNRECLAIMABLE_B; with it they carry
# PageLargeKmalloc(), before it no mark.
probe MI_HAVE_PAGE_LARGE_KMALLOC "$pageflags" 'PAGE_TYPE_OPS(LargeKmalloc'

# pg_data_t.kswapd_failures: an int until 7.x made it an atomic_t
# (pressure.c reads it through mi_kswapd_failures()).
probe MI_HAVE_ATOMIC_KSWAPD_FAILURES "$mmzone" \
	'atomic_t[[:space:]]*kswapd_failures;'

# PGSCAN_*/PGSTEAL_* moved from enum vm_event_item to enum node_stat_item
# (in the 7.3 headers, not 6.12's; pressure.c reads them per kind).
probe MI_HAVE_PGSCAN_NODE_STAT "$mmzone" '^[[:space:]]*PGSCAN_DIRECT,'

# The vmscan begin/end tracepoints gained the memcg as an argument, with
# gfp_flags moved first (in the 7.3 headers, not in 6.12; the upstream
# subject is "mm: vmscan: add memcg information to reclaim tracepoints",
# hash not checked here): latency.c's probes must take the same arguments.
probe MI_HAVE_VMSCAN_TP_MEMCG "$srctree/include/trace/events/vmscan.h" \
	'TP_PROTO(gfp_t gfp_flags, int order, struct mem_cgroup \*memcg)'

# "mm: compaction: update the COMPACT[STALL|FAIL] events properly"
# (06dac2f467fe, v5.13): __alloc_pages_direct_compact() stopped counting
# COMPACTSTALL when try_to_compact_pages() returns COMPACT_SKIPPED; before it
# every call counted.  It changed only mm/*.c, which no headers package
# ships, so the probe keys on the commit merged with it in the same v5.13
# batch of compaction patches: "mm/compaction: remove unused variable
# sysctl_compact_memory" (ef4984384172) took the declaration out of
# compaction.h.  Checked in the sources: Debian 5.10 (declaration there,
# every call counts) and 6.1 (gone, SKIPPED not counted); the guest test
# compares the count with compact_stall on every lane (docs/latency.md).
grep -q 'sysctl_compact_memory' "$srctree/include/linux/compaction.h" 2>/dev/null &&
	flag MI_COMPACTSTALL_COUNTS_SKIPPED

# files.c (compat_files.h).  fs.h of the running kernel:
fs_h=$srctree/include/linux/fs.h

# "fs: add inode_state_read() and friends" (in the 7.3 headers, not in
# 6.12's; hash not checked here): i_state behind accessors.
probe MI_HAVE_INODE_STATE_READ "$fs_h" 'inode_state_read('

# "inode: make __iget() a static inline" (v6.12, merged with the bcachefs
# tree; out of line and unexported in 5.10's and 6.1's headers): else
# files.c calls it through ksyms.
probe MI_HAVE_INLINE_IGET "$fs_h" 'static inline void __iget('

# "mm: Introduce struct folio" (7b230db3b8d3, v5.16): folio_nr_pages().
probe MI_HAVE_FOLIO_NR_PAGES "$srctree/include/linux/mm.h" 'folio_nr_pages('

# The memory cgroup a page-cache page is charged to: page->mem_cgroup up to
# "mm: memcontrol: Use helpers to read page's memcg data" (bcfe06bf2622,
# v5.11), which added page_memcg() over page->memcg_data; folio_memcg()
# from "mm/memcg: Add folio_memcg() and related functions" (61374127431a,
# v5.16).
memcontrol_h=$srctree/include/linux/memcontrol.h
probe MI_HAVE_FOLIO_MEMCG "$memcontrol_h" 'struct mem_cgroup \*folio_memcg('
probe MI_HAVE_PAGE_MEMCG "$memcontrol_h" 'struct mem_cgroup \*page_memcg('

# page_memcg_check(), from the same commit as page_memcg() above
# (bcfe06bf2622, v5.11): the page's memcg, or its obj_cgroup's, read racily
# from page->memcg_data by the cgroups census; before it struct page had
# mem_cgroup (or, low bit set, a slab's obj_cgroups vector).
probe MI_HAVE_PAGE_MEMCG_CHECK "$srctree/include/linux/memcontrol.h" \
	'page_memcg_check(struct page'

# LRU folios charged through an obj_cgroup (in the 7.3 headers, not in
# 6.12; the upstream series is "Eliminate Dying Memory Cgroup", the commit
# that made folio_memcg() read folio_objcg(), hash not checked here): a
# removed cgroup's page cache moves to its parent with its obj_cgroup, so
# page cache no longer keeps a dying memcg.
probe MI_HAVE_LRU_FOLIO_OBJCG "$srctree/include/linux/memcontrol.h" \
	'folio and objcg binding stability'

# CONFIG_MEMCG_KMEM: slab objects are charged to memcgs where it is set,
# as long as the headers name it (5.10, 6.1); the 6.12 headers no longer
# do: kmem accounting became part of CONFIG_MEMCG (upstream "mm: memcg:
# remove CONFIG_MEMCG_KMEM", hash not checked here), so compat.h takes
# CONFIG_MEMCG alone there.
probe MI_HAVE_MEMCG_KMEM_OPTION "$memcontrol_h" 'CONFIG_MEMCG_KMEM'

echo "$flags"
