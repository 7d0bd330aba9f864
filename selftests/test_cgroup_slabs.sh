#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cgroup_slabs and cgroups' slab_bytes: busybox in /system.slice/y.service
# (nested as systemd makes it) makes directories on a tmpfs of its own
# (a dentry and a shmem inode each) and walks /sys; then, against the
# kernel's counterparts in the same VM: y.service's slab_bytes and its
# cgroup_slabs rows against its memory.stat's slab_reclaimable +
# slab_unreclaimable read before and after; its dentry and
# shmem_inode_cache rows hold at least the directories made; every row's
# bytes are objects x /proc/slabinfo's objsize (+ one pointer when
# charged); each of those caches' objects, charged or not, against
# slabinfo's active_objs; after rmdir the objects are /system.slice's
# (capabilities: cgroups.dying_slab); 4 readers under churn and cgroup
# churn read complete tables.  Bounds: docs/cgroups.md (Tests).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"
. "$ST_DIR/lib_cg.sh"

CG=/sys/fs/cgroup
PG=$((${MI_PAGE_KB:-4} * 1024))
HEADER='id cache objects bytes path'
NDIR=${CG_SLAB_DIRS:-2000}
cg_mounted=
fs_mounted=

cs_cleanup()
{
	churn_kill
	[ -n "$fs_mounted" ] && umount "$T/fs" 2> /dev/null
	for d in "$CG/mi-slchurn"* "$CG/system.slice/y.service" "$CG/system.slice"; do
		[ -d "$d" ] && rmdir "$d" 2> /dev/null
	done
	[ -n "$cg_mounted" ] && umount "$CG"
}
mi_setup cgroup_slabs cs_cleanup
churn_pid=

if [ "$(cap_available cgroups.slab_bytes)" != yes ]; then
	# the file says so too: its header, no record, a note with the row's reason
	why=$(cap_detail cgroups.slab_bytes)
	if cat "$MI_DIR/cgroup_slabs" > "$T/none" 2> "$T/none.err"; then
		got=$(awk -v h="$HEADER" -v w="$why" 'NR == 1 { hd = ($0 == h) } NR > 1 && !/^#/ { r++ }
			/^# no slab attribution on this kernel/ && index($0, w) { n++ }
			END { print hd + 0, r + 0, n + 0 }' "$T/none")
		check_eq "cgroup_slabs: where the kernel cannot attribute slab, the header, no record and a note with the reason" \
			"$got" "1 0 1"
	else
		fail "cgroup_slabs: reads where slab cannot be attributed ($(cat "$T/none.err"))"
	fi
	skip "cgroup_slabs: slab objects by cgroup" \
		"capabilities: cgroups.slab_bytes no: $why"
	exit 0
fi
require_file "$MI_DIR/cgroup_slabs"

# sum_of FILE PATH CACHE COL: COL summed over PATH's rows (CACHE "" for any)
sum_of()
{
	awk -v p="$2" -v c="$3" -v col="$4" '
	NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
	/^#/ { next }
	$NF == p && (c == "" || $2 == c) { s += $idx[col] }
	END { print s + 0 }' "$1"
}
# cache_objs FILE CACHE: a cache's objects over every row, charged or not
cache_objs()
{
	awk -v c="$2" 'NR > 1 && !/^#/ && $2 == c { s += $3 } END { print s + 0 }' "$1"
}
# slabinfo_col FILE CACHE N: column N of a cache's /proc/slabinfo line
slabinfo_col()
{
	awk -v c="$2" -v n="$3" '$1 == c { print $n; f = 1 } END { exit !f }' "$1"
}
stat_slab()
{
	awk '$1 == "slab_reclaimable" || $1 == "slab_unreclaimable" { s += $2 } END { print s + 0 }' "$1"
}

if ! awk -v cg="$CG" '$2 == cg && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts; then
	mkdir -p "$CG" && mount -t cgroup2 none "$CG" && cg_mounted=1
fi
echo +memory > "$CG/cgroup.subtree_control" 2> /dev/null
Y=$CG/system.slice/y.service S=$CG/system.slice
if ! mkdir -p "$Y" || ! echo +memory > "$S/cgroup.subtree_control"; then
	fail "cgroup_slabs: cgroup2 with /system.slice/y.service, memory enabled"
	exit 0
fi
mkdir -p "$T/fs" && mount -t tmpfs none "$T/fs" && fs_mounted=1 ||
	fail "cgroup_slabs: a tmpfs for y.service's directories"

# busybox in y.service: NDIR directories (a dentry and a shmem inode each)
# and a walk of /sys (kernfs dentries and inodes); it exits, its objects stay
sh -c 'echo $$ > "$1/cgroup.procs" || exit 1
	i=0; while [ $i -lt "$3" ]; do mkdir "$2/d$i" || exit 1; i=$((i + 1)); done
	find /sys > /dev/null 2>&1; :' sh "$Y" "$T/fs" "$NDIR" ||
	fail "cgroup_slabs: $NDIR directories made in /system.slice/y.service"

# -- figures against memory.stat and slabinfo -----------------------------------
snap_files "$T/y1" "$Y/memory.stat" "$T/i1" /proc/slabinfo \
	"$T/c" "$MI_DIR/cgroups" "$T/p" "$MI_DIR/cgroup_slabs" \
	"$T/i2" /proc/slabinfo "$T/y2" "$Y/memory.stat" ||
	fail "cgroup_slabs: read memory.stat, slabinfo, cgroups, cgroup_slabs, slabinfo, memory.stat"
check_header "cgroup_slabs: header" "$T/p" "$HEADER"
sed -n '/^# slab/p;/^# cap/p' "$T/p" | tap_diag
ncpu=$(nproc)
# memory.stat lags the per-CPU byte stocks and counters it has not
# flushed: up to MEMCG_CHARGE_BATCH (64) pages a CPU (docs/cgroups.md)
lag=$((64 * ncpu * PG))
b=$(stat_slab "$T/y1") a=$(stat_slab "$T/y2")
got=$(awk 'NR > 1 && !/^#/ && $NF == "/system.slice/y.service" { print $6 }' "$T/c")
check_between "cgroup_slabs: cgroups' y.service slab_bytes ($got) within memory.stat's slab" \
	"${got:-0}" "$(min "$b" "$a")" "$(max "$b" "$a")" "$(tol_of "$a" "$lag" 3)"
got=$(sum_of "$T/p" /system.slice/y.service "" bytes)
check_between "cgroup_slabs: y.service's rows' bytes ($got) within memory.stat's slab" \
	"$got" "$(min "$b" "$a")" "$(max "$b" "$a")" "$(tol_of "$a" "$lag" 3)"

# the targets are there: at least the directories y.service made
for c in dentry shmem_inode_cache; do
	got=$(sum_of "$T/p" /system.slice/y.service "$c" objects)
	check "cgroup_slabs: y.service's $c objects ($got) >= the $NDIR directories it made" \
		[ "$got" -ge "$NDIR" ]
done

# bytes: objects x slabinfo's objsize (kmem_cache.size), + one obj_cgroup
# pointer when charged (obj_full_size()); ids: the directory's inode
# (every lane is 64-bit)
bad=$(awk '
	FNR == NR { if (NR > 2) size[$1] = $4; next }
	FNR == 1 || /^#/ { next }
	!($2 in size) { print "no slabinfo line: " $0; next }
	$4 != $3 * (size[$2] + ($1 == "-" ? 0 : 8)) { print }' "$T/i1" "$T/p" | head -5)
check_none "cgroup_slabs: every row's bytes = objects x slabinfo objsize (+ 8 when charged)" "$bad"
got=$(awk 'NR > 1 && !/^#/ && $NF == "/system.slice/y.service" { print $1; exit }' "$T/p")
check_eq "cgroup_slabs: y.service's id is its directory's inode" "$got" "$(stat -c %i "$Y")"

# each cache's objects, charged or not, are its slab objects in use:
# slabinfo's active_objs (per-CPU slabs count whole, as there)
for c in dentry shmem_inode_cache; do
	got=$(cache_objs "$T/p" "$c")
	b=$(slabinfo_col "$T/i1" "$c" 2) a=$(slabinfo_col "$T/i2" "$c" 2)
	per=$(slabinfo_col "$T/i2" "$c" 5)
	check_between "cgroup_slabs: $c objects over every row ($got) within slabinfo's active_objs" \
		"$got" "$(min "$b" "$a")" "$(max "$b" "$a")" "$(tol_of "$a" $((2 * per * ncpu)) 3)"
done

# -- rmdir: the objects move to the parent (cgroups.dying_slab) -----------------
n0=$(sum_of "$T/p" /system.slice dentry objects)
ny=$(sum_of "$T/p" /system.slice/y.service dentry objects)
rmdir "$Y" || fail "cgroup_slabs: rmdir /system.slice/y.service"
if [ "$(cap_available cgroups.dying_slab)" = no ]; then
	# obj_cgroups are reparented when the css goes offline: a work item
	i=0
	while :; do
		cat "$MI_DIR/cgroup_slabs" > "$T/p2"
		left=$(sum_of "$T/p2" /system.slice/y.service "" objects)
		[ "$left" -eq 0 ] || [ "$i" -ge 25 ] && break
		mi_nap 0.2
		i=$((i + 1))
	done
	ns=$(sum_of "$T/p2" /system.slice dentry objects)
	check "cgroup_slabs: removed y.service's $ny dentries (>= $NDIR) are /system.slice's ($ns >= $n0 + $ny * 9 / 10; y.service has $left objects)" \
		[ "$ny" -ge "$NDIR" -a "$left" -eq 0 -a "$ns" -ge $((n0 + ny * 9 / 10)) ]
else
	fail "cgroup_slabs: capabilities cgroups.dying_slab is no (obj_cgroups are reparented on every kernel from 5.9)"
fi

# -- 4 readers under churn and cgroup churn --------------------------------------
SECS=${MM_READERS_SECS:-5}
read_one()
{
	cat "$MI_DIR/cgroup_slabs" > "$T/r.$1" 2> "$T/e.$1" || { cat "$T/e.$1" >&2; return 1; }
	[ "$(head -n 1 "$T/r.$1")" = "$HEADER" ] && grep -q '^# slab walk: ' "$T/r.$1"
}
churn_start $((SECS + 30)) "${CHURN_MIB:-64}"
readers_start 4 read_one x
# cgroups made, directories made and removed from inside, then removed
cg_churn mi-slchurn 'mkdir -p "$2/a/b/c" && rm -rf "$2"' "$T/fs/churn" &
pids="$pids $!"
sleep "$SECS"
readers_stop 4 "cgroup_slabs in ${SECS}s under churn and cgroup churn"
churn_stop
