#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pages: the census at rest.  Per zone, the classes add up to the pfns the
# walk saw (exact: one read), the walk saw no more than the zone spans;
# free pages (buddy heads' blocks + pages with no references) against
# NR_FREE_PAGES + the per-CPU lists from the same note, and slab and page
# tables against /proc/vmstat read before and after.  Tolerances:
# docs/tests.md (pages).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

mi_setup pages

require_file "$MI_DIR/pages"

cat /proc/vmstat > "$T/v1"
cat "$MI_DIR/pages" > "$T/p"
cat /proc/vmstat > "$T/v2"

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

# class_total CLASS: the class summed over every zone
class_total()
{
	awk -v c="$1" 'NR > 1 && !/^#/ && $3 == c { s += $4 } END { print s + 0 }' "$T/p"
}
# vm FILE NAME...: the sum of those /proc/vmstat counters
vm()
{
	_f=$1
	shift
	awk -v names=" $* " 'index(names, " " $1 " ") { s += $2 } END { print s + 0 }' "$_f"
}
# check_counter DESC GOT NAMES...: GOT within the bracket of the counters
# read before and after, plus 5% + 256 pages (docs/tests.md)
check_counter()
{
	_d=$1 _g=$2
	shift 2
	_a=$(vm "$T/v1" "$@") _b=$(vm "$T/v2" "$@")
	_lo=$(min "$_a" "$_b") _hi=$(max "$_a" "$_b")
	check_between "$_d" "$_g" "$_lo" "$_hi" "$(tol_of "$_hi" 256 5)"
}

free=$(($(class_total buddy_free) + $(class_total free_other)))
ref=$(awk '/^# node / { for (i = 1; i <= NF; i++) { if ($i == "free") f += $(i + 1); if ($i == "pcp") p += $(i + 1) } } END { print f + p }' "$T/p")
check_within "pages: buddy_free + free_other against NR_FREE_PAGES + per-CPU lists (per-zone notes)" \
	"$free" "$ref" "$(tol_of "$ref" 1024 2)"
# NR_SLAB_UNRECLAIMABLE_B counts large kmalloc() folios too: the class has
# them where the kernel marks them (capabilities pages.large_kmalloc); where
# it does not they are among the unclassified pages, so the census may fall
# short of the counter by up to that class.
slabs="nr_slab_reclaimable_b nr_slab_unreclaimable_b nr_slab_reclaimable nr_slab_unreclaimable"
got=$(($(class_total slab) + $(class_total large_kmalloc)))
if [ "$(cap_available pages.large_kmalloc)" = yes ]; then
	check_counter "pages: slab + large_kmalloc against nr_slab_reclaimable_b + nr_slab_unreclaimable_b" \
		"$got" $slabs
else
	a=$(vm "$T/v1" $slabs) b=$(vm "$T/v2" $slabs)
	lo=$(($(min "$a" "$b") - $(class_total unclassified))) hi=$(max "$a" "$b")
	diag "pages.large_kmalloc: $(cap_detail pages.large_kmalloc)"
	check_between "pages: slab within [slab counters - unclassified, slab counters] (no large kmalloc mark)" \
		"$got" "$lo" "$hi" "$(tol_of "$hi" 256 5)"
fi
check_counter "pages: pagetable against nr_page_table_pages" \
	"$(class_total pagetable)" nr_page_table_pages

exit 0
