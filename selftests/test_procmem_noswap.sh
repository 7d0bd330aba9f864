#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mm and vmas where the swap helpers are missing (capability mm.swap_pss
# "no"): swap_kb would miss shmem swap and swap_pss_kb could not split
# shared entries, so both are "-", and every other walk figure is still a
# number (docs/procmem.md, docs/capabilities.md).  The module is reloaded
# with ksyms_deny=swp_swapcount (the lookup answers "not found", as on a
# kernel without the symbol), then reloaded as it was.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

# at exit: the module as it was, without ksyms_deny
reload()
{
	mi_reload > /dev/null 2>&1
}
mi_setup noswap reload

require_file "$MI_DIR/mm"
require_caps "mm/vmas without the swap helpers" mm.rollup

# figures FILE: "NAME=VALUE ..." of the walk figures in the records of a
# mm or vmas file, one line per record (the header names the columns)
figures()
{
	awk 'NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; n = NF; next }
	     /^#/ { next }
	     { s = ""
	       for (i = 1; i <= n; i++)
		       if (h[i] ~ /^(rss|pss|swap|swap_pss|anonymous|locked)_kb$/)
			       s = s " " h[i] "=" $i
	       print s }' "$1"
}

# bad_figures FILE WANT_SWAP: the records whose swap_kb/swap_pss_kb are
# not WANT_SWAP ("-" or "number") or whose other figures are not numbers
bad_figures()
{
	figures "$1" | awk -v want="$2" '{
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			num = kv[2] ~ /^[0-9]+$/
			if (kv[1] ~ /^swap/ ? (want == "-" ? kv[2] != "-" : !num) : !num)
				bad = bad " " $i
		}
	} END { printf "%s", bad }'
}

if ! mi_reload ksyms_deny=swp_swapcount; then
	fail "insmod ksyms_deny=swp_swapcount"
	exit 0
fi
got=$(awk '$1 == "mm.swap_pss" { print $3 }' "$MI_DIR/capabilities")
check "ksyms_deny=swp_swapcount: mm.swap_pss is no ($(awk '$1 == "mm.swap_pss"' "$MI_DIR/capabilities"))" \
	[ "$got" = no ]
check "ksyms_deny=swp_swapcount: the parameter reads back" \
	[ "$(cat /sys/module/meminspect/parameters/ksyms_deny)" = swp_swapcount ]
cat "$MI_DIR/mm" > "$T/mm"
cat "$MI_DIR/vmas" > "$T/vmas"
for f in mm vmas; do
	bad=$(bad_figures "$T/$f" -)
	check "$f without the swap helpers: swap_kb and swap_pss_kb are '-', the other walk figures numbers ($(figures "$T/$f" | head -n 1))${bad:+; wrong:$bad}" \
		[ -z "$bad" -a "$(figures "$T/$f" | wc -l)" -ge 1 ]
done

for cmd in mm vmas top "--json mm" "--json top"; do
	# shellcheck disable=SC2086
	"$MI_READER" $cmd > "$T/out" 2> "$T/err"
	rc=$?
	check "meminspect $cmd without the swap helpers: exit 0 ($rc$(head -c 200 "$T/err"))" \
		[ "$rc" -eq 0 ]
done

if ! mi_reload; then
	fail "insmod without parameters"
	exit 0
fi
if [ "$(cap_available mm.swap_pss)" = yes ]; then
	cat "$MI_DIR/mm" > "$T/mm"
	bad=$(bad_figures "$T/mm" number)
	check "mm with the swap helpers again: swap_kb and swap_pss_kb are numbers ($(figures "$T/mm"))${bad:+; wrong:$bad}" \
		[ -z "$bad" ]
else
	skip "mm with the swap helpers" "$(cap_detail mm.swap_pss)"
fi
