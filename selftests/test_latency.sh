#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# latency/: the armed knob rejects bad writes and changes nothing; armed, a
# cgroup v2 with a small memory.max reading the kernel's own brd ramdisk
# (page cache charged to it) stalls in memcg reclaim, and the direct
# reclaim count equals /proc/vmstat's allocstall_* delta over the same
# window; disarmed, the counts stop (no probe left attached).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

L=$MI_DIR/latency
CG=/sys/fs/cgroup
DRIVERS=${MI_DRIVERS:-/meminspect/drivers}
cg_mounted=
cleanup()
{
	echo 0 > "$L/armed" 2> /dev/null
	[ -d "$CG/mi-lat" ] && rmdir "$CG/mi-lat" 2> /dev/null
	[ -n "$cg_mounted" ] && umount "$CG"
	[ -n "$bg" ] && kill "$bg" 2> /dev/null && wait "$bg" 2> /dev/null
	rmmod brd 2> /dev/null
	mi_restore
}
bg=
trap cleanup EXIT
trap 'exit 143' TERM INT

eq()
{
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1"
		diag "$1: got '$2', want '$3'"
	fi
}

require_file "$L/armed" || exit 0
# field KIND COLUMN: a column of the histograms file (docs/format.md)
field()
{
	awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$L/histograms"
}
allocstall()
{
	awk '/^allocstall/ { s += $2 } END { print s + 0 }' /proc/vmstat
}

eq "latency: disarmed at load" "$(cat "$L/armed")" 0
for bad in 2 -1 x 01x; do
	if printf '%s' "$bad" > "$L/armed" 2> /dev/null; then
		fail "latency: armed rejects '$bad'"
	else
		ok "latency: armed rejects '$bad'"
	fi
done
eq "latency: bad writes left it disarmed" "$(cat "$L/armed")" 0

echo 1 > "$L/armed"
eq "latency: armed" "$(cat "$L/armed")" 1
echo 1 > "$L/armed"
eq "latency: arming twice keeps it armed" "$(cat "$L/armed")" 1
echo 0 > "$L/armed"
echo 1 > "$L/armed"
eq "latency: arming resets direct_reclaim" "$(field direct_reclaim 2)" 0
eq "latency: arming resets memcg_reclaim" "$(field memcg_reclaim 2)" 0
before=$(allocstall)

# -- memcg reclaim: page cache of the brd ramdisk in a 16 MiB cgroup ----------
st=$(cat "$DRIVERS/status" 2> /dev/null)
if [ "$(cap_available latency.memcg_reclaim)" != yes ]; then
	skip "latency: memcg reclaim stalls" "$(cap_detail latency.memcg_reclaim)"
elif [ "$st" != ready ]; then
	skip "latency: memcg reclaim stalls" "${st:-no $DRIVERS/status}"
else
	if memcg_brd mi-lat; then
		sh -c "echo \$\$ > $CG/mi-lat/cgroup.procs &&
			dd if=/dev/ram0 of=/dev/null bs=1M count=128 2> /dev/null"
		n=$(field memcg_reclaim 2)
		check "latency: memcg reclaim stalls counted ($n)" [ "${n:-0}" -gt 0 ]
		# the bucket counts add up to the events
		b=$(field memcg_reclaim 5 | tr , '\n' | awk '{ s += $1 } END { print s + 0 }')
		eq "latency: memcg_reclaim buckets sum to its events" "$b" "$n"
		s=$(field memcg_reclaim 3)
		check "latency: memcg_reclaim sum_ns is positive" [ "${s:-0}" -gt 0 ]
		rmdir "$CG/mi-lat"
	else
		fail "latency: brd and a cgroup with memory.max for the memcg workload"
	fi
fi

echo 0 > "$L/armed"
after=$(allocstall)
eq "latency: direct_reclaim events = allocstall delta" \
	"$(field direct_reclaim 2)" $((after - before))
eq "latency: disarmed" "$(cat "$L/armed")" 0

# disarmed: nothing attached, so a memcg stall now is not counted
n0=$(field memcg_reclaim 2)
if [ -n "$n0" ] && [ "$st" = ready ] && mkdir "$CG/mi-lat" 2> /dev/null; then
	echo $((16 << 20)) > "$CG/mi-lat/memory.max"
	echo 1 > /proc/sys/vm/drop_caches
	sh -c "echo \$\$ > $CG/mi-lat/cgroup.procs &&
		dd if=/dev/ram0 of=/dev/null bs=1M count=128 2> /dev/null"
	rmdir "$CG/mi-lat"
	eq "latency: disarmed, memcg stalls are not counted" "$(field memcg_reclaim 2)" "$n0"
fi

# rmmod while armed, with memcg stalls in flight: the exit detaches first
if [ "$st" = ready ] && mkdir "$CG/mi-lat" 2> /dev/null; then
	echo $((16 << 20)) > "$CG/mi-lat/memory.max"
	echo 1 > "$L/armed"
	sh -c "echo \$\$ > $CG/mi-lat/cgroup.procs &&
		while :; do dd if=/dev/ram0 of=/dev/null bs=1M count=128 2> /dev/null
		echo 1 > /proc/sys/vm/drop_caches; done" &
	bg=$!
	sleep 1
	check "latency: rmmod while armed and stalling" mi_reload
	kill "$bg" 2> /dev/null
	wait "$bg" 2> /dev/null
	bg=
	# the killed loop's last dd may still be finishing inside the cgroup
	i=0
	while ! rmdir "$CG/mi-lat" 2> /dev/null && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	eq "latency: reloaded module is disarmed" "$(cat "$L/armed")" 0
fi
