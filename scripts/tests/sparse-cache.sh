#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host test of scripts/sparse-cache, lint's sparse behind a cache (scripts/kbuild): a stand-in
# `sparse` on PATH prints a warning and counts its runs. The same inputs replay the warning and
# the status without a run; another argument, a changed source, a changed or added header beside
# it, or another MI_SPARSE_ENV runs it again; a failed run is not kept; without MI_SPARSE_CACHE
# it is plain sparse. TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. "$top/selftests/tap.sh"
tap_open

mkdir -p "$t/bin" "$t/src" "$t/cache"
cat >"$t/bin/sparse" <<'EOF'
#!/bin/sh
echo run >>"$SPARSE_RUNS"
for f; do :; done
echo "$f:1:1: warning: stand-in ($*)" >&2
exit "${SPARSE_RC:-0}"
EOF
chmod +x "$t/bin/sparse"
export PATH="$t/bin:$PATH" SPARSE_RUNS=$t/runs MI_SPARSE_CACHE=$t/cache MI_SPARSE_ENV=env1
echo 'int a;' >"$t/src/a.c"
echo '#define X 1' >"$t/src/a.h"
runs() { [ -f "$SPARSE_RUNS" ] && wc -l <"$SPARSE_RUNS" || echo 0; }
# sc ARGS...: sparse-cache's stderr, then "rc=N runs=N"
sc() {
	local err rc
	err=$("$top/scripts/sparse-cache" "$@" 2>&1 >/dev/null)
	rc=$?
	printf '%s rc=%s runs=%s' "$err" "$rc" "$(runs)"
}
w="$t/src/a.c:1:1: warning: stand-in (-D1 $t/src/a.c)"
tap_is "first run: sparse runs, its warning printed" "$(sc -D1 "$t/src/a.c")" "$w rc=0 runs=1"
tap_is "same inputs: the warning replayed, sparse not run" "$(sc -D1 "$t/src/a.c")" "$w rc=0 runs=1"
tap_is "another argument: sparse runs" "$(sc -D2 "$t/src/a.c" | sed 's/.*rc=/rc=/')" "rc=0 runs=2"
echo 'int b;' >>"$t/src/a.c"
tap_is "the source changed: sparse runs" "$(sc -D1 "$t/src/a.c" | sed 's/.*rc=/rc=/')" "rc=0 runs=3"
echo '#define Y 2' >>"$t/src/a.h"
tap_is "a header beside it changed: sparse runs" "$(sc -D1 "$t/src/a.c" | sed 's/.*rc=/rc=/')" "rc=0 runs=4"
echo '' >"$t/src/b.h"
tap_is "a header added beside it: sparse runs" "$(sc -D1 "$t/src/a.c" | sed 's/.*rc=/rc=/')" "rc=0 runs=5"
tap_is "then the same inputs again: not run" "$(sc -D1 "$t/src/a.c" | sed 's/.*rc=/rc=/')" "rc=0 runs=5"
tap_is "another kernel build or root (MI_SPARSE_ENV): sparse runs" \
	"$(MI_SPARSE_ENV=env2 sc -D1 "$t/src/a.c" | sed 's/.*rc=/rc=/')" "rc=0 runs=6"
tap_is "a failed run: its status passed on" \
	"$(SPARSE_RC=3 sc -D3 "$t/src/a.c" | sed 's/.*rc=/rc=/')" "rc=3 runs=7"
tap_is "a failed run is not kept: run again" \
	"$(SPARSE_RC=3 sc -D3 "$t/src/a.c" | sed 's/.*rc=/rc=/')" "rc=3 runs=8"
rm "$t/cache"/*.out
tap_is "an entry missing its output is a miss" "$(sc -D1 "$t/src/a.c" | sed 's/.*rc=/rc=/')" "rc=0 runs=9"
tap_is "without MI_SPARSE_CACHE: plain sparse every time" \
	"$(MI_SPARSE_CACHE='' sc -D1 "$t/src/a.c" | sed 's/.*rc=/rc=/')" "rc=0 runs=10"
tap_close
