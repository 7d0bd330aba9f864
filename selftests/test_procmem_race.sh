#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mm and vmas read while the target replaces and splits its VMAs, with
# shmem pages in zram swap (docs/procmem.md, "How the walk reads").  The
# walk drops mmap_lock between chunks when the target wants it, which is
# exactly when the target changes its VMAs:
#  - remap: a private writable shmem mapping (walked hole by hole) is
#    replaced at the same address by an anonymous one, usually in the same
#    slab object; a walk that kept the old VMA's ops called the shmem hole
#    counter on the anonymous VMA (NULL vm_file: an oops on 6.1, a soft
#    lockup on 5.10).  Three readers of mm, one of vmas; every read must be
#    complete, and the host fails the run on any splat.
#  - split: a shared shmem mapping split at a PMD boundary (the walk's
#    cursor) and merged again; the object's swap does not move, so mm's
#    swap_kb must never exceed it (a VMA split at the cursor counted its
#    shmem_swap_usage() a second time).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

# 6 s and 4 s: a 6.1 lane's remap phase loops ~175 times in 6 s, split ~1000 in 4, on each
# of seven lanes every make check (docs/kernels.md, "Stress lengths").
SECS=${RACE_SECS:-6}
SPLIT_SECS=${RACE_SPLIT_SECS:-4}
VR=${MI_VMARACE:-$ST_DIR/progs/vmarace}
MEMFD_SWAP_KB=8192	# vmarace pushes at most half of its 16 MiB memfd out

mi_setup race swap_off
zdev=

require_file "$MI_DIR/mm"
require_file "$MI_DIR/vmas"
require_caps "mm/vmas of a target changing its shmem VMAs" mm.rollup pid_select mm.swap_pss
. "$ST_DIR/lib_procmem.sh"
if [ "$(awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo)" != 0 ]; then
	fail "the VM has no swap before this test ($(grep SwapTotal /proc/meminfo))"
	exit 0
fi
if ! swap_on; then
	case $zwhy in
	absent*) skip "mm/vmas of a target changing its shmem VMAs" "no zram swap in this VM: ${zwhy#absent: }" ;;
	*) fail "a zram swap device ($zwhy)" ;;
	esac
	exit 0
fi

# reader N FILE SECS: vmarace read of FILE of $tpid for SECS s (one open
# file read from offset 0 again and again, so that the reader is inside
# the walk most of the time); "reads N bad M excess X" in $T/rN
reader()
{
	"$VR" read "$MI_DIR/$2" "$tpid" "$3" "$MEMFD_SWAP_KB" > "$T/r$1"
}

# phase MODE SECS FILES...: vmarace MODE for SECS s, one reader per FILE
phase()
{
	_mode=$1 _secs=$2
	shift 2
	rm -f "$T"/r*
	if ! start_ready "$T/$_mode.out" "$VR" "$_mode" "$_secs"; then
		fail "vmarace $_mode ran"
		return 1
	fi
	diag "vmarace $_mode: $(grep -v ready "$T/$_mode.out" | tr '\n' ' ')on $zdev"
	_rp= _k=0
	for _f in "$@"; do
		_k=$((_k + 1))
		reader "$_k" "$_f" "$_secs" &
		_rp="$_rp $!"
	done
	wait "$tpid"
	_rc=$?
	for _p in $_rp; do wait "$_p"; done
	check "vmarace $_mode ran ${_secs}s and exited 0 (status $_rc; $(grep '^loops' "$T/$_mode.out"))" \
		[ "$_rc" -eq 0 ]
	_k=0
	for _f in "$@"; do
		_k=$((_k + 1))
		if [ ! -r "$T/r$_k" ]; then
			fail "$_mode: reader $_k of $_f reported nothing"
			continue
		fi
		read -r _ _n _ _bad _ _max < "$T/r$_k"
		if ! is_num "$_n"; then
			fail "$_mode: reader $_k of $_f: $(cat "$T/r$_k")"
			continue
		fi
		if [ "$_mode" = split ]; then
			check "split: reader $_k of $_f: $_n reads, $_bad failed or malformed, swap_kb above the memfd's $MEMFD_SWAP_KB kB by at most $_max kB (want 0)" \
				[ "$_n" -gt 0 -a "$_bad" -eq 0 -a "$_max" -eq 0 ]
		else
			check "remap: reader $_k of $_f: $_n reads, $_bad failed or malformed" \
				[ "$_n" -gt 0 -a "$_bad" -eq 0 ]
		fi
	done
}

phase remap "$SECS" mm mm mm vmas
phase split "$SPLIT_SECS" mm mm vmas
