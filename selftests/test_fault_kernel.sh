#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fault/ side by side with the kernel's own injectors (debug lane: kernels
# built with FAILSLAB, FAIL_PAGE_ALLOC and their debugfs): the same aim gives
# the same failures from failslab / fail_page_alloc as from meminspect, on
# the same allocations of the helper module, in the same VM.
#   slab:  probability 100, times 5, at the helper's cache
#          meminspect_test_fault (failslab: cache-filter +
#          /sys/kernel/slab/CACHE/failslab; meminspect: aim-cache, or where
#          the capabilities row slab_caches says no (no BTF) the nearest aim:
#          aim-module meminspect_test + aim-size of the cache's objects);
#          20 kmalloc(64) (never failed), then 20 from the cache
#   pages: order >= 2, probability 100, times 3, at one process: a shell
#          started as "ash" (fail_page_alloc: task-filter +
#          /proc/PID/make-it-fail, min-order 2; meminspect: aim-comm ash,
#          min-order 2); 10 allocations of order 1, then 10 of order 2,
#          then 10 of order 3
# Compared: each batch's successes, failures and first failure; the count
# of failures against what each injector says it injected (the kernel's
# times knob counts down, meminspect's stats count up).  Kernels without
# the kernel's injectors skip, as the capabilities row
# "kernel_fault_injection" says; so does a module without fault/ (no
# "fault" row).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

CACHE=meminspect_test_fault
OBJ=192		# the helper's object size for $CACHE
KFS=$MI_DEBUGFS/failslab
KFP=$MI_DEBUGFS/fail_page_alloc

require_file "$MI_DIR/capabilities"
avail=$(cap_available kernel_fault_injection) || {
	fail "capabilities: a kernel_fault_injection row"
	exit 0
}
if [ "$avail" != yes ]; then
	skip "fault: same failures as the kernel's failslab and fail_page_alloc" \
		"$(cap_detail kernel_fault_injection)"
	exit 0
fi
if [ "$(cap_available fault)" != yes ]; then
	skip "fault: same failures as the kernel's failslab and fail_page_alloc" \
		"meminspect has no fault/ here (capabilities has no fault row saying yes)"
	exit 0
fi
. "$ST_DIR/lib_fault.sh"
require_file "$MI_FAULT/settings"
require_file "$KFS/probability"
require_file "$KFP/probability"

T=$(mi_tmpdir fault_kernel) || exit 1

# The kernel knobs this test writes, saved now and put back on exit.
KNOBS="probability interval times space verbose task-filter ignore-gfp-wait"
save_kernel()
{
	for d in failslab fail_page_alloc; do
		for k in $KNOBS; do
			printf '%s %s %s\n' "$d" "$k" "$(cat "$MI_DEBUGFS/$d/$k")"
		done
	done > "$T/saved"
	printf 'failslab cache-filter %s\n' "$(cat "$KFS/cache-filter")" >> "$T/saved"
	printf 'fail_page_alloc min-order %s\n' "$(cat "$KFP/min-order")" >> "$T/saved"
}

restore_kernel()
{
	echo 0 > "$KFS/probability"
	echo 0 > "$KFP/probability"
	[ -e "/sys/kernel/slab/$CACHE/failslab" ] &&
		echo 0 > "/sys/kernel/slab/$CACHE/failslab"
	[ -s "$T/saved" ] || return 0
	# probability last, so nothing fails while the others are put back
	grep -v ' probability ' "$T/saved" | while read -r d k v; do
		echo "$v" > "$MI_DEBUGFS/$d/$k"
	done
	grep ' probability ' "$T/saved" | while read -r d k v; do
		echo "$v" > "$MI_DEBUGFS/$d/$k"
	done
}

cleanup()
{
	restore_kernel 2> /dev/null
	fault_defaults 2> /dev/null
	helper_unload 2> /dev/null
	rm -rf "$T"
	mi_restore
}
trap cleanup EXIT
trap 'exit 143' TERM INT

save_kernel
fault_defaults
if ! helper_load; then
	fail "fault: the helper module loads"
	exit 0
fi

# site_done SITE KERNEL: after a site's batches, the kernel's injector's in
# $T/kSITE and meminspect's in $T/mSITE (none if arming failed): $m_failed,
# the site's failures in fault/stats; every knob back to its default; both
# batches as diagnostics
site_done()
{
	[ -e "$T/m$1" ] || : > "$T/m$1"
	m_failed=$(fstat "$1" failed)
	fault_defaults
	diag "$(printf '%-16s %s' "$2:" "$(tr '\n' ';' < "$T/k$1")")"
	diag "$(printf '%-16s %s' meminspect: "$(tr '\n' ';' < "$T/m$1")")"
}

# kernel_attr DIR: the settings both kernel injectors share, off first
kernel_attr()
{
	echo 0 > "$1/probability"
	echo 1 > "$1/interval"
	echo 0 > "$1/space"
	echo 0 > "$1/verbose"
	echo N > "$1/ignore-gfp-wait"
}

# slab_batches: 20 kmalloc(64) (no injector aims at them), then 20 from
# the cache; the helper's report line after each
slab_batches()
{
	halloc kmalloc 64 20 && cat "$MI_TEST_DIR/fault_alloc"
	halloc cache 0 20 && cat "$MI_TEST_DIR/fault_alloc"
}

# report: the helper's report line ("KIND ARG N ok failed first ns") of
# each batch, one a line, ns left out (it is not compared)
report() { awk '{ print $1, $2, $3, $4, $5, $6 }'; }

# -- slab: one named cache, probability 100, times 5 --------------------------------

kernel_attr "$KFS"
echo N > "$KFS/task-filter"
echo Y > "$KFS/cache-filter"
echo 5 > "$KFS/times"
if ! echo 1 > "/sys/kernel/slab/$CACHE/failslab"; then
	fail "failslab: /sys/kernel/slab/$CACHE/failslab takes 1"
fi
echo 100 > "$KFS/probability"
slab_batches | report > "$T/kslab"
echo 0 > "$KFS/probability"
k_left=$(cat "$KFS/times")
echo 0 > "/sys/kernel/slab/$CACHE/failslab"
echo N > "$KFS/cache-filter"

if [ "$(cap_available slab_caches)" = yes ]; then
	aim="aim-cache $CACHE"
	fset aim-cache $CACHE
else
	aim="aim-module meminspect_test, aim-size $OBJ-$OBJ"
	diag "no aim-cache here: slab_caches: $(cap_detail slab_caches)"
	fset aim-module meminspect_test && fset aim-size "$OBJ-$OBJ"
fi
aimed=$?
fset sites slab && fset times 5 && fset probability 100 && fset verbose 0
set_ok=$?
# never arm with an aim that did not take: that would fail everything
if [ $aimed -eq 0 ] && [ $set_ok -eq 0 ] && fset armed 1; then
	slab_batches | report > "$T/mslab"
	fset armed 0
else
	fail "fault: arming (slab, $aim, times 5)"
fi
site_done slab failslab
k_failed=$(awk '$1 == "cache" { print $5 }' "$T/kslab")
check_eq "failslab: cache $CACHE, probability 100, times 5: 5 of 20 fail" \
	"$k_failed" 5
check_eq "fault: slab ($aim): the same batches as failslab (ok, failed, first failure; kmalloc 64 untouched)" \
	"$(cat "$T/mslab")" "$(cat "$T/kslab")"
check_eq "fault: slab: stats failed = failslab's failures (its times went 5 -> $k_left)" \
	"$m_failed" "$((5 - k_left))"

# -- pages: order >= 2, probability 100, times 3, one process -----------------------

# in_child PREFIX SUFFIX: the three batches in a child shell started as
# "ash" (its comm).  It opens the helper's file first (one fd to write the
# batches, one to read each report), then runs PREFIX, which aims an
# injector at it, makes the three writes with nothing in between (no open,
# no fork, no output: on the debug kernel every extra allocation of the
# aimed process may take one of the 3 failures), runs SUFFIX and prints
# the reports.
ln -sf /bin/busybox "$T/ash"
in_child()
{
	"$T/ash" -c '
		F=$3/fault_alloc
		exec 3> "$F" 4< "$F" 5< "$F" 6< "$F" || exit 1
		eval "$1" || exit 1
		echo "pages 1 10" >&3
		read -r r1 <&4
		echo "pages 2 10" >&3
		read -r r2 <&5
		echo "pages 3 10" >&3
		read -r r3 <&6
		eval "$2"
		printf "%s\n" "$r1" "$r2" "$r3"
	' ash "$1" "$2" "$MI_TEST_DIR"
}

kernel_attr "$KFP"
echo Y > "$KFP/task-filter"
echo 2 > "$KFP/min-order"
echo 3 > "$KFP/times"
echo 100 > "$KFP/probability"
in_child 'echo 1 > /proc/$$/make-it-fail' 'echo 0 > /proc/$$/make-it-fail' |
	report > "$T/kpages"
echo 0 > "$KFP/probability"
k_left=$(cat "$KFP/times")

if fset sites pages && fset min-order 2 && fset times 3 &&
	fset probability 100 && fset verbose 0 && fset aim-comm ash; then
	in_child "echo 1 > '$MI_FAULT/armed'" "echo 0 > '$MI_FAULT/armed'" |
		report > "$T/mpages"
	fset armed 0
	sed 's/^/# meminspect log: /' "$MI_FAULT/log"
else
	fail "fault: arming (pages, min-order 2, aim-comm ash, times 3)"
fi
site_done pages fail_page_alloc
k_failed=$(awk '{ n += $5 } END { print n + 0 }' "$T/kpages")
check_eq "fail_page_alloc: order >= 2, probability 100, times 3: 3 of 30 fail, all of order 2" \
	"$k_failed/$(awk '$2 == 2 { print $5 }' "$T/kpages")" 3/3
check_eq "fault: pages: the same batches as fail_page_alloc (orders 1, 2, 3: ok, failed, first failure)" \
	"$(cat "$T/mpages")" "$(cat "$T/kpages")"
check_eq "fault: pages: stats failed = fail_page_alloc's failures (its times went 3 -> $k_left)" \
	"$m_failed" "$((3 - k_left))"
