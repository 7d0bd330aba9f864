#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# latency/: the armed knob rejects bad writes and changes nothing; armed, a
# cgroup v2 with a small memory.max reading the kernel's own brd ramdisk
# (page cache charged to it) stalls in memcg reclaim, and the direct
# reclaim count equals /proc/vmstat's allocstall_* delta over the same
# window; order-4 allocations of the helper module, with free memory held
# down and what is left fragmented by progs/frag, stall in direct
# compaction: the count equals compact_stall's delta, and the stallers
# table names the writer; disarmed, the counts stop (no probe left
# attached, none in the kernel's kprobes list); armed and disarmed 25 times
# while two loops stall in memcg reclaim, no task stalls longer than the
# window was armed; rmmod while armed and stalling.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

L=$MI_DIR/latency
CG=/sys/fs/cgroup
DRIVERS=${MI_DRIVERS:-/meminspect/drivers}
KPROBES=$MI_DEBUGFS/kprobes/list
cg_mounted=
frag_pid=
proactive=
boost=
PA=
T=
R=
cleanup()
{
	echo 0 > "$L/armed" 2> /dev/null
	[ -n "$frag_pid" ] && kill "$frag_pid" 2> /dev/null && wait "$frag_pid" 2> /dev/null
	helper_unload pages_o4 pages
	[ -n "$proactive" ] && echo "$proactive" > /proc/sys/vm/compaction_proactiveness
	[ -n "$boost" ] && echo "$boost" > /proc/sys/vm/watermark_boost_factor
	[ -n "$T" ] && rm -rf "$T"
	[ -n "$PA" ] && rm -rf "$PA"
	[ -n "$R" ] && rm -rf "$R"
	# shellcheck disable=SC2086
	[ -n "$hog_pids" ] && kill $hog_pids 2> /dev/null && wait $hog_pids 2> /dev/null
	[ -d "$CG/mi-lat" ] && rmdir "$CG/mi-lat" 2> /dev/null
	[ -d "$CG/mi-lat-c" ] && rmdir "$CG/mi-lat-c" 2> /dev/null
	[ -n "$cg_mounted" ] && umount "$CG"
	rmmod brd 2> /dev/null
	mi_restore
}
hog_pids=
trap cleanup EXIT
trap 'exit 143' TERM INT

eq()
{
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1"
		diag "$1: got '$2', want '$3'"
	fi
}

require_file "$L/armed" || exit 0
PA=$(mi_tmpdir latpa)
# field KIND COLUMN: a column of the histograms file (docs/format.md)
field()
{
	awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$L/histograms"
}
# the sum of /proc/vmstat's counters whose name matches the regex (0 where
# none does: a kernel without CONFIG_VM_EVENT_COUNTERS)
vmstat_sum()
{
	awk -v re="$1" '$1 ~ re { s += $2 } END { print s + 0 }' /proc/vmstat
}
allocstall()
{
	vmstat_sum '^allocstall'
}
compact_stall()
{
	vmstat_sum '^compact_stall$'
}
# pages the page allocator handed out (every zone's pgalloc_*), and the
# same as latency/page_alloc counts them: each order's fast + slow - failed
# allocations times 2^order
pgalloc()
{
	vmstat_sum '^pgalloc_'
}
# direct compaction's successes: each hands out a page, and one it captured
# (a block freed by the compaction run itself, taken before it reaches the
# free lists: "mm, compaction: capture a page under direct compaction",
# v5.1) never passed rmqueue(), so pgalloc_* did not count it
compact_success()
{
	vmstat_sum '^compact_success$'
}
# the largest order latency/page_alloc saw take the slow path (where a
# captured page can come from), 0 where none did
slow_max_order()
{
	awk 'NR > 1 && !/^#/ && $3 > 0 { o = $1 } END { print o + 0 }' "$L/page_alloc"
}
traced_pages()
{
	awk 'NR > 1 && !/^#/ { p = 1; for (i = 0; i < $1; i++) p *= 2; s += ($2 + $3 - $4) * p }
		END { print s + 0 }' "$L/page_alloc"
}
# pa ORDER COLUMN [FILE]: a column of latency/page_alloc
pa()
{
	awk -v o="$1" -v c="$2" 'NR > 1 && $1 == o { print $c }' "${3:-$L/page_alloc}"
}
# the page allocator's slow path as kallsyms names it (GCC may clone it)
# (the names the module tries, not GCC's .cold parts: 7.3 lists
# __alloc_pages_slowpath.constprop.0.cold first)
SLOW=$(awk '$3 ~ /^__alloc_pages_slowpath(\.constprop\.0|\.isra\.0)?$/ { print $3; exit }' /proc/kallsyms)

eq "latency: disarmed at load" "$(cat "$L/armed")" 0
for bad in 2 -1 x 01x; do
	if printf '%s' "$bad" > "$L/armed" 2> /dev/null; then
		fail "latency: armed rejects '$bad'"
	else
		ok "latency: armed rejects '$bad'"
	fi
done
eq "latency: bad writes left it disarmed" "$(cat "$L/armed")" 0

echo 1 > "$L/armed"
eq "latency: armed" "$(cat "$L/armed")" 1
echo 1 > "$L/armed"
eq "latency: arming twice keeps it armed" "$(cat "$L/armed")" 1
echo 0 > "$L/armed"
pg0=$(pgalloc)
csucc0=$(compact_success)
echo 1 > "$L/armed"
eq "latency: arming resets direct_reclaim" "$(field direct_reclaim 2)" 0
eq "latency: arming resets memcg_reclaim" "$(field memcg_reclaim 2)" 0
eq "latency: arming resets direct_compaction" "$(field direct_compaction 2)" 0
eq "latency: arming resets stallers" "$(grep -vc '^#' "$L/stallers")" 1
# page_alloc right after arming: the orders the buddy allocator has, counts
# of a moment (the guest allocates all the time)
norders=$(awk '$1 == "Node" { print NF - 4; exit }' /proc/buddyinfo)
eq "latency: page_alloc has a record per order (buddyinfo's $norders)" \
	"$(awk 'NR > 1 && !/^#/ { n++ } END { print n + 0 }' "$L/page_alloc")" "$norders"
eq "latency: histograms has a page_alloc_slow_order_N record per order" \
	"$(grep -c '^page_alloc_slow_order_' "$L/histograms")" "$norders"
# the capability: yes with the slow path kallsyms names, else no saying why
if [ "$(cap_available latency.page_alloc)" = yes ]; then
	d=$(cap_detail latency.page_alloc)
	check "latency: page_alloc capability names kallsyms' slow path ($SLOW)" \
		[ -n "$SLOW" -a "${d#*kretprobe on "$SLOW",}" != "$d" ]
	if [ -r "$KPROBES" ]; then
		check "latency: armed, $SLOW is in the kprobes list" grep -q "$SLOW" "$KPROBES"
	fi
elif [ -z "$SLOW" ]; then
	d=$(cap_detail latency.page_alloc)
	check "latency: page_alloc capability says the slow path is not in kallsyms" \
		[ "${d#*no __alloc_pages_slowpath in kallsyms}" != "$d" ]
else
	fail "latency: page_alloc unavailable although kallsyms has $SLOW: $(cap_detail latency.page_alloc)"
fi
before=$(allocstall)
cs0=$(compact_stall)

# -- memcg reclaim: page cache of the brd ramdisk in a 16 MiB cgroup ----------
st=$(cat "$DRIVERS/status" 2> /dev/null)
if [ "$(cap_available latency.memcg_reclaim)" != yes ]; then
	skip "latency: memcg reclaim stalls" "$(cap_detail latency.memcg_reclaim)"
elif [ "$st" != ready ]; then
	skip "latency: memcg reclaim stalls" "${st:-no $DRIVERS/status}"
else
	if memcg_brd mi-lat; then
		sh -c "echo \$\$ > $CG/mi-lat/cgroup.procs &&
			dd if=/dev/ram0 of=/dev/null bs=1M count=128 2> /dev/null"
		n=$(field memcg_reclaim 2)
		check "latency: memcg reclaim stalls counted ($n)" [ "${n:-0}" -gt 0 ]
		# the bucket counts add up to the events
		b=$(field memcg_reclaim 5 | tr , '\n' | awk '{ s += $1 } END { print s + 0 }')
		eq "latency: memcg_reclaim buckets sum to its events" "$b" "$n"
		s=$(field memcg_reclaim 3)
		check "latency: memcg_reclaim sum_ns is positive" [ "${s:-0}" -gt 0 ]
		rmdir "$CG/mi-lat"
	else
		fail "latency: brd and a cgroup with memory.max for the memcg workload"
	fi
fi

# -- direct compaction: order-4 blocks of the helper, memory fragmented ------
# Free memory is held down by the helper's order-0 pages but for what frag
# maps (FRAG MiB) and a margin of the zones' high watermarks and 24 MiB
# (THP's min_free_kbytes puts DMA32's at about 66 MiB in the 1 GiB guest;
# frag maps all of its memory before it gives any back).  Frag gives back
# every other page, so what stays free is the margin and FRAG / 2 MiB of
# order-0 holes, which keep the zone above its low watermark once the
# margin's blocks are taken, so that compaction is not skipped for want of
# free pages.  The helper then holds order-4 blocks (GFP_KERNEL, a costly
# order: compaction is tried first), first all but 24 MiB of the margin,
# then 4 MiB more per write, until compact_stall has moved or the blocks
# reach the margin plus three quarters of frag's holes (FRAG * 3 / 8 MiB).
# kcompactd compacts too, in the background, and what it merges is taken
# without a stall: watermark boosting (watermark_boost_factor, which wakes
# kswapd and then kcompactd on every fallback of a block to another
# migratetype) is off for the phase, and the blocks may go on past what
# kcompactd merged (a CI run stopped at a quarter of the holes, no stall).
# Each write is a dd (in the cgroup mi-lat-c when the cgroup2 tree is
# mounted), whose pid the stallers table must name.
FRAG=192
MARGIN=$(($(awk '$1 == "high" { s += $2 } END { print s + 0 }' /proc/zoneinfo) / 256 + 24))
cs1=
if [ "$(cap_available latency.direct_compaction)" != yes ]; then
	skip "latency: direct compaction stalls" "$(cap_detail latency.direct_compaction)"
elif ! grep -q '^compact_stall ' /proc/vmstat; then
	# the debug kernel: compact_stall is a vm event
	skip "latency: direct compaction stalls" \
		"no compact_stall in /proc/vmstat (kernel built without CONFIG_VM_EVENT_COUNTERS): nothing to count the stalls against"
elif ! insmod "$MI_TEST_KO"; then
	fail "latency: insmod $MI_TEST_KO"
else
	T=$(mi_tmpdir lat)
	t00=$(cut -d. -f1 /proc/uptime)
	if [ -w /proc/sys/vm/compaction_proactiveness ]; then
		proactive=$(cat /proc/sys/vm/compaction_proactiveness)
		echo 0 > /proc/sys/vm/compaction_proactiveness
	fi
	if [ -w /proc/sys/vm/watermark_boost_factor ]; then
		boost=$(cat /proc/sys/vm/watermark_boost_factor)
		echo 0 > /proc/sys/vm/watermark_boost_factor
	fi
	echo 3 > /proc/sys/vm/drop_caches
	free=$(meminfo MemFree)
	hold=$(((free - (FRAG + MARGIN) * 1024) / 4))
	[ "$hold" -gt 0 ] && echo "$hold" > "$MI_TEST_DIR/pages"
	"$ST_DIR/progs/frag" "$FRAG" > "$T/frag.out" 2> "$T/frag.err" &
	frag_pid=$!
	# up to 300 s while frag lives (the test's own timeout is 600): frag maps
	# and frees FRAG MiB a page at a time, which a guest starved beside the
	# other lanes did not finish in 60 s (6.12-arm64, a nice-10 run)
	if ! wait_line "$T/frag.out" ready "$frag_pid" 3000; then
		fail "latency: frag $FRAG did not get ready: $(cat "$T/frag.err")"
	else
		diag "latency: MemFree $free kB, margin $MARGIN MiB, held $hold pages, frag $(cat "$T/frag.out"), MemFree now $(meminfo MemFree) kB"
		cg=
		if awk -v cg="$CG" '$2 == cg && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts &&
			mkdir "$CG/mi-lat-c" 2> /dev/null; then
			cg=$CG/mi-lat-c
		fi
		cs1=$(compact_stall)
		ev1=$(field direct_compaction 2)
		n=$(((MARGIN - 24) * 16 - 64))
		max=$(((MARGIN + FRAG * 3 / 8) * 16))
		kd1=$(vmstat_sum '^compact_daemon_wake$')
		: > "$T/pids"
		t0=$(cut -d. -f1 /proc/uptime)
		while [ $n -lt $max ] && [ "$(compact_stall)" -eq "$cs1" ]; do
			n=$((n + 64))
			echo $n > "$T/n"
			if [ -n "$cg" ]; then
				sh -c "echo \$\$ > $cg/cgroup.procs &&
					exec dd if=$T/n of=$MI_TEST_DIR/pages_o4 2> /dev/null" &
			else
				dd if="$T/n" of="$MI_TEST_DIR/pages_o4" 2> /dev/null &
			fi
			echo $! >> "$T/pids"
			wait $! || break
		done
		cs2=$(compact_stall)
		ev2=$(field direct_compaction 2)
		diag "latency: $(cat "$MI_TEST_DIR/pages_o4") order-4 blocks held in $(($(cut -d. -f1 /proc/uptime) - t0)) s, compact_stall +$((cs2 - cs1)), kprobes: $(grep -c try_to_compact_pages "$KPROBES" 2> /dev/null)"
		check "latency: direct compaction stalls happened ($((cs2 - cs1)))" [ $((cs2 - cs1)) -gt 0 ]
		if [ $((cs2 - cs1)) -eq 0 ]; then
			diag "latency: compact_daemon_wake +$(($(vmstat_sum '^compact_daemon_wake$') - kd1)), MemFree $(meminfo MemFree) kB, buddyinfo:"
			sed 's/^/# /' /proc/buddyinfo
		fi
		eq "latency: direct_compaction events = compact_stall delta (workload)" \
			$((ev2 - ev1)) $((cs2 - cs1))
		b=$(field direct_compaction 5 | tr , '\n' | awk '{ s += $1 } END { print s + 0 }')
		eq "latency: direct_compaction buckets sum to its events" "$b" "$ev2"
		s=$(field direct_compaction 3)
		check "latency: direct_compaction sum_ns is positive" [ "${s:-0}" -gt 0 ]
		eq "latency: direct_compaction unpaired (kretprobe misses)" "$(field direct_compaction 4)" 0
		if [ -r "$KPROBES" ]; then
			check "latency: armed, try_to_compact_pages is in the kprobes list" \
				grep -q try_to_compact_pages "$KPROBES"
		fi
		# the stallers table: a writer's pid, comm dd and its cgroup's id
		awk 'NR > 1 && !/^#/' "$L/stallers" > "$T/st"
		row=$(awk 'NR == FNR { p[$1] = 1; next } ($1 in p) && $5 == "dd" { print; exit }' \
			"$T/pids" "$T/st")
		check "latency: stallers names a dd writer ($row)" [ -n "$row" ]
		if [ -n "$cg" ] && [ -n "$row" ]; then
			eq "latency: stallers' cgroup_id is mi-lat-c's inode" \
				"$(echo "$row" | cut -d' ' -f2)" "$(stat -c %i "$cg")"
		fi
		check "latency: stallers sorted by stall_ns" \
			awk '$4 > prev && NR > 1 { bad = 1 } { prev = $4 } END { exit bad }' "$T/st"
		eq "latency: stallers overflow is 0 ($(grep '^# overflow' "$L/stallers"))" \
			"$(awk '/^# overflow:/ { print $4 }' "$L/stallers")" 0
	fi
	kill "$frag_pid" 2> /dev/null
	wait "$frag_pid" 2> /dev/null
	frag_pid=
	helper_unload pages_o4 pages
	[ -n "$cg" ] && rmdir "$cg"
	[ -n "$boost" ] && echo "$boost" > /proc/sys/vm/watermark_boost_factor
	boost=
	diag "latency: direct compaction phase $(($(cut -d. -f1 /proc/uptime) - t00)) s"
fi

# -- page allocations of known orders: the helper's, counted by order -------
if [ "$(cap_available latency.page_alloc)" != yes ] && [ -n "$SLOW" ]; then
	skip "latency: page_alloc counts the helper's allocations" "$(cap_detail latency.page_alloc)"
elif ! insmod "$MI_TEST_KO"; then
	fail "latency: insmod $MI_TEST_KO"
else
	cat "$L/page_alloc" > "$PA/pa1"
	echo "pages 0 20000" > "$MI_TEST_DIR/fault_alloc"
	echo "pages 3 2000" > "$MI_TEST_DIR/fault_alloc"
	cat "$L/page_alloc" > "$PA/pa2"
	for o in 0 3; do
		want=20000
		[ $o = 3 ] && want=2000
		d=$(($(pa $o 2 "$PA/pa2") + $(pa $o 3 "$PA/pa2") - $(pa $o 4 "$PA/pa2") -
			$(pa $o 2 "$PA/pa1") - $(pa $o 3 "$PA/pa1") + $(pa $o 4 "$PA/pa1")))
		check "latency: page_alloc order $o counted the helper's $want allocations ($d)" [ "$d" -ge "$want" ]
	done
	rm -f "$PA/pa1" "$PA/pa2"
	helper_unload
fi

cs_end=$(compact_stall)
echo 0 > "$L/armed"
pg_end=$(pgalloc)
csucc_end=$(compact_success)
after=$(allocstall)
# the debug kernel: no CONFIG_VM_EVENT_COUNTERS, no pgalloc_* (nor
# allocstall_*, compact_stall) in /proc/vmstat: nothing to compare with
vmevents=
grep -q '^pgalloc_' /proc/vmstat && vmevents=yes
if [ -n "$vmevents" ]; then
	# a direct reclaim still running at the disarm (khugepaged's, under
	# TCG) is in allocstall but has no end while armed: 7.3 saw 1 event
	# against 2; so events may not exceed the delta, and a delta means events
	dr=$(field direct_reclaim 2)
	diag "latency: direct_reclaim events $dr, allocstall delta $((after - before))"
	check "latency: direct_reclaim events ($dr) <= allocstall delta ($((after - before))), > 0 where it is" \
		[ "$dr" -le $((after - before)) -a \( $((after - before)) -eq 0 -o "$dr" -gt 0 \) ]
	eq "latency: direct_compaction events = compact_stall delta (armed window)" \
		"$(field direct_compaction 2)" $((cs_end - cs0))
else
	skip "latency: direct_reclaim and direct_compaction events = the vmstat deltas" \
		"no allocstall_* or compact_stall in /proc/vmstat (kernel built without CONFIG_VM_EVENT_COUNTERS)"
fi
eq "latency: disarmed" "$(cat "$L/armed")" 0
# the armed window's page allocations against the kernel's pgalloc_*: not
# more than the pages it handed out (alloc_pages_bulk(), vmalloc's, hands
# out pages without the tracepoint: not counted), and the pages direct
# compaction captured, which pgalloc_* never saw: at most one block of the
# largest slow order per compact_success (cc9, 5.10: 310820 pages traced,
# pgalloc +310754, 14 compaction stalls of order 4)
tp=$(traced_pages)
if [ -n "$vmevents" ]; then
	captured=$(((csucc_end - csucc0) << $(slow_max_order)))
	check "latency: page_alloc's pages ($tp) within [1, the armed window's pgalloc delta $((pg_end - pg0)) + captured at most $captured]" \
		[ "$tp" -ge 1 -a "$tp" -le $((pg_end - pg0 + captured)) ]
	diag "latency: page_alloc counted $tp pages, pgalloc moved $((pg_end - pg0)), compact_success $((csucc_end - csucc0)) (bulk allocations are not traced, captured pages not in pgalloc)"
else
	skip "latency: page_alloc's pages within the armed window's pgalloc delta" \
		"no pgalloc_* in /proc/vmstat (kernel built without CONFIG_VM_EVENT_COUNTERS): nothing to count the pages against"
fi
# the slow path: as many as the histograms' lines, whose buckets sum to
# them, and at least one per compaction or direct reclaim stall (both
# happen only inside it)
bad=$(awk -v f="$L/histograms" 'NR > 1 && !/^#/ { slow[$1] = $3 }
	END {
		while ((getline l < f) > 0) {
			n = split(l, a, " ")
			if (a[1] !~ /^page_alloc_slow_order_/) continue
			o = substr(a[1], 23); m = split(a[5], b, ","); s = 0
			for (i = 1; i <= m; i++) s += b[i]
			if (s != a[2] || a[2] != slow[o]) print o ": slow " slow[o] ", events " a[2] ", buckets " s
		}
	}' "$L/page_alloc")
eq "latency: page_alloc slow = page_alloc_slow_order_N events = its buckets' sum" "$bad" ""
slow=$(awk 'NR > 1 && !/^#/ { s += $3 } END { print s + 0 }' "$L/page_alloc")
un=$(field page_alloc_slow_order_0 4)
stalls=$(max $((cs_end - cs0)) $((after - before)))
if [ "$(cap_available latency.page_alloc)" != yes ]; then
	skip "latency: page_alloc slow path taken where compaction or reclaim stalled" "$(cap_detail latency.page_alloc)"
elif [ -z "$vmevents" ]; then
	skip "latency: page_alloc slow path taken where compaction or reclaim stalled" \
		"no compact_stall or allocstall_* in /proc/vmstat (kernel built without CONFIG_VM_EVENT_COUNTERS)"
else
	# one slow path may stall several times (it retries compaction and
	# reclaim: 6.12-rt saw 3 stalls in 2 slow paths), so only: a stall
	# means a slow path
	check "latency: page_alloc slow ($slow) + unpaired ($un) >= 1 where compaction or reclaim stalled ($stalls)" \
		[ "$stalls" -eq 0 -o $((slow + ${un:-0})) -ge 1 ]
fi
if [ -r "$KPROBES" ] && [ -n "$SLOW" ]; then
	eq "latency: disarmed, no probe on $SLOW in the kprobes list" "$(grep -c "$SLOW" "$KPROBES")" 0
fi
cp "$L/page_alloc" "$PA/pa3"
echo 1 > /proc/sys/vm/drop_caches
eq "latency: disarmed, page_alloc counts nothing" "$(cat "$L/page_alloc")" "$(cat "$PA/pa3")"
rm -f "$PA/pa3"
if [ -r "$KPROBES" ]; then
	eq "latency: disarmed, no probe on try_to_compact_pages in the kprobes list" \
		"$(grep -c try_to_compact_pages "$KPROBES")" 0
fi

# memcg_max NAME: memory.events' max of the cgroup NAME, the times a charge
# found it at memory.max and reclaimed (the kernel's count of our workloads'
# memcg reclaim entries; 0 where the file or the line is missing)
memcg_max()
{
	awk '$1 == "max" { print $2; f = 1 } END { if (!f) print 0 }' \
		"$CG/$1/memory.events" 2> /dev/null || echo 0
}
# the workloads below need brd and a memory cgroup: a kernel without them
# skips, one with them whose workload does not start fails
memcg_ok=
if [ "$(cap_available latency.memcg_reclaim)" != yes ]; then
	skip "latency: memcg workloads (disarmed, re-armed, rmmod)" "$(cap_detail latency.memcg_reclaim)"
elif [ "$st" != ready ]; then
	skip "latency: memcg workloads (disarmed, re-armed, rmmod)" "brd: ${st:-no $DRIVERS/status}"
else
	memcg_ok=1
fi

# disarmed: nothing attached, so a memcg stall now is not counted
n0=$(field memcg_reclaim 2)
if [ -z "$memcg_ok" ]; then
	:
elif [ -z "$n0" ]; then
	fail "latency: histograms has a memcg_reclaim line"
elif ! mkdir "$CG/mi-lat"; then
	fail "latency: disarmed, memcg workload: mkdir $CG/mi-lat"
else
	echo $((16 << 20)) > "$CG/mi-lat/memory.max"
	echo 1 > /proc/sys/vm/drop_caches
	m0=$(memcg_max mi-lat)
	sh -c "echo \$\$ > $CG/mi-lat/cgroup.procs &&
		dd if=/dev/ram0 of=/dev/null bs=1M count=128 2> /dev/null"
	m1=$(memcg_max mi-lat)
	rmdir "$CG/mi-lat"
	check "latency: disarmed, the workload reclaimed at memory.max (memory.events max +$((m1 - m0)))" \
		[ "$m1" -gt "$m0" ]
	eq "latency: disarmed, memcg stalls are not counted" "$(field memcg_reclaim 2)" "$n0"
fi

# hogs N: N loops reading the ramdisk in the cgroup mi-lat, each in memcg
# reclaim most of the time; their pids in $hog_pids
hogs()
{
	_h=0
	while [ $_h -lt "$1" ]; do
		sh -c "echo \$\$ > $CG/mi-lat/cgroup.procs &&
			while :; do dd if=/dev/ram0 of=/dev/null bs=1M count=128 2> /dev/null; done" &
		hog_pids="$hog_pids $!"
		_h=$((_h + 1))
	done
}
hogs_stop()
{
	# shellcheck disable=SC2086
	[ -n "$hog_pids" ] && kill $hog_pids 2> /dev/null && wait $hog_pids 2> /dev/null
	hog_pids=
	# a killed loop's last dd may still be finishing inside the cgroup
	_h=0
	while ! rmdir "$CG/mi-lat" 2> /dev/null && [ $_h -lt 100 ]; do
		_h=$((_h + 1))
		mi_nap 0.1
	done
}

# re-armed while tasks stall: each arming must pair only the begins and ends
# it saw, so no task stalls longer than the window was armed (a task is in
# one stall at a time).  The window is measured around the knob's writes in
# /proc/uptime's hundredths, plus one for its rounding.  RE windows, each
# checked on its own (arming zeroes the tables); the kernel's memory.events
# max must move and the windows must have counted memcg stalls, else the
# bound proves nothing.
RE=25
if [ -z "$memcg_ok" ]; then
	:
elif ! mkdir "$CG/mi-lat"; then
	fail "latency: re-armed memcg workload: mkdir $CG/mi-lat"
else
	R=$(mi_tmpdir latre)
	echo $((16 << 20)) > "$CG/mi-lat/memory.max"
	m0=$(memcg_max mi-lat)
	hogs 2
	: > "$R/bad"
	w=0 ev=0 longest=0 armed_cs=0
	while [ $w -lt $RE ]; do
		w=$((w + 1))
		mi_uptime_cs
		t0=$MI_UP_CS
		echo 1 > "$L/armed"
		mi_nap 0.3
		echo 0 > "$L/armed"
		mi_uptime_cs
		armed_cs=$((armed_cs + MI_UP_CS - t0))
		lim=$(((MI_UP_CS - t0 + 1) * 10000000))
		awk -v lim="$lim" -v w="$w" 'NR > 1 && !/^#/ && $4 > lim {
			print "window " w " (" lim " ns): pid " $1 " (" $5 ") stalled " $4 " ns in " $3 " stalls" }' \
			"$L/stallers" >> "$R/bad"
		# the longest stall's bucket [2^i, 2^(i+1)) starts within the window
		awk -v lim="$lim" -v w="$w" '$1 ~ /^(direct_reclaim|memcg_reclaim|direct_compaction)$/ {
			n = split($5, b, ","); while (n > 0 && b[n] == 0) n--
			lo = 1; for (i = 1; i < n; i++) lo *= 2
			if (n > 0 && lo > lim) print "window " w " (" lim " ns): a " $1 " stall of at least " lo " ns" }' \
			"$L/histograms" >> "$R/bad"
		ev=$((ev + $(field memcg_reclaim 2)))
		longest=$(awk -v m="$longest" 'NR > 1 && !/^#/ && $4 > m { m = $4 } END { print m }' "$L/stallers")
	done
	m1=$(memcg_max mi-lat)
	hogs_stop
	diag "latency: $RE windows, armed $armed_cs hundredths of a second in all (arming and disarming wait for RCU): $ev memcg reclaim stalls, memory.events max +$((m1 - m0)), longest task total $longest ns"
	check "latency: re-armed, the hogs reclaimed at memory.max (memory.events max +$((m1 - m0)))" \
		[ "$m1" -gt "$m0" ]
	check "latency: re-armed $RE times, memcg stalls counted ($ev)" [ "$ev" -gt 0 ]
	check_none "latency: re-armed $RE times while tasks stall: no task stalled longer than its window" \
		"$(cat "$R/bad")"
	rm -rf "$R"
fi

# rmmod while armed, with memcg stalls in flight: the exit detaches first
if [ -z "$memcg_ok" ]; then
	:
elif ! mkdir "$CG/mi-lat"; then
	fail "latency: rmmod memcg workload: mkdir $CG/mi-lat"
else
	echo $((16 << 20)) > "$CG/mi-lat/memory.max"
	echo 1 > "$L/armed"
	hogs 1
	# until the first stall is counted: the exit must meet one in flight
	i=0
	while [ "$(field memcg_reclaim 2)" = 0 ] && [ $i -lt 300 ]; do
		i=$((i + 1))
		mi_nap 0.1
	done
	check "latency: armed, the background workload stalls ($(field memcg_reclaim 2) memcg reclaims)" \
		[ "$(field memcg_reclaim 2)" -gt 0 ]
	check "latency: rmmod while armed and stalling" mi_reload
	hogs_stop
	eq "latency: reloaded module is disarmed" "$(cat "$L/armed")" 0
fi
