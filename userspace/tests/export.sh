# SPDX-License-Identifier: GPL-2.0
# Host tests of `meminspect export --prometheus`, sourced by run.sh (its helpers and
# fixtures: run, is, has, ok, $M, $FX, $tmp).

# ---- export --prometheus ----

run "$M" --dir "$FX/module" export --prometheus
is "export --prometheus: exit 0" 0 "$rc"
prom=$out
has "export: kB figure in bytes, no file part for summary" "meminspect_mem_total_bytes 2062573568" "$prom"
has "export: pages unit kept as _pages, gauge named away from _total" \
	"meminspect_hugepages_total_pages 0" "$prom"
has "export: unitless figure as is" "meminspect_highest_free_order 10" "$prom"
lacks "export: '-' gives no sample" '^meminspect_unaccounted' "$prom"
has "export: a wide file by its header alone: node/zone labels, _kb -> _bytes" \
	'meminspect_zones_managed_bytes{node="0",zone="Normal"} 2046844928' "$prom"
has "export: capabilities yes/no as 1/0, detail left out" \
	'meminspect_capabilities_available{name="slab",kind="file"} 0' "$prom"
has "export: meminspect_file_ok per available file" 'meminspect_file_ok{file="zones"} 1' "$prom"
has "export: every family has HELP and TYPE" "# TYPE meminspect_zones_free_bytes gauge" "$prom"
promtool_ok "export of the fixtures: promtool check metrics is silent and exits 0" "$prom" \
	check metrics
promtool_ok "docs/meminspect-alerts.yml: promtool check rules exits 0" "" \
	check rules "$here/../../docs/meminspect-alerts.yml"
promtool_ok "docs/meminspect-alerts.test.yml: promtool test rules passes (MeminspectDirectReclaimSustained, MeminspectDyingCgroupsPinMemory)" "" \
	test rules "$here/../../docs/meminspect-alerts.test.yml"
# pages and pressure (captured from a 7.3 guest): each record tells itself
# apart only with its class / section, scope and name, which must be labels,
# or export finds two lines with the same labels and leaves the file out
run "$M" --dir "$FX/census" export --prometheus
is "export of pages and pressure: exit 0" "0 " "$rc $err"
has "export: pages' class is a label" \
	'meminspect_pages_pages{node="0",zone="DMA",class="buddy_free"} 3808' "$out"
has "export: pages' bytes" 'meminspect_pages_bytes{node="0",zone="DMA",class="buddy_free"} 15597568' "$out"
has "export: pressure's section, scope, name and unit are labels" \
	'meminspect_pressure_value{section="zone",scope="0/DMA",name="min",unit="pages"}' "$out"
has "export: both files ok" 'meminspect_file_ok{file="pressure"} 1' "$out"
lacks "export: pressure's per-open delta is not exported" '^meminspect_pressure_delta' "$out"
promtool_ok "export of pages and pressure: promtool check metrics is silent and exits 0" "$out" \
	check metrics

# meminspect pages / pressure: the files as tables and JSON; under --watch
# each number that moved, keyed by node zone class / section scope name
run "$M" --dir "$FX/census" pages
is "pages: exit 0, header, one row per class" "0 node zone class pages bytes 3808" \
	"$rc $(awk 'NR == 1 { h = $0 } $3 == "buddy_free" && $2 == "DMA" { print h, $4; exit }' <<<"$out" | tr -s ' ')"
run "$M" --dir "$FX/census" --json pages
is "pages --json: objects with class and integers" '{"node":0,"zone":"DMA","class":"buddy_free","pages":3808,"bytes":15597568}' \
	"$(jq -c '.[0]' <<<"$out")"
run "$M" --dir "$FX/census" --json pressure
is "pressure --json: section, scope, name, integers, '-' as null" '{"section":"zone","scope":"0/DMA","name":"min","value":179,"delta":null,"unit":"pages"}' \
	"$(jq -c '.[] | select(.scope == "0/DMA" and .name == "min")' <<<"$out")"
cp -r "$FX/census" "$tmp/cw"
bg_reader "$tmp/cw.out" "$tmp/cw.err" --dir "$tmp/cw" pressure --table --watch 1 --count 2
wait_grep '^vmstat ' "$tmp/cw.out"
sed -i -e 's/^vmstat all allocstall 0 0 events$/vmstat all allocstall 7 7 events/' \
	-e 's/^zone 0\/DMA min 179 - pages$/zone 0\/DMA min 180 - pages/' "$tmp/cw/pressure"
wait "$wpid"
is "pressure --watch 1 --count 2: exit 0, nothing on stderr" "0 " "$? $(<"$tmp/cw.err")"
is "pressure --watch: the moved counter as N(+D), keyed by section scope name" "7(+7)" \
	"$(awk '$1 == "vmstat" && $3 == "allocstall" { v = $4 } END { print v }' "$tmp/cw.out")"
is "pressure --watch: a zone's figure against its own previous value" "180(+1)" \
	"$(awk '$1 == "zone" && $2 == "0/DMA" && $3 == "min" { v = $4 } END { print v }' "$tmp/cw.out")"
is "pressure --watch: an unmoved counter undecorated" "0" \
	"$(awk '$1 == "vmstat" && $3 == "allocstall_dma" { v = $4 } END { print v }' "$tmp/cw.out")"

run "$M" --dir "$FX/module" export --json
is "export --json: same samples as the text format" \
	"$(grep -vc '^#' <<<"$prom")" "$(jq length <<<"$out")"

mkdir "$tmp/pp"
cp "$FX/module/summary" "$tmp/pp/"
printf 'name kind available detail\nsummary file yes -\nprocs file yes -\n' >"$tmp/pp/capabilities"
printf 'pid comm rss_kb\n1 init 100\n2 kthreadd 0\n' >"$tmp/pp/procs"
run "$M" --dir "$tmp/pp" export --prometheus
has "export: a per-process file is left out by default" "# meminspect: procs left out" "$out"
run "$M" --dir "$tmp/pp" export --prometheus --per-pid
has "export --per-pid: pid becomes a label" 'meminspect_procs_rss_bytes{pid="1"} 102400' "$out"

# mm and vmas show the reading process: never exported, with or without --per-pid
cp "$FX/procmem/mm" "$FX/procmem/vmas" "$tmp/pp/"
printf 'name kind available detail\nsummary file yes -\nmm file yes -\nvmas file yes -\n' \
	>"$tmp/pp/capabilities"
for pp in "" --per-pid; do
	w=${pp:-(no --per-pid)}
	run "$M" --dir "$tmp/pp" export --prometheus $pp
	is "export $w with mm and vmas: exit 0" 0 "$rc"
	has "export $w: mm left out, said why" "# meminspect: mm left out: the reading process" "$out"
	has "export $w: vmas left out, said why" "# meminspect: vmas left out: the reading process" "$out"
	is "export $w: no mm/vmas sample, no pid label" "" \
		"$(grep -E '^meminspect_(mm|vmas)_|pid=' <<<"$out")"
	has "export $w: mm and vmas still read (meminspect_file_ok 1)" \
		'meminspect_file_ok{file="vmas"} 1' "$out"
	promtool_ok "export $w with mm and vmas: promtool check metrics is silent and exits 0" "$out" \
		check metrics
	run "$M" --dir "$tmp/pp" export --json $pp
	is "export --json $w: no mm/vmas sample" "0" \
		"$(jq '[.[] | select(.metric | test("^meminspect_(mm|vmas)_"))] | length' <<<"$out")"
done
run "$M" --dir "$tmp/pp" report
is "report with mm and vmas: exit 0" 0 "$rc"
is "report never writes the files (a PID goes only to the live ones)" "0 0" \
	"$(cmp -s "$FX/procmem/mm" "$tmp/pp/mm"; echo $?) $(cmp -s "$FX/procmem/vmas" "$tmp/pp/vmas"; echo $?)"
run "$M" --dir "$tmp/pp" mm --watch 1 --count 2
is "mm --watch 1 --count 2: exit 0, two rounds" "0 2" "$rc $(grep -c '^pss_kb ' <<<"$out")"
run "$M" --dir "$tmp/pp" capabilities --watch 1
is "capabilities --watch: usage error (its content does not change)" 2 "$rc"
run "$M" --dir "$tmp/pp" vmas --per-pid
is "vmas --per-pid: usage error (an export option)" 2 "$rc"
run "$M" --dir "$tmp/pp" export --prometheus --sort pss
is "export --sort: usage error" 2 "$rc"
printf 'name kind available detail\nsummary file yes -\nprocs file yes -\n' >"$tmp/pp/capabilities"
printf 'node zone free_kb\n0 DMA 1\n0 DMA 2\n' >"$tmp/pp/procs"
run "$M" --dir "$tmp/pp" export --prometheus
is "export: two rows with the same labels: exit 11 (the others exported)" 11 "$rc"
has "export: two rows with the same labels: message" "lines 2 and 3 have the same labels" "$err"
has "export: ... and meminspect_file_ok 0 for that file" 'meminspect_file_ok{file="procs"} 0' "$out"

printf 'node zone free_kb free_bytes\n0 DMA 1 2\n' >"$tmp/pp/procs"
run "$M" --dir "$tmp/pp" export --prometheus
is "export: two fields mapped to one metric name: exit 11 (the others exported)" 11 "$rc"
has "export: two fields mapped to one metric name: message" \
	"two figures map to metric meminspect_procs_free_bytes" "$err"
is "export: ... the first is kept, once" 1 "$(grep -c '^meminspect_procs_free_bytes' <<<"$out")"
promtool_ok "export: ... and the output is still valid (promtool)" "$out" check metrics

mkdir "$tmp/tf"
run "$M" --dir "$FX/module" export --prometheus --textfile-dir "$tmp/tf"
is "textfile: exit 0, nothing on stdout" "0 " "$rc $out"
is "textfile: the same text as stdout" "$prom" "$(<"$tmp/tf/meminspect.prom")"
is "textfile: only meminspect.prom in the dir" "meminspect.prom" "$(ls -A "$tmp/tf")"
is "textfile: mode 644" 644 "$(stat -c %a "$tmp/tf/meminspect.prom")"
run "$M" --dir "$tmp/nowhere" export --prometheus --textfile-dir "$tmp/tf"
is "textfile, --dir missing: exit 2" 2 "$rc"
has "textfile, --dir missing: meminspect_up 0 written" "meminspect_up 0" \
	"$(<"$tmp/tf/meminspect.prom")"
mkdir "$tmp/tfw"
"$M" --dir "$FX/module" export --prometheus --textfile-dir "$tmp/tfw" --watch 60 2>"$tmp/stderr" &
wpid=$!
for i in $(seq 1 50); do [ -e "$tmp/tfw/meminspect.prom" ] && break; sleep 0.1; done
kill -TERM "$wpid"
wait "$wpid"
is "export --watch: SIGTERM while sleeping ends it with exit 0" "0 " "$? $(<"$tmp/stderr")"
is "export --watch: after SIGTERM only meminspect.prom in the dir" "meminspect.prom" "$(ls -A "$tmp/tfw")"

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$tmp/rofx" "$tmp/rotf"
	cp "$FX/module/"* "$tmp/rofx/"
	chmod 755 "$tmp" "$tmp/rofx" "$tmp/rotf"
	chmod 644 "$tmp/rofx/"*
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$M" --dir "$tmp/rofx" \
		export --prometheus --textfile-dir "$tmp/rotf"
	is "textfile into a dir the user cannot write: exit 5" 5 "$rc"
	has "textfile into a dir the user cannot write: message" "cannot create a file there: Permission denied" "$err"
else
	skip "textfile into a dir the user cannot write: exit 5" "needs root and setpriv"
	skip "textfile into a dir the user cannot write: message" "needs root and setpriv"
fi
run "$M" --dir "$FX/module" export --prometheus --textfile-dir "$tmp/none"
is "textfile into a missing dir: usage error 2" 2 "$rc"
has "textfile into a missing dir: message" "--textfile-dir $tmp/none: cannot create a file there" "$err"
