#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# summary against the kernel's own files: /proc/meminfo (at rest, then
# while churn runs), /proc/zoneinfo and /proc/buddyinfo.
#
# Every comparison reads the anchor before and after summary, so the
# reference is a bracket [lo, hi]; the value must lie in it give or take a
# tolerance (docs/tests.md says which and why).  A moving figure that misses
# is read again, up to ROUNDS times, because a single burst of kernel
# activity between two reads is not a bug; the last miss is reported with
# both values.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"

# at rest: the only activity is this script's own cat/awk processes
REST_ABS_KB=512 REST_PCT=1 REST_ROUNDS=3
# under churn: it maps up to CHURN_MIB MiB per round, so free and anon move
# by MiBs between two reads (seen: 7.8 MiB on 6.1 under TCG)
CHURN_MIB=${CHURN_MIB:-64} CHURN_SECS=${CHURN_SECS:-120}
LOAD_ABS_KB=$((CHURN_MIB * 1024 / 4)) LOAD_PCT=5 LOAD_ROUNDS=5
# buddy/pcp figures at rest (see docs/tests.md)
COSTLY_ABS_KB=2048 COSTLY_PCT=2
PCP_ABS_KB=1024 PCP_PCT=25
MANAGED_TOTAL_PCT=1

# summary field : /proc/meminfo name : exact (static) or move
MAP="mem_total:MemTotal:exact
mem_free:MemFree:move
mem_available:MemAvailable:move
buffers:Buffers:move
cached:Cached:move
swap_cached:SwapCached:move
anon_pages:AnonPages:move
mapped:Mapped:move
shmem:Shmem:move
slab_reclaimable:SReclaimable:move
slab_unreclaimable:SUnreclaim:move
kernel_stack:KernelStack:move
page_tables:PageTables:move
sec_page_tables:SecPageTables:move
percpu:Percpu:move
vmalloc_used:VmallocUsed:move
swap_total:SwapTotal:exact
swap_free:SwapFree:move
hugepages_total:HugePages_Total:exact
hugepages_free:HugePages_Free:exact
hugepage_size:Hugepagesize:exact
hugetlb:Hugetlb:exact"

mm_setup summary

require_file "$MI_DIR/summary"
require_file "$MI_DIR/capabilities"
cat "$MI_DIR/capabilities" > "$T/caps"

# why_unavailable FIELD: capabilities' reason for a "-"
why_unavailable()
{
	_w=$(mi_lookup "$T/caps" "summary.$1" detail) || _w="no summary.$1 row"
	echo "summary $1 is '-': ${_w:-no detail given}"
}

# snap_meminfo: meminfo, summary, meminfo, back to back
snap_meminfo()
{
	churn_hold
	cat /proc/meminfo > "$T/m1"
	cat "$MI_DIR/summary" > "$T/s"
	cat /proc/meminfo > "$T/m2"
	churn_release
}

# meminfo_rows SPECS ABS PCT: for each spec "field:Name:class" print
# "field Name class got lo hi tol" from the last snapshot ("?" = missing)
meminfo_rows()
{
	awk -v specs="$1" -v abs="$2" -v pct="$3" '
	function n(x) { return x == "?" ? 0 : x + 0 }
	FILENAME == ARGV[1] { sub(/:$/, "", $1); m1[$1] = $2; next }
	FILENAME == ARGV[2] { if (FNR > 1 && !/^#/) s[$1] = $2; next }
	FILENAME == ARGV[3] { sub(/:$/, "", $1); m2[$1] = $2; next }
	END {
		k = split(specs, a, " ")
		for (i = 1; i <= k; i++) {
			split(a[i], p, ":")
			got = p[1] in s ? s[p[1]] : "?"
			x = p[2] in m1 ? m1[p[2]] : "?"
			y = p[2] in m2 ? m2[p[2]] : "?"
			lo = n(x) < n(y) ? n(x) : n(y)
			hi = n(x) < n(y) ? n(y) : n(x)
			tol = hi * pct / 100
			if (tol < abs)
				tol = abs
			if (p[3] == "exact")
				tol = 0
			if (x == "?" || y == "?")
				lo = hi = "?"
			printf "%s %s %s %s %s %s %d\n", p[1], p[2], p[3], got,
				lo == "?" ? "?" : sprintf("%d", lo),
				hi == "?" ? "?" : sprintf("%d", hi), tol
		}
	}' "$T/m1" "$T/s" "$T/m2"
}

# compare_meminfo PHASE ABS PCT ROUNDS
compare_meminfo()
{
	_phase=$1 _abs=$2 _pct=$3 _rounds=$4
	_pending=$(echo "$MAP" | tr '\n' ' ')
	_r=1
	while [ -n "$_pending" ]; do
		if [ -n "$churn_pid" ] && ! kill -0 "$churn_pid" 2>/dev/null; then
			diag "$_phase: churn is no longer running (round $_r)"
		fi
		snap_meminfo
		_next=
		meminfo_rows "$_pending" "$_abs" "$_pct" > "$T/rows"
		while read -r f m class got lo hi tol; do
			d="$_phase: $f matches meminfo $m"
			if [ "$got" = "?" ]; then
				fail "$d"
				diag "summary has no field $f"
			elif [ "$got" = - ]; then
				skip "$d" "$(why_unavailable "$f")"
			elif [ "$lo" = "?" ]; then
				skip "$d" "this kernel's /proc/meminfo has no $m"
			elif is_within "$got" "$lo" "$hi" "$tol"; then
				# off_by's figure without its process (numbers here: is_within said so)
				ok "$d ($class, round $_r, off by $((got < lo ? lo - got : got > hi ? got - hi : 0))/$tol)"
			elif [ "$class" = exact ] || [ "$_r" -ge "$_rounds" ]; then
				fail "$d ($class, round $_r)"
				within_msg "$f" "$got" "$lo" "$hi" "$tol"
			else
				_next="$_next $f:$m:$class"
			fi
		done < "$T/rows"
		_pending=$_next
		_r=$((_r + 1))
	done
}

# ---- /proc/meminfo at rest ---------------------------------------------

sync
compare_meminfo "rest" "$REST_ABS_KB" "$REST_PCT" "$REST_ROUNDS"

# ---- zoneinfo / buddyinfo at rest ------------------------------------------

# snap_zones: zoneinfo, buddyinfo, summary, buddyinfo, zoneinfo
snap_zones()
{
	cat /proc/zoneinfo > "$T/z1"
	cat /proc/buddyinfo > "$T/b1"
	cat "$MI_DIR/summary" > "$T/s"
	cat /proc/buddyinfo > "$T/b2"
	cat /proc/zoneinfo > "$T/z2"
}

# zone_check FIELD DESC ROUNDS ABS PCT COMMAND...: COMMAND FILE prints the
# reference from one anchor file; it runs on the "before" and "after" copy
zone_check()
{
	_f=$1 _d=$2 _rounds=$3 _abs=$4 _pct=$5
	shift 5
	_r=1
	while :; do
		snap_zones
		got=$(mi_field "$T/s" "$_f") || {
			fail "$_d"
			diag "summary has no field $_f"
			return
		}
		if [ "$got" = - ]; then
			skip "$_d" "$(why_unavailable "$_f")"
			return
		fi
		a=$("$@" 1) b=$("$@" 2)
		lo=$(min "$a" "$b") hi=$(max "$a" "$b")
		tol=$(tol_of "$hi" "$_abs" "$_pct")
		if is_within "$got" "$lo" "$hi" "$tol"; then
			ok "$_d (round $_r, off by $((got < lo ? lo - got : got > hi ? got - hi : 0))/$tol)"
			return
		fi
		if [ "$_r" -ge "$_rounds" ]; then
			fail "$_d (round $_r)"
			within_msg "$_f" "$got" "$lo" "$hi" "$tol"
			return
		fi
		_r=$((_r + 1))
	done
}

ref_managed()
{
	echo $(($(zoneinfo_managed_pages "$T/z$1") * MI_PAGE_KB))
}

ref_pcp()
{
	echo $(($(zoneinfo_pcp_pages "$T/z$1") * MI_PAGE_KB))
}

ref_highest()
{
	buddy_highest_order "$T/b$1"
}

# PAGE_ALLOC_COSTLY_ORDER is 3 on every kernel
ref_costly()
{
	buddy_above_kb 3 "$T/b$1"
}

zone_check managed "rest: managed = sum of zoneinfo managed * ${MI_PAGE_KB} kB" \
	1 0 0 ref_managed
zone_check highest_free_order "rest: highest_free_order matches buddyinfo" \
	"$REST_ROUNDS" 0 0 ref_highest
zone_check free_above_costly "rest: free_above_costly matches buddyinfo orders > 3" \
	"$REST_ROUNDS" "$COSTLY_ABS_KB" "$COSTLY_PCT" ref_costly
zone_check pcp_free "rest: pcp_free matches zoneinfo per-cpu counts" \
	"$REST_ROUNDS" "$PCP_ABS_KB" "$PCP_PCT" ref_pcp

managed=$(mi_field "$T/s" managed)
total=$(mi_field "$T/s" mem_total)
if is_num "$managed" && is_num "$total"; then
	check_within "rest: managed is mem_total give or take ${MANAGED_TOTAL_PCT}%" \
		"$managed" "$total" "$(tol_of "$total" 0 "$MANAGED_TOTAL_PCT")"
else
	skip "rest: managed is mem_total give or take ${MANAGED_TOTAL_PCT}%" \
		"managed='$managed' mem_total='$total'"
fi

# ---- /proc/meminfo under churn ---------------------------------------------

CHURN=$ST_DIR/progs/churn
if [ ! -x "$CHURN" ]; then
	fail "load: $CHURN is built"
	exit 0
fi
churn_start "$CHURN_SECS" "$CHURN_MIB"
sleep 2

# the hold that makes each bracket below hold (progs/churn.c): churn's own
# anonymous RSS, sampled every 50 ms, falls at an unmap while it runs
# freely (within 15 s: a round of churn took up to a second on the arm64
# lane) and never in 2 s held.  The first shows the saw-tooth a bracket
# would miss (one miss in a CI run: AnonPages 1376 kB in summary between
# meminfo's 21092 and 40156 kB)
# rss_anon_falls N STOP: of N samples, the number of falls (STOP=1: stop at
# the first), and the number of samples taken
rss_anon_falls()
{
	_ra_n=0 _ra_f=0 _ra_last=
	while [ "$_ra_n" -lt "$1" ]; do
		_ra_v=$(awk '/^RssAnon:/ { print $2 }' "/proc/$churn_pid/status")
		_ra_n=$((_ra_n + 1))
		if [ -n "$_ra_last" ] && [ "${_ra_v:-0}" -lt "$_ra_last" ]; then
			_ra_f=$((_ra_f + 1))
			[ "$2" = 1 ] && break
		fi
		_ra_last=${_ra_v:-0}
		mi_nap 0.05
	done
	echo "$_ra_f $_ra_n"
}
r=$(rss_anon_falls 300 1)
free_falls=${r% *} free_samples=${r#* }
churn_hold
r=$(rss_anon_falls 40 0)
held_falls=${r% *} held_samples=${r#* }
churn_release
saw=no
[ "$free_falls" -gt 0 ] && [ "$held_falls" -eq 0 ] && saw=yes
check "load: churn's anonymous RSS fell running freely (after $free_samples samples 50 ms apart) and $held_falls times in $held_samples samples held" \
	[ "$saw" = yes ]
compare_meminfo "load" "$LOAD_ABS_KB" "$LOAD_PCT" "$LOAD_ROUNDS"
if kill -0 "$churn_pid" 2>/dev/null; then
	kill "$churn_pid"
	wait "$churn_pid"
	rc=$?
	churn_pid=
	check "load: churn ran to the end of the comparisons and exited 0" \
		[ "$rc" -eq 0 ]
else
	wait "$churn_pid"
	rc=$?
	churn_pid=
	fail "load: churn ran to the end of the comparisons and exited 0"
	diag "churn ended early with status $rc"
fi
sed 's/^/# /' "$T/churn.out"

# ---- meminspect where: each figure's kernel counterpart, as the kernel has it ----
# kernel_kb is read by the reader from /proc just after the module's files:
# every row whose counterpart is one /proc/meminfo line lies between copies
# of /proc/meminfo taken before and after it (HugePages_* counts in pages
# of Hugepagesize), MemTotal exactly; "-" exactly for the counterparts that
# are no one kernel figure ("-", and free_other's non-compound tails).
# The reader's own pages are in the figures it reads (its mapped binary in
# Mapped, its heap in AnonPages, ...) and in neither copy: each bracket
# is widened by its largest RSS (busybox time -v)
require_reader
cat /proc/meminfo > "$T/wm1"
busybox time -v "$MI_READER" where > "$T/where.all" 2> "$T/where.err"
rc=$?
cat /proc/meminfo > "$T/wm2"
# the reconciliation: the table after the ranked figures' blank line
awk 'f; /^$/ { f = 1 }' "$T/where.all" > "$T/where"
rss=$(awk '/Maximum resident set size/ { print $NF; f = 1 } END { if (!f) print 0 }' "$T/where.err")
diag "where: the reader's largest RSS $rss kB"
bad=$(awk -v rss="$rss" '
	FILENAME ~ /wm[12]$/ {
		r = FILENAME ~ /wm1$/ ? 1 : 2
		k = $1; sub(/:$/, "", k); v[r, k] = $2
		if (k == "Hugepagesize") hp = $2
		next
	}
	FNR == 1 || /^#/ { next }
	{
		n++
		c = $4; kk = $5
		if (c == "-" || c ~ /non-compound/) {
			if (kk != "-") print $2 ": kernel_kb " kk " for " c
			next
		}
		if (c !~ /^[A-Za-z_]+$/ || !((1, c) in v)) next
		a = v[1, c]; b = v[2, c]
		if (c ~ /^HugePages_/) { a *= hp; b *= hp }
		if (a > b) { t = a; a = b; b = t }
		one++
		if (kk !~ /^[0-9]+$/ || kk < a - rss || kk > b + rss || (c == "MemTotal" && kk != a))
			print $2 ": kernel_kb " kk ", " c " " a ".." b " +- " rss
	}
	END { if (n < 20 || one < 10) print n + 0 " rows, " one + 0 " with one meminfo counterpart" }' \
	"$T/wm1" "$T/wm2" "$T/where" | head -n 5)
check "where: exit $rc; each kernel_kb of one /proc/meminfo counterpart between the copies around it +- the reader's RSS (MemTotal exact), '-' where there is no one figure${bad:+ ($bad)}" \
	[ "$rc/$bad" = 0/ ]

exit 0
