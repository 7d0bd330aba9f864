#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 4 concurrent readers of zones, buddy, fragmentation and
# fragmentation_types while churn runs, on the 2-CPU guest: every read
# succeeds and is complete (header, and the walk note for the two files
# that walk the free lists, buddy and fragmentation_types).  A splat, soft lockup or RCU
# stall is caught by the host (vm-run exits 125) and fails the run.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

READERS=4 SECS=${MM_READERS_SECS:-20}
CHURN_MIB=${CHURN_MIB:-64}

T=$(mi_tmpdir readers) || exit 1
pids=
churn_pid=
cleanup()
{
	for p in $pids $churn_pid; do
		kill "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

for f in zones buddy fragmentation fragmentation_types; do
	require_file "$MI_DIR/$f"
done

# reader N: read the four files until $T/stop exists; count reads and
# failures (a failed cat, or an incomplete table) in $T/rN
reader()
{
	_n=0 _bad=0
	while [ ! -e "$T/stop" ]; do
		for f in zones buddy fragmentation fragmentation_types; do
			if ! cat "$MI_DIR/$f" > "$T/out$1" 2> "$T/err$1"; then
				_bad=$((_bad + 1))
				cat "$T/err$1" >&2
				continue
			fi
			case $f in
			zones|fragmentation) grep -q '^node zone ' "$T/out$1" || _bad=$((_bad + 1)) ;;
			*) grep -q '^node zone ' "$T/out$1" &&
				grep -q '^# walk: ' "$T/out$1" || _bad=$((_bad + 1)) ;;
			esac
			_n=$((_n + 1))
		done
	done
	echo "$_n $_bad" > "$T/r$1"
}

reads_good()
{
	[ "$1" -gt 0 ] && [ "$2" -eq 0 ]
}

"$ST_DIR/progs/churn" $((SECS + 30)) "$CHURN_MIB" > "$T/churn.out" 2>&1 &
churn_pid=$!
i=1
while [ "$i" -le "$READERS" ]; do
	reader "$i" &
	pids="$pids $!"
	i=$((i + 1))
done
sleep "$SECS"
touch "$T/stop"
for p in $pids; do
	wait "$p"
done
pids=

i=1
while [ "$i" -le "$READERS" ]; do
	if [ -r "$T/r$i" ]; then
		read -r n bad < "$T/r$i"
		check "reader $i: $n reads of zones/buddy/fragmentation/fragmentation_types in ${SECS}s under churn, $bad failed or incomplete" \
			reads_good "$n" "$bad"
	else
		fail "reader $i reported nothing"
	fi
	i=$((i + 1))
done
kill "$churn_pid" 2>/dev/null
wait "$churn_pid"
rc=$?
churn_pid=
check "churn ran and stopped cleanly (status $rc)" [ "$rc" -eq 0 ]
