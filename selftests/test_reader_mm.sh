#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The reader's zones, buddy and frag commands on the guest's real files:
# the tables carry every value of the file unchanged (checked on a frozen
# copy, so exact), --json is one array with an object per record, --watch
# samples the live file, --help works.  Full JSON validation is on the host
# (userspace/tests/run.sh, with jq).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

T=$(mi_tmpdir reader_mm) || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 143' TERM INT

mkdir "$T/copy"
for f in zones buddy fragmentation fragmentation_types capabilities; do
	require_file "$MI_DIR/$f"
	cat "$MI_DIR/$f" > "$T/copy/$f"
done

# frag%--types: "frag --types" (% for the space, so the list splits on spaces)
for c in zones:zones buddy:buddy frag:fragmentation frag%--types:fragmentation_types; do
	cmd=$(echo "${c%%:*}" | tr % ' ') file=${c#*:}
	# $cmd unquoted: the command and its option as two words
	# shellcheck disable=SC2086
	"$MI_READER" $cmd > "$T/live" 2> "$T/err"
	check "meminspect $cmd: exit 0 on the live file" [ $? -eq 0 ]
	# shellcheck disable=SC2086
	"$MI_READER" --dir "$T/copy" $cmd > "$T/out" 2> "$T/err"
	rc=$?
	# the table is the file with columns padded: squeeze the padding
	sed 's/  */ /g; s/^ //; s/ $//' "$T/out" > "$T/squeezed"
	# the table prints the notes after the records
	grep -v '^#' "$T/copy/$file" > "$T/want"
	grep '^#' "$T/copy/$file" >> "$T/want"
	if [ "$rc" -eq 0 ] && cmp -s "$T/squeezed" "$T/want"; then
		ok "meminspect --dir COPY $cmd: every value, record and note of the file, unchanged"
	else
		fail "meminspect --dir COPY $cmd (exit $rc)"
		diff "$T/want" "$T/squeezed" | head -n 5 | sed 's/^/# /'
	fi
	# shellcheck disable=SC2086
	"$MI_READER" --dir "$T/copy" --json $cmd > "$T/json" 2> "$T/err"
	rc=$?
	recs=$(grep -vc '^#' "$T/copy/$file")
	objs=$(grep -c '^    "node": ' "$T/json")
	first=$(head -c 1 "$T/json")
	good=no
	[ "$rc" -eq 0 ] && [ "$first" = "[" ] && [ "$objs" -eq $((recs - 1)) ] && good=yes
	check "meminspect --json $cmd: exit $rc, an array ($first) of $objs objects for $((recs - 1)) records" \
		[ "$good" = yes ]
	# shellcheck disable=SC2086
	"$MI_READER" $cmd --help > "$T/help" 2>&1
	rc=$?
	good=no
	[ "$rc" -eq 0 ] && grep -q "meminspect .*${cmd%% *}" "$T/help" && good=yes
	check "meminspect $cmd --help: exit $rc, names the command" [ "$good" = yes ]
done

"$MI_READER" buddy --watch 1 --count 2 > "$T/watch" 2> "$T/err"
rc=$?
n=$(grep -cE '^== [0-9-]+ [0-9:]+ ==$' "$T/watch")
good=no
[ "$rc" -eq 0 ] && [ "$n" -eq 2 ] && good=yes
check "meminspect buddy --watch 1 --count 2: exit $rc, $n rounds" [ "$good" = yes ]
"$MI_READER" --json frag --watch 1 --count 2 > "$T/watch" 2> "$T/err"
rc=$?
n=$(grep -c '"change": {' "$T/watch")
want=$(($(grep -vc '^#' "$T/copy/fragmentation") - 1))
good=no
[ "$rc" -eq 0 ] && [ "$n" -eq "$want" ] && good=yes
check "meminspect --json frag --watch 1 --count 2: exit $rc, a change object for each of the $want records of the second sample ($n)" \
	[ "$good" = yes ]
