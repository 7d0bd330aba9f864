# SPDX-License-Identifier: GPL-2.0
# Helpers for the zones, buddy and fragmentation tests.  Sourced after
# lib.sh, never run.  Every table is turned into "KEY FIELD VALUE" lines
# ("flat" form), the kernel's files and ours alike, so one comparison
# (mm_compare) serves them all.  KEY is node/zone[/migratetype].

# mm_setup NAME: mi_setup NAME, and churn_pid (empty); at exit the churn,
# if one is running, is killed too
mm_setup()
{
	mi_setup "$1" churn_kill
	churn_pid=
}

churn_kill()
{
	[ -z "$churn_pid" ] || kill "$churn_pid" 2> /dev/null
}

# churn_start SECS MIB: progs/churn SECS MIB in the background (moving MIB
# MiB through the page allocator), its output in $T/churn.out, its state
# in $T/churn.state; $churn_pid.  Returns once churn runs (its signal
# handlers in place, so that churn_hold cannot kill it)
churn_start()
{
	rm -f "$T/churn.state"
	"$ST_DIR/progs/churn" "$1" "$2" "$T/churn.state" > "$T/churn.out" 2>&1 &
	churn_pid=$!
	churn_wait run
}

# churn_wait STATE: wait (up to 30 s) until churn's state file says STATE
churn_wait()
{
	_cw_n=0
	while [ "$_cw_n" -lt 600 ]; do
		_cw_s=
		[ -r "$T/churn.state" ] && read -r _cw_s < "$T/churn.state"
		[ "$_cw_s" = "$1" ] && return 0
		kill -0 "$churn_pid" 2>/dev/null || break
		mi_nap 0.05
		_cw_n=$((_cw_n + 1))
	done
	diag "churn: state '${_cw_s:-none}', not '$1' (pid $churn_pid)"
	return 1
}

# churn_hold, churn_release: around a bracketed reading under churn (see
# progs/churn.c: while held its anonymous memory only grows, so the kernel
# figures before and after the reading bracket it).  No-ops without churn;
# a churn that does not answer is a failed check
churn_hold()
{
	[ -n "$churn_pid" ] || return 0
	kill -USR1 "$churn_pid" 2>/dev/null
	churn_wait held || fail "churn held its mappings for a bracketed reading"
}

churn_release()
{
	[ -n "$churn_pid" ] || return 0
	kill -USR2 "$churn_pid" 2>/dev/null
	churn_wait run || fail "churn released its held mappings"
}

# churn_stop: stop the churn; ok if it ran and exits 0 on SIGTERM
churn_stop()
{
	kill "$churn_pid" 2>/dev/null
	wait "$churn_pid"
	_cs_rc=$?
	churn_pid=
	check "churn ran and stopped cleanly (status $_cs_rc)" [ "$_cs_rc" -eq 0 ]
}

# readers_start N READ ITEMS: N concurrent readers in the background, their
# pids added to $pids.  Reader K runs READ K ITEM for each of ITEMS (a
# status other than 0: a failed or incomplete read), round after round
# until $T/stop exists, then leaves "READS BAD" in $T/rK.
readers_start()
{
	rm -f "$T/stop"
	_rs_k=1
	while [ "$_rs_k" -le "$1" ]; do
		readers_loop "$_rs_k" "$2" "$3" &
		pids="$pids $!"
		_rs_k=$((_rs_k + 1))
	done
}

readers_loop()
{
	_rl_n=0 _rl_bad=0
	while [ ! -e "$T/stop" ]; do
		for _rl_item in $3; do
			"$2" "$1" "$_rl_item" || _rl_bad=$((_rl_bad + 1))
			_rl_n=$((_rl_n + 1))
		done
	done
	echo "$_rl_n $_rl_bad" > "$T/r$1"
}

# readers_stop N WHAT: stop the N readers (and wait for every pid of $pids);
# for each, ok if it read WHAT at least once and never badly
readers_stop()
{
	touch "$T/stop"
	for _p in $pids; do
		wait "$_p"
	done
	pids=
	_rs_k=1
	while [ "$_rs_k" -le "$1" ]; do
		if [ -r "$T/r$_rs_k" ]; then
			read -r _rs_n _rs_bad < "$T/r$_rs_k"
			check "reader $_rs_k: $_rs_n reads of $2, $_rs_bad failed or incomplete" \
				reads_good "$_rs_n" "$_rs_bad"
		else
			fail "reader $_rs_k reported nothing"
		fi
		_rs_k=$((_rs_k + 1))
	done
}

reads_good()
{
	[ "$1" -gt 0 ] && [ "$2" -eq 0 ]
}

# order_fields PREFIX BUDDYINFO: "PREFIX0 PREFIX1 ...", one per order the
# kernel has (the counts of a /proc/buddyinfo line)
order_fields()
{
	awk -v p="$1" '$1 == "Node" {
		for (i = 0; i < NF - 4; i++)
			printf "%s%s%d", i ? " " : "", p, i
		exit
	}' "$2"
}

# sums_by_order FLAT: "node/zone/type order_K N" -> "node/zone nr_free_K SUM"
sums_by_order()
{
	awk '$2 ~ /^order_/ {
		k = $1; sub(/\/[^\/]*$/, "", k)
		o = $2; sub(/^order_/, "nr_free_", o)
		if (!((k " " o) in s)) ord[++n] = k " " o
		s[k " " o] += $3
	} END { for (i = 1; i <= n; i++) print ord[i], s[ord[i]] }' "$1"
}

# buddy_snap: buddy between two reads of pagetypeinfo and buddyinfo; in $T:
# buddy (the file), ours (flat, with the per-order sums), r1 and r2 (flat
# references before and after)
buddy_snap()
{
	snap_files "$T/p1" /proc/pagetypeinfo "$T/b1" /proc/buddyinfo \
		"$T/buddy" "$MI_DIR/buddy" \
		"$T/p2" /proc/pagetypeinfo "$T/b2" /proc/buddyinfo
	flat_table "$T/buddy" 3 > "$T/ours.b"
	{ cat "$T/ours.b"; sums_by_order "$T/ours.b"; } > "$T/ours"
	{ flat_pagetypeinfo "$T/p1"; flat_buddyinfo "$T/b1"; } > "$T/r1"
	{ flat_pagetypeinfo "$T/p2"; flat_buddyinfo "$T/b2"; } > "$T/r2"
}

# extfrag_snap: fragmentation between two reads of debugfs extfrag/ (the
# kernel's unusable_index and extfrag_index); in $T: frag (the file), ours,
# r1 and r2 (flat, as buddy_snap)
EXTFRAG=$MI_DEBUGFS/extfrag
extfrag_snap()
{
	snap_files "$T/u1" "$EXTFRAG/unusable_index" "$T/e1" "$EXTFRAG/extfrag_index" \
		"$T/frag" "$MI_DIR/fragmentation" \
		"$T/u2" "$EXTFRAG/unusable_index" "$T/e2" "$EXTFRAG/extfrag_index"
	flat_table "$T/frag" 3 > "$T/ours"
	{ flat_extfrag "$T/u1" unusable_permille; flat_extfrag "$T/e1" extfrag_permille; } > "$T/r1"
	{ flat_extfrag "$T/u2" unusable_permille; flat_extfrag "$T/e2" extfrag_permille; } > "$T/r2"
}

# flat_zoneinfo FILE: per populated zone: start_pfn spanned present managed
# free min low high boost pcp (sum of the per-cpu counts) lowmem_reserve
# (the protection array, comma-separated)
flat_zoneinfo()
{
	awk '
	function flush() {
		if (key != "" && v["present"] > 0)
			for (f in v)
				print key, f, v[f]
		split("", v)
	}
	/^Node/ {
		flush()
		n = $2; sub(/,/, "", n)
		key = n "/" $4
		v["pcp"] = 0
		next
	}
	$1 == "pages" && $2 == "free" { v["free"] = $3; next }
	$1 == "min" || $1 == "low" || $1 == "high" || $1 == "boost" ||
	$1 == "spanned" || $1 == "present" || $1 == "managed" {
		if (NF == 2)
			v[$1] = $2
		next
	}
	$1 == "start_pfn:" { v["start_pfn"] = $2; next }
	$1 == "count:" { v["pcp"] += $2; next }
	$1 == "protection:" {
		s = $0
		sub(/.*\(/, "", s); sub(/\).*/, "", s); gsub(/ /, "", s)
		v["lowmem_reserve"] = s
		next
	}
	END { flush() }' "$1"
}

# flat_buddyinfo FILE: "node/zone nr_free_K COUNT" and "node/zone total_K"
flat_buddyinfo()
{
	awk '$1 == "Node" {
		n = $2; sub(/,/, "", n)
		for (i = 5; i <= NF; i++)
			print n "/" $4, "nr_free_" (i - 5), $i
	}' "$1"
}

# flat_pagetypeinfo FILE: "node/zone/type order_K COUNT" (">100000" kept
# as is) and "node/zone/type pageblocks N"
flat_pagetypeinfo()
{
	awk '
	/^Free pages count/ { sect = 1; next }
	/^Number of blocks type/ {
		sect = 2
		for (i = 5; i <= NF; i++)
			types[i - 4] = $i
		ntypes = NF - 4
		next
	}
	/^Node/ && sect == 1 {
		n = $2; sub(/,/, "", n); z = $4; sub(/,/, "", z)
		for (i = 7; i <= NF; i++)
			print n "/" z "/" $6, "order_" (i - 7), $i
		next
	}
	/^Node/ && sect == 2 {
		n = $2; sub(/,/, "", n)
		for (i = 1; i <= ntypes; i++)
			print n "/" $4 "/" types[i], "pageblocks", $(i + 4)
	}' "$1"
}

# flat_table FILE NKEYS: a meminspect table; the first NKEYS values of a
# record make its KEY, every other field is printed.  Notes are skipped.
flat_table()
{
	awk -v nk="$2" '
	NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; next }
	/^#/ { next }
	{
		key = $1
		for (i = 2; i <= nk; i++)
			key = key "/" $i
		for (i = nk + 1; i <= NF; i++)
			print key, h[i], $i
	}' "$1"
}

# mm_compare OURS REF1 REF2 SPECS: for every "KEY FIELD" of OURS whose FIELD
# matches a spec, print "FIELD KEY GOT LO HI TOL STATUS".  A spec is
# REGEX:ABS:PCT (tolerance = max(ABS, PCT % of the reference)) or
# REGEX:same (the value must equal REF1 and REF2, as a string).  The first
# spec that matches a field decides.  STATUS: ok, miss, noref (KEY FIELD
# missing from a reference), capped (a reference says ">N": not compared),
# absent (KEY FIELD in both references, missing from OURS: a table with
# rows left out, or its header alone, must not pass by having less to walk).
mm_compare()
{
	awk -v specs="$4" '
	FILENAME == ARGV[1] { o[$1 " " $2] = $3; ord[++n] = $1 " " $2; next }
	FILENAME == ARGV[2] { a[$1 " " $2] = $3; aord[++na] = $1 " " $2; next }
	FILENAME == ARGV[3] { b[$1 " " $2] = $3; next }
	END {
		ns = split(specs, sp, " ")
		for (i = 1; i <= na; i++) {
			k = aord[i]
			if ((k in o) || !(k in b))
				continue
			split(k, kf, " ")
			for (j = 1; j <= ns; j++) {
				split(sp[j], p, ":")
				if (kf[2] ~ ("^" p[1] "$"))
					break
			}
			if (j <= ns)
				print kf[2], kf[1], "-", a[k], b[k], 0, "absent"
		}
		for (i = 1; i <= n; i++) {
			k = ord[i]; split(k, kf, " ")
			for (j = 1; j <= ns; j++) {
				split(sp[j], p, ":")
				if (kf[2] ~ ("^" p[1] "$"))
					break
			}
			if (j > ns)
				continue
			got = o[k]
			if (!(k in a) || !(k in b)) {
				print kf[2], kf[1], got, "?", "?", 0, "noref"
				continue
			}
			if (p[2] == "same") {
				st = got == a[k] && got == b[k] ? "ok" : "miss"
				print kf[2], kf[1], got, a[k], b[k], 0, st
				continue
			}
			if (a[k] ~ /^>/ || b[k] ~ /^>/) {
				print kf[2], kf[1], got, a[k], b[k], 0, "capped"
				continue
			}
			lo = a[k] + 0; hi = b[k] + 0
			if (lo > hi) { t = lo; lo = hi; hi = t }
			tol = int(hi * p[3] / 100)
			if (tol < p[2] + 0)
				tol = p[2] + 0
			st = got !~ /^-?[0-9]+$/ ? "miss" : \
			     (got + 0 >= lo - tol && got + 0 <= hi + tol) ? "ok" : "miss"
			print kf[2], kf[1], got, lo, hi, tol, st
		}
	}' "$1" "$2" "$3"
}

# mm_report PHASE RESULTS: one line per field group of a mm_compare result
# file (order_0..order_10 and nr_free_0..nr_free_10 are one group each):
# "OK PHASE: GROUP: ..." when every compared value passed, else "FAIL ..."
# followed by up to 8 misses as "#" lines.  emit_report makes them TAP.
mm_report()
{
	awk -v phase="$1" '
	{
		g = $1
		sub(/_[0-9]+$/, "_N", g)
		if (!(g in seen)) { seen[g] = 1; order[++n] = g }
		if ($7 == "ok") {
			good[g]++
		} else if ($7 == "capped") {
			capped[g]++
		} else {
			if (++bad[g] <= 8)
				msg[g] = msg[g] sprintf("#   %s %s: got %s, reference [%s, %s], tolerance %s (%s)\n", $2, $1, $3, $4, $5, $6, $7)
		}
	}
	END {
		for (i = 1; i <= n; i++) {
			g = order[i]
			c = capped[g] ? sprintf(" (%d capped by the kernel, not compared)", capped[g]) : ""
			if (bad[g])
				printf "FAIL %s: %s: %d of %d values outside the reference%s\n%s", phase, g, bad[g], bad[g] + good[g], c, msg[g]
			else
				printf "OK %s: %s: %d values within the reference%s\n", phase, g, good[g], c
		}
	}' "$2"
}

# emit_report FILE: turn mm_report output into TAP lines
emit_report()
{
	while IFS= read -r _l; do
		case $_l in
		"OK "*) ok "${_l#OK }" ;;
		"FAIL "*) fail "${_l#FAIL }" ;;
		*) echo "$_l" ;;
		esac
	done < "$1"
}

# walk_stat FILE NAME: a figure of the "# walk:" note of buddy/fragmentation,
# printed (walk_note and walk_get, below, for several figures of one note)
walk_stat()
{
	walk_note "$1" && walk_get "$2" && printf '%s\n' "$WV"
}

# walk_note FILE: the "# walk:" note of buddy/fragmentation in $WALK_NOTE, read
# once (one process) for walk_get's lookups; fails where FILE has none
walk_note()
{
	WALK_NOTE=$(awk '$1 == "#" && $2 == "walk:" { print; f = 1; exit }
		END { exit !f }' "$1")
}

# walk_get NAME: a figure of $WALK_NOTE in $WV, found by the shell (no process:
# under KASAN each costs the debug guest ~0.05 s, and a note has nine)
walk_get()
{
	_wg_k=$1 WV=
	set -f
	# shellcheck disable=SC2086 # the note's words, "# walk:" and then NAME VALUE pairs
	set -- $WALK_NOTE
	set +f
	[ $# -ge 2 ] && shift 2
	while [ $# -ge 2 ]; do
		# shellcheck disable=SC2034 # the answer, for walk_get's callers
		[ "$1" = "$_wg_k" ] && WV=$2 && return 0
		shift 2
	done
	return 1
}

# zoneinfo_walk SECTION_PFNS: what a walk of every populated zone visits, by
# /proc/zoneinfo (zones with present > 0): "NODES ZONES SECTIONS PFNS", the
# nodes that have such a zone, the zones, the memory sections of
# SECTION_PFNS pfns their spans touch and their spanned pfns
zoneinfo_walk()
{
	awk -v sp="$1" '
		/^Node / { node = $2; sub(/,/, "", node); present = 0; spanned = 0; next }
		$1 == "spanned" { spanned = $2 }
		$1 == "present" { present = $2 }
		$1 == "start_pfn:" && present > 0 {
			z++; nodes[node] = 1; pfns += spanned
			if (sp > 0)
				s += int(($2 + spanned - 1) / sp) - int($2 / sp) + 1
		}
		END { for (n in nodes) nn++; print nn + 0, z + 0, s + 0, pfns + 0 }' /proc/zoneinfo
}

# walk_figures FILE NAME...: those figures of FILE's "# walk:" note, one line,
# "-" for one it lacks; "no walk note" where FILE has none
walk_figures()
{
	_wf_f=$1
	shift
	if ! walk_note "$_wf_f"; then
		echo "no walk note"
		return
	fi
	_wf=
	for _wf_k; do
		walk_get "$_wf_k" || WV=-
		_wf="$_wf${_wf:+ }$WV"
	done
	echo "$_wf"
}

# read_small FILE OUT: FILE read 64 bytes per read() (busybox dd): seq_file
# then shows each record in a read() of its own, the rest of its text
# served from its buffer by the next ones
read_small()
{
	dd if="$1" of="$2" bs=64 2> "$2.err"
}

# mm_phase PHASE ROUNDS SNAP SPECS: run SNAP (a function that leaves the
# flat files $T/ours, $T/r1 and $T/r2: ours, the reference before, the
# reference after) and compare, up to ROUNDS times while a value misses; a
# value that passed in any round counts as passed (a burst of activity
# between two reads is not a bug), the others are reported from the last
# round.  One TAP line per field group.
mm_phase()
{
	_phase=$1 _rounds=$2 _snap=$3 _specs=$4
	: > "$T/best"
	_r=1
	while :; do
		churn_hold
		$_snap
		churn_release
		mm_compare "$T/ours" "$T/r1" "$T/r2" "$_specs" > "$T/cmp"
		awk '
		{ k = $1 " " $2 }
		FILENAME == ARGV[1] { best[k] = $0; st[k] = $7; ord[++n] = k; next }
		{
			if (!(k in st)) { ord[++n] = k; st[k] = "" }
			if (st[k] != "ok") { best[k] = $0; st[k] = $7 }
		}
		END { for (i = 1; i <= n; i++) print best[ord[i]] }' \
			"$T/best" "$T/cmp" > "$T/best.new"
		mv "$T/best.new" "$T/best"
		grep -qE ' (miss|noref|absent)$' "$T/best" || break
		[ "$_r" -ge "$_rounds" ] && break
		_r=$((_r + 1))
	done
	diag "$_phase: compared in $_r round(s) of at most $_rounds"
	if [ ! -s "$T/best" ]; then
		fail "$_phase: values compared (none: no row of ours or of the reference has a field of '$_specs')"
		return
	fi
	mm_report "$_phase" "$T/best" > "$T/report"
	emit_report "$T/report"
}

# frag_from_buddyinfo FILE: the fragmentation figures recomputed from
# /proc/buddyinfo with the kernel's formulas (mm/vmstat.c:
# fill_contig_page_info, unusable_free_index, __fragmentation_index), as
# "node/zone/order FIELD VALUE"
frag_from_buddyinfo()
{
	# busybox awk has no "^": powers of two by doubling
	awk 'BEGIN { p2[0] = 1; for (k = 1; k < 64; k++) p2[k] = p2[k - 1] * 2 }
	$1 == "Node" {
		nd = $2; sub(/,/, "", nd)
		no = NF - 4
		for (k = 0; k < no; k++)
			c[k] = $(k + 5)
		for (o = 0; o < no; o++) {
			total = pages = suit = ge = 0
			for (k = 0; k < no; k++) {
				total += c[k]
				pages += c[k] * p2[k]
				if (k >= o) {
					suit += c[k] * p2[k - o]
					ge += c[k]
				}
			}
			if (pages == 0)
				un = 1000
			else
				un = int((pages - suit * p2[o]) * 1000 / pages)
			if (total == 0)
				ex = 0
			else if (suit > 0)
				ex = -1000
			else
				ex = 1000 - int((1000 + int(pages * 1000 / p2[o])) / total)
			key = nd "/" $4 "/" o
			printf "%s free_blocks %d\n%s avail_blocks %d\n", key, ge, key, suit
			printf "%s unusable_permille %d\n%s extfrag_permille %d\n", key, un, key, ex
		}
	}' "$1"
}

# flat_extfrag FILE FIELD: debugfs extfrag/unusable_index or extfrag_index
# ("Node 0, zone DMA 0.000 -1.000 ...") as "node/zone/order FIELD PERMILLE"
#
# The kernel prints index / 1000 "." index % 1000 as %03d. busybox awk (the
# guest's) reads a string with a leading 0 and digits 0-7 only as octal:
# "061" + 0 is 49, "012" + 0 is 10 (busybox's my_strtod; "009" falls back
# to decimal). So the thousandths lose their leading zeros before they are
# used as a number. Read as octal, 0.061 became 49: the 6.12-rt lane's
# "61 against [49, 49]" at DMA32 order 10 (and 67 against 55), where the
# module and the kernel agreed; smaller values missed by less than the
# tolerance, so it passed alone and on the other lanes.
flat_extfrag()
{
	awk -v f="$2" '$1 == "Node" {
		nd = $2; sub(/,/, "", nd)
		for (i = 5; i <= NF; i++) {
			v = $i; neg = sub(/^-/, "", v)
			split(v, p, ".")
			sub(/^0+/, "", p[1]); sub(/^0+/, "", p[2])
			pm = (p[1] == "" ? 0 : p[1]) * 1000 + (p[2] == "" ? 0 : p[2])
			print nd "/" $4 "/" (i - 5), f, neg ? -pm : pm
		}
	}' "$1"
}

# types_from_pagetypeinfo FILE: fragmentation_types recomputed from
# /proc/pagetypeinfo's free counts: "node/zone/order avail_TYPE VALUE" per
# migratetype (lower case) and "node/zone/order avail_blocks SUM".  A list
# pagetypeinfo caps (">100000") makes every figure it enters ">": not
# compared (mm_compare's "capped").
types_from_pagetypeinfo()
{
	awk 'BEGIN { p2[0] = 1; for (k = 1; k < 64; k++) p2[k] = p2[k - 1] * 2 }
	/^Free pages count/ { sect = 1; next }
	/^Number of blocks type/ { sect = 2; next }
	/^Node/ && sect == 1 {
		nd = $2; sub(/,/, "", nd); z = $4; sub(/,/, "", z)
		no = NF - 6
		for (o = 0; o < no; o++) {
			key = nd "/" z "/" o
			if (!(key in seen)) { seen[key] = 1; keys[++n] = key }
			v = 0; capped = 0
			for (k = o; k < no; k++) {
				c = $(k + 7)
				if (c ~ /^>/) capped = 1
				v += c * p2[k - o]
			}
			t = "avail_" tolower($6)
			val[key, t] = capped ? ">" v : v
			if (!((key, t) in tseen)) { tseen[key, t] = 1; types[key] = types[key] " " t }
			if (capped) cap[key] = 1
			sum[key] += v
		}
	}
	END {
		for (i = 1; i <= n; i++) {
			key = keys[i]
			m = split(types[key], tl, " ")
			for (j = 1; j <= m; j++)
				print key, tl[j], val[key, tl[j]]
			print key, "avail_blocks", (key in cap) ? ">" sum[key] : sum[key]
		}
	}' "$1"
}
