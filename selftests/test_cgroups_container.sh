#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cgroups and files of a container built as Docker builds one, from what the guest has: an
# overlayfs root (the kernel's overlay module) whose lower layer is on ext4 (Debian's module,
# on Debian's brd) with a static busybox, mincount and a 24 MiB data file, whose upper and
# work directories are on a tmpfs; a cgroup at Docker's 91-byte path
# /system.slice/docker-<64 hex>.scope, joined before the container starts; unshare -m -p -f
# and chroot into the merged root.  Inside, busybox dd reads the data file into the page
# cache, dd writes 16 MiB on the upper layer (shmem charged to the container),
# mkdir and touch make 3000 directories and files (dentries and inodes: slab), the shell
# holds 16 MiB of anon in a variable and mincount -w keeps both files mapped.  Checked:
# the container's cgroups record (id, path, anon, file, shmem and, where the capabilities
# row says yes, slab) against its memory.stat in a bracket; the files rows of the data file
# (its page cache is the lower ext4 inode's) and the upper file against mincore(), with
# the container's cgroup; /proc/PID/maps of the container's mapping against the row;
# procs and meminspect top read inside the container's pid namespace (nsenter); after the
# container exits, rmdir: dying with its page cache (or its parent's), gone after
# drop_caches.  docs/cgroups.md and docs/files.md (Tests).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_cg.sh"

CG=/sys/fs/cgroup
DRIVERS=${MI_DRIVERS:-/meminspect/drivers}
EXT4=/meminspect/ext4
PG=$((${MI_PAGE_KB:-4} * 1024))
DATA_MIB=24 UP_MIB=16 ANON_MIB=16 NDIRS=3000
# Docker's name for a container's cgroup under systemd: docker-<the container id>.scope
CID=$(echo meminspect-container | sha256sum | cut -c1-64)
CPATH=/system.slice/docker-$CID.scope
C=$CG$CPATH
KNOB=/sys/module/meminspect/parameters/files_top
cg_mounted= ss_made= mnt_ext4= mnt_low= mnt_up= mnt_ovl= ctr= knob_was=

# ctr_kill: SIGKILL to every process of the container's cgroup (its init, in a pid
# namespace, takes no other signal from outside), until the cgroup is empty
ctr_kill()
{
	[ -d "$C" ] || return 0
	_i=0
	# (cgroupfs files have size 0: read, not test -s)
	while _p=$(cat "$C/cgroup.procs") && [ -n "$_p" ] && [ $_i -lt 100 ]; do
		# shellcheck disable=SC2086
		kill -KILL $_p 2> /dev/null
		mi_nap 0.1
		_i=$((_i + 1))
	done
	[ -z "$ctr" ] || wait "$ctr" 2> /dev/null
	ctr=
}
ctr_cleanup()
{
	ctr_kill
	[ -z "$knob_was" ] || echo "$knob_was" > "$KNOB"
	[ -z "$mnt_ovl" ] || umount "$mnt_ovl"
	[ -z "$mnt_up" ] || umount "$mnt_up"
	[ -z "$mnt_ext4" ] || umount "$mnt_ext4"
	[ -z "$mnt_low" ] || umount "$mnt_low"
	rmmod brd 2> /dev/null
	[ -d "$C" ] && rmdir "$C"
	[ -z "$ss_made" ] || rmdir "$CG/system.slice" 2> /dev/null
	[ -z "$cg_mounted" ] || umount "$CG"
}
mi_setup container ctr_cleanup
M=$T/merged

require_file "$MI_DIR/cgroups"
require_file "$MI_DIR/files"

# files_row DEV INO FILE: "pages cgroup path" of that inode in a files table
files_row()
{
	awk -v d="$1" -v i="$2" 'NR > 1 && !/^#/ && $1 == d && $2 == i {
		p = $0; for (k = 1; k < 7; k++) sub(/^[^ ]* /, "", p)
		print $3, $6, p; f = 1; exit } END { exit !f }' "$3"
}

# ---- the cgroup, as systemd and Docker make it ----
if ! awk -v cg="$CG" '$2 == cg && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts; then
	mkdir -p "$CG" && mount -t cgroup2 none "$CG" && cg_mounted=1
fi
echo +memory > "$CG/cgroup.subtree_control" 2> /dev/null
[ -d "$CG/system.slice" ] || { mkdir "$CG/system.slice" && ss_made=1; }
if ! echo +memory > "$CG/system.slice/cgroup.subtree_control" || ! mkdir "$C"; then
	fail "container: cgroup2 with $CPATH, memory enabled in its parents"
	exit 0
fi
check_eq "container: the cgroup path is Docker's 91 bytes" "${#CPATH}" 91

# ---- the image: the lower layer on ext4, upper and work on a tmpfs ----
ovl_st=$(cat /meminspect/overlay/status 2> /dev/null)
if ! grep -qw overlay /proc/filesystems; then
	fail "container: overlayfs in the guest (${ovl_st:-no /meminspect/overlay/status})"
	exit 0
fi
if mi_ext4_on_brd container "container: the lower layer on ext4" "$EXT4" "$DRIVERS" \
	"$T/ext4"; then
	mnt_ext4=$T/ext4
	L=$mnt_ext4/lower
else
	# the rest of the container on a tmpfs lower layer (the debug kernel has no ext4):
	# the data file's page cache is then shmem the test wrote, checked nowhere
	mkdir -p "$T/lowtmp" && mount -t tmpfs none "$T/lowtmp" && mnt_low=$T/lowtmp ||
		fail "container: mount a tmpfs"
	L=$T/lowtmp/lower
fi
mnt_up=$T/up
mkdir -p "$L/bin" "$mnt_up" "$M" && mount -t tmpfs none "$mnt_up" &&
	mkdir "$mnt_up/upper" "$mnt_up/work" || { fail "container: the layers' directories"; exit 0; }
bb=/bin/busybox
[ -x "$bb" ] || bb=$(readlink -f /bin/sh)
cp "$bb" "$L/bin/busybox" && cp "$ST_DIR/progs/mincount" "$L/mincount" ||
	{ fail "container: busybox and mincount in the lower layer"; exit 0; }
for a in sh cat dd head tr mkdir touch seq sed xargs sleep mount; do
	ln -s busybox "$L/bin/$a"
done
mkdir "$L/proc" "$L/dev" && mknod "$L/dev/null" c 1 3 && mknod "$L/dev/zero" c 1 5 ||
	fail "container: /proc, /dev/null and /dev/zero in the lower layer"
dd if=/dev/urandom of="$L/data" bs=1048576 count=$DATA_MIB 2> /dev/null
# the container's init: its memory, then "ready", then it waits holding the variable
# dd reads the data file's size and no further: a read at EOF leaves a page past it in the
# cache on 5.10 (generic_file_buffered_read() adds the page before it checks i_size), which
# files counts (nrpages) and mincore() cannot see
cat > "$L/init.sh" << EOF
[ "\$1" = pidns ] && mount -t proc proc /proc
dd if=/data of=/dev/null bs=1048576 count=$DATA_MIB 2> /dev/null
dd if=/dev/zero of=/upper.bin bs=1048576 count=$UP_MIB 2> /dev/null
mkdir /many && cd /many && seq $NDIRS | sed 's/^/d/' | xargs mkdir && seq $NDIRS | sed 's,^,d,;s,\$,/f,' | xargs touch
cd /
v=\$(head -c $((ANON_MIB << 20)) /dev/zero | tr '\\0' a)
/mincount -w /data /upper.bin > /mc.out &
echo "ready \${#v}"
while :; do sleep 1000; done
EOF
if ! mount -t overlay overlay -o "lowerdir=$L,upperdir=$mnt_up/upper,workdir=$mnt_up/work" "$M"; then
	fail "container: mount the overlay (lower $L, upper and work on a tmpfs)"
	exit 0
fi
mnt_ovl=$M
# what the container reads comes from the disk, read by the container: charged to it
sync
echo 3 > /proc/sys/vm/drop_caches

# ---- the container ----
pidns=yes
unshare -p -f true 2> /dev/null || pidns=no
if [ "$pidns" = no ] && [ -e /proc/self/ns/pid ]; then
	fail "container: unshare -p -f works in the guest (the kernel has pid namespaces)"
	pidns=fail
fi
# its init mounts its /proc: busybox's unshare --mount-proc=DIR makes DIR private before
# it is a mount point, which the kernel refuses (EINVAL)
if [ "$pidns" = yes ]; then
	set -- unshare -m -p -f chroot "$M" /bin/sh /init.sh pidns
else
	set -- unshare -m -f chroot "$M" /bin/sh /init.sh
fi
sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$C" "$@" > "$T/ctr.out" 2>&1 &
ctr=$!
pids="$pids $ctr"
if ! wait_line "$T/ctr.out" ready "$ctr" 1800; then
	fail "container: its init got ready ($(head -c 300 "$T/ctr.out"))"
	exit 0
fi
# mincount -w's two lines and its ready
i=0
while ! mi_has_prefix "$M/mc.out" ready && [ $i -lt 300 ]; do
	mi_nap 0.1
	i=$((i + 1))
done
diag "container: $(head -n 1 "$T/ctr.out"), pid namespace: $pidns"

# ---- cgroups: the container's record against its memory.stat ----
snap_files "$T/s1" "$C/memory.stat" "$T/c" "$MI_DIR/cgroups" "$T/s2" "$C/memory.stat" ||
	fail "container: read memory.stat, cgroups, memory.stat"
check_eq "container: its record's id is stat -c %i of $CPATH" "$(rec "$T/c" "$CPATH" id)" \
	"$(stat -c %i "$C")"
check_eq "container: its record's path is the 91 bytes of $CPATH" \
	"$(awk -v p="$CPATH" 'NR > 1 && !/^#/ && $NF == p { print length($NF) }' "$T/c")" 91
# memory.stat lags the per-CPU charges it has not flushed: up to MEMCG_CHARGE_BATCH (64)
# pages a CPU (docs/cgroups.md, Tests)
lag=$((64 * $(nproc) * PG))
# (0 without a record: the id and path checks above fail then, and these against
# memory.stat's, which are not 0, and the lower bounds)
an=$(($(rec "$T/c" "$CPATH" anon_pages || echo 0) * PG))
cf=$(($(rec "$T/c" "$CPATH" file_pages || echo 0) * PG))
cs=$(($(rec "$T/c" "$CPATH" shmem_pages || echo 0) * PG))
for k in anon file shmem; do
	b=$(stat_of "$T/s1" "$k") a=$(stat_of "$T/s2" "$k")
	case $k in
	anon) got=$an ;;
	file) got=$((cf + cs)) ;;
	shmem) got=$cs ;;
	esac
	check_between "container: $k ($got bytes) within memory.stat's $k" \
		"$got" "$(min "$b" "$a")" "$(max "$b" "$a")" "$(tol_of "$a" "$lag" 3)"
done
check "container: holds its shell's $ANON_MIB MiB variable as anon ($an bytes)" \
	[ "$an" -ge $((ANON_MIB << 20)) ]
check "container: holds the upper layer's $UP_MIB MiB file as shmem ($cs bytes)" \
	[ "$cs" -ge $((UP_MIB << 20)) ]
[ -z "$mnt_ext4" ] ||
	check "container: holds the data file's page cache ($cf bytes of $DATA_MIB MiB)" \
		[ "$cf" -ge $((DATA_MIB * 1024 * 1024 * 9 / 10)) ]
if [ "$(cap_available cgroups.slab_bytes)" = yes ]; then
	sb=$(rec "$T/c" "$CPATH" slab_bytes)
	b=$(($(stat_of "$T/s1" slab_reclaimable) + $(stat_of "$T/s1" slab_unreclaimable)))
	a=$(($(stat_of "$T/s2" slab_reclaimable) + $(stat_of "$T/s2" slab_unreclaimable)))
	check_between "container: slab_bytes ($sb) within memory.stat's slab_reclaimable + slab_unreclaimable" \
		"$sb" "$(min "$b" "$a")" "$(max "$b" "$a")" "$(tol_of "$a" "$lag" 3)"
	# 2 x NDIRS dentries on the overlay and as many on the upper tmpfs, 192 bytes each
	check "container: slab_bytes holds the dentries of its $NDIRS directories and files ($sb bytes)" \
		[ "${sb:-0}" -ge $((NDIRS * 4 * 192)) ]
else
	skip "container: slab_bytes within memory.stat's slab" "$(cap_detail cgroups.slab_bytes)"
fi

# ---- files: the data file (the lower inode's page cache) and the upper file ----
ovl_dev=$(awk -v m="$M" '$5 == m { split($3, d, ":"); printf "%02x:%02x\n", d[1], d[2] }' \
	/proc/self/mountinfo | tail -n 1)
# against DESC REAL PATH-WITHIN-ITS-FS: files' row of the file REAL (the inode that holds
# the page cache) has mincore()'s pages, in the bracket mincount, files, mincount, names
# the container's cgroup and REAL's path within its file system
against()
{
	"$ST_DIR/progs/mincount" "$2" > "$T/m1" && cat "$MI_DIR/files" > "$T/f" &&
		"$ST_DIR/progs/mincount" "$2" > "$T/m2" || { fail "$1: mincount, files, mincount"; return; }
	read -r dev ino res1 _ < "$T/m1"
	read -r _ _ res2 _ < "$T/m2"
	set -- "$1" "$3" $(files_row "$dev" "$ino" "$T/f" || echo "- - -")
	check_between "$1: pages ($dev $ino) as mincore() reports" "$3" "$res1" "$res2" 0
	check_eq "$1: cgroup is the container's" "$4" "$CPATH"
	check_eq "$1: path within its file system" "$5" "$2"
	[ "$res1" -gt 0 ] || fail "$1: the file has pages cached"
}
# every inode listed: the two files whatever else the guest caches
read -r knob_was < "$KNOB"
echo 10000 > "$KNOB"
if [ -n "$mnt_ext4" ]; then
	against "container: files: the overlay's data file, as its lower ext4 inode" "$L/data" \
		/lower/data
	# the container's own mincore() through the overlay sees the same pages
	read -r _ _ mc_res _ mc_path < "$M/mc.out"
	check_eq "container: mincore() of /data inside the container = of the lower file" \
		"$mc_res" "$(awk '{ print $3 }' "$T/m2")"
	check_eq "container: /proc/self/maps inside the container names /data" "$mc_path" /data
	check_none "container: files lists no inode of the overlay ($ovl_dev)" \
		"$(awk -v d="$ovl_dev" 'NR > 1 && !/^#/ && $1 == d' "$T/f")"
	# maps of the container's mincount -w, read from outside: the overlay's path (the
	# merged one: the reader's root) on every kernel of the matrix; dev and inode the
	# lower file's where the mapped file is the layer's opened on the overlay's path (5.10,
	# 6.1: open_with_fake_path()), the overlay inode's where the kernel keeps that path
	# beside a backing file and maps shows it, file_user_path() and file_user_inode()
	# (6.12, 7.3): the kernel has backing_file_user_path(), which both read
	mcp=
	for p in $(cat "$C/cgroup.procs"); do
		[ "$(cat "/proc/$p/comm" 2> /dev/null)" = mincount ] && mcp=$p
	done
	read -r ldev lino _ < "$T/m1"
	mline=$(awk '$6 ~ /\/data$/ { print $4, $5, $6; exit }' "/proc/${mcp:-0}/maps" 2> /dev/null)
	diag "container: maps of mincount ($mcp): $mline; lower $ldev $lino; overlay $ovl_dev"
	set -- $mline
	check_eq "container: maps of its mapping of /data, read from outside, names $M/data" \
		"${3:-}" "$M/data"
	if grep -q ' backing_file_user_path$' /proc/kallsyms; then
		check_eq "container: maps' dev and inode of /data are the overlay inode's (backing_file_user_path() in kallsyms; files' row: the lower inode, $ldev $lino)" \
			"${1:-} ${2:-}" "$ovl_dev $(stat -c %i "$M/data")"
	else
		check_eq "container: maps' dev and inode of /data are the lower inode's, files' row (no backing_file_user_path() in kallsyms)" \
			"${1:-} ${2:-}" "$ldev $lino"
	fi
fi
against "container: files: the upper layer's file (tmpfs)" "$mnt_up/upper/upper.bin" \
	/upper/upper.bin

# ---- the container's pid namespace: procs and meminspect top inside it ----
if [ "$pidns" = yes ] && [ -x "$MI_READER" ]; then
	# the container's init: the process whose NSpid ends in 1 in a namespace below ours
	ip=
	for p in $(cat "$C/cgroup.procs"); do
		awk '$1 == "NSpid:" && NF > 2 && $NF == 1 { f = 1 } END { exit !f }' \
			"/proc/$p/status" 2> /dev/null && ip=$p
	done
	nsenter -t "${ip:-0}" -m -p sh -c '
		sh -c "echo \$\$ > \"$1/ns.reader\"; exec cat \"$2/procs\"" > "$1/ns.procs"
		for d in "$3"/proc/[0-9]*; do
			[ -n "$(head -c 1 "$d/smaps_rollup" 2> /dev/null)" ] && echo "${d##*/}"
		done > "$1/ns.all"
		sort -n "$1/ns.all" > "$1/ns.pids"
		sh -c "echo \$\$ > \"$1/ns.topr\"; exec \"$4\" top" > "$1/ns.top" 2>&1
		echo $? > "$1/ns.toprc"' sh "$T" "$MI_DIR" "$M" "$MI_READER"
	r=$(cat "$T/ns.reader" 2> /dev/null)
	awk -v r="$r" 'NR > 1 && !/^#/ && $1 != r { print $1 }' "$T/ns.procs" | sort -n > "$T/ns.ours"
	grep -vx "$r" "$T/ns.pids" > "$T/ns.want"
	check "container: procs inside its pid namespace lists the namespace's pids ($(tr '\n' ' ' < "$T/ns.ours")= $(tr '\n' ' ' < "$T/ns.want"))" \
		sh -c "cmp -s '$T/ns.ours' '$T/ns.want' && grep -qx 1 '$T/ns.want'"
	check_eq "container: meminspect top inside its pid namespace exits 0" "$(cat "$T/ns.toprc")" 0
	# top's rows but its own: the processes the namespace's /proc listed
	awk -v r="$(cat "$T/ns.topr")" 'NR > 1 && $1 ~ /^[0-9]+$/ && $1 != r { print $1 }' \
		"$T/ns.top" | sort -n > "$T/ns.tp"
	check "container: meminspect top inside its pid namespace shows its pids ($(tr '\n' ' ' < "$T/ns.tp")= $(tr '\n' ' ' < "$T/ns.pids"))" \
		sh -c "cmp -s '$T/ns.tp' '$T/ns.pids' && grep -qx 1 '$T/ns.tp'"
elif [ "$pidns" = no ]; then
	skip "container: procs and meminspect top inside its pid namespace" \
		"the kernel has no pid namespaces (CONFIG_PID_NS)"
elif [ "$pidns" = yes ]; then
	fail "container: $MI_READER is installed"
fi

# ---- the container exits; rmdir with its page cache live, then drop_caches ----
# page cache and shmem: the data file and busybox read from ext4, the upper layer's file
cfs() { echo $((($(rec "$1" "$CPATH" file_pages || echo 0) + $(rec "$1" "$CPATH" shmem_pages || echo 0)) * PG)); }
gone() { ! rec "$1" "$CPATH" state > /dev/null; }
held=$((cf + cs))
ctr_kill
rmdir "$C" || fail "container: rmdir $CPATH"
cat "$MI_DIR/cgroups" > "$T/c3"
st=$(rec "$T/c3" "$CPATH" state)
c3=$(cfs "$T/c3")
if [ "$(cap_available cgroups.dying_page_cache)" = yes ]; then
	check "container: removed, its cgroup is dying ($st) with its page cache and shmem ($c3 of $held bytes)" \
		[ "$st" = dying -a "$c3" -ge $((held * 9 / 10)) ]
else
	# its obj_cgroup moves to system.slice, and its folios with it, when the css goes
	# offline: after rmdir, from a work item
	i=0
	while [ "$c3" -ne 0 ] && [ "$i" -lt 25 ]; do
		mi_nap 0.2
		cat "$MI_DIR/cgroups" > "$T/c3"
		st=$(rec "$T/c3" "$CPATH" state)
		c3=$(cfs "$T/c3")
		i=$((i + 1))
	done
	sf=$((($(rec "$T/c3" /system.slice file_pages || echo 0) +
		$(rec "$T/c3" /system.slice shmem_pages || echo 0)) * PG))
	check "container: removed, its page cache and shmem are system.slice's ($sf of $held bytes; ${st:-gone}, $c3 bytes)" \
		[ "$sf" -ge $((held * 9 / 10)) -a "$c3" -eq 0 ]
fi
# the image goes: the upper layer's shmem with its tmpfs, the lower layer's file system
# (whose metadata blocks, read by the container's lookups, are charged to it and held by
# their buffer heads while it is mounted), and the container's output (a shmem page of
# the test's tmpfs written from inside); then the page cache
umount "$M" && mnt_ovl=
umount "$mnt_up" && mnt_up=
[ -z "$mnt_ext4" ] || { umount "$mnt_ext4" && mnt_ext4=; }
rm -f "$T/ctr.out"
echo 3 > /proc/sys/vm/drop_caches
cg_drain_stocks "$CG"
# the memcg is freed after its last page, an RCU grace period and a work item
i=0
while [ "$i" -lt 100 ]; do
	cat "$MI_DIR/cgroups" > "$T/c4"
	gone "$T/c4" && break
	mi_nap 0.2
	i=$((i + 1))
done
check "container: after drop_caches its cgroup is gone (after $i rounds of 0.2 s)" gone "$T/c4"
# where the parent took the pages over, they went with the image and drop_caches
if [ "$(cap_available cgroups.dying_page_cache)" != yes ]; then
	sf4=$((($(rec "$T/c4" /system.slice file_pages || echo 0) +
		$(rec "$T/c4" /system.slice shmem_pages || echo 0)) * PG))
	check "container: its pages left system.slice after drop_caches ($sf4 bytes, $sf before)" \
		[ "$sf4" -le $((sf - held * 9 / 10)) ]
fi
gone "$T/c4" || { grep -F "$CPATH" "$T/c4"; grep -F "$CPATH" "$MI_DIR/files"; } | tap_diag
