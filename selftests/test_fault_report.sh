#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `meminspect report` and `meminspect export` carry the fault tables of the
# real module (docs/fault-reader.md, "Export and report"): the module lists
# fault/ in capabilities as a mechanism row, and the reader reads it so.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "${ST_DIR:-$(dirname "$0")}/lib_fault.sh"

R=$MI_READER
fault_setup fault_report
if [ "$(cap_available fault)" != yes ]; then
	skip "fault in report and export" "capabilities: fault: $(cap_detail fault)"
	exit 0
fi
check_eq "capabilities: fault is a mechanism row" \
	"$(awk '$1 == "fault" { print $2 }' "$MI_DIR/capabilities")" mechanism

# one arming that fails nothing, so that the counters are not all 0
must sites slab
must aim-comm no_such_task
must armed 1
must armed 0
checked=$(fstat slab checked)

"$R" report > "$T/report" 2> "$T/report.err"
rc=$?
check_eq "report: exit 0" "$rc" 0
check_eq "report: the fault row shows its three tables" \
	"$(grep '^== fault/' "$T/report" | tr '\n' '|')" \
	"== fault/settings ==|== fault/stats ==|== fault/log ==|"
"$R" --json report > "$T/report.json"
# pretty-printed: "fault" at the top level, its tables one level down
if grep -A1 '^  "fault": {$' "$T/report.json" | grep -q '^    "settings": \[$' &&
   grep -q '^    "stats": \[$' "$T/report.json" && grep -q '^    "log": \[' "$T/report.json"; then
	ok "report --json: \"fault\" is an object of its tables"
else
	fail "report --json: \"fault\" is an object of its tables"
fi

"$R" export --prometheus > "$T/prom" 2> "$T/prom.err"
rc=$?
check_eq "export --prometheus: exit 0" "$rc" 0
for site in slab pages; do
	for m in checked matched failed nofail spared; do
		v=$(sed -n "s/^meminspect_fault_${m}_total{site=\"$site\"} //p" "$T/prom")
		want=$(fstat "$site" "$m")
		check_eq "export: meminspect_fault_${m}_total{site=\"$site\"} is fault/stats' $want" "$v" "$want"
	done
done
check_eq "export: meminspect_fault_attached{site=\"slab\"} 0 (disarmed)" \
	"$(sed -n 's/^meminspect_fault_attached{site="slab"} //p' "$T/prom")" 0
check_eq "export: meminspect_file_ok{file=\"fault\"} 1" \
	"$(sed -n 's/^meminspect_file_ok{file="fault"} //p' "$T/prom")" 1
diag "slab checked $checked"
