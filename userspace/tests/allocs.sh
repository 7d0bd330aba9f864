# SPDX-License-Identifier: GPL-2.0
# Host tests of `meminspect allocs` and allocs/table's export, sourced by run.sh (its
# helpers: run, is, has, lacks, ok, promtool_ok, wait_grep, $M, $FX, $tmp). The fixtures
# are a 6.1 guest's (fixtures/allocs: capabilities, table exact and system-wide after
# the helper's 5000 x 200 B and a find, table.sampled with sample_bytes 6400). Their cache
# column was added by hand when the module gained it (names from each site's object sizes:
# kmalloc-256 for the helper's kmalloc(200), (pages) for kvmalloc's 40000 B, two (several)).

AF=$FX/allocs
AD=$tmp/allocs
mkdir -p "$AD/allocs"
# the real module's rows that this directory has: allocs/ is a mechanism row
awk 'NR == 1 || $1 == "capabilities" || $1 == "allocs"' "$AF/capabilities" >"$AD/capabilities"
cp "$AF/table" "$AD/allocs/table"
is "fixture allocs/table: the header of module/allocs_table.c" \
	"$(sed -n 's/.*seq_puts(m, "\(live_objs [a-z_ ]*\)\\n");/\1/p' "$here/../../module/allocs_table.c")" \
	"$(head -n 1 "$AF/table")"

run "$M" --dir "$AD" allocs
is "allocs: exit 0, nothing on stderr" "0 " "$rc $err"
is "allocs: sorted by live_bytes, largest first: the helper's 5000 x 200 B first" \
	"5000 1000000 allocs_fill+0x33/0x60 [meminspect_test]" \
	"$(awk 'NR == 2 { print $1, $2, $9, $10 }' <<<"$out")"
is "allocs: every site of the file, and the note" "$(grep -vc '^#' "$AF/table") 1" \
	"$(grep -vc '^#' <<<"$out") $(grep -c '^# allocs: armed 1 mode exact' <<<"$out")"
sorted=$(awk 'NR > 1 && !/^#/ { print $2 }' "$AF/table" | sort -rn | paste -sd' ')
is "allocs: live_bytes column in descending order" "$sorted" \
	"$(awk 'NR > 1 && !/^#/ { print $2 }' <<<"$out" | paste -sd' ')"
run "$M" --dir "$AD" allocs --sort rate --top 2
is "allocs --sort rate --top 2: the two highest rates since arming" \
	"$(awk 'NR > 1 && !/^#/ { print $6 }' "$AF/table" | sort -rn | head -2 | paste -sd' ')" \
	"$(awk 'NR > 1 && !/^#/ { print $6 }' <<<"$out" | paste -sd' ')"
run "$M" --dir "$AD" allocs --sort count --top 1
is "allocs --sort count: live_objs" "5000" "$(awk 'NR == 2 { print $1 }' <<<"$out")"
run "$M" --dir "$AD" allocs --sort allocs --top 3
is "allocs --sort allocs: allocations since arming" \
	"$(awk 'NR > 1 && !/^#/ { print $4 }' "$AF/table" | sort -rn | head -3 | paste -sd' ')" \
	"$(awk 'NR > 1 && !/^#/ { print $4 }' <<<"$out" | paste -sd' ')"
run "$M" --dir "$AD" --json allocs --top 2
is "allocs --json: the note's pairs and the call sites as objects, nothing on stderr" \
	'{"armed":1,"mode":"exact","sample_bytes":0,"table_bytes":1630208,"site_overflow":0,"n":2,"first":{"live_objs":5000,"live_bytes":1000000,"live_bytes_alloc":3840000,"allocs":5000,"frees":0,"rate":3205,"samples":5000,"cache":"kmalloc-256","site":"allocs_fill+0x33/0x60 [meminspect_test]"}} ' \
	"$(jq -c '{armed, mode, sample_bytes, table_bytes, site_overflow, n: (.call_sites | length), first: .call_sites[0]}' <<<"$out") $err"

# sampled: the mode is said, under the table and in the note
mkdir -p "$tmp/allocs_s/allocs"
cp "$AD/capabilities" "$tmp/allocs_s/"
cp "$AF/table.sampled" "$tmp/allocs_s/allocs/table"
run "$M" --dir "$tmp/allocs_s" allocs --top 1
has "allocs, sampled: the table says the figures are estimates" \
	"# sampled: every figure but samples is an estimate" "$out"
is "allocs, sampled: the helper's site first, its estimate = 6400 x samples" \
	"allocs_fill+0x33/0x60 $((6400 * 593))" "$(awk 'NR == 2 { print $9, $2 }' <<<"$out")"
run "$M" --dir "$tmp/allocs_s" --json allocs
is "allocs --json, sampled: mode and sample_bytes" "sampled 6400" "$(jq -r '"\(.mode) \(.sample_bytes)"' <<<"$out")"

# --watch: recent_rate from the second round on, over the note's elapsed_ms
cp -r "$AD" "$tmp/aw"
bg_reader "$tmp/aw.out" "$tmp/aw.err" --dir "$tmp/aw" allocs --watch 1 --count 2 --sort rate
wait_grep '^# allocs:' "$tmp/aw.out"
# 1000 ms later on the kernel's clock, getname_flags allocated 500 more
sed -i -e 's/^0 0 0 411 411 263 0 names_cache getname_flags/0 0 0 911 911 263 0 names_cache getname_flags/' \
	-e 's/ elapsed_ms 1560 / elapsed_ms 2560 /' "$tmp/aw/allocs/table"
wait "$wpid"
is "allocs --watch 1 --count 2: exit 0, nothing on stderr" "0 " "$? $(<"$tmp/aw.err")"
out=$(<"$tmp/aw.out")
is "allocs --watch: recent_rate in both rounds' headers" 2 "$(grep -cE 'recent_rate +site$' <<<"$out")"
is "allocs --watch --sort rate: the second round by recent rate, 500/s first" \
	"500 getname_flags.part.0+0x2b/0x1c0" \
	"$(awk '/^== / { r++ } r == 2 && /recent_rate/ { getline; print $9, $10 }' <<<"$out")"
is "allocs --watch: '-' in the first round" "-" \
	"$(awk '/recent_rate/ { getline; print $9; exit }' <<<"$out")"
for c in "allocs --sort size:--sort takes bytes, rate, count or allocs" \
	"allocs --aliases:--aliases is a slab option" "allocs --top 0:--top takes a number"; do
	run "$M" --dir "$AD" ${c%%:*}
	is "'${c%%:*}': usage error 2" 2 "$rc"
	has "'${c%%:*}': message" "${c#*:}" "$err"
done
run "$M" allocs --help
has "allocs --help: its own usage line" "Usage: meminspect [OPTIONS] allocs" "$out"
# a broken table: a site's count is not a number
sed '2s/^[0-9]*/x1/' "$AF/table" >"$tmp/aw/allocs/table"
run "$M" --dir "$tmp/aw" allocs
is "allocs: a non-integer count is a format error (1)" 1 "$rc"
has "allocs: the message names the line" "allocs/table:2: value is not an integer" "$err"

# ---- allocs --by cache: the sites summed by their cache column ----

run "$M" --dir "$AD" allocs --by cache
is "allocs --by cache: exit 0, nothing on stderr" "0 " "$rc $err"
is "allocs --by cache: the header ends in sites and cache" "sites cache" \
	"$(awk 'NR == 1 { print $(NF - 1), $NF }' <<<"$out")"
is "allocs --by cache: a row per cache of the file" \
	"$(awk 'NR > 1 && !/^#/ { print $8 }' "$AF/table" | sort -u | wc -l)" \
	"$(awk 'NR > 1 && !/^#/' <<<"$out" | wc -l)"
# kmalloc-256: the helper's 1000000 B and debugfs_file_get's 96 B, two sites
is "allocs --by cache: kmalloc-256's live_bytes and sites are its sites' sums" \
	"$(awk 'NR > 1 && $8 == "kmalloc-256" { b += $2; n++ } END { print b, n }' "$AF/table")" \
	"$(awk '$NF == "kmalloc-256" { print $2, $(NF - 1) }' <<<"$out")"
is "allocs --by cache: the largest live_bytes first" "kmalloc-256" "$(awk 'NR == 2 { print $NF }' <<<"$out")"
is "allocs --by cache: allocations over all rows = over all sites" \
	"$(awk 'NR > 1 && !/^#/ { s += $4 } END { print s }' "$AF/table")" \
	"$(awk 'NR > 1 && !/^#/ { s += $4 } END { print s }' <<<"$out")"
has "allocs --by cache: (several) and (pages) are rows too" "(pages)" "$(awk '{ print $NF }' <<<"$out")"
run "$M" --dir "$AD" --json allocs --by cache
is "allocs --by cache --json: a caches array, one object per cache" \
	"$(awk 'NR > 1 && !/^#/ { print $8 }' "$AF/table" | sort -u | wc -l) kmalloc-256 2" \
	"$(jq -r '"\(.caches | length) \(.caches[0].cache) \(.caches[0].sites)"' <<<"$out")"
# a table without the cache column (a module older than the reader): said, not guessed
awk '{ $8 = ""; sub(/  /, " ") } 1' "$AF/table" >"$tmp/aw/allocs/table"
sed -i '1s/samples  site/samples site/' "$tmp/aw/allocs/table"
run "$M" --dir "$tmp/aw" allocs --by cache
is "allocs --by cache without a cache column: a format error (1)" 1 "$rc"
has "allocs --by cache without a cache column: the message says why" "no cache column" "$err"

# ---- allocs --allocinfo: /proc/allocinfo's layout (lib/alloc_tag.c) ----

run "$M" --dir "$AD" allocs --allocinfo
is "allocs --allocinfo: exit 0, nothing on stderr" "0 " "$rc $err"
is "allocs --allocinfo: allocinfo's two header lines" \
	"allocinfo - version: 1.0|#     <size>  <calls> <tag info>" "$(head -n 2 <<<"$out" | paste -sd'|')"
is "allocs --allocinfo: a line per site of the file" "$(grep -vc '^#' "$AF/table")" \
	"$(tail -n +2 <<<"$out" | wc -l)"
# every line as the kernel prints it: "%12lli %8llu " then the tag info
is "allocs --allocinfo: every line in '%12lli %8llu TAG func:NAME' form" 0 \
	"$(tail -n +3 <<<"$out" | grep -cvE '^[ 0-9]{12} [ 0-9]{8} [^ ]+( \[[^]]+\])? func:[^ +]+$')"
is "allocs --allocinfo: size = live_bytes_alloc, calls = live_objs, the module in brackets" \
	"     3840000     5000 allocs_fill+0x33/0x60 [meminspect_test] func:allocs_fill" \
	"$(grep 'allocs_fill' <<<"$out")"
is "allocs --allocinfo: largest size first" \
	"$(awk 'NR > 1 && !/^#/ { print $3 }' "$AF/table" | sort -rn | paste -sd' ')" \
	"$(tail -n +3 <<<"$out" | awk '{ print $1 }' | paste -sd' ')"
# the kernel documentation's recipe (Documentation/mm/allocation-profiling.rst)
is "allocs --allocinfo: 'sort -g | tail -n 1' finds the largest site, as on /proc/allocinfo" \
	"3840000 allocs_fill" "$(sort -g <<<"$out" | tail -n 1 | awk '{ sub(/func:/, "", $NF); print $1, $NF }')"
run "$M" --dir "$tmp/allocs_s" allocs --allocinfo --top 1
is "allocs --allocinfo, sampled: the estimate on stdout, the mode on stderr" \
	"$(awk '/allocs_fill/ { print $1 }' "$AF/table.sampled") 1" "$(awk 'NR == 3 { print $2 }' <<<"$out") $(grep -c 'sampled: size and calls are estimates' <<<"$err")"
for c in "allocs --allocinfo --json:--allocinfo is for the allocs table by site" \
	"allocs --allocinfo --by cache:--allocinfo is for the allocs table by site" \
	"allocs --allocinfo --outstanding:--allocinfo is for the allocs table by site" \
	"slab --allocinfo:--allocinfo is for the allocs table by site"; do
	run "$M" --dir "$AD" ${c%%:*}
	is "'${c%%:*}': usage error 2" 2 "$rc"
	has "'${c%%:*}': message" "${c#*:}" "$err"
done

# ---- export: the capabilities row "allocs" names allocs/table ----

run "$M" --dir "$AD" export --prometheus
is "export with allocs: exit 0" "0 " "$rc $err"
aprom=$out
has "export: live bytes by cache and site, the module in the label" \
	'meminspect_allocs_live_bytes{cache="kmalloc-256",site="allocs_fill+0x33/0x60 [meminspect_test]"} 1000000' "$aprom"
has "export: allocations are a counter" \
	'meminspect_allocs_allocs_total{cache="kmalloc-256",site="allocs_fill+0x33/0x60 [meminspect_test]"} 5000' "$aprom"
has "export: frees are a counter" "# TYPE meminspect_allocs_frees_total counter" "$aprom"
has "export: live objects a gauge" "# TYPE meminspect_allocs_live_objs gauge" "$aprom"
has "export: the allocs row is one file_ok" 'meminspect_file_ok{file="allocs"} 1' "$aprom"
lacks "export: rate (since arming) is left to rate()" '^meminspect_allocs_rate' "$aprom"
is "export: one live_bytes sample per site" "$(awk 'NR > 1 && !/^#/' "$AF/table" | wc -l)" \
	"$(grep -c '^meminspect_allocs_live_bytes{' <<<"$aprom")"
promtool_ok "export with allocs: promtool check metrics is silent" "$aprom" check metrics
# a site with the bytes a label value escapes
sed '2s/ [^ ]*$/ we"ird\\site+0x1\/0x2 [m]/' "$AF/table" >"$tmp/aw/allocs/table"
cp "$AD/capabilities" "$tmp/aw/"
run "$M" --dir "$tmp/aw" export --prometheus
has "export: '\"' and '\\' escaped in the site label" \
	'meminspect_allocs_live_objs{cache="(pages)",site="we\"ird\\site+0x1/0x2 [m]"}' "$out"
promtool_ok "export with an escaped site: promtool check metrics is silent" "$out" check metrics
run "$M" --dir "$AD" export --json
jq -e '[.[] | select(.metric == "meminspect_allocs_live_bytes")] | length > 10' >/dev/null <<<"$out"
ok $? "export --json: the allocs samples" "$out"

# ---- allocs --outstanding (fixtures/allocs/outstanding: min age 1 s, after 2 s) ----

cp "$AF/outstanding" "$AD/allocs/outstanding"
run "$M" --dir "$AD" allocs --outstanding
is "allocs --outstanding: exit 0, nothing on stderr" "0 " "$rc $err"
is "allocs --outstanding: by bytes, the helper's 3000 x 200 B first" \
	"3000 600000 allocs_fill+0x33/0x60" "$(awk 'NR == 2 { print $1, $2, $5 }' <<<"$out")"
has "allocs --outstanding: the note" "# outstanding: armed 1 mode exact min_age_s 1 " "$out"
run "$M" --dir "$AD" --json allocs --outstanding --sort count --top 1
is "allocs --outstanding --json: addrs an array of 4 hex strings, the note's min_age_s" \
	"1 3000 4 true" \
	"$(jq -r '"\(.min_age_s) \(.call_sites[0].objs) \(.call_sites[0].addrs | length) \(all(.call_sites[0].addrs[]; test("^0x[0-9a-f]+$")))"' <<<"$out")"
for c in "allocs --outstanding --min-age 1:--min-age needs the live files" \
	"allocs --min-age 1:--min-age needs --outstanding" \
	"allocs --outstanding --sort rate:sorts by bytes or count" \
	"allocs --outstanding --min-age 86401:--min-age takes whole seconds" \
	"summary --outstanding:are allocs options" \
	"allocs --by name:--by takes site or cache" "slab --by cache:--by is an allocs option" \
	"allocs --by cache --outstanding:--by cache is for the table"; do
	run "$M" --dir "$AD" ${c%%:*}
	is "'${c%%:*}': usage error 2" 2 "$rc"
	has "'${c%%:*}': message" "${c#*:}" "$err"
done
sed '4s/ 0x[0-9a-f]*,/ zz,/' "$AF/outstanding" >"$AD/allocs/outstanding"
run "$M" --dir "$AD" allocs --outstanding
is "allocs --outstanding: a bad address list is a format error (1)" 1 "$rc"
has "allocs --outstanding: the message says so" "addrs is not a list of hex addresses" "$err"
cp "$AF/outstanding" "$AD/allocs/outstanding"
