#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host test of the kselftest contract of selftests/ (docs/kselftest.md): a test file run on
# its own goes through ksft.sh and exits 0 (all passed), 1 (a failure, a crash, no result)
# or 4 (all skipped), printing run.sh's TAP with a plan. Made-up test files in a copy of the
# runner, run as a dry run (MI_DIR outside debugfs: nothing is mounted or loaded). TAP on stdout.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cp "$top"/selftests/{run.sh,ksft.sh,tap.sh,lib.sh} "$t/"
mkdir "$t/copy"
. "$top/selftests/tap.sh"
tap_open

# tap.sh's own counter (no TAP_COUNTER given) is gone after tap_close, and a child's
# tap_close leaves the parent's alone: the child's results count on in the parent's file.
mkdir "$t/tmpd"
(
	cd "$t" && env -u TAP_COUNTER TMPDIR="$t/tmpd" sh -c '. ./tap.sh; tap_open; tap_ok one
		sh -c ". ./tap.sh; tap_ok two; tap_close >/dev/null"; tap_ok three; tap_close'
) >"$t/out" 2>&1
left=$(ls -A "$t/tmpd")
grep -qx 'ok 3 - three' "$t/out" && grep -qx '1\.\.3' "$t/out" && [ -z "$left" ]
tap_result $? "tap.sh: the counter it made is removed by tap_close, not by a child's (left: ${left:-none})" \
	"$(cat "$t/out")"

# case DESC WANT-STATUS WANT-PLAN BODY: BODY is the test file after lib.sh is sourced
case_() {
	local desc=$1 want=$2 plan=$3 rc
	printf '#!/bin/sh\n. "$(dirname "$0")/lib.sh"\n%s\n' "$4" >"$t/test_case.sh"
	chmod +x "$t/test_case.sh"
	(cd "$t" && env -u MI_TAP_COUNTER MI_DIR="$t/copy" ./test_case.sh) >"$t/out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] && grep -qx "1\.\.$plan" "$t/out" && grep -q '^TAP version 13' "$t/out"
	tap_result $? "ksft.sh: $desc: exit $rc (want $want), plan 1..$plan" "$(cat "$t/out")"
}

case_ "all pass" 0 2 'ok "one"; ok "two"'
case_ "one failure" 1 2 'ok "one"; fail "two"'
case_ "all skipped" 4 2 'skip "one" "no such thing"; skip "two" "no such thing"'
case_ "a skip beside a pass" 0 2 'ok "one"; skip "two" "no such thing"'
case_ "non-zero exit after passes" 1 2 'ok "one"; exit 3'
case_ "no result" 1 1 'diag "nothing"'
# Under run.sh (MI_TAP_COUNTER set) a test file is not handed to ksft.sh: no plan of its own.
printf '#!/bin/sh\n. "$(dirname "$0")/lib.sh"\nok "one"\n' >"$t/test_case.sh"
(cd "$t" && MI_DIR="$t/copy" ./run.sh test_case.sh) >"$t/out" 2>&1
grep -qx 'ok 1 - one' "$t/out" && ! grep -q '^1\.\.' "$t/out"
tap_result $? "run.sh: a test file under our runner prints no plan (the host adds it)" "$(cat "$t/out")"
# The helper modules: those in helper/ beside the tests (where the kselftest target builds and
# installs them), else our runner's /meminspect/; MI_TEST_KO and MI_DRV_KO set by the caller win.
helper_case() {
	local desc=$1 want=$2
	shift 2
	printf '#!/bin/sh\n. "$(dirname "$0")/lib.sh"\nok "ko=$MI_TEST_KO drv=${MI_DRV_KO:-}"\n' >"$t/test_case.sh"
	(cd "$t" && env -u MI_TAP_COUNTER -u MI_TEST_KO -u MI_DRV_KO MI_DIR="$t/copy" "$@" ./test_case.sh) \
		>"$t/out" 2>&1
	grep -qx "ok 1 - $want" "$t/out"
	tap_result $? "ksft.sh: the helper module $desc" "$(cat "$t/out")"
}
helper_case "without helper/ beside the tests: /meminspect's" "ko=/meminspect/meminspect_test.ko drv="
mkdir "$t/helper" && : >"$t/helper/meminspect_test.ko"
helper_case "with helper/ beside the tests: that one" \
	"ko=$t/helper/meminspect_test.ko drv=$t/helper/meminspect_drv.ko"
helper_case "set by the caller: that one" "ko=/x/t.ko drv=/x/d.ko" MI_TEST_KO=/x/t.ko MI_DRV_KO=/x/d.ko
tap_close
