#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mm and vmas of an ASan-style address space (docs/procmem.md, "Cost"):
# 16 TiB PROT_NONE and 2 TiB read-write MAP_NORESERVE with 64 pages
# touched 32 GiB apart.  Every figure equals smaps_rollup/status and each
# vmas row its smaps entry, and a read costs what the page tables hold, not
# the bytes spanned: the walk that stepped through the space 2 MiB at a
# time took 12.6 s for mm on 7.3, smaps_rollup 30 ms.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

mi_setup sparse
MT=${MI_MEMTARGET:-$ST_DIR/progs/memtarget}

require_file "$MI_DIR/mm"
require_file "$MI_DIR/vmas"
require_caps "mm/vmas of a sparse reservation" mm.rollup pid_select
. "$ST_DIR/lib_procmem.sh"

# secs CMD...: the wall time of CMD in seconds (busybox time, 10 ms steps)
secs()
{
	busybox time -f %e "$@" 2>&1 >/dev/null | tail -n 1
}

if ! start_target "$T/reserve.out" reserve; then
	fail "memtarget reserve gets ready"
	exit 0
fi
diag "target $tpid: VmSize $(awk '/^VmSize/ { print $2 }' "/proc/$tpid/status") kB, VmRSS $(awk '/^VmRSS/ { print $2 }' "/proc/$tpid/status") kB, $(grep -c . "/proc/$tpid/maps") VMAs"

check_mm "sparse reservation" "$tpid"
check_vmas "sparse reservation" "$tpid"

# The cost: the best of 3 reads each, mm against smaps_rollup and vmas
# against smaps, each a shell that opens the file and cats it.  Bound: 10
# times the kernel's file, plus 0.5 s for the noise of a loaded TCG guest
# (the 2 MiB-step walk took hundreds of times smaps_rollup's time).
best()
{
	_b=
	for _i in 1 2 3; do
		_t=$(secs "$@")
		_b=$(awk -v a="$_b" -v b="$_t" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
	done
	echo "$_b"
}
for pair in mm:smaps_rollup vmas:smaps; do
	ours=${pair%%:*}
	theirs=${pair#*:}
	t_ours=$(best sh -c "exec 3<>$MI_DIR/$ours && echo $tpid >&3 && cat <&3")
	t_theirs=$(best cat "/proc/$tpid/$theirs")
	check "sparse reservation: a read of $ours takes ${t_ours} s, at most 10 x $theirs's ${t_theirs} s + 0.5 s" \
		awk -v a="$t_ours" -v b="$t_theirs" 'BEGIN {
			if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/) exit 1
			exit !(a + 0 <= 10 * b + 0.5) }'
done

kill "$tpid"
wait "$tpid"
rc=$?
pids=
check "memtarget reserve exits 0 on SIGTERM ($rc)" [ "$rc" -eq 0 ]
