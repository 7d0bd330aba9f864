# SPDX-License-Identifier: GPL-2.0
# Shared settings for meminspect's scripts: the kernel matrix and where downloads are cached.
# Sourced by the other scripts, never run on its own.

# Downloads live outside the clone so a fresh clone (and CI) reuses them offline.
MI_CACHE=${MEMINSPECT_CACHE:-/var/cache/meminspect}
MI_KERNELS_ALL="5.10 6.1 6.12 7.3"
# Lanes beyond the four stock kernels: the debug kernel (built here), Debian's PREEMPT_RT
# 6.12 (linux-image-rt-amd64 in bookworm-backports) and Debian's arm64 6.1, 6.12 and 7.3
# (cross-built, booted under qemu-system-aarch64; 6.12-arm64 runs the whole suite, the
# other two the load-and-read pass: mi_lane_mode). `make check` runs all of them.
MI_LANES_ALL="$MI_KERNELS_ALL 6.12-rt 6.12-arm64 6.1-arm64 7.3-arm64 debug"
MI_KERNEL_DEFAULT=6.1

die() { echo "meminspect: $*" >&2; exit 1; }
say() { echo "meminspect: $*" >&2; }

# The Debian suite that ships each matrix kernel (see docs/kernels.md).
mi_suite() {
	case "$1" in
	5.10) echo bullseye ;;
	6.1 | 6.1-arm64) echo bookworm ;;
	6.12 | 6.12-rt | 6.12-arm64) echo bookworm-backports ;;
	7.3 | 7.3-arm64) echo trixie-backports ;;
	debug) echo bookworm-backports ;;	# built from linux-source-6.12: scripts/debug-kernel
	own-*) [ -f "$MI_CACHE/kernels/$1/ready" ] && echo own ;;	# scripts/own-kernel DIR
	*) return 1 ;;
	esac
}

# The build root (scripts/build-roots) each kernel's modules are built in: 7.3's headers carry
# helper binaries linked against trixie's glibc and want gcc-14; the others are bookworm's
# gcc-12 kernels (5.10 included: its gcc-10 is not in bookworm, gcc-12 builds it); arm64
# kernels are cross-built in bookworm-cross (bookworm plus Debian's aarch64 cross gcc-12),
# 7.3's in trixie-cross (trixie plus the aarch64 cross gcc-14), for the same reasons as 7.3.
mi_root_of() {
	case "$1" in
	7.3) echo trixie ;;
	7.3-arm64) echo trixie-cross ;;
	*-arm64) echo bookworm-cross ;;
	*) echo bookworm ;;
	esac
}

mi_check_kernel() {
	mi_suite "$1" >/dev/null || die "unknown kernel '$1' (choose from: $MI_LANES_ALL)"
}

# The Debian flavour of a fetched kernel: its metapackages are linux-image-FLAVOUR and
# linux-headers-FLAVOUR.
mi_flavour() {
	case "$1" in
	*-rt) echo rt-amd64 ;;
	*-arm64) echo arm64 ;;
	*) echo amd64 ;;
	esac
}

# The Debian architecture of a kernel (its packages, the guest's binaries, the QEMU system).
mi_arch() {
	case "$1" in
	*-arm64) echo arm64 ;;
	*) echo amd64 ;;
	esac
}

# Kernel command line and memory each lane boots with in `make check`: the stock 6.1 lane
# is also the strict one (SLUB debugging, any WARNING panics); the debug lane needs room for
# KASAN's shadow and kmemleak's pool.
mi_lane_append() {
	local fixed=
	case "$1" in
	6.1) fixed="slub_debug=FZPU panic_on_warn=1" ;;
	# PREEMPT_RT forces the 8250 serial handler into a thread. QEMU's UART raises its
	# transmit interrupt again at once, so under the suite's TAP output on ttyS1 most
	# edges find the work done by the thread's previous pass and return IRQ_NONE:
	# "irq 3: nobody cared" with a stack dump (seen at 77 s, a serial8250_tx_chars
	# frame, no meminspect one) and the line disabled. noirqdebug turns off only that
	# spurious-interrupt detector (kernel/irq/spurious.c).
	6.12-rt) fixed="noirqdebug" ;;
	esac
	# The options a kernel's .config asks for (KASAN, kmemleak) come with every lane, the
	# named lanes' fixed options included: a KASAN build of 6.1 keeps slub_debug and gets
	# watchdog_thresh and no5lvl too.
	fixed="$fixed $(mi_config_append "$1")"
	fixed=${fixed# }
	echo "${fixed% }"
}
# What a lane runs in the VM: "full", the whole suite (and its 2 GiB pass and the export
# check), or "read", selftests/test_read_all.sh, test_capabilities.sh and test_zzz_lockdown.sh
# only: the module loads, every file under meminspect/ is read and answers, capabilities' rows
# hold, and so does all of it under lockdown. The arm64
# kernels but 6.12's are "read": the whole suite under TCG emulating another architecture
# took 498-518 s on 6.12-arm64 (884 s on 7.3-arm64 with the load at 7-10, all passed), which
# one arm64 lane is enough to pay for in make check. MI_LANE_MODE=full makes every lane full.
mi_lane_mode() {
	[ "${MI_LANE_MODE:-}" != full ] || { echo full; return; }
	case "$1" in
	6.1-arm64 | 7.3-arm64) echo read ;;
	*) echo full ;;
	esac
}
# The test files of a "read" lane (none: the whole suite): the lockdown pass too, last, as in
# the whole suite (docs/lockdown.md).
mi_lane_tests() { case $(mi_lane_mode "$1") in read) echo "test_read_all.sh test_capabilities.sh test_zzz_lockdown.sh" ;; esac; }
mi_lane_mem() { mi_kasan "$1" && echo 2G || echo 1G; }
# vm-run's --timeout per lane: the debug kernel (KASAN, lockdep, kmemleak under TCG) ran the
# suite in 282 s on a quiet machine but passed 900 s during test_unload.sh (the suite's
# second-to-last file) with the machine's load at 8-9 on 2 cores.
# The arm64 lane (TCG emulating another architecture) ran the suite in 498 s with the load
# at 5-6, against 292-567 s for the x86 lanes at 8-9: it gets the debug lane's margin.
# The debug lane's suite has grown since (overlay, sparse reservation, driver-init sweeps with
# kmemleak): in a clean-clone make check on 1 Dec it reached test_slabs.sh (six files from the
# end) at 2400 s, 900 s of which one file's since-fixed timeout had cost, so about 2300 s in
# all; it gets 3300 s (make check's two workers still end inside CI's 90 minutes), as does any
# KASAN kernel.
mi_lane_timeout() {
	case "$1" in
	*-arm64) echo 2400 ;;
	*) mi_kasan "$1" && echo 3300 || echo 1500 ;;
	esac
}
# The pass for selftests/big_*.sh: 2 GiB for every kernel. big_buddy.sh needs progs/frag to
# map 1000 MiB (one free list ~28 % past pagetypeinfo's cap); a KASAN kernel at 2 GiB shows
# MemTotal ~1690 MiB (KASAN's shadow, kmemleak's pool) and maps ~1220 MiB, enough; 3 GiB
# would be a third more of frag's work in the slowest guest (113 s against 84 s).
# Where it equals mi_lane_mem, scripts/check runs big_*.sh in the suite's guest, first; else first in
# the lane's hot-remove guest (x86), booted with it; else in a guest of its own.
mi_lane_big_mem() { echo 2G; }
# Memory, time and boot options follow the kernel's config, not its name: the debug lane is one
# kernel built here (scripts/debug-kernel registers it with scripts/own-kernel), and a kernel
# the user built with KASAN or kmemleak gets the same. The kernel must be in the cache first
# (kernel-fetch; make check fetches each lane's before starting it).
mi_config() { grep -q "^CONFIG_$2=y" "$MI_CACHE/kernels/$1/kdir/.config" 2>/dev/null; }
mi_kasan() { mi_config "$1" KASAN; }
# Allocation profiling built in but not on by default: without sysctl.vm.mem_profiling=0 its
# sysctl is read-only (lib/alloc_tag.c: no support unless on by default or asked for at boot),
# and test_allocs_allocinfo.sh and bench/allocs could not turn it on for their windows.
mi_profiling_append() {
	if mi_config "$1" MEM_ALLOC_PROFILING && ! mi_config "$1" MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT; then
		echo sysctl.vm.mem_profiling=0
	fi
}
mi_config_append() {
	local o=
	! mi_config "$1" DEBUG_KMEMLEAK || o="kmemleak=on"
	o="$o $(mi_profiling_append "$1")"
	o=${o% }
	# watchdog_thresh=60: a soft lockup is reported after 120 s, not 20 s.
	# Under TCG on a loaded host KASAN makes the kernel's own exit_mmap()
	# of a 16k-VMA process run 23 s without a reschedule (seen in
	# unlink_anon_vmas, no meminspect frame); hangs of our own are still
	# caught, by the detectors and by the per-test timeouts.
	# no5lvl: 4-level paging. QEMU's -cpu max has LA57, so the kernel boots with 5-level
	# paging, and there KASAN_SHADOW_START follows pgtable_l5_enabled(), a test of
	# boot_cpu_data's LA57 bit. identify_cpu() zeroes that capability array and fills it again
	# with interrupts on (identify_boot_cpu from start_kernel), so an interrupt in between
	# sees 4-level bounds, and the direct-map address of its irq_desc lock (ff11...) is "below
	# the shadow": "BUG: KASAN: wild-memory-access in do_raw_spin_lock" from handle_edge_irq
	# with identify_cpu under it, about 1 boot in 10 under TCG. A kernel false positive
	# (LKML, Jun 2026: "kasan: Fix false-positive wild-memory-access on x86 under 5-level
	# paging"); without LA57 the bound is the same before and after.
	if mi_kasan "$1"; then
		o="$o watchdog_thresh=60"
		[ "$(mi_arch "$1")" != amd64 ] || o="$o no5lvl"
	fi
	echo "${o# }"
}

# The Debian mirror the machine already uses, from its own apt sources.
mi_mirror() {
	local uri
	uri=$(grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
		grep -v security | head -n1 | tr -d ' ')
	echo "${uri:-http://deb.debian.org/debian}"
}

# A private apt state holding one suite only, in DIR: the host's apt is left untouched and
# metapackages resolve to that suite's packages. Sets the array apt_opts for apt-get/apt-cache.
# ARCH (default: the host's) is the only architecture the state knows.
mi_apt_state() {
	local dir=$1 suite=$2 arch=${3:-}
	mkdir -p "$dir/lists/partial" "$dir/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(mi_mirror) $suite main" \
		>"$dir/sources.list"
	apt_opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir" -o "Dir::Cache::archives=$dir/archives"
		-o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
	[ -z "$arch" ] || apt_opts+=(-o "APT::Architecture=$arch" -o "APT::Architectures=$arch")
	apt-get "${apt_opts[@]}" update -qq >/dev/null || die "apt update for $suite failed"
}

# mi_keep_mods DIR SETDIR WHERE MODULE...: a guest module set (zram/, overlay/, drivers/, ...)
# made anew in SETDIR: each MODULE and, before it, the modules it depends on, found under DIR
# (hidden directories and files below DIR left out: a build tree's .*.cmd; not DIR's own path,
# which may be under $MI_CACHE/kernels/.work-debug) and copied uncompressed (busybox insmod
# cannot read .ko.xz), with "load-order": one file name a line, dependencies first. The
# dependencies are each module's own "depends=" field, the data depmod writes into modules.dep
# (Debian's packages ship no modules.dep: their postinst runs depmod). WHERE names DIR in the
# error when a module is missing. Used by kernel-fetch (a Debian modules package) and
# own-kernel (a kernel build tree).
mi_keep_mods() {
	local dir=$1 z=$2 where=$3 order=
	shift 3
	rm -rf "$z" && mkdir -p "$z"
	_mi_keep_mod() { # module name (dashes or underscores): its dependencies, then itself
		local name=${1//-/_} f dep
		case " $order " in *" $name "*) return 0 ;; esac
		f=$(cd "$dir" && find . \( -name "$name.ko*" -o -name "${name//_/-}.ko*" \) -not -path '*/.*' |
			head -n1)
		[ -n "$f" ] || die "module $name is not in $where"
		f=$dir/${f#./}
		case "$f" in
		*.ko.xz) xz -dc "$f" >"$z/$name.ko" ;;
		*.ko.zst) zstd -qdc "$f" >"$z/$name.ko" ;;
		*.ko) cp "$f" "$z/$name.ko" ;;
		*) die "unknown module compression: $f" ;;
		esac
		for dep in $(modinfo -F depends "$z/$name.ko" | tr ',' ' '); do
			_mi_keep_mod "$dep"
		done
		order="$order $name"
		echo "$name.ko" >>"$z/load-order"
	}
	for m in "$@"; do _mi_keep_mod "$m"; done
}
