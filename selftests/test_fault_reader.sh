#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The reader's fault commands against the real injector (docs/fault-reader.md,
# docs/tests.md): `fault set` errors change nothing; `fault run` fails the
# aimed command's allocations and nobody else's; `fault sweep` finds every
# failure point of the helper's setup routine, each unwound to no live
# object; a reader killed mid-run leaves the injector disarmed.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

FD=$MI_DIR/fault
R=$MI_READER
CACHE=meminspect_test_obj
OBJS=4			# objects the helper allocates per write: its failure points

# at exit: disarmed, every knob back as the test found it, the helper's
# objects freed and the helper unloaded
reader_cleanup()
{
	[ -n "${bg:-}" ] && kill $bg 2>/dev/null
	echo 0 > "$FD/armed" 2>/dev/null
	if [ -s "$T/settings0" ]; then
		awk 'NR > 1 && $1 != "armed" { print $1, ($2 == "-" ? "" : $2) }' "$T/settings0" |
			while read -r k v; do echo "$v" > "$FD/$k" 2>/dev/null; done
	fi
	helper_unload slab_objs
}
mi_setup fault_reader reader_cleanup

require_caps "fault reader" fault fault.slab
require_file "$FD/settings"
cat "$FD/settings" > "$T/settings0"
if [ "$(cat "$FD/armed")" != 0 ]; then
	fail "fault: the injector is disarmed when the test starts"
	exit 0
fi

# same_settings: the settings file is as the test found it
same_settings()
{
	cat "$FD/settings" > "$T/settings"
	cmp -s "$T/settings0" "$T/settings"
}

# cond DESC EXPR: ok if the shell expression EXPR is true
cond()
{
	if eval "$2"; then
		ok "$1"
	else
		fail "$1"
		return 1
	fi
}

# squeeze FILE: a table's rows with runs of blanks as one space (the reader
# aligns columns; the module's file has single spaces)
squeeze()
{
	sed 's/^ *//; s/  */ /g' "$1"
}

# ---- fault set: the kernel's error, exit 6, nothing changed ----------------

# without a slab cache walk (the debug kernel has no BTF) every aim-cache
# write is refused as unsupported, as capabilities' fault.aim_cache says
cache_err="Invalid argument"
[ "$(cap_available fault.aim_cache)" = yes ] || cache_err="Operation not supported"
for kv in "probability 101:Numerical result out of range" \
	"probability abc:Invalid argument" "times -2:Numerical result out of range" \
	"aim-cache no_such_cache_xyz:$cache_err" "aim-depth 0:" "sites frob:"; do
	kv_set=${kv%%:*} want=${kv#*:}
	# shellcheck disable=SC2086
	"$R" fault set $kv_set > "$T/out" 2> "$T/err"
	rc=$?
	msg="meminspect: fault set $kv_set: "
	if [ $rc -eq 6 ] && grep -q "^$msg$want" "$T/err" && same_settings; then
		ok "fault set $kv_set: exit 6, '$(head -n 1 "$T/err" | cut -c 1-80)', settings unchanged"
	else
		fail "fault set $kv_set: exit 6, the kernel's error, settings unchanged"
		diag "rc $rc; stderr: $(cat "$T/err")"
		diff "$T/settings0" "$T/settings" | sed 's/^/# /'
	fi
done

"$R" fault arm > "$T/out" 2> "$T/err"
rc=$?
if [ "$(mi_lookup "$FD/settings" sites value)" = none ] && [ $rc -eq 6 ] &&
	grep -q "Invalid argument" "$T/err" && [ "$(cat "$FD/armed")" = 0 ]; then
	ok "fault arm with sites none: exit 6, Invalid argument, still disarmed"
else
	fail "fault arm with sites none: exit 6, Invalid argument, still disarmed"
	diag "rc $rc; stderr: $(cat "$T/err")"
fi

# armed (aimed at a sleeping process, so that nothing fails): knobs are busy
sleep 60 &
bg=$!
"$R" fault set aim-pid $bg && "$R" fault set sites slab && "$R" fault arm
rc=$?
check "fault set aim-pid, sites, fault arm: exit 0" [ $rc -eq 0 ]
cond "fault arm: armed reads 1" '[ "$(cat "$FD/armed")" = 1 ]'
cat "$FD/settings" > "$T/armed_settings"
"$R" fault set probability 50 > "$T/out" 2> "$T/err"
rc=$?
if [ $rc -eq 6 ] && grep -q "fault set probability 50: Device or resource busy" "$T/err" &&
	cmp -s "$T/armed_settings" "$FD/settings"; then
	ok "fault set while armed: exit 6, Device or resource busy, unchanged"
else
	fail "fault set while armed: exit 6, Device or resource busy, unchanged"
	diag "rc $rc; stderr: $(cat "$T/err")"
fi
"$R" fault status > "$T/status"
rc=$?
squeeze "$FD/stats" | sed 1d > "$T/stats_file"
awk '/^== stats ==/ { s = 1; next } /^$/ { s = 0 } s' "$T/status" | sed 1d > "$T/stats_shown0"
squeeze "$T/stats_shown0" > "$T/stats_shown"
# both read while armed and idle: the counters may move between the reads
if [ $rc -eq 0 ] && [ "$(cut -d' ' -f1,2 "$T/stats_file")" = "$(cut -d' ' -f1,2 "$T/stats_shown")" ] &&
	[ "$(awk '{ print $5 }' "$T/stats_file")" = "$(awk '{ print $5 }' "$T/stats_shown")" ]; then
	ok "fault status: the stats rows of fault/stats (sites, attached, failed)"
else
	fail "fault status: the stats rows of fault/stats"
	diag "file: $(cat "$T/stats_file") shown: $(cat "$T/stats_shown")"
fi
"$R" fault disarm
rc=$?
cond "fault disarm: exit 0, armed reads 0" '[ $rc -eq 0 ] && [ "$(cat "$FD/armed")" = 0 ]'
kill $bg 2>/dev/null
wait $bg 2>/dev/null
bg=
for k in aim-pid sites; do
	echo "$(mi_lookup "$T/settings0" "$k" value | sed 's/^-$//')" > "$FD/$k"
done
check "settings as found after set/arm/disarm" same_settings

# ---- fault run: the aimed command fails, the unaimed does not ----------------

# run aims at the helper's object cache; where the slab list cannot be
# walked (the debug kernel has no BTF: no aim-cache) at the helper's own
# code instead, which is as precise: its writes allocate from that cache
# directly (depth 1), and the command is the only process writing
if [ "$(cap_available fault.aim_cache)" = yes ]; then
	AIM="--cache $CACHE"
elif [ "$(cap_available fault.aim_module)" = yes ]; then
	AIM="--module meminspect_test --depth 1"
	diag "fault.aim_cache: $(cap_detail fault.aim_cache): run aims with $AIM"
else
	skip "fault run, sweep, signals" "capabilities: fault.aim_cache and fault.aim_module unavailable"
	exit 0
fi
if ! insmod "$MI_TEST_KO"; then
	fail "insmod $MI_TEST_KO"
	exit 0
fi
# create the cache first: from here on a write allocates only objects
echo 1 > "$MI_TEST_DIR/slab_objs" && echo 0 > "$MI_TEST_DIR/slab_objs"

# The command writes its pid, then asks the helper for OBJS objects in its
# own process and in a forked child (a subshell), recording each result.
cat > "$T/alloc.sh" << EOF
echo \$\$ > $T/pid
echo $OBJS > $MI_TEST_DIR/slab_objs
echo "\$? \$(cat $MI_TEST_DIR/slab_objs)" > $T/self
echo 0 > $MI_TEST_DIR/slab_objs
(echo $OBJS > $MI_TEST_DIR/slab_objs; echo "\$? \$(cat $MI_TEST_DIR/slab_objs)" > $T/child)
echo 0 > $MI_TEST_DIR/slab_objs
exit 3
EOF

for children in --no-children --children; do
	rm -f "$T/pid" "$T/self" "$T/child"
	# shellcheck disable=SC2086
	"$R" fault run $AIM --times -1 $children -- sh "$T/alloc.sh" > "$T/out" 2> "$T/err"
	rc=$?
	pid=$(cat "$T/pid" 2>/dev/null)
	check "fault run $children: exits with the command's status (3)" [ $rc -eq 3 ]
	set -- $(cat "$T/self" 2>/dev/null)
	if [ "${1:-0}" -ne 0 ] && [ "${2:-x}" = 0 ]; then
		ok "fault run $children: the command's own allocation failed (write status $1, helper holds 0)"
	else
		fail "fault run $children: the command's own allocation failed"
		diag "write status '${1:-}', helper holds '${2:-}'; stderr: $(head -c 300 "$T/err")"
	fi
	set -- $(cat "$T/child" 2>/dev/null)
	cst=${1:-} cheld=${2:-}
	if [ $children = --children ]; then
		cond "fault run $children: the forked child's allocation failed too (aim-children Y)" \
			'[ "${cst:-0}" -ne 0 ] && [ "$cheld" = 0 ]'
	else
		cond "fault run $children: the forked child's allocation succeeded (not aimed)" \
			'[ "${cst:-1}" -eq 0 ] && [ "$cheld" = $OBJS ]'
	fi || diag "child: write status '$cst', helper holds '$cheld'"
	# stats: failed = the log's entries, all in the aimed processes, from the helper
	failed=$(awk '$1 == "slab" { print $5 }' "$FD/stats")
	nlog=$(awk 'NR > 1' "$FD/log" | wc -l)
	want=1
	[ $children = --children ] && want=2
	cond "fault run $children: stats failed $want (got ${failed:-?}), as many log entries ($nlog)" \
		'[ "${failed:-0}" -eq $want ] && [ "$nlog" -eq $want ]'
	others=$(awk -v p="$pid" 'NR > 1 && ($3 != p || $0 !~ /\[meminspect_test\]$/)' "$FD/log" |
		wc -l)
	if [ $children = --no-children ]; then
		check "fault run $children: every failure in the command ($pid), caller in meminspect_test" \
			[ "$others" -eq 0 ]
	else
		check "fault run $children: the second failure in another pid (the child)" \
			[ "$others" -eq 1 ]
	fi
	squeeze "$FD/stats" | sed 1d > "$T/stats_file"
	awk '/^== stats ==/ { s = 1; next } /^$/ { s = 0 } s' "$T/out" | sed 1d > "$T/shown0"
	squeeze "$T/shown0" > "$T/shown"
	check "fault run $children: prints fault/stats as it was at the end" \
		cmp -s "$T/stats_file" "$T/shown"
	check "fault run $children: disarmed, every knob as found" same_settings
done
echo $OBJS > "$MI_TEST_DIR/slab_objs"
rc=$?
cond "unaimed after the runs: the same write succeeds ($OBJS objects held)" \
	'[ $rc -eq 0 ] && [ "$(cat "$MI_TEST_DIR/slab_objs")" = $OBJS ]'
echo 0 > "$MI_TEST_DIR/slab_objs"

# ---- fault sweep: every failure point, each unwound ---------------------------

# The helper's fault_setup: a driver probe in miniature, MI_SETUP_STEPS
# allocations (cache, kmalloc, pages) unwound in reverse on a failure; its
# report is "runs ok failed live last_failed steps". Aimed at the helper's
# own code within 4 frames (deeper, a slab refill's page allocation would
# be a failure point too, depending on the slab's state).
setup_field()
{
	awk -v n="$1" '{ print $n }' "$MI_TEST_DIR/fault_setup"
}
if [ ! -e "$MI_TEST_DIR/fault_setup" ]; then
	fail "the helper has fault_setup"
	exit 0
fi
steps=$(setup_field 6)
cat > "$T/sweep.sh" << EOF
echo 1 > $MI_TEST_DIR/fault_setup
r=\$?
echo "\$(cat $FD/nth) \$r \$(cat $MI_TEST_DIR/fault_setup)" >> $T/sweep.rec
exit \$r
EOF
rm -f "$T/sweep.rec"
# Depth 1: the allocating code itself (the page allocator's wrappers are not
# frames of the aim), so a slab refill's page allocation (allocate_slab's)
# is not one of the helper's and the failure points are exactly its steps.
# Reader and command on CPU 0, warmed up once, see the same allocations
# every run (what a sweep assumes: docs/fault-reader.md).
pin=
taskset 1 true 2> /dev/null && pin="taskset 1"
$pin sh -c "echo 1 > $MI_TEST_DIR/fault_setup"
$pin "$R" fault sweep --module meminspect_test --depth 1 --sites slab,pages --max-runs 20 \
	-- sh "$T/sweep.sh" > "$T/out" 2> "$T/err"
rc=$?
check "fault sweep: exit 0 (complete, no splat, no new taint)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || diag "rc $rc: $(cat "$T/out" "$T/err" | head -20)"
runs=$(awk '$1 ~ /^[0-9]+$/' "$T/out" | wc -l)
# Every step of the helper is failed by a run of its own (the step from the
# helper's own report), the caller of every injected failure is the helper,
# every run unwinds.
check "fault sweep: the helper's $steps steps are the failure points ($runs runs)" \
	[ "$runs" -eq $((steps + 1)) ]
check "fault sweep: says complete, $((runs - 1)) failure points" \
	grep -q "^# complete: run $runs injected nothing; $((runs - 1)) failure points" "$T/out"
# sweep.rec: nth, the write's status, then the helper's report (runs ok
# failed live last_failed steps); the reader's row: nth exit failed matched
# splats reports new_taint module loads leaks caller
awk '$1 ~ /^[0-9]+$/' "$T/out" > "$T/rows"
bad=$(awk -v steps="$steps" -v runs="$runs" '
	NR == FNR { exitc[$1] = $2; failed[$1] = $3; row[$1] = $0; next }
	{
		n = $1; st = $2; live = $6; step = $7; seen[n] = 1
		if (live != 0)
			printf "run %s: %s live objects; ", n, live
		if (exitc[n] != st)
			printf "run %s: write %s, row says exit %s; ", n, st, exitc[n]
		if (n < runs && failed[n] != 1)
			printf "run %s: row says failed %s; ", n, failed[n]
		# the caller is the allocating code: the helper, for its
		# slab allocations and its pages alike
		if (n < runs && row[n] !~ /\[meminspect_test\]$/)
			printf "run %s: caller is not the helper: %s; ", n, row[n]
		if (n < runs && (st == 0 || step < 1))
			printf "run %s: the helper s own allocation failed, write %s step %s; ", n, st, step
		if (n < runs && st != 0 && step >= 1)
			found[step] = 1
		if (n == runs && (st != 0 || failed[n] != 0))
			printf "clean run %s: write %s / row: %s; ", n, st, row[n]
	}
	END {
		for (n = 1; n <= runs; n++) if (!seen[n]) printf "run %d missing; ", n
		for (i = 1; i <= steps; i++) if (!found[i]) printf "step %d never failed; ", i
	}
	' "$T/rows" "$T/sweep.rec" 2>&1)
if [ -z "$bad" ]; then
	ok "fault sweep: each of the $steps steps failed in a run of its own, every run unwinds to 0 live objects, the clean run succeeds"
else
	fail "fault sweep: each step failed in a run of its own, every run unwinds to 0 live objects"
	diag "$bad"
fi
sed 's/^/# /' "$T/out"
check "fault sweep: disarmed, every knob as found (nth back to its value)" same_settings

# ---- killed mid-run: never left armed -----------------------------------------

for sig in TERM INT; do
	# shellcheck disable=SC2086
	"$R" fault run $AIM -- sleep 60 > /dev/null 2>&1 &
	bg=$!
	i=0
	while [ "$(cat "$FD/armed")" != 1 ] && [ $i -lt 100 ]; do
		mi_nap 0.1
		i=$((i + 1))
	done
	spid=$(mi_lookup "$FD/settings" aim-pid value)
	kill -$sig $bg
	wait $bg
	rc=$?
	bg=
	want=143
	[ $sig = INT ] && want=130
	cond "fault run killed by SIG$sig mid-run: was armed, dies of the signal ($rc)" \
		'[ $i -lt 100 ] && [ $rc -eq $want ]'
	cond "fault run killed by SIG$sig: disarmed, every knob as found" \
		'[ "$(cat "$FD/armed")" = 0 ] && same_settings'
	sleep 0.2
	check "fault run killed by SIG$sig: its command ($spid) is gone too" \
		[ ! -d "/proc/$spid" ]
done
exit 0
