#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# allocs: slab allocations by call site (docs/allocs.md).  The helper holds
# N kmalloc(S) objects from its one site allocs_fill(); aimed at the
# writing shell's pid, the table shows exactly N live objects, N x S
# requested bytes and N x the object size of the kmalloc cache S falls in
# (/proc/slabinfo's objsize) allocated, and 0 live after the helper frees them.  Bad knob writes
# change nothing, a disarmed table stops counting, a busybox applet
# aimed by comm shows up, 4 readers under churn are safe, and rmmod
# while armed is clean.  outstanding: the helper's objects only once
# older than the minimum age written, none after the free.  aim_module: only call sites in the helper's
# text, or in the kernel's brd.ko loaded after arming (one brd_device per
# ramdisk, against /sys/block; none live after rmmod).  Sampling (sample_bytes): the helper's N2 x S2
# bytes are estimated within 10 %, and 0 once freed.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

A=$MI_DIR/allocs
CG=/sys/fs/cgroup
cg_mounted=
N=5000
S=200

# at exit: allocs disarmed and unaimed, the helper's objects freed and
# the helper unloaded
allocs_cleanup()
{
	echo 0 > "$A/armed" 2>/dev/null
	echo 0 > "$A/aim_pid" 2>/dev/null
	echo > "$A/aim_comm" 2>/dev/null
	echo 0 > "$A/sample_bytes" 2>/dev/null
	echo > "$A/aim_module" 2>/dev/null
	echo > "$A/aim_cgroup" 2>/dev/null
	echo > "$A/aim_cache" 2>/dev/null
	echo 0 > "$A/pages" 2>/dev/null
	rm -rf /tmp/mi-dc
	rmdir "$CG/mi-allocs/sub" "$CG/mi-allocs" 2>/dev/null
	[ -n "$cg_mounted" ] && umount "$CG"
	rmmod brd 2>/dev/null
	helper_unload allocs
}
mi_setup allocs allocs_cleanup

require_file "$A/table"

# site_field FIELD: FIELD (1 live_objs .. 6 rate, 7 samples) of allocs_fill's row
site_field()
{
	awk -v f="$1" '/allocs_fill/ { print $f; n++ } END { if (!n) print "none" }' "$A/table"
}

# note_value FILE KEY: KEY's value in the table's "# allocs:" note
note_value()
{
	awk -v k="$2" '$1 == "#" && $2 == "allocs:" {
		for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$1"
}

# rejects KNOB VALUE [DESCRIPTION]: a write of VALUE to allocs/KNOB fails
rejects()
{
	if printf '%s' "$2" > "$A/$1" 2>/dev/null; then
		fail "$1 rejects ${3:-'$2'}"
	else
		ok "$1 rejects ${3:-'$2'}"
	fi
}

# rejects_all KNOB VALUE...: each write refused, and KNOB still reads 0
rejects_all()
{
	_ra_k=$1
	shift
	for _ra_v; do
		rejects "$_ra_k" "$_ra_v"
	done
	check_read "$_ra_k still 0" "$A/$_ra_k" 0
}

# ---- bad writes ----------------------------------------------------------------

rejects_all armed 2 -1 yes '1 1'
hs=$(cat "$A/hash_size")
for v in 1000 0 99999999 abc; do
	if echo "$v" > "$A/hash_size" 2>/dev/null; then
		fail "hash_size rejects $v"
	else
		ok "hash_size rejects $v"
	fi
done
check_read "hash_size unchanged" "$A/hash_size" "$hs"
rejects_all sample_bytes -1 abc 1073741825 '1 1'
echo 1 > "$A/armed"
if echo 4096 > "$A/hash_size" 2>/dev/null; then
	fail "hash_size is busy while armed"
else
	ok "hash_size is busy while armed"
fi
if echo 1 > "$A/aim_pid" 2>/dev/null; then
	fail "aim_pid is busy while armed"
else
	ok "aim_pid is busy while armed"
fi
check_read "aim_pid unchanged" "$A/aim_pid" 0
if echo 4096 > "$A/sample_bytes" 2>/dev/null; then
	fail "sample_bytes is busy while armed"
else
	ok "sample_bytes is busy while armed"
fi
echo 0 > "$A/armed"

# ---- exact counts at the helper's site -----------------------------------------

if ! insmod "$MI_TEST_KO"; then
	fail "insmod $MI_TEST_KO"
	exit 1
fi
ok "insmod $MI_TEST_KO"
# the kmalloc size class S falls in, from the kernel's own cache list, and
# that cache's object size (slabinfo's objsize, s->size, which the
# tracepoint reports as bytes_alloc): larger than the class where slub
# debugging adds red zones and tracking (the 6.1 lane's slub_debug=FZPU,
# the debug kernel: 512 for kmalloc-256 there)
set -- $(awk -v s="$S" '$1 ~ /^kmalloc-[a-z0-9-]*[0-9]+$/ && $1 !~ /k$/ {
	n = $1; sub(/.*-/, "", n); n += 0
	if (n >= s && (!best || n < best)) { best = n; obj = $4 }
} END { print best + 0, obj + 0 }' /proc/slabinfo)
class=$1 objsize=$2
check "kmalloc size class of $S from slabinfo ($class, objsize $objsize)" \
	[ "$class" -ge "$S" -a "$objsize" -ge "$class" ]

echo $$ > "$A/aim_pid"
echo 1 > "$A/armed"
echo "$N $S" > "$MI_TEST_DIR/allocs"
cat "$A/table" > "$T/t1"
diag "$(grep allocs_fill "$T/t1")"
check "live objects at allocs_fill = $N" [ "$(site_field 1)" = "$N" ]
check "live requested bytes = $N x $S" [ "$(site_field 2)" = $((N * S)) ]
check "live allocated bytes = $N x $objsize" [ "$(site_field 3)" = $((N * objsize)) ]
check "allocations = $N" [ "$(site_field 4)" = "$N" ]
check "samples = $N (exact)" [ "$(site_field 7)" = "$N" ]
check "the note says exact" [ "$(note_value "$T/t1" mode)" = exact ]
check "site symbolised in meminspect_test" grep -q 'allocs_fill+0x[0-9a-f]*/0x[0-9a-f]* \[meminspect_test\]' "$T/t1"
# the helper's kvcalloc(N, pointer): a kmalloc() inside kvmalloc, whose
# tracepoint names kvmalloc's code; the row is at kvmalloc's caller
check_eq "kvcalloc($N, 8): one live object of $((N * 8)) bytes at allocs_write, kvmalloc's caller" \
	"$(awk '$NF == "[meminspect_test]" && index($(NF - 1), "allocs_write+") == 1 { print $1, $2 }' "$T/t1")" \
	"1 $((N * 8))"
check "no row at kvmalloc's own code (kvmalloc_node, __kvmalloc_node_noprof)" \
	[ -z "$(awk '$NF ~ /^(__)?kvmalloc_node/' "$T/t1")" ]
# the cache column: the kmalloc cache the objects came from, read from
# their slabs; /proc/slabinfo's row of that name has their object size
cache=$(awk '/allocs_fill/ { print $8 }' "$T/t1")
objc=$(awk -v c="$cache" '$1 == c { print $4 }' /proc/slabinfo)
if [ "$(cap_available allocs.aim_cache)" = yes ]; then
	check "the site's cache $cache is a kmalloc cache, its slabinfo objsize $objc = $objsize" \
		[ "${cache#kmalloc-}" != "$cache" -a "$objc" = "$objsize" ]
	require_reader
	"$MI_READER" allocs --by cache > "$T/bc" 2>&1
	check "meminspect allocs --by cache: $cache's row has the helper's $N live objects or more ($(awk -v c="$cache" '$NF == c { print $1 }' "$T/bc"))" \
		[ "$(awk -v c="$cache" '$NF == c { print $1 }' "$T/bc")" -ge "$N" ]
else
	check "no slab_cache offset or cache list (allocs.aim_cache no): the cache column is '-'" \
		[ "$cache" = - ]
fi
# the reader's /proc/allocinfo layout of the same table (aim_pid keeps the
# reader's own allocations out): the kernel's header, "%12lli %8llu " lines,
# the helper's site with its live allocated bytes and live objects
require_reader
"$MI_READER" allocs --allocinfo > "$T/ai" 2>&1
diag "$(grep allocs_fill "$T/ai")"
check "meminspect allocs --allocinfo: allocinfo's version line first" \
	[ "$(sed -n 1p "$T/ai")" = "allocinfo - version: 1.0" ]
check "meminspect allocs --allocinfo: every site line in the kernel's '%12lli %8llu TAG func:NAME' form" \
	[ "$(tail -n +3 "$T/ai" | grep -cvE '^[ 0-9]{12} [ 0-9]{8} [^ ]+( \[[^]]+\])? func:[^ +]+$')" = 0 ]
check "meminspect allocs --allocinfo: allocs_fill's size $N x $objsize, calls $N, in [meminspect_test]" \
	[ "$(awk '/allocs_fill/ { print $1, $2, $4, $5 }' "$T/ai")" = "$((N * objsize)) $N [meminspect_test] func:allocs_fill" ]
check "no overflow" [ "$(note_value "$T/t1" site_overflow)$(note_value "$T/t1" obj_overflow)" = 00 ]
# outstanding: the live objects at least a minimum age old (written to
# the open file), with up to 4 addresses per site
outstanding()
{
	exec 3<> "$A/outstanding"
	[ -z "$1" ] || echo "$1" >&3
	cat <&3 > "$T/$2"
	exec 3>&-
}
out_row() { awk '/allocs_fill/' "$T/$1"; }
if printf 'x' > "$A/outstanding" 2>/dev/null; then
	fail "outstanding rejects a min age of 'x'"
else
	ok "outstanding rejects a min age of 'x'"
fi
outstanding 3600 o1
check "outstanding, min age 1 h: nothing at allocs_fill" [ -z "$(out_row o1)" ]
check "outstanding: the note names the min age" grep -q '^# outstanding: armed 1 mode exact min_age_s 3600 ' "$T/o1"
sleep 2
outstanding 1 o2
diag "$(out_row o2)"
set -- $(out_row o2)
check "outstanding, min age 1 s after 2 s: $N objects, $N x $S bytes at allocs_fill" \
	[ "$1 $2" = "$N $((N * S))" ]
check "outstanding: oldest at least 1 s" [ "${3:-0}" -ge 1 ]
check "outstanding: 4 addresses, lowercase hex" \
	sh -c "echo '$4' | grep -Eq '^0x[0-9a-f]+(,0x[0-9a-f]+){3}\$'"
echo 0 > "$MI_TEST_DIR/allocs"
outstanding 0 o3
check "outstanding after the free: nothing at allocs_fill" [ -z "$(out_row o3)" ]
check "0 live after the free" [ "$(site_field 1)" = 0 ]
check "0 live bytes after the free" [ "$(site_field 2)" = 0 ]
check "frees = $N" [ "$(site_field 5)" = "$N" ]

# disarmed: nothing counted any more
echo 0 > "$A/armed"
echo "$N $S" > "$MI_TEST_DIR/allocs"
check "disarmed: allocations unchanged" [ "$(site_field 4)" = "$N" ]
echo 0 > "$MI_TEST_DIR/allocs"
# arming resets
echo 1 > "$A/armed"
check "arming resets the table" [ "$(site_field 4)" = none ]
echo 0 > "$A/armed"
echo 0 > "$A/aim_pid"

# ---- aim_pid from inside a pid namespace: the writer's numbers ---------------------

# A container's reader writes the pids it sees: a shell that is pid 1 in a new pid
# namespace aims at itself, and its helper allocations count (a global compare would
# aim at the host's init and count none). A pid that names no process is refused.
rejects aim_pid 4194303 "a pid with no process (-EINVAL)"
if unshare -p -f true 2> /dev/null; then
	unshare -p -f sh -c 'echo $$ > "$1/aim_pid" && echo "pid $$" > "$3/nspid" &&
		echo 1 > "$1/armed" && echo "$4 $5" > "$2/allocs"; echo 0 > "$1/armed"' \
		sh "$A" "$MI_TEST_DIR" "$T" "$N" "$S"
	check_read "aim_pid: the namespace's shell was its pid 1" "$T/nspid" "pid 1"
	check_read "aim_pid reads back the number written in the namespace" "$A/aim_pid" 1
	check "aim_pid written in a pid namespace: its shell's $N allocations counted ($(site_field 4))" \
		[ "$(site_field 4)" = "$N" ]
	echo 0 > "$MI_TEST_DIR/allocs"
	echo 0 > "$A/aim_pid"
else
	skip "allocs: aim_pid from inside a pid namespace" "the kernel has no pid namespaces (CONFIG_PID_NS)"
fi

# ---- a target the suite did not write: busybox find by comm -----------------------

echo find > "$A/aim_comm"
echo 1 > "$A/armed"
find / -xdev > /dev/null 2>&1
echo 0 > "$A/armed"
rows=$(awk 'NR > 1 && !/^#/' "$A/table" | wc -l)
allocs=$(awk 'NR > 1 && !/^#/ { s += $4 } END { print s + 0 }' "$A/table")
diag "find: $rows sites, $allocs allocations"
check "find's allocations are counted" [ "$allocs" -gt 0 ]
check "no helper site under aim_comm=find" [ "$(site_field 4)" = none ]
echo > "$A/aim_comm"

# ---- page allocations (pages=1): the page allocator's tracepoints ------------------

# pg_row FILE FUNC: the row of FILE whose site is FUNC+off/size [meminspect_test]
pg_row()
{
	awk -v f="$2" '$NF == "[meminspect_test]" && index($(NF - 1), f "+") == 1' "$T/$1"
}
PK=$((MI_PAGE_KB * 1024))
P=300
Q=8
if [ "$(cap_available allocs.pages)" != yes ]; then
	skip "allocs: page allocations by call site" "$(cap_detail allocs.pages)"
else
	rejects_all pages 2 -1 x '1 1'
	echo $$ > "$A/aim_pid"
	echo 1 > "$A/pages"
	echo 1 > "$A/armed"
	rejects pages 0 "0 while armed (-EBUSY)"
	# the helper holds P order-0 pages (held_grow) and Q order-4 blocks
	# (pages_o4_set), each from its own alloc_pages() call
	# written by this shell itself: aim_pid is its pid
	if echo $P > "$MI_TEST_DIR/pages"; then
		ok "the helper holds $P pages"
	else
		fail "the helper holds $P pages"
	fi
	if echo $Q > "$MI_TEST_DIR/pages_o4"; then
		ok "the helper holds $Q order-4 blocks"
	else
		fail "the helper holds $Q order-4 blocks"
	fi
	cat "$A/table" > "$T/p1"
	diag "$(pg_row p1 held_grow)"
	diag "$(pg_row p1 pages_o4_set)"
	diag "$(grep '^# allocs:' "$T/p1")"
	check_eq "pages: held_grow's row: live, bytes, allocated bytes, allocs, cache" \
		"$(pg_row p1 held_grow | awk '{ print $1, $2, $3, $4, $8 }')" "$P $((P * PK)) $((P * PK)) $P (pages)"
	check_eq "pages: pages_o4_set's row: $Q order-4 blocks" \
		"$(pg_row p1 pages_o4_set | awk '{ print $1, $2, $4, $8 }')" "$Q $((Q * 16 * PK)) $Q (pages)"
	check_eq "pages: the note says pages 1" "$(note_value "$T/p1" pages)" 1
	echo 0 > "$MI_TEST_DIR/pages"
	echo 0 > "$MI_TEST_DIR/pages_o4"
	cat "$A/table" > "$T/p2"
	check_eq "pages: freed: held_grow 0 live, $P frees" \
		"$(pg_row p2 held_grow | awk '{ print $1, $2, $5 }')" "0 0 $P"
	check_eq "pages: freed: pages_o4_set 0 live, $Q frees" \
		"$(pg_row p2 pages_o4_set | awk '{ print $1, $2, $5 }')" "0 0 $Q"
	echo 0 > "$A/armed"
	echo 0 > "$A/aim_pid"
	# page_stack: callers kept past a page site, a row per site and
	# callers; the helper's held_grow() is called by pages_set(), called
	# by its file's write, mi_test_num_write()
	rejects_all page_stack 5 -1 x '1 1'
	echo $$ > "$A/aim_pid"
	echo 2 > "$A/page_stack"
	echo 1 > "$A/armed"
	rejects page_stack 0 "0 while armed (-EBUSY)"
	echo $P > "$MI_TEST_DIR/pages"
	cat "$A/table" > "$T/p4"
	echo 0 > "$MI_TEST_DIR/pages"
	cat "$A/table" > "$T/p5"
	echo 0 > "$A/armed"
	echo 0 > "$A/aim_pid"
	echo 0 > "$A/page_stack"
	diag "$(grep held_grow "$T/p4")"
	# a row's live count, then the functions of its site field
	stack_row() {
		awk '/^[0-9]/ && index($9, "held_grow+") == 1 {
			s = $1
			for (i = 9; i <= NF; i++) {
				f = $i
				if (f == "<" || f ~ /^\[/)
					continue
				sub(/\+.*/, "", f)
				s = s " " f
			}
			print s }' "$T/$1"
	}
	check_eq "page_stack 2: one row at held_grow, $P live, then its callers pages_set and mi_test_num_write" \
		"$(stack_row p4)" "$P held_grow pages_set mi_test_num_write"
	check "page_stack 2: every frame of that row in [meminspect_test]" \
		awk 'index($9, "held_grow+") == 1 { n = gsub(/\[meminspect_test\]/, "&"); f = 1 } END { exit !(f && n == 3) }' "$T/p4"
	check_eq "page_stack 2: the note says page_stack 2" "$(note_value "$T/p4" page_stack)" 2
	check_eq "page_stack 2: freed: the row 0 live" "$(stack_row p5)" "0 held_grow pages_set mi_test_num_write"
	# busybox dd by comm: its large kmalloc()s (7 x 20000 B through the
	# helper: order-3 pages) are counted once, by the kmalloc tracepoint
	# (live_bytes 140000, requested), never again by mm_page_alloc (a row
	# of 7 order-3 blocks requested); its writes into a pipe allocate the
	# pipe's pages in the pipe code
	# (page_stack 4: the pipe rows carry their callers, vfs_write among them)
	echo dd > "$A/aim_comm"
	echo 4 > "$A/page_stack"
	echo 1 > "$A/armed"
	echo "7 20000" > "$T/large"
	dd if="$T/large" of="$MI_TEST_DIR/allocs" 2> /dev/null
	dd if=/dev/zero bs=4096 count=64 2> /dev/null | cat > /dev/null
	cat "$A/table" > "$T/p3"
	echo 0 > "$MI_TEST_DIR/allocs"
	echo 0 > "$A/armed"
	echo > "$A/aim_comm"
	echo 0 > "$A/page_stack"
	echo 0 > "$A/pages"
	o3=$((7 * 8 * PK))
	diag "$(awk -v o3="$o3" '$2 == 140000 || $2 == o3' "$T/p3")"
	# a slab site's cache column is '-' where allocs.aim_cache says no (6.1-arm64)
	lc='(pages)'
	[ "$(cap_available allocs.aim_cache)" = yes ] || lc=-
	check_eq "pages, dd: one row of the 7 large kmallocs (140000 B requested, 7 allocs, $lc)" \
		"$(awk '$2 == 140000 { n++; a = $4; c = $8 } END { print n + 0, a, c }' "$T/p3")" "1 7 $lc"
	check_eq "pages, dd: no row counts their pages again (7 order-3 blocks requested)" \
		"$(awk -v o3="$o3" '$1 == 7 && $2 == o3' "$T/p3" | wc -l)" 0
	diag "$(awk '$8 == "(pages)" && $9 ~ /pipe/' "$T/p3")"
	check "pages, dd: a pipe function's row has dd's pipe pages" \
		[ "$(awk '$8 == "(pages)" && $9 ~ /pipe/ { s += $4 } END { print s + 0 }' "$T/p3")" -ge 1 ]
	check "page_stack 4, dd: a pipe row's callers include vfs_write" \
		awk '$8 == "(pages)" && $9 ~ /pipe/ && / < vfs_write[+]/ { f = 1 } END { exit !f }' "$T/p3"
fi

# ---- aim_cgroup: only tasks in a cgroup v2 (or below it) ---------------------------

ACG=$CG/mi-allocs
if ! awk -v cg="$CG" '$2 == cg && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts; then
	mkdir -p "$CG" && mount -t cgroup2 none "$CG" && cg_mounted=1
fi
if ! mkdir "$ACG" 2>/dev/null; then
	fail "allocs: aim_cgroup: mkdir $ACG (cgroup v2 at $CG)"
else
	for v in mi-allocs /no-such-cgroup "/$(printf '%0300d' 0)"; do
		rejects aim_cgroup "$v" "'$(printf '%.20s' "$v")' (${#v} bytes): relative, missing or too long"
	done
	check_read "aim_cgroup still empty" "$A/aim_cgroup" ''
	echo /mi-allocs > "$A/aim_cgroup"
	check_read "aim_cgroup reads back /mi-allocs" "$A/aim_cgroup" /mi-allocs
	echo 1 > "$A/armed"
	rejects aim_cgroup / "/ while armed (-EBUSY)"
	# the helper's N objects from a shell in the cgroup; freed from
	# outside it (frees count whatever the aim); then N more from outside
	# it, which must not count
	sh -c 'echo $$ > "$1/cgroup.procs" && echo "$2 $3" > "$4/allocs"' sh "$ACG" "$N" "$S" "$MI_TEST_DIR"
	check "aim_cgroup: the shell in the cgroup: $N live at allocs_fill" [ "$(site_field 1)" = "$N" ]
	check "aim_cgroup: $N x $S live requested bytes" [ "$(site_field 2)" = $((N * S)) ]
	echo 0 > "$MI_TEST_DIR/allocs"
	check "aim_cgroup: freed from outside the cgroup: 0 live, $N frees" [ "$(site_field 1)/$(site_field 5)" = "0/$N" ]
	echo "$N $S" > "$MI_TEST_DIR/allocs"
	check "aim_cgroup: allocations from outside the cgroup not counted (still $N)" [ "$(site_field 4)" = "$N" ]
	echo 0 > "$MI_TEST_DIR/allocs"
	# a target the suite did not write: busybox find in a child cgroup
	mkdir "$ACG/sub"
	echo 0 > "$A/armed"
	echo 1 > "$A/armed"
	sh -c 'echo $$ > "$1/cgroup.procs" && exec find / -xdev' sh "$ACG/sub" > /dev/null 2>&1
	echo 0 > "$A/armed"
	allocs=$(awk 'NR > 1 && !/^#/ { s += $4 } END { print s + 0 }' "$A/table")
	diag "find in /mi-allocs/sub: $allocs allocations"
	check "aim_cgroup: find's allocations in a cgroup below the aim are counted" [ "$allocs" -gt 0 ]
	check "aim_cgroup: no helper site (the helper was not used)" [ "$(site_field 4)" = none ]
	echo > "$A/aim_cgroup"
	check_read "aim_cgroup cleared" "$A/aim_cgroup" ''
	rmdir "$ACG/sub" "$ACG" 2>/dev/null
	# a container's cgroup as Docker names it under systemd: 91 bytes
	dk=/system.slice/docker-$(printf '%064x' 3054).scope
	if mkdir -p "$CG$dk" 2>/dev/null; then
		echo "$dk" > "$A/aim_cgroup"
		check_read "aim_cgroup takes a Docker scope's path (${#dk} bytes) and reads it back" \
			"$A/aim_cgroup" "$dk"
		echo 1 > "$A/armed"
		sh -c 'echo $$ > "$1/cgroup.procs" && exec find / -xdev' sh "$CG$dk" > /dev/null 2>&1
		echo 0 > "$A/armed"
		allocs=$(awk 'NR > 1 && !/^#/ { s += $4 } END { print s + 0 }' "$A/table")
		check "aim_cgroup: find's allocations in the Docker scope are counted ($allocs)" [ "$allocs" -gt 0 ]
		echo > "$A/aim_cgroup"
		rmdir "$CG$dk" "$CG/system.slice" 2>/dev/null
	else
		fail "allocs: aim_cgroup: mkdir -p $CG$dk"
	fi
fi

# ---- aim_cache: only objects of one cache, read from each object's slab -------------

# sites_sum FIELD: FIELD summed over every site of the table
sites_sum()
{
	awk -v f="$1" 'NR > 1 && !/^#/ { s += $f } END { print s + 0 }' "$A/table"
}

if [ "$(cap_available allocs.aim_cache)" != yes ]; then
	skip "allocs: aim_cache" "capabilities: allocs.aim_cache: $(cap_detail allocs.aim_cache)"
	# the answer checked: where the row says no, a name is refused
	rejects aim_cache dentry "a cache name where allocs.aim_cache says no"
else
	for v in no-such-cache "$(printf '%070d' 0)" 'two words'; do
		rejects aim_cache "$v" "'$(printf '%.20s' "$v")' (${#v} bytes): no such cache, too long or not a name"
	done
	check_read "aim_cache still empty" "$A/aim_cache" ''
	# the helper's own cache: nothing else allocates from it (test_slabs.sh);
	# made at the first slab_objs write
	HC=meminspect_test_obj
	echo 0 > "$MI_TEST_DIR/slab_objs"
	echo "$HC" > "$A/aim_cache"
	check_read "aim_cache reads back $HC" "$A/aim_cache" "$HC"
	echo 1 > "$A/armed"
	rejects aim_cache dentry "dentry while armed (-EBUSY)"
	echo "$N" > "$MI_TEST_DIR/slab_objs"
	echo "$N $S" > "$MI_TEST_DIR/allocs"
	got="$(sites_sum 1)/$(sites_sum 4)"
	check "aim_cache $HC: $N objects held from the cache: live/allocs over all sites $got, want $N/$N" \
		[ "$got" = "$N/$N" ]
	# allocated bytes: the cache's s->size, slabinfo's objsize, as the
	# tracepoint's bytes_alloc says (not kmem_cache_size(): the object)
	hsz=$(awk -v c="$HC" '$1 == c { print $4 }' /proc/slabinfo)
	check_eq "aim_cache $HC: live allocated bytes over all sites = $N x slabinfo's objsize ($hsz)" \
		"$(sites_sum 3)" "$((N * ${hsz:-0}))"
	check "aim_cache $HC: the helper's kmalloc($S)s (another cache) not counted" \
		[ "$(site_field 4)" = none ]
	check "aim_cache $HC: every site's cache column is $HC" \
		[ -z "$(awk -v c="$HC" 'NR > 1 && !/^#/ && $8 != c' "$A/table")" ]
	echo 0 > "$MI_TEST_DIR/allocs"
	echo 0 > "$MI_TEST_DIR/slab_objs"
	got="$(sites_sum 1)/$(sites_sum 5)"
	check "aim_cache $HC: released: live/frees $got, want 0/$N" [ "$got" = "0/$N" ]
	echo 0 > "$A/armed"
	# a target the suite did not write: busybox touch making 200 new
	# dentries; every site counted allocates dentries (the d_alloc family).
	# One touch for the 200 files: 200 of them cost 18 s of the debug
	# lane's CPU in fork and exec, none of it the dentries' (5 Dec 2026).
	echo dentry > "$A/aim_cache"
	mkdir -p /tmp/mi-dc
	files=
	i=0
	while [ $i -lt 200 ]; do
		i=$((i + 1))
		files="$files /tmp/mi-dc/f$i"
	done
	echo 1 > "$A/armed"
	# shellcheck disable=SC2086
	touch $files
	echo 0 > "$A/armed"
	live=$(sites_sum 1)
	other=$(awk 'NR > 1 && !/^#/ && $NF !~ /d_alloc/ { print $NF }' "$A/table" | head -n 3)
	diag "touch of 200 files, aim_cache dentry: $live live dentries at $(awk 'NR > 1 && !/^#/' "$A/table" | wc -l) sites"
	check "aim_cache dentry: 200 new files, at least 200 live dentries counted ($live)" [ "$live" -ge 200 ]
	check "aim_cache dentry: every site is in the d_alloc family (${other:-all})" [ -z "$other" ]
	check "aim_cache dentry: every site's cache column is dentry" \
		[ -z "$(awk 'NR > 1 && !/^#/ && $8 != "dentry"' "$A/table")" ]
	rm -rf /tmp/mi-dc
	echo > "$A/aim_cache"
	check_read "aim_cache cleared" "$A/aim_cache" ''
fi

# ---- aim_module: the injector's module aim, at the helper and at brd -----------------

if [ "$(cap_available fault.aim_module)" != yes ]; then
	skip "allocs: aim_module" "capabilities: fault.aim_module: $(cap_detail fault.aim_module)"
else
	for v in 'a b' "$(printf '%070d' 0)" 'x/y'; do
		rejects aim_module "$v"
	done
	check_read "aim_module still empty" "$A/aim_module" ''
	echo meminspect_test > "$A/aim_module"
	echo 1 > "$A/armed"
	rejects aim_module brd "brd while armed (-EBUSY)"
	echo "$N $S" > "$MI_TEST_DIR/allocs"
	find / -xdev > /dev/null 2>&1
	cat "$A/table" > "$T/t3"
	check "aim_module=meminspect_test: $N live at allocs_fill" [ "$(site_field 1)" = "$N" ]
	check "aim_module=meminspect_test: every site in [meminspect_test]" \
		[ "$(awk 'NR > 1 && !/^#/ && !/\[meminspect_test\]$/' "$T/t3" | wc -l)" = 0 ]
	echo 0 > "$MI_TEST_DIR/allocs"
	echo 0 > "$A/armed"

	# a module the suite did not write, not loaded when arming: brd
	DRIVERS=${MI_DRIVERS:-/meminspect/drivers}
	st=$(cat "$DRIVERS/status" 2> /dev/null)
	if [ "$st" != ready ]; then
		# absent: the kernel has no brd module; anything else is the guest's set-up
		case $st in
		absent*) skip "allocs: aim_module=brd" "no brd.ko: $st" ;;
		*) fail "allocs: aim_module=brd: brd.ko in the guest (${st:-no $DRIVERS/status})" ;;
		esac
	else
		rmmod brd 2> /dev/null
		echo brd > "$A/aim_module"
		echo 1 > "$A/armed"
		insmod "$DRIVERS/brd.ko" rd_nr=3 rd_size=1024
		dd if=/dev/zero of=/dev/ram0 bs=4096 count=16 2> /dev/null
		cat "$A/table" > "$T/t4"
		diag "$(grep '\[brd\]' "$T/t4" | head -n 4)"
		disks=$(ls -d /sys/block/ram* 2> /dev/null | wc -l)
		check "aim_module=brd: sites counted, every one in [brd]" \
			[ "$(awk 'NR > 1 && !/^#/' "$T/t4" | wc -l)" -gt 0 -a \
			  "$(awk 'NR > 1 && !/^#/ && !/\[brd\]$/' "$T/t4" | wc -l)" = 0 ]
		# brd_alloc() (inlined into brd_init on some kernels) holds one
		# struct brd_device per ramdisk: a site of brd's with that many live
		check "aim_module=brd: a brd_* site holds one object per ramdisk in /sys/block ($disks)" \
			[ "$(awk -v d="$disks" '$NF == "[brd]" && $(NF - 1) ~ /^brd_/ && $1 == d' "$T/t4" | wc -l)" -ge 1 ]
		rmmod brd
		check "aim_module=brd: nothing live after rmmod brd" \
			[ "$(awk 'NR > 1 && !/^#/ { s += $1 } END { print s + 0 }' "$A/table")" = 0 ]
		echo 0 > "$A/armed"
	fi
	echo > "$A/aim_module"
fi

# ---- churn: 4 readers while the helper allocates and frees and we re-arm ------

# 10 rounds, 5 under KASAN (the debug lane): system-wide exact tracking of
# every allocation of the four readers costs 90 s for 20 there, and 12 s of
# CPU for 20 on the 6.1 lane (5 Dec 2026: scripts/tap-clock).
rounds=10
mi_kasan && rounds=5
echo 1 > "$A/armed"
for i in 1 2 3 4; do
	( while :; do cat "$A/table" > /dev/null 2>&1; done ) &
	pids="$pids $!"
done
i=0
while [ "$i" -lt "$rounds" ]; do
	echo "2000 64" > "$MI_TEST_DIR/allocs"
	echo 0 > "$MI_TEST_DIR/allocs"
	echo 1 > "$A/armed"
	i=$((i + 1))
done
kill $pids 2>/dev/null
wait 2>/dev/null
pids=
# system-wide (no aim): the helper's site is still exact
echo "1000 64" > "$MI_TEST_DIR/allocs"
check "system-wide after $rounds rounds of churn with 4 readers: 1000 live at allocs_fill" [ "$(site_field 1)" = 1000 ]
echo 0 > "$MI_TEST_DIR/allocs"
check "system-wide after churn: 0 live after the free" [ "$(site_field 1)" = 0 ]
echo 0 > "$A/armed"

# ---- sampling: one in B bytes, system-wide ------------------------------------
# Each of the helper's N2 objects of S2 < B bytes is followed with
# probability p = S2/B, independently, and counts as B bytes: the estimate
# is B x K, K ~ Binomial(N2, p), mean N2 x S2.  With N2 p = 3125 samples the
# relative standard deviation is sqrt((1 - p) / (N2 p)) = 1.7 %, so a miss
# of 10 % is 6 sigma (about 2e-9); Chernoff's bound, 2 exp(-0.1^2 N2 p / 3),
# caps it at 6e-5 whatever the normal approximation says.  (N2 = 25000: the
# 6.1 lane's TCG guest makes about 20000 kmallocs a second at this site.)
N2=25000
S2=200
B=1600
echo "$B" > "$A/sample_bytes"
echo 1 > "$A/armed"
echo "$N2 $S2" > "$MI_TEST_DIR/allocs"
cat "$A/table" > "$T/t2"
diag "$(grep allocs_fill "$T/t2")"
diag "$(grep '^# allocs:' "$T/t2")"
check "the note says sampled, one in $B bytes" \
	[ "$(note_value "$T/t2" mode) $(note_value "$T/t2" sample_bytes)" = "sampled $B" ]
k=$(site_field 7)
check "some but not all objects sampled ($k of $N2)" [ "$k" -gt 0 -a "$k" -lt "$N2" ]
check_within "sampled live bytes ~ $N2 x $S2 (10 %)" "$(site_field 2)" $((N2 * S2)) $((N2 * S2 / 10))
check_within "sampled live objects ~ $N2 (10 %)" "$(site_field 1)" "$N2" $((N2 / 10))
check_within "sampled live allocated bytes ~ $N2 x $objsize (10 %)" "$(site_field 3)" \
	$((N2 * objsize)) $((N2 * objsize / 10))
check "sampled live bytes = $B x samples" [ "$(site_field 2)" = $((B * k)) ]
echo 0 > "$MI_TEST_DIR/allocs"
check "sampled: 0 live after the free" [ "$(site_field 1)" = 0 ]
check "sampled: 0 live bytes after the free" [ "$(site_field 2)" = 0 ]
echo 0 > "$A/armed"
echo 0 > "$A/sample_bytes"
check_read "sample_bytes back to 0 (exact)" "$A/sample_bytes" 0

# ---- rmmod while armed ---------------------------------------------------------

echo 1 > "$A/armed"
cat "$A/table" > /dev/null
check "rmmod + insmod while armed" mi_reload
check_read "armed is 0 after reload" "$A/armed" 0

