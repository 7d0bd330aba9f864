#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The reader's stall views against the kernel's own counters, under
# workloads that reclaim and cannot run the guest out of memory. All they
# add is clean page cache, which reclaim can always drop: brd ramdisks that
# are never written (a read of a sector brd has no page for gives zeros and
# allocates nothing), held open so that their page cache stays (the last
# close of a block device drops it), read in 16 MiB steps by a loop that
# stops by itself if MemFree + Buffers ever falls 32 MiB under what it was
# when the loop began (the workload must add nothing but page cache). To
# reach reclaim without first filling the whole guest (15 MB/s under TCG),
# huge pages are taken into the hugetlb pool (allocated with
# __GFP_RETRY_MAYFAIL: it fails rather than OOM-kills) until MemFree is 64 MiB
# above the zones' low watermarks, and given back at the end:
# - global reclaim: /dev/ram0 read from the root cgroup; once its cache has
#   filled the free memory, kswapd (and direct reclaim when it falls behind)
#   reclaims it (pgscan_kswapd/pgscan_direct move);
# - memcg reclaim: /dev/ram1 read from a cgroup v2 with a 16 MiB memory.max
#   (the latency part: memcg_reclaim stalls).
# Latency is armed over the whole window. Then, with both workloads running:
# - meminspect --json pressure --watch 1 --count 3, each line taken as it
#   comes and followed at once by a copy of /proc/vmstat and
#   /proc/pressure/memory (one before the reader starts): line i's read lies
#   between copy 0 and copy i, so each counter's value must lie in that
#   bracket exactly (they only grow), its delta be the change from line
#   i-1 (for line 1: the value at open at least copy 0), its rate the delta
#   over interval_s, and PSI's some/full avg10 be one of the values a poller
#   (every 0.2 s) and the copies saw (the module reads psi_system's
#   averages, which only change when they are updated, every 2 s);
# - meminspect pressure --watch 1 --count 3 (text) at the same time, its own
#   open file: a number or '-' per column as capabilities says;
# - meminspect latency --watch 1 --count 2 at the same time.
# Then the workloads stop and latency is disarmed, so the histograms hold
# still: meminspect latency and --json latency must show every kind the
# file lists (whatever kinds it has) with its events, unpaired, sum and
# every bucket, read between two identical reads of the file.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

L=$MI_DIR/latency
CG=/sys/fs/cgroup
DRIVERS=${MI_DRIVERS:-/meminspect/drivers}
N=3
HP=/proc/sys/vm/nr_hugepages
hp0=
cg_mounted=
wl0=
wl1=
stop_workloads()
{
	# the loops end after their current 64 MiB step (trap below)
	[ -n "$wl0" ] && kill "$wl0" 2> /dev/null
	[ -n "$wl1" ] && kill "$wl1" 2> /dev/null
	[ -n "$wl0" ] && wait "$wl0" 2> /dev/null
	[ -n "$wl1" ] && wait "$wl1" 2> /dev/null
	wl0=
	wl1=
}
undo()
{
	stop_workloads
	[ -f "$L/armed" ] && echo 0 > "$L/armed"
	i=0
	while [ -d "$CG/mi-rp" ] && ! rmdir "$CG/mi-rp" 2> /dev/null && [ $i -lt 100 ]; do
		i=$((i + 1))
		mi_nap 0.1
	done
	[ -n "$cg_mounted" ] && umount "$CG"
	rmmod brd 2> /dev/null
	[ -n "$hp0" ] && echo "$hp0" > "$HP"
	mi_restore
}
mi_setup reader_pressure undo

require_reader
require_file "$MI_DIR/pressure"

total=$(meminfo MemTotal)
dev_kb=$((total * 2))
margin=32768

# the loop: CGROUP (or "") DEVICE MiB MARGIN_KB NOTE_FILE
# shellcheck disable=SC2016
loop='cg=$1 dev=$2 mib=$3 margin=$4 note=$5
trap "exit 0" TERM
[ -z "$cg" ] || echo $$ > "$cg/cgroup.procs" || exit 1
exec 3< "$dev"
fb() { awk "/^(MemFree|Buffers):/ { s += \$2 } END { print s }" /proc/meminfo; }
base=$(fb)
off=0
while :; do
	a=$(fb)
	if [ "$a" -lt $((base - margin)) ]; then
		echo "$dev: stopped, MemFree + Buffers $a kB < $base - $margin kB" >> "$note"
		exit 0
	fi
	dd if="$dev" of=/dev/null bs=1M count=16 skip=$off 2> /dev/null
	off=$(((off + 16) % mib))
done'

pgscan()
{
	awk '/^pgscan_(kswapd|direct) / { s += $2 } END { print s + 0 }' /proc/vmstat
}

# Without the workload the checks that need reclaim would vanish: a kernel
# without brd skips them, said once here; any other reason fails
workload=
st=$(cat "$DRIVERS/status" 2> /dev/null)
if [ "$st" != ready ]; then
	case $st in
	absent*) skip "pressure: the reclaim workload's checks (global and memcg reclaim)" "$st" ;;
	*) fail "pressure: a reclaim workload: brd.ko in the guest (${st:-no $DRIVERS/status})" ;;
	esac
elif ! memcg_brd mi-rp "rd_nr=2 rd_size=$dev_kb"; then
	fail "pressure: a reclaim workload: brd loads and a cgroup takes memory.max"
else
	workload=yes
fi

[ -f "$L/armed" ] && echo 1 > "$L/armed"
if [ -n "$workload" ]; then
	t0=$(cut -d ' ' -f 1 /proc/uptime)
	hpkb=$(meminfo Hugepagesize)
	if [ -w "$HP" ] && [ -n "$hpkb" ]; then
		hp0=$(cat "$HP")
		low=$(awk -v p="${MI_PAGE_KB:-4}" '$1 == "low" { s += $2 } END { print s * p }' /proc/zoneinfo)
		take=$((($(meminfo MemFree) - low - 65536) / hpkb))
		[ "$take" -gt 0 ] && echo $((hp0 + take)) > "$HP"
		diag "hugetlb pool: $hp0 -> $(cat "$HP") pages of $hpkb kB (asked $((hp0 + take))), MemFree now $(meminfo MemFree) kB, low watermarks $low kB"
	fi
	scan0=$(pgscan)
	sh -c "$loop" sh "" /dev/ram0 $((dev_kb / 1024)) "$margin" "$T/note" &
	wl0=$!
	# until global reclaim has begun (or, without vm event counters, the
	# free memory is down to a sixteenth), at most 60 s
	i=0
	while [ $i -lt 300 ]; do
		if grep -q '^pgscan_kswapd ' /proc/vmstat; then
			[ "$(pgscan)" -gt "$scan0" ] && break
		else
			[ "$(meminfo MemFree)" -lt $((total / 16)) ] && break
		fi
		i=$((i + 1))
		mi_nap 0.2
	done
	sh -c "$loop" sh "$CG/mi-rp" /dev/ram1 $((dev_kb / 1024)) "$margin" "$T/note" &
	wl1=$!
	diag "global reclaim began $((i / 5)).$((i % 5 * 2)) s into the workload ($t0 -> $(cut -d ' ' -f 1 /proc/uptime) s of uptime, setup included); MemFree $(meminfo MemFree) kB"
	[ -s "$T/note" ] && diag "workload: $(cat "$T/note")"
	sleep 1
fi

# -- pressure --watch: the JSON lines against copies taken between them -----
"$MI_READER" pressure --watch 1 --count $N > "$T/text" 2> "$T/terr" &
tpid=$!
lpid=
if [ -f "$L/armed" ]; then
	"$MI_READER" latency --watch 1 --count 2 > "$T/lwatch" 2> "$T/lerr" &
	lpid=$!
fi
# --cgroup: the memcg workload's cgroup, where PSI is on (not without
# CONFIG_PSI, nor with psi=0: 5.10 still has the file then, which fails
# its reads with EOPNOTSUPP); its copies go with each line's as "cg" lines
CGP=$CG/mi-rp/memory.pressure
cgarg=
cgcopy=/dev/null
if [ -n "$workload" ] && [ "$(cap_available pressure.psi)" = yes ] && [ -r "$CGP" ]; then
	cgarg="--cgroup mi-rp"
	cgcopy=$CGP
elif [ -n "$workload" ]; then
	if [ "$(cap_available pressure.psi)" != yes ]; then
		skip "pressure --watch --cgroup: the memcg workload's cgroup" "$(cap_detail pressure.psi)"
	else
		skip "pressure --watch --cgroup: the memcg workload's cgroup" "no $CGP"
	fi
fi
{ cat /proc/vmstat /proc/pressure/memory; sed 's/^/cg /' "$cgcopy"; } > "$T/s.0" 2> /dev/null
# PSI's averages, polled 5 times a second until the reader is done: every
# value psi held while the reader ran (each holds for 2 s, psi's update
# period) is in the log, whether or not the loop below takes its copies
# in time
(
	while [ ! -e "$T/psi.stop" ]; do
		cat /proc/pressure/memory
		mi_nap 0.2
	done
) > "$T/psi.log" 2> /dev/null &
ppid=$!
# the cgroup's, in a poller of its own (the system's keeps its pace)
cgpid=
if [ -n "$cgarg" ]; then
	(
		while [ ! -e "$T/psi.stop" ]; do
			sed 's/^/cg /' "$cgcopy"
			mi_nap 0.2
		done
	) > "$T/psi.cg.log" 2> /dev/null &
	cgpid=$!
fi
{
	# shellcheck disable=SC2086
	"$MI_READER" --json pressure --watch 1 --count $N $cgarg 2> "$T/err"
	echo $? > "$T/rc"
} | {
	i=0
	while IFS= read -r line; do
		i=$((i + 1))
		{ cat /proc/vmstat /proc/pressure/memory; sed 's/^/cg /' "$cgcopy"; } > "$T/s.$i" 2> /dev/null
		printf '%s\n' "$line" >> "$T/json"
	done
}
touch "$T/psi.stop"
wait "$ppid"
[ -n "$cgpid" ] && wait "$cgpid"
wait "$tpid"
trc=$?
lrc=0
[ -n "$lpid" ] && { wait "$lpid"; lrc=$?; }
stop_workloads
[ -f "$L/armed" ] && echo 0 > "$L/armed"
[ -s "$T/note" ] && diag "workload: $(cat "$T/note")"

rc=$(cat "$T/rc")
check "pressure --watch 1 --count $N --json: exit 0 (got $rc; stderr: $(head -c 200 "$T/err"))" \
	[ "$rc" = 0 ]
n=$(grep -c '^{.*}$' "$T/json")
check "pressure --watch --json: $N lines, one object each ($n)" [ "$n" -eq $N ]

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
copies=
i=0
while [ $i -le $N ]; do
	copies="$copies $T/s.$i"
	i=$((i + 1))
done
# shellcheck disable=SC2086
bad=$(awk '
	FILENAME ~ /\/s\.[0-9]+$/ {
		c = FILENAME; sub(/.*\/s\./, "", c)
		if (NF == 2) vm[c, $1] = $2
		if ($1 ~ /^allocstall_/) vm[c, "allocstall"] += $2
		next
	}
	{
		l = $1; k = $2
		names[k] = 1
		if (!((l - 1, k) in vm) || !((l, k) in vm)) {
			print k " not in /proc/vmstat"
			next
		}
		# copy l-1 is taken when line l-1 arrives, a second before line
		# l is read, unless the shell is held up that long: only copy 0
		# (before the reader started) is sure to come before every read
		lo = vm[0, k]; hi = vm[l, k]
		if ($5 < lo || $5 > hi)
			print k " line " l ": value " $5 " not in [" lo ", " hi "]"
		if (l > 1 && $5 - val[k, l - 1] != $4)
			print k " line " l ": delta " $4 " != " $5 " - " val[k, l - 1]
		if (l == 1 && ($5 - $4 < lo || $4 < 0))
			print k " line 1: value at open " $5 " - " $4 " below " lo
		val[k, l] = $5
		# rate with 3 decimals, interval_s with 6: 1e-6 of the delta
		r = $4 / $6
		t = 0.0006 + $4 * 1e-6
		if ($3 - r > t || r - $3 > t)
			print k " line " l ": rate " $3 " != " $4 " / " $6
	}
	END {
		for (k in names)
			n++
		print "count " n + 0
	}' $copies "$T/flat")
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
check "pressure --watch --json: ${nc:-0} counters (want $want_n), each line's value between the /proc/vmstat copies before and after its read, delta = change from the line before (line 1: value at open >= the copy before the reader), rate = delta / interval_s${badv:+ ($badv)}" \
	[ "$good" = yes ]
if [ -n "$workload" ] && [ "$(cap_available pressure.events)" = yes ]; then
	moved=$(awk '$2 ~ /^pgscan_/ { s += $4 } END { print s + 0 }' "$T/flat")
	diag "deltas: $(awk '$2 ~ /^(pgscan_|pgsteal_|allocstall)/ { printf "%s %s, ", $2, $4 }' "$T/flat")"
	check "pressure --watch: the workload's reclaim shows: pgscan_kswapd + pgscan_direct deltas add up to $moved > 0" \
		[ "$moved" -gt 0 ]
fi

# psi: each line's avg10 is a value psi held while the reader ran: one of
# those the poller and the copies saw (or null, as capabilities says)
if [ "$(cap_available pressure.psi)" = yes ]; then
	# shellcheck disable=SC2086
	bad=$(awk '
		FILENAME !~ /\/json$/ {
			if (($1 == "some" || $1 == "full") && $2 ~ /^avg10=/) {
				seen[$1, substr($2, 7) + 0] = 1
				list[$1] = list[$1] " " substr($2, 7)
			}
			next
		}
		{
			for (w = 1; w <= 2; w++) {
				k = w == 1 ? "some" : "full"
				if (!match($0, "\"" k "_avg10\": [0-9]+\\.[0-9][0-9]")) {
					print "line " FNR ": no " k "_avg10"
					continue
				}
				v = substr($0, RSTART, RLENGTH); sub(/.*: /, "", v)
				if (!((k, v + 0) in seen))
					print "line " FNR ": " k "_avg10 " v " not among the values seen:" list[k]
			}
		}' $copies "$T/psi.log" "$T/json" | head -n 5)
	check "pressure --watch --json: psi some/full avg10 of each line is one /proc/pressure/memory showed while the reader ran${bad:+ ($bad)}" \
		[ -z "$bad" ]
	# the totals: each line's value between copy 0 and its own copy (a read
	# of /proc/pressure/memory brings psi_system's totals up to date, so
	# the bracket is exact), delta = change from the line before (line 1:
	# since open, after copy 0), stall_pct = delta / interval_s in percent
	# the same for the cgroup's (read by the reader from memory.pressure)
	psi_totals_bad()
	{
		# $1: the JSON path prefix ("" or "cgroup"), $2: the copies' prefix
		# shellcheck disable=SC2086
		awk -v pre="$1" -v cp="$2" '
		FILENAME !~ /\/json$/ {
			c = FILENAME; sub(/.*\/s\./, "", c)
			if (cp != "") { if ($1 != cp) next; $1 = ""; $0 = substr($0, 2) }
			if (($1 == "some" || $1 == "full") && $NF ~ /^total=/) { x = $NF; sub(/^total=/, "", x); ref[c, $1] = x + 0 }
			next
		}
		{
			s = $0
			if (pre != "") { if (!match(s, /"cgroup": \{.*\}\}$/)) { print "line " FNR ": no cgroup object"; next } s = substr(s, RSTART) }
			else sub(/"cgroup": .*/, "", s)
			iv = $0; sub(/.*"interval_s": /, "", iv); sub(/,.*/, "", iv)
			for (w = 1; w <= 2; w++) {
				k = w == 1 ? "some" : "full"
				if (!match(s, "\"" k "_total\": \\{\"stall_pct\": [0-9.]+, \"delta\": [0-9]+, \"value\": [0-9]+\\}")) {
					print "line " FNR ": no " k "_total object"
					continue
				}
				m = substr(s, RSTART, RLENGTH); gsub(/[{}",:]/, "", m); split(m, f, " ")
				p = f[3]; d = f[5]; v = f[7]
				lo = ref[0, k]; hi = ref[FNR, k]
				if (lo == "" || hi == "" || v < lo || v > hi)
					print "line " FNR ": " k "_total " v " not in [" lo ", " hi "]"
				if (FNR > 1 && d != v - last[k])
					print "line " FNR ": " k "_total delta " d " != " v " - " last[k]
				if (FNR == 1 && v - d < lo)
					print "line 1: " k "_total at open " v " - " d " below " lo
				r = d / (iv * 1e4)
				if (p - r > 0.0006 + d * 1e-9 || r - p > 0.0006 + d * 1e-9)
					print "line " FNR ": " k " stall_pct " p " != " d " / " iv " / 1e4"
				last[k] = v
				sum[k] += d
			}
		}
		END { print "sum " sum["some"] + 0 }' $copies "$T/json"
	}
	res=$(psi_totals_bad "" "")
	bad=$(echo "$res" | grep -v '^sum ' | head -n 5)
	check "pressure --watch --json: psi some/full total of each line between the /proc/pressure/memory copies around its read, delta = change from the line before, stall_pct = delta / interval_s${bad:+ ($bad)}" \
		[ -z "$bad" ]
	if [ -n "$cgarg" ]; then
		res=$(psi_totals_bad cgroup cg)
		bad=$(echo "$res" | grep -v '^sum ' | head -n 5)
		stalled=$(echo "$res" | awk '$1 == "sum" { print $2 }')
		diag "pressure --watch --cgroup mi-rp: the cgroup's some_total grew by $stalled us over $N lines"
		check "pressure --watch --cgroup --json: the cgroup's some/full total of each line between the copies of its memory.pressure around its read, delta = change from the line before, stall_pct = delta / interval_s${bad:+ ($bad)}" \
			[ -z "$bad" ]
		# shellcheck disable=SC2086
		bad=$(awk '
			FILENAME !~ /\/json$/ {
				if ($1 == "cg" && ($2 == "some" || $2 == "full") && $3 ~ /^avg10=/) seen[$2, substr($3, 7) + 0] = 1
				next
			}
			{
				for (w = 1; w <= 2; w++) {
					k = w == 1 ? "some" : "full"
					if (!match($0, "\"cgroup\": .*\"" k "_avg10\": [0-9]+\\.[0-9]+")) { print "line " FNR ": no cgroup " k "_avg10"; continue }
					v = substr($0, RSTART, RLENGTH); sub(/.*: /, "", v)
					if (!((k, v + 0) in seen)) print "line " FNR ": cgroup " k "_avg10 " v " not among the values seen"
				}
			}' $copies "$T/psi.cg.log" "$T/json" | head -n 5)
		check "pressure --watch --cgroup --json: the cgroup's some/full avg10 of each line is one its memory.pressure showed while the reader ran${bad:+ ($bad)}" \
			[ -z "$bad" ]
		check "pressure --watch --cgroup: the memcg workload's tasks stalled in the cgroup: some_total grew ($stalled us)" \
			[ "${stalled:-0}" -gt 0 ]
	fi
else
	bad=$(grep -vc '"some_avg10": null, "full_avg10": null, "some_total": null, "full_total": null' "$T/json")
	check "pressure --watch --json: psi avg10 and totals null on every line, as capabilities pressure.psi says (no): $bad lines otherwise" \
		[ "$bad" -eq 0 ]
fi

# the text view: two header lines, then 12 columns; '-' exactly in the
# columns whose counters the kernel lacks
[ "$(cap_available pressure.events)" = yes ] && e=N || e=-
# compact_* are vm events: pressure.compact says no without
# CONFIG_VM_EVENT_COUNTERS (the debug lane) as without CONFIG_COMPACTION
[ "$(cap_available pressure.compact)" = yes ] && c=N || c=-
[ "$(cap_available pressure.psi)" = yes ] && p=N || p=-
want="$e $e $e $e $e $c $c $e N N $p $p"
got=$(awk 'NR > 2 && NF == 12 { n++; s = ""
	for (i = 1; i <= NF; i++) s = s (i > 1 ? " " : "") ($i == "-" ? "-" : ($i ~ /^[0-9.]+$/ ? "N" : "?" $i))
	if (s != last && last != "") print "differ"; last = s }
	END { print n + 0, last }' "$T/text" | tail -n 1)
check "pressure --watch 1 --count $N (text, at the same time): exit $trc, $N lines, numbers and '-' per capabilities: got '$got', want '$N $want'" \
	[ "$trc/$got" = "0/$N $want" ]

# -- latency: the histograms as the file has them ----------------------------
if [ ! -f "$L/armed" ]; then
	skip "latency: reader against the file" "no $L/armed"
	exit 0
fi
n=$(grep -c '^# last ' "$T/lwatch")
check "latency --watch 1 --count 2 while armed: exit $lrc, the second round an interval ($n)" \
	[ "$lrc/$n" = 0/1 ]
cat "$L/histograms" > "$T/h"
"$MI_READER" latency > "$T/lat" 2> "$T/err"
rc=$?
"$MI_READER" --json latency > "$T/lj" 2> "$T/jerr"
jrc=$?
cat "$L/histograms" > "$T/h2"
cat "$L/page_alloc" > "$T/pa" 2> /dev/null
cat "$L/stallers" > "$T/st" 2> /dev/null
check "latency: disarmed, the histograms file read the same before and after the reader" \
	cmp -s "$T/h" "$T/h2"
kinds=$(awk 'NR > 1 && !/^#/ { n++ } END { print n + 0 }' "$T/h")
diag "latency kinds: $(awk 'NR > 1 && !/^#/ { printf "%s %s, ", $1, $2 }' "$T/h")"
# text: "@KIND: events E, ..., unpaired U", then one row per bucket from the
# first to the last non-empty one: "[lo, hi)  COUNT |bars|"; the page
# allocator's slow path only for the orders that took it
bad=$(awk '
	FILENAME ~ /\/h$/ {
		if (FNR == 1 || /^#/) next
		if ($1 ~ /^page_alloc_slow_order_/ && $2 == 0 && $4 == 0) { quiet[$1] = 1; next }
		ev[$1] = $2; up[$1] = $4
		nb = split($5, b, ",")
		f = 0; l = 0
		for (i = 1; i <= nb; i++)
			if (b[i] + 0) { if (!f) f = i; l = i }
		s = ""
		for (i = f; f && i <= l; i++) s = s " " b[i]
		want[$1] = s
		next
	}
	/^@/ {
		k = substr($1, 2); sub(/:$/, "", k); seen[k] = 1; got[k] = $3; sub(/,$/, "", got[k])
		if (k in quiet) print k ": a block, but no events"
		else if (!(k in ev)) print k ": not in the file"
		else if (got[k] != ev[k]) print k ": events " got[k] ", file " ev[k]
		if ($NF != up[k]) print k ": unpaired " $NF ", file " up[k]
		next
	}
	/^\[/ { x = $0; sub(/^[^)]*\) */, "", x); split(x, c, " "); rows[k] = rows[k] " " c[1] }
	END {
		for (k in ev) {
			if (!seen[k]) print k ": no block"
			else if (rows[k] != want[k]) print k ": rows" rows[k] ", file" want[k]
		}
	}' "$T/h" "$T/lat" | head -n 5)
check "latency: exit $rc; all $kinds kinds of the file, each with its events, unpaired and bucket rows as latency/histograms${bad:+ ($bad)}" \
	[ "$rc/$bad" = 0/ ]
if [ -n "$workload" ] && [ "$(cap_available latency.memcg_reclaim)" = yes ]; then
	n=$(awk '$1 == "memcg_reclaim" { print $2 }' "$T/h")
	check "latency: the workload's memcg reclaim stalls were measured ($n)" [ "${n:-0}" -gt 0 ]
fi
# --json (pretty-printed): per kind "kind", "events", "sum_ns", "unpaired",
# then every bucket's "count": the file's line, buckets joined by commas
# (the kinds array ends where "page_alloc" and "stallers" begin)
bad=$(awk '
	FILENAME ~ /\/h$/ { if (FNR > 1 && !/^#/) want[$1] = $2 " " $3 " " $4 " " $5; next }
	/"page_alloc": / { after = 1 }
	after { next }
	function num(s) { s = $2; sub(/,$/, "", s); return s }
	/"armed": / && num() != 0 { print "armed " num() ", want 0" }
	/"kind": / { k = $2; gsub(/[",]/, "", k); seen[k] = 1; order[++n] = k; next }
	/"events": / { ev[k] = num(); next }
	/"sum_ns": / { sum[k] = num(); next }
	/"unpaired": / { up[k] = num(); next }
	/"count": / { b[k] = b[k] (b[k] == "" ? "" : ",") num(); next }
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]
			g = ev[k] " " sum[k] " " up[k] " " b[k]
			if (!(k in want)) print k ": not in the file"
			else if (g != want[k]) print k ": json " g ", file " want[k]
		}
		for (k in want) if (!seen[k]) print k ": not in the json"
	}' "$T/h" "$T/lj" | head -n 5)
check "latency --json: exit $jrc; all $kinds kinds with the file's events, sum_ns, unpaired and every bucket${bad:+ ($bad)}" \
	[ "$jrc/$bad" = 0/ ]
# the page allocations table: each order with a count, as latency/page_alloc
# (disarmed: it holds still); the stallers: the file's first 10 pids in order
# the files exist wherever armed does (one directory): empty is a failed read
check "latency: page_alloc and stallers read (their header at least)" test -s "$T/pa" -a -s "$T/st"
if [ -s "$T/pa" ]; then
	want=$(awk 'NR > 1 && !/^#/ && ($2 + $3 + $4) > 0 { print $1, $2, $3, $4 }' "$T/pa")
	got=$(awk '/^page allocations/ { s = 1; getline; next } s && NF == 4 { print $1, $2, $3, $4 } s && NF == 0 { s = 0 }' "$T/lat")
	check "latency: the page allocations table is latency/page_alloc's orders with a count" [ "$got" = "$want" ]
	check "latency: the armed window counted page allocations" [ -n "$want" ]
fi
if [ -s "$T/st" ]; then
	want=$(awk 'NR > 1 && !/^#/ && n++ < 10 { print $1 }' "$T/st" | xargs)
	# rows only: a pid first; the table's closing notes ("(N more: ...)")
	# are not rows
	got=$(awk '/^tasks that stalled longest/ { s = 1; getline; next } s && NF >= 6 && $1 ~ /^[0-9]+$/ { print $1 } s && NF == 0 { s = 0 }' "$T/lat" | xargs)
	more=$(awk 'NR > 1 && !/^#/ { n++ } END { print (n > 10 ? n - 10 : 0) }' "$T/st")
	gotmore=$(sed -n 's/^(\([0-9]*\) more: .*/\1/p' "$T/lat")
	check "latency: the stallers table is latency/stallers' first 10 pids in order ($got)" [ "$got" = "$want" ]
	check "latency: the stallers table says how many rows it left out ($more in the file, '${gotmore}' in the table)" \
		[ "${gotmore:-0}" = "$more" ]
fi
