#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unload and reload meminspect CYCLES times while READERS background
# loops read every file in $MI_DIR, then check that slab and free memory
# came back (nothing leaked per cycle).  The console (oopses, WARNINGs,
# taint) is the runner's to check.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

# 5 cycles, as under KASAN (the debug lane), where one costs 7.5 s.  Each
# cycle unloads with readers inside the files (25 rmmod retries in 20
# cycles on 5.10).  20 cycles cost 150 s of a 5.10 lane beside the debug
# kernel's build (3 Dec); 10 still 30 s of every lane's CPU and the Debian
# package check's (5 Dec).  With 5, a leak of 820 kB or more a cycle exceeds
# SLAB_TOL_KB; smaller ones are test_zz_kmemleak's (debug lane) to find.
CYCLES=${UNLOAD_CYCLES:-5}
READERS=4
RMMOD_TRIES=100			# x 0.1 s while a reader holds a file open
# Slab (SReclaimable + SUnreclaim) and free memory after the cycles against
# before, both measured after dropping caches and shrinking every slab
# cache (docs/tests.md).  A leak makes Slab grow, so only growth fails: a
# clean-clone CI run saw Slab fall by 5.7 MiB (SUnreclaim by 3 MiB) over
# the cycles, the rest of the kernel freeing lazily what earlier tests
# left behind, which says nothing about meminspect.  Free memory
# is MemFree plus the pages on the per-CPU lists (zoneinfo "count"): those
# lists hold up to tens of MiB on a 1 GiB guest (6.1: "high" sums to ~55
# MiB) and MemFree alone swings with them.
SLAB_TOL_KB=4096
FREE_TOL_KB=8192
MEMFREE_TOL_KB=65536
UNACC_TOL_KB=4096

T=$(mi_tmpdir unload) || exit 1
reader_pids=
stop_readers()
{
	[ -n "$reader_pids" ] || return 0
	touch "$T/stop"
	# shellcheck disable=SC2086
	kill $reader_pids 2> /dev/null
	# shellcheck disable=SC2086
	wait $reader_pids 2> /dev/null
	reader_pids=
	expect_debugfs_race end
}
cleanup()
{
	stop_readers
	mi_restore
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# settle: drop reclaimable caches, let RCU free them, print "slab free"
settle()
{
	sync
	echo 3 > /proc/sys/vm/drop_caches
	# SLUB keeps empty slabs on per-CPU partial lists; "shrink" frees them
	# so both samples count slabs in use, not the allocator's spares.
	for _s in /sys/kernel/slab/*/shrink; do
		[ -w "$_s" ] && echo 1 > "$_s" 2> /dev/null
	done
	sleep 2
	_f=$(meminfo MemFree)
	_p=$(($(zoneinfo_pcp_pages) * MI_PAGE_KB))
	echo "$(($(meminfo SReclaimable) + $(meminfo SUnreclaim)))" \
		"$((_f + _p)) $_f $_p $(mi_field "$MI_DIR/summary" unaccounted)"
}

require_file "$MI_DIR/summary"
if [ ! -r "$MI_KO" ]; then
	fail "$MI_KO exists"
	exit 0
fi

# A first cycle without readers warms up what a cycle allocates once
# (module loader caches, sysfs and debugfs inodes) before measuring.
rmmod meminspect && insmod "$MI_KO"
set -- $(settle)
slab0=$1 free0=$2 memfree0=$3 pcp0=$4 unacc0=$5
cat /proc/meminfo > "$T/meminfo.before"
cat "$MI_DIR/summary" > "$T/summary.before"
diag "before: Slab $slab0 kB, MemFree $memfree0 + per-cpu $pcp0 = $free0 kB," \
	"unaccounted $unacc0 kB"

reader()
{
	while [ ! -e "$T/stop" ]; do
		for f in "$MI_DIR"/*; do
			cat "$f" > /dev/null 2>&1
		done
	done
}
expect_debugfs_race begin
i=0
while [ $i -lt $READERS ]; do
	reader &
	reader_pids="$reader_pids $!"
	i=$((i + 1))
done

busy=0 bad_unload=0 bad_load=0 bad_read=0
c=1
while [ $c -le "$CYCLES" ]; do
	tries=0
	while ! rmmod meminspect 2> "$T/err"; do
		tries=$((tries + 1))
		if [ $tries -ge $RMMOD_TRIES ]; then
			diag "cycle $c: rmmod failed $tries times: $(cat "$T/err")"
			bad_unload=$((bad_unload + 1))
			break
		fi
		mi_nap 0.1
	done
	busy=$((busy + tries))
	if mi_loaded; then
		:
	elif [ -e "$MI_DIR" ]; then
		diag "cycle $c: $MI_DIR still exists after rmmod"
		bad_unload=$((bad_unload + 1))
	fi
	if ! mi_loaded && ! insmod "$MI_KO" 2> "$T/err"; then
		diag "cycle $c: insmod failed: $(cat "$T/err")"
		bad_load=$((bad_load + 1))
		insmod "$MI_KO" 2> /dev/null
	fi
	if ! head -n 1 "$MI_DIR/summary" 2> /dev/null | grep -q '^field value unit$'; then
		diag "cycle $c: summary unreadable right after insmod"
		bad_read=$((bad_read + 1))
	fi
	c=$((c + 1))
done
diag "$CYCLES cycles, $busy rmmod retries while a reader held a file"

check "$CYCLES x rmmod with $READERS readers: every unload succeeded" \
	[ $bad_unload -eq 0 ]
check "$CYCLES x insmod with $READERS readers: every load succeeded" \
	[ $bad_load -eq 0 ]
check "$CYCLES x insmod: summary readable after every load" [ $bad_read -eq 0 ]

alive=0
for p in $reader_pids; do
	kill -0 "$p" 2> /dev/null && alive=$((alive + 1))
done
check "all $READERS readers survived the cycles" [ $alive -eq $READERS ]
stop_readers
# A reader killed while its cat runs leaves that cat to finish its read
# alone (seen once, 7.3 lane of a clean-clone make check): up to 5 s for
# it; a cat still there then is stuck in the module.
n=0
while left=$(ps -o pid,args 2> /dev/null | grep -c "cat $MI_DIR/[^ ]*$") &&
	[ "$left" -gt 0 ] && [ $n -lt 50 ]; do
	mi_nap 0.1
	n=$((n + 1))
done
check "readers stopped (no cat of $MI_DIR left $((n / 10)) s after)" [ "$left" -eq 0 ]

check "module loaded after the cycles" mi_loaded
check "summary readable after the cycles" [ -r "$MI_DIR/summary" ]

set -- $(settle)
slab1=$1 free1=$2 memfree1=$3 pcp1=$4 unacc1=$5
cat /proc/meminfo > "$T/meminfo.after"
cat "$MI_DIR/summary" > "$T/summary.after" 2> /dev/null
diag "after: Slab $slab1 kB, MemFree $memfree1 + per-cpu $pcp1 = $free1 kB," \
	"unaccounted $unacc1 kB"
check_between "Slab not grown after $CYCLES cycles" \
	"$slab1" 0 "$slab0" "$SLAB_TOL_KB"
[ "$slab1" -lt $((slab0 - SLAB_TOL_KB)) ] &&
	diag "Slab fell by $((slab0 - slab1)) kB: freed elsewhere, not a leak"
# What Slab gave back is free memory now: the free figure may be higher by
# that much (the debug lane of a clean-clone run: Slab -8796 kB, free
# +8728 kB).  A leak makes free memory fall, and that is never credited.
slab_drop=$((slab0 > slab1 ? slab0 - slab1 : 0))
check_between "MemFree + per-cpu free back to its start value after $CYCLES cycles (+ Slab's fall, $slab_drop kB)" \
	"$free1" "$free0" "$((free0 + slab_drop))" "$FREE_TOL_KB"
check_within "MemFree alone back to its start value give or take the per-cpu lists" \
	"$memfree1" "$memfree0" "$MEMFREE_TOL_KB"
if is_num "$unacc0" && is_num "$unacc1"; then
	check_within "unaccounted back to its start value after $CYCLES cycles" \
		"$unacc1" "$unacc0" "$UNACC_TOL_KB"
else
	skip "unaccounted back to its start value after $CYCLES cycles" \
		"unaccounted is '$unacc0' / '$unacc1': $(cap_detail summary.unaccounted)"
fi
if ! is_within "$slab1" 0 "$slab0" "$SLAB_TOL_KB" ||
   ! is_within "$free1" "$free0" "$((free0 + slab_drop))" "$FREE_TOL_KB" ||
   ! is_within "$memfree1" "$memfree0" "$memfree0" "$MEMFREE_TOL_KB"; then
	diag "/proc/meminfo lines that moved by 1 MiB or more (before -> after):"
	awk 'NR == FNR { b[$1] = $2; next }
	     ($2 - b[$1] >= 1024 || b[$1] - $2 >= 1024) {
		print "#   " $1, b[$1], "->", $2 }' \
		"$T/meminfo.before" "$T/meminfo.after"
	diag "meminspect summary lines that moved by 1 MiB or more:"
	awk 'NR == FNR { b[$1] = $2; next }
	     $3 == "kB" && ($2 - b[$1] >= 1024 || b[$1] - $2 >= 1024) {
		print "#   " $1, b[$1], "->", $2 }' \
		"$T/summary.before" "$T/summary.after"
fi

exit 0
