#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 4 concurrent readers of pressure, latency/histograms, latency/page_alloc
# and latency/stallers while churn runs through the page allocator (every
# allocation through latency's mm_page_alloc probe) and the latency knob
# is armed and disarmed every half second meanwhile (probes attached and
# detached under the readers): every read succeeds and is complete (its
# header; a histograms read has every kind, a page_alloc read every order of
# /proc/buddyinfo).  A splat, soft lockup or RCU stall is caught by the host
# (vm-run exits 125) and fails the run.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"

# 5 s of reading under churn (docs/kernels.md, "Stress lengths")
READERS=4 SECS=${MM_READERS_SECS:-5}
CHURN_MIB=${CHURN_MIB:-64}
L=$MI_DIR/latency

mm_setup stall-readers

FILES="pressure latency/histograms latency/page_alloc latency/stallers"
for f in $FILES; do
	require_file "$MI_DIR/$f"
done
require_file "$L/armed"
norders=$(awk '$1 == "Node" { print NF - 4; exit }' /proc/buddyinfo)
# the kinds: 3 stall kinds and the slow path of each order
nkinds=$((3 + norders))

# read_one K FILE: reader K reads FILE; fails if the read fails or the table
# is incomplete
read_one()
{
	if ! cat "$MI_DIR/$2" > "$T/out$1" 2> "$T/err$1"; then
		cat "$T/err$1" >&2
		return 1
	fi
	case $2 in
	pressure) grep -q '^section scope name value delta unit$' "$T/out$1" ;;
	latency/histograms)
		[ "$(awk 'NR == 1 && $1 == "kind" { h = 1 } NR > 1 && !/^#/ { n++ } END { print h + 0, n + 0 }' \
			"$T/out$1")" = "1 $nkinds" ] ;;
	latency/page_alloc)
		[ "$(awk 'NR == 1 && $1 == "order" { h = 1 } NR > 1 && !/^#/ { n++ } END { print h + 0, n + 0 }' \
			"$T/out$1")" = "1 $norders" ] ;;
	latency/stallers)
		head -n 1 "$T/out$1" | grep -q '^pid cgroup_id events stall_ns comm$' &&
			grep -q '^# overflow: ' "$T/out$1" ;;
	esac
}

# toggle: arm and disarm every half second until $T/stop; the number of
# writes that failed in $T/toggle
toggle()
{
	_t_bad=0
	while [ ! -e "$T/stop" ]; do
		echo 1 > "$L/armed" || _t_bad=$((_t_bad + 1))
		mi_nap 0.5
		echo 0 > "$L/armed" || _t_bad=$((_t_bad + 1))
	done
	echo "$_t_bad" > "$T/toggle"
}

churn_start $((SECS + 30)) "$CHURN_MIB"
readers_start "$READERS" read_one "$FILES"
toggle &
tpid=$!
sleep "$SECS"
readers_stop "$READERS" "pressure/latency histograms, page_alloc, stallers in ${SECS}s under churn, latency armed and disarmed"
wait "$tpid"
check "latency armed and disarmed every 0.5 s meanwhile: no write failed ($(cat "$T/toggle" 2> /dev/null))" \
	[ "$(cat "$T/toggle" 2> /dev/null)" = 0 ]
check_read "latency left disarmed" "$L/armed" 0
churn_stop
