#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# zones against /proc/zoneinfo and /proc/buddyinfo, at rest and while churn
# runs.  Each reference is read before and after zones (a bracket); a
# moving value must lie in it give or take the tolerance of docs/tests.md.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_mm.sh"

CHURN_MIB=${CHURN_MIB:-64} CHURN_SECS=${CHURN_SECS:-120}
# values in pages (zones prints pages, as zoneinfo and buddyinfo do)
REST="start_pfn:same spanned:same present:same managed:same lowmem_reserve:same
min:0:0 low:0:0 high:0:0 boost:0:0 free:256:1 pcp:256:25 nr_free_[0-9]+:32:2"
LOAD="start_pfn:same spanned:same present:same managed:same lowmem_reserve:same
min:1024:0 low:1024:0 high:1024:0 boost:1024:0 free:$((CHURN_MIB * 64)):5
pcp:1024:50 nr_free_[0-9]+:256:10"

mm_setup zones

require_file "$MI_DIR/zones"

snap()
{
	cat /proc/zoneinfo > "$T/z1"
	cat /proc/buddyinfo > "$T/b1"
	cat "$MI_DIR/zones" > "$T/zones"
	cat /proc/zoneinfo > "$T/z2"
	cat /proc/buddyinfo > "$T/b2"
	flat_table "$T/zones" 2 > "$T/ours"
	{ flat_zoneinfo "$T/z1"; flat_buddyinfo "$T/b1"; } > "$T/r1"
	{ flat_zoneinfo "$T/z2"; flat_buddyinfo "$T/b2"; } > "$T/r2"
}

# ---- format, from one frozen copy ----
snap
orders=$(order_fields nr_free_ "$T/b1")
check_header "zones: header has the fields of docs/zones.md, one nr_free_N per order ($(awk -v s="$orders" 'BEGIN { print split(s, a, " ") }'))" \
	"$T/zones" "node zone start_pfn spanned present managed free min low high boost pcp lowmem_reserve $orders"

bad=$(awk 'NR == 1 { n = NF; next }
	/^#/ { next }
	NF != n { print "line " NR ": " NF " values, header has " n; next }
	{
		for (i = 3; i <= NF; i++)
			if ($i !~ /^-?[0-9]+$/ && !(i == 11 && $i == "-") &&
			    !(i == 13 && $i ~ /^[0-9]+(,[0-9]+)*$/))
				print "line " NR ": field " i " is \"" $i "\""
	}' "$T/zones" || echo "awk failed")
if [ -z "$bad" ] && tail -c 1 "$T/zones" | od -c | grep -q '\\n'; then
	ok "zones: every record has one value per field, integers (lowmem_reserve a comma list), ends with a newline"
else
	fail "zones: record format"
	echo "$bad" | head -n 5 | sed 's/^/# /'
fi

ours=$(awk 'NR > 1 && !/^#/ { print $1 "/" $2 }' "$T/zones" | tr '\n' ' ')
theirs=$(awk '$1 == "Node" { n = $2; sub(/,/, "", n); print n "/" $4 }' "$T/b1" | tr '\n' ' ')
if [ "$ours" = "$theirs" ]; then
	ok "zones: the populated zones are buddyinfo's, in its order ($ours)"
else
	fail "zones: zone list"
	diag "zones: $ours"
	diag "buddyinfo: $theirs"
fi

boost_cap=$(cap_available zones.boost)
if [ "$boost_cap" = no ]; then
	REST=$(echo "$REST" | sed 's/boost:0:0//')
	LOAD=$(echo "$LOAD" | sed 's/boost:1024:0//')
	skip "zones: boost against zoneinfo" "$(cap_detail zones.boost)"
fi

# 5.10's /proc/zoneinfo prints no boost line: there the only anchor is the
# kernel's own cap on the boost (boost_watermark(): the larger of a
# pageblock, 512 pages on x86_64 and on 4 KiB-page arm64, and high watermark
# x watermark_boost_factor / 10000)
if [ "$boost_cap" = yes ] && ! grep -q '^ *boost ' /proc/zoneinfo; then
	REST=$(echo "$REST" | sed 's/boost:0:0//')
	LOAD=$(echo "$LOAD" | sed 's/boost:1024:0//')
	factor=$(cat /proc/sys/vm/watermark_boost_factor)
	bad=$(awk -v f="$factor" 'NR > 1 && !/^#/ && ($11 < 0 || ($11 > 512 && $11 * 10000 > $10 * f)) {
		print $1 "/" $2 ": boost " $11 ", high " $10 }' "$T/zones")
	check "zones: boost within the kernel's cap high x $factor / 10000 (this zoneinfo has no boost line) ${bad:+($bad)}" \
		[ -z "$bad" ]
fi

# ---- at rest ----
mm_phase "zones at rest" 3 snap "$(echo $REST)"

# ---- under churn ----
churn_start "$CHURN_SECS" "$CHURN_MIB"
sleep 2
mm_phase "zones under churn" 5 snap "$(echo $LOAD)"
churn_stop
