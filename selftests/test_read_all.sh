#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# read_all: the module is loaded and every readable file under $MI_DIR, at
# any depth (fault/ included), reads without an error and prints something;
# the reader's report, which parses every table, succeeds.  The "read" lanes
# (scripts/lib.sh mi_lane_mode: the arm64 kernels but 6.12) run this file
# and test_capabilities.sh only; the other lanes run it with the suite.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

T=$(mi_tmpdir readall) || exit 1
trap 'rm -rf "$T"' EXIT

check "meminspect is loaded (/sys/module/meminspect)" mi_loaded
if [ ! -d "$MI_DIR" ]; then
	fail "$MI_DIR is a directory"
	exit 0
fi

# Every regular file, recursively; a file with no read bit (a write-only
# knob) is listed, not read.  The files have no spaces in their names.
# In test_zzz_lockdown.sh's pass at integrity (MI_LOCKDOWN_PASS) debugfs opens
# no file with a write bit (docs/lockdown.md): such a file is read through its
# mirror under PM_DIR (/dev/meminspect/), and one without a mirror (the
# injector's knobs) must be refused, EPERM.
find "$MI_DIR" -type f | sort > "$T/files"
nfiles=$(wc -l < "$T/files")
check "$MI_DIR holds files ($nfiles, recursively)" [ "$nfiles" -gt 0 ]
nread=0
while read -r f; do
	name=${f#"$MI_DIR"/}
	mode=$(stat -c %A "$f")
	case $mode in
	?r*) ;;
	*)
		diag "$name: mode $mode, no read bit: not read"
		continue
		;;
	esac
	nread=$((nread + 1))
	case $mode in
	??w*)
		if [ -n "${MI_LOCKDOWN_PASS:-}" ] && [ -c "${PM_DIR:-}/$name" ]; then
			f=$PM_DIR/$name
		elif [ -n "${MI_LOCKDOWN_PASS:-}" ]; then
			if cat "$f" > /dev/null 2> "$T/err"; then
				fail "read $name: refused (no mirror, a write bit)"
			else
				check "read $name: refused (no mirror, a write bit): $(cat "$T/err")" \
					grep -q "not permitted" "$T/err"
			fi
			continue
		fi
		;;
	esac
	if cat "$f" > "$T/out" 2> "$T/err"; then
		bytes=$(wc -c < "$T/out")
		if [ "$bytes" -gt 0 ]; then
			ok "read $name: succeeds and prints $bytes bytes"
		else
			fail "read $name: succeeds and prints something"
			diag "$name: read returned nothing"
		fi
	else
		fail "read $name: succeeds and prints something"
		diag "$name: $(cat "$T/err")"
	fi
done < "$T/files"
check "every file has a read bit ($nread of $nfiles read)" [ "$nread" -eq "$nfiles" ]

# The static reader (cross-built for arm64) parses every table it knows.
if "$MI_READER" report > "$T/report" 2> "$T/err"; then
	check "meminspect report: exits 0 and prints $(wc -l < "$T/report") lines" \
		[ -s "$T/report" ]
else
	fail "meminspect report: exits 0"
	sed 's/^/# /' "$T/err"
fi
exit 0
