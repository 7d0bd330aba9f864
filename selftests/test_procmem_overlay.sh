#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vmas of processes that map files from an overlayfs mount (every container
# does): each row's dev, inode and path equal /proc/PID/maps's.  Since 6.8
# the VMA holds a backing file (the layer's) and maps prints the overlay's
# path (file_user_path()), and with file_user_inode() its dev and inode;
# before, maps prints the mapped file's own (docs/procmem.md, "vmas").
# Targets: busybox run from the lower layer, a copy of it written through
# the overlay (the upper layer), and memtarget basic with its data file on
# the overlay (a shared and a private file mapping).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

# the overlay, unmounted at exit (once its processes are gone)
unmount()
{
	umount "$T/merged" 2>/dev/null
}
mi_setup overlay unmount
MT=${MI_MEMTARGET:-$ST_DIR/progs/memtarget}

require_file "$MI_DIR/vmas"
require_caps "vmas of processes mapping overlayfs files" pid_select
ost=$(cat /meminspect/overlay/status 2>/dev/null)
mkdir -p "$T/lower" "$T/upper" "$T/work" "$T/merged"
if ! grep -qw overlay /proc/filesystems; then
	skip "vmas of processes mapping overlayfs files" "no overlay filesystem (${ost:-no /meminspect/overlay/status: not a scripts/vm-run guest})"
	exit 0
fi
diag "overlay: ${ost:-?}"
# the guest's busybox itself (ash's "command -v" names its applets only)
bb=/bin/busybox
[ -x "$bb" ] || bb=$(readlink -f /bin/sh)
cp "$bb" "$T/lower/busybox" || { fail "copy busybox ($bb) into the lower layer"; exit 0; }
if ! mount -t overlay overlay \
	-o "lowerdir=$T/lower,upperdir=$T/upper,workdir=$T/work" "$T/merged"; then
	fail "mount an overlay of two tmpfs directories"
	exit 0
fi
. "$ST_DIR/lib_procmem.sh"

# maps_rows PID: start dev inode path, one line per VMA (no [vsyscall])
maps_rows()
{
	awk '$6 == "[vsyscall]" { next }
	     { split($1, r, "-"); s = r[1]; sub(/^0+/, "", s); if (s == "") s = 0
	       p = ""; for (i = 6; i <= NF; i++) p = p (i > 6 ? " " : "") $i
	       print s, $4, $5, (p == "" ? "-" : p) }' "/proc/$1/maps"
}

# vmas_rows PID: the same four from vmas (names of anonymous VMAs: maps'
# [anon:...] and ours differ by design, so only file rows are compared)
vmas_rows()
{
	pm_read vmas "$1" | awk 'NR == 1 { n = NF; next } /^#/ { next }
	     { s = $1; sub(/^0x0*/, "", s); if (s == "") s = 0
	       p = $n; for (i = n + 1; i <= NF; i++) p = p " " $i
	       print s, $6, $7, p }'
}

# check_overlay NAME PID: every file row of vmas equals maps' row; at
# least one of them is a file of the overlay, as maps shows it
check_overlay()
{
	_r=0
	while [ $_r -lt 3 ]; do
		_r=$((_r + 1))
		maps_rows "$2" > "$T/m1"
		vmas_rows "$2" > "$T/v"
		maps_rows "$2" > "$T/m2"
		cmp -s "$T/m1" "$T/m2" && break
	done
	# file rows (inode not 0) of either side must be the same line
	awk 'FNR == NR { m[$1] = $0; if ($3 != 0) f[$1] = 1; next }
	     { v[$1] = $0; if ($3 != 0) f[$1] = 1 }
	     END { for (s in f) { rows++
			if (m[s] != v[s]) print "vmas: " v[s] " | maps: " m[s] }
		   if (!rows) print "no file rows" }' "$T/m1" "$T/v" > "$T/diff"
	_seen=$(awk -v d="$T/" '$3 != 0 && index($4, d) == 1 { print $4 }' "$T/m1" | sort -u | tr '\n' ' ')
	if [ -s "$T/diff" ]; then
		fail "$1: every file row of vmas has maps' dev, inode and path"
		head -n 10 "$T/diff" | while read -r l; do diag "$l"; done
	else
		ok "$1: every file row of vmas has maps' dev, inode and path ($(awk '$3 != 0' "$T/m1" | wc -l) rows; files under $T: ${_seen:-none})"
	fi
	check "$1: maps shows a file of the overlay or its layers (${_seen:-none})" \
		test -n "$_seen"
	grep " $T/" "$T/m1" | sort -u -k4 | head -n 3 | sed 's/^/# maps: /'
}

# busybox from the lower layer, not copied up: maps it read-only
"$T/merged/busybox" sleep 1000 &
p1=$!
pids="$pids $p1"
# a copy written through the overlay: lives in the upper layer
cp "$T/merged/busybox" "$T/merged/busybox2"
"$T/merged/busybox2" sleep 1000 &
p2=$!
pids="$pids $p2"
sleep 0.5
check_overlay "busybox sleep from the overlay's lower layer" "$p1"
check_overlay "busybox sleep copied up through the overlay" "$p2"

if start_target "$T/basic.out" basic "$T/merged"; then
	check_overlay "memtarget basic, its data file on the overlay" "$tpid"
else
	fail "memtarget basic with its data file on the overlay gets ready"
fi
