#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 4 concurrent readers of zones, buddy, fragmentation and
# fragmentation_types while churn runs, on the 2-CPU guest: every read
# succeeds and is complete (header, and the walk note for the two files
# that walk the free lists, buddy and fragmentation_types).  A splat, soft lockup or RCU
# stall is caught by the host (vm-run exits 125) and fails the run.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"

# 5 s of reading under churn (docs/kernels.md, "Stress lengths")
READERS=4 SECS=${MM_READERS_SECS:-5}
CHURN_MIB=${CHURN_MIB:-64}

mm_setup readers

FILES="zones buddy fragmentation fragmentation_types"
for f in $FILES; do
	require_file "$MI_DIR/$f"
done

# read_one K FILE: reader K reads FILE; fails if the read fails or the table
# is incomplete (no header; no walk note in a file that walks the free lists)
read_one()
{
	if ! cat "$MI_DIR/$2" > "$T/out$1" 2> "$T/err$1"; then
		cat "$T/err$1" >&2
		return 1
	fi
	grep -q '^node zone ' "$T/out$1" || return 1
	case $2 in
	zones | fragmentation) ;;
	*) grep -q '^# walk: ' "$T/out$1" ;;
	esac
}

churn_start $((SECS + 30)) "$CHURN_MIB"
readers_start "$READERS" read_one "$FILES"
sleep "$SECS"
readers_stop "$READERS" "zones/buddy/fragmentation/fragmentation_types in ${SECS}s under churn"
churn_stop
