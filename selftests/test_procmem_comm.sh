#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A process may name itself anything (prctl(PR_SET_NAME)); its comm in mm,
# in the "# pid N (comm)" notes of mm and vmas, and in the reader's top is
# escaped (spaces, backslashes and non-printing characters as \ooo, as the
# fault log prints comm), so that a newline or a space in it cannot forge
# a record or a field (docs/procmem.md).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

mi_setup comm
MT=${MI_MEMTARGET:-$ST_DIR/progs/memtarget}

require_file "$MI_DIR/mm"
require_file "$MI_DIR/vmas"
require_caps "comm of another process in mm and vmas" pid_select
. "$ST_DIR/lib_procmem.sh"

NAME=$(printf 'a\nb c')
# passed to awk through the environment: -v would expand the escapes
WANT='a\012b\040c'
export WANT

if ! start_target "$T/out" name "$NAME"; then
	fail "memtarget name gets ready"
	exit 0
fi
# the child names itself and exits: wait until it is a zombie. Its state from status, not
# stat: stat's comm field holds the name raw, newline included, so its state is on a second
# line (an awk over stat never sees "Z" alone, and this loop would run to its 10 s cap);
# status escapes the name and has a line of its own for the state.
i=0
while [ "$(awk '$1 == "State:" { print $2 }' "/proc/$cpid/status" 2>/dev/null)" != Z ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && break
	mi_nap 0.1
done
diag "target $tpid, zombie child $cpid (after $i polls), named $(od -c "/proc/$tpid/comm" | head -n 1)"

# mm of the target: the header and one record as wide as the header, its
# last field the escaped name
pm_read mm "$tpid" > "$T/mm"
awk 'BEGIN { want = ENVIRON["WANT"] }
	NR == 1 { n = NF; next }
	{ recs++; if (NF != n || $NF != want) bad = bad " line " NR ": " NF " fields, comm " $NF }
	END { if (NR != 2 || recs != 1 || bad != "") { print "lines " NR bad; exit 1 } }' "$T/mm" > "$T/why"
check "mm of a process named 'a\\nb c': header and one record of the header's width, comm $WANT ($(cat "$T/why"))" \
	test ! -s "$T/why"

# the zombie's notes in mm and vmas: header and one "# pid N (comm)" line
for f in mm vmas; do
	pm_read "$f" "$cpid" > "$T/z$f"
	check "$f of the zombie named 'a\\nb c': header and one note, '# pid $cpid ($WANT): zombie...' ($(sed -n 2,4p "$T/z$f" | tr '\n' '|'))" \
		awk -v pid="$cpid" 'BEGIN { want = "# pid " pid " (" ENVIRON["WANT"] "): zombie" }
			NR == 2 { l = $0 }
			END { exit !(NR == 2 && index(l, want) == 1) }' "$T/z$f"
done

# the reader: mm PID and top show the escaped name, and no forged line
"$MI_READER" mm "$tpid" > "$T/rmm" 2>&1
rc=$?
check "meminspect mm $tpid: exit 0 ($rc), the name shown as $WANT" \
	grep -qF "$WANT" "$T/rmm"
"$MI_READER" top > "$T/top" 2>&1
rc=$?
check "meminspect top: exit 0 ($rc), the target's row ends with $WANT, no row starts with 'b'" \
	awk -v pid="$tpid" -v rc="$rc" 'BEGIN { want = ENVIRON["WANT"] }
		$1 == pid && $NF == want { found = 1 }
		$1 == "b" || $1 == "c" { forged = 1 }
		END { exit !(rc == 0 && found && !forged) }' "$T/top"
[ -s "$T/top" ] && grep -F "$WANT" "$T/top" | sed 's/^/# top: /'

kill "$tpid"
wait "$tpid"
rc=$?
pids=
check "memtarget name exits 0 on SIGTERM ($rc)" [ "$rc" -eq 0 ]
