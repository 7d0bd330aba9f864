#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The escape hatches of an arming that fails everything (docs/fault.md):
# a shell that opened `armed` before arming disarms through that file even
# while its own allocations all fail, and `duration` disarms by itself.
# Each arming here is a slab arming with times -1 and probability 100, the
# worst there is; each lasts a few milliseconds (the shell's builtins only:
# no fork, no open while armed) or the duration.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "${ST_DIR:-$(dirname "$0")}/lib_fault.sh"

fault_setup fault_escape
if [ "$(cap_available fault.slab)" != yes ]; then
	skip "fault escape hatches" "capabilities: fault.slab: $(cap_detail fault.slab)"
	exit 0
fi

mkfifo "$T/fifo" || exit 1
# opened now, while disarmed: once armed, an open() would need allocations
exec 3> "$MI_FAULT/armed"
exec 5<> "$T/fifo"
# something to fail meanwhile, started now: a subshell that opens a file
# in a loop (an open that fails is an error message, to /dev/null; `read`,
# not the special builtin `:`, whose redirection error would end the shell)
( while [ ! -e "$T/stop" ]; do read -r x < /proc/self/stat; done ) 2> /dev/null &
busy=$!
fault_cleanup_more()
{
	touch "$T/stop"
	wait "$busy" 2> /dev/null
}
must sites slab
must times -1
must verbose 0
must probability 100

# -- 1. aimed at this shell: its every slab allocation fails ------------------
# duration is the backstop only: the write through fd 3 must succeed itself
must aim-pid $$
must duration 5000
expect_alloc_reports begin
echo 1 >&3; echo 0 >&3; r=$?
expect_alloc_reports end
check_eq "fault: a shell aimed at itself disarms through its open armed file (echo 0 >&3 succeeds)" \
	"$r" 0
check_eq "fault: ... and the injector is disarmed" "$(fget armed)" 0
failed=$(fstat slab failed)
diag "stats while aimed at the shell: checked $(fstat slab checked), failed $failed"

# -- 2. unaimed: everything in the guest fails ---------------------------------
must aim-pid 0
expect_alloc_reports begin
echo 1 >&3; echo 0 >&3; r=$?
expect_alloc_reports end
check_eq "fault: an unaimed times -1 arming is disarmed through the open file (echo 0 >&3 succeeds)" \
	"$r" 0
check_eq "fault: ... and the injector is disarmed" "$(fget armed)" 0
diag "stats unaimed: checked $(fstat slab checked), failed $(fstat slab failed)"

# -- 3. duration alone: unaimed, nobody disarms ---------------------------------
# The shell waits in the read builtin on a fifo nobody writes to (poll(),
# no allocation) past the duration, then looks.
must duration 100
expect_alloc_reports begin
echo 1 >&3; a=$?; read -t 2 x <&5; r=$?
expect_alloc_reports end
check_eq "fault: armed with duration 100" "$a" 0
check_eq "fault: duration 100 disarmed an unaimed times -1 arming by itself" "$(fget armed)" 0
check_eq "fault: ... while the shell only waited (read timed out)" "$([ "$r" -gt 128 ] || [ "$r" = 1 ]; echo $?)" 0
failed=$(fstat slab failed)
if [ "$failed" -gt 0 ]; then
	ok "fault: the duration's arming failed what the guest did ($failed failures)"
else
	fail "fault: the duration's arming failed what the guest did"
	diag "checked $(fstat slab checked), failed $failed"
fi
touch "$T/stop"
wait "$busy"
check_eq "fault: the busy loop beside it survived its failures" "$?" 0
# arm again with a duration and disarm before it ends: the timer is gone,
# a later arming is not cut short by the earlier one's timer
must duration 300
echo 1 >&3; echo 0 >&3
must duration 0
must aim-comm no_such_task		# fails nothing: only the timer matters
echo 1 >&3
read -t 1 x <&5
check_eq "fault: a disarmed arming's duration does not end a later arming" "$(fget armed)" 1
echo 0 >&3
check_eq "fault: disarmed" "$(fget armed)" 0
exec 3>&- 5<&-
