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

srctree=${1:?usage: probe.sh SRCTREE}
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

# "mm: memcontrol: account pagetables per node" (f0c0c115fb81, v5.11):
# NR_PAGETABLE moved from zone_stat_item to node_stat_item.
enum_has node_stat_item NR_PAGETABLE && flags="$flags -DMI_HAVE_NODE_PAGETABLE"

# "mm: add NR_SECONDARY_PAGETABLE to count secondary page table uses."
# (ebc97a52b5d6, v6.0): KVM (and from 6.11 IOMMU) page tables, SecPageTables.
enum_has node_stat_item NR_SECONDARY_PAGETABLE &&
	flags="$flags -DMI_HAVE_NR_SECONDARY_PAGETABLE"

# "mm: memcg: add swapcache stat for memcg v2" (b6038942480e, v5.12):
# NR_SWAPCACHE node counter; before it total_swapcache_pages() summed the
# swap address spaces and was not exported.
enum_has node_stat_item NR_SWAPCACHE && flags="$flags -DMI_HAVE_NR_SWAPCACHE"

# "mm: vmalloc: streamline vmalloc memory accounting" (Johannes Weiner, 2026;
# in the 7.3 headers, not in 6.12): NR_VMALLOC node counter replaces the
# unexported vmalloc_nr_pages(), which is removed.
enum_has node_stat_item NR_VMALLOC && flags="$flags -DMI_HAVE_NR_VMALLOC"

# "mm: add NR_ZSMALLOC to vmstat" (91537fee0013, v4.8): zsmalloc pages
# (zram, zswap) as the zone counter NR_ZSPAGES, when CONFIG_ZSMALLOC is set.
enum_has zone_stat_item NR_ZSPAGES && flags="$flags -DMI_HAVE_NR_ZSPAGES"

# "mm: rename and change semantics of nr_indirectly_reclaimable_bytes"
# (b29940c1abd7, v4.20): NR_KERNEL_MISC_RECLAIMABLE node counter.
enum_has node_stat_item NR_KERNEL_MISC_RECLAIMABLE &&
	flags="$flags -DMI_HAVE_NR_KERNEL_MISC_RECLAIMABLE"

# "mm/page_alloc: split per cpu page lists and zone stats" (28f836b6777b,
# v5.14): zone->pageset (struct per_cpu_pageset, pcp.count) became
# zone->per_cpu_pageset (struct per_cpu_pages, count).
grep -q 'struct per_cpu_pages[[:space:]]*__percpu[[:space:]]*\*per_cpu_pageset;' \
	"$mmzone" && flags="$flags -DMI_HAVE_PER_CPU_PAGESET"

# "x86/ibt: Clean up is_endbr()" (Peter Zijlstra, Nov 2024; not in 6.12, in
# 7.3): the value test is_endbr(u32) became __is_endbr(u32); is_endbr() now
# takes an address and is not exported.
grep -q '__is_endbr(u32' "$srctree/arch/x86/include/asm/ibt.h" 2>/dev/null &&
	flags="$flags -DMI_HAVE___IS_ENDBR"

# "mm, page_alloc: reduce fragmentation by boosting watermarks"
# (1c30844d2dfe, v5.0): zone->watermark_boost.
grep -q 'unsigned long[[:space:]]*watermark_boost;' "$mmzone" &&
	flags="$flags -DMI_HAVE_WATERMARK_BOOST"

# Zi Yan's "mm/page_alloc: pageblock flags functions clean up" (v6.17):
# get_pfnblock_migratetype() replaces get_pfnblock_flags_mask().
grep -q 'get_pfnblock_migratetype(' \
	"$srctree/include/linux/pageblock-flags.h" 2>/dev/null &&
	flags="$flags -DMI_HAVE_GET_PFNBLOCK_MIGRATETYPE"

# "mm/slab: Introduce kmem_buckets_create() and family" (67f2df3b82d0,
# v6.11): with CONFIG_SLAB_BUCKETS, __kmalloc_node_noprof() and
# __kmalloc_node_track_caller_noprof() take a bucket pointer after the size.
grep -q 'define DECL_BUCKET_PARAMS' "$srctree/include/linux/slab.h" &&
	flags="$flags -DMI_HAVE_BUCKET_PARAMS"

# CONFIG_KMALLOC_PARTITION_CACHES (7.x): the kmalloc entry points take an
# allocation token after the size (and the bucket).
grep -q 'define DECL_TOKEN_PARAMS' "$srctree/include/linux/slab.h" &&
	flags="$flags -DMI_HAVE_KMALLOC_TOKEN"

echo "$flags"
