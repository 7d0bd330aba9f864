#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host test of the lanes' settings (scripts/lib.sh): memory, time and boot options follow a
# kernel's .config, not its name, so the debug lane is one kernel registered through
# scripts/own-kernel like any the user builds (docs/own-kernel.md). Made-up kernels in a
# scratch cache; the real cache's debug entry is checked for how it was registered. TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
real_cache=${MEMINSPECT_CACHE:-/var/cache/meminspect}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. "$top/selftests/tap.sh"
tap_open
export MEMINSPECT_CACHE=$t
. "$top/scripts/lib.sh"

# fake NAME CONFIG-LINES...: a cache entry whose kdir has that .config
fake() {
	local n=$1
	shift
	mkdir -p "$t/kernels/$n/kdir"
	printf '%s\n' "$@" >"$t/kernels/$n/kdir/.config"
}
fake own-kasan CONFIG_KASAN=y CONFIG_DEBUG_KMEMLEAK=y
fake own-leak CONFIG_DEBUG_KMEMLEAK=y '# CONFIG_KASAN is not set'
fake own-plain CONFIG_MEMORY_HOTREMOVE=y
fake own-prof CONFIG_MEM_ALLOC_PROFILING=y '# CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT is not set'
fake own-prof-on CONFIG_MEM_ALLOC_PROFILING=y CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT=y
fake debug CONFIG_MODULES=y		# the name alone gives nothing
fake 6.1 CONFIG_MODULES=y

settings() { echo "[$(mi_lane_append "$1")] $(mi_lane_mem "$1") $(mi_lane_timeout "$1") $(mi_lane_big_mem "$1")"; }
tap_is "a KASAN + kmemleak kernel gets the debug lane's settings" \
	"$(settings own-kasan)" "[kmemleak=on watchdog_thresh=60 no5lvl] 2G 3300 2G"
tap_is "a kmemleak kernel without KASAN gets kmemleak=on only" \
	"$(settings own-leak)" "[kmemleak=on] 1G 1500 2G"
tap_is "a plain kernel gets the stock settings" "$(settings own-plain)" "[] 1G 1500 2G"
tap_is "allocation profiling built in, off by default: supported at boot, left off" \
	"$(settings own-prof)" "[sysctl.vm.mem_profiling=0] 1G 1500 2G"
tap_is "allocation profiling on by default: no boot option" "$(settings own-prof-on)" "[] 1G 1500 2G"
tap_is "a lane named debug without KASAN in its config gets the stock settings" \
	"$(settings debug)" "[] 1G 1500 2G"
tap_is "the 6.1 lane keeps its strict boot options" "$(settings 6.1)" \
	"[slub_debug=FZPU panic_on_warn=1] 1G 1500 2G"
# A named lane with fixed options keeps them and gets its config's too (a KASAN 6.12-rt).
fake 6.12-rt CONFIG_KASAN=y CONFIG_DEBUG_KMEMLEAK=y
tap_is "the RT lane's fixed option and a KASAN config's options together" \
	"$(settings 6.12-rt)" "[noirqdebug kmemleak=on watchdog_thresh=60 no5lvl] 2G 3300 2G"
tap_check "mi_config reads CONFIG_MEMORY_HOTREMOVE=y" mi_config own-plain MEMORY_HOTREMOVE
! mi_config own-kasan MEMORY_HOTREMOVE
tap_result $? "mi_config: an option that is not set"
! mi_config own-none KASAN
tap_result $? "mi_config: a kernel with no .config has nothing"

# own-kernel --name registers a tree under that lane name, as debug-kernel does.
tree=$t/tree
mkdir -p "$tree/arch/x86/boot" "$tree/include/config"
: >"$tree/arch/x86/boot/bzImage"
: >"$tree/Module.symvers"
echo 9.9.9-test >"$tree/include/config/kernel.release"
printf '%s\n' CONFIG_MODULES=y CONFIG_DEBUG_FS=y CONFIG_MODULE_UNLOAD=y CONFIG_KPROBES=y \
	CONFIG_KALLSYMS=y CONFIG_DEBUG_INFO_BTF=y CONFIG_KASAN=y >"$tree/.config"
name=$("$top/scripts/own-kernel" --name lane-x "$tree" 2>"$t/err")
tap_is "own-kernel --name prints the lane's name" "$name" lane-x
e=$t/kernels/lane-x
[ "$(readlink -f "$e/kdir")" = "$tree" ] && [ "$(readlink -f "$e/vmlinuz")" = "$tree/arch/x86/boot/bzImage" ] &&
	[ "$(cat "$e/release" 2>/dev/null)" = 9.9.9-test ] && [ -f "$e/ready" ]
tap_result $? "own-kernel --name: kdir, vmlinuz (a link to the bzImage), release, ready" "$(ls -l "$e" 2>&1)"
tap_is "the registered lane's settings come from the tree's config" "$(settings lane-x)" \
	"[watchdog_thresh=60 no5lvl] 2G 3300 2G"

# The real debug lane, where this machine has built it: registered the same way.
if [ -f "$real_cache/kernels/debug/ready" ]; then
	tap_check "the cached debug lane's vmlinuz is a link into its tree (registered by own-kernel)" \
		[ -L "$real_cache/kernels/debug/vmlinuz" ]
	tap_is "the cached debug lane's settings, from its config" \
		"$(MEMINSPECT_CACHE=$real_cache bash -c '. "$1/scripts/lib.sh"; mi_lane_append debug' sh "$top")" \
		"kmemleak=on sysctl.vm.mem_profiling=0 watchdog_thresh=60 no5lvl"
	# its =m module sets, as kernel-fetch keeps a Debian kernel's (zram/, drivers/ for brd)
	for set in zram:ZRAM:zram drivers:BLK_DEV_RAM:brd; do
		IFS=: read -r d opt m <<<"$set"
		grep -qx "CONFIG_$opt=m" "$real_cache/kernels/debug/kdir/.config" || continue
		tap_check "the cached debug lane's $d/ set has $m.ko, in its load order (CONFIG_$opt=m)" \
			grep -qx "$m.ko" "$real_cache/kernels/debug/$d/load-order"
	done
else
	tap_skip "the cached debug lane is registered by own-kernel" "no debug kernel built on this machine yet"
fi
tap_close
