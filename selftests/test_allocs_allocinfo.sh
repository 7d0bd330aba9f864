#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# allocs against the kernel's own per-call-site counts, /proc/allocinfo
# (CONFIG_MEM_ALLOC_PROFILING, v6.10: the debug lane; Debian's kernels do not
# build it and skip).  One window: allocs armed system-wide and exact (pages
# too where the allocs.pages row says yes), then profiling turned on, allocinfo
# read, a workload (the helper's N kmalloc(S) and P pages; F files with long
# names written in a tmpfs), allocinfo and the table read again.  allocinfo's
# counters move only while profiling is on and a free is subtracted only from
# an object tagged when allocated, so its change over the window is what was
# allocated in it and is still live: the table's live figures exactly.
#
# Compared by function (allocinfo's func:NAME per source line, the table's
# %pS symbol per offset, each summed), both ways: every one of allocinfo's
# 20 largest growths agrees with the table within 10 % in bytes and in live
# objects (at least 16 KiB and 16 objects: the arming gap), or is a function
# the kernel inlined (no /proc/kallsyms symbol: the table names the caller
# it was inlined into) or one of the documented kinds allocs cannot see at
# that name (below, docs/allocs.md); every one of the table's 20 largest
# rows agrees with allocinfo, or is something allocinfo does not tag or
# charges elsewhere.  The helper's two sites and the files' dentries must be
# among the compared, at least 5 of 64 KiB or more; the totals agree within
# 10 %.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

A=$MI_DIR/allocs
AI=/proc/allocinfo
PROF=/proc/sys/vm/mem_profiling
N=5000
S=200
P=300
F=1000
TOP=20
# the tolerance: 10 %, and at least SLACK bytes and SLACK_N objects (small
# objects allocated in the gap between arming and profiling on)
SLACK=16384
SLACK_N=16
# at least 5 of allocinfo's TOP that grew by FLOOR or more must be compared
FLOOR=65536
prof_was=
fs_mounted=
fc_pid=

allocinfo_cleanup()
{
	[ -n "$fc_pid" ] && kill "$fc_pid" 2>/dev/null
	echo 0 > "$MI_TEST_DIR/allocs" 2>/dev/null
	echo 0 > "$MI_TEST_DIR/pages" 2>/dev/null
	rm -rf "$T/fs/"* 2>/dev/null
	[ -n "$prof_was" ] && echo "$prof_was" > "$PROF"
	echo 0 > "$A/armed" 2>/dev/null
	echo 0 > "$A/pages" 2>/dev/null
	[ -n "$hs_was" ] && echo "$hs_was" > "$A/hash_size" 2>/dev/null
	[ -n "$fs_mounted" ] && umount "$T/fs"
	helper_unload allocs pages
}
mi_setup allocinfo allocinfo_cleanup

if [ ! -r "$AI" ] || [ ! -e "$PROF" ]; then
	skip "allocs agrees with /proc/allocinfo" \
		"kernel built without CONFIG_MEM_ALLOC_PROFILING (no $AI)"
	exit 0
fi
# Read-only: booted with sysctl.vm.mem_profiling=never, or built not on by
# default and booted without sysctl.vm.mem_profiling=0 (scripts/lib.sh gives
# the lanes' kernels that option).
if [ ! -w "$PROF" ] || ! cat "$PROF" > "$T/prof" 2>/dev/null; then
	skip "allocs agrees with /proc/allocinfo" \
		"$PROF read-only: profiling not supported on this boot (sysctl.vm.mem_profiling=0 on the command line)"
	exit 0
fi
require_file "$A/table"

if ! insmod "$MI_TEST_KO"; then
	fail "insmod $MI_TEST_KO"
	exit 1
fi
ok "insmod $MI_TEST_KO"
mkdir -p "$T/fs"
if mount -t tmpfs -o size=64m mi-allocinfo "$T/fs"; then
	fs_mounted=1
	ok "tmpfs for the workload's files"
else
	fail "tmpfs for the workload's files"
	exit 1
fi

# The table and both allocinfo readings are copied by progs/fcopy, one
# process started (and warmed up: its buffer touched, a first copy made)
# before the window and fed through a FIFO, so that nothing forks at either
# edge of the window.  With `cat` each reading held that cat's own pages,
# and the shell, running on before its child exec'd, copied pages of its own
# on write (folio_prealloc); how many differed between the two allocinfo
# readings with the scheduling (folio_prealloc +5 pages, allocs none live:
# one debug-lane run in five).  Not the shell's own read: it takes a byte
# a read(), 3 s an allocinfo reading on the debug lane.  Both FIFOs are opened read-write here, so neither open waits
# for fcopy; an answer is waited for 120 s at most.
if ! mkfifo "$T/fc-cmd" "$T/fc-ack"; then
	fail "mkfifo for progs/fcopy"
	exit 1
fi
"$ST_DIR/progs/fcopy" "$T/fc-cmd" "$T/fc-ack" &
fc_pid=$!
exec 7<> "$T/fc-cmd" 8<> "$T/fc-ack"
fcopy()
{
	_fc=
	echo "$1 $2" >&7 && read -t 120 -r _fc <&8 && [ "$_fc" = ok ] && return 0
	fail "progs/fcopy $1 -> $2: ${_fc:-no answer in 120 s}"
	exit 1
}
fcopy "$AI" "$T/ai-warm"

# Armed before profiling goes on: the tables allocs preallocates at arming
# are never tagged (a module unloaded with tagged bytes outstanding WARNs).
hs_was=$(cat "$A/hash_size")
echo 262144 > "$A/hash_size"
pages=0
[ "$(cap_available allocs.pages)" = yes ] && pages=1
echo $pages > "$A/pages"
prof=$(cat "$T/prof")
echo 1 > "$A/armed"
prof_was=$prof
echo 1 > "$PROF"
fcopy "$AI" "$T/ai0"

# the workload: N kmalloc(S) at allocs_fill, P pages at held_grow, and F
# files whose 60-byte names need external dentry names, each with a page
echo "$N $S" > "$MI_TEST_DIR/allocs"
echo $P > "$MI_TEST_DIR/pages"
i=0
while [ $i -lt $F ]; do
	echo x > "$T/fs/meminspect-allocinfo-comparison-file-with-a-long-name-$i"
	i=$((i + 1))
done

# The table read by fcopy, which had its pages before the window: a reader
# started now would have its own (folio_prealloc, page tables) live in the
# table and in neither of allocinfo's readings.
fcopy "$A/table" "$T/table"
fcopy "$AI" "$T/ai1"
# What was allocated in the window is freed in it: a free after profiling
# is off is not subtracted, and the helper would be unloaded with tagged
# bytes outstanding.
echo 0 > "$MI_TEST_DIR/allocs"
echo 0 > "$MI_TEST_DIR/pages"
rm -f "$T/fs/"*
echo "$prof_was" > "$PROF"
prof_was=
echo 0 > "$A/armed"

check "allocs: no overflow during the window (site_overflow 0, obj_overflow 0)" \
	awk '$1 == "#" && $2 == "allocs:" {
		for (i = 3; i < NF; i += 2) v[$i] = $(i + 1)
		f = 1 } END { exit !(f && v["site_overflow"] == 0 && v["obj_overflow"] == 0) }' "$T/table"

# Per function and module: allocinfo's change (bytes, calls) and the
# table's live figures; "key bytes calls" lines.
awk '
function key(f, m) { return f "|" m }
FILENAME == ARGV[1] || FILENAME == ARGV[2] {
	if ($1 !~ /^-?[0-9]+$/) next
	m = ""; f = $4
	if ($4 ~ /^\[.*\]$/) { m = substr($4, 2, length($4) - 2); f = $5 }
	sub(/^func:/, "", f)
	s = FILENAME == ARGV[1] ? -1 : 1
	b[key(f, m)] += s * $1; c[key(f, m)] += s * $2
	next
}
{
	if ($1 == "#" || $1 !~ /^[0-9]+$/) next
	f = $9; sub(/\+.*/, "", f)
	m = ""
	if (NF >= 10 && $10 ~ /^\[.*\]$/) m = substr($10, 2, length($10) - 2)
	tb[key(f, m)] += $3; tc[key(f, m)] += $1
}
END {
	for (k in b) if (b[k] != 0 || c[k] != 0) print "ai", k, b[k], c[k]
	for (k in tb) print "mi", k, tb[k], tc[k]
}' "$T/ai0" "$T/ai1" "$T/table" > "$T/both"

# What allocinfo leaves out by design (lib/alloc_tag.c, mm/slub.c): its own
# per-slab tag vectors (alloc_slab_obj_exts(), __GFP_NO_OBJ_EXT) and caches
# made SLAB_NOLEAKTRACE (kmemleak's metadata, __alloc_object() and the
# functions it may be inlined from); allocs counts them as any allocation.
ai_blind=" alloc_slab_obj_exts __alloc_object __create_object mem_pool_alloc "
awk -v blind="$ai_blind" '$1 == "mi" { f = $2; sub(/[|].*/, "", f); if (index(blind, " " f " ")) print }' \
	"$T/both" > "$T/blind"
sum() { awk -v w="$1" '$1 == w { s += $3 } END { print s + 0 }' "$2"; }
ai_total=$(sum ai "$T/both")
mi_total=$(($(sum mi "$T/both") - $(sum mi "$T/blind")))
diag "window totals: allocinfo +$ai_total bytes, allocs $mi_total bytes live" \
	"besides $(sum mi "$T/blind") bytes allocinfo does not tag"

# allocinfo's TOP largest growths, with the table's figures where it has the key
sort -k3,3nr "$T/both" | awk -v top=$TOP '$1 == "ai" && $3 > 0 && n < top { print; n++ }' > "$T/top"
awk 'NR == FNR { if ($1 == "mi") { b[$2] = $3; c[$2] = $4 }; next }
	{ print $2, $3, $4, ($2 in b) ? b[$2] : "-", ($2 in b) ? c[$2] : "-" }' \
	"$T/both" "$T/top" > "$T/cmp"
diag "allocinfo's $TOP largest growths: function|module, bytes, calls; allocs: bytes, live"
while read -r line; do
	diag "  $line"
done < "$T/cmp"
diag "allocs' $TOP largest: function|module, bytes, live"
sort -k3,3nr "$T/both" | awk -v top=$TOP '$1 == "mi" && n < top { print $2, $3, $4; n++ }' > "$T/mitop"
while read -r line; do
	diag "  $line"
done < "$T/mitop"

# within A B SLACK: |A - B| <= max(10 % of |B|, SLACK) (lib.sh's
# is_within and tol_of).  The slack: what can be allocated between arming
# and profiling on and stay live (an allocation by another task, a stack
# depot pool of 4 pages), or between profiling on and allocinfo's first
# reading, a page or an object or two.
within() { is_within "$1" "$2" "$2" "$(tol_of "$2" "$3" 10)"; }
agree() { within "$1" "$2" $SLACK && within "$3" "$4" $SLACK_N; }

# kinds allocs cannot see under allocinfo's name (docs/allocinfo.md, docs/allocs.md "Against
# /proc/allocinfo"): code that passes its caller's address to the
# tracepoint (kmalloc_track_caller(): kstrdup(), kmemdup() ...), and bulk
# allocations (kmem_cache_alloc_bulk(), alloc_pages_bulk(): no per-object
# event)
passes_caller=" kstrdup kstrndup kmemdup kmemdup_nul kvasprintf kvasprintf_const krealloc krealloc_noprof kvrealloc kvrealloc_noprof kmalloc_reserve __alloc_skb devm_kmalloc "
# (vmalloc's pages: alloc_thread_stack_node(), a vmalloc'd kernel stack)
bulk=" mas_alloc_nodes mt_alloc_bulk mas_preallocate alloc_pages_bulk_array_mempolicy __vmalloc_area_node vm_area_alloc_pages alloc_thread_stack_node "
# allocations made through a _noprof call with no tag of their own, which
# allocinfo charges to the allocation that caused them (the stack depot's
# pool pages, from KASAN's and kmemleak's stack saving); allocs names the
# code that made them
charged=" stack_depot_save_flags "
kallsyms_has() { awk -v f="$1" '$3 == f { found = 1; exit } END { exit !found }' /proc/kallsyms; }
# records in flight: under CONFIG_SLUB_RCU_DEBUG (v6.12, "slub: introduce
# CONFIG_SLUB_RCU_DEBUG", on by default with KASAN: the debug lane) every
# free of a SLAB_TYPESAFE_BY_RCU object (a struct file, since v6.7) kmallocs
# a record in slab_free_hook() that slab_free_after_rcu_debug() frees one
# grace period later.  Live only while in flight, their count is the frees of
# the last grace period at the moment of each reading (the table's and
# allocinfo's are not the same moment: 10 and 20 seen), and allocinfo tags
# them at slab_free_hook, inlined into the free functions allocs names.
in_flight=
kallsyms_has slab_free_after_rcu_debug &&
	in_flight=" kfree kmem_cache_free kmem_cache_free_bulk "

# allocinfo's TOP: each in the table within 10 % (SLACK, SLACK_N at
# least), or a documented kind
compared=0
while read -r k ab ac mb mc; do
	f=${k%%|*}
	if [ "$mb" != - ]; then
		[ "$ab" -lt $FLOOR ] || compared=$((compared + 1))
		check "allocinfo $k: +$ab bytes, +$ac live; allocs $mb bytes, $mc live" \
			agree "$mb" "$ab" "$mc" "$ac"
		continue
	fi
	# the records in flight again, from allocinfo's side: a count of one
	# moment's frees (23 live at HZ=100, cc26), not of the window's
	# allocations; allocs has them under the free functions, at its own moment
	if [ -n "$in_flight" ] && [ "$f" = slab_free_hook ]; then
		diag "not compared: allocinfo $k: +$ab bytes, +$ac live, CONFIG_SLUB_RCU_DEBUG's records in flight (allocs: the free functions)"
		continue
	fi
	if [ "$ab" -le $SLACK ]; then
		check "allocinfo $k: +$ab bytes, +$ac live; allocs none, within $SLACK" \
			agree 0 "$ab" 0 "$ac"
		continue
	fi
	case "$passes_caller" in *" $f "*)
		diag "not compared: $k passes its caller's address to the tracepoint (track_caller)"
		continue ;;
	esac
	case "$bulk" in *" $f "*)
		diag "not compared: $k allocates in bulk (no per-object tracepoint)"
		continue ;;
	esac
	if ! kallsyms_has "$f"; then
		diag "not compared: $k was inlined (no symbol; allocs names its caller)"
		continue
	fi
	fail "allocinfo $k: +$ab bytes, +$ac live; allocs has no row at $f"
done < "$T/cmp"

check "the helper's kmalloc site allocs_fill is among allocinfo's $TOP and compared" \
	awk '$1 == "allocs_fill|meminspect_test" && $4 != "-" { f = 1 } END { exit !f }' "$T/cmp"
if [ $pages = 1 ]; then
	check "the helper's page site held_grow is among allocinfo's $TOP and compared" \
		awk '$1 == "held_grow|meminspect_test" && $4 != "-" { f = 1 } END { exit !f }' "$T/cmp"
fi
check "the files' dentries (__d_alloc) are among allocinfo's $TOP and compared" \
	awk '$1 == "__d_alloc|" && $4 != "-" { f = 1 } END { exit !f }' "$T/cmp"
check "at least 5 of allocinfo's $TOP of $FLOOR bytes or more compared ($compared)" [ "$compared" -ge 5 ]

# the other way: each of allocs' TOP largest rows is allocinfo's too, or
# something allocinfo does not tag or charges elsewhere
while read -r k mb mc; do
	f=${k%%|*}
	case "$ai_blind" in *" $f "*)
		diag "allocs $k: $mb bytes allocinfo does not tag"
		continue ;;
	esac
	set -- $(awk -v k="$k" '$1 == "ai" && $2 == k { print $3, $4 }' "$T/both")
	if [ $# = 2 ]; then
		check "allocs $k: $mb bytes, $mc live; allocinfo +$1, +$2" agree "$mb" "$1" "$mc" "$2"
		continue
	fi
	case "$in_flight" in *" $f "*)
		diag "not compared: allocs $k: $mb bytes, $mc live, CONFIG_SLUB_RCU_DEBUG's records in flight (allocinfo: slab_free_hook)"
		continue ;;
	esac
	if [ "$mb" -le $SLACK ]; then
		check "allocs $k: $mb bytes, $mc live; allocinfo none, within $SLACK" agree "$mb" 0 "$mc" 0
		continue
	fi
	case "$charged" in *" $f "*)
		diag "allocs $k: $mb bytes allocinfo charges to the allocations that caused them"
		continue ;;
	esac
	fail "allocs $k: $mb bytes, $mc live; allocinfo has nothing at $f"
done < "$T/mitop"
check "totals: allocs $mi_total bytes, allocinfo $ai_total (10 %)" \
	[ "$(diff_abs "$mi_total" "$ai_total")" -le $((ai_total / 10)) ]
