# SPDX-License-Identifier: GPL-2.0
# meminspect where (sourced by run.sh): the ranked figures with their holders,
# then the reconciliation: summary's big figures and the census classes summed
# over nodes and zones, on summary and pages read from one 6.1 guest
# (fixtures/where); the holders on that copy with the holder files added
# (procs, files, slabs, cgroups, allocs/table) with known values
# recon: the reconciliation table of where's output (after the blank line)
recon() { awk 'f; /^$/ { f = 1 }' <<<"$out"; }
W=$FX/where
# the kernel's side: a /proc of our own (MEMINSPECT_PROC), so that every
# kernel_kb is known; the real one is compared in the guest (test_summary.sh)
FP=$tmp/where-proc
mkdir -p "$FP"
printf '%s\n' "MemTotal:         981484 kB" "MemFree:          903000 kB" "Cached:            18400 kB" \
	"Buffers:              4 kB" "Shmem:             18396 kB" "AnonPages:          4330 kB" \
	"Mapped:             3336 kB" "SReclaimable:       9020 kB" "SUnreclaim:         7100 kB" \
	"PageTables:          108 kB" "VmallocUsed:        6084 kB" "Percpu:              520 kB" \
	"HugePages_Total:       4" "HugePages_Free:        2" "Hugepagesize:       2048 kB" \
	"Hugetlb:            8192 kB" >"$FP/meminfo"
printf '%s\n' "nr_free_pages 225750" "nr_zspages 3" >"$FP/vmstat"
printf '%s\n' "Node 0, zone    DMA32" "  pagesets" "    cpu: 0" "              count: 100" \
	"    cpu: 1" "              count: 28" "Node 0, zone   Normal" "    cpu: 0" "              count: 2" >"$FP/zoneinfo"
export MEMINSPECT_PROC=$FP
run "$M" --dir "$W" where
is "where: exit 0, the ranked table's header first" "0 rank figure kb pct holders" "$rc $(head -n 1 <<<"$out" | tr -s ' ')"
is "where: the reconciliation table's header after a blank line" "section figure kb counterpart kernel_kb" \
	"$(recon | head -n 1 | tr -s ' ')"
out=$(recon)
pk=$(($(getconf PAGESIZE) / 1024))
is "where: kernel_kb is the counterpart's value from /proc (meminfo kB, HugePages_* x Hugepagesize, vmstat and zoneinfo pages, summary's unaccounted)" \
	"mem_total 981484|pcp_free $((130 * pk))|buffers 4|slab 16120|large_kmalloc 7100|zsmalloc $((3 * pk))|hugetlb_free 4096|hugetlb_used 4096|unclassified $(($(awk '$1 == "unaccounted" { print $2 }' "$W/summary") + 6084 + 520))" \
	"$(awk '$2 ~ /^(mem_total|pcp_free|buffers|slab|large_kmalloc|zsmalloc|hugetlb_free|hugetlb_used|unclassified)$/ { print $2, $5 }' <<<"$out" | paste -sd '|')"
is "where: '-' where the kernel has no one figure (reserved, offline, free_other's tails, unaccounted, file_unmapped: Mapped holds mapped shmem too)" \
	"unaccounted - free_other - file_unmapped - reserved - offline -" \
	"$(awk '$2 ~ /^(free_other|file_unmapped|reserved|offline|unaccounted)$/ { printf "%s%s %s", s, $2, $5; s = " " }' <<<"$out")"
# Mapped counts mapped shmem too (3336 kB here, of 18396 kB Shmem): a counterpart such as
# Cached+Buffers-Shmem-Mapped would be -3328 kB, as a 6.12 guest showed
is "where: no kernel_kb is negative (mapped shmem in Mapped)" "" \
	"$(awk 'NR > 1 && !/^#/ && $5 ~ /^-[0-9]/ { print $2, $5 }' <<<"$out")"
rm "$FP/zoneinfo"
run "$M" --dir "$W" where
out=$(recon)
is "where: a /proc file that cannot be read leaves its figures '-', the rest as before" "0 - 16120" \
	"$rc $(awk '$2 == "pcp_free" { a = $5 } $2 == "slab" { b = $5 } END { print a, b }' <<<"$out")"
MEMINSPECT_PROC=$tmp/no-such-proc run "$M" --dir "$W" where
out=$(recon)
is "where: no /proc at all: exit 0, every kernel_kb '-'" "0 0" \
	"$rc $(awk 'NR > 1 && !/^#/ && $5 != "-"' <<<"$out" | wc -l)"
is "where: summary rows carry summary's values and their meminfo names" \
	"$(awk 'NR > 1 && !/^#/ && $1 ~ /^(mem_total|mem_free|anon_pages|unaccounted)$/ { print $1, $2 }' "$W/summary")" \
	"$(awk '$1 == "summary" && $2 ~ /^(mem_total|mem_free|anon_pages|unaccounted)$/ { print $2, $3 }' <<<"$out")"
is "where: summary's counterparts" "MemTotal MemFree AnonPages -" \
	"$(awk '$1 == "summary" && $2 ~ /^(mem_total|mem_free|anon_pages|unaccounted)$/ { printf "%s%s", s, $4; s = " " }' <<<"$out")"
is "where: each census class is the pages file's bytes summed over nodes and zones, in kB" \
	"$(awk 'NR > 1 && !/^#/ { b[$3] += $5; if (!($3 in o)) { o[$3] = n++; c[n - 1] = $3 } }
		END { for (i = 0; i < n; i++) print c[i], int(b[c[i]] / 1024) }' "$W/pages" | sort)" \
	"$(awk '$1 == "census" { print $2, $3 }' <<<"$out" | sort)"
is "where: unclassified's counterpart names what it holds" "unaccounted+VmallocUsed+Percpu" \
	"$(awk '$2 == "unclassified" { print $4 }' <<<"$out")"
run "$M" --dir "$W" --json where
is "where --json: one object per row, kb an integer" \
	'{"section":"census","figure":"hugetlb_used","kb":4096,"counterpart":"HugePages_Total-HugePages_Free","kernel_kb":4096}' \
	"$(jq -c '.reconciliation[] | select(.figure == "hugetlb_used")' <<<"$out")"
is "where --json: as many objects as the reconciliation table has rows" \
	"$("$M" --dir "$W" where | awk 'f && !/^#/; /^$/ { f = 1 }' | awk 'NR > 1' | wc -l)" "$(jq '.reconciliation | length' <<<"$out")"
is "where --json: as many ranked objects as the ranked table has rows" \
	"$("$M" --dir "$W" where | awk '/^$/ { exit } NR > 1 && !/^#/' | wc -l)" "$(jq '.ranked | length' <<<"$out")"
mkdir -p "$tmp/wnp" && cp "$W/summary" "$W/capabilities" "$tmp/wnp/"
run "$M" --dir "$tmp/wnp" where
is "where without the pages file: fails, naming it" "1 yes" \
	"$([ "$rc" -ne 0 ] && echo 1) $(grep -q 'pages' <<<"$err" && echo yes)"

# ---- the ranked figures and their holders ----
# The census of fixtures/where (kB): free 926676 (buddy_free 903388 + free_other 23288),
# reserved 66956, shmem 18396, slab 14944, hugetlb 8192, anon 4384, unaccounted 2268,
# pagetable 128; and page_cache 2400, added below. Holder files with known figures, their file rows added to capabilities.
WR=$tmp/where-rank
mkdir -p "$WR/allocs"
cp "$W/summary" "$FX/slabs/slabs" "$WR/"
# page cache the guest had none of: 600 pages unmapped in DMA32 (2400 kB at 4 KiB pages)
awk '$2 == "DMA32" && $3 == "file_unmapped" { $4 = 600; $5 = 2457600 } { print }' "$W/pages" >"$WR/pages"
cp "$FX/allocs/table" "$WR/allocs/table"
{ cat "$W/capabilities"
  printf '%s\n' "procs file yes every process's rollup" "files file yes the page cache by inode" \
	"cgroups file yes every memory cgroup" "allocs/table file yes call sites" \
	"cgroup_slabs file yes slab by cgroup and cache"
} >"$WR/capabilities"
pk=$(($(getconf PAGESIZE) / 1024))
printf '%s\n' "pid rss_kb anonymous_kb comm" "1 900 100 init" "200 5000 4000 big app" \
	"300 700 300 sshd" "400 200 50 sh" >"$WR/procs"
printf '%s\n' "dev ino pages dirty writeback cgroup path" "08:01 12 300 0 0 /a /var/log/syslog" \
	"08:01 13 200 0 0 - /usr/bin/bash" "08:01 15 150 0 0 /system.slice/gone.scope /var/cache/app.db" \
	"00:1a 7 100 1 0 / /x" "08:01 14 1 0 0 - /etc/passwd" "08:01 16 20 0 0 /system.slice/gone.scope /etc/app.conf" \
	"# total: inodes 6 pages 771 dirty 1 writeback 0 busy_inodes 0 busy_pages 0" >"$WR/files"
# gone.scope's slab, not yet moved to its parent (a read between rmdir and offline)
printf '%s\n' "id cache objects bytes path" "20 dentry 20000 4000000 /system.slice/x.service" \
	"30 kmalloc-64 100 7200 /system.slice/gone.scope" "30 dentry 8000 1600000 /system.slice/gone.scope" \
	"- dentry 500 96000 -" >"$WR/cgroup_slabs"
printf '%s\n' "id state anon_pages file_pages shmem_pages slab_bytes path" \
	"1 online 10 10 5 1048576 /" "20 online 100 50 40 4194304 /system.slice/x.service" \
	"30 dying 0 300 0 2097152 /system.slice/gone.scope" "31 dying 0 10 0 0 /old" >"$WR/cgroups"
# ext4 on /, a tmpfs on /tmp: /x of 00:1a is /tmp/x, shmem
printf '%s\n' "20 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw" "22 20 0:26 / /tmp rw - tmpfs tmpfs rw" \
	>"$tmp/where-mountinfo"
export MEMINSPECT_MOUNTINFO=$tmp/where-mountinfo
run "$M" --dir "$WR" where
rank=$(awk '/^$/ { exit } NR > 1 && !/^#/' <<<"$out")
is "where: exit 0, no holder file missing" "0 " "$rc $(grep 'not named' <<<"$err$out")"
is "where: the figures ranked largest first, numbered 1.." \
	"1 free 926676|2 reserved 66956|3 shmem 18396|4 slab 14944|5 hugetlb 8192|6 anon 4384|7 dying_cgroups $(((300 + 10) * pk + 2048))|8 page_cache 2400|9 unaccounted 2268|10 pagetable 128" \
	"$(awk '{ print $1, $2, $3 }' <<<"$rank" | sort -k3,3nr | paste -sd '|')"
is "where: ranks follow kb" "$(awk '{ print $3 }' <<<"$rank" | sort -nr | paste -sd ' ')" \
	"$(awk '{ print $3 }' <<<"$rank" | paste -sd ' ')"
is "where: pct is kb of mem_total" "94.4" "$(awk '$2 == "free" { print $4 }' <<<"$rank")"
is "where: anon's holders: the top 3 processes by anonymous_kb, comm[pid]" \
	"big app[200] (4000 kB), sshd[300] (300 kB), init[1] (100 kB)" \
	"$(awk '$2 == "anon" { sub(/^ *[0-9]+ +anon +[0-9]+ +[0-9.]+ +/, ""); print }' <<<"$rank")"
is "where: slab's holders: the top caches by memory_bytes, then the cgroups by slab_bytes" \
	"$(awk 'NR > 1 && !/^#/ { print $12, $1 }' "$WR/slabs" | sort -nr | head -n 2 | awk '{ printf "%s%s (%d kB)", s, $2, $1 / 1024; s = ", " }')" \
	"$(awk '$2 == "slab" { sub(/^ *[0-9]+ +slab +[0-9]+ +[0-9.]+ +/, ""); sub(/; cgroups:.*/, ""); print }' <<<"$rank" | cut -d, -f1-2)"
has "where: slab names the cgroup charged the most slab" "cgroups: /system.slice/x.service (4096 kB), /system.slice/gone.scope (2048 kB), / (1024 kB)" \
	"$(awk '$2 == "slab"' <<<"$rank")"
is "where: page_cache's holders: the files by pages, none on a tmpfs, paths from mountinfo" \
	"/var/log/syslog ($((300 * pk)) kB), /usr/bin/bash ($((200 * pk)) kB), /var/cache/app.db ($((150 * pk)) kB)" \
	"$(awk '$2 == "page_cache" { sub(/^ *[0-9]+ +page_cache +[0-9]+ +[0-9.-]+ +/, ""); print }' <<<"$out")"
is "where: shmem's holders: the files on a tmpfs, then the cgroups by shmem pages" \
	"/tmp/x ($((100 * pk)) kB); cgroups: /system.slice/x.service ($((40 * pk)) kB), / ($((5 * pk)) kB)" \
	"$(awk '$2 == "shmem" { sub(/^ *[0-9]+ +shmem +[0-9]+ +[0-9.]+ +/, ""); print }' <<<"$rank")"
dying() { awk '$2 == "dying_cgroups" { sub(/^ *[0-9]+ +dying_cgroups +[0-9]+ +[0-9.]+ +/, ""); print }' <<<"$1"; }
is "where: dying_cgroups: the dying cgroups' pages and slab, the largest first, each with the file and the slab cache that hold most of it" \
	"/system.slice/gone.scope ($((300 * pk + 2048)) kB; file /var/cache/app.db $((150 * pk)) kB; slab dentry 1562 kB), /old ($((10 * pk)) kB)" \
	"$(dying "$rank")"
is "where: unaccounted's holders: allocs' call sites by live bytes, offsets dropped" \
	"allocs: allocs_fill [meminspect_test] (976 kB), kvmalloc_node (39 kB)" \
	"$(awk '$2 == "unaccounted" { sub(/^ *[0-9]+ +unaccounted +[0-9]+ +[0-9.]+ +/, ""); print }' <<<"$rank" | cut -d, -f1-2)"
is "where: a figure without holders prints '-'" "-" "$(awk '$2 == "reserved" { print $5 }' <<<"$rank")"
run "$M" --dir "$WR" --json where
is "where --json: ranked[0] is the largest figure with its holders as text" \
	'{"rank":1,"figure":"free","kb":926676,"pct":94.4,"holders":null}' "$(jq -c '.ranked[0]' <<<"$out")"
is "where --json: anon's holders" "big app[200] (4000 kB), sshd[300] (300 kB), init[1] (100 kB)" \
	"$(jq -r '.ranked[] | select(.figure == "anon") | .holders' <<<"$out")"
# no dying cgroup with slab of its own: cgroup_slabs is not read (its absence unnoted)
mv "$WR/cgroups" "$WR/cg" && sed 's/^30 dying 0 300 0 2097152 /30 dying 0 300 0 0 /' "$WR/cg" >"$WR/cgroups"
mv "$WR/cgroup_slabs" "$WR/cs"
run "$M" --dir "$WR" where
is "where: a dying cgroup without slab: its file only; cgroup_slabs not read" \
	"0 /system.slice/gone.scope ($((300 * pk)) kB; file /var/cache/app.db $((150 * pk)) kB), /old ($((10 * pk)) kB) 0" \
	"$rc $(dying "$(awk '/^$/ { exit } 1' <<<"$out")") $(grep -c cgroup_slabs <<<"$out")"
mv "$WR/cg" "$WR/cgroups"
run "$M" --dir "$WR" where
is "where: cgroup_slabs unreadable while a dying cgroup has slab: its file named, a note" \
	"0 /system.slice/gone.scope ($((300 * pk + 2048)) kB; file /var/cache/app.db $((150 * pk)) kB), /old ($((10 * pk)) kB) 1" \
	"$rc $(dying "$(awk '/^$/ { exit } 1' <<<"$out")") $(grep -c '^# cgroup_slabs could not be read' <<<"$out")"
mv "$WR/cs" "$WR/cgroup_slabs"
# a kernel whose slabs file cannot size its caches (no BTF: memory_bytes '-'):
# slab's caches from /proc/slabinfo, num_slabs x pagesperslab pages
mv "$WR/slabs" "$tmp/slabs.keep"
awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "memory_bytes") c = i }
	NR > 1 && !/^#/ { $c = "-" } { print }' "$tmp/slabs.keep" >"$WR/slabs"
printf '%s\n' "slabinfo - version: 2.1" \
	"# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>" \
	"kmalloc-64           300    320     64   64    1 : tunables    0    0    0 : slabdata      5      5      0" \
	"ext4_inode_cache    1000   1020   1176   27    8 : tunables    0    0    0 : slabdata     40     40      0" \
	"dentry             5000   5040    192   21    1 : tunables    0    0    0 : slabdata    240    240      0" >"$FP/slabinfo"
slab_caches() { awk '$2 == "slab" { sub(/^ *[0-9]+ +slab +[0-9]+ +[0-9.]+ +/, ""); sub(/;? ?cgroups:.*/, ""); print }' <<<"$1"; }
run "$M" --dir "$WR" where
is "where: slabs without memory_bytes: slab's caches from /proc/slabinfo (num_slabs x pagesperslab pages), and a note" \
	"0 ext4_inode_cache ($((320 * pk)) kB), dentry ($((240 * pk)) kB), kmalloc-64 ($((5 * pk)) kB) 1" \
	"$rc $(slab_caches "$(awk '/^$/ { exit } 1' <<<"$out")") $(grep -c '^# slab: caches sized from /proc/slabinfo' <<<"$out")"
head -n 1 "$tmp/slabs.keep" >"$WR/slabs"
echo "# unavailable: no BTF" >>"$WR/slabs"
run "$M" --dir "$WR" where
is "where: slabs with no record (no BTF): slab's caches from /proc/slabinfo" \
	"0 ext4_inode_cache ($((320 * pk)) kB), dentry ($((240 * pk)) kB), kmalloc-64 ($((5 * pk)) kB)" \
	"$rc $(slab_caches "$(awk '/^$/ { exit } 1' <<<"$out")")"
rm "$FP/slabinfo"
run "$M" --dir "$WR" where
is "where: slabs without sizes and no /proc/slabinfo: no cache named, a note says why" \
	"0  1" "$rc $(slab_caches "$(awk '/^$/ { exit } 1' <<<"$out")") $(grep -c '^# slab: caches not named' <<<"$out")"
mv "$tmp/slabs.keep" "$WR/slabs"
rm "$WR/procs" "$WR/files"
grep -v '^procs \|^files ' "$WR/capabilities" >"$WR/c" && mv "$WR/c" "$WR/capabilities"
run "$M" --dir "$WR" where
is "where: a module without procs or files: exit 0, those holders '-', each named in a note" \
	"0 - 2" "$rc $(awk '$2 == "anon" { print $5 }' <<<"$out") $(grep -c -e '^# no procs file' -e '^# no files file' <<<"$out")"
unset MEMINSPECT_PROC MEMINSPECT_MOUNTINFO
