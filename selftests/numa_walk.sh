#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One walk of each zone per read on a machine of many nodes.  Needs a guest
# booted with several NUMA nodes: scripts/check runs it in a VM of its own
# per x86 kernel (vm-run --numa 16 --mem 2G), so it is not named test_*.sh
# and the suite does not pick it up.
#
# seq_file shows a record again when its text overflows the buffer (one
# page at first): with many nodes the records of pages, buddy and
# fragmentation_types fill that page before the last node, which seq_file
# then shows again in the next read().  The walking tables keep a node's
# walk for that (module/zone_walk.h): read whole and 64 bytes per read(),
# the "# walk:" notes count each populated zone of /proc/zoneinfo once (and
# each memory section its span touches, for pages), the rows are the same,
# and buddy agrees with /proc/pagetypeinfo and /proc/buddyinfo as in
# test_buddy.sh.  A node's walk not kept: pages counted 19 zones of 17 and
# fragmentation_types 18 in the 16-node guest (6.1).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"

REST="order_[0-9]+:32:2 pageblocks:2:1 nr_free_[0-9]+:32:2"

mm_setup numa_walk

require_file "$MI_DIR/pages"
require_file "$MI_DIR/buddy"
require_file "$MI_DIR/fragmentation_types"

nodes=0
for n in /sys/devices/system/node/node[0-9]*; do
	[ -d "$n" ] && nodes=$((nodes + 1))
done
check "the guest has more than one online node ($nodes: vm-run --numa)" [ "$nodes" -gt 1 ]

# rows FILE: the records' keys (node zone class/migratetype/order) and, for
# pages, each zone note's node, zone, present and spanned
rows()
{
	awk 'NR > 1 && !/^#/ { print $1, $2, $3 } /^# node / { print $3, $5, $9, $11 }' "$1"
}

for f in pages buddy fragmentation_types; do
	cat "$MI_DIR/$f" > "$T/$f.whole" 2> "$T/$f.err"
	read_small "$MI_DIR/$f" "$T/$f.small"
	if [ "$f" = pages ]; then
		sp=$(walk_figures "$T/$f.whole" section_pfns)
		names="nodes zones sections pfns"
		want=$(zoneinfo_walk "$sp")
		what="nodes zones sections pfns of zoneinfo, sections of $sp pfns"
	else
		names=zones
		want=$(zoneinfo_walk 0)
		want=${want#* } want=${want%% *}
		what="populated zones of zoneinfo"
	fi
	# shellcheck disable=SC2086 # names: the figures' names, one word each
	diag "$f: $(wc -c < "$T/$f.whole") bytes; whole: $(walk_figures "$T/$f.whole" $names); 64 bytes per read(): $(walk_figures "$T/$f.small" $names)"
	# shellcheck disable=SC2086 # names: the figures' names, one word each
	check_eq "$f read whole: each zone walked once ($what)" \
		"$(walk_figures "$T/$f.whole" $names)" "$want"
	# shellcheck disable=SC2086
	check_eq "$f read 64 bytes per read(): each zone walked once ($what)" \
		"$(walk_figures "$T/$f.small" $names)" "$want"
	check "$f: the same rows read whole and 64 bytes per read()" \
		[ "$(rows "$T/$f.whole")" = "$(rows "$T/$f.small")" ]
done

# the figures are still the kernel's, node by node
mm_phase "buddy on $nodes nodes at rest" 3 buddy_snap "$REST"

exit 0
