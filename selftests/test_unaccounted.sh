#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# unaccounted: sane at rest, and it follows pages that the helper module
# (meminspect_test.ko) takes from the page allocator and gives back.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

HOLD_PAGES=16384			# 64 MiB
HOLD_KB=$((HOLD_PAGES * MI_PAGE_KB))
# per-CPU counter drift of ~10 counters on 2 CPUs plus this script's own
# processes: a few MiB at most (docs/tests.md)
TOL_KB=8192
# the helper's cap: 1 GiB worth of pages
CAP_PAGES=$((1024 * 1024 / MI_PAGE_KB))
PAGES=$MI_TEST_DIR/pages

T=$(mi_tmpdir unacc) || exit 1
cleanup()
{
	if [ -w "$PAGES" ]; then
		echo 0 > "$PAGES"
	fi
	if [ -d /sys/module/meminspect_test ]; then
		rmmod meminspect_test
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

require_file "$MI_DIR/summary"

# unacc: the median of three reads of unaccounted (one read can catch a
# burst of per-CPU counter folding)
unacc()
{
	for _i in 1 2 3; do
		mi_field "$MI_DIR/summary" unaccounted
	done | sort -n | sed -n 2p
}

u=$(mi_field "$MI_DIR/summary" unaccounted)
if [ "$u" = - ]; then
	why=$(cap_detail summary.unaccounted) || why="no summary.unaccounted row"
	skip "unaccounted tests" "unaccounted is '-': $why"
	exit 0
fi
managed=$(mi_field "$MI_DIR/summary" managed)
diag "unaccounted $u kB, managed $managed kB"
check "unaccounted is a number" is_num "$u"
is_num "$u" || exit 0
check "unaccounted >= 0" [ "$u" -ge 0 ]
if is_num "$managed"; then
	check "unaccounted < managed" [ "$u" -lt "$managed" ]
else
	skip "unaccounted < managed" "managed is '$managed'"
fi

# ---- the helper module ------------------------------------------------------

mi_lockdown_stop "the helper module"
if [ -d /sys/module/meminspect_test ]; then
	diag "meminspect_test was loaded already: reloading it"
	rmmod meminspect_test
fi
if ! insmod "$MI_TEST_KO"; then
	fail "insmod $MI_TEST_KO"
	exit 0
fi
ok "insmod $MI_TEST_KO"
if [ ! -w "$PAGES" ]; then
	fail "$PAGES exists"
	exit 0
fi
check_read "$PAGES starts at 0" "$PAGES" 0

# ---- hold 64 MiB, then give it back -----------------------------------------

base=$(unacc)
free0=$(mi_field "$MI_DIR/summary" mem_free)
if echo "$HOLD_PAGES" > "$PAGES"; then
	ok "write $HOLD_PAGES to pages"
else
	fail "write $HOLD_PAGES to pages"
fi
check_read "pages reads back $HOLD_PAGES" "$PAGES" "$HOLD_PAGES"
held=$(unacc)
free1=$(mi_field "$MI_DIR/summary" mem_free)
diag "unaccounted $base -> $held kB, mem_free $free0 -> $free1 kB" \
	"while holding $HOLD_KB kB"
check_within "unaccounted rises by $HOLD_KB kB while $HOLD_PAGES pages are held" \
	$((held - base)) "$HOLD_KB" "$TOL_KB"

# ---- bad writes change nothing ----------------------------------------------

# bad_write INPUT ERRNO_TEXT: the write fails with that error and the
# count stays at $HOLD_PAGES
bad_write()
{
	_err=$( (echo "$1" > "$PAGES") 2>&1)
	_rc=$?
	_now=$(cat "$PAGES")
	if [ "$_rc" -ne 0 ] && [ "$_now" = "$HOLD_PAGES" ] &&
	   echo "$_err" | grep -q "$2"; then
		ok "bad write '$1' fails ($2) and changes nothing"
	else
		fail "bad write '$1' fails ($2) and changes nothing"
		diag "write status $_rc, message '$_err', pages now $_now"
	fi
}

bad_write garbage "Invalid argument"
bad_write -1 "Invalid argument"
bad_write 12abc "Invalid argument"
bad_write "" "Invalid argument"
bad_write 0x10 "Invalid argument"
bad_write "1 2" "Invalid argument"
bad_write $((CAP_PAGES + 1)) "out of range"
bad_write 18446744073709551616 "out of range"
bad_write 123456789012345678901234567890 "Invalid argument"
after_bad=$(unacc)
check_within "unaccounted unchanged by the bad writes" \
	"$after_bad" "$held" "$TOL_KB"

# ---- shrink ----------------------------------------------------------------

if echo 0 > "$PAGES"; then
	ok "write 0 to pages"
else
	fail "write 0 to pages"
fi
check_read "pages reads back 0" "$PAGES" 0
back=$(unacc)
diag "unaccounted back to $back kB (started at $base kB)"
check_within "unaccounted returns to its start after writing 0" \
	"$back" "$base" "$TOL_KB"

# a partial shrink is exact too
echo 1000 > "$PAGES" && echo 10 > "$PAGES"
check_read "pages reads back 10 after 1000 then 10" "$PAGES" 10

# ---- unload frees what is held ----------------------------------------------

echo 4096 > "$PAGES"
pre=$(unacc)
if rmmod meminspect_test; then
	ok "rmmod meminspect_test while holding 4096 pages"
else
	fail "rmmod meminspect_test while holding 4096 pages"
fi
check "debugfs meminspect_test/ is gone" [ ! -e "$MI_TEST_DIR" ]
post=$(unacc)
check_within "unaccounted falls by $((4096 * MI_PAGE_KB)) kB on unload" \
	$((pre - post)) $((4096 * MI_PAGE_KB)) "$TOL_KB"

exit 0
