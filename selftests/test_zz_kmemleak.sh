#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kmemleak (debug lane): runs last, after every other test loaded, used and unloaded the
# modules. Two scans (kmemleak reports an object only once it has been unreferenced for a
# whole scan period), then any leak whose backtrace passes through meminspect or its helper
# module fails. Kernels without CONFIG_DEBUG_KMEMLEAK (every stock Debian kernel) skip.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

KML=$MI_DEBUGFS/kmemleak
if [ ! -e "$KML" ]; then
	skip "kmemleak: no leak from meminspect or its helper" \
		"kernel built without CONFIG_DEBUG_KMEMLEAK (no $KML)"
	exit 0
fi

# Exercise one more load/unload of both modules so their init and exit paths are covered
# even when an earlier test was skipped.
insmod "$MI_TEST_KO" 2>/dev/null
echo 256 > "$MI_DEBUGFS/meminspect_test/pages" 2>/dev/null
echo 0 > "$MI_DEBUGFS/meminspect_test/pages" 2>/dev/null
rmmod meminspect_test 2>/dev/null
cat "$MI_DIR"/* > /dev/null 2>&1

echo clear > "$KML"
sleep 1
echo scan > "$KML"
sleep 6
echo scan > "$KML"
T=$(mi_tmpdir kmemleak) || exit 1
trap 'rm -rf "$T"' EXIT
cat "$KML" > "$T/report"
total=$(grep -c '^unreferenced object' "$T/report")
ours=$(awk '/^unreferenced object/ { if (blk ~ /meminspect/) n++; blk = "" }
	{ blk = blk "\n" $0 }
	END { if (blk ~ /meminspect/) n++; print n + 0 }' "$T/report")
diag "kmemleak: $total unreferenced objects in all, $ours through meminspect code"
if [ "$ours" -eq 0 ]; then
	ok "kmemleak: no leak from meminspect or its helper"
else
	fail "kmemleak: no leak from meminspect or its helper"
	awk '/^unreferenced object/ { if (blk ~ /meminspect/) print blk; blk = "" }
		{ blk = blk "\n" $0 } END { if (blk ~ /meminspect/) print blk }' "$T/report" |
		head -n 40 | while IFS= read -r l; do diag "$l"; done
fi
