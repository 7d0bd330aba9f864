#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A driver's init under `meminspect fault sweep --module NAME -- insmod NAME.ko`
# (docs/fault-sweep.md): aim-module at a module that is not loaded yet matches
# from when it loads; each allocation of its init fails in a run of its own; after
# every run the module is gone or live (the kernel's /proc/modules and
# /sys/module/NAME/initstate), never half-loaded. On a kernel with kmemleak (the
# debug lane) each run is followed by a scan and the sweep names the failure point
# that leaks. Targets: the helper's meminspect_drv (four allocations, the third
# failure point leaks the first two objects: selftests/helper/meminspect_drv.c) and
# the kernel's own brd.ko (a ramdisk driver the suite did not write).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "${ST_DIR:-$(dirname "$0")}/lib_fault.sh"

R=$MI_READER
DRV=${MI_DRV_KO:-/meminspect/meminspect_drv.ko}
DRIVERS=${MI_DRIVERS:-/meminspect/drivers}
KML=$MI_DEBUGFS/kmemleak
# one finit_module() call, as kmod's insmod: busybox's insmod loads again with
# init_module() after a failed finit_module() (progs/finsmod.c says why that matters)
INSMOD=${ST_DIR:-$(dirname "$0")}/progs/finsmod

fault_setup fault_module
fault_cleanup_more()
{
	rmmod meminspect_drv 2> /dev/null
	rmmod brd 2> /dev/null
	[ ! -e "$KML" ] || echo clear > "$KML" 2> /dev/null
}
for c in fault fault.slab fault.aim_module; do
	if [ "$(cap_available $c)" != yes ]; then
		skip "fault: driver init sweeps" "capabilities: $c: $(cap_detail $c)"
		exit 0
	fi
done
kml=no
[ -e "$KML" ] && kml=yes
rmmod meminspect_drv 2> /dev/null

# modstate NAME: gone, live, or what else /proc/modules says
modstate()
{
	_s=$(awk -v m="$1" '$1 == m { print $5 }' /proc/modules)
	case $_s in
	"") echo gone ;;
	Live) [ "$(cat "/sys/module/$1/initstate" 2> /dev/null)" = live ] && echo live ||
		echo "Live, initstate $(cat "/sys/module/$1/initstate" 2> /dev/null)" ;;
	*) echo "$_s" ;;
	esac
}

# -- the aim waits for the module, matches from when it loads -------------------

must sites slab
must times -1
must aim-module meminspect_drv
must armed 1
check "fault: stats notes that the aim waits for meminspect_drv" \
	grep -qx '# aim-module meminspect_drv: not loaded: matching from when it loads' \
	"$MI_FAULT/stats"
"$INSMOD" "$DRV" 2> /dev/null
rc=$?
fset armed 0
check "fault: insmod of the aimed module fails (its first allocation is failed)" [ $rc -ne 0 ]
check_eq "fault: one failure: init returned at its first failed allocation" \
	"$(fstat slab failed)" 1
check_eq "fault: the module is gone afterwards" "$(modstate meminspect_drv)" gone
# named when it went: after unloading, %pS could only print an address
if grep -q ' mi_drv_init+0x[0-9a-f]*/0x[0-9a-f]* \[meminspect_drv\]$' "$MI_FAULT/log"; then
	ok "fault: the log names the caller inside the module that went"
else
	fail "fault: the log names the caller inside the module that went"
	diag "log: $(tail -n 2 "$MI_FAULT/log")"
fi
fault_defaults

# -- sweep of meminspect_drv's init ------------------------------------------------

# With kmemleak, each of the module's allocations makes kmemleak allocate its own
# record (kmemleak_alloc() from the slab's post-allocation hook): the module is within
# aim-depth of that allocation, and the kernel absorbs its failure (kmemleak falls back
# to its static pool; seen on the debug lane: __alloc_object, module live). Those are
# kmemleak's failure points, not the driver's: spared, by kmemleak's own functions
# (kmemleak_alloc() tail-calls create_object(), so it is not always on the stack).
spare=
if [ $kml = yes ]; then
	# those of the four the kernel has, in one read of /proc/kallsyms
	spare=$(awk 'NF == 3 && $3 ~ /^(__alloc_object|__create_object|create_object|kmemleak_alloc)$/ &&
		!seen[$3]++ { printf "%s,", $3 }' /proc/kallsyms)
	spare="--exclude-caller ${spare%,}"
fi
[ $kml = no ] || expect_kmemleak_reports begin
# shellcheck disable=SC2086
"$R" fault sweep --module meminspect_drv --max-runs 20 $spare -- "$INSMOD" "$DRV" \
	> "$T/drv" 2> "$T/drv.err"
rc=$?
[ $kml = no ] || expect_kmemleak_reports end
awk '$1 ~ /^[0-9]+$/' "$T/drv" > "$T/drv.rows"
runs=$(wc -l < "$T/drv.rows")
# row: nth exit failed matched splats reports new_taint module loads leaks caller
bad=$(awk -v runs="$runs" '
	{ n = $1; c = $11; if (NF > 11) c = c " " $12
	  if (n < runs && ($2 == 0 || $3 != 1 || $8 != "gone"))
		printf "run %s: exit %s failed %s module %s; ", n, $2, $3, $8
	  if (n < runs && c !~ /^(mi_drv_init[+].* \[meminspect_drv\]|kstrdup[+].*)$/)
		printf "run %s: caller %s; ", n, c
	  if (n == runs && ($2 != 0 || $3 != 0 || $8 != "live"))
		printf "clean run %s: exit %s failed %s module %s; ", n, $2, $3, $8 }
	' "$T/drv.rows")
if [ "$runs" -ge 2 ] && [ -z "$bad" ]; then
	ok "fault: sweep of meminspect_drv's init: each of its $((runs - 1)) failure points fails insmod and leaves it gone; the clean run leaves it live"
else
	fail "fault: sweep of meminspect_drv's init: each failure point fails insmod and leaves it gone; the clean run leaves it live"
	diag "$bad"
	sed 's/^/# /' "$T/drv" "$T/drv.err" | head -n 20
fi
# the helper's own map: three allocations in its init, the fourth through kstrdup
check_eq "fault: sweep of meminspect_drv: failure points in mi_drv_init, then kstrdup" \
	"$(awk '$1 ~ /^[0-9]+$/ && $11 != "-" { sub(/[+].*/, "", $11); printf "%s%s", s, $11; s = " " }' "$T/drv")" \
	"mi_drv_init mi_drv_init mi_drv_init kstrdup"
check "fault: sweep of meminspect_drv: the sweep says gone or live after every run" \
	grep -qx '# module meminspect_drv: gone or live after every run' "$T/drv"
check_eq "fault: the clean run left meminspect_drv live (the kernel's view)" \
	"$(modstate meminspect_drv)" live
if [ $kml = yes ]; then
	check_eq "fault: kmemleak: sweep exit 10 (a run leaked)" "$rc" 10
	# the planted leak: failing the third allocation (ring) keeps ctx (96 bytes)
	# and table (16 * 8) unfreed; every other failure point unwinds
	check_eq "fault: kmemleak: only the third failure point leaks, 2 objects" \
		"$(awk '$1 ~ /^[0-9]+$/ && $10 != 0 { printf "%s:%s ", $1, $10 }' "$T/drv")" "3:2 "
	check "fault: kmemleak: the leaking point is named with its caller" \
		grep -q '^# nth 3: kmemleak: 2 unreferenced objects after failing mi_drv_init+' "$T/drv"
	check "fault: kmemleak: the leaked objects are ctx (96) and table (128)" \
		sh -c "grep -q '^# nth 3: kmemleak: size 96, comm finsmod' '$T/drv' &&
		       grep -q '^# nth 3: kmemleak: size 128, comm finsmod' '$T/drv'"
else
	check_eq "fault: sweep exit 0 (complete, clean, module gone or live)" "$rc" 0
	check "fault: no kmemleak here: the sweep says it did not check" \
		grep -qx '# kmemleak: not checked (the kernel has no kmemleak file)' "$T/drv"
	skip "fault: kmemleak names the leaking failure point" \
		"kernel built without CONFIG_DEBUG_KMEMLEAK (no $KML)"
fi
[ "$rc" -eq 0 ] || [ "$rc" -eq 10 ] || sed 's/^/# /' "$T/drv" "$T/drv.err" | tail -n 12
check "fault: rmmod meminspect_drv after the sweep" rmmod meminspect_drv
check_eq "fault: the injector is disarmed" "$(fget armed)" 0

# -- sweep of a real driver's init: brd ---------------------------------------------

st=$(cat "$DRIVERS/status" 2> /dev/null)
if [ "$st" != ready ]; then
	# absent: the kernel has no brd module; anything else is the guest's set-up
	case $st in
	absent*) skip "fault: sweep of brd's init" "$st" ;;
	*) fail "fault: sweep of brd's init: brd.ko in the guest (${st:-no $DRIVERS/status: not a scripts/vm-run guest})" ;;
	esac
	exit 0
fi
rmmod brd 2> /dev/null
# Before 5.15 add_disk() returns nothing ("block: add error handling for add_disk()",
# 83cbce957446, v5.15): a failure inside it WARNs (block/genhd.c) and leaves the disk
# half-added, and brd's exit then oopses in del_gendisk (seen on 5.10: NULL pointer in
# kernfs_remove_by_name_ns, the guest died). There the sweep is kept to brd's own calls.
depth=
case $(uname -r) in
[1-4].* | 5.[0-9].* | 5.1[0-4].*) depth="--depth 1"
	diag "brd: add_disk() cannot fail cleanly before 5.15: --depth 1 (brd's own allocations)" ;;
esac
# Sampled with meminspect and the helpers already loaded: the bits they set (O, E, N:
# scripts/taint-expected, the one list of them) are in it, and brd, an in-tree module,
# sets none, so any bit the sweep adds is new.
taint0=$(cat /proc/sys/kernel/tainted)
# shellcheck disable=SC2086
"$R" fault sweep --module brd --max-runs 300 $spare $depth -- "$INSMOD" "$DRIVERS/brd.ko" rd_nr=1 \
	> "$T/brd" 2> "$T/brd.err"
rc=$?
runs=$(awk '$1 ~ /^[0-9]+$/' "$T/brd" | wc -l)
if [ "$rc" -eq 0 ] || { [ "$rc" -eq 10 ] && [ $kml = yes ]; }; then
	ok "fault: sweep of brd's init is complete and clean ($runs runs, exit $rc)"
else
	fail "fault: sweep of brd's init is complete and clean (exit $rc)"
	sed 's/^/# /' "$T/brd" "$T/brd.err" | tail -n 12
fi
check "fault: sweep of brd: at least one failure point in its init" [ "$runs" -ge 2 ]
# Past brd's own code: an allocation made by the kernel for brd (add_disk's, say) is failed
# because brd is within aim-depth of it. A caller without a "[module]" is such a point. On an
# x86-64 frame-pointer kernel (the debug lane's) a caller search for the probed address would
# see no frame past the direct caller (module/fault_caller.c, docs/fault.md): 1 failure
# point, brd_alloc's.
if [ -n "$depth" ]; then
	skip "fault: sweep of brd: a failure point in the kernel's code under brd's" "--depth 1 here (above)"
else
	deep=$(awk -v runs="$runs" '$1 ~ /^[0-9]+$/ && $1 < runs && $11 != "-" && NF == 11 { n++ }
		END { print n + 0 }' "$T/brd")
	check "fault: sweep of brd: a failure point in the kernel's code under brd's ($deep of $((runs - 1)))" \
		[ "$deep" -ge 1 ]
fi
check "fault: sweep of brd: no kernel splat, no new taint" \
	grep -qx '# no kernel splat, no new taint' "$T/brd"
bad=$(awk -v runs="$runs" '$1 ~ /^[0-9]+$/ {
	if ($1 < runs && $8 != "gone" && $8 != "live,unloaded") printf "run %s: %s; ", $1, $8
	if ($1 == runs && $8 != "live") printf "clean run %s: %s; ", $1, $8 }' "$T/brd")
check_eq "fault: sweep of brd: gone (or live, unloaded) after every failing run, live after the clean one" \
	"$bad" ""
check_eq "fault: brd is live after the sweep (the kernel's view)" "$(modstate brd)" live
diag "brd: after its failing runs: $(awk -v runs="$runs" '$1 ~ /^[0-9]+$/ && $1 < runs { n[$8]++ }
	END { for (s in n) printf "%s %d, ", s, n[s] }' "$T/brd")callers: $(awk '$1 ~ /^[0-9]+$/ && $11 != "-" {
	sub(/[+].*/, "", $11); n[$11]++ } END { for (c in n) printf "%s ", c }' "$T/brd")"
grep '^# nth [0-9]*: kmemleak' "$T/brd" | head -n 6 | while IFS= read -r l; do diag "brd: $l"; done
check "fault: rmmod brd after the sweep" rmmod brd
check_eq "fault: sweep of brd: no new taint bit" \
	"$(( $(cat /proc/sys/kernel/tainted) & ~taint0 ))" 0
exit 0
