#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The free-list walk racing memory hot-remove.  Needs a guest booted with a
# hot-removable DIMM: scripts/check runs it in its own VM (vm-run --dimm
# 512M), so it is not named test_*.sh and the suite does not pick it up.
#
# While readers loop over buddy, fragmentation_types, fragmentation and
# `meminspect frag --types` (walk_budget 8 at load, so every walk drops
# zone->lock and resumes from its cursor hundreds of times) and churn keeps
# pages moving through the DIMM's ZONE_MOVABLE:
#   1. every memory block of the DIMM is offlined and onlined again, in the
#      guest (offline_pages(): isolation, migration, the struct pages
#      poisoned), ROUNDS times;
#   2. the DIMM is unplugged and plugged again through the QEMU monitor
#      (ACPI eject: offline, then remove_memory(), which frees the memmap),
#      REMOVES times.
# Every read must succeed and be complete, a splat fails the run (vm-run
# exit 125), and after it buddy and fragmentation must agree with
# /proc/pagetypeinfo, /proc/buddyinfo and debugfs extfrag/ again, as in
# test_buddy.sh and test_fragmentation.sh.  Tolerances: docs/tests.md.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"

ROUNDS=${ROUNDS:-3} REMOVES=${REMOVES:-2} CHURN_MIB=${CHURN_MIB:-64}
MEM=/sys/devices/system/memory
REST="order_[0-9]+:32:2 pageblocks:2:1 nr_free_[0-9]+:32:2"
REST_IDX="unusable_permille:10:0 extfrag_permille:10:0"
READERS=3

mm_setup hotplug

require_file "$MI_DIR/buddy"
require_file "$MI_DIR/fragmentation_types"

# dimm_blocks: the memory blocks at or above 4 GiB, where q35 puts device
# memory (the guest's own RAM, 1 GiB, is all below), one "memoryN" a line
dimm_blocks()
{
	_bs=$(printf '%d' "0x$(cat "$MEM/block_size_bytes")")
	for _d in "$MEM"/memory[0-9]*; do
		_n=${_d##*/memory}
		[ $((_n * _bs)) -ge $((4 << 30)) ] && echo "memory$_n"
	done
}

# wait_blocks COUNT STATE: until COUNT DIMM blocks exist and are all in
# STATE ("online"; COUNT 0: none left), 120 s at most (by the clock: under
# TCG with the readers running one round of the check takes seconds)
wait_blocks()
{
	_end=$(($(date +%s) + 120))
	while [ "$(date +%s)" -lt "$_end" ]; do
		_all=$(dimm_blocks)
		_c=$(echo "$_all" | grep -c memory)
		_st=yes
		for _b in $_all; do
			[ "$(cat "$MEM/$_b/state" 2>/dev/null)" = "$2" ] || _st=no
		done
		[ "$_c" -eq "$1" ] && [ "$_st" = yes ] && return 0
		sleep 0.5
	done
	return 1
}

if [ ! -d "$MEM" ] || [ ! -e "$MEM/block_size_bytes" ]; then
	skip "memory hot-remove race" "no $MEM (CONFIG_MEMORY_HOTPLUG is off)"
	exit 0
fi
blocks=$(dimm_blocks)
nblocks=$(echo "$blocks" | grep -c memory)
if [ "$nblocks" -eq 0 ]; then
	fail "no memory block at or above 4 GiB: boot with vm-run --dimm 512M"
	exit 0
fi
wait_blocks "$nblocks" online
check "the DIMM's $nblocks memory blocks are online ($(echo $blocks))" \
	[ $? -eq 0 ]
zones=$(for b in $blocks; do cat "$MEM/$b/valid_zones"; done | sort -u | tr '\n' ' ')
check "the DIMM's blocks are in ZONE_MOVABLE (valid_zones: $zones)" \
	[ "$zones" = "Movable " ]

# walk_budget 8: every walk of a list longer than 8 resumes from a cursor
mi_reload walk_budget=8
check "meminspect reloaded with walk_budget=8" mi_loaded

churn_start 600 "$CHURN_MIB"

# read_one K FILE: reader K reads FILE (one of the walking files, or
# "reader": `meminspect frag --types`); fails if the read fails or is
# incomplete
read_one()
{
	if [ "$2" = reader ]; then
		"$MI_READER" frag --types > "$T/out$1" 2> "$T/err$1"
	else
		cat "$MI_DIR/$2" > "$T/out$1" 2> "$T/err$1"
	fi
	if [ $? -ne 0 ] || ! grep -q '^ *node  *zone ' "$T/out$1"; then
		echo "reader $1: $2: $(head -c 200 "$T/err$1")" >&2
		return 1
	elif [ "$2" != fragmentation ] && ! grep -q '^# walk: ' "$T/out$1"; then
		echo "reader $1: $2: no walk note" >&2
		return 1
	fi
}

readers_start "$READERS" read_one "buddy fragmentation_types fragmentation reader"
sleep 2

# ---- 1: offline and online every block, in the guest ----
offlined=0 onlined=0 busy=0
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for b in $blocks; do
		# EBUSY (pages that would not migrate in time) is allowed; retried
		t=0
		while [ "$t" -lt 5 ]; do
			if echo offline > "$MEM/$b/state" 2> "$T/oerr"; then
				offlined=$((offlined + 1))
				break
			fi
			busy=$((busy + 1))
			t=$((t + 1))
			sleep 1
		done
	done
	for b in $blocks; do
		[ "$(cat "$MEM/$b/state")" = offline ] || continue
		echo online_movable > "$MEM/$b/state" && onlined=$((onlined + 1))
	done
	r=$((r + 1))
done
diag "offline/online: $offlined offlines, $onlined onlines, $busy refused (EBUSY) and retried"
check "offline: every DIMM block offlined in at least half of $ROUNDS rounds ($offlined of $((ROUNDS * nblocks)))" \
	[ "$offlined" -ge $((ROUNDS * nblocks / 2)) ]
check "online: every block offlined came back online ($onlined of $offlined)" \
	[ "$onlined" -eq "$offlined" ]
wait_blocks "$nblocks" online
check "after the offline rounds all $nblocks DIMM blocks are online" [ $? -eq 0 ]

# ---- 2: unplug and plug the DIMM (QEMU monitor, via vm-run) ----
removed=0 added=0
r=1
while [ "$r" -le "$REMOVES" ]; do
	echo "MI-DIMM remove"
	if wait_blocks 0 online; then
		removed=$((removed + 1))
	else
		diag "round $r: the DIMM's blocks did not go away: $(dimm_blocks | tr '\n' ' ')"
		break
	fi
	echo "MI-DIMM add"
	if wait_blocks "$nblocks" online; then
		added=$((added + 1))
	else
		diag "round $r: the DIMM did not come back online: $(dimm_blocks | tr '\n' ' ')"
		break
	fi
	r=$((r + 1))
done
check "device_del: the DIMM was removed (memory blocks gone) $removed of $REMOVES times" \
	[ "$removed" -eq "$REMOVES" ]
check "device_add: the DIMM came back online $added of $REMOVES times" [ "$added" -eq "$REMOVES" ]

readers_stop "$READERS" "buddy/fragmentation_types/fragmentation/frag --types across the hot-remove"
kill "$churn_pid" 2>/dev/null
wait "$churn_pid" 2>/dev/null
churn_pid=
mi_reload
check "meminspect reloaded with the default walk_budget" mi_loaded

# ---- after: the figures are the kernel's again ----
mm_phase "buddy after the hot-remove vs pagetypeinfo/buddyinfo" 3 buddy_snap "$REST"
mm_phase "fragmentation after the hot-remove vs debugfs extfrag" 3 extfrag_snap "$REST_IDX"
