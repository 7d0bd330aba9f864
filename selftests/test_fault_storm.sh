#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fault/: a storm.  Probability 100, no limit on times, slab and pages,
# aimed at a forking workload (progs/faultprog storm) and its children for
# STORM_SECS (8) seconds: the VM survives (the runner checks the console
# and taint), the workload sees errors, the rest of the system keeps
# working meanwhile (an unaimed loop of file and process work), and once
# disarmed the workload runs without an error.
#
# ignore-gfp-highmem is Y, as fail_page_alloc's default: user pages
# (GFP_HIGHUSER) failing in a page fault are not an error the workload can
# see, the fault path retries them (or, on 5.10, calls the OOM killer); the
# workload's oom_score_adj is 1000 so that it is the one an OOM kill picks.
#
# The kernel answers some injected failures with a stack dump of its own:
# warn_alloc() ("vmalloc error" on 6.12, "vmalloc: allocation failure" on
# 5.10, for fork's vmap stack; "page allocation failure") and, on 5.10, the
# OOM killer's report.  Those are the expected reaction to ENOMEM, but carry
# "Call Trace:", which the runner counts as a splat: the test brackets the
# storm with expect_alloc_reports (the runner then excuses the stack dump of
# those reports only), and itself checks the kernel log of the storm for
# every other splat pattern.  (Lowering the console level would not do: the
# VMs boot with ignore_loglevel, and the console may print late.)
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_fault.sh"

# 8 s: a longer storm was the biggest single stretch of a stock lane's CPU, on seven lanes
# every run; each run still forks hundreds of times under the injector (docs/kernels.md,
# "Stress lengths").
STORM_SECS=${STORM_SECS:-8}
PROG=$ST_DIR/progs/faultprog

fault_cleanup_more()
{
	[ -z "${spid:-}" ] || kill "$spid" 2> /dev/null
	[ -z "${window:-}" ] || expect_alloc_reports end
}
fault_setup fstorm

dmesg > "$T/dmesg.before"
window=1
expect_alloc_reports begin

# it starts and waits; the test aims at it, arms, and lets it go.  Not
# before its "pid" line: a failure injected into its start-up (a static
# PIE's relocation mprotect, seen on 6.1) would end it before the storm.
# It has 10 s to print it.
rm -f "$T/storm"
"$PROG" storm "$STORM_SECS" > "$T/storm" 2>&1 &
spid=$!
if ! wait_line "$T/storm" 'pid ' "$spid" 100; then
	fail "fault: storm: faultprog started ($(cat "$T/storm" 2> /dev/null))"
	exit 0
fi
echo 1000 > "/proc/$spid/oom_score_adj"
fset sites slab,pages
fset times -1
fset verbose 0
fset ignore-gfp-highmem Y
# Objects of 64 bytes or less are spared: vmalloc (6.1 to 6.12 at least,
# mm/vmalloc.c) preloads a vmap_area (64 bytes) with the caller's gfp and,
# when a split still needs one, allocates it GFP_NOWAIT; if both fail it
# WARNs (WARN_ON_ONCE(ret) after adjust_va_to_fit_type()), a kernel splat,
# fatal under the strict 6.1 lane's panic_on_warn.  Seen once in fork's
# vmap stack.  task_struct, names, pipes and pages still fail.
must aim-size 65-1073741824
must aim-pid "$spid"
fset aim-children Y
if ! fset armed 1; then
	fail "fault: storm: arming"
	exit 0
fi
kill -USR1 "$spid"

# the rest of the system, meanwhile: file and process work, unaimed
end=$(($(date +%s) + STORM_SECS))
rounds=0 errors=0
while [ "$(date +%s)" -lt "$end" ]; do
	if ! { echo "round $rounds" > "$T/side" && cat "$T/side" > /dev/null &&
		cat /proc/meminfo > /dev/null && /bin/true; }; then
		errors=$((errors + 1))
	fi
	rounds=$((rounds + 1))
	mi_nap 0.2
done
failed=$(($(fstat slab failed) + $(fstat pages failed)))
fset armed 0
cp "$MI_FAULT/log" "$T/log"
diag "storm: last failure: $(tail -n 1 "$T/log")"
wait "$spid"
spid_was=$spid
spid=
# shellcheck disable=SC2046
set -- $(awk '$1 == "forks"' "$T/storm")
forks=${2:-0} ferr=${4:-0} cerr=${6:-0}
# the kernel log of the storm: lines not in the log before it
dmesg | awk 'NR == FNR { seen[$0] = 1; next } !($0 in seen)' \
	"$T/dmesg.before" - > "$T/dmesg.storm"
pat='BUG:|WARNING:|Oops|general protection fault|Kernel panic|list_(add|del) corruption'
pat="$pat|refcount_t:|soft lockup|rcu.*stall|blocked for more than|[Rr]edzone"
pat="$pat|[Pp]oison overwritten|UBSAN:|KASAN:|kmemleak:.*new suspected"
pat="$pat|possible circular locking|inconsistent lock state|sleeping function called"
if grep -Eq "$pat" "$T/dmesg.storm"; then
	fail "fault: storm: no kernel splat during the storm"
	grep -E "$pat" "$T/dmesg.storm" | head -5 | sed 's/^/# /'
else
	ok "fault: storm: no kernel splat during the storm" \
		"($(grep -Ec 'allocation failure|vmalloc error' "$T/dmesg.storm") warn_alloc reports," \
		"$(grep -c 'invoked oom-killer' "$T/dmesg.storm") OOM kills)"
fi
diag "storm: $forks forks, $ferr fork errors, $cerr child errors," \
	"$failed failures injected; side work: $rounds rounds, $errors errors"
if [ $((ferr + cerr)) -gt 0 ] && [ "$failed" -gt 0 ]; then
	ok "fault: storm: the workload saw errors ($ferr fork, $cerr child)"
elif [ "$failed" -gt 0 ] && grep -q "Killed process $spid_was" "$T/dmesg.storm"; then
	ok "fault: storm: the workload was OOM-killed (an error it saw)"
else
	fail "fault: storm: the workload saw errors"
	awk 'NR > 1' "$T/log" | tail -4 | sed 's/^/# log: /'
	sed 's/^/# storm: /' "$T/storm"
fi
check_eq "fault: storm: unaimed work kept running without an error" \
	"$errors" 0
if [ "$rounds" -gt 0 ]; then
	ok "fault: storm: unaimed work made progress ($rounds rounds)"
else
	fail "fault: storm: unaimed work made progress"
fi

# disarmed: the same workload, briefly, sees no error
"$PROG" storm 1 > "$T/after" 2>&1 &
wait_line "$T/after" 'pid ' $! 100
kill -USR1 $!
wait $!
# shellcheck disable=SC2046
set -- $(awk '$1 == "forks"' "$T/after")
if [ "${2:-0}" -gt 0 ] && [ "${4:-1}" = 0 ] && [ "${6:-1}" = 0 ]; then
	ok "fault: storm: disarmed, the workload runs clean (${2} forks)"
else
	fail "fault: storm: disarmed, the workload runs clean"
	diag "after: $(cat "$T/after")"
fi
fault_defaults
window=
expect_alloc_reports end
exit 0
