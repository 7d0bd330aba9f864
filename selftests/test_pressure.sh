#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pressure against the kernel's own files (docs/pressure.md): every vmstat
# counter and its per-open delta against /proc/vmstat read just before and
# after each read of one open file (progs/readtwice), free pages and
# watermarks against /proc/zoneinfo, PSI against /proc/pressure/memory.
# Counters only grow, so each bracket is exact (no tolerance); free pages
# move with this script's own processes (tolerance as test_zones.sh at rest).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"

RT=${MI_READTWICE:-$ST_DIR/progs/readtwice}
FREE_ABS=256		# pages, as test_zones.sh's REST free
# PSI averages are refreshed every 2 s; ours skips psi_show()'s refresh,
# so it may be one period older than the bracket: 1.00 % (centipercent)
PSI_AVG_TOL=100

mm_setup pressure
require_file "$MI_DIR/pressure"

# ---- format ----
cat "$MI_DIR/pressure" > "$T/p"
want="section scope name value delta unit"
got=$(head -n 1 "$T/p")
check "pressure: header is \"$want\" (got \"$got\")" [ "$got" = "$want" ]
bad=$(awk 'NR == 1 || /^#/ { next }
	NF != 6 { print "line " NR ": " NF " values"; next }
	$4 !~ /^-?[0-9]+$/ || $5 !~ /^(-|[0-9]+)$/ { print "line " NR ": " $0 }
	$1 !~ /^(vmstat|psi|zone|node)$/ { print "line " NR ": section " $1 }' "$T/p")
check "pressure: every record has 6 values, integer value, integer or - delta${bad:+ ($bad)}" [ -z "$bad" ]

# ---- vmstat totals and per-open deltas ----
if "$RT" "$MI_DIR/pressure" /proc/vmstat "$T" 2> "$T/rt.err"; then
	# NAME -> the /proc/vmstat value (allocstall: the sum of allocstall_*)
	res=$(awk '
	FILENAME ~ /ref/ {
		f = FILENAME; sub(/.*\//, "", f)
		ref[f, $1] = $2
		if ($1 ~ /^allocstall_/)
			ref[f, "allocstall"] += $2
		next
	}
	/^vmstat / {
		f = FILENAME; sub(/.*\//, "", f)
		val[f, $3] = $4; del[f, $3] = $5; names[$3] = 1
	}
	END {
		n = 0
		for (k in names) {
			n++
			for (r = 1; r <= 2; r++) {
				lo = ref["ref" r "a", k]; hi = ref["ref" r "b", k]
				if (lo == "" || val["r" r, k] < lo || val["r" r, k] > hi)
					print "bad " k " read " r ": " val["r" r, k] " not in [" lo ", " hi "]"
			}
			# read 2: since read 1, exactly
			if (del["r2", k] != val["r2", k] - val["r1", k])
				print "bad " k " delta 2: " del["r2", k] " != " val["r2", k] " - " val["r1", k]
			# read 1: since open, which lay between ref0 and ref1a
			d = del["r1", k]
			if (d < val["r1", k] - ref["ref1a", k] || d > val["r1", k] - ref["ref0", k])
				print "bad " k " delta 1: " d " not in [" val["r1", k] - ref["ref1a", k] ", " val["r1", k] - ref["ref0", k] "]"
		}
		print "count " n
	}' "$T/ref0" "$T/ref1a" "$T/ref1b" "$T/ref2a" "$T/ref2b" "$T/r1" "$T/r2")
	n=$(echo "$res" | awk '$1 == "count" { print $2 }')
	badv=$(echo "$res" | grep '^bad' | head -n 5)
	# without VM_EVENT_COUNTERS (debug lane) only the 2 node counters
	[ "$(cap_available pressure.events)" = yes ] && want_n=11 || want_n=2
	[ -z "$badv" ] && [ "${n:-0}" -ge "$want_n" ] && good=yes || good=no
	check "pressure: ${n:-0} vmstat totals within /proc/vmstat's bracket, delta = change since open / previous read on the same fd" \
		[ "$good" = yes ]
	[ -n "$badv" ] && echo "$badv" | sed 's/^/# /'
else
	fail "pressure: readtwice failed: $(cat "$T/rt.err")"
fi

# ---- zones against /proc/zoneinfo ----
cat /proc/zoneinfo > "$T/z1"
cat "$MI_DIR/pressure" > "$T/p"
cat /proc/zoneinfo > "$T/z2"
flat_zoneinfo "$T/z1" > "$T/f1"
flat_zoneinfo "$T/z2" > "$T/f2"
bad=$(awk -v tol="$FREE_ABS" '
	FILENAME ~ /f1$/ { lo[$1, $2] = $3; next }
	FILENAME ~ /f2$/ { hi[$1, $2] = $3; next }
	$1 == "zone" { v[$2, $3] = $4; zones[$2] = 1 }
	END {
		for (z in zones) {
			n++
			for (i = 1; i <= 3; i++) {
				w = i == 1 ? "min" : i == 2 ? "low" : "high"
				if (v[z, w] != lo[z, w] || v[z, w] != hi[z, w])
					print z " " w " " v[z, w] " zoneinfo " lo[z, w] "/" hi[z, w]
				if (v[z, w "_distance"] != v[z, "free"] - v[z, w])
					print z " " w "_distance " v[z, w "_distance"] " != free - " w
			}
			a = lo[z, "free"]; b = hi[z, "free"]
			if (a > b) { t = a; a = b; b = t }
			if (v[z, "free"] < a - tol || v[z, "free"] > b + tol)
				print z " free " v[z, "free"] " not in [" a ", " b "] +- " tol
		}
		for (k in lo) { split(k, p, SUBSEP); if (!(p[1] in zones)) print p[1] " missing" }
		if (!n) print "no zone records"
	}' "$T/f1" "$T/f2" "$T/p" | head -n 5)
check "pressure: per zone min/low/high equal /proc/zoneinfo, free within its bracket +-$FREE_ABS pages, distances = free - watermark${bad:+ ($bad)}" [ -z "$bad" ]

# ---- nodes: kswapd_failures against zoneinfo's node_unreclaimable ----
# node_unreclaimable is kswapd_failures >= MAX_RECLAIM_RETRIES (16)
bad=$(awk '
	FILENAME ~ /z1$/ && /^Node/ { n = $2; sub(/,/, "", n) }
	FILENAME ~ /z1$/ && $1 == "node_unreclaimable:" { u[n] = $2; next }
	FILENAME ~ /z1$/ { next }
	$1 == "node" && $3 == "kswapd_failures" { seen++; if (($4 >= 16) != (u[$2] + 0)) print "node " $2 " failures " $4 " unreclaimable " u[$2] }
	$1 == "node" && $3 == "kswapd_running" && $4 != 0 && $4 != 1 { print "node " $2 " running " $4 }
	END { if (!seen) print "no node records" }' "$T/z1" "$T/p")
check "pressure: per node kswapd_running is 0/1, kswapd_failures agrees with zoneinfo's node_unreclaimable${bad:+ ($bad)}" [ -z "$bad" ]

# ---- PSI against /proc/pressure/memory ----
if [ "$(cap_available pressure.psi)" != yes ]; then
	skip "pressure: psi" "$(cap_detail pressure.psi)"
	n=$(grep -c '^psi ' "$T/p")
	check "pressure: no psi records where PSI is unavailable ($n)" [ "$n" -eq 0 ]
else
	cat /proc/pressure/memory > "$T/m1"
	cat "$MI_DIR/pressure" > "$T/p"
	cat /proc/pressure/memory > "$T/m2"
	bad=$(awk -v tol="$PSI_AVG_TOL" '
		FILENAME ~ /m[12]$/ {
			r = FILENAME ~ /m1$/ ? 1 : 2
			for (i = 2; i <= NF; i++) {
				split($i, kv, "=")
				x = kv[2]
				if (kv[1] != "total") { sub(/\./, "", x); x += 0 }
				ref[r, $1 "_" kv[1]] = x
			}
			next
		}
		$1 == "psi" && $2 == "memory" {
			n++
			a = ref[1, $3]; b = ref[2, $3]
			if (a == "") { print $3 " not in /proc/pressure/memory"; next }
			t = $3 ~ /total/ ? 0 : tol
			if (a > b) { x = a; a = b; b = x }
			if ($4 < a - t || $4 > b + t)
				print $3 " " $4 " not in [" a ", " b "] +- " t
		}
		END { if (n != 8) print n " psi records, not 8" }' "$T/m1" "$T/m2" "$T/p" | head -n 5)
	check "pressure: psi some/full avg10/60/300 (+-$PSI_AVG_TOL centipercent) and totals (exact bracket) against /proc/pressure/memory${bad:+ ($bad)}" [ -z "$bad" ]
	# the totals' per-open deltas, as the vmstat counters': two reads of one
	# open file, each between two reads of /proc/pressure/memory (whose
	# psi_show() brings the totals the module reads up to date, so the
	# brackets are exact); the guest is idle here, so the deltas are
	# often 0: test_reader_pressure.sh shows them move under reclaim
	mkdir -p "$T/psi"
	if "$RT" "$MI_DIR/pressure" /proc/pressure/memory "$T/psi" 2> "$T/rt.err"; then
		bad=$(awk '
			FILENAME ~ /ref/ {
				f = FILENAME; sub(/.*\//, "", f)
				for (i = 2; i <= NF; i++) if ($i ~ /^total=/) { x = $i; sub(/^total=/, "", x); ref[f, $1 "_total"] = x + 0 }
				next
			}
			$1 == "psi" && $3 ~ /_total$/ {
				f = FILENAME; sub(/.*\//, "", f)
				val[f, $3] = $4; del[f, $3] = $5; names[$3] = 1
			}
			END {
				for (k in names) {
					n++
					for (r = 1; r <= 2; r++) {
						lo = ref["ref" r "a", k]; hi = ref["ref" r "b", k]
						if (lo == "" || val["r" r, k] < lo || val["r" r, k] > hi)
							print k " read " r ": " val["r" r, k] " not in [" lo ", " hi "]"
					}
					if (del["r2", k] != val["r2", k] - val["r1", k])
						print k " delta 2: " del["r2", k] " != " val["r2", k] " - " val["r1", k]
					d = del["r1", k]
					if (d < val["r1", k] - ref["ref1a", k] || d > val["r1", k] - ref["ref0", k])
						print k " delta 1: " d " not in [" val["r1", k] - ref["ref1a", k] ", " val["r1", k] - ref["ref0", k] "]"
				}
				if (n != 2) print n + 0 " psi totals, not 2"
			}' "$T/psi/ref0" "$T/psi/ref1a" "$T/psi/ref1b" "$T/psi/ref2a" "$T/psi/ref2b" "$T/psi/r1" "$T/psi/r2" | head -n 5)
		check "pressure: psi some_total/full_total within /proc/pressure/memory's bracket, delta = change since open / previous read on the same fd${bad:+ ($bad)}" [ -z "$bad" ]
	else
		fail "pressure: readtwice (psi) failed: $(cat "$T/rt.err")"
	fi
fi
