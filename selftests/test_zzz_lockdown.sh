#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel lockdown (docs/lockdown.md), last in the suite: the level can only be
# raised until reboot, and at integrity no unsigned module loads. Raised to
# integrity, as Secure Boot sets it: debugfs refuses every file with a write
# bit (mm, vmas, the knobs), the lockdown capabilities row says so, every
# read-only file still reads, and through /dev/meminspect/ mm and vmas of a
# target equal its smaps_rollup, status and smaps exactly, allocs and latency
# arm and count, and the reader's mm, vmas, top, export and report work; procs
# reads and top, which reads it and needs no mirror, equals it; the
# injector's knobs are refused and the reader names the lockdown. Raised to
# confidentiality: arming tracing is refused, mm still equals smaps_rollup,
# and no file or reader output shows a kernel address.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

LD=/sys/kernel/security/lockdown
DEV=/dev/meminspect
MT=${MI_MEMTARGET:-$ST_DIR/progs/memtarget}
sec_mounted=
mi_setup lockdown lockdown_cleanup

lockdown_cleanup()
{
	[ -n "$sec_mounted" ] && umount /sys/kernel/security
}

. "$ST_DIR/lib_procmem.sh"

[ -f "$LD" ] || { mount -t securityfs securityfs /sys/kernel/security 2>/dev/null && sec_mounted=1; }
if [ ! -f "$LD" ]; then
	# a kernel without the lockdown LSM: the row must say so
	check_eq "no $LD: capabilities' lockdown row says the kernel has no lockdown LSM" \
		"$(cap_detail lockdown)" "level none: kernel built without the lockdown LSM"
	skip "lockdown" "kernel built without the lockdown LSM"
	exit 0
fi
check_eq "before: $LD reads none" "$(cat "$LD")" "[none] integrity confidentiality"
check_eq "before: the lockdown row is yes, level none" \
	"$(cap_available lockdown) $(cap_detail lockdown)" "yes level none: nothing stopped"

# the mirrors exist whatever the level
for f in mm vmas allocs/armed allocs/aim_pid allocs/outstanding latency/armed; do
	check "$DEV/$f is a character device" test -c "$DEV/$f"
done
check "the injector's knobs have no mirror" test ! -e "$DEV/fault"

# ---- integrity -------------------------------------------------------------------

echo integrity > "$LD" || fail "echo integrity > $LD"
check_eq "integrity: $LD" "$(cat "$LD")" "none [integrity] confidentiality"
check_eq "integrity: the lockdown row is no, level integrity" \
	"$(cap_available lockdown) $(cap_detail lockdown | cut -d: -f1)" "no level integrity"
if (exec 3<>"$MI_DIR/mm") 2>/dev/null; then
	fail "integrity: debugfs refuses to open mm for writing"
else
	ok "integrity: debugfs refuses to open mm for writing"
fi

# every read-only file under the debugfs directory reads
errs=0
nfiles=0
for f in $(find "$MI_DIR" -type f -perm -0400 ! -perm -0200); do
	nfiles=$((nfiles + 1))
	if ! cat "$f" > /dev/null 2> "$T/err"; then
		errs=$((errs + 1))
		diag "integrity: $f: $(cat "$T/err")"
	fi
done
check "integrity: every read-only file reads ($nfiles files)" [ "$nfiles" -gt 10 ] && [ $errs -eq 0 ]

# mm and vmas through the mirrors, against the kernel's own figures
if start_target "$T/basic.out" basic "$T"; then
	PM_DIR=$DEV check_mm "integrity: $DEV/mm of a target" "$tpid"
	PM_DIR=$DEV check_vmas "integrity: $DEV/vmas of a target" "$tpid"
else
	fail "integrity: memtarget basic starts"
fi

# the reader finds the mirrors by itself
require_reader
for cmd in "mm $tpid" "vmas $tpid" "top" "export --prometheus" "report"; do
	# shellcheck disable=SC2086 # the command's words
	if "$MI_READER" $cmd > "$T/out" 2> "$T/err"; then
		ok "integrity: meminspect $cmd exits 0"
	else
		fail "integrity: meminspect $cmd exits 0"
		head -n 5 "$T/err" | tap_diag
	fi
done
rss=$("$MI_READER" mm "$tpid" 2>/dev/null | awk '$1 == "rss_kb" { print $2 }')
check_eq "integrity: meminspect mm's rss_kb is smaps_rollup's Rss" "$rss" \
	"$(awk '$1 == "Rss:" { print $2 }' "/proc/$tpid/smaps_rollup")"
check "integrity: meminspect top lists the target" \
	sh -c "'$MI_READER' top 2>/dev/null | awk '\$1 == $tpid { f = 1 } END { exit !f }'"
# procs (read-only) reads; top reads it in one go, so it works with no
# mirror at all, and its rows are procs' (the stopped target's exactly; the
# same processes but the two readers)
kill -STOP "$tpid" "$cpid"
if sh -c 'echo $$ > "$1"; exec cat "$2"' sh "$T/cat.pid" "$MI_DIR/procs" > "$T/procs" 2> "$T/err"; then
	ok "integrity: procs reads ($(($(wc -l < "$T/procs") - 1)) processes)"
else
	fail "integrity: procs reads"
	tap_diag < "$T/err"
fi
mkdir -p "$T/nodev"
sh -c 'echo $$ > "$1"; exec "$2" top' sh "$T/top.pid" "$MI_READER" > "$T/top" 2> "$T/err"
st=$?
# procs again: a process that starts or exits between the reads is in one of them
sh -c 'echo $$ > "$1"; exec cat "$2"' sh "$T/cat2.pid" "$MI_DIR/procs" > "$T/procs2" 2> /dev/null
MEMINSPECT_DEV_DIR=$T/nodev "$MI_READER" top > "$T/top.nodev" 2> "$T/err.nodev"
check "integrity: meminspect top with no mirror exits 0 (it reads procs, not mm): $? $(head -n 1 "$T/err.nodev")" \
	test -s "$T/top.nodev" -a ! -s "$T/err.nodev"
# top's columns, from procs: pid rss_kb pss_kb uss_kb swap_kb swap_pss_kb comm
awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } /^#/ { next }
     { print $c["pid"], $c["rss_kb"], $c["pss_kb"], $c["uss_kb"], $c["swap_kb"], $c["swap_pss_kb"], $c["comm"] }' \
	"$T/procs" > "$T/procs.cols"
awk 'NR > 1 && $1 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5, $6, $7 }' "$T/top" > "$T/top.cols"
tgt=$(awk -v a="$tpid" -v b="$cpid" '$1 == a || $1 == b' "$T/top.cols" | sort)
check "integrity: meminspect top exits 0 ($st) and its rows of the stopped target equal procs' ($(echo $tgt))" \
	sh -c "test $st = 0 && test -n '$tgt' && test '$tgt' = \"\$(awk -v a=$tpid -v b=$cpid '\$1 == a || \$1 == b' '$T/procs.cols' | sort)\""
# the pids of a procs read but its reader's
procs_pids() { awk 'NR > 1 && !/^#/ { print $1 }' "$1" | grep -vx "$(cat "$2")" | sort; }
procs_pids "$T/procs" "$T/cat.pid" > "$T/procs.pids"
procs_pids "$T/procs2" "$T/cat2.pid" > "$T/procs2.pids"
cut -d' ' -f1 "$T/top.cols" | grep -vx "$(cat "$T/top.pid")" | sort > "$T/top.pids"
# top's pids lie between the two reads: every pid of both, none of neither
bracket=$(awk 'FILENAME == ARGV[1] { a[$1] = 1; next } FILENAME == ARGV[2] { b[$1] = 1; next }
	{ t[$1] = 1; if (!($1 in a) && !($1 in b)) extra = extra " " $1 }
	END { for (p in a) if (p in b) { n++; if (!(p in t)) miss = miss " " p }
	      printf "%d in both procs reads, missing:%s, in neither:%s\n", n, miss ? miss : " none", extra ? extra : " none" }' \
	"$T/procs.pids" "$T/procs2.pids" "$T/top.pids")
check "integrity: meminspect top lists procs' processes ($(wc -l < "$T/top.pids") but the readers; $bracket)" \
	sh -c 'test -s "$1" && case "$2" in *"missing: none, in neither: none") exit 0 ;; *) exit 1 ;; esac' \
	sh "$T/top.pids" "$bracket"
kill -CONT "$tpid" "$cpid"
n=$("$MI_READER" export --prometheus 2>/dev/null | grep -c '^meminspect_')
check "integrity: meminspect export prints the module's metrics ($n samples)" [ "$n" -gt 50 ]

# bad input through a mirror: the debugfs file's own handler refuses it, the
# same error, and nothing changes
for kv in "allocs/armed 2" "allocs/armed abc" "allocs/aim_pid 4194303" \
	"allocs/sample_bytes -1" "latency/armed 2"; do
	f=${kv%% *}
	v=${kv#* }
	was=$(cat "$DEV/$f")
	if (echo "$v" > "$DEV/$f") 2> "$T/err"; then
		fail "integrity: $DEV/$f rejects '$v'"
	else
		check "integrity: $DEV/$f rejects '$v': $(cat "$T/err")" \
			grep -q "Invalid argument\|out of range" "$T/err"
	fi
	check_read "integrity: $DEV/$f unchanged" "$DEV/$f" "$was"
done
if (exec 3<>"$DEV/mm"; echo abc >&3) 2> "$T/err"; then
	fail "integrity: $DEV/mm rejects the pid 'abc'"
else
	check "integrity: $DEV/mm rejects the pid 'abc': $(cat "$T/err")" \
		grep -q "Invalid argument" "$T/err"
fi

# allocs and latency arm through their mirrors and count
# aimed at memtarget: a second one, started armed, keeps its objects live
echo memtarget > "$DEV/allocs/aim_comm" || fail "integrity: write $DEV/allocs/aim_comm"
if echo 1 > "$DEV/allocs/armed"; then
	ok "integrity: allocs arms through $DEV/allocs/armed"
	t1=$tpid
	start_target "$T/second.out" basic "$T" || fail "integrity: a second memtarget starts"
	tpid=$t1
	n=$(awk 'NR > 1 && !/^#/ { n += $1 } END { print n + 0 }' "$MI_DIR/allocs/table")
	check "integrity: allocs counts the aimed process's live objects ($n)" [ "$n" -gt 0 ]
	check_read "integrity: allocs/armed reads 1 (through its mirror)" "$DEV/allocs/armed" 1
else
	fail "integrity: allocs arms through $DEV/allocs/armed"
fi
if echo 1 > "$DEV/latency/armed"; then
	check_read "integrity: latency arms through $DEV/latency/armed" "$DEV/latency/armed" 1
	echo 0 > "$DEV/latency/armed"
else
	fail "integrity: latency arms through $DEV/latency/armed"
fi

# fault injection is refused, and the reader says why
if (echo 1 > "$MI_DIR/fault/probability") 2>/dev/null; then
	fail "integrity: a fault knob is refused"
else
	ok "integrity: a fault knob is refused"
fi
if "$MI_READER" fault run --times 1 -- true > "$T/out" 2> "$T/err"; then
	fail "integrity: meminspect fault run fails"
else
	check "integrity: meminspect fault run names the lockdown and its level" \
		grep -q 'lockdown (integrity)' "$T/err"
	grep -q 'lockdown (integrity)' "$T/err" || head -n 3 "$T/err" | tap_diag
fi

# every view against the kernel's counterparts, as the normal pass compares them: this
# run's view tests again, at integrity, mm and vmas through the mirrors (PM_DIR), their
# results named "integrity: ..."; each ends before it would load a module
# (mi_lockdown_stop), which lockdown refuses
VIEWS="test_summary.sh test_zones.sh test_buddy.sh test_fragmentation.sh test_pages.sh
test_slabs.sh test_unaccounted.sh test_pressure.sh test_procmem.sh test_procmem_hugetlb.sh
test_reader_mm.sh test_export.sh test_read_all.sh test_capabilities.sh test_procs.sh
test_files.sh test_where.sh test_cgroup_slabs.sh test_cgroups_container.sh"
nviews=0
for t in $VIEWS; do
	case " ${MI_RUN_TESTS:-} " in
	*" $t "*) ;;
	*) continue ;;
	esac
	nviews=$((nviews + 1))
	diag "integrity: $t"
	_tap_read
	before=$_tap_n
	MI_LOCKDOWN_PASS=integrity TAP_PREFIX="integrity: " PM_DIR=$DEV sh "$ST_DIR/$t" < /dev/null
	rc=$?
	_tap_read
	if [ $rc -ne 0 ]; then
		fail "integrity: $t exited with status $rc"
	elif [ "$_tap_n" -eq "$before" ]; then
		fail "integrity: $t reported no results"
	fi
done
check "integrity: the view tests of this run ran again ($nviews)" [ "$nviews" -gt 0 ]

# ---- confidentiality -------------------------------------------------------------

echo confidentiality > "$LD" || fail "echo confidentiality > $LD"
check_eq "confidentiality: the lockdown row is no, level confidentiality" \
	"$(cap_available lockdown) $(cap_detail lockdown | cut -d: -f1)" "no level confidentiality"
if (echo 0 > "$DEV/latency/armed") 2>/dev/null; then
	fail "confidentiality: arming latency (tracing) is refused"
else
	ok "confidentiality: arming latency (tracing) is refused"
fi
PM_DIR=$DEV check_mm "confidentiality: $DEV/mm of a target" "$tpid"

# no kernel address: every file, the outstanding objects of the armed allocs,
# the reader's report
# a 64-bit kernel address: 16 hex digits from ff (x86-64 with 4 or 5 levels, arm64)
addr='(^|[^0-9a-f])(0x)?ff[0-9a-f]{14}([^0-9a-f]|$)'
for f in $(find "$MI_DIR" -type f -perm -0400 ! -perm -0200); do
	cat "$f" 2>/dev/null
done > "$T/all"
# every followed object, whatever its age
(exec 3<>"$DEV/allocs/outstanding" && echo 0 >&3 && cat <&3) >> "$T/all"
"$MI_READER" report >> "$T/all" 2>/dev/null
check "confidentiality: the outstanding objects are listed, addresses '-'" \
	grep -q '^[0-9]* [0-9]* [0-9]* - ' "$T/all"
if grep -Eq "$addr" "$T/all"; then
	fail "confidentiality: no kernel address in any file or the report"
	grep -E "$addr" "$T/all" | head -n 5 | tap_diag
else
	ok "confidentiality: no kernel address in any file or the report ($(wc -l < "$T/all") lines)"
fi
