#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# KUnit: load meminspect_kunit.ko (the module's pure logic: fragmentation
# math, parameter and knob parsing; module/kunit/), which runs its suites at
# load, and turn each suite's KTAP (/sys/kernel/debug/kunit/SUITE/results)
# into TAP: one result per KUnit case, a failing case fails the lane, the
# failing case's log becomes diagnostics.  Kernels without CONFIG_KUNIT (every
# stock Debian kernel) skip, as the capabilities row "kunit" says.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

# beside the module under test unless given (a kselftest install puts them elsewhere)
MI_KUNIT_KO=${MI_KUNIT_KO:-$(dirname "$MI_KO")/meminspect_kunit.ko}
# The suites meminspect_kunit.ko registers (module/kunit/kunit_main.c).
SUITES="meminspect_frag meminspect_params meminspect_fault_parse"

require_file "$MI_DIR/capabilities"
avail=$(cap_available kunit) || {
	fail "capabilities: a kunit row"
	exit 0
}
if [ "$avail" != yes ]; then
	skip "kunit: meminspect's KUnit suites ($SUITES)" "$(cap_detail kunit)"
	exit 0
fi
require_file "$MI_KUNIT_KO"

T=$(mi_tmpdir kunit) || exit 1
trap 'rmmod meminspect_kunit 2>/dev/null; rm -rf "$T"' EXIT

rmmod meminspect_kunit 2>/dev/null
if ! insmod "$MI_KUNIT_KO" 2> "$T/insmod.err"; then
	fail "kunit: insmod meminspect_kunit.ko"
	sed 's/^/# /' "$T/insmod.err"
	exit 0
fi
ok "kunit: insmod meminspect_kunit.ko ran the suites"

KDIR=$MI_DEBUGFS/kunit
for s in $SUITES; do
	if ! cat "$KDIR/$s/results" > "$T/$s" 2> /dev/null || [ ! -s "$T/$s" ]; then
		fail "kunit $s: results in $KDIR/$s/results"
		continue
	fi
	# KTAP of one suite (lib/kunit/debugfs.c): "    1..N", then per case its
	# log lines and "    ok|not ok N CASE [# SKIP reason]" at one level of
	# indentation, and the suite's own "ok|not ok 1 SUITE" last.  Print
	# one "RESULT CASE [reason]" line per case, "log: ..." lines of a failed
	# case before it, and "plan N" / "suite ok|not ok".
	awk '
		/^    1\.\.[0-9]+$/ { sub(/^ +1\.\./, ""); print "plan " $0; next }
		/^    (not )?ok [0-9]+ / {
			line = $0
			sub(/^    /, "", line)
			res = "ok"
			if (line ~ /^not ok /) { res = "fail"; sub(/^not ok [0-9]+ /, "", line) }
			else sub(/^ok [0-9]+ /, "", line)
			if (line ~ / # SKIP/) {
				res = "skip"
			}
			if (res == "fail")
				for (i = 1; i <= nlog && i <= 30; i++)
					print "log: " logl[i]
			nlog = 0
			print res " " line
			next
		}
		/^(not )?ok [0-9]+ / { print "suite " ($1 == "ok" ? "ok" : "not ok"); next }
		/KTAP version|# Subtest:|# module:/ { next }
		{ logl[++nlog] = $0 }
	' "$T/$s" > "$T/$s.res"
	plan=$(sed -n 's/^plan //p' "$T/$s.res" | head -n 1)
	ncases=$(grep -cE '^(ok|fail|skip) ' "$T/$s.res")
	while IFS= read -r l; do
		case $l in
		"log: "*) diag "${l#log: }" ;;
		"ok "*) ok "kunit $s: ${l#ok }" ;;
		"fail "*) fail "kunit $s: ${l#fail }" ;;
		"skip "*)
			c=${l#skip }
			skip "kunit $s: ${c%% \# SKIP*}" "${c#* \# SKIP }"
			;;
		esac
	done < "$T/$s.res"
	if [ -n "$plan" ] && [ "$plan" -gt 0 ] && [ "$ncases" -eq "$plan" ]; then
		ok "kunit $s: all $plan cases reported"
	else
		fail "kunit $s: all cases reported"
		diag "plan '${plan:-none}', $ncases case results"
		sed 's/^/# /' "$T/$s" | head -n 40
	fi
	if ! grep -qx 'suite ok' "$T/$s.res"; then
		fail "kunit $s: the suite passed"
		diag "suite line: $(grep '^suite' "$T/$s.res" || echo none)"
	fi
done

if rmmod meminspect_kunit; then
	ok "kunit: rmmod meminspect_kunit"
else
	fail "kunit: rmmod meminspect_kunit"
fi
