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

# -- run: the failure lands in the program, after its exec ---------------------

# an unaimed copy beside it, in a loop: it must never fail
(
	i=0
	while [ ! -e "$T/stop" ] && [ $i -lt 2000 ]; do
		"$PROG" > /dev/null
		echo $? >> "$T/copy"
		i=$((i + 1))
	done
) &
copy=$!
while [ ! -s "$T/copy" ]; do mi_nap 0.1; done
# Split page-table locks: where spinlock_t is too big to sit in struct page
# (PREEMPT_RT; lockdep, as on the debug kernel) each page table's lock is a
# slab object (ptlock_alloc(), mm/memory.c), and the program's first page
# fault, on its first instruction, makes the first slab allocation after the
# exec (seen: __pmd_alloc+0x51 on 6.12-rt; ptlock_alloc+0x1f on the debug
# kernel). The kernel would retry that fault, the program unharmed: it is
# spared (ignore-pagefault), so there too the failure lands in sysprog's calls.
bad=0
for i in 1 2 3; do
	"$R" fault run --times 1 -- "$PROG" > "$T/run" 2> "$T/run.err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q '^sysprog: [a-z0-9_]*: errno 12 (ENOMEM)$' "$T/run" &&
	   [ "$(fget armed)" = 0 ]; then
		:
	else
		bad=$((bad + 1))
		diag "run $i: exit $rc"
		sed 's/^/# /' "$T/run" | head -n 30
		sed 's/^/# stderr: /' "$T/run.err" | head -n 5
	fi
done
touch "$T/stop"
wait $copy
check_eq "fault run --times 1 -- sysprog: 3 of 3 runs exit 1 with one ENOMEM from the program's own calls, disarmed after" \
	"$bad" 0
grep '^sysprog:.*ENOMEM' "$T/run" | sed 's/^/# last run: /'
check_eq "fault run: the log's one failure is sysprog's" \
	"$(awk '$1 == "seq" { s = 1; next } s && $1 ~ /^[0-9]+$/ { n++; c = $4 } END { print n + 0, c }' "$T/run")" \
	"1 sysprog"
copies=$(grep -c . "$T/copy")
check_eq "fault run: the unaimed copy beside it never failed ($copies runs)" \
	"$(grep -vc '^0$' "$T/copy")" 0

# -- run: page faults are spared, a system call fails -----------------------------

# A program that is not built to avoid them (busybox, a libc program of the
# suite) writes its data pages before its first system call: the page fault
# allocates (an anon_vma; a page table's lock with split ptlocks), and a
# failure there is VM_FAULT_OOM, which the kernel retries, unseen by the
# program. ignore-pagefault (Y by default) spares those allocations, so
# --times 1 fails a system call; --include-pagefault spends it in the fault.
# The failure's frames come from the module's verbose 2 report in the
# kernel log: the allocating code's stack, down to the system call or the
# exception entry.
SYSCALL_FRAMES='^(do_syscall_64|entry_SYSCALL_64|x64_sys_call|el0_svc|do_el0_svc|invoke_syscall)'
PF_FRAMES='^(asm_exc_page_fault|exc_page_fault|do_user_addr_fault|do_mem_abort|do_page_fault|el0_da|el0_ia|handle_mm_fault)'
printf 'a b\n1 2\n3 4\n' > "$T/table"

# pf_run [OPTIONS] -- COMMAND...: fault run --times 1 --verbose 2; the exit
# status in $pf_rc, the failure's frames in $T/frames (one a line)
pf_run()
{
	# a mark in the kernel log, not a line count: the log may be full and
	# drop its oldest lines
	pf_n=$((${pf_n:-0} + 1))
	echo "<5>meminspect-selftest: pf_run $pf_n" > /dev/kmsg
	"$R" fault run --verbose 2 --times 1 "$@" > "$T/pf" 2> "$T/pf.err"
	pf_rc=$?
	# the module prints from a work item, a line at a time: read until the
	# report is there and its frames stop growing (the debug kernel is slow)
	_i=0 _was=-1
	while [ $_i -lt 100 ]; do
		dmesg | sed -n "/meminspect-selftest: pf_run $pf_n\$/,\$p" > "$T/pfk"
		# other lines may come between (6.12-rt: "Huh VM_FAULT_OOM leaked
		# out to the #PF handler. Retrying PF" after the header)
		awk '/fault: injected slab failure/ { if (s) exit; s = 1; next }
		     s && /meminspect: fault:   / { sub(/.*fault:   /, ""); print }' \
			"$T/pfk" > "$T/frames"
		_now=$(grep -c . "$T/frames")
		# stable and not empty: the work item prints the header, then a
		# line per frame (each a kallsyms lookup), and a guest starved of
		# host CPU (TCG emulating arm64 beside another lane) can be read
		# between them twice
		grep -q 'fault: injected slab failure' "$T/pfk" && [ "$_now" -gt 0 ] &&
			[ "$_now" = "$_was" ] && break
		_was=$_now
		mi_nap 0.3
		_i=$((_i + 1))
	done
}

# pf_target NAME COMMAND...: the default run fails a system call of it (not
# a page fault), having spared at least one page fault's allocation; the run
# with --include-pagefault fails a page fault, spares nothing, and the
# program runs unharmed
pf_target()
{
	_name=$1
	shift
	pf_run -- "$@"
	# a failed allocation that asked for no warning (__GFP_NOWARN: one with a
	# fallback, as kvmalloc()'s kmalloc) is not reported (docs/fault.md), so
	# it shows no frames; such a run is repeated, up to 3 runs (the suite's
	# 6.12-arm64 lane met one in busybox ls, exit 0, where a run alone did not)
	_try=1
	while ! grep -q 'fault: injected slab failure' "$T/pfk" && [ "$_try" -lt 3 ]; do
		diag "fault run --times 1 -- $_name: run $_try not reported: $(awk '$1 == "seq" { s = 1; next }
			s && $1 ~ /^[0-9]+$/ { print "gfp", $7, "caller", $8; exit }' "$T/pf")"
		pf_run -- "$@"
		_try=$((_try + 1))
	done
	_spared=$(fstat slab spared)
	check_eq "fault run --times 1 -- $_name: one failure, disarmed after" \
		"$(fstat slab failed) $(fget armed)" "1 0"
	check "fault run --times 1 -- $_name: the page fault's allocations before it were spared (stats spared $_spared)" \
		[ "${_spared:-0}" -ge 1 ]
	if grep -qE "$SYSCALL_FRAMES" "$T/frames" && ! grep -qE "$PF_FRAMES" "$T/frames"; then
		ok "fault run --times 1 -- $_name: the failure is in a system call of the program ($(grep -E "$SYSCALL_FRAMES" "$T/frames" | head -n 1))"
	else
		fail "fault run --times 1 -- $_name: the failure is in a system call of the program"
		diag "exit $pf_rc; frames:"
		sed 's/^/#   /' "$T/frames"
		sed 's/^/# stderr: /' "$T/pf.err" | head -n 3
		# the kernel's lines since the mark: the report, or why there is none
		sed 's/^/# log: /' "$T/pfk" | head -n 20
		sed 's/^/# run: /' "$T/pf" | head -n 30
	fi
	pf_run --include-pagefault -- "$@"
	check_eq "fault run --include-pagefault --times 1 -- $_name: one failure, none spared, exit 0 (the kernel retried the fault)" \
		"$(fstat slab failed) $(fstat slab spared) $pf_rc" "1 0 0"
	if grep -qE "$PF_FRAMES" "$T/frames"; then
		ok "fault run --include-pagefault -- $_name: the failure is in a page fault ($(grep -E "$PF_FRAMES" "$T/frames" | head -n 1))"
	else
		fail "fault run --include-pagefault -- $_name: the failure is in a page fault"
		sed 's/^/#   /' "$T/frames"
	fi
}

pf_target "busybox ls" busybox ls /
pf_target "colsum (libc, of the suite)" "${ST_DIR:-$(dirname "$0")}/progs/colsum" "$T/table"
check_eq "fault: excluded counts the page fault entries' spared allocations under origin pagefault" \
	"$(awk '$2 == "pagefault" && $3 == "yes" { n++ } END { print (n > 0) }' "$MI_FAULT/excluded")" 1

# --from-exec: the exec is aimed at too, and its first allocation fails
"$R" fault run --from-exec --times 1 -- "$PROG" > "$T/run" 2> "$T/run.err"
rc=$?
if [ "$rc" = 126 ] && ! grep -q '^sysprog:' "$T/run"; then
	ok "fault run --from-exec --times 1: the exec fails (126), sysprog never runs"
elif mi_kasan && [ "$rc" = 0 ] && [ "$(fget armed)" = 0 ] &&
     [ "$(awk '$1 == "seq" { s = 1; next } s && $1 ~ /^[0-9]+$/ { n++ } END { print n + 0 }' "$T/run")" = 1 ]; then
	# The child's first slab allocation after arming, before its exec, can be
	# one whose failure the kernel absorbs: under the debug kernel's checkers
	# their own GFP_NOWAIT allocation inside kmem_cache_free() (seen: 24
	# bytes, gfp 0x2800, comm still the reader's). The exec and the program
	# then run.
	ok "fault run --from-exec --times 1: one failure, before the exec and absorbed by the debug kernel's checkers, none in the program's calls, disarmed after"
	sed -n '/== log ==/,$p' "$T/run" | head -n 5 | sed 's/^/# /'
else
	fail "fault run --from-exec --times 1: the exec fails (126), sysprog never runs"
	diag "exit $rc"
	sed 's/^/# /' "$T/run" | head -n 30
	sed 's/^/# stderr: /' "$T/run.err" | head -n 3
fi

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
sweep "sysprog (from its exec)" --from-exec -- "$PROG"
if [ "$tomoyo" = yes ]; then
	if grep -q '^# spared: [0-9]* allocations in [0-9]* runs under tomoyo_realpath_from_path (built in' "$T/sweep"; then
		ok "fault: the exec sweep spared tomoyo_realpath_from_path and says so"
	else
		fail "fault: the exec sweep spared tomoyo_realpath_from_path and says so"
	fi
else
	skip "fault: the exec sweep spared tomoyo_realpath_from_path" "no TOMOYO in this kernel"
fi

# The default: from the exec stop on, the program's own failure points.
sweep "sysprog" -- "$PROG"
sweep "busybox ls /" -- busybox ls /
sweep "busybox cat /proc/meminfo" -- busybox cat /proc/meminfo
