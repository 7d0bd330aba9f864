#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fragmentation: the kernel's formulas recomputed by this test, from the
# file's own free-block counts (exact) and from /proc/buddyinfo (bracket),
# and against debugfs extfrag/ (the kernel's own printout), at rest and
# while churn runs.  fragmentation_types (the split by migratetype, from a
# walk of the free lists): the split adds up (exact), and against the same
# recomputed from /proc/pagetypeinfo's free counts (bracket).
# Tolerances: docs/tests.md.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"

CHURN_MIB=${CHURN_MIB:-64} CHURN_SECS=${CHURN_SECS:-120}
REST="free_blocks:16:2 avail_blocks:32:2 unusable_permille:10:0 extfrag_permille:10:0"
LOAD="free_blocks:256:10 avail_blocks:256:10 unusable_permille:50:0 extfrag_permille:50:0"
# debugfs extfrag/ prints the two indexes only, in thousandths
REST_IDX="unusable_permille:10:0 extfrag_permille:10:0"
LOAD_IDX="unusable_permille:50:0 extfrag_permille:50:0"
# fragmentation_types: avail_blocks and every avail_TYPE, as avail_blocks
REST_TYPES="avail_[a-z]+:32:2"
LOAD_TYPES="avail_[a-z]+:256:10"

mm_setup frag

require_file "$MI_DIR/fragmentation"
require_file "$MI_DIR/fragmentation_types"

# The debugfs parser itself, on a line in the kernel's %d.%03d format whose
# thousandths busybox awk would read as octal (lib_mm.sh, flat_extfrag)
echo "Node 0, zone    DMA32 0.061 0.012 0.009 0.000 -1.000 1.000" > "$T/ef"
got=$(flat_extfrag "$T/ef" u | awk '{ s = s (NR > 1 ? " " : "") $3 } END { print s }')
check "debugfs extfrag parser reads thousandths in decimal (0.061 is 61, not octal 49): $got" \
	[ "$got" = "61 12 9 0 -1000 1000" ]

snap()
{
	snap_files "$T/b1" /proc/buddyinfo "$T/frag" "$MI_DIR/fragmentation" \
		"$T/b2" /proc/buddyinfo
	flat_table "$T/frag" 3 > "$T/ours"
	frag_from_buddyinfo "$T/b1" > "$T/r1"
	frag_from_buddyinfo "$T/b2" > "$T/r2"
}

snap_types()
{
	snap_files "$T/p1" /proc/pagetypeinfo "$T/types" "$MI_DIR/fragmentation_types" \
		"$T/p2" /proc/pagetypeinfo
	flat_table "$T/types" 3 > "$T/ours"
	types_from_pagetypeinfo "$T/p1" > "$T/r1"
	types_from_pagetypeinfo "$T/p2" > "$T/r2"
}

# ---- format and the formulas, on one frozen copy ----
snap
snap_types
check_header "fragmentation: header has the fields of docs/fragmentation.md" "$T/frag" \
	"node zone order free_blocks avail_blocks unusable_permille extfrag_permille"
mts=$(awk '/^Number of blocks type/ { for (i = 5; i <= NF; i++) printf " avail_%s", tolower($i); exit }' /proc/pagetypeinfo)
check_header "fragmentation_types: header has one avail_TYPE per pagetypeinfo migratetype" \
	"$T/types" "node zone order avail_blocks$mts"
# only the file that walks says so: fragmentation reads nr_free alone
check "fragmentation has no walk note (no free list walked)" \
	sh -c "! grep -q '^# walk:' '$T/frag'"
check "fragmentation_types has the walk note" grep -q '^# walk: ' "$T/types"

# Per zone, the order-K block counts are free_blocks(K) - free_blocks(K+1);
# from them every other figure of the row follows by the kernel's formulas.
# Exact: the file computes every row of a zone from one copy of nr_free.
bad=$(awk 'BEGIN { p2[0] = 1; for (k = 1; k < 64; k++) p2[k] = p2[k - 1] * 2 }
	NR == 1 { n = NF; next }
	/^#/ { next }
	NF != n { print "line " NR ": " NF " values, header has " n; next }
	{
		for (i = 3; i <= NF; i++)
			if ($i !~ /^-?[0-9]+$/)
				print "line " NR ": field " i " is \"" $i "\""
		z = $1 "/" $2
		if (z != zone) { zone = z; zones[++nz] = z }
		o = $3
		if (o + 1 > no[z]) no[z] = o + 1
		ge[z, o] = $4; av[z, o] = $5; un[z, o] = $6; ex[z, o] = $7
	}
	END {
		for (zi = 1; zi <= nz; zi++) {
			z = zones[zi]; m = no[z]
			for (k = 0; k < m; k++)
				c[k] = ge[z, k] - (k + 1 < m ? ge[z, k + 1] : 0)
			for (o = 0; o < m; o++) {
				total = pages = suit = 0
				for (k = 0; k < m; k++) {
					total += c[k]; pages += c[k] * p2[k]
					if (k >= o) suit += c[k] * p2[k - o]
				}
				u = pages == 0 ? 1000 : int((pages - suit * p2[o]) * 1000 / pages)
				if (total == 0) e = 0
				else if (suit > 0) e = -1000
				else e = 1000 - int((1000 + int(pages * 1000 / p2[o])) / total)
				if (suit != av[z, o]) print z " order " o ": avail_blocks " av[z, o] ", formula " suit
				if (u != un[z, o]) print z " order " o ": unusable_permille " un[z, o] ", formula " u
				if (e != ex[z, o]) print z " order " o ": extfrag_permille " ex[z, o] ", formula " e
			}
		}
	}' "$T/frag" || echo "awk failed")
if [ -z "$bad" ]; then
	ok "fragmentation: every row follows from the file's own block counts by the kernel's formulas"
else
	fail "fragmentation: formulas"
	echo "$bad" | head -n 8 | sed 's/^/# /'
fi

# fragmentation_types: every record complete, integers, the avail_TYPE
# columns add up to avail_blocks (one walk, so exact)
bad=$(awk 'NR == 1 { n = NF; next }
	/^#/ { next }
	NF != n { print "line " NR ": " NF " values, header has " n; next }
	{
		s = 0
		for (i = 3; i <= NF; i++)
			if ($i !~ /^[0-9]+$/)
				print "line " NR ": field " i " is \"" $i "\""
		for (i = 5; i <= NF; i++)
			s += $i
		if (s != $4)
			print $1 "/" $2 " order " $3 ": avail_* add up to " s ", avail_blocks " $4
	}' "$T/types" || echo "awk failed")
if [ -z "$bad" ]; then
	ok "fragmentation_types: avail_* add up to avail_blocks in every record"
else
	fail "fragmentation_types: the split"
	echo "$bad" | head -n 8 | sed 's/^/# /'
fi

# ---- at rest ----
mm_phase "fragmentation at rest vs buddyinfo" 3 snap "$REST"
if [ -r "$EXTFRAG/unusable_index" ]; then
	mm_phase "fragmentation at rest vs debugfs extfrag" 3 extfrag_snap "$REST_IDX"
else
	fail "debugfs $EXTFRAG/unusable_index is readable (CONFIG_COMPACTION on every kernel of the matrix)"
fi

mm_phase "fragmentation_types at rest vs pagetypeinfo" 3 snap_types "$REST_TYPES"

# ---- under churn ----
churn_start "$CHURN_SECS" "$CHURN_MIB"
sleep 2
mm_phase "fragmentation under churn vs buddyinfo" 5 snap "$LOAD"
[ -r "$EXTFRAG/unusable_index" ] &&
	mm_phase "fragmentation under churn vs debugfs extfrag" 5 extfrag_snap "$LOAD_IDX"
mm_phase "fragmentation_types under churn vs pagetypeinfo" 5 snap_types "$LOAD_TYPES"
churn_stop
