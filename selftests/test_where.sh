#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# meminspect where's first screen (docs/pages.md, "Reader") against the kernel, on targets
# the suite did not write: a busybox shell holding 48 MiB in a variable, stopped; a 24 MiB
# file dd wrote on ext4 (Debian's module) on Debian's brd; a 40 MiB file dd wrote on a
# tmpfs. The figures are ranked largest first; anon's first holder is the shell, with its
# smaps_rollup Anonymous exactly; page_cache's first holder is the ext4 file and shmem's the
# tmpfs file, each with mincore()'s resident pages (progs/mincount, in a bracket); slab's first
# holder is among /proc/slabinfo's three largest caches.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

DRIVERS=/meminspect/drivers
EXT4=/meminspect/ext4
shpid= mnt_tmp= mnt_ext4=
where_restore()
{
	[ -z "$shpid" ] || { kill -CONT "$shpid"; kill "$shpid"; } 2> /dev/null
	[ -z "$mnt_tmp" ] || umount "$mnt_tmp"
	[ -z "$mnt_ext4" ] || umount "$mnt_ext4"
	rmmod brd 2> /dev/null
}
mi_setup where where_restore
require_reader
PK=${MI_PAGE_KB:-4}

# holders FIGURE: that figure's holders in $T/where (the ranked table: before the blank line)
holders()
{
	awk -v f="$1" '/^$/ { exit } NR > 1 && $2 == f {
		sub(/^ *[0-9]+ +[a-z_]+ +[0-9]+ +[0-9.-]+ +/, ""); print }' "$T/where"
}
# first FIGURE: its first holder, "name (N kB)"
first()
{
	holders "$1" | awk -F ', ' '{ sub(/^cgroups: /, "", $1); print $1 }'
}

# ---- the targets ----
sh -c 'v=$(head -c 50331648 /dev/zero | tr "\0" a); echo ready; kill -STOP $$; echo ${#v}' \
	> "$T/sh.out" &
shpid=$!
if ! wait_line "$T/sh.out" ready "$shpid" 600; then
	fail "where: the busybox shell filled its variable"
	shpid=
fi
i=0
while [ -n "$shpid" ] && [ "$(awk '{ print $3 }' "/proc/$shpid/stat")" != T ] && [ $i -lt 100 ]; do
	mi_nap 0.1
	i=$((i + 1))
done

mnt_tmp=$T/shm
mkdir -p "$mnt_tmp" && mount -t tmpfs none "$mnt_tmp" || { mnt_tmp=; fail "where: mount a tmpfs"; }
[ -z "$mnt_tmp" ] || dd if=/dev/zero of="$mnt_tmp/big" bs=1048576 count=40 2> /dev/null

if mi_ext4_on_brd where "where: page_cache's holder, a file on ext4" "$EXT4" "$DRIVERS" \
	"$T/ext4"; then
	mnt_ext4=$T/ext4
	dd if=/dev/urandom of="$mnt_ext4/data" bs=1048576 count=24 2> /dev/null
	sync
fi

# ---- where, between two reads of each counterpart ----
[ -z "$mnt_ext4" ] || "$ST_DIR/progs/mincount" "$mnt_ext4/data" > "$T/e1"
[ -z "$mnt_tmp" ] || "$ST_DIR/progs/mincount" "$mnt_tmp/big" > "$T/t1"
if "$MI_READER" where > "$T/where" 2> "$T/err"; then
	ok "where: exit 0"
else
	fail "where: exit 0"
	head -n 5 "$T/err" | tap_diag
fi
[ -z "$mnt_ext4" ] || "$ST_DIR/progs/mincount" "$mnt_ext4/data" > "$T/e2"
[ -z "$mnt_tmp" ] || "$ST_DIR/progs/mincount" "$mnt_tmp/big" > "$T/t2"
sed -n '/^$/q;p' "$T/where" | tap_diag

check_eq "where: the ranked table's header" "$(head -n 1 "$T/where" | tr -s ' ')" \
	"rank figure kb pct holders"
check "where: the figures are ranked by kb, largest first, numbered from 1" \
	awk '/^$/ { exit } NR > 1 && !/^#/ { if ($1 != NR - 1 || (NR > 2 && $3 > last)) bad = 1; last = $3 }
		END { exit bad || NR < 4 }' "$T/where"
check "where: the reconciliation follows after a blank line" \
	awk 'f && /^section +figure +kb +counterpart +kernel_kb/ { ok = 1 } /^$/ { f = 1 } END { exit !ok }' \
	"$T/where"

if [ -n "$shpid" ]; then
	anon=$(awk '$1 == "Anonymous:" { print $2 }' "/proc/$shpid/smaps_rollup")
	check_eq "where: anon's first holder is the stopped busybox shell, its smaps_rollup Anonymous" \
		"$(first anon)" "sh[$shpid] ($anon kB)"
fi
# ext4's and tmpfs' files: their resident pages from mincore() before and after
for kv in "page_cache e $mnt_ext4/data" "shmem t $mnt_tmp/big"; do
	set -- $kv
	[ "$3" != /data ] && [ "$3" != /big ] || continue
	read -r _ _ r1 _ _ < "$T/${2}1"
	read -r _ _ r2 _ _ < "$T/${2}2"
	got=$(first "$1")
	kb=$(echo "$got" | sed -n 's/.* (\([0-9]*\) kB)$/\1/p')
	check_eq "where: $1's first holder is $3" "${got% (*}" "$3"
	check_between "where: $1's first holder's kB are mincore()'s resident pages" \
		"${kb:--}" "$((r1 * PK))" "$((r2 * PK))" 0
done

# slab: the first holder among the kernel's three largest caches by memory
top3=$(awk 'NR > 2 { print $15 * $6 * '"$PK"', $1 }' /proc/slabinfo | sort -nr | head -n 3 |
	awk '{ print $2 }' | tr '\n' ' ')
s1=$(first slab)
s1=${s1% (*}
case " $top3" in
*" $s1 "*) ok "where: slab's first holder ($s1) is among /proc/slabinfo's three largest ($top3)" ;;
*) fail "where: slab's first holder ($s1) is among /proc/slabinfo's three largest ($top3)" ;;
esac
exit 0
