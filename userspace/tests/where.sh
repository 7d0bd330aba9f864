# SPDX-License-Identifier: GPL-2.0
# meminspect where (sourced by run.sh): summary's big figures, then the
# census classes summed over nodes and zones, on summary and pages read from
# one 6.1 guest (fixtures/where)
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
is "where: exit 0, header" "0 section figure kb counterpart kernel_kb" "$rc $(head -n 1 <<<"$out" | tr -s ' ')"
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
is "where: a /proc file that cannot be read leaves its figures '-', the rest as before" "0 - 16120" \
	"$rc $(awk '$2 == "pcp_free" { a = $5 } $2 == "slab" { b = $5 } END { print a, b }' <<<"$out")"
MEMINSPECT_PROC=$tmp/no-such-proc run "$M" --dir "$W" where
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
	"$(jq -c '.[] | select(.figure == "hugetlb_used")' <<<"$out")"
is "where --json: as many objects as the table has rows" \
	"$("$M" --dir "$W" where | awk 'NR > 1 && !/^#/' | wc -l)" "$(jq length <<<"$out")"
mkdir -p "$tmp/wnp" && cp "$W/summary" "$W/capabilities" "$tmp/wnp/"
run "$M" --dir "$tmp/wnp" where
is "where without the pages file: fails, naming it" "1 yes" \
	"$([ "$rc" -ne 0 ] && echo 1) $(grep -q 'pages' <<<"$err" && echo yes)"
unset MEMINSPECT_PROC
