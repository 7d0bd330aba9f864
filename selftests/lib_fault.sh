# SPDX-License-Identifier: GPL-2.0
# Helpers for the fault injection tests (test_fault*.sh).  Sourced after
# lib.sh.  POSIX sh.

MI_FAULT=${MI_FAULT:-$MI_DIR/fault}

# fset KNOB VALUE: write VALUE (may be empty) to a knob; status of the write
fset()
{
	printf '%s\n' "$2" > "$MI_FAULT/$1" 2> /dev/null
}

# must KNOB VALUE: fset, or fail the test and stop (an aim that did not take
# would aim at everything)
must()
{
	fset "$1" "$2" && return 0
	fail "fault: $1 '$2' is accepted"
	exit 0
}

# fval KNOB: the knob's value in $FV, read without a process (mi_read: under
# KASAN a cat costs the debug guest ~0.1 s); fget KNOB: printed
fval()
{
	mi_read FV "$MI_FAULT/$1"
}

fget()
{
	fval "$1" && printf '%s\n' "$FV"
}

# fstat SITE COLUMN: a number from fault/stats
fstat()
{
	mi_lookup "$MI_FAULT/stats" "$1" "$2"
}

# fault_setup NAME: every knob at its default, now and at exit; $T, a
# temporary directory removed at exit.  At exit, between the defaults and
# putting the module back (mi_restore), the test's own fault_cleanup_more
# runs: a test with more to undo defines it after sourcing this file.
fault_setup()
{
	_mi_mktmp "$1" || exit 1
	T=$MI_TMP
	trap fault_cleanup EXIT
	trap 'exit 143' TERM INT
	require_file "$MI_FAULT/settings"
	fault_defaults
}

fault_cleanup_more()
{
	:
}

fault_cleanup()
{
	fault_defaults 2> /dev/null
	fault_cleanup_more
	mi_restore
	rm -rf "$T"
}

# fault_defaults: disarm and put every knob back to its documented default
# (max-order: the highest order /proc/buddyinfo has a column for)
fault_defaults()
{
	fset armed 0
	fset sites none
	fset probability 100
	fset interval 1
	fset times 1
	fset space 0
	fset verbose 1
	fset ignore-gfp-wait N
	fset ignore-gfp-highmem N
	fset ignore-pagefault Y
	fset min-order 0
	# the kernel's highest order, asked once a file
	[ -n "${_fd_maxo:-}" ] || _fd_maxo=$(buddy_max_order)
	fset max-order "$_fd_maxo"
	fset nth 0
	fset aim-pid 0
	fset aim-children N
	fset aim-comm ''
	fset aim-cgroup ''
	fset aim-cache ''
	fset aim-size ''
	fset aim-module ''
	fset aim-depth 8
	fset exclude-caller ''
	fset duration 0
	fset linger 0
}

# buddy_max_order: the kernel's highest order, from /proc/buddyinfo's columns
buddy_max_order()
{
	awk '$1 == "Node" { print NF - 5; exit }' /proc/buddyinfo
}

# helper_load: the selftests' helper module (helper_unload: lib.sh)
helper_load()
{
	[ -d /sys/module/meminspect_test ] || insmod "$MI_TEST_KO" "$@"
}

# halloc KIND ARG N: N allocations by the helper; sets HA_OK HA_FAILED
# HA_FIRST HA_NS from its report
halloc()
{
	echo "$1 $2 $3" > "$MI_TEST_DIR/fault_alloc" || return 1
	# shellcheck disable=SC2046
	set -- $(cat "$MI_TEST_DIR/fault_alloc")
	HA_OK=$4 HA_FAILED=$5 HA_FIRST=$6 HA_NS=$7
}

# log_lines: records in fault/log
log_lines()
{
	awk 'NR > 1 && !/^#/ { n++ } END { print n + 0 }' "$MI_FAULT/log"
}

