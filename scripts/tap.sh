# SPDX-License-Identifier: GPL-2.0
# A tiny TAP writer for the host-side scripts (lint, check). Sourced.
# tap_open FILE starts a stream; tap_ok/tap_fail/tap_skip add results; tap_close writes the plan.
tap_open() { tap_file=$1; tap_n=0; echo "TAP version 13" >"$tap_file"; }
tap_ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*" | tee -a "$tap_file"; }
tap_fail() { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $*" | tee -a "$tap_file"; }
tap_skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2" | tee -a "$tap_file"; }
tap_diag() { sed 's/^/# /' | tee -a "$tap_file"; }
tap_close() { echo "1..$tap_n" >>"$tap_file"; }
# tap_check DESC CMD...: ok when CMD succeeds; its output becomes diagnostics otherwise.
tap_check() {
	local desc=$1 log
	shift
	if log=$("$@" 2>&1); then tap_ok "$desc"; else tap_fail "$desc"; printf '%s\n' "$log" | tail -n 30 | tap_diag; fi
}
