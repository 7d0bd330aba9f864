#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ksft.sh TEST: one selftest file as a kselftest test (docs/kselftest.md).
#
# The kernel's runner (kselftest/runner.sh, run_kselftest.sh) runs each test file on its own
# and grades it by its exit status alone; a test file run that way (or by hand) hands itself
# here from lib.sh. TEST goes through run.sh, as in our own runs: its timeout, its "not ok"
# for a file that crashes or reports nothing, the module and debugfs put back afterwards.
# run.sh's TAP is printed with its plan, and the exit status is kselftest's: 0 every result
# passed, 1 one failed, 4 all were skips (or meminspect is not loaded and cannot be).
ST_DIR=$(cd "$(dirname "$0")" && pwd)
t=${1:?usage: ksft.sh TEST}
MI_KO=${MI_KO:-/meminspect/meminspect.ko}
MI_DEBUGFS=${MI_DEBUGFS:-/sys/kernel/debug}
# The helper modules where the kselftest target built or installed them, helper/ beside the
# tests (selftests/Makefile); our runner's layout (/meminspect/, lib.sh's defaults) otherwise.
# MI_TEST_KO, MI_DRV_KO and MI_BULK_KO, when set, win.
if [ -f "$ST_DIR/helper/meminspect_test.ko" ]; then
	MI_TEST_KO=${MI_TEST_KO:-$ST_DIR/helper/meminspect_test.ko}
	MI_DRV_KO=${MI_DRV_KO:-$ST_DIR/helper/meminspect_drv.ko}
	MI_BULK_KO=${MI_BULK_KO:-$ST_DIR/helper/meminspect_bulk.ko}
	export MI_TEST_KO MI_DRV_KO MI_BULK_KO
fi
export MI_KO

# The tests need debugfs and the module, as our runner's guest has them (docs/tests.md);
# a dry run against a copy of the files (MI_DIR elsewhere) mounts and loads nothing.
loaded_here=
case ${MI_DIR:-$MI_DEBUGFS/meminspect} in
"$MI_DEBUGFS"/*) live=1 ;;
*) live= ;;
esac
if [ -n "$live" ] && ! grep -q " $MI_DEBUGFS debugfs " /proc/mounts; then
	mount -t debugfs debugfs "$MI_DEBUGFS" 2>/dev/null
fi
if [ -n "$live" ] && [ ! -d /sys/module/meminspect ]; then
	if [ -f "$MI_KO" ] && insmod "$MI_KO"; then
		loaded_here=1
	else
		echo "TAP version 13"
		echo "1..0 # SKIP meminspect is not loaded and $MI_KO cannot be loaded (set MI_KO)"
		exit 4
	fi
fi

out=${TMPDIR:-/tmp}/meminspect-ksft.$$
sh "$ST_DIR/run.sh" "$t" | tee "$out"
n=$(grep -cE '^(not )?ok [0-9]+' "$out")
echo "1..$n"
if [ "$n" -eq 0 ] || grep -qE '^not ok [0-9]+' "$out"; then
	rc=1
elif grep -E '^ok [0-9]+' "$out" | grep -qv '# SKIP'; then
	rc=0
else
	rc=4
fi
rm -f "$out"
# leave the module as we found it
[ -z "$loaded_here" ] || rmmod meminspect 2>/dev/null
exit "$rc"
