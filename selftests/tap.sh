# SPDX-License-Identifier: GPL-2.0
# The one TAP writer of meminspect, sourced by every script that reports results: the
# selftests in the guest (through lib.sh), and on the host lint, check, the reader's tests,
# export-check, packaging-check, the runner's tests and the kselftest, bundle and deb checks.
# POSIX sh: the guest has busybox ash; the host scripts are bash.
#
#   tap_open [FILE]          start counting from 0; with FILE, "TAP version 13" and every
#                            later line also go to FILE (the results always go to stdout)
#   tap_ok DESC              tap_fail DESC             tap_skip DESC REASON
#   tap_result STATUS DESC [DIAG]   ok when STATUS is 0, else not ok with DIAG's lines
#   tap_is DESC WANT GOT     tap_has DESC NEEDLE HAYSTACK
#   tap_check DESC CMD...    ok when CMD succeeds, else not ok with its last 30 lines
#   tap_diag TEXT...         "# TEXT"; without TEXT, each line of stdin
#   tap_count                results so far          tap_failures   failures so far
#   tap_close                the plan "1..N" (stdout and FILE); status 1 if any failed
#
# TAP_PREFIX (optional): put before every result's description, so that a file run a second
# time in another setting (test_zzz_lockdown.sh's pass at a raised lockdown level) reports
# results that name that setting.
#
# The counts live in a file (TAP_COUNTER: "RESULTS FAILURES"), so results written from
# subshells and child scripts count too and the numbers grow across all of them: run.sh
# numbers every selftest file's results in one sequence this way. A counter tap.sh made itself
# (none was given) is removed by the tap_close of the shell that made it, so that no host
# script (lint, the kselftest and bundle checks, ...) leaves one in /tmp.

_tap_line()
{
	echo "$1"
	[ -z "${TAP_FILE:-}" ] || echo "$1" >>"$TAP_FILE"
}

# MI_TAP_CLOCK=1 (profiling, off in make check): after each result, "# @ UP IDLE", the two
# figures of /proc/uptime (IDLE summed over the CPUs), so that between two results the time
# taken and the CPU time used (NCPUS x dUP - dIDLE: under single-threaded TCG the host CPU
# the guest cost) say which checks of a file cost it (scripts/tap-clock sums them).
# Results only: the plan and the diagnostics stay as they are.
_tap_clock()
{
	[ -n "${MI_TAP_CLOCK:-}" ] && [ -r /proc/uptime ] || return 0
	read -r _tap_up _tap_idle </proc/uptime
	_tap_line "# @ $_tap_up $_tap_idle"
}

# A counter of this shell's own, shared with its children through the environment; _tap_own
# (not exported) marks it as this shell's to remove.
_tap_mkcounter()
{
	TAP_COUNTER=$(mktemp "${TMPDIR:-/tmp}/meminspect-tap.XXXXXX") || return 1
	_tap_own=$TAP_COUNTER
	export TAP_COUNTER
}

_tap_read()
{
	_tap_n=0 _tap_f=0
	[ -n "${TAP_COUNTER:-}" ] && [ -r "$TAP_COUNTER" ] && read -r _tap_n _tap_f <"$TAP_COUNTER"
	_tap_f=${_tap_f:-0}
}

# _tap_next FAILED(0|1): the next result's number in $_tap_n
_tap_next()
{
	if [ -z "${TAP_COUNTER:-}" ]; then
		_tap_mkcounter || return 1
		echo "0 0" >"$TAP_COUNTER"
	fi
	_tap_read
	_tap_n=$((_tap_n + 1))
	_tap_f=$((_tap_f + $1))
	echo "$_tap_n $_tap_f" >"$TAP_COUNTER"
}

tap_open()
{
	TAP_FILE=${1:-}
	[ -n "${TAP_COUNTER:-}" ] || _tap_mkcounter || return 1
	echo "0 0" >"$TAP_COUNTER"
	[ -z "$TAP_FILE" ] || echo "TAP version 13" >"$TAP_FILE"
}

tap_ok()
{
	_tap_next 0
	_tap_line "ok $_tap_n - ${TAP_PREFIX:-}$*"
	_tap_clock
}

tap_fail()
{
	_tap_next 1
	_tap_line "not ok $_tap_n - ${TAP_PREFIX:-}$*"
	_tap_clock
}

tap_skip()
{
	_tap_next 0
	_tap_line "ok $_tap_n - ${TAP_PREFIX:-}$1 # SKIP $2"
	_tap_clock
}

tap_diag()
{
	if [ $# -gt 0 ]; then
		_tap_line "# $*"
	else
		while IFS= read -r _tap_l || [ -n "$_tap_l" ]; do
			_tap_line "# $_tap_l"
		done
	fi
}

tap_result()
{
	if [ "$1" -eq 0 ]; then
		tap_ok "$2"
	else
		tap_fail "$2"
		[ -z "${3:-}" ] || printf '%s\n' "$3" | while IFS= read -r _tap_l || [ -n "$_tap_l" ]; do
			_tap_line "#   $_tap_l"
		done
	fi
	return 0
}

tap_is()
{
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_result 1 "$1" "want: $2
got:  $3"
	fi
}

tap_has()
{
	case $3 in
	*"$2"*) tap_ok "$1" ;;
	*) tap_result 1 "$1" "no '$2' in: $3" ;;
	esac
}

tap_check()
{
	_tap_desc=$1
	shift
	if _tap_out=$("$@" 2>&1); then
		tap_ok "$_tap_desc"
	else
		tap_fail "$_tap_desc"
		printf '%s\n' "$_tap_out" | tail -n 30 | tap_diag
	fi
}

tap_count()
{
	_tap_read
	echo "$_tap_n"
}

tap_failures()
{
	_tap_read
	echo "$_tap_f"
}

tap_close()
{
	_tap_read
	_tap_line "1..$_tap_n"
	if [ -n "${_tap_own:-}" ] && [ "$_tap_own" = "${TAP_COUNTER:-}" ]; then
		rm -f "$TAP_COUNTER"
		unset TAP_COUNTER _tap_own
	fi
	[ "$_tap_f" -eq 0 ]
}
