# SPDX-License-Identifier: GPL-2.0
# Host tests of `meminspect pressure --watch` (the vmstat view) and
# `meminspect latency`, and of the latency histograms' export: sourced by
# run.sh (its ok/is/has/run, $M, $tmp, $FX). fixtures/stall/ is a 7.3
# guest under global reclaim (brd page cache read with vm.min_free_kbytes
# raised) and memcg reclaim (the same in a cgroup with a 16 MiB
# memory.max), latency armed: pressure and pressure.read2 are two reads of
# one open pressure file 1.5 s apart, latency/histograms and
# latency/histograms.later two reads of the histograms with reclaim in
# between; capabilities is cut to the rows of those files.

SX=$FX/stall

# fixture_col FILE SECTION NAME COLUMN: a record's value (4) or delta (5)
fixture_col() {
	awk -v s="$2" -v n="$3" -v c="$4" '$1 == s && $3 == n { print $c }' "$1"
}

# ---- pressure --watch: one line per interval, from the open file's deltas ----

# The file is kept open, so it is rewritten in place (same inode) between
# the two rounds: the second line must show the second read's deltas.
mkdir -p "$tmp/sw"
cp "$SX/capabilities" "$SX/pressure" "$tmp/sw/"
bg_reader "$tmp/sw.out" "$tmp/sw.err" --dir "$tmp/sw" --json pressure --watch 1 --count 2
wait_grep '^{' "$tmp/sw.out"
cat "$SX/pressure.read2" >"$tmp/sw/pressure"
wait "$wpid"
is "pressure --watch 1 --count 2 --json: exit 0, nothing on stderr" "0 " "$? $(<"$tmp/sw.err")"
is "pressure --watch --json: two lines, each one JSON object (jq -c per line)" "2 2" \
	"$(wc -l <"$tmp/sw.out") $(jq -c . "$tmp/sw.out" | wc -l)"
for r in 1 2; do
	f=$SX/pressure
	[ $r = 2 ] && f=$SX/pressure.read2
	line=$(sed -n "${r}p" "$tmp/sw.out")
	bad=
	for n in allocstall pgscan_direct pgscan_kswapd pgsteal_direct pgsteal_kswapd compact_stall \
		compact_fail oom_kill workingset_refault_anon workingset_refault_file; do
		want="$(fixture_col "$f" vmstat "$n" 5) $(fixture_col "$f" vmstat "$n" 4)"
		got=$(jq -r --arg n "$n" '"\(.[$n].delta) \(.[$n].value)"' <<<"$line")
		[ "$got" = "$want" ] || bad="$bad $n: got '$got' want '$want';"
		# rate = delta / interval_s, printed with 3 decimals (interval_s with 6)
		jq -e --arg n "$n" '. as $o | (($o[$n].rate - $o[$n].delta / $o.interval_s) | fabs) < 0.0006 + $o[$n].delta * 1e-6' \
			>/dev/null <<<"$line" || bad="$bad $n: rate $(jq -c --arg n "$n" '[.[$n].rate, .interval_s]' <<<"$line");"
	done
	for n in some_avg10 full_avg10; do
		want=$(awk -v v="$(fixture_col "$f" psi "$n" 4)" 'BEGIN { printf "%.2f", v / 100 }')
		got=$(jq -r --arg n "$n" '.[$n] | tostring' <<<"$line")
		# jq prints 0.5 for 0.50: compare as numbers
		awk -v a="$got" -v b="$want" 'BEGIN { exit !(a + 0 == b + 0) }' ||
			bad="$bad $n: got $got want $want;"
	done
	is "pressure --watch --json line $r: delta and value of read $r, rate = delta / interval_s, psi avg10 in %" \
		"" "$bad"
done
[ -s "$tmp/sw.out" ] && jq -e -s 'all(.interval_s > 0.9 and .interval_s < 5) and all(.time | test("^[0-9-]+T[0-9:]+Z$"))' \
	"$tmp/sw.out" >/dev/null
ok $? "pressure --watch --json: each line's interval is the measured one, time in UTC" "$(cat "$tmp/sw.out")"
# the two reads must differ somewhere, or the test above proves nothing
if cmp -s <(awk '$1 == "vmstat" { print $5 }' "$SX/pressure") \
	<(awk '$1 == "vmstat" { print $5 }' "$SX/pressure.read2"); then
	ok 1 "fixtures: the two pressure reads have different deltas"
else
	ok 0 "fixtures: the two pressure reads have different deltas"
fi

# text: two header lines, then one line of 12 columns; the header again
# every screenful ($LINES when stdout is not a terminal)
cp "$SX/pressure.read2" "$tmp/sw/pressure"
run env LINES=5 "$M" --dir "$tmp/sw" pressure --watch 1 --count 4
is "pressure --watch 1 --count 4: exit 0" "0 " "$rc $err"
is "pressure --watch: no time heading, header repeated every \$LINES - 2 lines" \
	"H H D D D H H D" \
	"$(awk '/^-/ { printf "H " ; next } /alloc/ { printf "H "; next } NF == 12 { printf "D " }' <<<"$out" | sed 's/ $//')"
is "pressure --watch: the header names the columns" \
	"alloc direct kswapd direct kswapd stall fail kill anon file some% full%" \
	"$(sed -n 2p <<<"$out" | tr -s ' ' | sed 's/^ //')"
want=$(awk '$1 == "vmstat" { v[$3] = $5 } $1 == "psi" { p[$3] = $4 }
	END { printf "%.2f %.2f", p["some_avg10"] / 100, p["full_avg10"] / 100 }' "$SX/pressure.read2")
is "pressure --watch: psi some/full avg10 in percent as the last columns" "$want" \
	"$(sed -n 3p <<<"$out" | awk '{ print $11, $12 }')"
bad=$(sed -n 3p <<<"$out" | awk -v f="$SX/pressure.read2" '
	BEGIN {
		split("allocstall pgscan_direct pgscan_kswapd pgsteal_direct pgsteal_kswapd compact_stall compact_fail oom_kill workingset_refault_anon workingset_refault_file", n)
		while ((getline l < f) > 0) { split(l, a); if (a[1] == "vmstat") d[a[3]] = a[5] }
	}
	{
		for (i = 1; i <= 10; i++) {
			# a rate over 1 s and a bit (a loaded host): delta / 1.5 .. delta
			if ($i < d[n[i]] / 1.5 - 0.1 || $i > d[n[i]] + 0.1)
				print n[i] ": " $i " for delta " d[n[i]]
		}
	}')
is "pressure --watch: each column the rate of its counter (delta over about 1 s)" "" "$bad"

# a kernel without VM_EVENT_COUNTERS and PSI (the debug lane: capabilities
# pressure.events and pressure.psi say no) has no such records: '-', never 0
mkdir -p "$tmp/snd"
grep -Ev '^vmstat all (allocstall|pgscan_|pgsteal_|oom_kill)|^psi ' "$SX/pressure.read2" \
	>"$tmp/snd/pressure"
run "$M" --dir "$tmp/snd" pressure --watch 1 --count 1
is "pressure --watch, records left out: exit 0" "0 " "$rc $err"
is "pressure --watch, records left out: '-' in their columns, the others numbers" \
	"- - - - - N N - N N - -" \
	"$(sed -n 3p <<<"$out" | awk '{ for (i = 1; i <= NF; i++) printf "%s%s", (i > 1 ? " " : ""), $i == "-" ? "-" : ($i ~ /^[0-9.]+$/ ? "N" : "?" $i) }')"
run "$M" --dir "$tmp/snd" --json pressure --watch 1 --count 1
is "pressure --watch --json, records left out: null, never 0" \
	"null null null null true true" \
	"$(jq -r '[.allocstall, .pgscan_direct, .some_avg10, .full_avg10, (.compact_stall.rate != null), (.workingset_refault_file.delta != null)] | map(tostring) | join(" ")' <<<"$out")"

# ---- pressure --watch: PSI totals and --cgroup ----

# The module's psi totals carry a per-open delta (docs/pressure.md); an older
# module printed '-' there: null then, never a made-up share.
jq -e -s 'all(.some_total == null and .full_total == null)' "$tmp/sw.out" >/dev/null
ok $? "pressure --watch --json: psi totals null where the file's delta is '-' (an older module)" \
	"$(jq -c '[.some_total, .full_total]' "$tmp/sw.out")"
# the same capture with the deltas the module prints now (derived, as snd below)
mkdir -p "$tmp/st"
cp "$SX/capabilities" "$tmp/st/"
awk '$1 == "psi" && $3 == "some_total" { $5 = 15000 } $1 == "psi" && $3 == "full_total" { $5 = 9000 } { print }' \
	"$SX/pressure.read2" >"$tmp/st/pressure"
run "$M" --dir "$tmp/st" --json pressure --watch 1 --count 1
is "pressure --watch --json: psi some/full total's delta and value from the file" \
	"15000 $(fixture_col "$SX/pressure.read2" psi some_total 4) 9000 $(fixture_col "$SX/pressure.read2" psi full_total 4)" \
	"$(jq -r '"\(.some_total.delta) \(.some_total.value) \(.full_total.delta) \(.full_total.value)"' <<<"$out")"
jq -e '[.some_total, .full_total] | all((.stall_pct - .delta / ($o.interval_s * 1e4)) | fabs < 0.0006)' \
	--argjson o "$(jq -c '{interval_s}' <<<"$out")" >/dev/null <<<"$out"
ok $? "pressure --watch --json: stall_pct = delta (us) / interval_s, in percent" "$out"

# --cgroup DIR: DIR/memory.pressure, read by the reader, rewritten in place
# between the rounds: the second line's share is the change of its totals
mkdir -p "$tmp/cg"
printf 'some avg10=1.50 avg60=0.40 avg300=0.10 total=1000\nfull avg10=0.25 avg60=0.05 avg300=0.01 total=400\n' \
	>"$tmp/cg/memory.pressure"
bg_reader "$tmp/cg.out" "$tmp/cg.err" --dir "$tmp/st" --json pressure --watch 1 --count 2 --cgroup "$tmp/cg"
wait_grep '^{' "$tmp/cg.out"
printf 'some avg10=12.34 avg60=3.00 avg300=1.00 total=501000\nfull avg10=5.07 avg60=1.00 avg300=0.20 total=200400\n' \
	>"$tmp/cg/memory.pressure"
wait "$wpid"
is "pressure --watch --cgroup --json: exit 0, nothing on stderr, two lines" "0  2" \
	"$? $(<"$tmp/cg.err") $(jq -c . "$tmp/cg.out" | wc -l)"
is "pressure --watch --cgroup --json: the cgroup's file, avg10 in % and total's delta per line" \
	"$tmp/cg/memory.pressure 1.5 0.25 0 1000 0 400|$tmp/cg/memory.pressure 12.34 5.07 500000 501000 200000 200400" \
	"$(jq -r '.cgroup | "\(.path) \(.some_avg10) \(.full_avg10) \(.some_total.delta) \(.some_total.value) \(.full_total.delta) \(.full_total.value)"' "$tmp/cg.out" | paste -sd '|')"
jq -e -s '.[1] as $l | [$l.cgroup.some_total, $l.cgroup.full_total] | all((.stall_pct - .delta / ($l.interval_s * 1e4)) | fabs < 0.0006)' \
	"$tmp/cg.out" >/dev/null
ok $? "pressure --watch --cgroup --json: the cgroup's stall_pct = its total's delta / interval_s, in percent" \
	"$(cat "$tmp/cg.out")"
# text: 16 columns, the cgroup's four last; the header names them
run "$M" --dir "$tmp/st" pressure --watch 1 --count 1 --cgroup "$tmp/cg"
is "pressure --watch --cgroup: exit 0, the header's groups end with the cgroup's" "0 cg_avg10 cg_stall" \
	"$rc $(sed -n 1p <<<"$out" | tr -s ' -' ' ' | awk '{ print $(NF - 1), $NF }')"
is "pressure --watch --cgroup: 16 columns, avg10 12.34 5.07 and no change in the totals (0.00)" \
	"16 12.34 5.07 0.00 0.00" "$(sed -n 3p <<<"$out" | awk '{ print NF, $13, $14, $15, $16 }')"
# a cgroup file without a full line (a kernel that has none) and one that vanishes
printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n' >"$tmp/cg/memory.pressure"
run "$M" --dir "$tmp/st" pressure --watch 1 --count 1 --cgroup "$tmp/cg"
is "pressure --watch --cgroup: no full line: '-' in its columns" "0.00 - 0.00 -" \
	"$(sed -n 3p <<<"$out" | awk '{ print $13, $14, $15, $16 }')"
bg_reader "$tmp/cg.out" "$tmp/cg.err" --dir "$tmp/st" --json pressure --watch 1 --count 2 --cgroup "$tmp/cg"
wait_grep '^{' "$tmp/cg.out"
rm "$tmp/cg/memory.pressure"
wait "$wpid"
is "pressure --watch --cgroup: the cgroup gone mid-watch: exit 0, its fields null on the next line" \
	"0 null null null null" \
	"$? $(sed -n 2p "$tmp/cg.out" | jq -r '.cgroup | [.some_avg10, .full_avg10, .some_total, .full_total] | map(tostring) | join(" ")')"
# bad --cgroup: a usage error that says why, nothing printed on stdout
run "$M" --dir "$tmp/st" pressure --watch 1 --count 1 --cgroup "$tmp/no-such-cgroup"
is "pressure --cgroup: no such directory: exit 2, no line" "2 0" "$rc $(wc -c <<<"$out" | awk '{ print $1 - 1 }')"
has "pressure --cgroup: no such directory: message" "no such directory $tmp/no-such-cgroup" "$err"
run "$M" --dir "$tmp/st" pressure --watch 1 --count 1 --cgroup "$tmp/cg"
is "pressure --cgroup: a directory without memory.pressure: exit 2" 2 "$rc"
has "pressure --cgroup: a directory without memory.pressure: message" "has no memory.pressure: not a cgroup v2 directory" "$err"
printf 'some avg10=x total=1\n' >"$tmp/cg/memory.pressure"
run "$M" --dir "$tmp/st" pressure --watch 1 --count 1 --cgroup "$tmp/cg"
is "pressure --cgroup: a file not in PSI's format: exit 2, message" "2 not in PSI's format" \
	"$rc $(grep -o "not in PSI's format" <<<"$err")"
run "$M" --dir "$tmp/st" pressure --cgroup "$tmp/cg"
is "pressure --cgroup without --watch: usage error" "2 --cgroup is for pressure --watch" \
	"$rc $(grep -o -- '--cgroup is for pressure --watch' <<<"$err")"
run "$M" --dir "$tmp/st" pressure --table --watch 1 --cgroup "$tmp/cg"
is "pressure --cgroup with --table: usage error" 2 "$rc"
run "$M" --dir "$tmp/st" zones --watch 1 --cgroup "$tmp/cg"
is "--cgroup given to another command: usage error" 2 "$rc"

# --table --watch keeps the N(+D) table
run "$M" --dir "$tmp/sw" pressure --table --watch 1 --count 1
has "pressure --table --watch: the whole table under a time heading" "section" "$out"
run "$M" --dir "$SX" zones --table
is "--table given to another command: usage error" 2 "$rc"
has "--table given to another command: message" "--table is a pressure option" "$err"

# ---- latency: the histograms as bpftrace's hist() ----

run "$M" --dir "$SX" latency
is "latency: exit 0" "0 " "$rc $err"
bad=$(awk -v f="$SX/latency/histograms" '
	BEGIN { while ((getline l < f) > 0) { split(l, a); if (a[1] != "kind") { ev[a[1]] = a[2]; up[a[1]] = a[4] } } }
	/^@/ { k = substr($1, 2); sub(/:$/, "", k); seen[k] = 1
		if ($3 != ev[k] ",") print k ": events " $3 " want " ev[k]
		if ($NF != up[k]) print k ": unpaired " $NF " want " up[k] }
	/^\[/ { n = $0; sub(/^[^)]*\) */, "", n); split(n, c, " "); rows[k] += c[1] }
	END { for (k in ev) { if (!seen[k]) print k ": no block"; if (rows[k] != ev[k]) print k ": rows add up to " rows[k] " not " ev[k] } }' <<<"$out")
is "latency: a block per kind, events and unpaired as the file, the rows add up to events" "" "$bad"
n=$(awk '$1 == "memcg_reclaim" || $1 == "direct_reclaim" { printf "%s", ($2 > 0 ? "y" : "n") }' \
	"$SX/latency/histograms.later")
is "fixtures: direct_reclaim and memcg_reclaim have events" yy "$n"

# bucket bounds: [2^i, 2^(i+1)) ns in ns/us/ms/s, 3 digits; the first from
# 0, the last open; the rows from the first to the last non-empty bucket
mkdir -p "$tmp/lb/latency"
awk 'BEGIN {
	print "kind events sum_ns unpaired buckets"
	for (i = 0; i < 40; i++) b = b (i ? "," : "") (i == 0 || i == 10 || i == 20 || i == 30 ? 1 : i == 39 ? 2 : 0)
	print "direct_reclaim 6 1100000000000 3 " b
	e = "0"; for (i = 1; i < 40; i++) e = e ",0"
	print "memcg_reclaim 0 0 0 " e
}' >"$tmp/lb/latency/histograms"
echo 1 >"$tmp/lb/latency/armed"
run "$M" --dir "$tmp/lb" latency
is "latency: bounds of buckets 0, 10, 20, 30, 39 (2^i ns, 3 digits), bar of 52 @ at the largest count" \
	"[0ns, 2ns) 1 26
[1.02us, 2.05us) 1 26
[1.05ms, 2.10ms) 1 26
[1.07s, 2.15s) 1 26
[550s, ...) 2 52" \
	"$(awk -F'|' '/^\[/ { split($1, a, ")"); n = split(a[2], c, " "); b = $2; gsub(/ /, "", b)
		if (c[1] != 0) print a[1] ") " c[1], length(b) }' <<<"$out")"
is "latency: every bucket from the first non-empty to the last" 40 "$(grep -c '^\[' <<<"$out")"
has "latency: events, sum, mean, unpaired" "@direct_reclaim: events 6, sum 1100s, mean 183s, unpaired 3" "$out"
has "latency: a kind without events: its line only" "@memcg_reclaim: events 0, unpaired 0" "$out"
echo 0 >"$tmp/lb/latency/armed"
run "$M" --dir "$tmp/lb" latency
has "latency: disarmed is said" "# disarmed: nothing is measured" "$out"

run "$M" --dir "$SX" --json latency
[ -n "$out" ] && jq -e --slurpfile h <(awk 'NR > 1 { print "{\"k\":\"" $1 "\",\"e\":" $2 ",\"s\":" $3 "}" }' "$SX/latency/histograms") '
	.armed == 1 and .reset == 0 and .interval_ms == null and (.kinds | length) == ($h | length)
	and all(.kinds[]; . as $k | ($h[] | select(.k == $k.kind)) as $f |
		$k.events == $f.e and $k.sum_ns == $f.s
		and ([$k.buckets[].count] | add) == $k.events
		and ($k.buckets | length) == 40
		and all(range(0; 39) as $i | $k.buckets[$i]; .hi_ns == pow(2; (.lo_ns | if . == 0 then 0 else log2 end) + 1))
		and $k.buckets[39].hi_ns == null and $k.buckets[1].lo_ns == 2)' >/dev/null <<<"$out"
ok $? "latency --json: events and sum_ns as the file, buckets [2^i, 2^(i+1)) ns adding up to events (jq)" "$out"

# --watch: the interval's histogram, the difference of two reads
mkdir -p "$tmp/lw/latency"
cp "$SX/latency/histograms" "$SX/latency/armed" "$tmp/lw/latency/"
bg_reader "$tmp/lw.out" "$tmp/lw.err" --dir "$tmp/lw" --json latency --watch 1 --count 3
wait_grep '"reset"' "$tmp/lw.out"
cp "$SX/latency/histograms.later" "$tmp/lw/latency/histograms"
sleep 1.2
cp "$SX/latency/histograms" "$tmp/lw/latency/histograms"
wait "$wpid"
is "latency --watch 1 --count 3 --json: exit 0, three documents" "0 3" "$? $(jq -s length "$tmp/lw.out")"
want=$(awk 'FNR == 1 { next } FILENAME ~ /later/ { l[$1] = $2; next } { e[$1] = $2 }
	END { for (k in l) printf "%s=%d ", k, l[k] - e[k] }' "$SX/latency/histograms" \
	"$SX/latency/histograms.later" | tr ' ' '\n' | sort | xargs)
is "latency --watch: the second round is the difference of the two reads" "$want" \
	"$(jq -s -r '.[1].kinds[] | "\(.kind)=\(.events)"' "$tmp/lw.out" | sort | xargs)"
jq -s -e '.[1].interval_ms > 500 and .[1].reset == 0 and
	all(.[1].kinds[]; ([.buckets[].count] | add) == .events)' "$tmp/lw.out" >/dev/null
ok $? "latency --watch: an interval, buckets of the difference adding up" "$(jq -s -c '.[1]' "$tmp/lw.out")"
jq -s -e '.[2].reset == 1' "$tmp/lw.out" >/dev/null
ok $? "latency --watch: counts that went down (re-armed) are said: reset 1" "$(jq -s -c '.[2]' "$tmp/lw.out")"

# ---- export: Prometheus histograms ----

run "$M" --dir "$SX" export --prometheus
is "export of the stall fixtures: exit 0" "0 " "$rc $err"
has "export: latency histograms as one family of type histogram" \
	"# TYPE meminspect_latency_seconds histogram" "$out"
has "export: the latency directory is ok" 'meminspect_file_ok{file="latency"} 1' "$out"
bad=$(awk -v f="$SX/latency/histograms" '
	BEGIN {
		while ((getline l < f) > 0) {
			split(l, a, " ")
			if (a[1] == "kind") continue
			n = split(a[5], b, ",")
			sum[a[1]] = a[3]; c = 0
			for (i = 1; i <= n; i++) {
				c += b[i]
				le = i < n ? sprintf("%.12g", 2 ^ i / 1e9) : "+Inf"
				want[a[1], le] = c
			}
			total[a[1]] = c; nb[a[1]] = n
		}
	}
	/^meminspect_latency_seconds_bucket/ {
		match($0, /kind="[^"]*"/); k = substr($0, RSTART + 6, RLENGTH - 7)
		match($0, /le="[^"]*"/); le = substr($0, RSTART + 4, RLENGTH - 5)
		got[k]++
		if (!((k, le) in want)) print k " unexpected le " le
		else if ($2 != want[k, le]) print k " le " le ": " $2 " want " want[k, le]
	}
	/^meminspect_latency_seconds_count/ { match($0, /kind="[^"]*"/); k = substr($0, RSTART + 6, RLENGTH - 7)
		if ($2 != total[k]) print k " _count " $2 " want " total[k] }
	/^meminspect_latency_seconds_sum/ { match($0, /kind="[^"]*"/); k = substr($0, RSTART + 6, RLENGTH - 7)
		if ($2 * 1e9 - sum[k] > 1 || sum[k] - $2 * 1e9 > 1) print k " _sum " $2 " want " sum[k] " ns" }
	END { for (k in nb) if (got[k] != nb[k]) print k ": " got[k] " buckets, want " nb[k] }' <<<"$out")
is "export: cumulative buckets with le = 2^(i+1) ns in seconds and +Inf, _count = +Inf, _sum in seconds" "" "$bad"
has "export: the first bucket's le" 'meminspect_latency_seconds_bucket{kind="direct_reclaim",le="2e-09"}' "$out"
has "export: the last finite le, 2^39 ns" 'meminspect_latency_seconds_bucket{kind="memcg_reclaim",le="549.755813888"}' "$out"
has "export: unpaired as a counter per kind" 'meminspect_latency_unpaired_total{kind="memcg_reclaim"}' "$out"
# the alert rule's selectors (docs/meminspect-alerts.yml) match series of this export:
# every label pair of each selector on one line of that metric
alerts=$here/../../docs/meminspect-alerts.yml
bad=
nsel=0
while read -r sel; do
	nsel=$((nsel + 1))
	m=${sel%%\{*}
	pairs=${sel#*\{}
	pairs=${pairs%\}}
	found=$(awk -v m="$m" -v p="$pairs" 'BEGIN { n = split(p, want, ",") }
		index($0, m "{") == 1 { ok = 1; for (i = 1; i <= n; i++) if (!index($0, want[i])) ok = 0
			if (ok) { print "yes"; exit } }' <<<"$out")
	[ "$found" = yes ] || bad+="$sel "
done < <(awk '/alert: MeminspectDirectReclaimSustained/ { f = 1 } f && /alert: / && !/DirectReclaim/ { f = 0 }
	f' "$alerts" | grep -o 'meminspect_[a-z_]*{[^}]*}')
is "docs/meminspect-alerts.yml: MeminspectDirectReclaimSustained's $nsel selectors each match a series of the export" \
	"2 " "$nsel $bad"
if command -v promtool >/dev/null; then
	stall=$out
	run promtool check metrics <<<"$stall"
	is "export of the stall fixtures: promtool check metrics is silent and exits 0" "0 " "$rc $out$err"
else
	skip "export of the stall fixtures: promtool check metrics" "no promtool (Debian package prometheus)"
fi
run "$M" --dir "$SX" --json report
[ -n "$out" ] && jq -e '.latency.histograms | length > 0 and all(.[]; (.buckets | type) == "array")' \
	>/dev/null <<<"$out"
ok $? "report --json: latency/histograms by its capabilities row, buckets as arrays" "$out"

# ---- latency/page_alloc: allocations by order, fast and slow path ----
# fixtures/pagealloc/ is a 7.3 guest, latency armed, with the helper holding
# all but 60 MiB (below DMA32's low watermark): page_alloc and histograms,
# then the same after order-3 allocations (.later).  stall/latency/page_alloc
# and stall/latency/stallers are copies of pagealloc's and stallers' (that
# fixture predates the files; report and export read them).
PX=$FX/pagealloc
# section_rows HEADING NF COLS: in $out, the rows of NF fields below the line
# that starts with HEADING and its column header, columns COLS (1,2,...)
section_rows() {
	awk -v h="$1" -v n="$2" -v cols="$3" 'BEGIN { m = split(cols, c, ",") }
		index($0, h) == 1 { s = 1; getline; next }
		s && NF == n { o = $c[1]; for (i = 2; i <= m; i++) o = o " " $c[i]; print o }
		s && NF == 0 { s = 0 }' <<<"$out"
}
run "$M" --dir "$PX" latency
is "latency (page_alloc fixture): exit 0" "0 " "$rc $err"
want=$(awk 'NR > 1 && ($2 + $3 + $4) > 0 { print $1, $2, $3, $4 }' "$PX/latency/page_alloc")
got=$(section_rows "page allocations" 4 1,2,3,4)
is "latency: the page allocations table holds each order with a count, as the file" "$want" "$got"
want=$(awk '$1 ~ /^page_alloc_slow_order_/ && $2 > 0 { print "@" $1 ":" }' "$PX/latency/histograms" | xargs)
is "latency: a histogram for each order that took the slow path, none for the others" "$want" \
	"$(grep -o '^@page_alloc_slow_order_[0-9]*:' <<<"$out" | xargs)"
[ -n "$want" ]
ok $? "fixtures: some order took the slow path" "$want"
run "$M" --dir "$PX" --json latency
[ -n "$out" ] && jq -e --slurpfile f <(awk 'NR > 1 { print "[" $1 "," $2 "," $3 "," $4 "]" }' "$PX/latency/page_alloc") '
	[.page_alloc[] | [.order, .fast, .slow, .failed]] == $f' >/dev/null <<<"$out"
ok $? "latency --json: page_alloc is the file's records, counts as numbers (jq)" "$out"
mkdir -p "$tmp/np/latency"
cp "$SX/latency/histograms" "$SX/latency/armed" "$tmp/np/latency/"
run "$M" --dir "$tmp/np" --json latency
jq -e '.page_alloc == null and .stallers == null and .stallers_overflow == null' >/dev/null <<<"$out"
is "latency --json: page_alloc and stallers are null where the directory has neither (an older module)" \
	"0 " "$? $err"
# --watch: the second round's page_alloc is the difference of the two reads
mkdir -p "$tmp/pw/latency"
cp "$PX/latency/histograms" "$PX/latency/page_alloc" "$PX/latency/armed" "$tmp/pw/latency/"
bg_reader "$tmp/pw.out" "$tmp/pw.err" --dir "$tmp/pw" --json latency --watch 1 --count 2
wait_grep '"reset"' "$tmp/pw.out"
cp "$PX/latency/histograms.later" "$tmp/pw/latency/histograms"
cp "$PX/latency/page_alloc.later" "$tmp/pw/latency/page_alloc"
wait "$wpid"
want=$(awk 'FNR == 1 { next } FILENAME ~ /later/ { print $1 "=" $2 - f[$1] "," $3 - s[$1] "," $4 - x[$1]; next }
	{ f[$1] = $2; s[$1] = $3; x[$1] = $4 }' "$PX/latency/page_alloc" "$PX/latency/page_alloc.later" | xargs)
is "latency --watch: the second round's page_alloc is the difference of the two reads" "$want" \
	"$(jq -s -r '.[1].page_alloc[] | "\(.order)=\(.fast),\(.slow),\(.failed)"' "$tmp/pw.out" | xargs)"
run "$M" --dir "$PX" export --prometheus
is "export of the page_alloc fixture: exit 0" "0 " "$rc $err"
want=$(awk 'NR > 1 { print "meminspect_latency_page_alloc_fast_total{order=\"" $1 "\"} " $2
		print "meminspect_latency_page_alloc_slow_total{order=\"" $1 "\"} " $3
		print "meminspect_latency_page_alloc_failed_total{order=\"" $1 "\"} " $4 }' \
	"$PX/latency/page_alloc" | sort)
is "export: page_alloc's counts per order as counters" "$want" \
	"$(grep '^meminspect_latency_page_alloc_' <<<"$out" | sort)"
has "export: the slow path's histograms, by order" \
	'meminspect_latency_seconds_count{kind="page_alloc_slow_order_2"} 300' "$out"
promtool_ok "export of the page_alloc fixture: promtool check metrics is silent and exits 0" "$out" check metrics

# ---- latency/stallers: the tasks that stalled longest ----
# fixtures/stallers/ is a 6.12 guest, latency armed, brd's page cache read
# by dd twice in cgroup mi-a (memory.max 16 MiB, inode 28) and by cat in
# mi-b (24 MiB, inode 66): memcg reclaim stalls
TX=$FX/stallers
run "$M" --dir "$TX" latency
is "latency (stallers fixture): exit 0, nothing on stderr" "0 " "$rc $err"
want=$(awk 'NR > 1 && !/^#/ { print $1, $2, $3, $NF }' "$TX/latency/stallers")
got=$(section_rows "tasks that stalled longest" 6 1,2,3,6)
is "latency: the stallers table holds the file's tasks in its order: pid, cgroup_id, stalls, comm" "$want" "$got"
# total and mean as the histograms print durations: 3.87s and 8.52ms for
# 3870030680 ns over 454 stalls
has "latency: a staller's total and mean stall in s/ms/us, 3 digits" \
	"     169         28      454     3.87s    8.52ms  dd" "$out"
[ "$(awk 'NR == 2 { print $5 }' "$TX/latency/stallers")" = dd ]
ok $? "fixtures: the longest staller is a dd" "$(cat "$TX/latency/stallers")"
run "$M" --dir "$TX" --json latency
[ -n "$out" ] && jq -e --slurpfile f <(awk 'NR > 1 && !/^#/ { print "[" $1 "," $2 "," $3 "," $4 ",\"" $5 "\"]" }' "$TX/latency/stallers") '
	[.stallers[] | [.pid, .cgroup_id, .events, .stall_ns, .comm]] == $f' >/dev/null <<<"$out"
ok $? "latency --json: stallers are the file's records, numbers and comm (jq)" "$out"
jq -e '.stallers_overflow == {"events": 0, "stall_ns": 0}' >/dev/null <<<"$out"
is "latency --json: stallers_overflow from the file's note, nothing on stderr" "0 " "$? $err"
# more than 10 tasks: 10 rows in text and a line saying how many more
mkdir -p "$tmp/sm/latency"
cp "$TX/latency/histograms" "$TX/latency/armed" "$tmp/sm/latency/"
{
	echo "pid cgroup_id events stall_ns comm"
	for i in $(seq 1 12); do echo "$((100 + i)) 1 1 $((1000 * (13 - i))) kworker/u4:$i x"; done
	echo "# overflow: events 7 stall_ns 2500000 table 64"
} >"$tmp/sm/latency/stallers"
run "$M" --dir "$tmp/sm" latency
is "latency: 10 stallers in text, then how many more; comm may hold a space" \
	"10 (2 more: --json, or cat latency/stallers) kworker/u4:1 x" \
	"$(grep -c '^ *1[01][0-9] ' <<<"$out") $(grep '^(.*more' <<<"$out") $(awk '$1 == 101 { print $6, $7 }' <<<"$out")"
has "latency: the overflow note's stalls, said when there are some" \
	"(7 stalls, 2.50ms, of tasks that found the table full: in no row)" "$out"
run "$M" --dir "$TX" --json report
[ -n "$out" ] && jq -e '.latency.stallers | length == 3' >/dev/null <<<"$out"
ok $? "report --json: latency/stallers under the latency row" "$out"
