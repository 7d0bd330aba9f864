# SPDX-License-Identifier: GPL-2.0
# Host tests of the reader under kernel lockdown (docs/lockdown.md), sourced by
# run.sh (its helpers: run, is, has, ok, lacks, $FX, $tmp, $here).
#
# The reader is tests/meminspect-dyn (the same objects, linked against the shared
# libc) with tests/lockdown_shim.so preloaded: regular files stand in for the
# module's debugfs directory, which the shim reports as debugfs and, with
# MI_SHIM_LOCKED, locks down as debugfs_locked_down() does (EPERM for any file
# whose mode has a bit beyond 0444); mm and vmas answer a written pid from
# FILE.pids/PID. The lockdown level is read from a fake securityfs file.

MD=$here/meminspect-dyn
SHIM=$here/lockdown_shim.so
LK=$tmp/lk
LS=$LK/sys
D=$LS/kernel/debug/meminspect	# the default dir: no --dir
MIR=$LK/dev			# the module's /dev/meminspect
mkdir -p "$D/allocs" "$D/latency" "$D/fault" "$LS/module/meminspect" "$LS/kernel/security" \
	"$MIR/allocs" "$MIR/latency" "$LK/proc/1" "$LK/proc/42" "$LK/proc/77"

# the module's files, with the module's modes (module/main.c, allocs/, latency/, fault/)
{
	echo "name kind available detail"
	echo "summary file yes -"
	echo "capabilities file yes -"
	echo "zones file yes -"
	echo "mm file yes one process's rollup"
	echo "vmas file yes one row per VMA"
	grep '^latency mechanism' "$FX/stall/capabilities"
	grep '^allocs mechanism' "$FX/allocs/capabilities"
	echo "fault mechanism yes directory fault/"
} >"$D/capabilities"
cp "$FX/module/summary" "$FX/module/zones" "$FX/procmem/mm" "$FX/procmem/vmas" "$D/"
mkdir -p "$D/mm.pids" "$D/vmas.pids"
sed '2s/^97 /1 /; 2s/sh -c x$/init/' "$FX/procmem/mm" >"$D/mm.pids/1"
sed '2s/^97 /42 /; 2s/ 515 514 / 900 514 /; 2s/sh -c x$/churn/' "$FX/procmem/mm" >"$D/mm.pids/42"
cp "$FX/procmem/vmas" "$D/vmas.pids/42"
cp "$FX/allocs/table" "$FX/allocs/outstanding" "$D/allocs/"
cp "$FX/stall/latency/histograms" "$FX/stall/latency/page_alloc" "$FX/stall/latency/stallers" \
	"$D/latency/"
echo 0 >"$D/latency/armed"
cp "$FX/fault/settings" "$FX/fault/stats" "$FX/fault/log" "$D/fault/"
find "$D" -type f -exec chmod 400 {} +
for k in $(awk 'NR > 1 { print $1 }' "$FX/fault/settings"); do
	echo 0 >"$D/fault/$k"
	chmod 600 "$D/fault/$k"
done
chmod 600 "$D/mm" "$D/vmas" "$D/allocs/outstanding" "$D/latency/armed"
# the mirror: the same relative paths, for the files with a write bit but fault/'s
cp -r "$D/mm" "$D/vmas" "$D/mm.pids" "$D/vmas.pids" "$MIR/"
cp "$D/allocs/outstanding" "$MIR/allocs/"
cp "$D/latency/armed" "$MIR/latency/"

is "lockdown fixture: the modes of the module's files" \
	"capabilities 400 mm 600 vmas 600 allocs/table 400 allocs/outstanding 600 latency/armed 600 fault/settings 400 fault/armed 600 fault/probability 600" \
	"$(cd "$D" && for f in capabilities mm vmas allocs/table allocs/outstanding latency/armed \
		fault/settings fault/armed fault/probability; do printf '%s %s ' "$f" "$(stat -c %a "$f")"; done |
		sed 's/ $//')"

# lk [none|integrity|confidentiality|unknown] [locked|open] [MIRROR] -- ARGS: the reader
lk() {
	local level=$1 lock=$2 mirror=$3
	shift 4
	rm -f "$LS/kernel/security/lockdown"
	case $level in
	none) echo "[none] integrity confidentiality" >"$LS/kernel/security/lockdown" ;;
	integrity) echo "none [integrity] confidentiality" >"$LS/kernel/security/lockdown" ;;
	confidentiality) echo "none integrity [confidentiality]" >"$LS/kernel/security/lockdown" ;;
	esac
	run env MEMINSPECT_SYSFS="$LS" MEMINSPECT_DEV_DIR="$mirror" MI_SHIM_DEBUGFS="$D" \
		MI_SHIM_PIDS="$D:$MIR" MI_SHIM_LOCKED="$([ "$lock" = locked ] && echo "$D")" \
		LD_PRELOAD="$SHIM" "$MD" "$@"
}

# ---- every view as without lockdown, through the mirror ----

views=("mm" "mm 42" "vmas 42" "vmas 42 --sort rss" "top" "top --json" "--json mm 42" "report"
	"--json report" "export --prometheus" "export --json" "allocs --outstanding" "--json latency")
for v in "${views[@]}"; do
	# shellcheck disable=SC2086
	lk none open "$LK/nowhere" -- $v
	want_rc=$rc want_out=$out want_err=$err
	# shellcheck disable=SC2086
	lk integrity locked "$MIR" -- $v
	is "lockdown=integrity: '$v' as without lockdown (exit, stdout, stderr)" \
		"$want_rc"$'\n'"$want_out"$'\n'"$want_err" "$rc"$'\n'"$out"$'\n'"$err"
done
lk integrity locked "$MIR" -- top
is "lockdown=integrity: top: exit 0, nothing on stderr" "0 " "$rc $err"
is "lockdown=integrity: top: the processes the mirror answers for, by pss" "42 1" \
	"$(awk 'NR > 1 && $1 ~ /^[0-9]+$/ { printf "%s%s", s, $1; s = " " }' <<<"$out")"
has "lockdown=integrity: top: pid 77 (no answer) counted as not read" "1 could not be read" "$out"
lk integrity locked "$MIR" -- vmas 42
is "lockdown=integrity: vmas 42: exit 0, its rows" "0 4" "$rc $(grep -c '^0x' <<<"$out")"
lk integrity locked "$MIR" -- mm 4242
is "lockdown=integrity: mm of a pid that does not exist: exit 1, named" \
	"1 meminspect: mm: no process 4242" "$rc $err"
lk integrity locked "$MIR" -- export --prometheus
promtool_ok "lockdown=integrity: export through the mirror: promtool check metrics is silent" \
	"$out" check metrics
lk integrity locked "$MIR" -- export --json
jq -e 'length > 10' >/dev/null <<<"$out"
ok $? "lockdown=integrity: export --json through the mirror passes jq"
# the hint to arm latency names the file that can be written: the rest is the same
lk none open "$LK/nowhere" -- latency
want_out=$(grep -v '^# disarmed' <<<"$out")
lk integrity locked "$MIR" -- latency
is "lockdown=integrity: latency as without lockdown but its arming hint" "0 $want_out" \
	"$rc $(grep -v '^# disarmed' <<<"$out")"
has "lockdown=integrity: latency's arming hint names the mirror's armed" \
	"# disarmed: nothing is measured; echo 1 > $MIR/latency/armed" "$out"

# ---- a module without the mirror: the rest printed, the refusal named, exit 11 ----

lk integrity locked "$LK/nowhere" -- report
is "lockdown, no mirror: report: exit 11" 11 "$rc"
has "lockdown, no mirror: report still prints zones" "== zones ==" "$out"
has "lockdown, no mirror: report still prints allocs/table" "== allocs/table ==" "$out"
lacks "lockdown, no mirror: report prints no mm section" '^== mm ==' "$out"
has "lockdown, no mirror: report names mm, the errno and the lockdown level" \
	"meminspect: $D/mm: Operation not permitted: kernel lockdown (integrity) refuses debugfs files that can be written, and $LK/nowhere has no copy of this one" "$err"
has "lockdown, no mirror: report names vmas" "meminspect: $D/vmas: Operation not permitted: kernel lockdown (integrity)" "$err"
has "lockdown, no mirror: report counts what it left out" \
	"meminspect: report: 3 of 13 files could not be read (named above); the others were printed" "$err"
lk integrity locked "$LK/nowhere" -- --json report
is "lockdown, no mirror: report --json: exit 11, the readable files as keys" \
	'11 ["allocs","capabilities","fault","latency","summary","zones"]' "$rc $(jq -c keys <<<"$out")"
lk integrity locked "$LK/nowhere" -- export --prometheus
is "lockdown, no mirror: export: exit 11" 11 "$rc"
has "lockdown, no mirror: export: zones exported" 'meminspect_zones_free_bytes{node="0",zone="DMA"}' "$out"
has "lockdown, no mirror: export: file_ok 0 for mm" 'meminspect_file_ok{file="mm"} 0' "$out"
has "lockdown, no mirror: export: file_ok 1 for zones" 'meminspect_file_ok{file="zones"} 1' "$out"
has "lockdown, no mirror: export names mm and the lockdown" \
	"meminspect: $D/mm: Operation not permitted: kernel lockdown (integrity)" "$err"
promtool_ok "lockdown, no mirror: export: promtool check metrics is silent" "$out" check metrics
lk integrity locked "$LK/nowhere" -- export --json
jq -e '[.[] | select(.metric == "meminspect_file_ok" and .labels.file == "mm")] | length == 1' \
	>/dev/null <<<"$out"
ok $? "lockdown, no mirror: export --json passes jq, with mm's file_ok" "$out"
is "lockdown, no mirror: export --json: exit 11" 11 "$rc"
lk integrity locked "$LK/nowhere" -- export --prometheus --watch 1 --count 2
is "lockdown, no mirror: export --watch 1 --count 2: two rounds, exit 11" "11 2" \
	"$rc $(grep -c '^meminspect_up 1' <<<"$out")"
is "lockdown, no mirror: export --watch: each round names mm" 2 \
	"$(grep -c "$D/mm: Operation not permitted" <<<"$err")"
lk integrity locked "$LK/nowhere" -- mm 42
is "lockdown, no mirror: mm 42: exit 12" 12 "$rc"
has "lockdown, no mirror: mm 42: names the lockdown and its level" \
	"kernel lockdown (integrity) refuses debugfs files that can be written" "$err"

# one file gone (not lockdown): the same partial answer
mv "$D/zones" "$LK/zones.away"
lk none open "$LK/nowhere" -- report
is "zones missing: report: exit 11" 11 "$rc"
has "zones missing: report names it with its errno" "meminspect: $D/zones: No such file or directory" "$err"
has "zones missing: report prints the rest" "== summary ==" "$out"
lk none open "$LK/nowhere" -- export --prometheus
is "zones missing: export: exit 11, summary exported" "11 1" \
	"$rc $(grep -c '^meminspect_mem_total_bytes ' <<<"$out")"
promtool_ok "zones missing: export: promtool check metrics is silent" "$out" check metrics
mv "$LK/zones.away" "$D/zones"

# ---- the generic message, by what the reader knows of the level ----

lk unknown locked "$LK/nowhere" -- mm
is "EPERM, level unknown (no securityfs file): exit 5, the old guess" \
	"5 meminspect: $D/mm: Operation not permitted even as root (kernel lockdown? see dmesg)" "$rc $err"
lk none locked "$LK/nowhere" -- mm
is "EPERM, lockdown none: exit 5, no lockdown named" \
	"5 meminspect: $D/mm: Operation not permitted even as root (see dmesg)" "$rc $err"
lk confidentiality locked "$LK/nowhere" -- mm
has "EPERM, lockdown confidentiality: named with its level" "kernel lockdown (confidentiality)" "$err"

# ---- fault: its knobs have no mirror ----

fault_msg() { echo "meminspect: fault $1: kernel lockdown ($2) refuses writes to debugfs files: fault injection is not available while the kernel is locked down (docs/lockdown.md)"; }
lk integrity locked "$MIR" -- fault status
is "lockdown: fault status (read-only files) works: exit 0" "0 " "$rc $err"
for f in "arm" "disarm" "set probability 10" "run -- true" "sweep -- true"; do
	sub=${f%% *}
	# shellcheck disable=SC2086
	lk integrity locked "$MIR" -- fault $f
	is "lockdown=integrity: fault $f: exit 12, the lockdown and its level named" \
		"12 $(fault_msg "$sub" integrity)" "$rc $err"
done
lk confidentiality locked "$MIR" -- fault arm
is "lockdown=confidentiality: fault arm names that level" "12 $(fault_msg arm confidentiality)" \
	"$rc $err"
is "lockdown: no knob was written" "0" "$(cat "$D/fault/armed")"
lk none open "$MIR" -- fault set probability 10
is "without lockdown the same fault set writes the knob" "0 10" "$rc $(cat "$D/fault/probability")"

# ---- confidentiality: an address the module withholds ('-') is no format error ----

awk 'NR == 1 { print; next } { $4 = "-"; print }' "$FX/allocs/outstanding" >"$D/allocs/outstanding"
lk confidentiality open "$MIR" -- allocs --outstanding
is "allocs --outstanding with addrs '-': exit 0, nothing on stderr" "0 " "$rc $err"
lacks "allocs --outstanding with addrs '-': no kernel address printed" '0xff' "$out"
lk confidentiality open "$MIR" -- --json allocs --outstanding
is "allocs --outstanding --json: addrs '-' is null" "null" \
	"$(jq -c '[.call_sites[].addrs] | unique | .[0]' <<<"$out")"

# only debugfs is locked down: a copy of the files (not debugfs) that refuses an
# open is not read from the live module's mirror instead
run env MEMINSPECT_SYSFS="$LS" MEMINSPECT_DEV_DIR="$MIR" MI_SHIM_PIDS="$D:$MIR" \
	MI_SHIM_LOCKED="$D" LD_PRELOAD="$SHIM" "$MD" mm
is "EPERM from a directory that is not debugfs: no fallback to the mirror, exit 12" "12 " \
	"$rc $(grep -v 'kernel lockdown (confidentiality)' <<<"$err")"

# ---- a module with procs: top reads it, read-only, under lockdown with no mirror ----

cp "$FX/procs/procs" "$D/procs"
chmod 400 "$D/procs"
echo "procs file yes every process's page-walk rollup" >>"$D/capabilities"
lk none open "$LK/nowhere" -- top
want_rc=$rc want_out=$out
lk integrity locked "$LK/nowhere" -- top
is "lockdown=integrity, no mirror, procs: top exits 0, nothing on stderr" "0 " "$rc $err"
is "lockdown=integrity, no mirror, procs: top as without lockdown" \
	"$want_rc"$'\n'"$want_out" "$rc"$'\n'"$out"
is "lockdown=integrity, no mirror, procs: top's rows are procs' records, by pss" \
	"1 107 108 110 111 109" "$(awk 'NR > 1 && $1 ~ /^[0-9]+$/ { printf "%s%s", s, $1; s = " " }' <<<"$out")"
has "lockdown=integrity, no mirror, procs: one read of procs" "(procs, one read)" "$out"
lk confidentiality locked "$LK/nowhere" -- top
is "lockdown=confidentiality, no mirror, procs: top exits 0" "0 " "$rc $err"
lk integrity locked "$LK/nowhere" -- export --prometheus --per-pid
has "lockdown=integrity, procs: export --per-pid has procs' figures per pid" \
	'meminspect_procs_pss_bytes{pid="107"} 351232' "$out"
lk integrity locked "$LK/nowhere" -- export --prometheus
has "lockdown=integrity, procs: export without --per-pid leaves procs out, says so" \
	"# meminspect: procs left out: per-process rows (--per-pid)" "$out"
rm "$D/procs"
sed -i '/^procs file /d' "$D/capabilities"
