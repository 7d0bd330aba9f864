#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host test of scripts/skips-check: a lane whose SKIP lines are its listed ones passes; a skip
# not listed, a listed one that did not happen, and another lane's (6.12-rt's beside 6.12's)
# are told apart. Made-up TAP files in a scratch results directory. TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. "$top/selftests/tap.sh"
tap_open
printf '%s\n' '# a comment' \
	'6.12: kunit: suites # SKIP kernel built without CONFIG_KUNIT' \
	'6.12: reports # SKIP * printed no report' \
	'6.12-rt: kunit: suites # SKIP kernel built without CONFIG_KUNIT' \
	'6.12-kselftest: kselftest: test_kunit.sh # SKIP the runner' >"$t/exp"
mkdir "$t/res"
run() { TAP_COUNTER='' "$top/scripts/skips-check" "$t/res" "$t/exp" "$@" 2>&1; }
printf '%s\n' 'ok 1 - a' 'ok 2 - kunit: suites # SKIP kernel built without CONFIG_KUNIT' \
	'ok 3 - reports # SKIP 6.12.95+deb12-amd64 printed no report' >"$t/res/6.12.tap"
printf '%s\n' 'ok 1 - kunit: suites # SKIP kernel built without CONFIG_KUNIT' >"$t/res/6.12-rt.tap"
out=$(run 6.12 6.12-rt)
tap_has "the listed skips pass (a release matched by *; the kselftest part did not run)" \
	"ok 1 - lane 6.12: its 2 skips" "$out"
tap_has "6.12-rt's skip is 6.12-rt's, not 6.12's" "ok 2 - lane 6.12-rt: its 1 skips" "$out"
echo 'ok 4 - pages: page-types # SKIP no page-types' >>"$t/res/6.12.tap"
out=$(run 6.12)
tap_has "a skip not listed fails, named" "not listed: 6.12: pages: page-types # SKIP no page-types" "$out"
sed -i '/reports/d' "$t/res/6.12.tap"
out=$(run 6.12)
tap_has "a listed skip that did not happen fails, named" \
	"listed, not skipped: 6.12: reports # SKIP * printed no report" "$out"
printf '%s\n' 'ok 1 - kselftest: other # SKIP x' >"$t/res/6.12-kselftest.tap"
out=$(run 6.12)
tap_has "a part of the lane that ran (its kselftest check) is compared too" \
	"(2 not listed, 2 listed but not skipped)" "$out"
out=$(run own-x)
tap_has "a lane without a list says so and is not compared" "lane own-x: not in" "$out"
tap_close
