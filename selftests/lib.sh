# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the meminspect selftests.  Sourced, never run.
# POSIX sh only: the guest has busybox 1.35 (ash, awk without libm).

# A test file run on its own (the kernel's kselftest runner runs each one so; by hand) goes
# through ksft.sh: run.sh's handling around it and kselftest's exit codes (docs/kselftest.md).
# Under run.sh MI_TAP_COUNTER is set.
if [ -z "${MI_TAP_COUNTER:-}" ]; then
	case ${0##*/} in
	test_*.sh | big_*.sh) exec sh "$(cd "$(dirname "$0")" && pwd)/ksft.sh" "$0" ;;
	esac
fi

MI_DIR=${MI_DIR:-/sys/kernel/debug/meminspect}
MI_KO=${MI_KO:-/meminspect/meminspect.ko}
MI_TEST_KO=${MI_TEST_KO:-/meminspect/meminspect_test.ko}
MI_READER=${MI_READER:-/usr/bin/meminspect}
MI_DEBUGFS=${MI_DEBUGFS:-/sys/kernel/debug}
MI_TEST_DIR=${MI_TEST_DIR:-$MI_DEBUGFS/meminspect_test}
# whether zram is there for a swap device (vm-run's /init writes it; the bundle's script its own)
MI_ZRAM_STATUS=${MI_ZRAM_STATUS:-/meminspect/zram/status}
# Every guest kernel of the matrix has 4 KiB pages: the x86_64 ones and Debian's arm64 6.12
# (CONFIG_ARM64_4K_PAGES).
MI_PAGE_KB=${MI_PAGE_KB:-4}
# The TAP counter lives in a file: tests run in their own sh and may emit
# results from subshells, and the numbers must grow across all of them.
MI_TAP_COUNTER=${MI_TAP_COUNTER:-${TMPDIR:-/tmp}/meminspect-tap.count}
[ -n "${ST_DIR:-}" ] || ST_DIR=$(cd "$(dirname "$0")" && pwd)

# ---- waiting without a process ---------------------------------------------

# mi_nap SECONDS: wait SECONDS (fractions too) without starting a process, for
# the polling loops.  busybox's sleep is a program, and in the debug lane's
# guest (KASAN, lockdep, kmemleak under TCG) each fork and exec of one cost
# ~80 ms of host CPU: a loop polling every 0.1 s paid for its naps by the
# second of wall time, more the slower the host ran the guest (docs/kernels.md,
# "The debug kernel").  read -t on a FIFO that nobody writes, opened
# read-write so that the open does not wait for a writer, waits inside the
# shell (fd 9, for every subshell of the file).  Where read has no -t (dash,
# a test file run on the host) it is sleep.  A signal may end a nap early: a
# polling loop checks again, no more.
_mi_nap=
if _mi_nap_f=${TMPDIR:-/tmp}/mi-nap.$$ &&
	mkfifo "$_mi_nap_f" 2>/dev/null; then
	exec 9<>"$_mi_nap_f"
	rm -f "$_mi_nap_f"
	# shellcheck disable=SC3045 # not POSIX: probed here, busybox ash and bash have it
	read -t 0.01 -u 9 _mi_nap_x 2>/dev/null
	case $? in
	1 | 1[3-9][0-9] | 2[0-9][0-9]) _mi_nap=yes ;;
	*) exec 9<&- ;;
	esac
fi
mi_nap()
{
	if [ -n "$_mi_nap" ]; then
		# shellcheck disable=SC3045 # only where the probe above found it
		read -t "$1" -u 9 _mi_nap_x
	else
		sleep "$1"
	fi
	return 0
}

# mi_uptime_cs: the guest's uptime in hundredths of a second in $MI_UP_CS, read
# by the shell (/proc/uptime has two decimals: the digits joined are hundredths)
mi_uptime_cs()
{
	read -r _uc_up _uc_idle < /proc/uptime
	# shellcheck disable=SC2034 # the answer, for mi_uptime_cs's callers
	MI_UP_CS=$((${_uc_up%.*}${_uc_up#*.}))
}

# mi_has_prefix FILE PREFIX: some line of FILE starts with PREFIX, read by the
# shell itself (no grep: see mi_nap)
mi_has_prefix()
{
	[ -r "$1" ] || return 1
	while IFS= read -r _hp_l || [ -n "$_hp_l" ]; do
		case $_hp_l in "$2"*) return 0 ;; esac
	done < "$1"
	return 1
}

# mi_read VAR FILE: VAR set to FILE's text as "$(cat FILE)" gives it (trailing
# newlines dropped), read by the shell itself: no process (see mi_nap).  Fails,
# VAR unchanged, where FILE cannot be opened.  For short files (a knob, a
# one-line record): the shell's read takes a byte a system call, and past a few
# hundred bytes that costs as much as the fork it saves.
mi_read()
{
	_mr_v='' _mr_nl=''
	{
		while IFS= read -r _mr_l || [ -n "$_mr_l" ]; do
			_mr_v=$_mr_v$_mr_nl$_mr_l
			_mr_nl='
'
		done
	} < "$2" || return 1
	while :; do
		case $_mr_v in
		*'
') _mr_v=${_mr_v%?} ;;
		*) break ;;
		esac
	done
	eval "$1=\$_mr_v"
}

# ---- TAP ------------------------------------------------------------------

# The writer is tap.sh's; these are the selftests' short names for it.  The count is run.sh's
# MI_TAP_COUNTER file, so results from every test file and subshell are numbered in one run.
TAP_COUNTER=$MI_TAP_COUNTER
export TAP_COUNTER
. "$ST_DIR/tap.sh"

# diag TEXT...: a TAP diagnostic line
diag() { tap_diag "$*"; }

# ok DESC / fail DESC / skip DESC REASON
ok() { tap_ok "$@"; }
fail() { tap_fail "$@"; }
skip() { tap_skip "$@"; }

# check DESC COMMAND...: ok if COMMAND succeeds
check()
{
	_desc=$1
	shift
	if "$@"; then
		ok "$_desc"
	else
		fail "$_desc"
	fi
}

# check_eq DESC GOT WANT
check_eq()
{
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1"
		diag "$1: got '$2', want '$3'"
	fi
}

# check_read DESC FILE WANT: ok if FILE reads WANT, as "$(cat FILE)" would give
# it, read without a process (mi_read); else not ok with what it read
check_read()
{
	mi_read _cr_v "$2" || _cr_v="(not readable)"
	check_eq "$1" "$_cr_v" "$3"
}

# ---- numbers --------------------------------------------------------------

# is_num V: V is a (signed) decimal integer
is_num()
{
	case $1 in
	'' | - | *[!0-9-]* | ?*-*) return 1 ;;
	esac
	return 0
}

abs()
{
	if [ "$1" -lt 0 ]; then
		echo $((-$1))
	else
		echo "$1"
	fi
}

# diff A B: |A - B|
diff_abs()
{
	abs $(($1 - $2))
}

min()
{
	if [ "$1" -lt "$2" ]; then echo "$1"; else echo "$2"; fi
}

max()
{
	if [ "$1" -gt "$2" ]; then echo "$1"; else echo "$2"; fi
}

# tol_of VALUE ABS PCT: the larger of ABS and PCT percent of |VALUE|
tol_of()
{
	_t=$(($(abs "$1") * $3 / 100))
	max "$2" "$_t"
}

# is_within GOT LO HI TOL: LO - TOL <= GOT <= HI + TOL (quiet)
is_within()
{
	is_num "$1" || return 1
	[ "$1" -ge $(($2 - $4)) ] && [ "$1" -le $(($3 + $4)) ]
}

# off_by GOT LO HI: how far GOT lies outside [LO, HI] (0 inside)
off_by()
{
	if [ "$1" -lt "$2" ]; then
		echo $(($2 - $1))
	elif [ "$1" -gt "$3" ]; then
		echo $(($1 - $3))
	else
		echo 0
	fi
}

# within_msg NAME GOT LO HI TOL: one diagnostic with both values
within_msg()
{
	if [ "$3" = "$4" ]; then
		_ref=$3
		_d=$(is_num "$2" && diff_abs "$2" "$3" || echo '?')
	else
		_ref="[$3, $4]"
		if ! is_num "$2"; then
			_d='?'
		elif [ "$2" -lt "$3" ]; then
			_d=$(($3 - $2))
		elif [ "$2" -gt "$4" ]; then
			_d=$(($2 - $4))
		else
			_d=0
		fi
	fi
	diag "$1: got $2, reference $_ref, off by $_d, tolerance $5"
}

# check_within DESC GOT REF TOL: ok if |GOT - REF| <= TOL, else not ok
# with both values as a diagnostic.
check_within()
{
	check_between "$1" "$2" "$3" "$3" "$4"
}

# check_between DESC GOT LO HI TOL: as check_within against a bracket
# [LO, HI] (a reference read before and after GOT).
check_between()
{
	if is_within "$2" "$3" "$4" "$5"; then
		ok "$1"
	else
		fail "$1"
		within_msg "$1" "$2" "$3" "$4" "$5"
	fi
}

# ---- reading meminspect tables ------------------------------------------

# mi_lookup FILE KEY [COLUMN]: the value in column COLUMN (default: the
# second one) of the record whose first value is KEY.  Fails if there is
# no such record or column.  The last column runs to the end of the line.
mi_lookup()
{
	awk -v key="$2" -v col="${3:-}" '
	NR == 1 {
		for (i = 1; i <= NF; i++)
			idx[$i] = i
		nh = NF
		c = col == "" ? 2 : idx[col]
		if (!c)
			exit 1
		next
	}
	/^#/ { next }
	$1 == key {
		if (c < nh) {
			print $c
		} else {
			line = $0
			for (i = 1; i < c; i++)
				sub(/^[^ ]* /, "", line)
			print line
		}
		found = 1
		exit
	}
	END { exit !found }' "$1"
}

# mi_lookup_cols FILE KEY COLUMN...: the values in those columns of the record
# whose first value is KEY, on one line, space-separated: one process where a
# mi_lookup per column is one each.  Fails if there is no such record or
# column.  No column here runs to the end of the line.
mi_lookup_cols()
{
	_mlc_f=$1 _mlc_k=$2
	shift 2
	awk -v key="$_mlc_k" -v cols="$*" '
	NR == 1 {
		for (i = 1; i <= NF; i++)
			idx[$i] = i
		n = split(cols, name, " ")
		for (i = 1; i <= n; i++)
			if (!(c[i] = idx[name[i]]))
				exit 1
		next
	}
	/^#/ { next }
	$1 == key {
		for (i = 1; i <= n; i++)
			printf "%s%s", $c[i], (i < n ? " " : "\n")
		found = 1
		exit
	}
	END { exit !found }' "$_mlc_f"
}

# mi_field FILE NAME: summary-style lookup (header "field value unit")
mi_field()
{
	mi_lookup "$1" "$2" value
}

# mi_keys FILE: the first value of every record
mi_keys()
{
	awk 'NR > 1 && !/^#/ { print $1 }' "$1"
}

# cap_available NAME [FILE] / cap_detail NAME [FILE]: a capabilities row's
# "available" (yes/no) and "detail" (free text)
cap_available()
{
	mi_lookup "${2:-$MI_DIR/capabilities}" "$1" available
}

cap_detail()
{
	mi_lookup "${2:-$MI_DIR/capabilities}" "$1" detail
}

# expect_alloc_reports begin|end: tell the VM runner (scripts/splat-scan) that
# the kernel's own allocation-failure reports (warn_alloc, the OOM killer),
# stack dump included, are the expected answer to what this test injects
# until "end".  The console prints every level here (ignore_loglevel), so the
# marker is on it, in order with the reports.
expect_alloc_reports()
{
	echo "<5>meminspect-selftest: expect allocation-failure reports: $1" \
		> /dev/kmsg
}

# expect_kmemleak_reports begin|end: the same for kmemleak's "N new suspected
# memory leaks" line, which a test's own scan of a leak it planted prints
# (test_fault_module.sh); kmemleak's other lines and every other pattern still count.
expect_kmemleak_reports()
{
	echo "<5>meminspect-selftest: expect kmemleak reports: $1" > /dev/kmsg
}

# expect_debugfs_race begin|end: the same for the one report a kernel race
# prints when a file of meminspect is opened while rmmod drops its references
# (before the module is marked going: scripts/splat-scan says where), which
# test_unload.sh's readers racing rmmod can hit; its W taint is then expected.
expect_debugfs_race()
{
	echo "<5>meminspect-selftest: expect debugfs unload race: $1" > /dev/kmsg
}

# ---- kernel anchors -------------------------------------------------------

# meminfo NAME [FILE]: the number of /proc/meminfo line "NAME:" (kB, or a
# plain count for HugePages_*).  Fails if the kernel has no such line.
# A KASAN kernel (the debug lane): every memory access is checked, a page
# walk is roughly ten times slower than on a stock kernel.
mi_kasan()
{
	# one read of /proc/kallsyms per run (2.5 s of a 6.12 guest under TCG):
	# run.sh exports the answer to every test
	if [ -z "${_mi_kasan:-}" ]; then
		_mi_kasan=no
		! grep -q ' kasan_report$' /proc/kallsyms || _mi_kasan=yes
	fi
	[ "$_mi_kasan" = yes ]
}

# mi_slub_debug: the kernel boots with SLUB debugging (the strict 6.1 lane's
# slub_debug=FZPU): every slab allocation and free is checked, poisoned and
# has its stack saved, so a test that makes the kernel allocate a lot (tens
# of thousands of VMAs: 65630 took 47.8 s to map there, 3.0 s without) may
# size itself down as under KASAN.  "slub_debug=-" turns it off: not counted
mi_slub_debug()
{
	grep -qE '(^| )slub_debug( |$|=[^-])' /proc/cmdline
}

meminfo()
{
	awk -v k="$1:" '$1 == k { print $2; f = 1; exit } END { exit !f }' \
		"${2:-/proc/meminfo}"
}

# zoneinfo_managed_pages [FILE]: sum of every zone's "managed" count
zoneinfo_managed_pages()
{
	awk '$1 == "managed" { s += $2 } END { printf "%d\n", s }' \
		"${1:-/proc/zoneinfo}"
}

# zoneinfo_pcp_pages [FILE]: sum of every per-cpu pageset's "count"
zoneinfo_pcp_pages()
{
	awk '$1 == "count:" { s += $2 } END { printf "%d\n", s }' \
		"${1:-/proc/zoneinfo}"
}

# buddy_highest_order [FILE]: highest order with a free block, -1 if none
buddy_highest_order()
{
	awk '$1 == "Node" {
		for (i = 5; i <= NF; i++)
			if ($i > 0 && i - 5 > h)
				h = i - 5
	}
	BEGIN { h = -1 }
	END { print h }' "${1:-/proc/buddyinfo}"
}

# buddy_above_kb ORDER [FILE]: kB free in blocks of order > ORDER
buddy_above_kb()
{
	awk -v o="$1" -v pk="$MI_PAGE_KB" '$1 == "Node" {
		sz = pk
		for (i = 5; i <= NF; i++) {
			if (i - 5 > o)
				s += $i * sz
			sz *= 2
		}
	}
	END { printf "%d\n", s }' "${2:-/proc/buddyinfo}"
}

# ---- environment ----------------------------------------------------------

mi_loaded()
{
	[ -d /sys/module/meminspect ]
}

debugfs_mounted()
{
	awk -v d="$MI_DEBUGFS" '$2 == d && $3 == "debugfs" { f = 1 }
		END { exit !f }' /proc/mounts
}

# mi_restore: put back what a test may have taken away (debugfs, module).
# Only for the real thing: a dry run against a copy (MI_DIR elsewhere)
# must not mount or load anything on the host.
mi_restore()
{
	case $MI_DIR in
	"$MI_DEBUGFS"/*) ;;
	*) return 0 ;;
	esac
	if ! debugfs_mounted; then
		diag "remounting debugfs on $MI_DEBUGFS"
		mount -t debugfs debugfs "$MI_DEBUGFS"
	fi
	if ! mi_loaded; then
		diag "reloading $MI_KO"
		insmod "$MI_KO"
	fi
}

# swap_on: a 256 MiB zram swap device (scripts/vm-run loads zram; its
# /meminspect/zram/status says how); sets $zdev, or says why not
swap_on()
{
	_zs=$(cat "$MI_ZRAM_STATUS" 2>/dev/null)
	case $_zs in
	loaded | builtin) ;;
	*) zwhy=${_zs:-no $MI_ZRAM_STATUS: not a scripts/vm-run guest}; return 1 ;;
	esac
	if [ "$(cat /sys/block/zram0/disksize 2>/dev/null)" = 0 ]; then
		_z=0
	else
		_z=$(cat /sys/class/zram-control/hot_add 2>/dev/null) ||
			{ zwhy="no free zram device"; return 1; }
	fi
	zdev=/dev/zram$_z
	echo 256M > "/sys/block/zram$_z/disksize" &&
		mkswap "$zdev" > /dev/null && swapon "$zdev" ||
		{ zwhy="setting up $zdev as swap failed"; return 1; }
}

# swap_off: swapoff and reset what swap_on set up (the caller keeps $zdev
# empty until swap_on, and calls swap_off at exit)
swap_off()
{
	[ -n "$zdev" ] || return 0
	swapoff "$zdev"
	echo 1 > "/sys/block/${zdev#/dev/}/reset"
	zdev=
}

# snap_files DEST FILE [DEST FILE]...: read the FILEs back to back in one
# process (progs/readseq.c says why: with one cat per file, fork, exec and
# exit between the reads move the very figures being bracketed) and leave
# each in its DEST.  Paths without spaces.
snap_files()
{
	_sf_files= _sf_dests=
	while [ $# -ge 2 ]; do
		_sf_dests="$_sf_dests $1" _sf_files="$_sf_files $2"
		shift 2
	done
	"$ST_DIR/progs/readseq" "${T:-/tmp}/.snap" $_sf_files || return 1
	_sf_i=0
	for _sf_d in $_sf_dests; do
		mv "${T:-/tmp}/.snap.$_sf_i" "$_sf_d" || return 1
		_sf_i=$((_sf_i + 1))
	done
}

# mi_reload MODULE-ARGS...: rmmod meminspect (retried while a reader still
# holds one of its files), then insmod it with MODULE-ARGS
mi_reload()
{
	_i=0
	while mi_loaded && ! rmmod meminspect 2>/dev/null; do
		_i=$((_i + 1))
		[ "$_i" -ge 50 ] && return 1
		mi_nap 0.1
	done
	insmod "$MI_KO" "$@"
}

# mi_tmpdir: a fresh directory for one test's scratch files
mi_tmpdir()
{
	_mi_mktmp "$@" && echo "$MI_TMP"
}

# _mi_mktmp [NAME]: mi_tmpdir's directory made, its path in $MI_TMP (mi_setup's,
# without the command substitution's fork; rm only where one is left over)
_mi_mktmp()
{
	MI_TMP=${TMPDIR:-/tmp}/mi.$$.${1:-t}
	[ ! -e "$MI_TMP" ] || rm -rf "$MI_TMP"
	mkdir -p "$MI_TMP"
}

# mi_setup NAME [HOOK]: the head of a test file.  $T, a fresh scratch
# directory; $pids, the background processes the test starts (empty).  At
# exit, and on TERM or INT (status 143), mi_cleanup kills and reaps $pids,
# runs HOOK (a function undoing what else the test changed: knobs, mounts,
# the helper module, a swap device) and removes $T.
mi_setup()
{
	_mi_mktmp "$1" || exit 1
	T=$MI_TMP
	pids=
	mi_cleanup_hook=${2:-:}
	trap mi_cleanup EXIT
	trap 'exit 143' TERM INT
}

mi_cleanup()
{
	if [ -n "$pids" ]; then
		# shellcheck disable=SC2086
		kill $pids 2>/dev/null
		# shellcheck disable=SC2086
		wait $pids 2>/dev/null
	fi
	$mi_cleanup_hook
	rm -rf "$T"
}

# helper_unload [FILE...]: write 0 to each FILE of the helper module (what
# it holds back to nothing), then rmmod it, if it is loaded
helper_unload()
{
	[ -d /sys/module/meminspect_test ] || return 0
	for _hf; do
		echo 0 > "$MI_TEST_DIR/$_hf" 2>/dev/null
	done
	rmmod meminspect_test
}

# wait_line FILE PREFIX [PID [TENTHS]]: until a line of FILE starts with
# PREFIX (status 0), PID has exited or TENTHS tenths of a second (default
# 600) have passed (status 1).  No process a round (mi_nap, mi_has_prefix):
# its targets take seconds to get ready under KASAN.
wait_line()
{
	_wl_i=0
	while ! mi_has_prefix "$1" "$2"; do
		_wl_i=$((_wl_i + 1))
		if [ "$_wl_i" -gt "${4:-600}" ] ||
			{ [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; }; then
			mi_has_prefix "$1" "$2"
			return
		fi
		mi_nap 0.1
	done
}

# require_file FILE: emit not ok and exit if FILE is unreadable
require_file()
{
	if [ ! -r "$1" ]; then
		fail "$1 is readable"
		exit 0
	fi
}

# mi_lockdown_stop WHAT: in test_zzz_lockdown.sh's second run of the view tests
# (MI_LOCKDOWN_PASS: the raised level), the file ends here, before WHAT unloads or loads a
# module: lockdown refuses unsigned modules, so meminspect unloaded there would be gone for
# the rest of the run. The normal pass ran what follows.
mi_lockdown_stop()
{
	[ -n "${MI_LOCKDOWN_PASS:-}" ] || return 0
	diag "lockdown ${MI_LOCKDOWN_PASS}: $1 loads a module; what follows ran in the normal pass"
	exit 0
}

# mi_ext4_ready DIR: Debian's ext4 usable, its modules loaded from DIR (kernel-fetch's ext4
# set: status builtin, or load-order and the .ko files), or status 1
mi_ext4_ready()
{
	[ -r "$1/status" ] && [ "$(cat "$1/status")" = builtin ] && return 0
	[ -r "$1/load-order" ] || return 1
	while read -r _e4_ko; do
		insmod "$1/$_e4_ko" 2> /dev/null || grep -q "^${_e4_ko%.ko} " /proc/modules || return 1
	done < "$1/load-order"
}

# mi_ext4_on_brd WHAT SKIPDESC EXT4DIR DRIVERS MNT: Debian's ext4 (mi_ext4_ready) on a fresh
# 64 MiB ramdisk of Debian's brd (DRIVERS/brd.ko), made with mke2fs and mounted at MNT: 0.
# Else status 1 and the result said: SKIPDESC skipped where EXT4DIR/status says the kernel
# has no ext4 ("absent ..."), "WHAT: ext4 modules load" or "WHAT: brd ramdisk with ext4
# mounted" failed otherwise.
mi_ext4_on_brd()
{
	_e4_st=$(cat "$3/status" 2> /dev/null)
	case $_e4_st in
	absent*)
		skip "$2" "$_e4_st"
		return 1
		;;
	esac
	if ! mi_ext4_ready "$3"; then
		fail "$1: ext4 modules load (${_e4_st:-no $3 in the guest})"
		return 1
	fi
	rmmod brd 2> /dev/null
	if insmod "$4/brd.ko" rd_nr=1 rd_size=65536 && mke2fs -q /dev/ram0 > /dev/null 2>&1 &&
		mkdir -p "$5" && mount -t ext4 /dev/ram0 "$5"; then
		return 0
	fi
	fail "$1: brd ramdisk with ext4 mounted"
	return 1
}

# require_reader: the reader is installed, or one failure and the test file ends
require_reader()
{
	if [ ! -x "$MI_READER" ]; then
		fail "$MI_READER is installed"
		exit 0
	fi
}

# memcg_brd NAME [BRD_PARAMS]: Debian's brd loaded afresh with one 128 MiB ramdisk (or as
# BRD_PARAMS say), and the cgroup v2
# $CG/NAME with memory.max 16 MiB (cgroup2 mounted on $CG first where it is not: cg_mounted=1
# then), so that the ramdisk's page cache, read from inside NAME, is reclaimed by memcg
# reclaim. Fails at the first step that does. Needs CG and DRIVERS.
memcg_brd()
{
	if ! awk -v cg="$CG" '$2 == cg && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts; then
		mkdir -p "$CG" && mount -t cgroup2 none "$CG" && cg_mounted=1
	fi
	echo +memory > "$CG/cgroup.subtree_control" 2> /dev/null
	rmmod brd 2> /dev/null
	# shellcheck disable=SC2086
	insmod "$DRIVERS/brd.ko" ${2:-rd_nr=1 rd_size=131072} && mkdir "$CG/$1" &&
		echo $((16 << 20)) > "$CG/$1/memory.max"
}

# require_caps DESC NAME...: skip DESC and exit unless every capabilities
# row NAME is available; the reason is the first missing row's detail
require_caps()
{
	_rc_desc=$1
	shift
	for _rc_name; do
		if [ "$(cap_available "$_rc_name")" != yes ]; then
			skip "$_rc_desc" "$(cap_detail "$_rc_name")"
			exit 0
		fi
	done
}

# check_none DESC TEXT: ok if TEXT (the problems found, one a line) is
# empty, else not ok with its lines as diagnostics
check_none()
{
	if [ -z "$2" ]; then
		ok "$1"
	else
		fail "$1"
		printf '%s\n' "$2" | tap_diag
	fi
}

# check_header DESC FILE WANT: ok if FILE's first line is WANT, else not ok
# with both lines
check_header()
{
	tap_is "$1" "$3" "$(head -n 1 "$2")"
}
