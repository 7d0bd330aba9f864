#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The reader's stall views against the kernel's own counters, under
# workloads that reclaim: the kernel's 128 MiB brd ramdisk read again and
# again, its page cache the only thing to reclaim (memcg reclaim is not
# counted in /proc/vmstat's pgscan on 6.1):
# - global reclaim: vm.min_free_kbytes raised to leave 48 MiB above the min
#   watermark, so the page cache of the passes wakes kswapd and stalls in
#   direct reclaim (pgscan_kswapd, pgscan_direct, allocstall move);
# - memcg reclaim: the same reads from a cgroup v2 with a 16 MiB memory.max
#   (the latency part: memcg_reclaim stalls).
# - meminspect pressure --watch 1 --count 3 --json: /proc/vmstat read before
#   the reader starts and after it ends brackets the open file's counters:
#   the value at open (last value - the three deltas) is at least the first
#   /proc/vmstat and the last value at most the second; each line's delta is
#   the change between two reads, and its rate that delta over its interval;
#   the text view has a column per counter, '-' exactly where capabilities
#   says the kernel cannot count it;
# - meminspect latency (armed over the workload, then disarmed so the counts
#   hold still): each kind's events as the histograms file's, the bucket rows
#   adding up to them; --json the same.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

T=$(mi_tmpdir reader_pressure) || exit 1
L=$MI_DIR/latency
CG=/sys/fs/cgroup
DRIVERS=${MI_DRIVERS:-/meminspect/drivers}
bg=
cg_mounted=
MINFREE=/proc/sys/vm/min_free_kbytes
minfree=$(cat "$MINFREE")
cleanup()
{
	[ -n "$bg" ] && kill "$bg" 2> /dev/null && wait "$bg" 2> /dev/null
	echo "$minfree" > "$MINFREE"
	echo 0 > "$L/armed" 2> /dev/null
	i=0
	while [ -d "$CG/mi-rp" ] && ! rmdir "$CG/mi-rp" 2> /dev/null && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	[ -n "$cg_mounted" ] && umount "$CG"
	rmmod brd 2> /dev/null
	mi_restore
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

require_reader
require_file "$MI_DIR/pressure" || exit 0

# -- the workload: memcg reclaim of brd page cache, in a loop -----------------
workload=
st=$(cat "$DRIVERS/status" 2> /dev/null)
if [ "$st" != ready ]; then
	diag "no reclaim workload: brd ${st:-has no $DRIVERS/status}"
else
	if memcg_brd mi-rp; then
		workload=yes
	else
		diag "no reclaim workload: brd or a cgroup with memory.max failed"
	fi
fi
# start_workload global|memcg: the loop in the background ($bg), global:
# with 48 MiB above the min watermark; stop_workload ends it (and puts
# min_free_kbytes back)
start_workload()
{
	[ -n "$workload" ] || return 0
	echo 1 > /proc/sys/vm/drop_caches
	if [ "$1" = global ]; then
		free=$(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo)
		[ "$((free - 49152))" -gt "$minfree" ] && echo $((free - 49152)) > "$MINFREE"
		sh -c "while :; do dd if=/dev/ram0 of=/dev/null bs=1M 2> /dev/null; done" &
	else
		sh -c "echo \$\$ > $CG/mi-rp/cgroup.procs &&
			while :; do dd if=/dev/ram0 of=/dev/null bs=1M 2> /dev/null; done" &
	fi
	bg=$!
}
stop_workload()
{
	[ -n "$bg" ] && kill "$bg" 2> /dev/null && wait "$bg" 2> /dev/null
	bg=
	echo "$minfree" > "$MINFREE"
}

# vmstat_snap FILE: "NAME VALUE" of /proc/vmstat, with allocstall (the sum
# of allocstall_*, as the module's record)
vmstat_snap()
{
	awk '{ print } /^allocstall_/ { s += $2 } END { print "allocstall", s + 0 }' \
		/proc/vmstat > "$1"
}

# -- pressure --watch 1 --count 3 --json against /proc/vmstat ---------------
start_workload global
sleep 2
vmstat_snap "$T/pre"
"$MI_READER" --json pressure --watch 1 --count 3 > "$T/json" 2> "$T/err"
rc=$?
vmstat_snap "$T/post"
check "pressure --watch 1 --count 3 --json: exit 0 (stderr: $(head -c 200 "$T/err"))" [ "$rc" -eq 0 ]
n=$(grep -c '^{.*}$' "$T/json")
check "pressure --watch --json: three lines, one object each ($n)" [ "$n" -eq 3 ]

# "name": {"rate": R, "delta": D, "value": V} -> "LINE NAME RATE DELTA VALUE INTERVAL"
awk '{
	iv = $0; sub(/.*"interval_s": /, "", iv); sub(/,.*/, "", iv)
	s = $0
	while (match(s, /"[a-z_]+": \{"rate": [0-9.]+, "delta": -?[0-9]+, "value": -?[0-9]+\}/)) {
		m = substr(s, RSTART, RLENGTH)
		s = substr(s, RSTART + RLENGTH)
		gsub(/[{}",:]/, "", m)
		split(m, f, " ")
		print NR, f[1], f[3], f[5], f[7], iv
	}
}' "$T/json" > "$T/flat"
bad=$(awk '
	FILENAME ~ /pre$/ { pre[$1] = $2; next }
	FILENAME ~ /post$/ { post[$1] = $2; next }
	{
		names[$2] = 1; d[$2] += $4; last[$2] = $5
		if ($1 > 1 && $5 - val[$2, $1 - 1] != $4)
			print $2 " line " $1 ": delta " $4 " != " $5 " - " val[$2, $1 - 1]
		val[$2, $1] = $5
		# rate with 3 decimals, interval_s with 6: 1e-6 of the delta
		r = $4 / $6
		t = 0.0006 + $4 * 1e-6
		if ($3 - r > t || r - $3 > t)
			print $2 " line " $1 ": rate " $3 " != " $4 " / " $6
	}
	END {
		for (k in names) {
			n++
			if (!(k in pre)) { print k " not in /proc/vmstat"; continue }
			open = last[k] - d[k]
			if (open < pre[k] || last[k] > post[k])
				print k ": at open " open ", last " last[k] " not in [" pre[k] ", " post[k] "]"
		}
		print "count " n
	}' "$T/pre" "$T/post" "$T/flat")
nc=$(echo "$bad" | awk '$1 == "count" { print $2 }')
badv=$(echo "$bad" | grep -v '^count' | head -n 5)
# without VM_EVENT_COUNTERS (the debug lane) only the 2 refault counters
if [ "$(cap_available pressure.events)" = yes ]; then
	want_n=8
	[ "$(cap_available pressure.compact)" = yes ] && want_n=10
else
	want_n=2
fi
[ -z "$badv" ] && [ "${nc:-0}" -eq "$want_n" ] && good=yes || good=no
check "pressure --watch --json: ${nc:-0} counters (want $want_n): value at open >= /proc/vmstat before, last value <= /proc/vmstat after, delta = change between lines, rate = delta / interval_s${badv:+ ($badv)}" \
	[ "$good" = yes ]
if [ -n "$workload" ] && [ "$(cap_available pressure.events)" = yes ]; then
	moved=$(awk '$2 ~ /^pgscan_/ { s += $4 } END { print s + 0 }' "$T/flat")
	check "pressure --watch: the workload's reclaim shows: pgscan_kswapd + pgscan_direct deltas add up to $moved > 0" \
		[ "$moved" -gt 0 ]
	diag "deltas: $(awk '$2 ~ /^(pgscan_|allocstall)/ { printf "%s %s, ", $2, $4 }' "$T/flat")"
fi
# psi: the two avg10 columns are numbers exactly where capabilities says yes
if [ "$(cap_available pressure.psi)" = yes ]; then
	bad=$(grep -vc '"some_avg10": [0-9][0-9]*\.[0-9][0-9], "full_avg10": [0-9][0-9]*\.[0-9][0-9]}$' "$T/json")
else
	bad=$(grep -vc '"some_avg10": null, "full_avg10": null}$' "$T/json")
fi
check "pressure --watch --json: psi some/full avg10 as capabilities pressure.psi says ($(cap_available pressure.psi)), $bad lines otherwise" \
	[ "$bad" -eq 0 ]

# the text view: two header lines, then 12 columns; '-' exactly in the
# columns whose counters the kernel lacks
"$MI_READER" pressure --watch 1 --count 2 > "$T/text" 2> "$T/err"
rc=$?
stop_workload
[ "$(cap_available pressure.events)" = yes ] && e=N || e=-
[ "$(cap_available pressure.compact)" = yes ] && c=N || c=-
[ "$(cap_available pressure.psi)" = yes ] && p=N || p=-
want="$e $e $e $e $e $c $c $e N N $p $p"
got=$(awk 'NR > 2 && NF == 12 { n++; s = ""
	for (i = 1; i <= NF; i++) s = s (i > 1 ? " " : "") ($i == "-" ? "-" : ($i ~ /^[0-9.]+$/ ? "N" : "?" $i))
	if (s != last && last != "") print "differ"; last = s }
	END { print n + 0, last }' "$T/text" | tail -n 1)
check "pressure --watch 1 --count 2: exit $rc, 2 lines, numbers and '-' per capabilities: got '$got', want '2 $want'" \
	[ "$rc/$got" = "0/2 $want" ]

# -- latency: the histograms as the file has them ----------------------------
if [ ! -f "$L/armed" ]; then
	skip "latency: reader against the file" "no $L/armed"
	exit 0
fi
echo 1 > "$L/armed"
start_workload memcg
sleep 3
"$MI_READER" latency --watch 1 --count 2 > "$T/lwatch" 2> "$T/err"
rc=$?
stop_workload
echo 0 > "$L/armed"
n=$(grep -c '^# last ' "$T/lwatch")
check "latency --watch 1 --count 2 while armed: exit $rc, the second round an interval ($n)" \
	[ "$rc/$n" = 0/1 ]
cat "$L/histograms" > "$T/h"
"$MI_READER" latency > "$T/lat" 2> "$T/err"
rc=$?
bad=$(awk '
	FILENAME ~ /h$/ { if (FNR > 1) { ev[$1] = $2; up[$1] = $4 }; next }
	/^@/ { k = substr($1, 2); sub(/:$/, "", k); seen[k] = 1; got[k] = $3; sub(/,$/, "", got[k])
		if (got[k] != ev[k]) print k ": events " got[k] ", file " ev[k]
		if ($NF != up[k]) print k ": unpaired " $NF ", file " up[k] }
	/^\[/ { x = $0; sub(/^[^)]*\) */, "", x); split(x, c, " "); rows[k] += c[1] }
	END {
		for (k in ev) {
			if (!seen[k]) print k ": no block"
			else if (rows[k] + 0 != ev[k]) print k ": rows add up to " rows[k] + 0 ", events " ev[k]
		}
	}' "$T/h" "$T/lat")
check "latency: exit $rc; every kind's events and unpaired as latency/histograms, its rows adding up to them${bad:+ ($bad)}" \
	[ "$rc/$bad" = 0/ ]
if [ -n "$workload" ] && [ "$(cap_available latency.memcg_reclaim)" = yes ]; then
	n=$(awk '$1 == "memcg_reclaim" { print $2 }' "$T/h")
	check "latency: the workload's memcg reclaim stalls were measured ($n)" [ "${n:-0}" -gt 0 ]
fi
"$MI_READER" --json latency > "$T/lj" 2> "$T/err"
# "kind": "K", then its "events": N (the first events after it)
bad=$(awk '
	FILENAME ~ /h$/ { if (FNR > 1) ev[$1] = $2; next }
	/"kind": / { k = $2; gsub(/[",]/, "", k); want = 1; next }
	want && /"events": / { e = $2; sub(/,/, "", e); seen[k] = 1; want = 0
		if (e != ev[k]) print k ": json events " e ", file " ev[k] }
	END { for (k in ev) if (!seen[k]) print k ": not in the json" }' "$T/h" "$T/lj")
check "latency --json: every kind's events as the file's${bad:+ ($bad)}" [ -z "$bad" ]
