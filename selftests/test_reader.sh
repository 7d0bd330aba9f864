#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The reader (/usr/bin/meminspect): its table and JSON show what the
# module's files say, and its exit status names what is wrong
# (0 ok, 1 format, 2 usage, 3 no debugfs, 4 no module, 5 permission).
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

mi_setup reader mi_restore
require_reader
require_file "$MI_DIR/summary"

# reader_status DESC WANT CMD...: the reader's exit status is WANT
reader_status()
{
	_d=$1 _want=$2
	shift 2
	"$@" > "$T/out" 2> "$T/err"
	_rc=$?
	if [ "$_rc" -eq "$_want" ]; then
		ok "$_d: exit status $_want"
	else
		fail "$_d: exit status $_want"
		diag "exit status $_rc; stderr: $(head -c 400 "$T/err" | tr '\n' ' ')"
	fi
}

# reader_says DESC TEXT: the last reader_status call's stderr holds TEXT
reader_says()
{
	if grep -qF "$2" "$T/err"; then
		ok "$1: says '$2'"
	else
		fail "$1: says '$2'"
		diag "stderr: $(head -c 400 "$T/err" | tr '\n' ' ')"
	fi
}

# ---- version: the loaded module is the reader's own -------------------------

reader_status "meminspect --version" 0 "$MI_READER" --version
modv=$(cat /sys/module/meminspect/version 2> /dev/null)
if [ -n "$modv" ] && grep -qx "module meminspect $modv" "$T/out" && [ ! -s "$T/err" ]; then
	ok "meminspect --version: names the loaded module's version ($modv), no warning"
else
	fail "meminspect --version: names the loaded module's version ($modv), no warning"
	diag "$(tr '\n' ' ' < "$T/out") / stderr: $(head -c 200 "$T/err")"
fi

# ---- table and JSON against the live files ----------------------------------

reader_status "meminspect summary" 0 "$MI_READER" summary
cp "$T/out" "$T/live.table"
cat "$MI_DIR/summary" > "$T/live.summary"

# table_values TABLE: "field value" for each record of the reader's table
# (header and notes dropped; columns are padded, so split on blanks)
table_values()
{
	awk 'NR > 1 && !/^#/ && NF >= 2 { print $1, $2 }' "$1"
}

hdr=$(head -n 1 "$T/live.table" | tr -s ' ')
check "meminspect summary: header names field value unit" \
	[ "$hdr" = "field value unit" ]

want=$(mi_keys "$T/live.summary" | tr '\n' ' ')
got=$(table_values "$T/live.table" | awk '{ print $1 }' | tr '\n' ' ')
if [ "$want" = "$got" ]; then
	ok "meminspect summary: same fields, same order as the summary file"
else
	fail "meminspect summary: same fields, same order as the summary file"
	diag "file:  $want"
	diag "table: $got"
fi

# static figures cannot move between the two reads
for f in mem_total hugepage_size managed; do
	v=$(mi_field "$T/live.summary" "$f") || continue
	t=$(table_values "$T/live.table" | awk -v f="$f" '$1 == f { print $2 }')
	if [ "$v" = "$t" ]; then
		ok "meminspect summary: $f is $v as in the file"
	else
		fail "meminspect summary: $f is $v as in the file"
		diag "table says '$t'"
	fi
done

reader_status "meminspect --json summary" 0 "$MI_READER" --json summary
tr -d ' \t\n' < "$T/out" > "$T/live.json"
total=$(mi_field "$T/live.summary" mem_total)
case $(cat "$T/live.json") in
'{'*'}')
	ok "meminspect --json summary: one JSON object" ;;
*)
	fail "meminspect --json summary: one JSON object"
	diag "$(head -c 200 "$T/out")" ;;
esac
if grep -q "\"mem_total\":{\"value\":$total[,}]" "$T/live.json"; then
	ok "meminspect --json summary: mem_total is $total"
else
	fail "meminspect --json summary: mem_total is $total"
	diag "$(head -c 300 "$T/live.json")"
fi

reader_status "meminspect capabilities" 0 "$MI_READER" capabilities
reader_status "meminspect report" 0 "$MI_READER" report

# ---- exact comparison on a frozen copy (--dir) --------------------------------

mkdir "$T/snap"
cat "$MI_DIR/summary" > "$T/snap/summary"
cat "$MI_DIR/capabilities" > "$T/snap/capabilities"
reader_status "meminspect --dir COPY summary" 0 "$MI_READER" --dir "$T/snap" summary
table_values "$T/out" > "$T/snap.table"
awk 'NR > 1 && !/^#/ { print $1, $2 }' "$T/snap/summary" > "$T/snap.file"
if cmp -s "$T/snap.table" "$T/snap.file"; then
	ok "meminspect --dir COPY summary: every value as in the copy"
else
	fail "meminspect --dir COPY summary: every value as in the copy"
	diff "$T/snap.file" "$T/snap.table" | sed 's/^/# /' | head -n 20
fi

reader_status "meminspect --json --dir COPY summary" 0 \
	"$MI_READER" --json --dir "$T/snap" summary
tr -d ' \t\n' < "$T/out" > "$T/snap.json"
missing=
while read -r f v; do
	[ "$v" = - ] && v=null
	grep -q "\"$f\":{\"value\":$v[,}]" "$T/snap.json" || missing="$missing $f=$v"
done < "$T/snap.file"
if [ -z "$missing" ]; then
	ok "meminspect --json --dir COPY summary: every value as in the copy"
else
	fail "meminspect --json --dir COPY summary: every value as in the copy"
	diag "not found:$missing"
fi

# ---- exit statuses -------------------------------------------------------------

reader_status "bad option" 2 "$MI_READER" --no-such-option summary
reader_status "bad command" 2 "$MI_READER" no-such-command
reader_status "--dir that does not exist" 2 "$MI_READER" --dir "$T/nowhere" summary

mkdir "$T/bad"
printf 'field value unit\nmem_total\n' > "$T/bad/summary"
cp "$T/snap/capabilities" "$T/bad/capabilities"
reader_status "summary with a short record" 1 "$MI_READER" --dir "$T/bad" summary
printf 'name value\nmem_total 1\n' > "$T/bad/summary"
reader_status "summary with the wrong header" 1 "$MI_READER" --dir "$T/bad" summary

# as nobody: busybox su needs no password from root
uid=$(su -s /bin/sh nobody -c 'id -u' 2> "$T/err")
if [ "$uid" = 65534 ]; then
	reader_status "as nobody" 5 su -s /bin/sh nobody -c "$MI_READER summary"
	reader_says "as nobody" "not root; run meminspect as root"
else
	fail "as nobody: exit status 5"
	diag "su -s /bin/sh nobody does not work: uid '$uid', $(cat "$T/err")"
fi

# debugfs unmounted
if umount "$MI_DEBUGFS" 2> "$T/err"; then
	reader_status "debugfs unmounted" 3 "$MI_READER" summary
	reader_says "debugfs unmounted" "debugfs is not mounted on $MI_DEBUGFS; mount it"
	reader_status "debugfs unmounted, export --textfile-dir" 3 \
		"$MI_READER" export --prometheus --textfile-dir "$T"
	check "debugfs unmounted: the textfile says meminspect_up 0" \
		grep -qx 'meminspect_up 0' "$T/meminspect.prom"
	mount -t debugfs debugfs "$MI_DEBUGFS"
	check "debugfs remounted: $MI_DIR/summary is back" [ -r "$MI_DIR/summary" ]
	reader_status "after remounting debugfs" 0 "$MI_READER" summary
else
	fail "debugfs unmounted: exit status 3"
	diag "umount $MI_DEBUGFS failed: $(cat "$T/err")"
fi

# module unloaded (retry: a reader still closing a file pins the module)
i=0
while ! rmmod meminspect 2> "$T/err" && [ $i -lt 20 ]; do
	i=$((i + 1))
	usleep 100000
done
if ! mi_loaded; then
	reader_status "module unloaded" 4 "$MI_READER" summary
	reader_says "module unloaded" "the meminspect module is not loaded; load it"
	if insmod "$MI_KO"; then
		ok "insmod $MI_KO"
	else
		fail "insmod $MI_KO"
	fi
	reader_status "after reloading the module" 0 "$MI_READER" summary
else
	fail "module unloaded: exit status 4"
	diag "rmmod meminspect failed: $(cat "$T/err")"
fi

exit 0
