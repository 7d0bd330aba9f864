# SPDX-License-Identifier: GPL-2.0
# meminspect where (sourced by run.sh): summary's big figures, then the
# census classes summed over nodes and zones, on summary and pages read from
# one 6.1 guest (fixtures/where)
W=$FX/where
run "$M" --dir "$W" where
is "where: exit 0, header" "0 section figure kb counterpart" "$rc $(head -n 1 <<<"$out" | tr -s ' ')"
is "where: summary rows carry summary's values and their meminfo names" \
	"$(awk 'NR > 1 && !/^#/ && $1 ~ /^(mem_total|mem_free|anon_pages|unaccounted)$/ { print $1, $2 }' "$W/summary")" \
	"$(awk '$1 == "summary" && $2 ~ /^(mem_total|mem_free|anon_pages|unaccounted)$/ { print $2, $3 }' <<<"$out")"
is "where: summary's counterparts" "MemTotal MemFree AnonPages -" \
	"$(awk '$1 == "summary" && $2 ~ /^(mem_total|mem_free|anon_pages|unaccounted)$/ { printf "%s%s", s, $4; s = " " }' <<<"$out")"
is "where: each census class is the pages file's bytes summed over nodes and zones, in kB" \
	"$(awk 'NR > 1 && !/^#/ { b[$3] += $5; if (!($3 in o)) { o[$3] = n++; c[n - 1] = $3 } }
		END { for (i = 0; i < n; i++) print c[i], int(b[c[i]] / 1024) }' "$W/pages" | sort)" \
	"$(awk '$1 == "census" { print $2, $3 }' <<<"$out" | sort)"
is "where: unclassified's counterpart names what it holds" "unaccounted+VmallocUsed+Percpu" \
	"$(awk '$2 == "unclassified" { print $4 }' <<<"$out")"
run "$M" --dir "$W" --json where
is "where --json: one object per row, kb an integer" \
	'{"section":"census","figure":"hugetlb_used","kb":4096,"counterpart":"HugePages_Total-HugePages_Free"}' \
	"$(jq -c '.[] | select(.figure == "hugetlb_used")' <<<"$out")"
is "where --json: as many objects as the table has rows" \
	"$("$M" --dir "$W" where | awk 'NR > 1 && !/^#/' | wc -l)" "$(jq length <<<"$out")"
mkdir -p "$tmp/wnp" && cp "$W/summary" "$W/capabilities" "$tmp/wnp/"
run "$M" --dir "$tmp/wnp" where
is "where without the pages file: fails, naming it" "1 yes" \
	"$([ "$rc" -ne 0 ] && echo 1) $(grep -q 'pages' <<<"$err" && echo yes)"
