#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kmemleak (debug lane): runs last, after every other test loaded, used and unloaded the
# modules. One scan once the last objects are past kmemleak's 5 s minimum age, then any
# unreferenced object allocated from meminspect's or its helper's code (a backtrace frame in
# [meminspect] or [meminspect_test]) fails: a leak of any earlier test, as nothing clears the
# report (neither this test nor fault sweep: kmemleak's "clear" hides every leak found until
# then for good). meminspect_drv, the driver whose init test_fault_module.sh
# makes leak on purpose, is not ours to count. Kernels without CONFIG_DEBUG_KMEMLEAK (every
# stock Debian kernel) skip.
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

sleep 6
T=$(mi_tmpdir kmemleak) || exit 1
trap 'rm -rf "$T"' EXIT
# A kmemleak that turned itself off (its pool ran out, an internal error) refuses the scan
# and reports nothing: that is no answer, not "no leak"
if ! echo scan 2> "$T/err" > "$KML"; then
	fail "kmemleak: no leak from meminspect or its helper"
	diag "echo scan > $KML failed ($(cat "$T/err")): kmemleak is off; its last words:"
	dmesg | grep -i kmemleak | tail -n 5 | while IFS= read -r l; do diag "$l"; done
	exit 0
fi
if ! cat "$KML" > "$T/report" 2> "$T/err"; then
	fail "kmemleak: no leak from meminspect or its helper"
	diag "reading $KML failed: $(cat "$T/err")"
	exit 0
fi
total=$(grep -c '^unreferenced object' "$T/report")
# ours: the records with a frame of our code, "[<addr>] fn+off/size [meminspect]" (older
# kernels) or "fn+off/size [meminspect_test]"; not the comm line, which names whoever allocated
awk '/^unreferenced object/ { if (blk ~ /[[]meminspect(_test)?[]]/) print blk; blk = "" }
	{ blk = blk (blk == "" ? "" : "\n") $0 }
	END { if (blk ~ /[[]meminspect(_test)?[]]/) print blk }' "$T/report" > "$T/ours"
ours=$(grep -c '^unreferenced object' "$T/ours")
diag "kmemleak: $total unreferenced objects in all, $ours through meminspect code"
if [ "$ours" -eq 0 ]; then
	ok "kmemleak: no leak from meminspect or its helper"
else
	fail "kmemleak: no leak from meminspect or its helper"
	head -n 40 "$T/ours" | while IFS= read -r l; do diag "$l"; done
fi
