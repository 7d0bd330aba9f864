#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `meminspect fault run|sweep` on real programs, with no --module aim
# (docs/fault-reader.md, docs/tests.md): a sweep of a static program and of
# busybox applets runs to its clean last run with no panic, splat or new
# taint; the callers that panic when their allocation fails (TOMOYO's, in
# every exec) are spared and the sweep says so.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "${ST_DIR:-$(dirname "$0")}/lib_fault.sh"

R=$MI_READER
PROG=${ST_DIR:-$(dirname "$0")}/progs/sysprog
MAX_RUNS=${MI_SWEEP_MAX_RUNS:-600}

fault_setup fault_target
if [ "$(cap_available fault)" != yes ]; then
	skip "fault on real targets" "capabilities: fault: $(cap_detail fault)"
	exit 0
fi
if [ "$(cap_available fault.slab)" != yes ]; then
	skip "fault on real targets" "capabilities: fault.slab: $(cap_detail fault.slab)"
	exit 0
fi

# -- the built-in exclusions ---------------------------------------------------

require_file "$MI_FAULT/excluded"
if grep -q ' tomoyo_realpath_from_path$' /proc/kallsyms; then
	tomoyo=yes
else
	tomoyo=no
fi
check_eq "fault: excluded lists tomoyo_realpath_from_path as built in, present $tomoyo" \
	"$(awk '$1 == "tomoyo_realpath_from_path" { print $2, $3 }' "$MI_FAULT/excluded")" \
	"builtin $tomoyo"

# -- sweeps ----------------------------------------------------------------------

# sweep NAME [SWEEP OPTIONS] -- COMMAND...: a slab sweep runs to its clean
# last run: exit 0, "# complete", no splat, no new taint (vm-run checks the
# console too; the kernel's own allocation-failure reports are expected)
sweep()
{
	_name=$1
	shift
	_t0=$(cat /proc/sys/kernel/tainted)
	expect_alloc_reports begin
	"$R" fault sweep --sites slab --max-runs "$MAX_RUNS" "$@" > "$T/sweep" 2> "$T/sweep.err"
	_rc=$?
	expect_alloc_reports end
	_t1=$(cat /proc/sys/kernel/tainted)
	_runs=$(awk 'NR > 1 && !/^#/ { n++ } END { print n + 0 }' "$T/sweep")
	if [ "$_rc" = 0 ] && grep -q '^# complete' "$T/sweep" &&
	   grep -q '^# no kernel splat, no new taint' "$T/sweep"; then
		ok "fault: sweep of $_name is complete and clean ($_runs runs)"
	else
		fail "fault: sweep of $_name is complete and clean"
		diag "exit $_rc, $_runs runs"
		tail -n 8 "$T/sweep" | sed 's/^/# /'
		sed 's/^/# stderr: /' "$T/sweep.err" | head -n 5
	fi
	check_eq "fault: sweep of $_name: no new taint bit" \
		$(( (_t0 ^ _t1) & ~(4096 | 8192 | 262144) )) 0
	check_eq "fault: sweep of $_name: the injector is disarmed" "$(fget armed)" 0
	grep '^# spared' "$T/sweep" | sed 's/^/# /'
}

# The exec aimed at too: every failure point of execve() of a static
# program, TOMOYO's realpath among them (a panic unless it is spared).
sweep "sysprog (from its exec)" -- "$PROG"
if [ "$tomoyo" = yes ]; then
	if grep -q '^# spared: [0-9]* allocations in [0-9]* runs under tomoyo_realpath_from_path (built in' "$T/sweep"; then
		ok "fault: the exec sweep spared tomoyo_realpath_from_path and says so"
	else
		fail "fault: the exec sweep spared tomoyo_realpath_from_path and says so"
	fi
else
	skip "fault: the exec sweep spared tomoyo_realpath_from_path" "no TOMOYO in this kernel"
fi
