#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cgroups: memory cgroups nested as systemd makes them (/system.slice/x.service)
# with busybox cat reading a brd ramdisk into page cache and find making
# dentries inside, and memtarget's anon and shmem in another: each record's
# id is its directory's inode, the online records are the cgroupfs
# directories that have a memcg, the dying ones cgroup.stat's
# nr_dying_descendants; each cgroup's anon, file and shmem agree with its
# memory.stat read before and after (one process); rmdir'd with its page
# cache, x.service shows dying with its file pages (or, where folios are
# charged through obj_cgroups, they are its parent's), and after drop_caches
# it is gone; 4 readers under churn and cgroup churn read complete tables.
# Bounds: docs/cgroups.md (Tests).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"
. "$ST_DIR/lib_cg.sh"

CG=/sys/fs/cgroup
DRIVERS=${MI_DRIVERS:-/meminspect/drivers}
MT=${MI_MEMTARGET:-$ST_DIR/progs/memtarget}
PG=$((${MI_PAGE_KB:-4} * 1024))
HEADER='id state anon_pages file_pages shmem_pages slab_bytes path'
cg_mounted=
brd_loaded=

cg_cleanup()
{
	churn_kill
	for d in "$CG/mi-churn"* "$CG/system.slice/x.service" "$CG/system.slice" "$CG/mi-anon"; do
		[ -d "$d" ] && rmdir "$d" 2> /dev/null
	done
	[ -n "$brd_loaded" ] && rmmod brd 2> /dev/null
	[ -n "$cg_mounted" ] && umount "$CG"
}
mi_setup cgroups cg_cleanup
churn_pid=

require_file "$MI_DIR/cgroups"

if ! awk -v cg="$CG" '$2 == cg && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts; then
	mkdir -p "$CG" && mount -t cgroup2 none "$CG" && cg_mounted=1
fi
echo +memory > "$CG/cgroup.subtree_control" 2> /dev/null
if ! mkdir -p "$CG/system.slice/x.service" "$CG/mi-anon" ||
	! echo +memory > "$CG/system.slice/cgroup.subtree_control"; then
	fail "cgroups: cgroup2 with /system.slice/x.service and /mi-anon, memory enabled"
	exit 0
fi

cat "$MI_DIR/cgroups" > "$T/c0" || fail "cgroups: read"
check_header "cgroups: header" "$T/c0" "$HEADER"

# -- capabilities: slab_bytes is '-' where the row says no ---------------------
slab_cap=$(cap_available cgroups.slab_bytes)
bad=$(awk -v cap="$slab_cap" 'NR > 1 && !/^#/ && (cap == "yes") != ($6 != "-") { print }' "$T/c0")
check_none "cgroups: slab_bytes is '-' exactly where capabilities says cgroups.slab_bytes no ($slab_cap)" "$bad"

# -- the targets ---------------------------------------------------------------
st=$(cat "$DRIVERS/status" 2> /dev/null)
rd_mib=32
if [ "$st" != ready ]; then
	case $st in
	absent*) skip "cgroups: page cache read in /system.slice/x.service" "$st" ;;
	*) fail "cgroups: brd.ko in the guest (${st:-no $DRIVERS/status})" ;;
	esac
	rd_mib=0
else
	rmmod brd 2> /dev/null
	if insmod "$DRIVERS/brd.ko" rd_nr=1 rd_size=$((rd_mib * 1024)); then
		brd_loaded=1
	else
		fail "cgroups: brd loads"
		rd_mib=0
	fi
fi
# busybox cat and find inside x.service: page cache and dentries.  The test
# holds the ramdisk open meanwhile: the last close of a block device drops
# its page cache (kill_bdev())
if [ "$rd_mib" -gt 0 ]; then
	exec 7< /dev/ram0
	sh -c 'echo $$ > "$1/cgroup.procs" && cat /dev/ram0 > /dev/null && { find /sys /proc/self > /dev/null 2>&1; :; }' \
		sh "$CG/system.slice/x.service" ||
		fail "cgroups: cat and find in /system.slice/x.service"
fi
# memtarget in mi-anon: anonymous memory (16 MiB touched), and its basic
# set (anon, shmem, a tmpfs file)
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" vmas 1 16' sh "$CG/mi-anon" "$MT" > "$T/mt1" 2>&1 &
pids="$pids $!"
wait_line "$T/mt1" ready $! || diag "memtarget vmas did not get ready: $(cat "$T/mt1")"
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" basic "$3"' sh "$CG/mi-anon" "$MT" "$T" > "$T/mt2" 2>&1 &
pids="$pids $!"
wait_line "$T/mt2" ready $! || diag "memtarget basic did not get ready: $(cat "$T/mt2")"

# -- figures against memory.stat -----------------------------------------------
X=$CG/system.slice/x.service S=$CG/system.slice A=$CG/mi-anon
snap_files "$T/x1" "$X/memory.stat" "$T/s1" "$S/memory.stat" "$T/a1" "$A/memory.stat" \
	"$T/c" "$MI_DIR/cgroups" \
	"$T/a2" "$A/memory.stat" "$T/s2" "$S/memory.stat" "$T/x2" "$X/memory.stat" ||
	fail "cgroups: read memory.stat, cgroups, memory.stat"
sed -n '/^# walk/p;/^# unlisted/p;/^# uncharged/p' "$T/c" | tap_diag
ncpu=$(nproc)
# memory.stat lags the per-CPU charges it has not flushed: up to
# MEMCG_CHARGE_BATCH (64) pages a CPU (docs/cgroups.md, Tests)
lag=$((64 * ncpu * PG))
# compare NAME PATH DIR-FILES: anon, file (file + shmem) and shmem of PATH's
# subtree against memory.stat's before (${1}1) and after (${1}2)
compare()
{
	_an=$(($(subtree "$T/c" "$2" anon_pages) * PG))
	_fi=$(($(subtree "$T/c" "$2" file_pages) * PG))
	_sh=$(($(subtree "$T/c" "$2" shmem_pages) * PG))
	for _k in anon file shmem; do
		_b=$(stat_of "$T/${1}1" "$_k") _a=$(stat_of "$T/${1}2" "$_k")
		case $_k in
		anon) _got=$_an ;;
		file) _got=$((_fi + _sh)) ;;
		shmem) _got=$_sh ;;
		esac
		_tol=$(tol_of "$_a" "$lag" 3)
		check_between "cgroups: $2 $_k ($_got bytes) within memory.stat's $_k" \
			"$_got" "$(min "$_b" "$_a")" "$(max "$_b" "$_a")" "$_tol"
	done
	# slab_bytes where the kernel's objects can be attributed
	[ "$slab_cap" = yes ] || return 0
	_got=$(subtree "$T/c" "$2" slab_bytes)
	_b=$(($(stat_of "$T/${1}1" slab_reclaimable) + $(stat_of "$T/${1}1" slab_unreclaimable)))
	_a=$(($(stat_of "$T/${1}2" slab_reclaimable) + $(stat_of "$T/${1}2" slab_unreclaimable)))
	check_between "cgroups: $2 slab_bytes ($_got) within memory.stat's slab_reclaimable + slab_unreclaimable" \
		"$_got" "$(min "$_b" "$_a")" "$(max "$_b" "$_a")" "$(tol_of "$_a" "$lag" 3)"
}
compare x /system.slice/x.service
compare s /system.slice
compare a /mi-anon
# the targets are there: what the test made, not only agreement at zero
xf=$(($(rec "$T/c" /system.slice/x.service file_pages) * PG))
check "cgroups: x.service holds the ramdisk's page cache ($xf bytes of $rd_mib MiB)" \
	[ "$xf" -ge $((rd_mib * 1024 * 1024 * 9 / 10)) ]
aa=$(($(rec "$T/c" /mi-anon anon_pages) * PG))
check "cgroups: mi-anon holds memtarget's 16 MiB of anon ($aa bytes)" [ "$aa" -ge $((16 << 20)) ]

# -- ids, online and dying records against cgroupfs --------------------------
bad=
for p in / /system.slice /system.slice/x.service /mi-anon; do
	want=$(stat -c %i "$CG$p")
	got=$(rec "$T/c" "$p" id)
	[ "$got" = "$want" ] || bad="$bad
$p: id $got, stat -c %i $want"
done
check_none "cgroups: each record's id is its directory's inode number" "${bad#?}"

# the directories with a memcg: the root, and those whose parent enables memory
memcg_dirs()
{
	find "$CG" -type d | while read -r d; do
		if [ "$d" = "$CG" ]; then
			echo /
		elif grep -qw memory "${d%/*}/cgroup.subtree_control" 2> /dev/null; then
			echo "${d#"$CG"}"
		fi
	done | sort
}
memcg_dirs > "$T/d1"
cat "$MI_DIR/cgroups" > "$T/c1"
memcg_dirs > "$T/d2"
awk 'NR > 1 && !/^#/ && $2 == "online" { print $NF }' "$T/c1" | sort > "$T/o"
if cmp -s "$T/d1" "$T/d2"; then
	check_none "cgroups: the online records are the cgroupfs directories with a memcg" \
		"$(cmp -s "$T/d1" "$T/o" || diff "$T/d1" "$T/o")"
else
	fail "cgroups: cgroupfs did not change during the read"
fi

gone() { ! rec "$1" "$2" state > /dev/null; }

# dying DIR: how many dying records lie under DIR's path (not DIR itself)
dying_under()
{
	awk -v p="$2" 'NR > 1 && !/^#/ && $2 == "dying" && index($NF, p) == 1 && $NF != p { n++ }
		END { print n + 0 }' "$1"
}
nd() { awk '$1 == "nr_dying_descendants" { print $2 }' "$1/cgroup.stat"; }
# dying_agree DESC DIR PATH: ok if the dying records under PATH (DIR in
# cgroupfs) are DIR's nr_dying_descendants, read before and after, in one of
# 25 tries 0.2 s apart: a memcg is freed (css released, and no longer
# listed) a grace period and a work item before its cgroup stops counting
# as dying, and with nothing to pin it (folios charged through obj_cgroups)
# a read can fall in between
dying_agree()
{
	_i=0
	while :; do
		_b=$(nd "$2")
		cat "$MI_DIR/cgroups" > "$T/cd"
		_a=$(nd "$2")
		_got=$(dying_under "$T/cd" "$3")
		[ "$_b" = "$_a" ] && [ "$_got" = "$_a" ] && break
		_i=$((_i + 1))
		[ "$_i" -ge 25 ] && break
		mi_nap 0.2
	done
	check_between "$1 (try $((_i + 1)))" "$_got" "$(min "$_b" "$_a")" "$(max "$_b" "$_a")" 0
}
dying_agree "cgroups: dying records = the root's nr_dying_descendants" "$CG" /

# -- rmdir with page cache live, then drop_caches ------------------------------
if [ "$rd_mib" -gt 0 ]; then
	rmdir "$X" || fail "cgroups: rmdir /system.slice/x.service"
	cat "$MI_DIR/cgroups" > "$T/c3"
	st=$(rec "$T/c3" /system.slice/x.service state)
	xf3=$(($(rec "$T/c3" /system.slice/x.service file_pages || echo 0) * PG))
	if [ "$(cap_available cgroups.dying_page_cache)" = yes ]; then
		check "cgroups: removed x.service is dying ($st) with its page cache ($xf3 of $xf bytes)" \
			[ "$st" = dying -a "$xf3" -ge $((xf * 9 / 10)) ]
		# the reader's --dying: x.service among its rows, no online row
		if [ -x "$MI_READER" ]; then
			got=$("$MI_READER" --json cgroups --dying 2> /dev/null |
				awk -F'"' '$2 == "state" && $4 != "dying" { bad = 1 }
					$2 == "path" && $4 == "/system.slice/x.service" { f = 1 }
					END { print (f && !bad) ? "yes" : "no" }')
			check_eq "cgroups: meminspect cgroups --dying lists x.service and no online cgroup" "$got" yes
			# and what keeps it: the ramdisk's inode first in its top_files
			got=$("$MI_READER" cgroups --dying 2> /dev/null |
				awk '$NF == "/system.slice/x.service" { print $7 }')
			pages=$(echo "${got%%,*}" | awk -F: '{ print $NF }')
			check "cgroups: its top_files lead with the ramdisk's pages (${got:-none}; $xf bytes)" \
				[ $((${pages:-0} * PG)) -ge $((xf * 9 / 10)) ]
		else
			fail "cgroups: $MI_READER is installed"
		fi
		# what pins it: files names the ramdisk's inode, charged to it
		if [ -r "$MI_DIR/files" ]; then
			got=$(awk -v p=/system.slice/x.service 'NR > 1 && !/^#/ && $6 == p { s += $3 }
				END { print s + 0 }' "$MI_DIR/files")
			check "cgroups: files names removed x.service for the page cache that pins it ($((got * PG)) of $xf bytes)" \
				[ $((got * PG)) -ge $((xf * 9 / 10)) ]
			# and where's dying_cgroups line: x.service with that file
			# as the one holding most of it
			got=$("$MI_READER" where 2> /dev/null | awk '$2 == "dying_cgroups"' |
				sed -n 's|.*/system\.slice/x\.service ([0-9]* kB; file \([^;)]*\) \([0-9]*\) kB.*|\2 \1|p')
			kb=${got%% *}
			check "cgroups: where's dying_cgroups names x.service and the ramdisk's page cache in it (${got:-none}; $xf bytes)" \
				[ $((${kb:-0} * 1024)) -ge $((xf * 9 / 10)) ]
		fi
	else
		# its obj_cgroup moves to system.slice, and its page cache with it,
		# when the css goes offline: after rmdir, from a work item
		i=0
		while [ "$xf3" -ne 0 ] && [ "$i" -lt 25 ]; do
			mi_nap 0.2
			cat "$MI_DIR/cgroups" > "$T/c3"
			st=$(rec "$T/c3" /system.slice/x.service state)
			xf3=$(($(rec "$T/c3" /system.slice/x.service file_pages || echo 0) * PG))
			i=$((i + 1))
		done
		sf=$(($(rec "$T/c3" /system.slice file_pages) * PG))
		check "cgroups: removed x.service's page cache is system.slice's ($sf of $xf bytes; x.service ${st:-gone}, $xf3 bytes)" \
			[ "$sf" -ge $((xf * 9 / 10)) -a "$xf3" -eq 0 ]
	fi
	dying_agree "cgroups: dying records under /system.slice = its nr_dying_descendants" \
		"$S" /system.slice
	echo 3 > /proc/sys/vm/drop_caches
	cg_drain_stocks "$CG"
	# the memcg is freed after its last page, an RCU grace period and a work item
	i=0
	while [ "$i" -lt 100 ]; do
		cat "$MI_DIR/cgroups" > "$T/c4"
		rec "$T/c4" /system.slice/x.service state > /dev/null || break
		mi_nap 0.2
		i=$((i + 1))
	done
	check "cgroups: after drop_caches x.service is gone (after $i rounds of 0.2 s; nr_dying_descendants $(nd "$S"))" \
		gone "$T/c4" /system.slice/x.service
fi
exec 7<&-

# -- 4 readers under churn and cgroup churn --------------------------------------
SECS=${MM_READERS_SECS:-5}
read_one()
{
	cat "$MI_DIR/cgroups" > "$T/r.$1" 2> "$T/e.$1" || { cat "$T/e.$1" >&2; return 1; }
	[ "$(head -n 1 "$T/r.$1")" = "$HEADER" ] && grep -q '^# walk: ' "$T/r.$1"
}
# the memtargets go: readers_stop waits for every pid of $pids
# shellcheck disable=SC2086
kill $pids 2> /dev/null
# shellcheck disable=SC2086
wait $pids 2> /dev/null
pids=
churn_start $((SECS + 30)) "${CHURN_MIB:-64}"
readers_start 4 read_one x
# cgroups made, one of 4 tmpfs files rewritten from inside (shmem charged to
# it), and removed: dying memcgs that live until their file is rewritten
cg_churn mi-churn 'head -c 262144 /dev/zero > "$2"' "$T/cgc." &
pids="$pids $!"
sleep "$SECS"
readers_stop 4 "cgroups in ${SECS}s under churn and cgroup churn"
churn_stop
