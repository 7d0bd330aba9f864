#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# files (the page cache by inode) against the kernel's own answers in the same VM: each
# file's pages against mincore() (progs/mincount) in a bracket mincount, files, mincount;
# on a tmpfs file the suite writes sparsely, on busybox (the guest's own, which the suite did
# not write) and, where the guest has Debian's ext4 module, on an ext4 file system on a brd
# ramdisk: pages read by another process, dirty pages after a write without sync (exactly the
# pages written, 0 after sync); the cgroup of a file written (tmpfs) and of one read (ext4)
# by a process in a new cgroup v2 child, and of one written from the root cgroup, against
# that process's /proc/PID/cgroup; the total against /proc/meminfo Cached + Buffers in a
# bracket; under churn and four concurrent readers.  docs/files.md.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"

KNOB=/sys/module/meminspect/parameters/files_top
DRIVERS=/meminspect/drivers
EXT4=/meminspect/ext4
CG=/sys/fs/cgroup
CGC=mi-files
mnt_tmp= mnt_ext4= knob_was= cg_mounted= cg_child=
files_restore()
{
	churn_kill
	[ -z "$knob_was" ] || echo "$knob_was" > "$KNOB"
	[ -z "$mnt_tmp" ] || umount "$mnt_tmp"
	[ -z "$mnt_ext4" ] || umount "$mnt_ext4"
	rmmod brd 2> /dev/null
	# page cache still charged to it leaves it dying, which rmdir allows
	[ -z "$cg_child" ] || rmdir "$CG/$CGC"
	[ -z "$cg_mounted" ] || umount "$CG"
}
mi_setup files files_restore
churn_pid=

require_file "$MI_DIR/files"
require_caps "files: the walk" files.walk

check_header "files: header" "$MI_DIR/files" "dev ino pages dirty writeback cgroup path"

# ---- the cgroup: the memory controller as cgroup v2's root lists it ----
if ! awk -v cg="$CG" '$2 == cg && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts; then
	mkdir -p "$CG" && mount -t cgroup2 none "$CG" && cg_mounted=1
fi
memcg_on=no
grep -qw memory "$CG/cgroup.controllers" 2> /dev/null && memcg_on=yes
check_eq "files: files.cgroup available as cgroup.controllers lists memory" \
	"$(cap_available files.cgroup)" "$memcg_on"
if [ "$memcg_on" = yes ]; then
	echo +memory > "$CG/cgroup.subtree_control" 2> /dev/null
	mkdir "$CG/$CGC" && cg_child=1 || fail "files: mkdir $CG/$CGC"
fi
# in_cgroup CMD...: run CMD in the child cgroup, its /proc/self/cgroup v2 path in $T/cgpath
in_cgroup()
{
	sh -c 'echo $$ > "$1/cgroup.procs" &&
		awk -F: "\$1 == 0 { print \$3 }" /proc/self/cgroup > "$2" && shift 2 && "$@"' \
		sh "$CG/$CGC" "$T/cgpath" "$@"
}
# files_cg DESC DEV INO FILE EXPECTED: the cgroup files gives inode DEV INO in FILE
files_cg()
{
	check_eq "$1" "$(awk -v d="$2" -v i="$3" 'NR > 1 && !/^#/ && $1 == d && $2 == i { print $6 }' "$4")" \
		"$5"
}

# ---- the knob ----
read -r knob_was < "$KNOB"
check_eq "files: files_top defaults to 100" "$knob_was" 100
echo 0 > "$KNOB" 2> /dev/null
r1=$(cat "$KNOB")
echo 10001 > "$KNOB" 2> /dev/null
check_eq "files: files_top refuses 0 and 10001" "$r1 $(cat "$KNOB")" "100 100"
echo 3 > "$KNOB"
cat "$MI_DIR/files" > "$T/f3"
check_eq "files: files_top=3 shows 3 inodes" "$(awk 'NR > 1 && !/^#/' "$T/f3" | wc -l)" 3
sorted=$(awk 'NR > 1 && !/^#/ { if (p != "" && $3 > p) bad = 1; p = $3 } END { print bad ? "no" : "yes" }' "$T/f3")
check_eq "files: most pages first" "$sorted" yes
echo 10000 > "$KNOB"

# files_row DEV INO FILE: "pages dirty writeback path" of that inode in FILE
files_row()
{
	awk -v d="$1" -v i="$2" 'NR > 1 && !/^#/ && $1 == d && $2 == i {
		p = $0; for (k = 1; k < 7; k++) sub(/^[^ ]* /, "", p)
		print $3, $4, $5, p; f = 1; exit } END { exit !f }' "$3"
}

# against FILE DESC: files' pages of FILE against mincore's, in a bracket read in one process
# (mincount, files, mincount); the path against /proc/self/maps'
against()
{
	"$ST_DIR/progs/mincount" "$1" > "$T/m1" &&
		cat "$MI_DIR/files" > "$T/f" &&
		"$ST_DIR/progs/mincount" "$1" > "$T/m2" || { fail "$2: mincount, files, mincount"; return; }
	read -r dev ino res1 _ mpath < "$T/m1"
	read -r _ _ res2 _ _ < "$T/m2"
	row=$(files_row "$dev" "$ino" "$T/f") || row="- - - -"
	set -- "$2" $row
	check_between "$1: pages ($dev $ino) as mincore() reports" "$2" "$res1" "$res2" 0
	rel=${5:-}
	# the module's path is within the file system: the end of maps' path
	case $mpath in
	*"$rel") ok "$1: path '$rel' ends maps' '$mpath'" ;;
	*) fail "$1: path '$rel' ends maps' '$mpath'" ;;
	esac
	[ "$res1" -gt 0 ] || fail "$1: the file has pages cached"
}

# ---- tmpfs: a sparse file, pages at known offsets ----
mnt_tmp=$T/tmpfs
mkdir -p "$mnt_tmp" && mount -t tmpfs none "$mnt_tmp" || fail "files: mount tmpfs"
: > "$mnt_tmp/sparse"
for off in 0 3 7 100 101 102 500 1023; do
	dd if=/dev/zero of="$mnt_tmp/sparse" bs=4096 seek=$off count=1 conv=notrunc 2> /dev/null
done
against "$mnt_tmp/sparse" "files: tmpfs sparse file"
check_eq "files: tmpfs sparse file has the 8 pages written" "$(files_row $(awk '{ print $1, $2 }' "$T/m1") "$T/f" | cut -d' ' -f1-3)" "8 0 0"
root_cg=$(awk -F: '$1 == 0 { print $3 }' /proc/self/cgroup)
if [ -n "$cg_child" ]; then
	# written by this shell: charged to its cgroup (the root one here)
	files_cg "files: tmpfs file written from cgroup $root_cg names it" \
		$(awk '{ print $1, $2 }' "$T/m1") "$T/f" "$root_cg"
	# two files, each 10 pages written by one cgroup then 30 by the other: the one charged
	# for the most pages is named, not the first's
	dd if=/dev/zero of="$mnt_tmp/incg" bs=4096 count=10 2> /dev/null
	in_cgroup dd if=/dev/zero of="$mnt_tmp/incg" bs=4096 seek=10 count=30 conv=notrunc \
		2> /dev/null || fail "files: a write in $CGC"
	in_cgroup dd if=/dev/zero of="$mnt_tmp/inroot" bs=4096 count=10 2> /dev/null ||
		fail "files: a write in $CGC"
	dd if=/dev/zero of="$mnt_tmp/inroot" bs=4096 seek=10 count=30 conv=notrunc 2> /dev/null
	"$ST_DIR/progs/mincount" "$mnt_tmp/incg" "$mnt_tmp/inroot" > "$T/m3"
	cat "$MI_DIR/files" > "$T/f"
	files_cg "files: tmpfs file, 30 of 40 pages written in $(cat "$T/cgpath"), names it" \
		$(awk 'NR == 1 { print $1, $2 }' "$T/m3") "$T/f" "$(cat "$T/cgpath")"
	files_cg "files: tmpfs file, 30 of 40 pages written in $root_cg, names it" \
		$(awk 'NR == 2 { print $1, $2 }' "$T/m3") "$T/f" "$root_cg"
else
	skip "files: the cgroup of tmpfs files" "$(cap_detail files.cgroup)"
fi

# ---- a file the suite did not write: busybox, read by a process ----
cat /bin/busybox > /dev/null
against /bin/busybox "files: /bin/busybox"

# ---- ext4 on a brd ramdisk: read, then dirty ----
if mi_ext4_on_brd files "files: ext4" "$EXT4" "$DRIVERS" "$T/ext4"; then
	mnt_ext4=$T/ext4
	dd if=/dev/urandom of="$mnt_ext4/data" bs=4096 count=2048 2> /dev/null
	# none of it cached before the read, so that what is cached after it is
	# charged to the reader: dropped again while mincore() still sees pages
	# (a folio busy when drop_caches passes stays, charged to the writer:
	# once on 7.3 the root was charged for most of the file)
	_i=0
	while :; do
		sync
		echo 1 > /proc/sys/vm/drop_caches
		res=$("$ST_DIR/progs/mincount" "$mnt_ext4/data" | awk '{ print $3 }')
		[ "${res:-x}" = 0 ] && break
		_i=$((_i + 1))
		[ "$_i" -lt 20 ] || { diag "files: ext4 data: $res pages still cached after 20 drops"; break; }
		mi_nap 0.2
	done
	# another process (in the child cgroup where there is one) reads 1 MiB of it at
	# offset 2 MiB: the cache is what it read and what readahead added, which mincore()
	# reports, and is charged to that process's cgroup
	if [ -n "$cg_child" ]; then
		in_cgroup dd if="$mnt_ext4/data" of=/dev/null bs=4096 skip=512 count=256 2> /dev/null
	else
		dd if="$mnt_ext4/data" of=/dev/null bs=4096 skip=512 count=256 2> /dev/null
	fi
	against "$mnt_ext4/data" "files: ext4 file read"
	[ -z "$cg_child" ] ||
		files_cg "files: ext4 file read in $(cat "$T/cgpath") names it" \
			$(awk '{ print $1, $2 }' "$T/m1") "$T/f" "$(cat "$T/cgpath")"
	# 17 pages written without sync: dirty until writeback (30 s away by default)
	dd if=/dev/zero of="$mnt_ext4/data" bs=4096 seek=1500 count=17 conv=notrunc 2> /dev/null
	cat "$MI_DIR/files" > "$T/fd"
	set -- $(files_row $(awk '{ print $1, $2 }' "$T/m1") "$T/fd")
	check_eq "files: ext4 dirty after writing 17 pages without sync" "${2:-}" 17
	sync
	cat "$MI_DIR/files" > "$T/fs"
	set -- $(files_row $(awk '{ print $1, $2 }' "$T/m1") "$T/fs")
	check_eq "files: ext4 dirty and writeback after sync" "${2:-} ${3:-}" "0 0"
fi

# ---- the total against /proc/meminfo ----
# Cached + Buffers is NR_FILE_PAGES less the swap cache: every page of every mapping, which
# files sums over every inode of every super block (bdev's too, Buffers).  Pages added or
# removed between the three reads move both; the bracket takes that.
# /proc/meminfo reads the global node counters without the per-CPU deltas not yet folded in
# (vmstat_update(), every second): off by up to the stat threshold per CPU (zoneinfo's
# "vm stats threshold"), which a reading of every inode is not.
vm_drift=$(awk '/vm stats threshold/ { if ($4 > m) m = $4 } END { print m + 0 }' /proc/zoneinfo)
vm_drift=$((vm_drift * $(grep -c '^processor' /proc/cpuinfo)))
diag "files: meminfo's per-CPU drift bound: $vm_drift pages"
total_check()
{
	snap_files "$T/mi1" /proc/meminfo "$T/ft" "$MI_DIR/files" "$T/mi2" /proc/meminfo ||
		{ fail "$1: snap"; return; }
	lo=$((($(meminfo Cached "$T/mi1") + $(meminfo Buffers "$T/mi1")) / MI_PAGE_KB))
	hi=$((($(meminfo Cached "$T/mi2") + $(meminfo Buffers "$T/mi2")) / MI_PAGE_KB))
	[ "$lo" -le "$hi" ] || { _x=$lo; lo=$hi; hi=$_x; }
	tot=$(awk '$1 == "#" && $2 == "total:" { print $6 }' "$T/ft")
	check_between "$1: total pages against meminfo Cached + Buffers" "${tot:--}" "$lo" "$hi" \
		"$(max "$2" "$vm_drift")"
	d1=$(($(meminfo Dirty "$T/mi1") / MI_PAGE_KB))
	d2=$(($(meminfo Dirty "$T/mi2") / MI_PAGE_KB))
	dt=$(awk '$1 == "#" && $2 == "total:" { print $8 }' "$T/ft")
	check_between "$1: total dirty against meminfo Dirty" "${dt:--}" "$(min "$d1" "$d2")" \
		"$(max "$d1" "$d2")" "$(max "$3" "$vm_drift")"
}
total_check "files: at rest" 64 8

# ---- under churn, four concurrent readers ----
read_files()
{
	cat "$MI_DIR/files" > "$T/rd$1" && tail -n 1 "$T/rd$1" | grep -q '^# walk: '
}
churn_start 60 32
readers_start 4 read_files files
mi_nap 3
churn_hold
total_check "files: under churn and 4 readers" 1024 64
churn_release
against "$mnt_tmp/sparse" "files: under churn, tmpfs sparse file"
readers_stop 4 files
churn_stop
