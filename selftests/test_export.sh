#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# meminspect export --prometheus: every figure of the module's files is a
# metric with the file's value (sizes in bytes), the textfile is written
# atomically, and the reader's JSON and Prometheus output are handed to the
# host (lines "MI-FILEZ NAME BASE64", gzipped), where scripts/export-check runs jq,
# promtool and a real node_exporter on them.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

T=$(mi_tmpdir export) || exit 1
cleanup()
{
	[ -n "${wpid:-}" ] && kill "$wpid" 2> /dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

require_file "$MI_DIR/summary"
require_file "$MI_DIR/capabilities"

# run_reader DESC CMD...: the reader exits 0, output in $T/out
run_reader()
{
	_d=$1
	shift
	"$@" > "$T/out" 2> "$T/err"
	_rc=$?
	if [ "$_rc" -eq 0 ]; then
		ok "$_d: exit status 0"
	else
		fail "$_d: exit status 0"
		diag "exit status $_rc; stderr: $(head -c 400 "$T/err" | tr '\n' ' ')"
	fi
}

# emit NAME FILE: hand FILE to the host as NAME, gzipped and in base64 ("MI-FILEZ NAME
# LINE" lines). The files are ~2.3 MB of JSON and Prometheus text per kernel, and the x86
# guests' output is an emulated 16550: a port write per byte in the guest and a write(2) per
# byte from QEMU. Sent as text they took ~5 s of the guest's time; compressed a tenth of the
# bytes go over the wire.
emit()
{
	gzip -c "$2" | base64 | sed "s/^/MI-FILEZ $1 /"
}

# sample FILE METRIC: the value of the sample METRIC (name with labels, as
# written); fails if there is none
sample()
{
	awk -v m="$2" '$1 == m { print $2; f = 1; exit } END { exit !f }' "$1"
}

# ---- exact: a frozen copy of the files, exported --------------------------

mkdir "$T/snap"
cat "$MI_DIR/summary" > "$T/snap/summary"
cat "$MI_DIR/capabilities" > "$T/snap/capabilities"
# only the two files copied: the copy's capabilities must not name others,
# nor the fault/, latency/ and allocs/ directories (mechanism rows whose
# tables export reads)
awk 'NR == 1 || ($2 != "file" && $1 != "fault" && $1 != "latency" && $1 != "allocs") ||
	$1 == "summary" || $1 == "capabilities"' \
	"$T/snap/capabilities" > "$T/caps" && mv "$T/caps" "$T/snap/capabilities"
run_reader "export --prometheus of a copy" \
	"$MI_READER" --dir "$T/snap" export --prometheus
mv "$T/out" "$T/snap.prom"

# Every summary figure: meminspect_FIELD[_bytes|_pages] with the value
# (kB times 1024), and no sample at all for "-".
bad=$(awk 'NR == FNR {
		if ($1 !~ /^#/)
			v[$1] = $2
		next
	}
	FNR == 1 || /^#/ { next }
	{
		name = "meminspect_" $1
		# export.c renames it: promtool reads "sec" as seconds
		if ($1 == "sec_page_tables")
			name = "meminspect_secondary_page_tables"
		want = $2
		if ($3 == "kB") {
			name = name "_bytes"
			if (want != "-")
				want = want * 1024
		} else if ($3 == "pages") {
			name = name "_pages"
		}
		if (want == "-") {
			if (name in v)
				printf "%s: sample %s for \"-\"; ", $1, v[name]
		} else if (!(name in v)) {
			printf "%s: no %s; ", $1, name
		} else if (v[name] + 0 != want + 0) {
			printf "%s: %s is %s, want %s; ", $1, name, v[name], want
		}
		n++
	}
	END { if (!n) print "no summary records" }' "$T/snap.prom" "$T/snap/summary")
if [ -z "$bad" ]; then
	ok "export: every summary figure is a metric with its value in bytes, none for '-'"
else
	fail "export: every summary figure is a metric with its value in bytes, none for '-'"
	diag "$bad"
fi

# capabilities: one sample per record, 1 for yes, 0 for no
bad=$(awk 'NR == FNR {
		if ($1 ~ /^meminspect_capabilities_available\{/)
			v[$1] = $2
		next
	}
	FNR == 1 || /^#/ { next }
	{
		key = "meminspect_capabilities_available{name=\"" $1 "\",kind=\"" $2 "\"}"
		want = $3 == "yes" ? 1 : 0
		if (!(key in v))
			printf "%s: no sample; ", $1
		else if (v[key] != want)
			printf "%s: %s, want %s; ", $1, v[key], want
		n++
		delete v[key]
	}
	END { for (k in v) printf "extra %s; ", k }' "$T/snap.prom" "$T/snap/capabilities")
if [ -z "$bad" ]; then
	ok "export: one capabilities sample per row, 1 for yes and 0 for no"
else
	fail "export: one capabilities sample per row, 1 for yes and 0 for no"
	diag "$bad"
fi

# ---- live: the textfile, against the kernel's own counters -----------------

mkdir "$T/tf"
run_reader "export --prometheus --textfile-dir" \
	"$MI_READER" export --prometheus --textfile-dir "$T/tf"
P=$T/tf/meminspect.prom
check "textfile: $P written" [ -s "$P" ]
left=$(ls -A "$T/tf" | grep -v '^meminspect\.prom$')
check "textfile: no temporary file left behind" [ -z "$left" ]
mode=$(stat -c %a "$P" 2> /dev/null)
check "textfile: mode 644 (node_exporter need not run as root)" [ "$mode" = 644 ]
check "textfile: meminspect_up is 1" [ "$(sample "$P" meminspect_up)" = 1 ]
for f in $(awk 'NR > 1 && $2 == "file" && $3 == "yes" { print $1 }' "$MI_DIR/capabilities"); do
	v=$(sample "$P" "meminspect_file_ok{file=\"$f\"}")
	if [ "$v" = 1 ]; then
		ok "textfile: file $f exported (meminspect_file_ok 1)"
	else
		fail "textfile: file $f exported (meminspect_file_ok 1)"
		diag "meminspect_file_ok{file=\"$f\"} is '$v'; stderr: $(head -c 300 "$T/err")"
	fi
done

# Figures that cannot move, against /proc/meminfo itself; one whose summary
# field capabilities calls unavailable ("-": 6.1-arm64's hugepage rows, its
# kallsyms lists no variables) must have no sample.
for pair in mem_total_bytes:MemTotal hugepage_size_bytes:Hugepagesize:hugepage_size; do
	m=meminspect_${pair%%:*} k=${pair#*:} row=${pair##*:}
	k=${k%%:*}
	want=$(meminfo "$k") || { skip "textfile: $m" "no $k in /proc/meminfo"; continue; }
	got=$(sample "$P" "$m")
	if [ "$row" != "$k" ] && [ "$(cap_available "summary.$row")" = no ]; then
		check "textfile: no $m sample (summary.$row unavailable: $(cap_detail "summary.$row"))" \
			[ -z "$got" ]
		continue
	fi
	if [ -n "$got" ] && [ "$got" = "$((want * 1024))" ]; then
		ok "textfile: $m is $k ($want kB) * 1024"
	else
		fail "textfile: $m is $k ($want kB) * 1024"
		diag "got '$got'"
	fi
done

# ---- files of one process: mm and vmas are never exported; procs per pid ------

# Read without a written pid they show the reader itself: with or without
# --per-pid no sample of theirs (docs/export.md); no pid label without
# --per-pid, and with it only procs' (every process, pid a label).
for pp in "" --per-pid; do
	w=${pp:-(no --per-pid)}
	run_reader "export --prometheus $w" "$MI_READER" export --prometheus $pp
	for f in mm vmas; do
		if ! awk -v f="$f" 'NR > 1 && $1 == f && $2 == "file" && $3 == "yes" { y = 1 }
		     END { exit !y }' "$MI_DIR/capabilities"; then
			skip "export $w: $f left out" "$f not available on this kernel"
			continue
		fi
		check "export $w: $f left out, with a comment" \
			grep -q "^# meminspect: $f left out: " "$T/out"
	done
	check "export $w: no mm/vmas sample" \
		sh -c "! grep -Eq '^meminspect_(mm|vmas)_' '$T/out'"
	if [ -z "$pp" ]; then
		check "export $w: no pid label" sh -c "! grep -q 'pid=' '$T/out'"
	elif [ "$(cap_available procs_pids)" = yes ]; then
		# procs: every process's rollup, one family per figure, pid a label
		n=$(grep -c '^meminspect_procs_pss_bytes{pid="[0-9]*"} [0-9]' "$T/out")
		others=$(grep 'pid=' "$T/out" | grep -v '^meminspect_procs_' | head -n 3)
		check "export $w: procs' figures per pid ($n processes), pid labels on nothing else" \
			sh -c "[ '$n' -gt 2 ] && [ -z '$others' ] && grep -q '^meminspect_procs_pss_bytes{pid=\"1\"} ' '$T/out'"
	else
		check "export $w: no pid label (no procs here: $(cap_detail procs_pids))" \
			sh -c "! grep -q 'pid=' '$T/out'"
	fi
	[ -n "$pp" ] && cp "$T/out" "$T/per-pid.prom"
done

# ---- atomic replacement under --watch ---------------------------------------

# A writer rewrites the file every second while a reader reads it: every
# read sees one whole file (first and last families present), never a
# truncated or empty one.
"$MI_READER" export --prometheus --textfile-dir "$T/tf" --watch 1 --count 4 \
	> /dev/null 2> "$T/werr" &
wpid=$!
reads=0 torn=0
while kill -0 "$wpid" 2> /dev/null && [ $reads -lt 2000 ]; do
	cat "$P" > "$T/read" 2> /dev/null
	reads=$((reads + 1))
	head -n 1 "$T/read" | grep -q '^# HELP meminspect_up ' &&
		tail -n 1 "$T/read" | grep -q '^meminspect_file_ok{' || torn=$((torn + 1))
done
wait "$wpid"
wrc=$?
wpid=
check "export --watch 1 --count 4: exit status 0" [ "$wrc" -eq 0 ]
if [ $torn -eq 0 ] && [ $reads -gt 0 ]; then
	ok "textfile under --watch: $reads reads, every one a whole file"
else
	fail "textfile under --watch: $reads reads, every one a whole file"
	diag "$torn torn reads"
fi
left=$(ls -A "$T/tf" | grep -v '^meminspect\.prom$')
check "textfile under --watch: no temporary file left behind" [ -z "$left" ]

# ---- for the host: jq, promtool, node_exporter -------------------------------
# once a run: test_zzz_lockdown.sh runs this file again at integrity, and emit appends
# (scripts/export-check would read two exports as one, every metric's HELP twice)
[ -z "${MI_LOCKDOWN_PASS:-}" ] || exit 0

emit export.prom "$P"
emit export-per-pid.prom "$T/per-pid.prom"
for cmd in summary capabilities report; do
	run_reader "$cmd --json" "$MI_READER" "$cmd" --json
	emit "$cmd.json" "$T/out"
done
run_reader "export --json" "$MI_READER" export --json
emit export.json "$T/out"
run_reader "summary --json --watch 1 --count 2" \
	"$MI_READER" summary --json --watch 1 --count 2
emit summary-watch.json "$T/out"
exit 0
