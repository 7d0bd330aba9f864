#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pages: the census at rest.  Per zone, the classes add up to the pfns the
# walk saw (exact: one read), the walk saw no more than the zone spans;
# buddy_free, slab, page tables, anon, file, shmem and hugetlb against
# /proc/vmstat and /proc/meminfo read before and after (one process reads
# them and the census back to back), widened only by the per-CPU vmstat
# drift and the swap cache; summary's unaccounted explained by the census's
# unclassified pages; the classes that the kernel's page-types also names
# against it.  One walk of each zone per read, section by section, whatever
# the reader's buffer (the "# walk:" note against /proc/zoneinfo), and a
# reader killed in the middle of a long census gone at the next section.
# Bounds: docs/tests.md (pages).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"

MT=${MI_MEMTARGET:-$ST_DIR/progs/memtarget}
HP=/proc/sys/vm/nr_hugepages
hp0=
# give back the huge pages the test reserved (after memtarget is gone)
pages_cleanup()
{
	if [ -n "$hp0" ]; then
		# shellcheck disable=SC2086
		kill $pids 2>/dev/null
		# shellcheck disable=SC2086
		wait $pids 2>/dev/null
		pids=
		echo "$hp0" > "$HP"
	fi
}
mi_setup pages pages_cleanup

require_file "$MI_DIR/pages"

# a few default-size hugetlb pages, 2 used by memtarget (touched) and the
# rest free in the pool; memtarget also maps 4 MiB of THP (MADV_HUGEPAGE)
nhuge=0
if [ -w "$HP" ]; then
	hp0=$(cat "$HP")
	echo $((hp0 + 4)) > "$HP"
	nhuge=$(($(cat "$HP") - hp0))
	[ "$nhuge" -gt 2 ] && nhuge=2
fi
"$MT" huge "$nhuge" > "$T/mt" 2>&1 &
pids="$pids $!"
wait_line "$T/mt" ready $! || diag "memtarget huge $nhuge did not get ready: $(cat "$T/mt")"

# the thresholds of the per-CPU vmstat deltas: a zone counter read from
# /proc/vmstat lags its true value by at most the sum over zones and CPUs of
# the zone's threshold, a node counter by the sum over nodes and CPUs of the
# node's (the largest of its zones'): the first sum bounds both
drift=$(awk '/vm stats threshold:/ { s += $4 } END { print s + 0 }' /proc/zoneinfo)

snap_files "$T/v1" /proc/vmstat "$T/m1" /proc/meminfo "$T/s1" "$MI_DIR/summary" \
	"$T/p" "$MI_DIR/pages" \
	"$T/s2" "$MI_DIR/summary" "$T/m2" /proc/meminfo "$T/v2" /proc/vmstat ||
	fail "pages: read vmstat, meminfo, summary, pages, summary, meminfo, vmstat"
# the kernel's own per-pfn view over the same guest at rest, memtarget still
# holding its pages: one more census, then page-types (tools/vm of
# linux-source-6.1, built by scripts/build-page-types) over /proc/kpageflags,
# each under "time -v" for the size of its reader
PT=$ST_DIR/progs/page-types
if [ -x "$PT" ]; then
	busybox time -v "$ST_DIR/progs/readseq" "$T/c" "$MI_DIR/pages" 2> "$T/c.time"
	# the kernel's own anonymous count (nr_anon_pages) polled through the
	# walk: the debug lane saw page-types count 5700 more anonymous pages
	# than both censuses around it, which this shows or rules out
	rm -f "$T/anon.stop"
	(while [ ! -e "$T/anon.stop" ]; do
		awk '$1 == "nr_anon_pages" { print $2 }' /proc/vmstat
		mi_nap 0.2
	done > "$T/anon.poll") &
	anon_poller=$!
	busybox time -v "$PT" -r > "$T/pt" 2> "$T/pt.time"
	touch "$T/anon.stop"
	wait "$anon_poller"
	# and one more census after it: what the guest changed meanwhile
	# (a CI lane's page-types walk saw anon outside the readers' bound)
	"$ST_DIR/progs/readseq" "$T/d" "$MI_DIR/pages"
fi
pages_cleanup
hp0=

check_header "pages: header is 'node zone class pages bytes'" "$T/p" "node zone class pages bytes"

# per zone: sum of classes = walked; walked <= spanned; bytes = pages * 4096
ps=$(awk '/^KernelPageSize:/ { print $2 * 1024; exit }' /proc/self/smaps)
bad=$(awk -v ps="$ps" '
	NR == 1 || /^# flags/ { next }
	/^# node / {
		z = $3 "/" $5; sub(/:$/, "", z)
		walked[z] = $7; present[z] = $9; spanned[z] = $11
		next
	}
	/^#/ { next }
	{
		z = $1 "/" $2
		sum[z] += $4
		if ($3 == "reserved")
			resv[z] = $4
		if ($5 != $4 * ps)
			print "line " NR ": bytes " $5 " != pages " $4 " * " ps
	}
	END {
		for (z in sum) {
			if (!(z in walked))
				print z ": no walk note"
			else if (sum[z] != walked[z])
				print z ": classes sum to " sum[z] ", walked " walked[z]
			else if (walked[z] + 0 > spanned[z] + 0)
				print z ": walked " walked[z] " > spanned " spanned[z]
			else if (walked[z] + 0 < present[z] + 0)
				print z ": walked " walked[z] " < present " present[z]
			else if (walked[z] - present[z] > resv[z] + 0)
				print z ": walked - present = " walked[z] - present[z] " > reserved " resv[z]
		}
	}' "$T/p" || echo "awk failed")
if [ -z "$bad" ]; then
	ok "pages: per zone the classes sum to the walked pfns; present <= walked <= spanned; walked - present within reserved (memmap of holes); bytes = pages * page size"
else
	fail "pages: per-zone sums"
	echo "$bad" | head -n 5 | sed 's/^/# /'
fi
sed 's/^/# /' "$T/p"

# Each file is read into shell variables by one awk (ct_CLASS, cc_CLASS:
# the class summed over every zone of the census and of the second one;
# v1_NAME, v2_NAME: /proc/vmstat): a fork and exec per figure took 40 s on
# the debug lane
totals()
{
	awk -v p="$1" 'NR > 1 && !/^#/ && $3 ~ /^[a-z_]+$/ { s[$3] += $4 }
		END { for (c in s) print p c "=" s[c] }' "$2"
}
eval "$(totals ct_ "$T/p")"
eval "$(awk '$1 ~ /^[a-z0-9_]+$/ && $2 ~ /^-?[0-9]+$/ { print "v1_" $1 "=" $2 }' "$T/v1")"
eval "$(awk '$1 ~ /^[a-z0-9_]+$/ && $2 ~ /^-?[0-9]+$/ { print "v2_" $1 "=" $2 }' "$T/v2")"
# class_total CLASS: the class summed over every zone
class_total()
{
	eval "echo \$((ct_$1))"
}
# vm FILE NAME...: the sum of those /proc/vmstat counters (FILE: v1 or v2)
vm()
{
	_p=${1##*/}
	shift
	_s=0
	for _n; do
		eval "_s=\$((_s + \${${_p}_$_n:-0}))"
	done
	echo "$_s"
}
# ---- bounds derived from the kernel (docs/tests.md) ----------------------
# bracket LO-EXTRA HI-EXTRA NAMES...: sets blo and bhi, the counters' sum
# read before and after, widened by the per-CPU drift of each counter and
# the extras
bracket()
{
	_le=$1 _he=$2
	shift 2
	_a=$(vm "$T/v1" "$@") _b=$(vm "$T/v2" "$@")
	blo=$(($(min "$_a" "$_b") - $# * drift - _le))
	bhi=$(($(max "$_a" "$_b") + $# * drift + _he))
}
# check_bracket DESC GOT LO HI: LO <= GOT <= HI, no further tolerance
check_bracket()
{
	check_between "$1" "$2" "$3" "$4" 0
}
# mi2 FILE1 FILE2 NAME: the larger of meminfo NAME (kB) in both, in pages
mi2()
{
	_x=$(meminfo "$3" "$1" || echo 0) _y=$(meminfo "$3" "$2" || echo 0)
	echo $(($(max "$_x" "$_y") * 1024 / ps))
}
diag "per-CPU vmstat drift bound: $drift pages per counter (sum over CPUs of 'vm stats threshold', /proc/zoneinfo)"
swapc=$(mi2 "$T/m1" "$T/m2" SwapCached)

# free: buddy_free is the buddy's own count (NR_FREE_PAGES, a zone counter:
# bracketed, widened by its per-CPU drift); free_other holds the per-CPU
# lists (the notes' pcp) and the tails of multi-page allocations made
# without __GFP_COMP (refcount 0, no mark: in use, not free), so it is at
# least pcp, less what the lists gained after the walk passed
pcp=$(awk '/^# node / { for (i = 1; i <= NF; i++) if ($i == "pcp") p += $(i + 1) } END { print p + 0 }' "$T/p")
fo=$(class_total free_other)
bracket 0 0 nr_free_pages
check_bracket "pages: buddy_free within nr_free_pages (before/after) +- per-CPU drift" \
	"$(class_total buddy_free)" "$blo" "$bhi"
diag "free_other $fo = per-CPU lists $pcp + $((fo - pcp)) (tails of non-compound allocations, pages in transit)"
# NR_SLAB_UNRECLAIMABLE_B counts large kmalloc() folios too: the class has
# them where the kernel marks them (capabilities pages.large_kmalloc); where
# it does not they are among the unclassified pages, so the census may fall
# short of the counter by up to that class.
slabs="nr_slab_reclaimable_b nr_slab_unreclaimable_b nr_slab_reclaimable nr_slab_unreclaimable"
got=$(($(class_total slab) + $(class_total large_kmalloc)))
bracket 0 0 nr_slab_reclaimable nr_slab_unreclaimable
if [ "$(cap_available pages.large_kmalloc)" = yes ]; then
	check_bracket "pages: slab + large_kmalloc within nr_slab_reclaimable + nr_slab_unreclaimable (before/after) +- per-CPU drift" \
		"$got" "$blo" "$bhi"
else
	diag "pages.large_kmalloc: $(cap_detail pages.large_kmalloc)"
	check_bracket "pages: slab within [slab counters - unclassified, slab counters] (before/after) +- per-CPU drift (no large kmalloc mark)" \
		"$got" $((blo - $(class_total unclassified))) "$bhi"
fi
bracket 0 0 nr_page_table_pages
check_bracket "pages: pagetable within nr_page_table_pages (before/after) +- per-CPU drift" \
	"$(class_total pagetable)" "$blo" "$bhi"

# anon: NR_ANON_MAPPED counts a PMD-mapped THP as all its pages
# (page_add_new_anon_rmap), as the census counts its head and tails; a live
# anon page that is no longer mapped (in the swap cache) is in the census
# and not in the counter
thp=$(vm "$T/v2" nr_anon_transparent_hugepages)
diag "anon THPs (nr_anon_transparent_hugepages): $thp; memtarget: $(cat "$T/mt")"
bracket 0 "$swapc" nr_anon_pages
check_bracket "pages: anon_lru + anon_other within nr_anon_pages (before/after) +- per-CPU drift, + swap cache" \
	$(($(class_total anon_lru) + $(class_total anon_other))) "$blo" "$bhi"

# file: NR_FILE_PAGES counts shmem and the swap cache too; the census
# counts swap-cache pages as anon (or unclassified for shmem in transit)
bracket "$swapc" 0 nr_file_pages
check_bracket "pages: file_mapped + file_unmapped + shmem within nr_file_pages (before/after) +- per-CPU drift, - swap cache" \
	$(($(class_total file_mapped) + $(class_total file_unmapped) + $(class_total shmem))) "$blo" "$bhi"
bracket 0 0 nr_shmem
check_bracket "pages: shmem within nr_shmem (before/after) +- per-CPU drift" \
	"$(class_total shmem)" "$blo" "$bhi"

# hugetlb: the hstates' counts change under hugetlb_lock only (no per-CPU
# delta): exact within the bracket.  Hugetlb: (kB) covers every hstate;
# HugePages_Free the default one, which is the only pool the test fills
hsz=$(meminfo Hugepagesize "$T/m1" || echo 0)
if [ "$hsz" -gt 0 ]; then
	per=$((hsz * 1024 / ps))
	t1=$(($(meminfo Hugetlb "$T/m1" || echo 0) * 1024 / ps)) t2=$(($(meminfo Hugetlb "$T/m2" || echo 0) * 1024 / ps))
	f1=$(($(meminfo HugePages_Free "$T/m1") * per)) f2=$(($(meminfo HugePages_Free "$T/m2") * per))
	ht=$(($(meminfo HugePages_Total "$T/m1") * per))
	hf=$(class_total hugetlb_free) hu=$(class_total hugetlb_used)
	diag "hugetlb: memtarget used $nhuge of $(meminfo HugePages_Total "$T/m1") huge pages of $hsz kB; census free $hf used $hu pages"
	check_bracket "pages: hugetlb_free + hugetlb_used = Hugetlb (all hstates' pools, before/after)" \
		$((hf + hu)) "$(min "$t1" "$t2")" "$(max "$t1" "$t2")"
	if [ "$t1" = "$ht" ] && [ "$t2" = "$ht" ]; then
		check_bracket "pages: hugetlb_free = HugePages_Free (before/after)" \
			"$hf" "$(min "$f1" "$f2")" "$(max "$f1" "$f2")"
		check_bracket "pages: hugetlb_used = memtarget's touched huge pages" "$hu" $((nhuge * per)) $((nhuge * per))
	else
		skip "pages: hugetlb_free = HugePages_Free: another hstate has a pool (Hugetlb $t1 pages, default pool $ht)"
		skip "pages: hugetlb_used = memtarget's touched huge pages: another hstate has a pool"
	fi
else
	check_bracket "pages: no hugetlb pages where meminfo has no Hugepagesize" \
		$(($(class_total hugetlb_free) + $(class_total hugetlb_used))) 0 0
fi

# summary's unaccounted, explained (docs/summary.md): the pages no counter
# attributes are the census's unclassified pages less those with a counter
# but no per-pfn mark (vmalloc, percpu, secondary page tables, misc
# reclaimable, large kmalloc and zsmalloc where unmarked, kernel stacks
# where summary subtracts them), plus offline pages and reserved pages inside
# managed (reserved + managed - walked)
sfield()
{
	_v=$(mi_field "$1" "$2")
	is_num "$_v" || _v=0
	echo $((_v * 1024 / ps))
}
u1=$(mi_field "$T/s1" unaccounted) u2=$(mi_field "$T/s2" unaccounted)
if ! is_num "$u1" || ! is_num "$u2"; then
	skip "pages: unaccounted from the census: summary.unaccounted: $(cap_detail summary.unaccounted)"
else
	u1=$((u1 * 1024 / ps)) u2=$((u2 * 1024 / ps))
	walked=$(awk '/^# node / { w += $7 } END { print w + 0 }' "$T/p")
	managed=$(sfield "$T/s1" managed)
	rlate=$(($(class_total reserved) + managed - walked))
	vmal=$(sfield "$T/s1" vmalloc_used) pcpu=$(sfield "$T/s1" percpu)
	sec=$(sfield "$T/s1" sec_page_tables)
	kst=0
	case "$(cap_detail summary.unaccounted)" in
	*"kernel_stack not subtracted"*) ;;
	*) kst=$(sfield "$T/s1" kernel_stack) ;;
	esac
	misc=$(vm "$T/v1" nr_kernel_misc_reclaimable)
	zgap=0
	[ "$(cap_available pages.zsmalloc)" = yes ] || zgap=$(vm "$T/v1" nr_zspages)
	lkgap=$(($(vm "$T/v1" $slabs) - $(class_total slab) - $(class_total large_kmalloc)))
	uncl=$(class_total unclassified) off=$(class_total offline)
	x=$((uncl + fo - pcp + off + rlate - vmal - pcpu - sec - kst - misc - zgap - lkgap))
	diag "unaccounted $u1..$u2 pages; census: unclassified $uncl + non-compound tails $((fo - pcp)) + offline $off + reserved in managed $rlate - vmalloc $vmal - percpu $pcpu - sec_page_tables $sec - kernel_stack $kst - misc_reclaimable $misc - zspages unmarked $zgap - large kmalloc unmarked $lkgap = $x"
	# the percpu first chunk (memblock, in reserved) is in percpu: x is
	# below unaccounted by at most percpu.  Seven counters on either side
	# (free, file, anon, page tables, sec, misc, zspages) drift per CPU,
	# and a swap-cache page is in two of them
	b=$((7 * drift + swapc))
	lo=$(($(min "$u1" "$u2") - b)) hi=$(($(max "$u1" "$u2") + pcpu + b))
	check_bracket "pages: unaccounted = unclassified + (free_other - pcp) + offline + reserved in managed - vmalloc - percpu - other unmarked counters, within [-drift, percpu first chunk + drift]" \
		"$x" $((lo - pcpu)) $((hi - pcpu))
	[ "$rlate" -ge 0 ] || diag "reserved pages inside managed is negative ($rlate): present - managed holds pages that are not PageReserved"
fi

# ---- page-types cross-check (docs/pages.md) -------------------------------
if [ ! -x "$PT" ]; then
	fail "pages: page-types cross-check: page-types is in the guest (scripts/build-page-types did not build it: see vm-run's output)"
elif ! grep -q '^ *total' "$T/pt"; then
	fail "pages: page-types -r ran and printed its total"
	head -n 5 "$T/pt.time" "$T/pt" | sed 's/^/# /'
else
	# pt_FLAG: pages whose flags have FLAG (pt_anon: anonymous and not
	# huge, nor slab; pt_anonslab: the slab pages it leaves out), one awk
	# over page-types' summary. Slab pages can read as anonymous: since
	# v6.2's "mm/sl[au]b: rearrange struct slab fields to allow larger
	# rcu_head" (mm/slab.h: SLAB_MATCH(compound_head, slab_cache)) a slab
	# on a CPU's partial list has its "int slabs" where page->mapping is,
	# and stable_page_flags() takes an odd count's bit 0 for
	# PAGE_MAPPING_ANON. The debug (KASAN) lane's larger objects keep
	# thousands of such pages (5700 of them once)
	eval "$(awk '$1 ~ /^0x/ { n = split($NF, a, ","); h = 0; an = 0; sl = 0
			for (i = 1; i <= n; i++) {
				if (a[i] ~ /^[a-z_]+$/) s[a[i]] += $2
				if (a[i] == "huge") h = 1
				if (a[i] == "anonymous") an = 1
				if (a[i] == "slab") sl = 1
			}
			if (an && !h && !sl) anon += $2
			if (an && sl) anonslab += $2 }
		END { for (f in s) print "pt_" f "=" s[f]; print "pt_anon=" anon + 0; print "pt_anonslab=" anonslab + 0 }' "$T/pt")"
	ptc() { eval "echo \$((pt_$1))"; }
	eval "$(totals cc_ "$T/c.0")"
	cc() { eval "echo \$((cc_$1))"; }
	rss() { awk '/Maximum resident set size/ { print $NF * 1024 / '"$ps"'; f = 1 } END { if (!f) print 0 }' "$1"; }
	readers=$(($(rss "$T/c.time") + $(rss "$T/pt.time")))
	pttotal=$(awk '$1 == "total" { print $2 }' "$T/pt")
	spanned=$(awk '/^# node / { s += $11 } END { print s + 0 }' "$T/c.0")
	outside=$((pttotal - spanned))
	cpcp=$(awk '/^# node / { for (i = 1; i <= NF; i++) if ($i == "pcp") p += $(i + 1) } END { print p + 0 }' "$T/c.0")
	diag "page-types: $pttotal pfns ($outside outside every zone's span); readers' largest RSS $readers pages; slab $(ptc slab) (census $(cc slab)), pgtable $(ptc pgtable) (census $(cc pagetable)): not compared, the readers' own slab objects and page tables are not measured"
	check_bracket "pages: hugetlb_free + hugetlb_used = page-types huge" \
		"$(ptc huge)" $(($(cc hugetlb_free) + $(cc hugetlb_used))) $(($(cc hugetlb_free) + $(cc hugetlb_used)))
	check_bracket "pages: offline = page-types offline" "$(ptc offline)" "$(cc offline)" "$(cc offline)"
	check_bracket "pages: page-types reserved within [reserved, reserved + pfns outside every zone]" \
		"$(ptc reserved)" "$(cc reserved)" $(($(cc reserved) + outside))
	# free pages: the kernel marks every page of a free block (is_free_buddy_page());
	# the readers take theirs from the free pool, and the per-CPU lists
	# refill and drain in batches between the two walks
	b=$(cc buddy_free)
	check_bracket "pages: page-types buddy within buddy_free +- (the two readers' RSS + per-CPU lists)" \
		"$(ptc buddy)" $((b - readers - cpcp)) $((b + readers + cpcp))
	a=$(($(cc anon_lru) + $(cc anon_other)))
	a2=$(awk 'NR > 1 && !/^#/ && ($3 == "anon_lru" || $3 == "anon_other") { s += $4 } END { print s + 0 }' "$T/d.0")
	alo=$(sort -n "$T/anon.poll" | head -n 1) ahi=$(sort -n "$T/anon.poll" | tail -n 1)
	diag "page-types: anonymous (not huge, not slab) $(ptc anon); census anon before it $a, after it $a2; nr_anon_pages during the walk $alo..$ahi ($(wc -l < "$T/anon.poll") reads); readers' RSS $readers; slab pages page-types calls anonymous $(ptc anonslab)"
	lo=$(min "$a" "$a2") hi=$(max "$a" "$a2")
	[ -n "$alo" ] && lo=$(min "$lo" "$alo") && hi=$(max "$hi" "$ahi")
	check_bracket "pages: page-types anonymous (not huge, not slab) within the census's anon before and after it and nr_anon_pages during it +- the two readers' RSS" \
		"$(ptc anon)" $((lo - readers)) $((hi + readers))
	# before v6.2 slab_cache is where page->mapping is (an aligned
	# pointer): no slab page can look anonymous there
	case $(uname -r) in
	5.* | 6.[01].*)
		check "pages: no slab page that page-types calls anonymous before v6.2's struct slab ($(ptc anonslab))" \
			[ "$(ptc anonslab)" -eq 0 ]
		;;
	esac
	if ! is_within "$(ptc anon)" $((lo - readers)) $((hi + readers)) 0; then
		diag "page-types' anonymous rows:"
		awk '$1 ~ /^0x/ && $NF ~ /anonymous/ { print "#   " $2, $NF }' "$T/pt" | sort -k2 -n -r | head -n 8
	fi
fi

# ---- one walk per zone and read, whatever the reader's buffer -----------
# seq_file shows a node's records again when they overflow its buffer (one
# page at first: behind other nodes' records, or a node's alone when it is
# bigger); the walk is kept for that (module/zone_walk.h), so the walk note
# counts once what zoneinfo says a walk of every populated zone visits,
# read whole (readseq's 2 MiB read()s, above) and 64 bytes per read(), and
# both reads have the same records
sp=$(walk_figures "$T/p" section_pfns)
want=$(zoneinfo_walk "$sp")
check_eq "pages: read whole, each populated zone walked once, one offline hold per section it spans (walk note nodes zones sections pfns = zoneinfo's; sections of $sp pfns)" \
	"$(walk_figures "$T/p" nodes zones sections pfns)" "$want"
read_small "$MI_DIR/pages" "$T/p64"
check_eq "pages: read 64 bytes per read(), the same walk (nodes zones sections pfns = zoneinfo's)" \
	"$(walk_figures "$T/p64" nodes zones sections pfns)" "$want"
# node zone class of every record, node zone present spanned of every note
keys() { awk '!/^#/ { print $1, $2, $3 } /^# node / { print $3, $5, $9, $11 }' "$1"; }
check "pages: read 64 bytes per read(), the same records and zone notes (node, zone, class; present, spanned) as read whole" \
	[ "$(keys "$T/p")" = "$(keys "$T/p64")" ]

# ---- a reader killed in the middle of the census ------------------------
# test_census_step_ms (tests only, docs/pages.md) makes the walk sleep,
# uninterruptibly, STEP_MS every 4096 pfns, as a machine with that many more
# pfns would take: a section (8 steps of 4096 pfns on x86) then costs about
# 8 * STEP_MS.  A reader
# killed a third into the census must be gone within a third of it: the walk
# checks for a fatal signal after every section, where without that check
# it walked on to the end of the census (two thirds of it)
mi_lockdown_stop "the killed census (test_census_step_ms)"
STEP_MS=50
if ! mi_reload test_census_step_ms=$STEP_MS; then
	fail "pages: meminspect reloaded with test_census_step_ms=$STEP_MS"
	mi_reload
else
	mi_uptime_cs
	c0=$MI_UP_CS
	cat "$MI_DIR/pages" > "$T/slow" 2>&1
	mi_uptime_cs
	full=$((MI_UP_CS - c0))
	check "pages: with test_census_step_ms=$STEP_MS the census reads whole in ${full}0 ms" \
		mi_has_prefix "$T/slow" "# walk: "
	cat "$MI_DIR/pages" > "$T/killed" 2>&1 &
	kp=$!
	third=$((full / 3))
	mi_nap "$((third / 100)).$((third % 100 / 10))$((third % 10))"
	alive=no
	kill -0 "$kp" 2>/dev/null && alive=yes
	mi_uptime_cs
	k0=$MI_UP_CS
	kill -9 "$kp" 2>/dev/null
	wait "$kp" 2>/dev/null
	mi_uptime_cs
	lat=$((MI_UP_CS - k0))
	diag "census read whole in ${full}0 ms ($(walk_figures "$T/slow" sections longest_section_ns) sections, longest ns); reader alive at ${third}0 ms: $alive; gone ${lat}0 ms after SIGKILL"
	# it was still reading when killed, died sooner than a third, printed no end
	# shellcheck disable=SC2317 # called by check, below
	killed_soon() { [ "$alive" = yes ] && [ "$lat" -lt "$third" ] && ! mi_has_prefix "$T/killed" "# walk: "; }
	check "pages: a reader SIGKILLed a third into the census (alive: $alive) is gone in ${lat}0 ms, within a third of the census (${third}0 ms)" \
		killed_soon
	mi_reload
	cat "$MI_DIR/pages" > "$T/after" 2>&1
	check_eq "pages: after the kill, reloaded without test_census_step_ms, the census walks as before (nodes zones sections pfns)" \
		"$(walk_figures "$T/after" nodes zones sections pfns)" "$want"
fi

exit 0
