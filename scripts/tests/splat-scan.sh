#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host test of scripts/splat-scan on made-up console logs: TAP on stdout.
# Each case is a console log and whether the runner must call it a splat.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. "$here/../selftests/tap.sh"
tap_open

# case DESC WANT(splat|clean) LINES...
case_() {
	local desc=$1 want=$2 got
	shift 2
	printf '%s\r\n' "$@" >"$t/console.log"
	"$here/splat-scan" "$t/console.log" >"$t/hits"
	case $? in 0) got=splat ;; 1) got=clean ;; 3) got=excused ;; *) got=error ;; esac
	tap_result "$([ "$got" = "$want" ]; echo $?)" "splat-scan: $desc (want $want, got $got)" \
		"$(cat "$t/hits")"
}

BEGIN='[   40.1] meminspect-selftest: expect allocation-failure reports: begin'
END='[   80.1] meminspect-selftest: expect allocation-failure reports: end'
VMALLOC=('[   71.950675] faultprog: vmalloc error: size 16384, vm_struct allocation failed, mode:0xdc0(GFP_KERNEL|__GFP_ZERO)'
	'[   71.952529] CPU: 1 UID: 0 PID: 1044 Comm: faultprog Tainted: G           OE      6.12.95+deb12-amd64 #1'
	'[   71.952825] Tainted: [O]=OOT_MODULE, [E]=UNSIGNED_MODULE'
	'[   71.952842] Hardware name: QEMU Standard PC (Q35 + ICH9, 2009)'
	'[   71.953017] Call Trace:'
	'[   71.953018]  <TASK>'
	'[   71.953019]  dump_stack_lvl+0x5d/0x80')

case_ "a quiet boot" clean '[    0.0] Linux version 6.1' '[    3.3] meminspect: loading out-of-tree module taints kernel.'
case_ "a WARNING" splat '[   10.0] WARNING: CPU: 0 PID: 1 at mm/slub.c:1 f+0x1/0x2'
case_ "a stack dump with no header" splat '[   10.0] Call Trace:' '[   10.0]  <TASK>'
case_ "warn_alloc's stack dump outside a window" splat "${VMALLOC[@]}"
case_ "warn_alloc's stack dump inside a window" clean "$BEGIN" "${VMALLOC[@]}" "$END"
case_ "5.10's page allocation failure inside a window" clean "$BEGIN" \
	'[   50.0] faultprog: page allocation failure: order:0, mode:0xcc0(GFP_KERNEL)' \
	'[   50.0] CPU: 0 PID: 9 Comm: faultprog' '[   50.0] Call Trace:' "$END"
case_ "the OOM killer's report inside a window" clean "$BEGIN" \
	'[   50.0] faultprog invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=1000' \
	'[   50.0] CPU: 0 PID: 9 Comm: faultprog' '[   50.0] Call Trace:' "$END"
case_ "a stack dump far from its header inside a window" splat "$BEGIN" \
	'[   50.0] faultprog: page allocation failure: order:0' \
	$(for i in $(seq 20); do echo "[   50.1] line $i"; done) '[   50.2] Call Trace:' "$END"
case_ "a WARNING inside a window" splat "$BEGIN" "${VMALLOC[@]}" \
	'[   72.0] WARNING: CPU: 1 PID: 1044 at mm/vmalloc.c:1 f+0x1/0x2' "$END"
case_ "warn_alloc's stack dump after the window ended" splat "$BEGIN" "$END" "${VMALLOC[@]}"
case_ "a headerless stack dump inside a window" splat "$BEGIN" '[   50.0] Call Trace:' "$END"
# The kernel's own report of a failure with a dump_stack() and no splat header: sysctl's, when
# dummy's register_netdevice() fails (6.1, fault sweep of dummy's init)
SYSCTL=('[   60.100] sysctl could not get directory: /net/ipv4/conf/dummy0 -12'
	'[   60.101] CPU: 0 PID: 311 Comm: insmod Tainted: G           OE      6.1.0-41-amd64 #1  Debian 6.1.158-1'
	'[   60.102] Hardware name: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.2-debian-1.16.2-1 04/01/2014'
	'[   60.103] Call Trace:' '[   60.104]  <TASK>' '[   60.105]  dump_stack_lvl+0x44/0x5c'
	'[   60.106]  __register_sysctl_table+0x4a5/0x6d0')
case_ "sysctl's dump_stack() report inside a window" clean "$BEGIN" "${SYSCTL[@]}" "$END"
case_ "sysctl's dump_stack() report outside a window" splat "${SYSCTL[@]}"
case_ "a 6.12 dump header (UID) inside a window" clean "$BEGIN" "${SYSCTL[0]}" \
	'[   60.101] CPU: 0 UID: 0 PID: 311 Comm: insmod Not tainted 6.12.95+deb12-amd64 #1' \
	'[   60.103] Call Trace:' "$END"
# A WARNING has the same dump header: its stack dump stays a splat inside a window
WARN=('[   61.0] WARNING: CPU: 0 PID: 311 at fs/sysfs/group.c:116 internal_create_group+0x382/0x3b0'
	'[   61.1] Modules linked in: dummy(+)'
	'[   61.2] CPU: 0 PID: 311 Comm: insmod Tainted: G           OE      6.1.0-41-amd64 #1'
	'[   61.3] RIP: 0010:internal_create_group+0x382/0x3b0' '[   61.4] Call Trace:')
printf '%s\r\n' "$BEGIN" "${WARN[@]}" "$END" >"$t/console.log"
"$here/splat-scan" "$t/console.log" >"$t/hits"
tap_result "$(grep -q 'Call Trace:' "$t/hits"; echo $?)" \
	"splat-scan: a WARNING's stack dump inside a window is counted too (want its Call Trace in the hits)" \
	"$(cat "$t/hits")"
# test_unload.sh's window: the kernel's debugfs unload race report (6.12.95's debug lane)
DB='[ 1200.0] meminspect-selftest: expect debugfs unload race: begin'
DE='[ 1300.0] meminspect-selftest: expect debugfs unload race: end'
# lines N: N console lines of filler, one array element each
lines() { for i in $(seq "$1"); do echo "[ 1275.27] line_$i"; done; }
mapfile -t FILL14 < <(lines 14)
mapfile -t FILL40 < <(lines 40)
RACE=('[ 1275.244308] ------------[ cut here ]------------'
	'[ 1275.249248] debugfs file owner did not clean up at exit: capabilities'
	'[ 1275.265814] WARNING: CPU: 1 PID: 8398 at fs/debugfs/file.c:418 full_proxy_open+0x100/0x50b'
	'[ 1275.266774] Modules linked in: meminspect(O-) [last unloaded: meminspect(O)]'
	"${FILL14[@]}"
	'[ 1275.280264] Call Trace:' '[ 1275.28]  <TASK>' '[ 1275.29] ---[ end trace 0000000000000000 ]---')
case_ "the debugfs unload race report inside test_unload's window" excused "$DB" "${RACE[@]}" "$DE"
case_ "the debugfs unload race report outside the window" splat "${RACE[@]}"
case_ "another WARNING inside the debugfs window" splat "$DB" \
	'[ 1250.0] WARNING: CPU: 0 PID: 1 at mm/slub.c:1 f+0x1/0x2' "$DE"
case_ "a stack dump 40 lines past the race report" splat "$DB" "${RACE[@]}" \
	"${FILL40[@]}" '[ 1277.0] Call Trace:' "$DE"
"$here/splat-scan" "$t/missing" >/dev/null 2>&1
rc=$?
tap_result "$([ "$rc" -gt 1 ]; echo $?)" \
	"splat-scan: an unreadable console log is an error, not a clean run (exit $rc)"
tap_close
