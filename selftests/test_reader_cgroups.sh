#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The reader's cgroups views on a real guest: 12 memory cgroups under /mi-rc,
# each given by a busybox process its own amount of page cache (a slice of a
# brd ramdisk read, file_pages) and of tmpfs (shmem_pages), in opposite
# orders, then:
# - meminspect cgroups --sort KEY, for every key, on one read of the module's
#   file saved (--dir): the order the file's own figures give, computed here
#   (largest first, id ascending, path in byte order, ties in the file's
#   order, '-' last for slab and nothing in total); and live, the 12
#   cgroups in the order the test made them (file: c12 first, shmem: c01);
# - a bad --sort key: the usage exit status (2), the keys named;
# - export --cgroup-series 5 on the saved read: exactly the 5 cgroups the
#   rank gives (dying first, then by total), series_dropped = records - 5,
#   dying and dying_bytes from the file's figures; live: 5 series per
#   metric, series_dropped = records - 5 and dying = the dying records of a
#   read before and after;
# - after rmdir of c06 with its page cache (capabilities
#   cgroups.dying_page_cache yes: it stays dying), c06's series are exported
#   under the cap of 5 though 5 others are larger: dying ones come first.
# The format of every cgroups line of the export is checked here (promtool
# is not in the guest; test_export.sh sends the default export to the host's).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

CG=/sys/fs/cgroup
DRIVERS=${MI_DRIVERS:-/meminspect/drivers}
PG=$((${MI_PAGE_KB:-4} * 1024))
R=$CG/mi-rc
cg_mounted=
brd_loaded=
tmpfs_mounted=

rc_cleanup()
{
	exec 7<&-
	[ -n "$tmpfs_mounted" ] && umount "$T/tmpfs"
	for d in "$R"/c* "$R"; do
		[ -d "$d" ] && rmdir "$d" 2> /dev/null
	done
	echo 3 > /proc/sys/vm/drop_caches
	[ -n "$brd_loaded" ] && rmmod brd 2> /dev/null
	[ -n "$cg_mounted" ] && umount "$CG"
}
mi_setup reader_cgroups rc_cleanup

require_file "$MI_DIR/cgroups"
require_reader

if ! awk -v cg="$CG" '$2 == cg && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts; then
	mkdir -p "$CG" && mount -t cgroup2 none "$CG" && cg_mounted=1
fi
echo +memory > "$CG/cgroup.subtree_control" 2> /dev/null
st=$(cat "$DRIVERS/status" 2> /dev/null)
if [ "$st" != ready ]; then
	fail "reader cgroups: brd.ko in the guest (${st:-no $DRIVERS/status})"
	exit 0
fi
rmmod brd 2> /dev/null
if ! insmod "$DRIVERS/brd.ko" rd_nr=1 rd_size=32768; then
	fail "reader cgroups: brd loads"
	exit 0
fi
brd_loaded=1
# held open: the last close of a block device drops its page cache; no
# readahead, which would charge the next cgroup's slice to the reader
exec 7< /dev/ram0
echo 0 > /sys/block/ram0/queue/read_ahead_kb || diag "read_ahead_kb of ram0 not set to 0"
mkdir -p "$T/tmpfs"
if ! mount -t tmpfs none "$T/tmpfs" || ! mkdir "$R" ||
	! echo +memory > "$R/cgroup.subtree_control"; then
	fail "reader cgroups: tmpfs, and cgroup2's /mi-rc with memory enabled below it"
	exit 0
fi
tmpfs_mounted=1

# cN: N x 256 KiB of the ramdisk's page cache (its own slice) and (13 - N) x
# 128 KiB of tmpfs; total 128 KiB x (N + 13).  Figures 32 pages apart at least.
i=1
while [ $i -le 12 ]; do
	n=$(printf c%02d $i)
	if ! mkdir "$R/$n" ||
		! sh -c 'echo $$ > "$1/cgroup.procs" &&
			dd if=/dev/ram0 of=/dev/null bs=256k skip=$(($2 * ($2 - 1) / 2)) count=$2 2> /dev/null &&
			dd if=/dev/zero of="$3" bs=128k count=$((13 - $2)) 2> /dev/null' \
			sh "$R/$n" $i "$T/tmpfs/$n"; then
		fail "reader cgroups: /mi-rc/$n filled"
	fi
	i=$((i + 1))
done

# order FILE KEY: the ids of FILE's records in --sort KEY's order, from the
# file's own figures (an insertion sort: stable, ties keep the file's order)
order()
{
	awk -v key="$2" -v pg="$PG" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	/^#/ { next }
	{
		n++; id[n] = $1; path[n] = $NF; known[n] = 1
		if (key == "total") {
			v[n] = ($col["anon_pages"] + $col["file_pages"] + $col["shmem_pages"]) * pg
			if ($col["slab_bytes"] != "-")
				v[n] += $col["slab_bytes"]
		} else if (key == "id") {
			v[n] = $1
		} else if (key != "path") {
			f = key == "slab" ? "slab_bytes" : key "_pages"
			if ($col[f] == "-")
				known[n] = 0
			else
				v[n] = $col[f]
		}
		o[n] = n
		for (j = n; j > 1 && before(n, o[j - 1]); j--)
			o[j] = o[j - 1]
		o[j] = n
	}
	# a before b (strictly): ties keep the file order
	function before(a, b) {
		if (key == "path")
			return path[a] < path[b]
		if (known[a] != known[b])
			return known[a]
		if (!known[a])
			return 0
		if (key == "id")
			return v[a] + 0 < v[b] + 0
		return v[a] + 0 > v[b] + 0
	}
	END { for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? " " : ""), id[o[i]]; print "" }' "$1"
}
# ids_of TEXT: the first column of a table's records
ids_of() { printf '%s\n' "$1" | awk 'NR > 1 && !/^#/ { printf "%s%s", s, $1; s = " " } END { print "" }'; }
# mine TEXT: the /mi-rc children's names in the table's order
mine() { printf '%s\n' "$1" | awk 'NR > 1 && !/^#/ && $NF ~ "^/mi-rc/" { sub("/mi-rc/", "", $NF); printf "%s%s", s, $NF; s = " " } END { print "" }'; }

# -- --sort on one read, saved ----------------------------------------------------
mkdir -p "$T/sd"
cat "$MI_DIR/cgroups" > "$T/sd/cgroups" || fail "reader cgroups: read"
printf 'name kind available detail\ncgroups file yes saved\n' > "$T/sd/capabilities"
nrec=$(awk 'NR > 1 && !/^#/' "$T/sd/cgroups" | wc -l)
for k in id path anon file shmem slab total; do
	out=$("$MI_READER" --dir "$T/sd" cgroups --sort $k 2> "$T/err")
	tap_is "reader cgroups: --sort $k on a saved read ($nrec records): the order of the file's figures" \
		"$(order "$T/sd/cgroups" $k)" "$(ids_of "$out")"
	[ -s "$T/err" ] && tap_diag < "$T/err"
done
out=$("$MI_READER" --dir "$T/sd" --json cgroups --sort total 2> /dev/null |
	awk -F'"' '$2 == "id" { sub(/^: */, "", $3); sub(/,.*/, "", $3); printf "%s%s", s, $3; s = " " } END { print "" }')
tap_is "reader cgroups: --json --sort total on the saved read: the objects in that order" \
	"$(order "$T/sd/cgroups" total)" "$out"
# the figures the test made: not the file's order (c01 first) for file and total
tap_is "reader cgroups: --sort file on the saved read: the 12 cgroups by the page cache they read" \
	"c12 c11 c10 c09 c08 c07 c06 c05 c04 c03 c02 c01" \
	"$(mine "$("$MI_READER" --dir "$T/sd" cgroups --sort file 2> /dev/null)")"
tap_is "reader cgroups: the file's own order of the 12 cgroups: the tree's" \
	"c01 c02 c03 c04 c05 c06 c07 c08 c09 c10 c11 c12" "$(mine "$(cat "$T/sd/cgroups")")"

# -- live: the reader's own read ----------------------------------------------------
for k in file:"c12 c11 c10 c09 c08 c07 c06 c05 c04 c03 c02 c01" \
	shmem:"c01 c02 c03 c04 c05 c06 c07 c08 c09 c10 c11 c12" \
	total:"c12 c11 c10 c09 c08 c07 c06 c05 c04 c03 c02 c01"; do
	tap_is "reader cgroups: live --sort ${k%%:*}: the 12 cgroups in the order of what they hold" \
		"${k#*:}" "$(mine "$("$MI_READER" cgroups --sort "${k%%:*}" 2> /dev/null)")"
done

# -- a bad key --------------------------------------------------------------------
"$MI_READER" cgroups --sort size > "$T/out" 2> "$T/err"
st=$?
check_eq "reader cgroups: --sort size: the usage exit status, nothing on stdout" "$st $(wc -c < "$T/out")" "2 0"
check "reader cgroups: --sort size: the message names the keys" \
	grep -q "takes id, path, anon, file, shmem, slab or total, not 'size'" "$T/err"

# -- export --cgroup-series 5 ---------------------------------------------------------
# rank FILE N: the ids export keeps (dying first, then by total; ties in file
# order), in the file's order; then dropped, dying and dying_bytes
rank()
{
	order "$1" total > "$T/tot"
	awk -v cap="$2" -v pg="$PG" -v tot="$(cat "$T/tot")" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	/^#/ { next }
	{
		n++; id[n] = $1; dead[$1] = $2 == "dying"
		if ($2 == "dying") {
			nd++
			b = ($col["anon_pages"] + $col["file_pages"] + $col["shmem_pages"]) * pg
			if ($col["slab_bytes"] != "-")
				b += $col["slab_bytes"]
			db += b
		}
	}
	END {
		m = split(tot, t, " ")
		for (i = 1; i <= m; i++)
			if (dead[t[i]] && k < cap) keep[t[i]] = ++k
		for (i = 1; i <= m; i++)
			if (!dead[t[i]] && k < cap) keep[t[i]] = ++k
		for (i = 1; i <= n; i++)
			if (keep[id[i]]) { printf "%s%s", s, id[i]; s = " " }
		printf " | %d %d %.0f\n", n - k, nd, db
	}' "$1"
}
# got_rank EXPORT: the same from an export's text
got_rank()
{
	awk '/^meminspect_cgroups_file_pages\{/ { sub(/^[^"]*"/, ""); sub(/".*/, ""); printf "%s%s", s, $0; s = " " }
		/^meminspect_cgroups_series_dropped / { d = $2 } /^meminspect_cgroups_dying / { nd = $2 }
		/^meminspect_cgroups_dying_bytes / { db = $2 }
		END { printf " | %s %s %s\n", d, nd, db }' "$1"
}
# format EXPORT: cgroups lines that are not a HELP, a TYPE gauge or a sample
format()
{
	grep 'meminspect_cgroups_' "$1" | grep -Ev '^# HELP meminspect_cgroups_[a-z_]+ .|^# TYPE meminspect_cgroups_[a-z_]+ gauge$|^meminspect_cgroups_[a-z_]+(\{id="[0-9]+",state="(online|dying)",path="[^"]*"\})? [0-9]+$'
}
# export_checks WHEN: export --cgroup-series 5 on a saved read and live
export_checks()
{
	cat "$MI_DIR/cgroups" > "$T/sd/cgroups"
	"$MI_READER" --dir "$T/sd" export --prometheus --cgroup-series 5 > "$T/e" 2> "$T/err"
	check_eq "reader cgroups: $1: export --cgroup-series 5 of a saved read: its exit status" "$?" 0
	tap_is "reader cgroups: $1: export --cgroup-series 5 of a saved read: the 5 cgroups of the rank, dropped, dying, dying_bytes" \
		"$(rank "$T/sd/cgroups" 5)" "$(got_rank "$T/e")"
	check_none "reader cgroups: $1: the export's cgroups lines are HELP, TYPE gauge or samples" "$(format "$T/e")"
	# live: records before and after the export (the test alone makes cgroups now)
	for _try in 1 2 3 4 5; do
		cat "$MI_DIR/cgroups" > "$T/l1"
		"$MI_READER" export --prometheus --cgroup-series 5 > "$T/e" 2> "$T/err"
		cat "$MI_DIR/cgroups" > "$T/l2"
		_b=$(awk 'NR > 1 && !/^#/ { n++; d += $2 == "dying" } END { print n + 0, d + 0 }' "$T/l1")
		_a=$(awk 'NR > 1 && !/^#/ { n++; d += $2 == "dying" } END { print n + 0, d + 0 }' "$T/l2")
		[ "$_b" = "$_a" ] && break
		mi_nap 0.2
	done
	_series=$(for m in anon_pages file_pages shmem_pages; do grep -c "^meminspect_cgroups_$m{" "$T/e"; done | tr '\n' ' ')
	tap_is "reader cgroups: $1: live export --cgroup-series 5: 5 series of each page figure" \
		"5 5 5 " "$_series"
	tap_is "reader cgroups: $1: live export: series_dropped = records - 5, dying = the dying records (records, dying: $_b then $_a)" \
		"$((${_a% *} - 5)) ${_a#* }" \
		"$(awk '/^meminspect_cgroups_series_dropped / { d = $2 } /^meminspect_cgroups_dying / { n = $2 } END { print d, n }' "$T/e")"
	check_none "reader cgroups: $1: the live export's cgroups lines are HELP, TYPE gauge or samples" "$(format "$T/e")"
}
export_checks "before rmdir"

# -- rmdir c06 with its page cache ------------------------------------------------------
c06=$(stat -c %i "$R/c06")
rmdir "$R/c06" || fail "reader cgroups: rmdir /mi-rc/c06"
if [ "$(cap_available cgroups.dying_page_cache)" = yes ]; then
	export_checks "c06 removed, dying"
	tap_is "reader cgroups: c06 removed: dying in the saved read" dying \
		"$(awk -v p=/mi-rc/c06 '$NF == p { print $2 }' "$T/sd/cgroups")"
	check "reader cgroups: c06 (dying, 6th largest of the 12) has series under the cap of 5" \
		grep -q "^meminspect_cgroups_file_pages{id=\"$c06\",state=\"dying\"" "$T/e"
else
	# its obj_cgroup and page cache move to /mi-rc when the css goes offline
	# (a work item after rmdir); the dying count follows whatever is held
	export_checks "c06 removed (cgroups.dying_page_cache no)"
fi
