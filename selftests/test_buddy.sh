#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# buddy against /proc/pagetypeinfo (every list below its 100000 cap, and
# pageblocks per migratetype) and /proc/buddyinfo (per-order sums over the
# migratetypes), at rest and while churn runs; plus the file's own
# consistency and its walk note: each zone walked once per read, whatever
# the reader's buffer.  Tolerances: docs/tests.md.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"

CHURN_MIB=${CHURN_MIB:-64} CHURN_SECS=${CHURN_SECS:-120}
REST="order_[0-9]+:32:2 pageblocks:2:1 nr_free_[0-9]+:32:2"
LOAD="order_[0-9]+:256:10 pageblocks:8:2 nr_free_[0-9]+:256:10"

mm_setup buddy

require_file "$MI_DIR/buddy"

# ---- format and consistency, from one frozen copy ----
buddy_snap
orders=$(order_fields order_ "$T/b1")
check_header "buddy: header has the fields of docs/buddy.md, one order_N per order ($(awk -v s="$orders" 'BEGIN { print split(s, a, " ") }'))" \
	"$T/buddy" "node zone migratetype pageblocks $orders free_pages"

pb_cap=$(cap_available buddy.pageblocks)
bad=$(awk -v pb="$pb_cap" 'NR == 1 { n = NF; next }
	/^#/ { next }
	NF != n { print "line " NR ": " NF " values, header has " n; next }
	{
		if (pb == "yes" ? $4 !~ /^[0-9]+$/ : $4 != "-")
			print "line " NR ": pageblocks \"" $4 "\" with buddy.pageblocks " pb
		pages = 0
		p2 = 1	# busybox awk has no "^"
		for (i = 5; i < NF; i++) {
			if ($i !~ /^[0-9]+$/)
				print "line " NR ": field " i " is \"" $i "\""
			pages += $i * p2
			p2 *= 2
		}
		if (pages != $NF)
			print "line " NR ": free_pages " $NF ", sum of blocks << order " pages
	}' "$T/buddy" || echo "awk failed")
if [ -z "$bad" ]; then
	ok "buddy: every record has one value per field, free_pages = sum of order_N << N, pageblocks as capabilities says ($pb_cap)"
else
	fail "buddy: record format"
	echo "$bad" | head -n 5 | sed 's/^/# /'
fi

# migratetypes: those of pagetypeinfo, in the kernel's order, for every zone
ours=$(awk 'NR > 1 && !/^#/ { print $1 "/" $2 "/" $3 }' "$T/buddy" | tr '\n' ' ')
theirs=$(awk '/^Free pages count/ { s = 1; next } /^$/ { s = 0 }
	s && /^Node/ { n = $2; sub(/,/, "", n); z = $4; sub(/,/, "", z)
		print n "/" z "/" $6 }' "$T/p1" | tr '\n' ' ')
if [ "$ours" = "$theirs" ]; then
	ok "buddy: rows are pagetypeinfo's node/zone/migratetype lists, same names, same order"
else
	fail "buddy: migratetype rows"
	diag "buddy: $ours"
	diag "pagetypeinfo: $theirs"
fi

none_unstable()
{
	[ "$1" -eq 0 ] && ! grep -q '^# unstable' "$2"
}

not_loaded()
{
	! mi_loaded
}

# the walk note: nothing unstable at rest, holds bounded by the budget
check_walk()
{
	_f=$1 _what=$2 _allow_unstable=$3
	walk_note "$_f" && walk_get budget || { fail "$_what: has a '# walk:' note"; return; }
	_budget=$WV
	walk_get entries; _entries=$WV
	walk_get holds; _holds=$WV
	walk_get longest_hold_entries; _longest=$WV
	walk_get retries; _retries=$WV
	walk_get unstable; _unstable=$WV
	walk_get zones; _zones=$WV
	walk_get lists; _lists=$WV
	# the second of zoneinfo_walk's figures: the populated zones
	_zw=$(zoneinfo_walk 0)
	_zw=${_zw#* } _zw=${_zw%% *}
	# one list per record and order: order_N are the fields from the 5th to the last but one
	_rl=$(awk 'NR == 1 { k = NF - 5 } NR > 1 && !/^#/ { r++ } END { print r * k }' "$_f")
	_sum=$(awk 'NR > 1 && !/^#/ { for (i = 5; i < NF; i++) s += $i } END { printf "%d\n", s }' "$_f")
	diag "$_what: $WALK_NOTE"
	check "$_what: zones walked ($_zones) = populated zones in /proc/zoneinfo ($_zw): each once" \
		[ "$_zones" = "$_zw" ]
	check "$_what: longest hold walked $_longest entries, within the budget $_budget" \
		[ "$_longest" -le "$_budget" ]
	if [ "$_retries" -eq 0 ]; then
		check "$_what: entries walked ($_entries) = blocks reported ($_sum): no retry, each block counted once" \
			[ "$_entries" -eq "$_sum" ]
		check "$_what: lists walked ($_lists) = one per zone, migratetype and order ($_rl): no retry, each list walked once" \
			[ "$_lists" -eq "$_rl" ]
	else
		check "$_what: entries walked ($_entries) >= blocks reported ($_sum) with $_retries retries" \
			[ "$_entries" -ge "$_sum" ]
	fi
	check "$_what: holds ($_holds) >= entries / budget" \
		[ "$_holds" -ge $((_entries / _budget)) ]
	walk_get total_hold_ns; _total=$WV
	walk_get longest_hold_ns; _longest_ns=$WV
	check "$_what: total hold time ($_total ns) >= the longest hold ($_longest_ns ns)" \
		[ "$_total" -ge "$_longest_ns" ]
	# what a hold is: the kernel says whether it is PREEMPT_RT (/sys/kernel/realtime, 1 on
	# RT kernels, absent elsewhere), where zone->lock sleeps and IRQs stay on
	walk_get hold; _kind=$WV
	_want=irqs_off
	_rt=
	[ -e /sys/kernel/realtime ] && mi_read _rt /sys/kernel/realtime
	[ "$_rt" = 1 ] && _want=preemptible
	check "$_what: the note says a hold is '$_kind' (kernel: $_want)" [ "$_kind" = "$_want" ]
	if [ "$_allow_unstable" = no ]; then
		check "$_what: no order unstable (unstable $_unstable, no '# unstable' note)" \
			none_unstable "$_unstable" "$_f"
	else
		_notes=$(grep -c '^# unstable' "$_f")
		check "$_what: one '# unstable' note per unstable order ($_unstable)" \
			[ "$_notes" -eq "$_unstable" ]
	fi
}
check_walk "$T/buddy" "buddy walk at rest" no

# one walk of each zone per read, whatever the reader's buffer: seq_file
# shows a node again when its records overflow its buffer, from the kept
# walk (module/zone_walk.h); 64 bytes per read() as whole, the same rows
read_small "$MI_DIR/buddy" "$T/buddy64"
check_walk "$T/buddy64" "buddy read 64 bytes per read()" no
rows() { awk 'NR > 1 && !/^#/ { print $1, $2, $3 }' "$1"; }
check "buddy read 64 bytes per read(): the same rows (node, zone, migratetype) as read whole" \
	[ "$(rows "$T/buddy")" = "$(rows "$T/buddy64")" ]
zw=$(zoneinfo_walk 0)
zw=${zw#* } zw=${zw%% *}
for how in whole small; do
	if [ $how = whole ]; then
		cat "$MI_DIR/fragmentation_types" > "$T/ft" 2>&1
	else
		read_small "$MI_DIR/fragmentation_types" "$T/ft"
	fi
	check_eq "fragmentation_types read $how: zones walked = populated zones in /proc/zoneinfo ($zw)" \
		"$(walk_figures "$T/ft" zones)" "$zw"
done

[ "$pb_cap" = yes ] || {
	REST=$(echo "$REST" | sed 's/pageblocks:2:1//')
	LOAD=$(echo "$LOAD" | sed 's/pageblocks:8:2//')
	skip "buddy: pageblocks against pagetypeinfo" "$(cap_detail buddy.pageblocks)"
}

# ---- at rest ----
mm_phase "buddy at rest" 3 buddy_snap "$REST"

mi_lockdown_stop "walk_budget's range"
# ---- walk_budget's range, at rest: nothing here needs the churn, which under
# KASAN took ~30 s of the debug lane's CPU while these nine loads ran beside it
for arg in walk_budget=0 walk_budget=-1 walk_budget=abc walk_budget=100001 \
	walk_budget=1048576 walk_budget=99999999999999999999 walk_budget=; do
	if mi_reload "$arg" 2>/dev/null; then
		fail "insmod $arg is refused"
	else
		check "insmod $arg is refused, module not loaded" not_loaded
	fi
done
if mi_reload walk_budget=100000; then
	got=$(cat /sys/module/meminspect/parameters/walk_budget)
	check "walk_budget=100000 (the highest): parameter reads $got" [ "$got" = 100000 ]
else
	fail "insmod walk_budget=100000 (the highest)"
fi
check "module reloaded with the default budget before the churn" mi_reload

# ---- under churn ----
churn_start "$CHURN_SECS" "$CHURN_MIB"
sleep 2
mm_phase "buddy under churn" 5 buddy_snap "$LOAD"
check_walk "$T/buddy" "buddy walk under churn" yes

# ---- the resume path: a budget far below the list lengths ----
SMALL=16
if mi_reload walk_budget=$SMALL; then
	got=$(cat /sys/module/meminspect/parameters/walk_budget)
	check "walk_budget=$SMALL: parameter reads $got" [ "$got" = "$SMALL" ]
	mm_phase "buddy budget $SMALL under churn" 5 buddy_snap "$LOAD"
	check_walk "$T/buddy" "buddy walk, budget $SMALL, under churn" yes
	holds=$(walk_stat "$T/buddy" holds)
	check "budget $SMALL: the walk took $holds holds (> 1: lists resumed)" [ "$holds" -gt 1 ]
else
	fail "insmod walk_budget=$SMALL"
fi
churn_stop

if mi_loaded && [ "$(cat /sys/module/meminspect/parameters/walk_budget)" = $SMALL ]; then
	sleep 1
	mm_phase "buddy budget $SMALL at rest" 3 buddy_snap "$REST"
	check_walk "$T/buddy" "buddy walk, budget $SMALL, at rest" no
fi
check "module reloaded with the default budget" mi_reload
