#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mm and vmas (docs/procmem.md): every figure against /proc/PID/status,
# smaps_rollup and smaps of a quiescent target, exactly; 65530 VMAs;
# concurrent readers of a churning target, a target exiting mid-read, a
# kernel thread, a zombie, a reader without CAP_SYS_PTRACE; bad pids.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

mi_setup procmem swap_off
MT=${MI_MEMTARGET:-$ST_DIR/progs/memtarget}
zdev=

require_file "${PM_DIR:-$MI_DIR}/mm"
require_file "${PM_DIR:-$MI_DIR}/vmas"
require_caps "mm/vmas page walk" mm.rollup
require_caps "mm/vmas of another pid" pid_select

. "$ST_DIR/lib_procmem.sh"

# -- the reader itself (default target) ------------------------------------

cat "${PM_DIR:-$MI_DIR}/mm" > "$T/self"
self=$(rec "$T/self" | awk '$1 == "comm" { print $2 }')
check "mm without a pid shows the reading process (comm cat: '$self')" \
	test "$self" = cat

# -- a quiescent target: anonymous, file, shmem, THP, fork-shared ----------

if start_target "$T/basic.out" basic "$T"; then
	check_mm "basic target" "$tpid"
	check_mm "its fork child" "$cpid"
	check_vmas "basic target" "$tpid"
	pm_read mm "$tpid" > "$T/mmb"
	rec "$T/mmb" > "$T/mmb.rec"
	awk '{ v[$1] = $2 }
	     END { exit !(v["pss_kb"] < v["rss_kb"] && v["mm_shmem_kb"] > 0 &&
			  v["mm_file_kb"] > 0 && v["anonymous_kb"] > 0) }' \
		"$T/mmb.rec"
	check "basic target: shared memory makes pss < rss; anon, file and shmem present" \
		test $? -eq 0
	diag "basic target: $(awk '$1 ~ /^(rss_kb|pss_kb|uss_kb|anon_huge_kb|mm_shmem_kb|swap_kb)$/ { printf "%s=%s ", $1, $2 }' "$T/mmb.rec")"
	if [ "$(awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo)" = 0 ]; then
		diag "no swap yet: the basic target's swap figures are 0 on both sides (swap: below)"
	fi

	# -- the reader --------------------------------------------------------
	# The target's PSS may move between two readings (see top below; seen
	# here on the arm64 lane: 8690 kB in the file, 9202 kB in the reader):
	# the reader's row must lie between the file's readings around it.
	pss=$(awk '$1 == "pss_kb" { print $2 }' "$T/mmb.rec")
	rd=$("$MI_READER" mm "$tpid" 2>&1)
	st=$?
	pm_read mm "$tpid" > "$T/mmb2"
	pss2=$(rec "$T/mmb2" | awk '$1 == "pss_kb" { print $2 }')
	rp=$(echo "$rd" | awk '$1 == "pss_kb" { print $2 }')
	check "meminspect mm $tpid: exit $st, pss_kb row ($rp) lies between the file's ($pss, $pss2)" \
		awk -v a="${pss:-x}" -v b="${pss2:-y}" -v t="${rp:-z}" -v st="$st" 'BEGIN {
			if (a !~ /^[0-9]+$/ || b !~ /^[0-9]+$/ || t !~ /^[0-9]+$/ || st != 0)
				exit 1
			lo = a + 0; hi = b + 0
			if (lo > hi) { lo = b + 0; hi = a + 0 }
			exit !(t + 0 >= lo && t + 0 <= hi)
		}'
	rd=$("$MI_READER" --json mm "$tpid" 2>&1)
	check "meminspect --json mm $tpid: one object with \"pid\": $tpid" \
		sh -c "echo '$rd' | head -c 1 | grep -q '{' && echo '$rd' | grep -q '\"pid\": *$tpid,'"
	"$MI_READER" vmas "$tpid" --sort rss > "$T/rv" 2>&1
	st=$?
	first=$(awk 'NR == 2 { for (i = 1; i <= NF; i++) if (h[i] == "rss_kb") print $i; exit }
		     NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i }' "$T/rv")
	most=$(awk 'NR > 1 && /^0x/ { if ($9 > m) m = $9 } END { print m + 0 }' "$T/vmas")
	check "meminspect vmas $tpid --sort rss: exit $st, largest rss first ($first = $most)" \
		test "$st" = 0 -a "$first" = "$most"
	"$MI_READER" --json vmas "$tpid" > "$T/rj" 2>&1
	check "meminspect --json vmas $tpid: an array, one object per VMA" \
		test "$(head -c 1 "$T/rj")" = "[" -a \
		"$(grep -c '"start":' "$T/rj")" = "$(grep -c '^0x' "$T/vmas")"
	# The target's PSS moves when a process it shares pages with starts or
	# ends (seen on the debug lane: 9334 kB in top, 8822 kB read earlier):
	# top's figure must lie between two readings taken around it.
	p1=$("$MI_READER" mm "$tpid" | awk '$1 == "pss_kb" { print $2 }')
	"$MI_READER" top > "$T/top" 2>&1
	st=$?
	p2=$("$MI_READER" mm "$tpid" | awk '$1 == "pss_kb" { print $2 }')
	tp=$(awk -v p="$tpid" '$1 == p { print $3 }' "$T/top")
	check "meminspect top: exit $st, lists the target with its pss ($p1 <= $tp <= $p2, or the other way)" \
		awk -v a="${p1:-x}" -v b="${p2:-y}" -v t="${tp:-z}" -v st="$st" 'BEGIN {
			if (a !~ /^[0-9]+$/ || b !~ /^[0-9]+$/ || t !~ /^[0-9]+$/ || st != 0)
				exit 1
			lo = a + 0; hi = b + 0
			if (lo > hi) { lo = b + 0; hi = a + 0 }
			exit !(t + 0 >= lo && t + 0 <= hi)
		}'
	"$MI_READER" mm 2 > /dev/null 2> "$T/rk"
	st=$?
	check "meminspect mm 2 (kernel thread): exit $st = 1, says why ($(cat "$T/rk"))" \
		sh -c "test $st = 1 && grep -q 'kernel thread' '$T/rk'"
	"$MI_READER" mm 4194303 > /dev/null 2> "$T/rk"
	st=$?
	check "meminspect mm 4194303 (no such pid): exit $st = 1, says so" \
		sh -c "test $st = 1 && grep -q 'no process' '$T/rk'"
	cp "$T/mmb" "$T/fixture.mm"
	cp "$T/vmas" "$T/fixture.vmas"

	# -- bad pid input: clear error, prior target unchanged -------------
	(
		exec 3<>"${PM_DIR:-$MI_DIR}/mm"
		echo "$tpid" >&3
		for bad in garbage -1 12abc "" 99999999999 4194305 4194303 \
			"1 2" 0x10; do
			if printf '%s\n' "$bad" >&3 2>/dev/null; then
				echo "accepted '$bad'"
			fi
		done
		cat <&3
	) > "$T/badout" 2>&1
	got=$(rec "$T/badout" | awk '$1 == "pid" { print $2 }')
	if grep -q '^accepted' "$T/badout" || [ "$got" != "$tpid" ]; then
		fail "bad pids are refused and the target stays pid $tpid"
		diag "$(grep '^accepted' "$T/badout" | tr '\n' ' ') pid now: $got"
	else
		ok "bad pids (garbage, -1, 12abc, empty, huge, > PID_MAX_LIMIT, nonexistent, '1 2', 0x10) refused; the target stays pid $tpid"
	fi
	err=$( (exec 3<>"${PM_DIR:-$MI_DIR}/mm"; echo 4194303 >&3) 2>&1)
	check "a nonexistent pid says so ($err)" \
		sh -c "echo '$err' | grep -q 'No such process'"
	err=$( (exec 3<>"${PM_DIR:-$MI_DIR}/mm"; echo abc >&3) 2>&1)
	check "garbage says Invalid argument ($err)" \
		sh -c "echo '$err' | grep -q 'Invalid argument'"

	kill "$tpid"
	wait "$tpid"
	check "basic target exits 0 on SIGTERM" test $? -eq 0
else
	fail "memtarget basic gets ready (the checks of a quiescent target)"
fi

# -- swap: anonymous, shmem, tmpfs and fork-shared pages in zram swap -------

if [ "$(cap_available mm.swap_pss)" != yes ]; then
	skip "mm/vmas swap figures with pages in swap" "$(cap_detail mm.swap_pss)"
elif [ "$(awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo)" != 0 ]; then
	fail "swap: the VM has no swap before this test ($(grep SwapTotal /proc/meminfo))"
elif ! swap_on; then
	case $zwhy in
	absent*) skip "mm/vmas swap figures with pages in swap" "no zram swap in this VM: ${zwhy#absent: }" ;;
	*) fail "a zram swap device for the swap figures ($zwhy)" ;;
	esac
elif start_target "$T/swap.out" swap "$T"; then
	diag "zram swap on $zdev ($(cat "$MI_ZRAM_STATUS")); memtarget: $(grep -v ready "$T/swap.out" | tr '\n' ' ')"
	check_mm "swap target" "$tpid"
	check_mm "its fork child (sharing swap entries)" "$cpid"
	check_vmas "swap target" "$tpid"
	check_vmas "its fork child" "$cpid"

	# the figures compared above are not all 0: anonymous and fork-shared
	# swap entries (VmSwap), shmem and tmpfs swap (Swap > VmSwap), and
	# entries the child shares (SwapPss < Swap)
	for who in "$tpid" "$cpid"; do
		pm_read mm "$who" > "$T/mms"
		rec "$T/mms" > "$T/mms.rec"
		sk=$(awk '$1 == "swap_kb" { print $2 }' "$T/mms.rec")
		sp=$(awk '$1 == "swap_pss_kb" { print $2 }' "$T/mms.rec")
		se=$(awk '$1 == "swap_ents_kb" { print $2 }' "$T/mms.rec")
		check "pid $who: swap in use (swap_kb $sk = Swap, swap_ents_kb $se = VmSwap > 0), shmem swap counted (swap_kb > swap_ents_kb), shared entries split (swap_pss_kb $sp < swap_kb)" \
			test "$se" -gt 0 -a "$sk" -gt "$se" -a "$sp" -lt "$sk"
	done
	# per kind, in the target's vmas rows: anonymous, shmem (/dev/zero),
	# and both maps of the tmpfs file
	pm_read vmas "$tpid" > "$T/swv"
	awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	     /^#/ { next }
	     $c["swap_kb"] > 0 {
		n = $c["name"]; for (i = c["name"] + 1; i <= NF; i++) n = n " " $i
		if ($c["inode"] == 0 && n == "-") n = "anon"
		if (n ~ /memtarget.swap/) n = "tmpfs-" substr($c["perms"], 4, 1)
		if (n ~ /zero|SYSV/) n = "shmem"
		k[n] = k[n] " " $c["swap_kb"] }
	     END { for (n in k) printf "%s:%s; ", n, k[n] }' "$T/swv" > "$T/kinds"
	want="anon shmem"
	grep -q '^tmpfs no' "$T/swap.out" || want="$want tmpfs-s tmpfs-p"
	miss=
	for w in $want; do
		grep -q "$w:" "$T/kinds" || miss="$miss $w"
	done
	check "vmas rows with swap for each kind (${want}): $(cat "$T/kinds")${miss:+ missing:$miss}" \
		test -z "$miss"
	kill "$tpid"
	wait "$tpid"
else
	fail "memtarget swap gets ready (the swap figures)"
fi
swap_off

# -- a kernel thread, a zombie ----------------------------------------------

pm_read mm 2 > "$T/k"
if [ "$(grep -c -v '^#' "$T/k")" = 1 ] && grep -q '^# pid 2 .*kernel thread' "$T/k"; then
	ok "mm of a kernel thread: header and a note ($(tail -n 1 "$T/k"))"
else
	fail "mm of a kernel thread: header and a note"
	diag "$(cat "$T/k")"
fi
pm_read vmas 2 > "$T/k"
check "vmas of a kernel thread: header and a note" \
	grep -q '^# pid 2 .*kernel thread' "$T/k"

sh -c 'sleep 0.1 & echo $! > '"$T"'/zpid; exec sleep 5' &
pids="$pids $!"
sleep 1
zpid=$(cat "$T/zpid")
pm_read mm "$zpid" > "$T/z"
if grep -q "^# pid $zpid .*zombie" "$T/z"; then
	ok "mm of a zombie: a note ($(tail -n 1 "$T/z"))"
else
	fail "mm of a zombie: a note"
	diag "state: $(grep State "/proc/$zpid/status"); $(cat "$T/z")"
fi

# -- a reader that may not ptrace the target --------------------------------

"$MT" noptrace "${PM_DIR:-$MI_DIR}/mm" > "$T/np" 2>&1
if grep -q '^write_other EACCES' "$T/np" && grep -q '^proc_smaps EACCES' "$T/np" &&
   [ "$(awk '$1 == "self" { print $2 }' "$T/np")" = \
     "$(awk '$1 == "first_record_pid" { print $2 }' "$T/np")" ]; then
	ok "a reader without CAP_SYS_PTRACE (or CAP_SYS_ADMIN, CAP_PERFMON) is refused another user's process (EACCES, as /proc/PID/smaps_rollup) and still reads itself"
else
	fail "a reader without CAP_SYS_PTRACE is refused another user's process"
	diag "$(cat "$T/np" | tr '\n' ' ')"
fi

# -- 65530 VMAs --------------------------------------------------------------

max=$(cat /proc/sys/vm/max_map_count)
nv=$((max + 100))
# Under KASAN (the debug lane) and SLUB debugging (the strict 6.1 lane) an
# eighth of the VMAs: the checkers see the same code paths, and mapping
# 65630 VMAs costs 47.8 s there (every split's VMA and maple nodes checked,
# poisoned and their stacks saved) against 3 s; a quarter, as until 5 Dec
# 2026, still cost 35 s of the debug lane's CPU and 22 s of the 6.1 lane's.
# The other lanes map every VMA the kernel allows.
if mi_kasan || mi_slub_debug; then
	nv=$((max / 8))
	diag "KASAN or slub_debug: $nv VMAs instead of max_map_count $max"
fi
if start_target "$T/vmas.out" vmas "$nv" 64; then
	mc=$(grep -vc '\[vsyscall\]' "/proc/$tpid/maps")
	check_mm "target with $mc VMAs (max_map_count $max)" "$tpid"
	pm_read vmas "$tpid" > "$T/bigvmas"
	rows=$(grep -vc '^#' "$T/bigvmas")
	rows=$((rows - 1))
	check "vmas of the $mc-VMA target: all $rows rows present" \
		test "$rows" = "$mc"
	pm_read mm "$tpid" > "$T/bigmm"
	rec "$T/bigmm" > "$T/bigmm.rec"
	rows_vs_rollup "$T/bigmm.rec" "$T/bigvmas" loose > "$T/bigdiff"
	if [ -s "$T/bigdiff" ]; then
		fail "vmas of the $mc-VMA target sum to the rollup"
		while read -r l; do diag "$l"; done < "$T/bigdiff"
	else
		ok "vmas of the $mc-VMA target sum to the rollup"
	fi
	kill "$tpid"
	wait "$tpid"
else
	fail "memtarget vmas gets ready (the $nv-VMA target)"
fi

# -- concurrency --------------------------------------------------------------

# reader FILE PID N OUT: N reads; counts outcomes into OUT
reader()
{
	_i=0
	_good=0
	_bad=0
	while [ $_i -lt "$3" ]; do
		_i=$((_i + 1))
		if pm_read "$1" "$2" > "$4.cur" 2> "$4.err"; then
			# a header and a record: one awk (a process is dear under KASAN)
			if awk 'NR == 1 { hdr = /^(pid|start) / } !/^#/ { n++ }
				END { exit !(hdr && n >= 1) }' "$4.cur"; then
				_good=$((_good + 1))
			else
				_bad=$((_bad + 1))
				cp "$4.cur" "$4.badcopy"
			fi
		elif grep -q 'No such process' "$4.err"; then
			_good=$((_good + 1))	# gone before the write: clear
		else
			_bad=$((_bad + 1))
			cp "$4.err" "$4.badcopy"
		fi
	done
	echo "$_good $_bad" > "$4"
}

# 15 reads per reader; 8 under KASAN, where the 60 took 26 CPU-s of the
# debug lane (5 Dec 2026): the same four readers racing the same loop
nr=15
mi_kasan && nr=8
if start_target "$T/churn.out" churn; then
	rp=
	for r in 1 2 3 4; do
		f=mm
		[ $((r % 2)) = 0 ] && f=vmas
		reader $f "$tpid" $nr "$T/r$r" &
		rp="$rp $!"
	done
	wait $rp
	kill "$tpid"
	wait "$tpid"
	st=$?
	res=$(cat "$T"/r1 "$T"/r2 "$T"/r3 "$T"/r4 2>/dev/null | tr '\n' ' ')
	bad=$(cat "$T"/r1 "$T"/r2 "$T"/r3 "$T"/r4 2>/dev/null |
		awk -v n=$((4 * nr)) '{ b += $2; g += $1 } END { print (g == n && b == 0) ? 0 : 1 }')
	if [ "$bad" = 0 ] && [ $st = 0 ]; then
		ok "4 readers x $nr reads of mm/vmas of a target mapping and unmapping in a loop: all complete ($res; $(grep -h max_stall_us "$T/churn.out"))"
	else
		fail "4 readers of a churning target: all reads complete"
		diag "good bad per reader: $res; target exit $st"
		for r in 1 2 3 4; do
			[ -f "$T/r$r.badcopy" ] && diag "r$r: $(head -c 300 "$T/r$r.badcopy")"
		done
	fi
else
	fail "memtarget churn gets ready (4 readers of a churning target)"
fi

# a target that exits while it is being read: two readers read its vmas back
# to back until it is gone, and it is killed once both have begun (after
# 0.1, 0.2, 0.3 s: while a read runs, mostly).  Every read completes, with
# its rows, the "exited" note (the walk saw the exit at a lock drop), a
# note that it is gone, or ESRCH.  Each read is counted, not only the last.
# The loop only reads (each into its own file) until a read fails, and the
# reads are judged after it: the gap between two reads is then one fork of
# pm_read, not five greps (with them, once `vmas` printed its rows without a
# seq_printf() each, a kill at 0.1-0.3 s landed between two reads of a
# 10000-VMA target in all 6 readers of a 6.1 run, 4 Dec 2026).
# exit_reader FILE PID OUT: OUT gets "reads bad exited_notes"
exit_reader()
{
	_n=0 _bad=0 _ex=0
	: > "$3.started"
	while [ $_n -lt 1000 ]; do
		_n=$((_n + 1))
		pm_read "$1" "$2" > "$3.cur$_n" 2> "$3.err$_n" || break
	done
	_i=0
	while [ $_i -lt $_n ]; do
		_i=$((_i + 1))
		_f=$3.cur$_i
		if [ $_i = $_n ] && [ -s "$3.err$_i" ]; then
			# the read that ended the loop: gone (ESRCH) is the expected end
			if ! grep -q 'No such process' "$3.err$_i"; then
				_bad=$((_bad + 1))
				cp "$3.err$_i" "$3.badcopy"
			fi
		else
			# the read's kind, one awk for what were up to five greps
			case $(awk 'NR == 1 { hdr = /^start / } !/^#/ { n++ }
				/^# the target exited during the read/ { ex = 1 }
				/^# pid [0-9]+ .*(zombie|exiting|exited and been reaped)/ { gone = 1 }
				END {
					if (ex) print "exited"
					else if (gone) print "gone"
					else if (hdr && n >= 2) print "good"
					else print "bad"
				}' "$_f") in
			exited) _ex=$((_ex + 1)) ;;
			gone | good) ;;
			*)
				_bad=$((_bad + 1))
				cp "$_f" "$3.badcopy"
				;;
			esac
		fi
		rm -f "$_f" "$3.err$_i"
	done
	echo "$_n $_bad $_ex" > "$3"
}

# 20000 VMAs: a read of them outlasts the gap between two reads by far (6
# of 6 first reads ended in the note on 5.10 and 7.3; with 5000, 2 of 6 on
# 7.3).  Under KASAN a quarter (6 of 6 there, each read 4 times slower);
# under SLUB debugging half (building 20000 VMAs took 13 s there).
ne=20000
mi_slub_debug && ne=10000
mi_kasan && ne=5000
exits=0
bad=0
notes=0
reads=
# three runs, the kill 100, 200 and 300 ms into the reads; under KASAN the
# first two (each 11 CPU-s of the debug lane, 5 Dec 2026)
runs="1 2 3"
mi_kasan && runs="1 2"
for n in $runs; do
	if ! start_target "$T/exit.$n.out" exit "$ne" 600000; then
		fail "memtarget exit gets ready (run $n of the readers racing its exit)"
		continue
	fi
	rm -f "$T"/e?.started
	rp=
	for r in 1 2; do
		exit_reader vmas "$tpid" "$T/e$r" &
		rp="$rp $!"
	done
	_w=0
	while [ ! -e "$T/e1.started" ] || [ ! -e "$T/e2.started" ]; do
		[ $_w -lt 200 ] || break
		mi_nap 0.05
		_w=$((_w + 1))
	done
	usleep $((n * 100000))
	kill "$tpid"
	# reaped first: the readers read until ESRCH
	wait "$tpid"
	wait $rp
	for r in 1 2; do
		read -r _n _b _e < "$T/e$r"
		reads="$reads $_n"
		bad=$((bad + _b))
		notes=$((notes + _e))
		[ "$_b" = 0 ] || diag "run $n reader $r: $(head -c 300 "$T/e$r.badcopy")"
	done
	exits=$((exits + 1))
done
check "a target with $ne VMAs killed mid-read ($exits runs, reads per reader:$reads): every read completes ($notes 'exited' notes seen)" \
	test "$bad" = 0 -a "$exits" = "$(echo $runs | wc -w)"
# A read takes far longer than the gap between two (6 of 6 first reads
# ended in the note on the debug lane): no note at all means the walk never
# noticed an exit, or this test no longer kills mid-read.
check "a target killed mid-read: the walk noticed it ($notes of $((2 * exits)) readers' reads ended in the 'exited' note)" \
	test "$notes" -ge 1
