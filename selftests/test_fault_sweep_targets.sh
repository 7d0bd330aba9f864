#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `meminspect fault sweep --module dummy -- insmod dummy.ko` (docs/fault-sweep.md): the init
# of a driver the suite did not write, Debian's dummy.ko (a network driver that needs no
# hardware, cached by scripts/kernel-fetch beside brd.ko), swept as a user would:
#  - with busybox's insmod, which loads the module again with init_module() after a failed
#    finit_module(): such a run shows the module loaded twice (the loads column: the kernel's
#    module_load and module_free trace events), and a note names the cause and the fix;
#  - with progs/finsmod (one finit_module() call, as kmod's insmod): no run loads it twice,
#    and the failure points that fail the init leave it gone with a non-zero exit;
#  - dummy's register_netdevice() reports some failures itself, with a stack dump and no
#    splat header (sysctl's "could not get directory" on 6.1): the run's row names it as the
#    kernel's report, not a splat, and the sweep exits 7 only for splats.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "${ST_DIR:-$(dirname "$0")}/lib_fault.sh"

R=$MI_READER
DRIVERS=${MI_DRIVERS:-/meminspect/drivers}
DUMMY=$DRIVERS/dummy.ko
FINSMOD=${ST_DIR:-$(dirname "$0")}/progs/finsmod
KML=$MI_DEBUGFS/kmemleak

fault_setup fault_sweep_targets
fault_cleanup_more()
{
	rmmod dummy 2> /dev/null
}
for c in fault fault.slab fault.aim_module; do
	if [ "$(cap_available $c)" != yes ]; then
		skip "fault: sweeps of dummy's init" "capabilities: $c: $(cap_detail $c)"
		exit 0
	fi
done
if [ ! -f "$DUMMY" ]; then
	st=$(cat "$DRIVERS/status" 2> /dev/null)
	case $st in
	ready | absent*)
		skip "fault: sweeps of dummy's init" \
			"no dummy.ko in $DRIVERS ($st): kernel-fetch keeps it where CONFIG_DUMMY=m" ;;
	# "missing": the cache lacks what the kernel has, the guest's set-up
	*) fail "fault: sweeps of dummy's init: $DRIVERS in the guest (${st:-no status: not a scripts/vm-run guest})" ;;
	esac
	exit 0
fi
rmmod dummy 2> /dev/null
kml=no
[ -e "$KML" ] && kml=yes
# kmemleak's records of dummy's allocations are kmemleak's failure points, not dummy's
# (test_fault_module.sh says why): spared on a kernel with kmemleak
spare=
if [ $kml = yes ]; then
	spare=$(awk 'NF == 3 && $3 ~ /^(__alloc_object|__create_object|create_object|kmemleak_alloc)$/ &&
		!seen[$3]++ { printf "%s,", $3 }' /proc/kallsyms)
	spare="--exclude-caller ${spare%,}"
fi
# Sampled with meminspect and the helpers loaded (O, E, N: scripts/taint-expected); dummy, an
# in-tree module, sets none.
taint0=$(cat /proc/sys/kernel/tainted)

# sweep_dummy NAME LOADER...: sweep dummy's init loaded by LOADER dummy.ko into $T/NAME, its
# rows (nth exit failed matched splats reports new_taint module loads leaks caller) into
# $T/NAME.rows, its status in $rc. The kernel's reports of what is injected are expected on
# the console (scripts/splat-scan), as kmemleak's line about the sweep's own scan is.
sweep_dummy()
{
	_name=$1
	shift
	expect_alloc_reports begin
	[ $kml = no ] || expect_kmemleak_reports begin
	# shellcheck disable=SC2086
	"$R" fault sweep --module dummy --max-runs 400 $spare -- "$@" "$DUMMY" \
		> "$T/$_name" 2> "$T/$_name.err"
	rc=$?
	[ $kml = no ] || expect_kmemleak_reports end
	expect_alloc_reports end
	awk '$1 ~ /^[0-9]+$/' "$T/$_name" > "$T/$_name.rows"
	runs=$(wc -l < "$T/$_name.rows")
	if { [ "$rc" -eq 0 ] || { [ "$rc" -eq 10 ] && [ $kml = yes ]; }; } &&
	   grep -q '^# complete' "$T/$_name" && grep -qx '# no kernel splat, no new taint' "$T/$_name"; then
		ok "fault: sweep of dummy's init with $_name: complete, no splat, exit $rc ($runs runs)"
	else
		fail "fault: sweep of dummy's init with $_name: complete, no splat (exit $rc, $runs runs)"
		grep -v '^ *[0-9]' "$T/$_name" | sed 's/^/# /' | head -n 20
		sed 's/^/# stderr: /' "$T/$_name.err" | head -n 5
	fi
	check "fault: sweep of dummy with $_name: at least one failure point" [ "$runs" -ge 2 ]
	check_eq "fault: sweep of dummy with $_name: the clean run leaves dummy live" \
		"$(awk -v runs="$runs" '$1 == runs { print $8 }' "$T/$_name.rows")" live
	check "fault: rmmod dummy after the sweep with $_name" rmmod dummy
}

# The module's loads come from tracefs (an instance of the sweep's own); where it cannot
# make one, the sweep says so in a note and the loads column is "-".
loads_note()
{
	sed -n 's/^# module dummy: loads not checked (\(.*\))$/\1/p' "$T/$1"
}

# -- busybox's insmod: the retry ----------------------------------------------------

sweep_dummy busybox insmod
why=$(loads_note busybox)
if [ -n "$why" ]; then
	skip "fault: busybox's retry shows in the loads column and a note" "the sweep: $why"
else
	# a failure point that fails the init: busybox loads it again, that init succeeds
	bad=$(awk -v runs="$runs" '$1 < runs && $9 == 2 && ($2 != 0 || $8 != "live,unloaded") {
		printf "run %s: exit %s module %s; ", $1, $2, $8 }' "$T/busybox.rows")
	retried=$(awk '$9 == 2' "$T/busybox.rows" | wc -l)
	if [ "$retried" -ge 1 ] && [ -z "$bad" ]; then
		ok "fault: busybox insmod: $retried of $runs runs loaded dummy twice (loads 2), each exit 0 and live,unloaded"
	else
		fail "fault: busybox insmod: runs that loaded dummy twice (loads 2), each exit 0 and live,unloaded"
		diag "$retried runs with loads 2; $bad"
	fi
	check "fault: busybox insmod: a note names the retry, its cause and the fix" \
		grep -q "^# module dummy: loaded twice in $retried of $runs runs (loads; .*busybox's insmod does (init_module() after a failed finit_module()).*kmod's insmod" \
		"$T/busybox"
	check_eq "fault: busybox insmod: the clean run loaded dummy once" \
		"$(awk -v runs="$runs" '$1 == runs { print $9 }' "$T/busybox.rows")" 1
fi

# -- finsmod: one finit_module() call ------------------------------------------------

sweep_dummy finsmod "$FINSMOD"
if [ -n "$(loads_note finsmod)" ]; then
	skip "fault: finsmod: no run loads dummy twice" "the sweep: $(loads_note finsmod)"
else
	check_eq "fault: finsmod: no run loads dummy twice, and no retry note" \
		"$(awk '$9 != 1 { printf "run %s: loads %s; ", $1, $9 }' "$T/finsmod.rows")$(grep -c 'loaded twice' "$T/finsmod")" \
		0
fi
# the failed loads as a user sees them: finsmod's exit 1 and dummy gone
gone=$(awk '$8 == "gone"' "$T/finsmod.rows" | wc -l)
check "fault: finsmod: failure points fail the init: exit non-zero, dummy gone ($gone of $runs runs)" \
	[ "$gone" -ge 1 ]
check_eq "fault: finsmod: every run that left dummy gone failed (exit non-zero)" \
	"$(awk '$8 == "gone" && $2 == 0 { printf "run %s; ", $1 }' "$T/finsmod.rows")" ""
diag "dummy: busybox $(wc -l < "$T/busybox.rows") runs, finsmod $runs runs;" \
	"finsmod's failing runs: $(awk -v runs="$runs" '$1 < runs { n[$8]++ }
	END { for (s in n) printf "%s %d, ", s, n[s] }' "$T/finsmod.rows")"

# -- the kernel's own reports --------------------------------------------------------

# Each "# nth N: report: FIRST LINE" note: that row counts it as a report, not a splat.
cat "$T/busybox" "$T/finsmod" | grep '^# nth [0-9]*: report: ' > "$T/reports"
if [ ! -s "$T/reports" ]; then
	skip "fault: the kernel's own reports of dummy's injected failures are named, not splats" \
		"$(uname -r) printed no report of its own (a dump_stack()) on any of dummy's failure points"
else
	bad=
	for s in busybox finsmod; do
		bad=$bad$(awk 'NR == FNR { if ($1 == "#" && $2 == "nth" && $4 == "report:") { sub(/:$/, "", $3); rep[$3] = 1 }; next }
			rep[$1] && ($5 != 0 || $6 < 1) { printf "%s run %s: splats %s reports %s; ", s, $1, $5, $6 }' \
			s=$s "$T/$s" "$T/$s.rows")
	done
	check_eq "fault: every run with a named report counts it as a report and no splat ($(wc -l < "$T/reports") reports)" \
		"$bad" ""
	if grep -q ': report: sysctl could not get directory: /net/' "$T/reports"; then
		ok "fault: sysctl's 'could not get directory' report is named in its run's row"
	else
		skip "fault: sysctl's 'could not get directory' report is named in its run's row" \
			"this kernel printed other reports: $(sed 's/^# nth [0-9]*: report: //' "$T/reports" | sort -u | head -n 2 | tr '\n' ';')"
	fi
	sed 's/^/# /' "$T/reports" | sort -u -k 4 | head -n 4
fi
check_eq "fault: sweeps of dummy: no new taint bit" \
	"$(($(cat /proc/sys/kernel/tainted) & ~taint0))" 0
exit 0
