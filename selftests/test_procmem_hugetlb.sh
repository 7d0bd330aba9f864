#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mm's and vmas' shared_hugetlb_kb and private_hugetlb_kb against smaps'
# Shared_Hugetlb and Private_Hugetlb (docs/procmem.md): a process with
# private and shared hugetlb mappings (anonymous, and a file on a hugetlbfs
# mount that a second process maps too), that second process, and a
# busybox process with none.  Exact, as every other walk figure; and the
# reader's mm shows them, as rows and in --json.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

HP=/proc/sys/vm/nr_hugepages
hp0=
hugetlb_cleanup()
{
	if [ -n "$pids" ]; then
		# shellcheck disable=SC2086
		kill $pids 2>/dev/null
		# shellcheck disable=SC2086
		wait $pids 2>/dev/null
		pids=
	fi
	umount "$T/huge" 2>/dev/null
	[ -z "$hp0" ] || echo "$hp0" > "$HP"
}
mi_setup hugetlb hugetlb_cleanup
MT=${MI_MEMTARGET:-$ST_DIR/progs/memtarget}

require_file "${PM_DIR:-$MI_DIR}/mm"
require_file "${PM_DIR:-$MI_DIR}/vmas"
require_reader
require_caps "mm/vmas of a hugetlb target" mm.rollup pid_select
. "$ST_DIR/lib_procmem.sh"

# Skipped only where the kernel has no hugetlb; then it has no pool either.
if [ "$(cap_available mm.hugetlb)" != yes ]; then
	check "mm.hugetlb is no only without hugetlb: no $HP ($(cap_detail mm.hugetlb))" \
		[ ! -e "$HP" ]
	skip "mm/vmas hugetlb figures" "$(cap_detail mm.hugetlb)"
	exit 0
fi
diag "mm.hugetlb: $(cap_detail mm.hugetlb)"

# 5 pages mapped by the target (its child allocates none); 2 spare
hp0=$(cat "$HP")
echo $((hp0 + 7)) > "$HP"
got=$(($(cat "$HP") - hp0))
hkb=$(awk '$1 == "Hugepagesize:" { print $2 }' /proc/meminfo)
if [ "$got" -lt 5 ]; then
	fail "the hugetlb pool grows by 5 pages of $hkb kB (by $got)"
	exit 0
fi
mkdir "$T/huge"
if ! mount -t hugetlbfs none "$T/huge"; then
	fail "a hugetlbfs mount"
	exit 0
fi
if ! start_target "$T/out" hugetlb "$T/huge/shared"; then
	fail "memtarget hugetlb gets ready"
	exit 0
fi
diag "target $tpid, child $cpid; $hkb kB pages; pool: $(grep -E '^HugePages_(Total|Free|Rsvd)' /proc/meminfo | tr -s ' \n' ' ')"

# hugetlb_figs PID FILE: "ours_shared ours_private smaps_shared smaps_private"
# from mm's record in FILE and PID's smaps_rollup
hugetlb_figs()
{
	awk 'FILENAME != ARGV[1] { if ($1 == "Shared_Hugetlb:") ss = $2
				  if ($1 == "Private_Hugetlb:") sp = $2; next }
	     FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	     /^#/ { next }
	     { if ("shared_hugetlb_kb" in col) os = $col["shared_hugetlb_kb"]
	       if ("private_hugetlb_kb" in col) op = $col["private_hugetlb_kb"] }
	     END { printf "%s %s %s %s\n", os == "" ? "none" : os,
		   op == "" ? "none" : op, ss, sp }' "$2" "/proc/$1/smaps_rollup"
}

# the target: 2 pages shared (fork's COW-shared private page, the file's
# first page, which the child maps too), 3 private (the parent's own
# private page, the shared anonymous mapping, the file's second page)
for who in "parent $tpid $((2 * hkb)) $((3 * hkb))" "child $cpid $((2 * hkb)) 0"; do
	# shellcheck disable=SC2086
	set -- $who
	check_mm "hugetlb $1" "$2"
	check_vmas "hugetlb $1" "$2"
	pm_read mm "$2" > "$T/mm.$1"
	figs=$(hugetlb_figs "$2" "$T/mm.$1")
	check_eq "hugetlb $1: mm shared/private_hugetlb_kb and smaps_rollup's = $3 $4 kB ($figs)" \
		"$figs" "$3 $4 $3 $4"
done
grep -E '^[0-9a-f]+-|_Hugetlb' "/proc/$tpid/smaps" | grep -B1 -E '_Hugetlb: +[1-9]' |
	sed 's/^/# smaps: /'

# A process the suite did not write: busybox sleep, no hugetlb at all.
# Only the hugetlb figures: the PSS of busybox's pages moves with every
# busybox process this test runs (its cat, its awk), so the other figures
# cannot be bracketed here (test_procmem.sh compares them on memtarget).
sleep 600 &
bpid=$!
pids="$pids $bpid"
pm_read mm "$bpid" > "$T/mm.bb"
figs=$(hugetlb_figs "$bpid" "$T/mm.bb")
check_eq "busybox sleep: mm shared/private_hugetlb_kb and smaps_rollup's are 0 ($figs)" \
	"$figs" "0 0 0 0"
pm_read vmas "$bpid" > "$T/vmas.bb"
got=$(awk 'FILENAME != ARGV[1] { if ($1 ~ /^(Shared|Private)_Hugetlb:$/) s += $2; next }
	FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
		   have = ("shared_hugetlb_kb" in col) && ("private_hugetlb_kb" in col)
		   o = have ? 0 : "none"; next }
	/^#/ { next }
	{ rows++; if (have) o += $col["shared_hugetlb_kb"] + $col["private_hugetlb_kb"] }
	END { print rows + 0, o, s + 0 }' "$T/vmas.bb" "/proc/$bpid/smaps")
check "busybox sleep: its vmas rows' hugetlb figures sum to 0, as its smaps' (rows, ours, smaps: $got)" \
	awk -v g="$got" 'BEGIN { split(g, f, " "); exit !(f[1] > 0 && f[2] == "0" && f[3] == 0) }'

# the reader: mm PID's rows and its --json object carry both figures
want="$((2 * hkb)) $((3 * hkb))"
"$MI_READER" mm "$tpid" > "$T/rmm" 2>&1
rc=$?
got=$(awk '$1 == "shared_hugetlb_kb" { s = $2 } $1 == "private_hugetlb_kb" { p = $2 }
	END { print s " " p }' "$T/rmm")
check_eq "meminspect mm $tpid: exit 0 ($rc), rows shared_hugetlb_kb and private_hugetlb_kb = $want" \
	"$rc $got" "0 $want"
"$MI_READER" --json mm "$tpid" > "$T/rjson" 2>&1
rc=$?
# one object, a key a line: joined before the keys are picked
got=$(tr -d '\n' < "$T/rjson" |
	sed -n 's/.*"shared_hugetlb_kb": *\([0-9]*\).*"private_hugetlb_kb": *\([0-9]*\).*/\1 \2/p')
check_eq "meminspect --json mm $tpid: exit 0 ($rc), \"shared_hugetlb_kb\" and \"private_hugetlb_kb\" = $want" \
	"$rc $got" "0 $want"
