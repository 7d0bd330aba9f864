#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fault/: task aims with a userspace program (progs/faultprog): aimed by
# pid it gets ENOMEM from open() (getname() allocates), unaimed it does
# not; its child (forked before arming) is aimed only with aim-children;
# aim-comm and aim-cgroup select the same way.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_fault.sh"

PROG=$ST_DIR/progs/faultprog
N=${FAULT_TASK_N:-50}
CG=/sys/fs/cgroup

fault_cleanup_more()
{
	[ -z "${cg_made:-}" ] || rmdir "$CG/mi-fault" 2> /dev/null
	[ -z "${cg_mounted:-}" ] || umount "$CG" 2> /dev/null
}
fault_setup ftask

# start [fork]: run faultprog in the background, wait for its pid line(s);
# sets PID (and CHILD)
start()
{
	# a fresh file: an old one could be read before the new one is made
	rm -f "$T/out"
	"$PROG" open $N "$@" > "$T/out" 2>&1 &
	BGPID=$!
	wait_line "$T/out" 'pid ' "$BGPID" 100 || return 1
	[ -z "$1" ] || wait_line "$T/out" 'child ' "$BGPID" 100 || return 1
	PID=$(awk '$1 == "pid" { print $2 }' "$T/out")
	CHILD=$(awk '$1 == "child" { print $2 }' "$T/out")
}

# go: let it run its opens, disarm, let it report, wait for it
go()
{
	# shellcheck disable=SC2086
	kill -USR1 $PID $CHILD
	sleep 0.3
	fset armed 0
	# shellcheck disable=SC2086
	kill -USR1 $PID $CHILD
	wait $BGPID
}

# result PID: "ok K enomem E other O" of that process
result()
{
	awk -v p="$1" '$1 == p { print $2, $3, $4, $5, $6, $7 }' "$T/out"
}

ALL="ok 0 enomem $N other 0"
NONE="ok $N enomem 0 other 0"

# -- aimed by pid, and not ----------------------------------------------------

fset sites slab
fset times -1
start || fail "faultprog starts"
must aim-pid "$PID"
fset armed 1 || fail "fault: arming aimed at pid $PID"
go
check_eq "fault: aim-pid: the aimed program gets ENOMEM from every open()" \
	"$(result "$PID")" "$ALL"
check_eq "fault: stats: failed = the program's ENOMEMs" "$(fstat slab failed)" $N
check_eq "fault: log: every record is the program's" \
	"$(awk -v p="$PID" 'NR > 1 && $3 == p && $4 == "faultprog" { n++ } END { print n + 0 }' \
		"$MI_FAULT/log")" $N

sleep 60 &
other=$!
start || fail "faultprog starts"
must aim-pid "$other"
fset armed 1
go
check_eq "fault: aimed at another pid, the program succeeds" \
	"$(result "$PID")" "$NONE"
fset aim-pid 0
kill "$other"
wait "$other" 2> /dev/null

# -- children --------------------------------------------------------------------

for children in N Y; do
	start fork || fail "faultprog starts with a child"
	must aim-pid "$PID"
	fset aim-children $children
	fset armed 1
	go
	want=$NONE
	[ $children = Y ] && want=$ALL
	check_eq "fault: aim-pid, aim-children $children: the parent fails" \
		"$(result "$PID")" "$ALL"
	check_eq "fault: aim-pid, aim-children $children: the child fails only with Y" \
		"$(result "$CHILD")" "$want"
done
fset aim-pid 0
fset aim-children N

# -- comm ------------------------------------------------------------------------

must aim-comm faultprog
start || fail "faultprog starts"
fset armed 1
go
check_eq "fault: aim-comm faultprog: the program fails" "$(result "$PID")" "$ALL"
must aim-comm faultprog_not
start || fail "faultprog starts"
fset armed 1
go
check_eq "fault: aim-comm of another name: the program succeeds" \
	"$(result "$PID")" "$NONE"
fset aim-comm ''

# -- cgroup v2 -------------------------------------------------------------------

if ! awk '$2 == "'$CG'" && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts; then
	mkdir -p "$CG" && mount -t cgroup2 none "$CG" && cg_mounted=1
fi
if mkdir "$CG/mi-fault" 2> /dev/null || [ -d "$CG/mi-fault" ]; then
	cg_made=1
	must aim-cgroup /mi-fault
	for inside in yes no; do
		start || fail "faultprog starts"
		[ $inside = yes ] && echo "$PID" > "$CG/mi-fault/cgroup.procs"
		fset armed 1
		go
		want=$NONE
		[ $inside = yes ] && want=$ALL
		check_eq "fault: aim-cgroup /mi-fault: a program inside: $inside" \
			"$(result "$PID")" "$want"
	done
	fset aim-cgroup ''
else
	fail "fault: a cgroup v2 directory can be made for aim-cgroup"
fi
fault_defaults
exit 0
