#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fault/: what each filter selects, shown with the helper module's own
# allocations (it reports each one's success or failure): aim at a cache
# with times 5, other caches unaffected, stats and log against the helper's
# counts; interval, space, min/max-order, aim-size, nth, aim-module with
# aim-depth, __GFP_NOFAIL never failed; and a knob-level sweep of the
# helper's probe-like setup routine (nth = 1, 2, ...), each run unwinding
# to zero live objects.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_fault.sh"

CACHE=meminspect_test_fault
OBJ=192		# the helper's object size for $CACHE

fault_cleanup_more()
{
	helper_unload 2> /dev/null
}
fault_setup falloc
if ! helper_load; then
	fail "fault: the helper module loads"
	exit 0
fi

# arm: arm with the knobs set so far, say so if it fails
arm()
{
	if ! fset armed 1; then
		fail "fault: arming ($*)"
		dmesg | grep 'meminspect: fault' | tail -3 | sed 's/^/# /'
		return 1
	fi
}

# -- aim at a cache, times 5 ---------------------------------------------------

if [ "$(cap_available fault.aim_cache)" != yes ]; then
	skip "fault: aim-cache, times 5" "$(cap_detail fault.aim_cache)"
else
fset sites slab
must aim-cache $CACHE
fset times 5
arm "cache, times 5"
halloc cache 0 20
check_eq "fault: aim-cache, times 5: 20 allocations, 5 fail" \
	"$HA_OK/$HA_FAILED/$HA_FIRST" 15/5/1
halloc kmalloc "$OBJ" 20
check_eq "fault: aim-cache: kmalloc of the same size is not failed" \
	"$HA_FAILED" 0
check_eq "fault: stats: slab failed = the helper's failures" \
	"$(fstat slab failed)" 5
check_eq "fault: stats: slab matched = the helper's cache allocations" \
	"$(fstat slab matched)" 20
check_eq "fault: stats: pages untouched" "$(fstat pages checked)" 0
check_eq "fault: log: 5 records" "$(log_lines)" 5
callers=$(awk 'NR > 1 && $2 == "slab" && $5 == '$OBJ' && $6 == "-" &&
	/\[meminspect_test\]$/ { n++ } END { print n + 0 }' "$MI_FAULT/log")
check_eq "fault: log: slab, size $OBJ, order -, caller in [meminspect_test]" \
	"$callers" 5
check_eq "fault: log: seq 1..5, pid and comm of this shell" \
	"$(awk 'NR > 1 { printf "%s:%s:%s ", $1, $3, $4 }' "$MI_FAULT/log")" \
	"1:$$:sh 2:$$:sh 3:$$:sh 4:$$:sh 5:$$:sh "
fset armed 0
halloc cache 0 20
check_eq "fault: disarmed: all 20 succeed" "$HA_OK" 20
fi
fault_defaults

# Module aims use the smallest depth that reaches the helper (1, or 2 where
# alloc_pages() or kstrdup() is in between): with more, allocations nested
# inside the helper's (kmemleak's and KASAN's own, on the debug kernel)
# would match too.

# -- interval --------------------------------------------------------------------

fset sites slab
must aim-module meminspect_test
fset aim-depth 1
fset times -1
fset interval 3
arm "interval 3"
halloc cache 0 30
fset armed 0
check_eq "fault: interval 3: every 3rd of 30 fails (10, first the 3rd)" \
	"$HA_FAILED/$HA_FIRST" 10/3
fault_defaults

# -- space -----------------------------------------------------------------------

# failslab's meaning: a call is let through while the space left exceeds its
# size, and its size is taken from the space.  Space 4 * OBJ + 1: 4 pass.
fset sites slab
must aim-module meminspect_test
fset aim-depth 1
fset times -1
fset space $((4 * OBJ + 1))
arm "space"
halloc cache 0 10
fset armed 0
check_eq "fault: space 4 objects + 1 byte: 4 succeed, then all fail" \
	"$HA_OK/$HA_FIRST" 4/5
fault_defaults

# -- aim-size ----------------------------------------------------------------------

fset sites slab
must aim-module meminspect_test
fset aim-depth 1
fset times -1
fset aim-size 100-128
arm "aim-size"
halloc kmalloc 100 10
in_lo=$HA_FAILED
halloc kmalloc 128 10
in_hi=$HA_FAILED
halloc kmalloc 99 10
out_lo=$HA_FAILED
halloc kmalloc 129 10
out_hi=$HA_FAILED
fset armed 0
check_eq "fault: aim-size 100-128: sizes 100, 128 fail; 99, 129 do not" \
	"$in_lo $in_hi $out_lo $out_hi" "10 10 0 0"
fault_defaults

# -- kmalloc(0) ------------------------------------------------------------------------
# The kernel never fails it (ZERO_SIZE_PTR, whatever the memory): neither
# does the injector, even aimed at it with probability 100

fset sites slab
must aim-module meminspect_test
fset aim-depth 1
fset times -1
arm "kmalloc(0)"
halloc kmalloc 0 10
zero=$HA_FAILED
halloc kmalloc 8 10
eight=$HA_FAILED
fset armed 0
check_eq "fault: kmalloc(0) is never failed, kmalloc(8) beside it is" "$zero $eight" "0 10"
fault_defaults

# -- nth -----------------------------------------------------------------------------

fset sites slab
must aim-module meminspect_test
fset aim-depth 1
fset times 3		# ignored with nth
fset probability 0	# ignored with nth
fset nth 7
arm "nth 7"
halloc cache 0 20
fset armed 0
check_eq "fault: nth 7: exactly the 7th of 20 fails" "$HA_FAILED/$HA_FIRST" 1/7
fault_defaults

# -- pages: min-order and max-order --------------------------------------------------

fset sites pages
must aim-module meminspect_test
# depth 1: the allocator's own wrappers (alloc_pages, alloc_pages_mpol, 7.x's
# alloc_pages_noprof, ...) are not frames of the aim, on any kernel
fset aim-depth 1
fset times -1
fset min-order 1
fset max-order 2
arm "min/max-order"
r=
for o in 0 1 2 3; do
	halloc pages $o 5
	r="$r$o:$HA_FAILED "
done
fset armed 0
check_eq "fault: min-order 1, max-order 2: orders 1 and 2 fail, 0 and 3 do not" \
	"$r" "0:0 1:5 2:5 3:0 "
check_eq "fault: stats: pages failed = the helper's failures" \
	"$(fstat pages failed)" 10
check_eq "fault: log: the caller of each page record is the helper, not an allocator wrapper" \
	"$(awk 'NR > 1 && $2 == "pages" && / \[meminspect_test\]$/ { n++ }
		END { print n + 0 }' "$MI_FAULT/log")" 10
check_eq "fault: log: 10 page records with their order and size" \
	"$(awk 'NR > 1 && $2 == "pages" {
		s = 4096
		for (i = 0; i < $6; i++)
			s *= 2
		if ($5 == s)
			n++
	} END { print n + 0 }' "$MI_FAULT/log")" 10
fault_defaults

# -- aim-module and aim-depth ----------------------------------------------------------

fset sites slab
must aim-module meminspect_test
fset aim-depth 1
fset times -1
fset aim-depth 1
arm "aim-module depth 1"
halloc kmalloc 64 10
direct=$HA_FAILED
halloc kstrdup 64 10
deep=$HA_FAILED
ls / > /dev/null
other=$?
fset armed 0
check_eq "fault: aim-module, depth 1: the helper's direct kmallocs fail" "$direct" 10
check_eq "fault: aim-module, depth 1: kstrdup (one frame down) does not fail" "$deep" 0
check_eq "fault: aim-module: other code's allocations still succeed" "$other" 0
fset aim-depth 2
arm "aim-module depth 2"
halloc kstrdup 64 10
fset armed 0
check_eq "fault: aim-module, depth 2: kstrdup from the helper fails" "$HA_FAILED" 10
fault_defaults

# -- __GFP_NOFAIL ------------------------------------------------------------------------

fset sites slab,pages
must aim-module meminspect_test
fset aim-depth 1
fset times -1
arm "nofail"
halloc nofail 64 20
fset armed 0
check_eq "fault: __GFP_NOFAIL at probability 100: all 20 succeed" "$HA_OK" 20
check_eq "fault: stats: 20 nofail, 0 failed" \
	"$(fstat slab nofail)/$(fstat slab failed)" 20/0
fault_defaults

# -- sweep of the helper's setup routine -------------------------------------------------

# setup_field N: field N of the helper's setup report
# (runs ok failed live last_failed steps)
setup_field()
{
	awk -v n="$1" '{ print $n }' "$MI_TEST_DIR/fault_setup"
}

steps=$(setup_field 6)
fset sites slab,pages
must aim-module meminspect_test
fset aim-depth 1
n=1 found= bad=
while [ $n -le $((steps + 2)) ]; do
	fset nth $n
	arm "sweep nth $n" || break
	echo 1 > "$MI_TEST_DIR/fault_setup" 2> /dev/null
	rc=$?
	fset armed 0
	failed=$(fstat slab failed)
	failed=$((failed + $(fstat pages failed)))
	live=$(setup_field 4)
	step=$(setup_field 5)
	[ "$live" = 0 ] || bad="$bad nth=$n:live=$live"
	if [ "$failed" -eq 0 ]; then
		[ "$rc" -eq 0 ] || bad="$bad nth=$n:rc=$rc"
		break
	fi
	[ "$rc" -ne 0 ] && [ "$step" = "$n" ] || bad="$bad nth=$n:rc=$rc,step=$step"
	found="$found $step"
	n=$((n + 1))
done
check_eq "fault: sweep: nth 1..$steps fails setup step 1..$steps, nth $((steps + 1)) injects nothing" \
	"$found" "$(seq -s ' ' 1 "$steps" | sed 's/^/ /')"
check_eq "fault: sweep: every run unwinds to 0 live objects and fails with an error" \
	"${bad:-none}" none
fault_defaults
exit 0
