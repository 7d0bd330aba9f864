#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side tests of the meminspect reader: parser, formatters, CLI and exit
# statuses, on fixture files. Prints TAP; exits non-zero if any test fails.
set -u

here=$(cd "$(dirname "$0")" && pwd)
M=$here/../meminspect
P=$here/mi_probe
FX=$here/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The host's own /sys must not leak into the tests: an empty fake sysfs.
mkdir -p "$tmp/sys/kernel/debug"
export MEMINSPECT_SYSFS=$tmp/sys
unset MEMINSPECT_DIR

# the one TAP writer (selftests/tap.sh); the names these tests use for it
. "$here/../../selftests/tap.sh"
tap_open
ok() { tap_result "$@"; }	# STATUS DESCRIPTION [DIAGNOSTIC]
is() { tap_is "$@"; }		# DESCRIPTION WANT GOT
has() { tap_has "$@"; }		# DESCRIPTION NEEDLE HAYSTACK
skip() { tap_skip "$@"; }	# DESCRIPTION REASON
# lacks DESCRIPTION REGEX TEXT: no line of TEXT matches REGEX (else the first three do, as diagnostic)
lacks() { ok "$(grep -c -e "$2" <<<"$3")" "$1" "$(grep -m3 -e "$2" <<<"$3")"; }

# wait_grep REGEX FILE: until FILE has a line matching REGEX, 10 s at most
# (a --watch reader's first round is out)
wait_grep() {
	local i=0
	until grep -qs "$1" "$2" || [ $i -ge 500 ]; do sleep 0.02; i=$((i + 1)); done
}
# bg_reader OUT ERR ARGS...: the reader with ARGS in the background, stdout to
# OUT and stderr to ERR (ERR may be OUT), its pid in wpid.  OUT and ERR are
# removed first: the redirection happens in the background child, maybe after
# the caller's first wait_grep, which must not find the last reader's output
# there (stop 28's CI: the JSON zones test found the text one's 230972, made
# its edit before the new reader's first read, and saw no change).
bg_reader() {
	local o=$1 e=$2
	shift 2
	rm -f "$o" "$e"
	if [ "$o" = "$e" ]; then
		"$M" "$@" >"$o" 2>&1 &
	else
		"$M" "$@" >"$o" 2>"$e" &
	fi
	wpid=$!
}

# part FILE: the tests of FILE, sourced. A syntax error there would end the run where it
# stands, with every test so far passed and nothing failed: check the file first.
part() {
	if bash -n "$1" 2>"$tmp/syntax"; then
		. "$1"
	else
		tap_fail "$(basename "$1") parses (bash -n)" "$(cat "$tmp/syntax")"
	fi
}

# run CMD...: sets out, err, rc
run() {
	out=$("$@" 2>"$tmp/stderr")
	rc=$?
	err=$(<"$tmp/stderr")
}

# jq: with -e, no output at all (empty input: the reader printed nothing) is a
# failure. jq 1.6 (Debian 12) exits 0 then, so a check of a command that
# printed nothing would pass.
jq() {
	local o rc
	case " $* " in *" -e "*) ;; *) command jq "$@"; return ;; esac
	o=$(command jq "$@")
	rc=$?
	if [ -z "$o" ]; then
		echo "jq -e: no output (empty input)" >&2
		return 1
	fi
	printf '%s\n' "$o"
	return $rc
}

# promtool_ok DESCRIPTION INPUT ARGS...: `promtool ARGS <<<INPUT` exits 0 and,
# for `check metrics`, says nothing; a skip where the host has no promtool
promtool_ok() {
	local desc=$1 in=$2
	shift 2
	command -v promtool >/dev/null || { skip "$desc" "no promtool (Debian package prometheus)"; return; }
	run promtool "$@" <<<"$in"
	if [ "$*" = "check metrics" ]; then is "$desc" "0 " "$rc $out$err"; else is "$desc" 0 "$rc"; fi
}

# ---- integer helpers ----

for c in "s64 123:123" "s64 -5:-5" "s64 0:0" \
	"s64 9223372036854775807:9223372036854775807" "s64 -9223372036854775808:-9223372036854775808" \
	"s64 9223372036854775808:ERANGE" "s64 :EINVAL" "s64 -:EINVAL" "s64 +1:EINVAL" \
	"s64  1:EINVAL" "s64 1x:EINVAL" "s64 0x10:EINVAL" "s64 1 :EINVAL" \
	"u64 18446744073709551615:18446744073709551615" "u64 18446744073709551616:ERANGE" \
	"u64 -1:EINVAL"; do
	kind=${c%% *} rest=${c#* } arg=${rest%:*} want=${rest##*:}
	run "$P" "$kind" "$arg"
	is "$kind '$arg' -> $want" "$want" "$out"
done

# ---- parser: good files ----

run "$P" parse "$FX/module/summary"
is "summary parses: header, records with line numbers, '-' kept" \
"fields: field|value|unit
2: mem_total|2014232|kB
3: mem_free|1800000|kB
4: highest_free_order|10|order
5: hugepages_total|0|pages
6: unaccounted|-|kB" "$out"

run "$P" parse "$FX/module/capabilities"
has "last value runs to end of line" \
	"8: ksyms|mechanism|yes|kprobe on kallsyms_lookup_name, IBT adjusted (-4)" "$out"
has "last value keeps quotes and backslash verbatim" \
	'7: summary.hugetlb|field|no|hugetlb "disabled" in this kernel\ (CONFIG_HUGETLB_PAGE=n)' "$out"

run "$P" parse "$FX/parse/notes"
is "notes kept aside, not records" \
"fields: a|b
3: 1|x
5: 2|y z
note: first note
note: second note, no space" "$out"

run "$P" parse "$FX/parse/header_only"
is "header-only file is an empty table" "fields: node|zone|managed_kb|free_kb" "$out"

run "$P" parse "$FX/parse/one_column"
is "one-column table: the value is the whole line" \
	$'fields: name\n2: only value with spaces' "$out"

# ---- parser: malformed files are errors, never crashes ----

printf 'field value unit\nmem\0total 1 kB\n' >"$tmp/nul_byte"
for c in "too_few_values:too_few_values:2: record has 2 values, header has 3 fields" \
	"empty_header:empty_header:1: empty header line" \
	"empty_file:empty_file: empty file, expected a header line" \
	"bad_name:bad_name:1: bad field name 'Value'" \
	"double_space_header:double_space_header:1: bad field name ''" \
	"no_final_newline:no_final_newline: no newline at end of file" \
	"note_first:note_first:1: expected the header line, found a note" \
	"duplicate_field:duplicate_field:1: duplicate field name 'field'" \
	"empty_value:empty_value:2: empty value for field 'value'" \
	"empty_last_value:empty_last_value:2: empty value for field 'unit'" \
	"empty_line:empty_line:2: record has 1 value, header has 3 fields"; do
	file=${c%%:*} msg=${c#*:}
	run "$P" parse "$FX/bad/$file"
	is "malformed $file: exit 1" 1 "$rc"
	has "malformed $file: message" "$msg" "$err"
done
run "$P" parse "$tmp/nul_byte"
is "NUL byte: exit 1" 1 "$rc"
has "NUL byte: message" "NUL byte in file" "$err"
run "$P" parse "$tmp/absent"
has "missing file: errno kept for the caller" "No such file or directory (errno 2)" "$err"

# ---- table builder (the reader's own views: sorted, cut, N(+D)) ----

run "$P" build a=1 b=3 c=1 d=3 e=2
is "builder: sort is stable and descending, decorations, note kept" \
	"fields: key|n|text
0: b|3(+0)|row 1
0: d|3(+1)|row 3
0: e|2(+2)|row 4
0: a|1(+3)|row 0
0: c|1(+4)|row 2
note: 5 rows" "$out"
run "$P" build a=1 bad-value c=2
is "builder: a space in a value that is not the last is refused (-EINVAL), and it sticks" \
	"1 error -22" "$rc $out"
run "$P" build
is "builder: no records: header and note only" "fields: key|n|text
note: 0 rows" "$out"

# ---- one format, two readers: the selftests' lookup agrees with this parser ----
# selftests/lib.sh's mi_lookup, run by busybox sh and awk as in the guest, against mi_probe's
# parse of the same files (real guests' files, captured): every column of the first record of
# each key (mi_lookup answers the first match), 8 keys per file.
lib=$(cd "$here/../../selftests" && pwd)/lib.sh
: >"$tmp/queries"
: >"$tmp/want"
for f in "$FX"/module/* "$FX"/procmem/* "$FX"/procs/* "$FX"/slabs/* "$FX"/fault/* "$FX"/mm/* "$FX"/cgroups/* "$FX"/parse/notes; do
	"$P" parse "$f" >"$tmp/parsed" || continue
	awk -v file="$f" -v q="$tmp/queries" -v w="$tmp/want" '
	NR == 1 { sub(/^fields: /, ""); nf = split($0, name, "|"); next }
	/^note: / { next }
	{
		sub(/^[0-9]+: /, "")
		n = split($0, v, "|")
		if (n != nf || (v[1] in seen) || keys >= 8)
			next
		seen[v[1]] = 1
		keys++
		for (i = 1; i <= nf; i++) {
			print file " " v[1] " " name[i] >> q
			print v[i] >> w
		}
	}' "$tmp/parsed"
done
if ! command -v busybox >/dev/null; then
	# before scripts/setup on a fresh machine: say so, as promtool_ok does (make check runs
	# setup first, so there it never skips)
	skip "format agreement: selftests' mi_lookup = the reader's parser" \
		"no busybox (Debian package busybox-static; scripts/setup installs it)"
else
# shellcheck disable=SC2016
ST_DIR=${lib%/lib.sh} MI_TAP_COUNTER=$tmp/lookup.count busybox sh -c \
	'. "$1"; while read -r f k c; do mi_lookup "$f" "$k" "$c" || echo "(no answer)"; done <"$2"' \
	sh "$lib" "$tmp/queries" >"$tmp/got" 2>&1
nq=$(wc -l <"$tmp/queries")
[ "$nq" -gt 300 ]
ok $? "format agreement: $nq lookups over the captured files (more than 300)"
out=$(paste -d '\n' "$tmp/queries" "$tmp/want" "$tmp/got" | paste - - - |
	awk -F '\t' '$2 != $3 { print "query " $1 ": parser \"" $2 "\", mi_lookup \"" $3 "\"" }' | head -5)
is "format agreement: selftests' mi_lookup = the reader's parser, value for value" "" "$out"
fi

# ---- JSON escaping ----

s=$'q"uote b\\ack tab\tnl\ncr\rctl\001\037del\177 \xc3\xa9'
run "$P" json-string "$s"
is "json-string escapes quotes, backslash, controls as \\uXXXX" \
	'"q\"uote b\\ack tab\u0009nl\u000acr\u000dctl\u0001\u001fdel\u007f é"' "$out"
got=$(jq -j . <<<"$out")
is "json-string round-trips through jq" "$s" "$got"
run "$P" json-string $'bad\xff\xc3(utf8\xed\xa0\x80'
is "invalid UTF-8 becomes U+FFFD" '"bad\ufffd\ufffd(utf8\ufffd\ufffd\ufffd"' "$out"
jq -e . >/dev/null <<<"$out"
ok $? "invalid UTF-8 input still gives valid JSON"

# A record is one line: the detail carries every special byte but newline.
d=${s//$'\n'/}
mkdir "$tmp/esc"
printf 'name kind available detail\nsummary file yes %s\n' "$d" >"$tmp/esc/capabilities"
run "$M" --dir "$tmp/esc" --json capabilities
is "capabilities --json exits 0 on a control-char detail" 0 "$rc"
is "detail with quotes/backslash/control chars survives JSON (jq)" "$d" \
	"$(jq -j '.[0].detail' <<<"$out")"

# ---- JSON shapes ----

run "$M" --dir "$FX/module" --json summary
is "summary --json: exit 0" 0 "$rc"
jq -e '.mem_total == {"value": 2014232, "unit": "kB"} and .unaccounted.value == null
	and .highest_free_order.value == 10 and (.mem_free.value | type) == "number"
	and (keys | length) == 5' >/dev/null <<<"$out"
ok $? "summary --json: object keyed by field, numbers, null for '-'" "$out"

run "$M" --dir "$FX/module" --json capabilities
jq -e 'length == 7 and .[0] == {"name": "summary", "kind": "file", "available": "yes", "detail": null}
	and .[5].detail == "hugetlb \"disabled\" in this kernel\\ (CONFIG_HUGETLB_PAGE=n)"' \
	>/dev/null <<<"$out"
ok $? "capabilities --json: array of objects" "$out"

run "$M" --dir "$FX/module" --json report
is "report --json: exit 0" 0 "$rc"
is "report --json: one key per available file" '["capabilities","summary","zones"]' \
	"$(jq -c keys <<<"$out")"
jq -e '.summary.mem_total.value == 2014232 and .zones[1] ==
	{"node": 0, "zone": "Normal", "managed_kb": 1998872, "free_kb": 1785000}
	and (.capabilities | length) == 7' >/dev/null <<<"$out"
ok $? "report --json: each file in its own shape" "$out"
is "report --json: notes go to stderr, not lost" \
	"meminspect: zones: note: estimated: free counts read without zone->lock" "$err"

run "$P" json "$tmp/nul_byte"
is "probe json refuses a NUL-byte file" 1 "$rc"
printf 'a b\n007 -0\n' >"$tmp/leading_zero"
run "$P" json "$tmp/leading_zero"
is "integers are normalised to JSON numbers" '[{"a":7,"b":0}]' "$(jq -c . <<<"$out")"
printf 'a b\n18446744073709551615 -9223372036854775809\n' >"$tmp/big"
run "$P" json "$tmp/big"
has "u64 max is a JSON number" '"a": 18446744073709551615' "$out"
has "out-of-range s64 stays a string" '"b": "-9223372036854775809"' "$out"

# ---- table formatter ----

run "$M" --dir "$FX/module" summary
is "summary table: aligned, numbers right-aligned" \
"field                 value  unit
mem_total           2014232  kB
mem_free            1800000  kB
highest_free_order       10  order
hugepages_total           0  pages
unaccounted               -  kB" "$out"

run "$M" --dir "$FX/module" --human summary
is "summary --human: kB scaled, other units untouched" \
"field               value  unit
mem_total            1.92  GiB
mem_free             1.72  GiB
highest_free_order     10  order
hugepages_total         0  pages
unaccounted             -  kB" "$out"

run "$P" table-human "$FX/module/zones"
is "_kb columns scaled in place, notes after the table" \
"node  zone    managed_kb   free_kb
   0  DMA         15 MiB  14.6 MiB
   0  Normal    1.91 GiB  1.70 GiB
# estimated: free counts read without zone->lock" "$out"

run "$P" table "$FX/parse/header_only"
is "empty table prints the header only" "node  zone  managed_kb  free_kb" "$out"

for c in "2014232 1024:1.92 GiB" "512 1024:512 KiB" "0 1024:0 B" "1023 1:1023 B" \
	"1536 1:1.50 KiB" "-2048 1024:-2 MiB"; do
	run "$P" human ${c%%:*}
	is "human ${c%%:*} -> ${c#*:}" "${c#*:}" "$out"
done

# ---- Prometheus primitives ----

run "$P" prom-name meminspect_ summary.mem-total
is "prom metric name: invalid chars become _" meminspect_summary_mem_total "$out"
run "$P" prom-name "" 9lives:x
is "prom metric name: leading digit guarded, ':' replaced" _9lives_x "$out"
run "$P" prom-name meminspect_ summary 8
is "prom metric name: too small a buffer is an error" "1 too long" "$rc $out"
run "$P" prom-label $'a\\b"c\nd'
is "prom label value: backslash, quote, newline escaped" '"a\\b\"c\nd"' "$out"

# ---- report and per-file checks through the CLI ----

run "$M" --dir "$FX/module" report
is "report: exit 0" 0 "$rc"
has "report: heading per file" "== zones ==" "$out"
has "report: unavailable file listed with its reason" \
	"== slab == (not available: slab internals unknown on this kernel (no BTF))" "$out"

mkdir "$tmp/broken"
cp "$FX/module/summary" "$tmp/broken/"
cp "$FX/bad/too_few_values" "$tmp/broken/zones"
printf 'name kind available detail\nzones file yes -\nsummary file yes -\n' >"$tmp/broken/capabilities"
run "$M" --dir "$tmp/broken" report
is "report with a broken file: exit 11 (the others printed)" 11 "$rc"
has "report with a broken file: still prints the others" "== summary ==" "$out"
has "report with a broken file: names file and line" \
	"zones:2: record has 2 values, header has 3 fields" "$err"
has "report with a broken file: counts what it left out" \
	"meminspect: report: 1 of 2 files could not be read (named above); the others were printed" "$err"

mkdir "$tmp/badsum"
printf 'field value unit\nmem_total 12k kB\n' >"$tmp/badsum/summary"
run "$M" --dir "$tmp/badsum" summary
is "summary value not an integer: exit 1" 1 "$rc"
has "summary value not an integer: message" "summary:2: value is not an integer '12k'" "$err"
printf 'field value\nmem_total 1\n' >"$tmp/badsum/summary"
run "$M" --dir "$tmp/badsum" summary
has "summary without unit column: message" "summary:1: missing field 'unit'" "$err"

mkdir "$tmp/evil"
printf 'name kind available detail\n../../etc/passwd file yes -\n' >"$tmp/evil/capabilities"
run "$M" --dir "$tmp/evil" report
is "capabilities naming ../ is refused: exit 1" 1 "$rc"
has "capabilities naming ../ is refused: message" "unsafe file name '../../etc/passwd'" "$err"

# ---- exit statuses ----

run "$M" --dir /nonexistent summary
is "--dir /nonexistent, module not loaded: exit 4" 4 "$rc"
has "--dir /nonexistent, module not loaded: says how to load it" \
	"insmod meminspect.ko (or modprobe meminspect)" "$err"

mkdir -p "$tmp/sys/module/meminspect"
run "$M" --dir /nonexistent summary
is "--dir /nonexistent, module loaded: usage error 2" 2 "$rc"
run "$M" summary
is "default dir, debugfs not mounted: exit 3" 3 "$rc"
has "default dir, debugfs not mounted: says how to mount it" \
	"mount -t debugfs none $tmp/sys/kernel/debug" "$err"
run env MEMINSPECT_DIR="$FX/module" "$M" summary
is "MEMINSPECT_DIR is used when --dir is absent" "0 mem_total" "$rc $(sed -n '2s/ .*//p' <<<"$out")"

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$tmp/perm/meminspect"
	cp "$FX/module/"* "$tmp/perm/meminspect/"
	chmod 755 "$tmp" "$tmp/perm"
	chmod 700 "$tmp/perm/meminspect"
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$M" --dir "$tmp/perm/meminspect" summary
	is "non-root reading a root-only dir: exit 5" 5 "$rc"
	has "non-root: says run as root" "not root; run meminspect as root" "$err"
else
	skip "non-root reading a root-only dir: exit 5" "needs root and setpriv"
	skip "non-root: says run as root" "needs root and setpriv"
fi

run "$M" --dir "$FX/module/summary" summary
is "--dir naming a file: usage error 2" 2 "$rc"
mkdir "$tmp/nosummary"
cp "$FX/module/capabilities" "$tmp/nosummary/"
run "$M" --dir "$tmp/nosummary" summary
is "module dir without summary: exit 1" 1 "$rc"

run "$M" --bogus summary
is "unknown option: exit 2" "2 meminspect: unknown option '--bogus'" "$rc $(head -1 <<<"$err")"
run "$M" nosuch
is "unknown command: exit 2" 2 "$rc"
run "$M"
is "missing command: exit 2" 2 "$rc"
run "$M" summary extra
is "extra argument: exit 2" 2 "$rc"
run "$M" --dir
is "--dir without argument: exit 2" 2 "$rc"
"$M" --dir "$FX/module" summary >/dev/full 2>/dev/null
is "write error (/dev/full): exit 1" 1 "$?"

# The real statfs check needs a real debugfs: mount one in a private mount
# namespace (the host's mounts are untouched) where the host allows it.
if [ "$(id -u)" -eq 0 ] && [ ! -e /sys/module/meminspect ] &&
	unshare -m --propagation private true 2>/dev/null; then
	run env -u MEMINSPECT_SYSFS unshare -m --propagation private sh -c \
		'mount -t debugfs none /sys/kernel/debug || exit 99; exec "$0" summary' "$M"
	is "real debugfs mounted, module not loaded: exit 4" 4 "$rc"
	has "real debugfs mounted, module not loaded: message" \
		"/sys/kernel/debug/meminspect does not exist: the meminspect module is not loaded" "$err"
else
	skip "real debugfs mounted, module not loaded: exit 4" "needs root, unshare, no loaded module"
	skip "real debugfs mounted, module not loaded: message" "needs root, unshare, no loaded module"
fi

# ---- help and version ----

run "$M" --help
is "--help: exit 0" 0 "$rc"
for st in "0  success" "1  a file" "2  usage" "3  debugfs" "4  the meminspect module" "5  permission"; do
	has "--help documents exit status ${st%% *}" "$st" "$out"
done
run "$M" summary --help
has "summary --help shows the JSON shape" '{"mem_total": {"value": 2014232, "unit": "kB"}' "$out"
run "$M" --version
is "--version without module version file" \
	$'meminspect 0.1.0\nmodule meminspect loaded, version unknown' "$out"
echo 0.2.0 >"$tmp/sys/module/meminspect/version"
run "$M" --version
is "--version prints the module's version" $'meminspect 0.1.0\nmodule meminspect 0.2.0' "$out"
is "--version warns when they differ" "meminspect: warning: reader 0.1.0 and module 0.2.0 differ" "$err"
echo 0.1.0 >"$tmp/sys/module/meminspect/version"
run "$M" --version
is "--version: no warning when they match" "" "$err"

# ---- mm, vmas (fixtures: a copy of the files; a PID needs the live debugfs) ----

run "$M" --dir "$FX/procmem" mm
is "mm: exit 0" 0 "$rc"
has "mm: field/value rows" "pss_kb" "$(grep -E '^pss_kb +515$' <<<"$out")"
has "mm: comm with spaces kept" "sh -c x" "$(grep '^comm' <<<"$out")"
run "$M" --dir "$FX/procmem" --json mm
jq -e '.pid == 97 and .pss_kb == 515 and .uss_kb == 52 and .start_code == "0x401000"
	and .shared_hugetlb_kb == 0 and .private_hugetlb_kb == 0
	and .comm == "sh -c x" and (keys | length) == 48' >/dev/null <<<"$out"
ok $? "mm --json: one object, numbers, hex addresses as strings" "$out"
run "$M" --dir "$FX/procmem_kthread" mm
is "mm of a kernel thread: exit 1" 1 "$rc"
is "mm of a kernel thread: says why on stderr" \
	"meminspect: mm: pid 2 (kthreadd): kernel thread: no user memory" "$err"
run "$M" --dir "$FX/procmem" vmas --sort pss
is "vmas --sort pss: exit 0" 0 "$rc"
is "vmas --sort pss: largest pss first, ties in address order" \
	"0x401000 0x585000 0x5db000 0x400000" "$(awk 'NR > 1 { printf "%s%s", (NR > 2 ? " " : ""), $1 }' <<<"$out")"
run "$M" --dir "$FX/procmem" vmas --sort uss
is "vmas --sort uss: 0x5db000 first" "0x5db000" "$(awk 'NR == 2 { print $1 }' <<<"$out")"
run "$M" --dir "$FX/procmem" --json vmas
jq -e 'length == 4 and .[3].name == "my file name" and .[1].pss_kb == 312
	and .[0].start == "0x400000" and .[0].dev == "00:02"' >/dev/null <<<"$out"
ok $? "vmas --json: array of objects, free-text name last" "$out"
run "$M" --dir "$FX/procmem" vmas --sort bogus
is "vmas --sort bogus: usage error" 2 "$rc"
run "$M" --dir "$FX/procmem" --sort pss summary
is "--sort outside vmas/top: usage error" 2 "$rc"
run "$M" --dir "$FX/procmem" mm 12x
is "mm with a bad PID: usage error" 2 "$rc"
run "$M" --dir "$FX/procmem" mm 1
is "mm PID on a copy of the files: usage error, never writes the copy" "2 0" \
	"$rc $(cmp -s "$FX/procmem/mm" <(head -n 2 "$FX/procmem/mm"); echo $?)"
run "$M" --dir "$FX/procmem" vmas 1 2
is "vmas with two PIDs: usage error" 2 "$rc"

# ---- top from procs (fixture: a 6.1 guest's procs, every process in one read) ----

run "$M" --dir "$FX/procs" top
is "top from procs: exit 0, nothing on stderr" "0 " "$rc $err"
is "top from procs: every record, largest pss first, ties in pid order" "1 107 108 110 111 109" \
	"$(awk 'NR > 1 && $1 ~ /^[0-9]+$/ { printf "%s%s", s, $1; s = " " }' <<<"$out")"
is "top from procs: pid rss pss uss swap swap_pss comm of a record" "107 1592 343 52 0 0 sh" \
	"$(awk '$1 == 107 { print $1, $2, $3, $4, $5, $6, $7 }' <<<"$out")"
has "top from procs: the note sums pss and uss and says it was one read" \
	"# 6 processes: pss 2048 kB, uss 452 kB in all (procs, one read)" "$out"
run "$M" --dir "$FX/procs" top --sort rss
is "top --sort rss from procs: largest rss first" "1 107 108 110 111 109" \
	"$(awk 'NR > 1 && $1 ~ /^[0-9]+$/ { printf "%s%s", s, $1; s = " " }' <<<"$out")"
run "$M" --dir "$FX/procs" --json top
jq -e 'length == 6 and .[0].pid == 1 and .[0].pss_kb == 500 and .[0].uss_kb == 188
	and .[5].comm == "sleep" and (.[0] | keys | length) == 7' >/dev/null <<<"$out"
ok $? "top --json from procs: one object per process, numbers, comm" "$out"
# with procs present, top never writes a pid to mm (a copy here: it would be changed)
mkdir -p "$tmp/procs_mm"
cp "$FX/procs/procs" "$FX/procmem/mm" "$tmp/procs_mm/"
run "$M" --dir "$tmp/procs_mm" top
is "top with procs and mm: procs' rows, mm left as it was" \
	"0 1 107 108 110 111 109 same" \
	"$rc $(awk 'NR > 1 && $1 ~ /^[0-9]+$/ { printf "%s ", $1 }' <<<"$out")$(cmp -s "$FX/procmem/mm" "$tmp/procs_mm/mm" && echo same)"
# procs' records without walk figures (the walk unavailable: "-") are left out, as mm's
sed '2,3s/^\([0-9]*\) [0-9]* [0-9]* /\1 - - /' "$FX/procs/procs" >"$tmp/procs_mm/procs"
run "$M" --dir "$tmp/procs_mm" top
is "top from procs: a record whose pss is - is left out" "0 108 110 111 109" \
	"$rc $(awk 'NR > 1 && $1 ~ /^[0-9]+$/ { printf "%s%s", s, $1; s = " " }' <<<"$out")"

# a module of another version: every command warns on stderr and still works (exit 0)
echo 0.0.9 >"$tmp/sys/module/meminspect/version"
run "$M" --dir "$FX/module" summary
is "module of another version: summary still exits 0" 0 "$rc"
is "module of another version: summary warns on stderr" \
	"meminspect: warning: reader 0.1.0 and module 0.0.9 differ" "$err"
run "$M" --dir "$FX/module" export --prometheus
has "module of another version: export names it in meminspect_info" \
	'meminspect_info{reader_version="0.1.0",module_version="0.0.9"} 1' "$out"
echo 0.1.0 >"$tmp/sys/module/meminspect/version"

# ---- --watch and per-command options ----

run "$M" --dir "$FX/module" summary --watch 1 --count 2
is "summary --watch 1 --count 2: exit 0" 0 "$rc"
is "summary --watch 1 --count 2: two rounds, each under a time heading" 2 \
	"$(grep -cE '^== [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} ==$' <<<"$out")"
run "$M" --dir "$FX/module" --json summary -w 1 -n 2
is "summary --json --watch: two JSON documents (jq -s)" 2 "$(jq -s length <<<"$out")"
for c in "capabilities --watch 1:takes no --watch" "summary --count 2:--count needs --watch" \
	"summary --watch 0:--watch takes whole seconds" "summary --watch x:--watch takes whole seconds" \
	"summary --prometheus:are export options" "export:export needs a format" \
	"export --json --textfile-dir $tmp:drop --json"; do
	run "$M" --dir "$FX/module" ${c%%:*}
	is "'${c%%:*}': usage error 2" 2 "$rc"
	has "'${c%%:*}': message" "${c#*:}" "$err"
done
for c in summary capabilities report export; do
	run "$M" "$c" --help
	has "$c --help: its own usage line" "Usage: meminspect [OPTIONS] $c" "$out"
done

# ---- export --prometheus (its own file) ----

part "$here/export.sh"
part "$here/where.sh"
part "$here/cgroups.sh"

# ---- allocs, and allocs/table's export (its own file) ----

part "$here/allocs.sh"
if [ -x "$here/meminspect-dyn" ] && [ -f "$here/lockdown_shim.so" ]; then
	part "$here/lockdown.sh"
else
	skip "lockdown tests" "build them with make -C userspace test (tests/meminspect-dyn, tests/lockdown_shim.so)"
fi

# ---- slab, and the slabs file's export ----

SL=$FX/slabs
is "fixture slabs: the header of module/slab.c" \
	"$(sed -n 's/.*seq_puts(m, "\(name object_size [a-z_ ]*\)\\n");/\1/p' "$here/../../module/slab.c")" \
	"$(head -n 1 "$SL/slabs")"
run "$M" --dir "$SL" slab
is "slab: exit 0" 0 "$rc"
is "slab: sorted by memory_bytes, largest first" "name dentry big_cache kmalloc-64 empty_cache" \
	"$(awk '{ print $1 }' <<<"$out" | xargs)"
run "$M" --dir "$SL" slab --sort name --top 2
is "slab --sort name --top 2: header and the first two by name" "name big_cache dentry" \
	"$(awk '{ print $1 }' <<<"$out" | xargs)"
run "$M" --dir "$SL" --json slab --sort waste
is "slab --json --sort waste: an array in the table's order" '["big_cache","dentry","kmalloc-64",null]' \
	"$(jq -c 'map(.name | select(. != "empty_cache")) + [.[3].memory_bytes]' <<<"$out")"
mkdir -p "$tmp/slsys/kernel/slab/dentry"
for a in kmalloc-64 foo_cache bar_cache; do ln -s ":0000064" "$tmp/slsys/kernel/slab/$a"; done
MEMINSPECT_SYSFS=$tmp/slsys run "$M" --dir "$SL" slab --aliases --sort name
is "slab --aliases: 'none' for the caches nothing is merged into" \
	"big_cache:none dentry:none empty_cache:none" \
	"$(awk 'NR > 1 && $1 != "kmalloc-64" { print $1 ":" $17 }' <<<"$out" | xargs)"
is "slab --aliases: the other names linked to the cache's sysfs directory" "bar_cache,foo_cache" \
	"$(awk '$1 == "kmalloc-64" { print $17 }' <<<"$out" | tr , '\n' | sort | paste -sd,)"
run "$M" --dir "$SL" slab --aliases --top 1
is "slab --aliases without /sys/kernel/slab: '-'" - "$(awk 'NR == 2 { print $17 }' <<<"$out")"
cp -r "$SL" "$tmp/slw"
bg_reader "$tmp/watch.out" "$tmp/watch.err" --dir "$tmp/slw" slab --watch 1 --count 2 --sort growth
# the edit lands between the rounds: after the first is out (not a fixed
# sleep, which a slow start under load outran), well before the second (1 s)
wait_grep '^kmalloc-64 ' "$tmp/watch.out"
sed -i 's/^kmalloc-64 64 64 64 64 0 3000 3200 50 50 10 204800/kmalloc-64 64 64 64 64 0 3400 3520 55 55 10 225280/' \
	"$tmp/slw/slabs"
wait "$wpid"
is "slab --watch 1 --count 2: exit 0, nothing on stderr" "0 " "$? $(<"$tmp/watch.err")"
out=$(<"$tmp/watch.out")
is "slab --watch: two rounds under the general time heading" 2 \
	"$(grep -cE '^== [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} ==$' <<<"$out")"
is "slab --watch: growth columns in the second round only" 1 "$(grep -c growth_bytes <<<"$out")"
has "slab --watch: the first round says growth comes next" "# growth columns from the next round on" "$out"
is "slab --watch --sort growth: the grown cache first, with its growth" "kmalloc-64 20480 400" \
	"$(awk '/growth_bytes/ { getline; print $1, $(NF - 2), $(NF - 1) }' <<<"$out")"
run "$M" --dir "$SL" --json slab -w 1 -n 2
is "slab --json --watch: two documents, growth_bytes in the second" "2 false true" \
	"$(jq -s '[length, (.[0][0] | has("growth_bytes")), (.[1][0] | has("growth_bytes"))] | join(" ")' -r <<<"$out")"
for c in "slab --sort growth:--sort growth needs --watch" "slab --sort bogus:--sort takes name" \
	"slab --top 0:--top takes a number" "summary --top 3:--top is a slab, allocs and files option" \
	"export --prometheus --aliases:--aliases is a slab option" "slab --count 2:--count needs --watch"; do
	run "$M" --dir "$SL" ${c%%:*}
	is "'${c%%:*}': usage error 2" 2 "$rc"
	has "'${c%%:*}': message" "${c#*:}" "$err"
done
run "$M" slab --help
has "slab --help: its own usage line" "Usage: meminspect [OPTIONS] slab" "$out"

run "$M" --dir "$SL" export --prometheus
is "export of slabs: exit 0" 0 "$rc"
slprom=$out
has "export of slabs: name becomes the cache label" \
	'meminspect_slabs_memory_bytes{cache="dentry"} 430080' "$slprom"
has "export of slabs: sizes named _bytes" 'meminspect_slabs_object_size_bytes{cache="big_cache"} 4000' "$slprom"
has "export of slabs: counts as they are" 'meminspect_slabs_active_objs{cache="kmalloc-64"} 3000' "$slprom"
has "export of slabs: meminspect_file_ok 1" 'meminspect_file_ok{file="slabs"} 1' "$slprom"
is "export of slabs: '-' gives no sample, flags are not exported" "" \
	"$(grep -E 'empty_cache.*_(memory_bytes|total_objs)|_flags' <<<"$slprom")"
for m in $(grep -o 'meminspect_slabs_[a-z_]*' "$here/../../docs/meminspect-alerts.yml" | sort -u); do
	has "docs/meminspect-alerts.yml: $m is exported" "# TYPE $m gauge" "$slprom"
done
promtool_ok "export of slabs: promtool check metrics is silent and exits 0" "$slprom" check metrics

# ---- build products ----

if command -v file >/dev/null; then
	has "binary is statically linked" "statically linked" "$(file -L "$M")"
else
	skip "binary is statically linked" "no file(1)"
fi
if command -v groff >/dev/null; then
	run groff -man -ww -z "$here/../meminspect.8"
	is "man page renders without groff warnings" "0 " "$rc $err"
	# the EXIT STATUS section, up to the next section heading
	sect=$(groff -man -Tascii "$here/../meminspect.8" 2>/dev/null | col -b |
		sed -n '/^EXIT STATUS/,/^[A-Z]/p')
	for st in 0 1 2 3 4 5; do
		grep -qE "^ +$st +[A-Za-z]" <<<"$sect"
		ok $? "man page documents exit status $st"
	done
else
	skip "man page renders without groff warnings" "no groff"
fi

# ---- files (fixtures: a 6.1 guest's files table and its /proc/self/mountinfo) ----

FF=$FX/files
run env MEMINSPECT_MOUNTINFO="$FF/mountinfo" "$M" --dir "$FF" files
is "files: exit 0" 0 "$rc"
is "files: one table row per record" "$(grep -vc '^#' "$FF/files")" "$(grep -vc '^#' <<<"$out")"
has "files: a tmpfs path gets its mount point from mountinfo" " /tmp/mi.120.files/tmpfs/sparse" "$out"
grep -Eq '^01:00 +12 +334 +0 +0 +/mi-files +/tmp/mi\.120\.files/ext4/data$' <<<"$out"
ok $? "files: the ext4 file on a ramdisk with its cgroup and full path" "$out"
has "files: the rootfs path stays as it is" " /bin/busybox" "$out"
has "files: the total note" "# total: inodes" "$out"
run env MEMINSPECT_MOUNTINFO="$FF/mountinfo" "$M" --dir "$FF" files --top 2
is "files --top 2: two rows and the header" 3 "$(grep -vc '^#' <<<"$out")"
run env MEMINSPECT_MOUNTINFO="$FF/mountinfo" "$M" --dir "$FF" --json files
jq -e --argjson n "$(($(grep -vc '^#' "$FF/files") - 1))" \
	'type == "array" and length == $n and (.[0].pages | type) == "number" and .[0].cgroup == "/"
	 and ([.[] | select(.cgroup == "/mi-files")] | length) == 2
	 and ([.[] | select(.path == null)][0].cgroup == "/")' \
	>/dev/null <<<"$out"
ok $? "files --json: one object per record, pages a number, cgroup a string" "$out"
sed '2s/^\([^ ]* [^ ]*\) [0-9]*/\1 many/' "$FF/files" > "$tmp/files"
run "$M" --dir "$tmp" files
is "files: a non-number in pages is a format error (1)" 1 "$rc"
sed '2s/ \/ / mi-files /' "$FF/files" > "$tmp/files"
run "$M" --dir "$tmp" files
is "files: a cgroup that is not a path is a format error (1)" 1 "$rc"
sed '2s/ \/ / - /' "$FF/files" > "$tmp/files"
run "$M" --dir "$tmp" files
is "files: cgroup - is accepted" 0 "$rc"

# ---- zones, buddy, frag (fixtures: a 6.1 guest's files) ----

MM=$FX/mm
for c in "zones:zones" "buddy:buddy" "frag:fragmentation"; do
	cmd=${c%%:*} file=${c#*:}
	run "$M" --dir "$MM" "$cmd"
	is "$cmd: exit 0" 0 "$rc"
	is "$cmd: one table row per record" "$(grep -vc '^#' "$MM/$file")" "$(grep -vc '^#' <<<"$out")"
	run "$M" --dir "$MM" --json "$cmd"
	jq -e --argjson n "$(($(grep -vc '^#' "$MM/$file") - 1))" \
		'type == "array" and length == $n and (.[0].node | type) == "number"' >/dev/null <<<"$out"
	ok $? "$cmd --json: valid JSON, an array of one object per record" "$out"
done
# frag --types: the walked split, its own file; without --types no walk note
run "$M" --dir "$MM" frag --types
is "frag --types: exit 0" 0 "$rc"
is "frag --types: one table row per record of fragmentation_types" \
	"$(grep -vc '^#' "$MM/fragmentation_types")" "$(grep -vc '^#' <<<"$out")"
has "frag --types: the avail_TYPE columns" "avail_movable" "$out"
has "frag --types: the walk note" "# walk: budget 1024" "$out"
run "$M" --dir "$MM" frag
[[ "$out" != *avail_movable* && "$out" == *extfrag_permille* ]]
ok $? "frag: the indexes, no avail_TYPE column (the split is --types)" "$out"
run "$M" --dir "$MM" --json frag --types
jq -e '.[1].order == 1 and .[1].avail_movable == 1792 and .[1].avail_blocks == 1904' >/dev/null <<<"$out"
ok $? "frag --types --json: the split as numbers" "$out"
has "frag --types --json: the walk note goes to stderr" "meminspect: fragmentation_types: note: walk:" "$err"
run "$M" --dir "$MM" zones --types
is "zones --types: usage error" 2 "$rc"
has "zones --types: says whose option it is" "--types is a frag option" "$err"
run "$M" --dir "$MM" --json zones
jq -e '.[0].lowmem_reserve == [0, 933, 933, 933, 933] and .[1].zone == "DMA32" and .[1].nr_free_10 == 224' \
	>/dev/null <<<"$out"
ok $? "zones --json: lowmem_reserve as an array of numbers, counts as numbers" "$out"
run "$M" --dir "$MM" --json buddy
has "buddy --json: the walk note goes to stderr" "meminspect: buddy: note: walk: budget 1024" "$err"
jq -e '.[1].migratetype == "Movable" and .[1].order_10 == 3 and .[1].pageblocks == 7' >/dev/null <<<"$out"
ok $? "buddy --json: migratetype a string, counts numbers" "$out"

mkdir "$tmp/mmw"
cp "$MM"/* "$tmp/mmw/"
# watch_edit FROM TO SEEN ARGS...: run the reader with ARGS (a --watch 1 with
# no --count) in the background; once its first sample is out (FROM is
# printed), change FROM to TO in the zones copy, wait until a sample shows
# SEEN, then stop it with SIGTERM; sets out, rc.  No timing window to hit
# (with --count 2 the edit had to land inside the 2 s between the samples):
# the reader runs until the change is out, however late on a loaded host,
# and what is judged is each sample against the one before.  (Stop 28's
# failure was not that window but a stale output file: bg_reader.)
watch_edit() {
	local from=$1 to=$2 seen=$3
	shift 3
	bg_reader "$tmp/watch.out" "$tmp/watch.out" "$@"
	wait_grep "$from" "$tmp/watch.out"
	sed -i "s/^0 DMA32 4096 258015 258015 241531 $from /0 DMA32 4096 258015 258015 241531 $to /" \
		"$tmp/mmw/zones"
	wait_grep "$seen" "$tmp/watch.out"
	kill -TERM $wpid
	wait $wpid
	rc=$?
	out=$(<"$tmp/watch.out")
}
run "$M" --dir "$tmp/mmw" zones --watch 1 --count 2
is "zones --watch 1 --count 2: exit 0" 0 "$rc"
is "zones --watch --count 2: two rounds, each under a time heading" 2 "$(grep -cE '^== [0-9-]+ [0-9:]+ ==$' <<<"$out")"
watch_edit 230972 230000 "230000(-972)" --dir "$tmp/mmw" zones --watch 1
is "zones --watch: SIGTERM ends it with exit 0" 0 "$rc"
has "zones --watch: a moved value shows its change" "230000(-972)" "$out"
has "zones --watch: the rounds after the first say what (+D) is" "# (+D): change since the previous round" "$out"
cp "$MM/zones" "$tmp/mmw/zones"
watch_edit 230972 231000 '"free": *231000' --dir "$tmp/mmw" --json --watch 1 zones
jq -s -e 'length >= 2 and (.[0][0] | has("change") | not)
	and ([range(1; length) as $i | .[$i][1].change.free == .[$i][1].free - .[$i - 1][1].free
		and .[$i][1].change.managed == 0] | all)
	and ([.[1:][][1].change.free] | index(28) != null) and .[-1][1].free == 231000' >/dev/null <<<"$out"
ok $? "zones --json --watch: one document per sample, from the second on a change object against the one before" "$out"
for bad in "capabilities --watch 1" "zones --count 2" "zones --watch 0" "zones --watch x" \
	"zones --watch 1 --count 0" "buddy --watch"; do
	run "$M" --dir "$MM" $bad
	is "$bad: usage error" 2 "$rc"
done
mkdir "$tmp/badmm"
printf 'node zone free\n0 DMA 12k\n' >"$tmp/badmm/zones"
run "$M" --dir "$tmp/badmm" zones
is "zones value not an integer: exit 1" 1 "$rc"
has "zones value not an integer: message" "zones:2: value is not an integer '12k'" "$err"

# ---- fault (its own file: a fake module and a fake kernel) ----

part "$here/fault.sh"

# ---- pressure --watch, latency, latency export (its own file) ----

part "$here/stall.sh"

tap_close
