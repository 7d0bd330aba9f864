#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# slabs: every cache of /proc/slabinfo with the same counts, static figures
# equal to /sys/kernel/slab/<cache>/, the helper module's cache counted
# exactly, aliases following a merge, 2000 caches, and reads racing cache
# creation and destruction (docs/tests.md, test_slabs.sh).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

SLABS=$MI_DIR/slabs
SYS=/sys/kernel/slab
HEADER="name object_size slab_size align objs_per_slab order active_objs total_objs active_slabs total_slabs partial_slabs memory_bytes live_bytes waste_bytes waste_pct aliases flags"
ROUNDS=3
# Objects an idle cache may differ by. With slub_debug (make check's strict
# 6.1 lane) debugged caches have no per-CPU slabs: the objects the reading
# processes themselves allocate and free (cat's anon_vma and
# anon_vma_chain, the debugfs open's kmalloc-512 and filp, radix_tree_node)
# show in every count. Seen: off by 1 in four caches per round, and once
# filp off by 3 with the 2000 extra caches (a longer read, more files open
# meanwhile). Without slub_debug they stay in per-CPU slabs, counted in use
# throughout: exact. The bracket itself is read by one process
# (progs/readseq.c), so no fork, exec or exit falls between its three reads.
IDLE_TOL=0
grep -q 'slub_debug' /proc/cmdline && IDLE_TOL=4
MANY=2000

T=$(mi_tmpdir slabs) || exit 1
cleanup()
{
	[ -n "${readers:-}" ] && kill $readers 2>/dev/null
	if [ -d /sys/module/meminspect_test ]; then
		for f in slab_objs slab_caches slab_alias; do
			echo 0 > "$MI_TEST_DIR/$f" 2>/dev/null
		done
		rmmod meminspect_test
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

require_file "$SLABS"

if [ "$(cap_available slab_caches)" != yes ]; then
	why=$(cap_detail slab_caches) || why="no slab_caches row"
	skip "slabs tests" "the slab walk is unavailable: $why"
	exit 0
fi

# ---- format -------------------------------------------------------------------

cat "$SLABS" > "$T/f"
check "header is the documented one" [ "$(head -n 1 "$T/f")" = "$HEADER" ]
bad=$(awk 'NR > 1 && !/^#/ {
	if (NF != 17) { print "line " NR ": " NF " values"; next }
	for (i = 2; i <= 16; i++)
		if ($i != "-" && $i !~ /^[0-9]+$/)
			print "line " NR ": value " i " is " $i
	if ($17 !~ /^(-|none|[a-z0-9_]+(,[a-z0-9_]+)*)$/)
		print "line " NR ": flags " $17
}' "$T/f")
check "every record is 17 values, numbers or -, flags a list" [ -z "$bad" ]
[ -n "$bad" ] && diag "$bad"
# - only where capabilities says no
bad=$(awk 'NR == FNR { if ($2 == "field" && $1 ~ /^slabs\./) {
		f = substr($1, 7); av[f] = $3 } ; next }
	FNR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; next }
	/^#/ { next }
	{ for (i = 2; i <= NF; i++) {
		if (!(h[i] in av)) { miss[h[i]] = 1; continue }
		if (($i == "-") != (av[h[i]] == "no"))
			print $1 " " h[i] "=" $i " but capabilities says " av[h[i]]
	} }
	END { for (f in miss) print "no capabilities row slabs." f }' \
	"$MI_DIR/capabilities" "$T/f" | head -n 5)
check "a value is - exactly where capabilities says no" [ -z "$bad" ]
[ -n "$bad" ] && diag "$bad"

# internal arithmetic of every record: memory = slabs << order, live =
# active * object_size, waste = memory - live, pct = 100 * waste / memory
bad=$(awk -v pg=$((MI_PAGE_KB * 1024)) '
	function pow2(e,   r) { r = 1; while (e-- > 0) r *= 2; return r }
	NR == 1 || /^#/ { next }
	$2 == "-" || $6 == "-" || $7 == "-" || $10 == "-" { next }
	{ mem = $10 * pg * pow2($6); live = $7 * $2; w = mem - live
	  pct = mem ? int(w * 100 / mem) : 0
	  if ($12 != mem || $13 != live || $14 != w || $15 != pct ||
	      $7 > $8 || $9 > $10 || $11 > $10)
		print $0 }' "$T/f" | head -n 3)
check "memory, live, waste and waste_pct add up in every record" [ -z "$bad" ]
[ -n "$bad" ] && diag "$bad"

# ---- against /proc/slabinfo ---------------------------------------------------

# compare SLABINFO1 SLABS SLABINFO2: one line per disagreement; a cache
# whose slabinfo line did not change between the two reads ("idle") must
# match exactly (within IDLE_TOL objects), a busy one within max(2 slabs,
# 5 %) of the bracket.
compare()
{
	awk -v itol="$IDLE_TOL" '
	FILENAME == ARGV[1] && FNR > 2 { a1[$1] = $2; n1[$1] = $3; s1[$1] = $15
		osz[$1] = $4; opb[$1] = $5; pps[$1] = $6; next }
	FILENAME == ARGV[3] && FNR > 2 { a2[$1] = $2; n2[$1] = $3; s2[$1] = $15
		seen2[$1] = 1; next }
	FILENAME == ARGV[2] && FNR > 1 && !/^#/ { m[$1] = $0; next }
	function pow2(e,   r) { r = 1; while (e-- > 0) r *= 2; return r }
	function chk(c, what, got, x, y, tol,   lo, hi) {
		lo = x < y ? x : y; hi = x < y ? y : x
		if (got < lo - tol || got > hi + tol)
			print c " " what ": got " got ", slabinfo [" lo ", " hi "], tolerance " tol
	}
	END {
		for (c in a1) {
			if (!(c in seen2))
				continue
			if (!(c in m)) { print c ": missing from slabs"; continue }
			split(m[c], v, " ")
			idle = a1[c] == a2[c] && n1[c] == n2[c] && s1[c] == s2[c]
			nidle += idle; nbusy += !idle
			t = idle ? itol : 2 * opb[c]
			if (!idle && t < n1[c] / 20) t = int(n1[c] / 20)
			if (v[3] != osz[c]) print c ": slab_size " v[3] " objsize " osz[c]
			if (v[5] != opb[c]) print c ": objs_per_slab " v[5] " objperslab " opb[c]
			if (pow2(v[6]) != pps[c]) print c ": order " v[6] " pagesperslab " pps[c]
			chk(c, "active_objs", v[7], a1[c], a2[c], t)
			chk(c, "total_objs", v[8], n1[c], n2[c], t)
			chk(c, "total_slabs", v[10], s1[c], s2[c], idle ? 0 : 2)
		}
		for (c in m)
			if (!(c in a1) && !(c in a2))
				print c ": in slabs, not in /proc/slabinfo"
		print "# " nidle " idle caches, " nbusy " busy"
	}' "$1" "$2" "$3"
}

# compare_rounds DESC: up to ROUNDS tries; reports the last one's misses
compare_rounds()
{
	_r=0
	while [ $_r -lt $ROUNDS ]; do
		_r=$((_r + 1))
		snap_files "$T/s1" /proc/slabinfo "$T/m" "$SLABS" "$T/s2" /proc/slabinfo ||
			{ fail "$1: snap_files failed"; return; }
		_bad=$(compare "$T/s1" "$T/m" "$T/s2")
		printf '%s\n' "$_bad" | grep -qv '^#' || break
	done
	if printf '%s\n' "$_bad" | grep -qv '^#'; then
		fail "$1 (round $_r)"
		printf '%s\n' "$_bad" | head -n 10 | sed 's/^/# /'
	else
		ok "$1 (round $_r; $(printf '%s\n' "$_bad" | sed 's/^# //'))"
	fi
}

compare_rounds "every /proc/slabinfo cache in slabs, sizes exact, counts equal when idle"

n_info=$(($(wc -l < "$T/s2") - 2))
n_slabs=$(awk 'NR > 1 && !/^#/' "$T/m" | wc -l)
check_within "as many records as /proc/slabinfo caches" "$n_slabs" "$n_info" 0

# Σ memory_bytes of reclaim_account caches against meminfo's SReclaimable:
# slab pages of a lower fallback order are counted at the cache's order,
# and slabs come and go with the reads: max(1 MiB, 3 %).  The total only
# bounds meminfo's Slab from below: the kernel also counts kmalloc() pages
# above KMALLOC_MAX_CACHE_SIZE as unreclaimable slab, and they are in no
# cache (seen 2.5 MiB on 7.3, under 1 MiB before).
s0=$(meminfo SReclaimable)
t0=$(meminfo Slab)
rcl=$(awk 'NR > 1 && !/^#/ && $12 != "-" && $17 ~ /reclaim_account/ { s += $12 }
	END { printf "%d\n", s / 1024 }' "$SLABS")
all=$(awk 'NR > 1 && !/^#/ && $12 != "-" { s += $12 } END { printf "%d\n", s / 1024 }' "$SLABS")
s1=$(meminfo SReclaimable)
t1=$(meminfo Slab)
check_between "sum of memory_bytes of reclaim_account caches matches meminfo SReclaimable (kB)" \
	"$rcl" "$(min "$s0" "$s1")" "$(max "$s0" "$s1")" "$(tol_of "$s0" 1024 3)"
check_between "sum of memory_bytes is at most meminfo Slab (kB; large kmallocs are in Slab only)" \
	"$all" 0 "$(max "$t0" "$t1")" "$(tol_of "$t0" 1024 3)"
diag "Slab $t0..$t1 kB, sum of memory_bytes $all kB"

# ---- against /sys/kernel/slab/<cache>/ ----------------------------------------

# sysfs_compare SLABS: static figures, aliases and flags of every cache
# with a sysfs directory; partial (which moves) is checked loosely
sysfs_compare()
{
	awk -v sys="$SYS" '
	function rd(c, f,   p, v) {
		p = sys "/" c "/" f
		v = ""
		if ((getline v < p) <= 0) v = "?"
		close(p)
		split(v, w, " ")
		return w[1]
	}
	function flag(c, file, name, fl,   v, has) {
		v = rd(c, file)
		if (v == "?") return
		has = ("," fl ",") ~ ("," name ",")
		if ((v == 1) != has)
			print c ": sysfs " file "=" v ", flags " fl
	}
	NR == 1 || /^#/ { next }
	{
		c = $1
		if (rd(c, "object_size") == "?") { nosys++; next }
		n++
		if ($2 != rd(c, "object_size")) print c ": object_size " $2 " sysfs " rd(c, "object_size")
		if ($3 != rd(c, "slab_size")) print c ": slab_size " $3 " sysfs " rd(c, "slab_size")
		if ($4 != rd(c, "align")) print c ": align " $4 " sysfs " rd(c, "align")
		if ($5 != rd(c, "objs_per_slab")) print c ": objs_per_slab " $5 " sysfs " rd(c, "objs_per_slab")
		if ($6 != rd(c, "order")) print c ": order " $6 " sysfs " rd(c, "order")
		if ($16 != rd(c, "aliases")) print c ": aliases " $16 " sysfs " rd(c, "aliases")
		# partial lists of busy caches swing within a few reads
		p = rd(c, "partial"); d = $11 - p; if (d < 0) d = -d
		if (d > 2 + $10 / 2) print c ": partial_slabs " $11 " sysfs " p
		flag(c, "reclaim_account", "reclaim_account", $17)
		flag(c, "hwcache_align", "hwcache_align", $17)
		flag(c, "poison", "poison", $17)
		flag(c, "red_zone", "red_zone", $17)
		flag(c, "store_user", "store_user", $17)
		flag(c, "destroy_by_rcu", "typesafe_by_rcu", $17)
		flag(c, "sanity_checks", "consistency_checks", $17)
		flag(c, "cache_dma", "cache_dma", $17)
		flag(c, "trace", "trace", $17)
	}
	END { print "# " n " caches compared, " nosys + 0 " without sysfs" }' "$1"
}

# Up to ROUNDS tries: a wrong size, order, alias or flag is there every
# round, a partial list that swung between the two reads is not (CI saw
# maple_node's go 30 -> 204 while the awk reached it: RCU-freed maple
# nodes come back to their slabs in batches).
_r=0
while [ $_r -lt $ROUNDS ]; do
	_r=$((_r + 1))
	cat "$SLABS" > "$T/m"
	bad=$(sysfs_compare "$T/m")
	printf '%s\n' "$bad" | grep -qv '^#' || break
done
if printf '%s\n' "$bad" | grep -qv '^#'; then
	fail "sizes, order, aliases and flags equal /sys/kernel/slab/<cache>/ (round $_r)"
	printf '%s\n' "$bad" | head -n 10 | sed 's/^/# /'
else
	ok "sizes, order, aliases and flags equal /sys/kernel/slab/<cache>/ (round $_r; $(printf '%s\n' "$bad" | sed 's/^# //'))"
fi

# ---- the helper module's cache ------------------------------------------------

mi_lockdown_stop "the helper module's cache"
if [ -d /sys/module/meminspect_test ]; then
	rmmod meminspect_test
fi
if ! insmod "$MI_TEST_KO"; then
	fail "insmod $MI_TEST_KO"
	exit 0
fi
ok "insmod $MI_TEST_KO"

C=meminspect_test_obj
# row FIELD...: those fields of the helper cache's record, space-separated
row()
{
	mi_lookup_cols "$T/r" "$C" "$@"
}

# sysfs_first VAR FILE: VAR set to FILE's first value (a slab sysfs count
# reads "N" or "N N0=..."), without a process (mi_read)
sysfs_first()
{
	mi_read "$1" "$2" || eval "$1="
	eval "$1=\${$1%% *}"
}

# objs_check N: hold N objects; slabs must count exactly N, and agree with
# sysfs and /proc/slabinfo (the helper shrinks the cache after each write,
# so no free object hides in a per-CPU slab and nothing else allocates
# from it: every count is exact)
objs_check()
{
	if ! echo "$1" > "$MI_TEST_DIR/slab_objs"; then
		fail "hold $1 objects of $C"
		return
	fi
	cat "$SLABS" > "$T/r"
	_sys_objs='' _sys_total='' _sys_slabs='' _sys_partial=''
	sysfs_first _sys_objs "$SYS/$C/objects"
	sysfs_first _sys_total "$SYS/$C/total_objects"
	sysfs_first _sys_slabs "$SYS/$C/slabs"
	sysfs_first _sys_partial "$SYS/$C/partial"
	_info=$(awk -v c="$C" '$1 == c { print $2, $3, $15 }' /proc/slabinfo)
	_got=$(row active_objs total_objs total_slabs partial_slabs)
	_want="$1 $_sys_total $_sys_slabs $_sys_partial"
	check "hold $1 objects: active total slabs partial = $_want (sysfs)" \
		[ "$_got" = "$_want" ]
	[ "$_got" = "$_want" ] || diag "slabs: $_got"
	check "hold $1 objects: sysfs objects is $1 too" [ "$_sys_objs" = "$1" ]
	check "hold $1 objects: active total slabs = /proc/slabinfo's ($_info)" \
		[ "${_got% *}" = "$_info" ]
}

sizes_check()
{
	cat "$SLABS" > "$T/r"
	_got=$(row object_size slab_size align objs_per_slab order)
	_want="$1"
	for f in slab_size align objs_per_slab order; do
		mi_read _v "$SYS/$C/$f" || _v='?'
		_want="$_want $_v"
	done
	check "object size $1: object_size slab_size align objs_per_slab order = $_want (sysfs)" \
		[ "$_got" = "$_want" ]
	[ "$_got" = "$_want" ] || diag "slabs: $_got"
}

size=$(cat "$MI_TEST_DIR/slab_size")
objs_check 0
sizes_check "$size"
for n in 1000 1500 37 4000 0; do
	objs_check $n
done

# rewinding one open file takes a new snapshot: pread() at 0 and lseek(0)
# read the counts after each write, not the first read's
"$ST_DIR/progs/reread" "$SLABS" "$C" active_objs \
	"$MI_TEST_DIR/slab_objs" 1000 "$MI_TEST_DIR/slab_objs" 37 \
	"$MI_TEST_DIR/slab_objs" 0 > "$T/reread" 2>&1
got=$(awk '{ printf "%s%s", (NR > 1 ? " " : ""), $NF }' "$T/reread")
check "one open slabs file read from 0 again (pread, lseek+read) after holding 1000, 37, 0 objects: active_objs $got (want 0 1000 37 0)" \
	[ "$got" = "0 1000 37 0" ]

# bad_write FILE INPUT ERRTEXT: fails with that error, FILE unchanged
bad_write()
{
	_before='' _after='' _err='' _rc=0
	mi_read _before "$1"
	# shellcheck disable=SC2320 # the status of that write (echo's) is the point
	{ echo "$2" > "$1"; } 2> "$T/err" || _rc=$?
	mi_read _err "$T/err"
	mi_read _after "$1"
	if [ $_rc -ne 0 ] && printf '%s' "$_err" | grep -qi "$3" &&
	   [ "$_before" = "$_after" ]; then
		ok "write '$2' to ${1##*/} fails ($3), value stays $_after"
	else
		fail "write '$2' to ${1##*/} fails ($3), value stays $_before"
		diag "rc $_rc, error '$_err', value now $_after"
	fi
}

echo 10 > "$MI_TEST_DIR/slab_objs"
bad_write "$MI_TEST_DIR/slab_size" 512 "busy"
echo 0 > "$MI_TEST_DIR/slab_objs"
bad_write "$MI_TEST_DIR/slab_size" 7 "out of range"
bad_write "$MI_TEST_DIR/slab_size" 99999 "out of range"
bad_write "$MI_TEST_DIR/slab_size" 12abc "invalid"
bad_write "$MI_TEST_DIR/slab_objs" -1 "invalid"
bad_write "$MI_TEST_DIR/slab_objs" 99999999 "out of range"
bad_write "$MI_TEST_DIR/slab_caches" 4001 "out of range"
bad_write "$MI_TEST_DIR/slab_alias" 2 "out of range"

for s in 8 500 3000; do
	if echo $s > "$MI_TEST_DIR/slab_size"; then
		sizes_check $s
		objs_check 777
		objs_check 0
	else
		fail "set the object size to $s"
	fi
done

# ---- aliases follow a merge ---------------------------------------------------

# root_of NAME: the record (in $T/a) whose sysfs directory NAME's is
root_of()
{
	# test's -ef: the same directory after the links (readlink -f, without a
	# process for each of ~150 records)
	for c in $(mi_keys "$T/a"); do
		[ -e "$SYS/$c" ] || continue
		# shellcheck disable=SC3013 # busybox's test and bash's have -ef
		if [ "$SYS/$c" -ef "$SYS/$1" ]; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

if echo 1 > "$MI_TEST_DIR/slab_alias"; then
	cat "$SLABS" > "$T/a"
	if mi_lookup "$T/a" meminspect_test_alias name > /dev/null; then
		# a kernel that merges caches shows it in sysfs: some cache with
		# aliases; with none (slab_nomerge, or slub_debug flags that forbid
		# merging) there is no merge to test
		merged=$(cat "$SYS"/*/aliases 2> /dev/null | awk '{ s += $1 } END { print s + 0 }')
		if [ "$merged" = 0 ]; then
			skip "meminspect_test_alias merged into a cache: slab --aliases and the alias count" \
				"the kernel merges no slab cache here (every $SYS/*/aliases is 0: slab_nomerge or slub_debug)"
		else
			fail "meminspect_test_alias merged into a cache: it is its own record, although $merged aliases in $SYS say the kernel merges"
		fi
	elif root=$(root_of meminspect_test_alias); then
		a1=$(mi_lookup "$T/a" "$root" aliases)
		"$MI_READER" slab --aliases --sort name > "$T/ra"
		names=$(awk -v c="$root" '$1 == c { print $(NF - 1) }' "$T/ra")
		check "meminspect slab --aliases lists meminspect_test_alias for $root ($names)" \
			sh -c "echo ',$names,' | grep -q ',meminspect_test_alias,'"
		echo 0 > "$MI_TEST_DIR/slab_alias"
		cat "$SLABS" > "$T/b"
		a0=$(mi_lookup "$T/b" "$root" aliases)
		check "merging meminspect_test_alias into $root adds 1 alias ($a0 -> $a1)" \
			[ "$a1" = $((a0 + 1)) ]
		check "aliases of $root equal sysfs after the destroy" \
			[ "$a0" = "$(cat "$SYS/$root/aliases")" ]
	else
		fail "meminspect_test_alias merged into a cache that slabs lists"
	fi
else
	fail "create meminspect_test_alias"
fi
echo 0 > "$MI_TEST_DIR/slab_alias"

# ---- many caches --------------------------------------------------------------

t0=$(date +%s)
if echo $MANY > "$MI_TEST_DIR/slab_caches"; then
	ok "create $MANY caches ($(($(date +%s) - t0)) s)"
else
	fail "create $MANY caches"
fi
cat "$SLABS" > "$T/m"
n=$(grep -c '^meminspect_test_c[0-9]* ' "$T/m")
check_within "all $MANY helper caches listed" "$n" $MANY 0
n=$(grep -c '^meminspect_test_c[0-9]* ' /proc/slabinfo)
check_within "and in /proc/slabinfo" "$n" $MANY 0
bad=$(awk 'NR > 1 && $1 ~ /^meminspect_test_c[0-9]+$/ {
	k = substr($1, 18) + 0; want = 16; for (i = 0; i < k % 7; i++) want *= 2
	if ($2 != want || $7 != 0) print $1 ": object_size " $2 " active " $7 }' "$T/m" | head -n 3)
check "each has its object size and no active object" [ -z "$bad" ]
[ -n "$bad" ] && diag "$bad"
compare_rounds "with $MANY more caches: every /proc/slabinfo cache in slabs, counts equal"

# ---- reads racing creation and destruction ------------------------------------

: > "$T/reads"
: > "$T/rerrs"
readers=
for i in 1 2; do
	# a failed read is counted, not dropped: a reader failing every read
	# must fail the check below
	(while :; do
		if cat "$SLABS" > /dev/null; then echo >> "$T/reads"; else echo >> "$T/rerrs"; fi
	done) &
	readers="$readers $!"
done
t0=$(date +%s)
errs=0
cycle=0
# at least 3 cycles and 5 s of racing (one cycle takes under a second on
# 5.10-6.12, several on 7.3), at most 30 cycles
while [ $cycle -lt 3 ] || { [ $(($(date +%s) - t0)) -lt 5 ] && [ $cycle -lt 30 ]; }; do
	cycle=$((cycle + 1))
	echo $((MANY - 50)) > "$MI_TEST_DIR/slab_caches" || errs=$((errs + 1))
	echo 3000 > "$MI_TEST_DIR/slab_objs" || errs=$((errs + 1))
	echo 1 > "$MI_TEST_DIR/slab_alias" || errs=$((errs + 1))
	echo $MANY > "$MI_TEST_DIR/slab_caches" || errs=$((errs + 1))
	echo 0 > "$MI_TEST_DIR/slab_objs" || errs=$((errs + 1))
	echo 0 > "$MI_TEST_DIR/slab_alias" || errs=$((errs + 1))
done
kill $readers
wait $readers 2>/dev/null
readers=
nreads=$(wc -l < "$T/reads")
nrerrs=$(wc -l < "$T/rerrs")
check "$cycle cycles of destroying and creating 50 caches while 2 readers loop: no error ($errs writes and $nrerrs of $((nreads + nrerrs)) reads failed, $(($(date +%s) - t0)) s)" \
	test "$errs" -eq 0 -a "$nrerrs" -eq 0 -a "$nreads" -gt 0

t0=$(date +%s)
echo 0 > "$MI_TEST_DIR/slab_caches"
diag "destroyed $MANY caches in $(($(date +%s) - t0)) s"
rmmod meminspect_test
cat "$SLABS" > "$T/m"
check "after rmmod no meminspect_test cache is listed" \
	[ "$(grep -c '^meminspect_test' "$T/m")" = 0 ]
compare_rounds "after rmmod: every /proc/slabinfo cache in slabs, counts equal"

# ---- the reader ---------------------------------------------------------------

if "$MI_READER" slab > "$T/out" 2>&1; then
	n=$(($(wc -l < "$T/out") - 1 - $(grep -c '^#' "$T/out")))
	m=$(awk 'NR > 1 && !/^#/' "$SLABS" | wc -l)
	check_within "meminspect slab: one row per record of slabs" "$n" "$m" 2
else
	fail "meminspect slab exits 0"
fi
n=$("$MI_READER" slab --top 3 --sort waste | wc -l)
check "meminspect slab --top 3 --sort waste: header and 3 rows" [ "$n" = 4 ]
check "meminspect slab --json is an array" sh -c "'$MI_READER' --json slab --top 2 | head -c 1 | grep -q '\['"
check "meminspect slab --watch 1 --count 2 --sort growth: 2 samples, growth columns" \
	sh -c "'$MI_READER' slab --watch 1 --count 2 --sort growth --top 1 | grep -c growth_bytes | grep -qx 1"
"$MI_READER" slab --sort bogus > /dev/null 2>&1
check "meminspect slab --sort bogus exits 2" [ $? = 2 ]
"$MI_READER" slab --top 0 > /dev/null 2>&1
check "meminspect slab --top 0 exits 2" [ $? = 2 ]
