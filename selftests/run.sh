#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run the meminspect selftests inside the guest and print TAP 13 on stdout.
#
#   run.sh [test_NAME.sh ...]     (default: every test_*.sh, in name order)
#
# Result lines are numbered across all tests.  No plan line: the host
# appends its own result line and the plan.  A test that exits non-zero,
# times out (MI_TEST_TIMEOUT seconds, default 600, 900 under KASAN) or reports nothing
# gets a "not ok" line of its own.

ST_DIR=$(cd "$(dirname "$0")" && pwd)
MI_TAP_COUNTER=${TMPDIR:-/tmp}/meminspect-tap.$$
export ST_DIR MI_TAP_COUNTER
. "$ST_DIR/lib.sh"
# KASAN (the debug lane) slows the page-walk tests several times over
if mi_kasan; then
	MI_TEST_TIMEOUT=${MI_TEST_TIMEOUT:-900}
else
	MI_TEST_TIMEOUT=${MI_TEST_TIMEOUT:-600}
fi
# _mi_kasan: mi_kasan()'s answer, read from /proc/kallsyms once for every test
export MI_DIR MI_KO MI_TEST_KO MI_READER MI_DEBUGFS MI_PAGE_KB _mi_kasan

echo "0 0" > "$MI_TAP_COUNTER" || exit 1
echo "TAP version 13"
diag "meminspect selftests: kernel ${MI_KERNEL:-?} ($(uname -r)), $(nproc) CPUs," \
	"MemTotal $(meminfo MemTotal) kB"

if [ $# -eq 0 ]; then
	set -- "$ST_DIR"/test_*.sh
fi
# the files of this run, by name: test_zzz_lockdown.sh runs the view tests among them again
MI_RUN_TESTS=
for t in "$@"; do
	MI_RUN_TESTS="$MI_RUN_TESTS ${t##*/}"
done
export MI_RUN_TESTS

for t in "$@"; do
	case $t in
	*/*) ;;
	*) t=$ST_DIR/$t ;;
	esac
	name=${t##*/}
	diag "$name"
	tmo=$MI_TEST_TIMEOUT
	# test_zzz_lockdown.sh runs this run's view tests a second time, at integrity
	[ "$name" != test_zzz_lockdown.sh ] || tmo=$((MI_TEST_TIMEOUT * 2))
	# the count and the clock read by the shell (_tap_read: tap.sh): a process
	# costs the debug guest ~0.05-0.1 s, and these are 39 files' worth
	_tap_read
	# shellcheck disable=SC2154 # _tap_read's (tap.sh)
	before=$_tap_n
	mi_uptime_cs
	t_start=$MI_UP_CS
	p_start=$(awk '$1 == "processes" { print $2 }' /proc/stat)
	# -k: a test whose TERM trap hangs is killed 30 s later.  stderr
	# becomes "# " lines so that stdout stays pure TAP.
	{
		{
			timeout -k 30 "$tmo" sh "$t" \
				< /dev/null 2>&1 1>&3 3>&-
			echo $? > "$MI_TAP_COUNTER.rc"
		} | sed 's/^/# stderr: /'
	} 3>&1
	read -r rc < "$MI_TAP_COUNTER.rc"
	_tap_read
	# shellcheck disable=SC2154 # _tap_read's (tap.sh)
	after=$_tap_n
	if [ "$rc" -eq 143 ] || [ "$rc" -eq 137 ]; then
		fail "$name timed out after $tmo s (status $rc)"
	elif [ "$rc" -ne 0 ]; then
		fail "$name exited with status $rc"
	elif [ "$after" -eq "$before" ]; then
		fail "$name reported no results"
	fi
	# a failed test must not take the module or debugfs from the next one
	mi_restore
	# per-file wall time: what make check's lanes spend their time on (docs/tests.md);
	# and the processes it started (forks): under KASAN each costs the debug lane's
	# guest ~80 ms of host CPU (docs/kernels.md, "The debug kernel")
	mi_uptime_cs
	t_cs=$((MI_UP_CS - t_start))
	diag "time $name $((t_cs / 100)).$((t_cs % 100 / 10)) s," \
		"$(($(awk '$1 == "processes" { print $2 }' /proc/stat) - p_start)) processes"
done

rm -f "$MI_TAP_COUNTER" "$MI_TAP_COUNTER.rc"
exit 0
