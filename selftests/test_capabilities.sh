#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# capabilities: the file parses, lists every file of $MI_DIR exactly once,
# its summary.* field rows agree with what summary shows, and the reasons it
# gives about the kernel (symbols not found, preemption, the probe's way
# back) hold for the running kernel.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

mi_setup caps

require_file "$MI_DIR/capabilities"
require_file "$MI_DIR/summary"
cat "$MI_DIR/capabilities" > "$T/caps"
cat "$MI_DIR/summary" > "$T/summary"

# ends_with_newline FILE
ends_with_newline()
{
	[ -s "$1" ] && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ]
}

# -- capabilities format ---------------------------------------------------

check_header "capabilities: header is 'name kind available detail'" "$T/caps" "name kind available detail"

check "capabilities: ends with a newline" ends_with_newline "$T/caps"

bad=$(awk 'NR > 1 && !/^#/ {
	why = ""
	if (NF < 4 || $0 ~ /^ / || $0 ~ /  /)
		why = "fewer than 4 single-space separated values"
	else if ($2 != "file" && $2 != "field" && $2 != "mechanism")
		why = "kind is not file/field/mechanism"
	else if ($3 != "yes" && $3 != "no")
		why = "available is not yes/no"
	else if ($1 !~ /^[a-z0-9_.]+$/)
		why = "bad name"
	if (why != "")
		printf "line %d: %s: %s\n", NR, why, $0
}' "$T/caps")
check_none "capabilities: every record has name, kind, yes/no and a detail" "$bad"

dups=$(awk 'NR > 1 && !/^#/ { print $1 }' "$T/caps" | sort | uniq -d)
if [ -z "$dups" ]; then
	ok "capabilities: names are unique"
else
	fail "capabilities: names are unique"
	diag "repeated: $(echo $dups)"
fi

nrec=$(awk 'NR > 1 && !/^#/ { n++ } END { print n + 0 }' "$T/caps")
diag "capabilities: $nrec records," \
	"$(awk 'NR > 1 && $3 == "no" { n++ } END { print n + 0 }' "$T/caps") unavailable"
awk 'NR > 1 && $3 == "no" { print "# unavailable: " $0 }' "$T/caps"

# -- one file row per file, and every file row's file exists ------------------

for f in "$MI_DIR"/*; do
	# files only: a directory (fault/) has a mechanism row of its name
	[ -f "$f" ] || continue
	name=${f##*/}
	n=$(awk -v f="$name" 'NR > 1 && $1 == f && $2 == "file" { n++ }
		END { print n + 0 }' "$T/caps")
	if [ "$n" -eq 1 ]; then
		ok "capabilities: file $name has one file row"
	else
		fail "capabilities: file $name has one file row"
		diag "$name has $n rows of kind file"
	fi
done

for name in $(awk 'NR > 1 && !/^#/ && $2 == "file" { print $1 }' "$T/caps"); do
	avail=$(mi_lookup "$T/caps" "$name" available)
	if [ -e "$MI_DIR/$name" ]; then
		ok "capabilities: file row $name ($avail): $MI_DIR/$name exists"
	else
		fail "capabilities: file row $name ($avail): $MI_DIR/$name exists"
	fi
done

check "capabilities: summary has a file row saying yes" \
	[ "$(mi_lookup "$T/caps" summary available)" = yes ]

# -- summary format ------------------------------------------------------------

check_header "summary: header is 'field value unit'" "$T/summary" "field value unit"

check "summary: ends with a newline" ends_with_newline "$T/summary"

bad=$(awk 'NR > 1 && !/^#/ {
	why = ""
	if (NF != 3 || $0 ~ /^ / || $0 ~ /  /)
		why = "not 3 single-space separated values"
	else if ($1 !~ /^[a-z0-9_]+$/)
		why = "bad field name"
	else if ($2 != "-" && $2 !~ /^-?[0-9]+$/)
		why = "value is neither an integer nor -"
	else if ($3 != "kB" && $3 != "pages" && $3 != "order")
		why = "unit is not kB/pages/order"
	if (why != "")
		printf "line %d: %s: %s\n", NR, why, $0
}' "$T/summary")
check_none "summary: every record is 'field number-or-dash unit'" "$bad"

# -- summary.X field rows against summary -------------------------------------

rows=$(awk 'NR > 1 && !/^#/ && $2 == "field" && $1 ~ /^summary\./ {
	print substr($1, 9) }' "$T/caps")
[ -n "$rows" ] || diag "capabilities has no summary.* field rows"
for x in $rows; do
	avail=$(mi_lookup "$T/caps" "summary.$x" available)
	v=$(mi_field "$T/summary" "$x")
	if [ $? -ne 0 ]; then
		fail "summary.$x ($avail): summary has field $x"
		continue
	fi
	if [ "$avail" = yes ]; then
		if is_num "$v"; then
			ok "summary.$x is available and summary shows a number ($v)"
		else
			fail "summary.$x is available and summary shows a number"
			diag "summary $x = '$v'"
		fi
	else
		if [ "$v" = - ]; then
			ok "summary.$x is unavailable and summary shows -"
		else
			fail "summary.$x is unavailable and summary shows -"
			diag "summary $x = '$v'; detail: $(mi_lookup "$T/caps" "summary.$x" detail)"
		fi
	fi
done

# the other way round: a "-" in summary is explained by capabilities
unexplained=""
for x in $(awk 'NR > 1 && !/^#/ && $2 == "-" { print $1 }' "$T/summary"); do
	[ "$(mi_lookup "$T/caps" "summary.$x" available)" = no ] ||
		unexplained="$unexplained $x"
done
if [ -z "$unexplained" ]; then
	ok "summary: every '-' has a summary.FIELD row saying no"
else
	fail "summary: every '-' has a summary.FIELD row saying no"
	diag "without a 'no' row:$unexplained"
fi

# -- reasons against the running kernel ---------------------------------------
# What the rows say about the kernel, checked against the kernel itself:
# /proc/kallsyms for symbols, uname -v for preemption.

# The symbols the rows name, looked up in one pass over /proc/kallsyms (a
# grep per symbol over its ~50000 lines took minutes under TCG): $T/ksyms
# holds those of them that kallsyms lists.
awk 'NR > 1 && !/^#/ && $3 == "no" && / not found/' "$T/caps" > "$T/notfound"
sed -n 's/.*symbols\{0,1\} \([A-Za-z0-9_/]*\) not found.*/\1/p' "$T/notfound" |
	tr '/' '\n' > "$T/want"
printf 'init_task\nsynchronize_rcu_tasks\n' >> "$T/want"
awk 'NR == FNR { want[$1] = 1; next } $3 in want { print $3 }' "$T/want" /proc/kallsyms |
	sort -u > "$T/ksyms"
# Variables are in kallsyms only with CONFIG_KALLSYMS_ALL (Debian's arm64 6.1
# lacks it; without it kallsyms still lists the few data symbols that lie in
# the text sections, so the test is one variable every kernel has).
if grep -qx init_task "$T/ksyms"; then
	kvars=yes
else
	kvars=no
fi
# the answer a reason must give to "is CONFIG_KALLSYMS_ALL to blame?"
if [ "$kvars" = yes ]; then want=no; else want=yes; fi
diag "kallsyms lists variables (init_task): $kvars"
deny=$(cat /sys/module/meminspect/parameters/ksyms_deny 2>/dev/null)

# Every "symbol S not found" (or "symbols A/B not found"): S really is
# missing from kallsyms, and the reason says why a variable cannot be found
# exactly where kallsyms lists none.
while read -r name _ _ detail; do
	syms=$(echo "$detail" | sed -n 's/.*symbols\{0,1\} \([A-Za-z0-9_/]*\) not found.*/\1/p' | tr '/' ' ')
	[ -n "$syms" ] || continue
	for sym in $syms; do
		case ",$deny," in
		*",$sym,"*) diag "$name: $sym is in ksyms_deny"; continue ;;
		esac
		if grep -qx "$sym" "$T/ksyms"; then
			fail "$name says $sym not found: kallsyms has no $sym"
		else
			ok "$name says $sym not found: kallsyms has no $sym"
		fi
	done
	case $detail in
	*"CONFIG_KALLSYMS_ALL is not set"*) said=yes ;;
	*) said=no ;;
	esac
	if [ "$said" = "$want" ]; then
		ok "$name: blames CONFIG_KALLSYMS_ALL ($said) iff kallsyms lists no variables ($kvars)"
	else
		fail "$name: blames CONFIG_KALLSYMS_ALL ($said) iff kallsyms lists no variables ($kvars)"
		diag "$name: $detail"
	fi
done < "$T/notfound"

d=$(cap_detail ksyms "$T/caps")
case $d in
*"CONFIG_KALLSYMS_ALL is not set"*) said=yes ;;
*) said=no ;;
esac
if [ "$(cap_available ksyms "$T/caps")" = no ]; then
	skip "ksyms: says whether kallsyms lists variables" "ksyms is unavailable: $d"
elif [ "$said" = "$want" ]; then
	ok "ksyms: says kallsyms lists functions only ($said) iff it lists no variables ($kvars)"
else
	fail "ksyms: says kallsyms lists functions only ($said) iff it lists no variables ($kvars)"
	diag "ksyms: $d"
fi

# The fault row: it waits for tasks on the way back through the module where
# synchronize_rcu_tasks exists; it calls the wait not needed only where the
# kernel is not preemptible (uname -v names PREEMPT, PREEMPT_DYNAMIC,
# PREEMPT_RT); it names the way back that fault.slab's probe kind takes
# (arm64: a breakpoint returning into the stub; x86-64: the ftrace path).
d=$(cap_detail fault "$T/caps")
case $(uname -v) in
*PREEMPT*) preempt=yes ;;
*) preempt=no ;;
esac
case $d in
*"unload waits for tasks"*)
	check "fault: waits for tasks (synchronize_rcu_tasks): kallsyms has synchronize_rcu_tasks" \
		grep -qx synchronize_rcu_tasks "$T/ksyms"
	;;
*"nor needed"*)
	check "fault: wait not needed: the kernel is not preemptible (uname -v: $(uname -v))" \
		[ "$preempt" = no ]
	;;
*)
	check "fault: does not wait: the kernel is preemptible (uname -v: $(uname -v))" \
		[ "$preempt" = yes ]
	;;
esac
case $(cap_detail fault.slab "$T/caps") in
*"(breakpoint"*) path="ret stub the breakpoint returns into" ;;
*) path="ftrace trampoline" ;;
esac
case $d in
*"$path"*) ok "fault: names the way back of fault.slab's probe ($path)" ;;
*)
	fail "fault: names the way back of fault.slab's probe ($path)"
	diag "fault: $d"
	;;
esac

exit 0
