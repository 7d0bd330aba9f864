#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fault/: the knob files, their defaults and the settings table
# (docs/fault.md), invalid writes (-EINVAL/-ERANGE/-EBUSY, nothing
# changes), arming and disarming, the capabilities rows against
# /proc/kallsyms, unloading while armed and an aimed module going away.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "$ST_DIR/lib_fault.sh"

fault_cleanup_more()
{
	helper_unload 2> /dev/null
}
fault_setup fknobs

# -- defaults and the settings table -------------------------------------------

maxo=$(buddy_max_order)
cat "$MI_FAULT/settings" > "$T/settings"
for kv in sites=none probability=100 interval=1 times=1 space=0 verbose=1 \
	ignore-gfp-wait=N ignore-gfp-highmem=N ignore-pagefault=Y min-order=0 \
	max-order="$maxo" nth=0 aim-pid=0 aim-children=N aim-comm= aim-cgroup= aim-cache= \
	aim-size= aim-module= aim-depth=8 exclude-caller= duration=0 linger=0 armed=0; do
	k=${kv%%=*} v=${kv#*=}
	fval "$k"
	check_eq "fault: $k reads its default '$v'" "$FV" "$v"
	sv=$(mi_lookup "$T/settings" "$k" value)
	check_eq "fault: settings row $k is '${v:--}'" "$sv" "${v:--}"
done
check_eq "fault: settings lists the 24 knobs in the documented order" \
	"$(awk 'NR > 1 { printf "%s ", $1 }' "$T/settings")" \
	"sites probability interval times space verbose ignore-gfp-wait ignore-gfp-highmem ignore-pagefault min-order max-order nth aim-pid aim-children aim-comm aim-cgroup aim-cache aim-size aim-module aim-depth exclude-caller duration linger armed "

# -- valid writes read back ----------------------------------------------------

for kv in sites=slab,pages sites=pages probability=0 interval=7 times=-1 \
	space=4096 verbose=2 ignore-gfp-wait=Y ignore-gfp-highmem=Y \
	ignore-pagefault=N min-order=1 max-order=3 nth=5 aim-children=Y aim-comm=a_b aim-cgroup=/ \
	aim-size=100-200 aim-module=meminspect aim-module=no_such_module_yet \
	aim-depth=32 exclude-caller=kstrdup exclude-caller=kstrdup,kfree \
	duration=1500 linger=250 linger=60000 aim-pid=$$; do
	k=${kv%%=*} v=${kv#*=}
	FV=
	if fset "$k" "$v" && fval "$k" && [ "$FV" = "$v" ] &&
	   [ "$(mi_lookup "$MI_FAULT/settings" "$k" value)" = "$v" ]; then
		ok "fault: $k accepts '$v' and reads it back"
	else
		fail "fault: $k accepts '$v' and reads it back"
		diag "$k reads '$FV'"
	fi
done
if [ "$(cap_available fault.aim_cache)" = yes ]; then
	fset aim-cache kmalloc-64
	check_eq "fault: aim-cache accepts kmalloc-64 and reads it back" \
		"$(fget aim-cache)/$(mi_lookup "$MI_FAULT/settings" aim-cache value)" \
		kmalloc-64/kmalloc-64
	fset aim-cache ''
else
	skip "fault: aim-cache accepts kmalloc-64" "$(cap_detail fault.aim_cache)"
fi
fset aim-comm 'with space'
check_eq "fault: aim-comm keeps a space" "$(fget aim-comm)" "with space"
fault_defaults

# one open file: read, write, read again (the write after a read was
# refused with EINVAL); the second read shows the new value from its start
for kv in interval=9 sites=slab aim-comm=x; do
	k=${kv%%=*} v=${kv#*=}
	got=$( (exec 3<>"$MI_FAULT/$k" && cat <&3 > /dev/null &&
		printf '%s\n' "$v" >&3 && cat <&3) 2>&1)
	check_eq "fault: $k on one open file: read, write '$v', read back '$v'" \
		"$got/$(fget "$k")" "$v/$v"
done
fault_defaults

# -- invalid writes: an error, and nothing changes ---------------------------

# bad KNOB VALUE ERRTEXT (the shell's error message in a file, the values
# read with fval: no process, ~50 calls)
bad()
{
	fval "$1"
	_before=$FV
	if { echo "$2" > "$MI_FAULT/$1"; } 2> "$T/err"; then
		_err=accepted
	else
		mi_read _err "$T/err"
	fi
	case $_err in
	*"$3"*)
		fval "$1"
		if [ "$FV" = "$_before" ]; then
			ok "fault: $1 '$2' is refused ($3), value unchanged"
		else
			fail "fault: $1 '$2' is refused ($3), value unchanged"
			diag "$1 changed from '$_before' to '$FV'"
		fi
		;;
	*)
		fail "fault: $1 '$2' is refused ($3), value unchanged"
		diag "write said: $_err"
		;;
	esac
}

EINVAL="Invalid argument" ERANGE="out of range" EBUSY="busy"
bad sites bogus "$EINVAL"
bad sites slab,slab "$EINVAL"
bad sites slab, "$EINVAL"
bad sites '' "$EINVAL"
bad probability 101 "$ERANGE"
bad probability -1 "$ERANGE"
bad probability 5x "$EINVAL"
bad probability ' 5' "$EINVAL"
bad probability '' "$EINVAL"
bad interval 0 "$ERANGE"
bad interval 2147483648 "$ERANGE"
bad times -2 "$ERANGE"
bad times 2147483648 "$ERANGE"
bad space -1 "$ERANGE"
bad verbose 3 "$ERANGE"
bad ignore-gfp-wait maybe "$EINVAL"
bad ignore-gfp-highmem 2 "$EINVAL"
bad ignore-pagefault x "$EINVAL"
bad min-order $((maxo + 1)) "$ERANGE"
bad max-order $((maxo + 1)) "$ERANGE"
bad nth -1 "$ERANGE"
bad aim-pid 99999999 "$ERANGE"
bad aim-pid abc "$EINVAL"
bad aim-children x "$EINVAL"
bad aim-comm 0123456789abcdef "$ERANGE"
bad aim-cgroup relative/path "$EINVAL"
bad aim-cgroup /no-such-cgroup-here "$EINVAL"
if [ "$(cap_available fault.aim_cache)" = yes ]; then
	bad aim-cache no_such_cache_here "$EINVAL"
else
	bad aim-cache no_such_cache_here "not supported"
fi
bad aim-cache 'two words' "$EINVAL"
bad aim-size 200-100 "$ERANGE"
bad aim-size 100 "$EINVAL"
bad aim-size -5 "$EINVAL"
# a module that is not loaded is an aim (it matches from when it loads); a name the
# kernel could not give a module is not: Kbuild's characters, shorter than MODULE_NAME_LEN
bad aim-module a.b "$EINVAL"
bad aim-module a/b "$EINVAL"
bad aim-module 'a b' "$EINVAL"
bad aim-module a1234567890123456789012345678901234567890123456789012345 "$ERANGE"
if fset aim-module nf-conntrack && [ "$(fget aim-module)" = nf_conntrack ]; then
	ok "fault: aim-module keeps a '-' as '_', as the kernel names modules"
else
	fail "fault: aim-module keeps a '-' as '_', as the kernel names modules"
	diag "read back: '$(fget aim-module)'"
fi
fset aim-module ''
bad aim-depth 0 "$ERANGE"
bad aim-depth 33 "$ERANGE"
bad exclude-caller no_such_function_here "$EINVAL"
bad exclude-caller kstrdup,no_such_function_here "$EINVAL"
bad exclude-caller kstrdup,,kfree "$EINVAL"
bad exclude-caller ,kstrdup "$EINVAL"
bad exclude-caller kstrdup, "$EINVAL"
bad exclude-caller 'kstrdup kfree' "$EINVAL"
bad exclude-caller a,b,c,d,e,f,g,h,i "$ERANGE"
bad duration -1 "$ERANGE"
bad duration 2147483648 "$ERANGE"
bad duration 1s "$EINVAL"
bad linger -1 "$ERANGE"
bad linger 60001 "$ERANGE"
bad linger 5s "$EINVAL"
bad armed 2 "$ERANGE"
# a pid that is not running: the highest pid in use plus a margin
free_pid=$(($(ls /proc | awk '/^[0-9]+$/ && $1 > m { m = $1 } END { print m }') + 1000))
bad aim-pid "$free_pid" "$EINVAL"
bad armed 1 "$EINVAL"		# sites none

# -- arming ------------------------------------------------------------------

fset sites slab,pages
fset aim-comm mi-nobody
if fset armed 1; then
	ok "fault: arming both sites aimed at nobody"
else
	fail "fault: arming both sites aimed at nobody"
	dmesg | grep 'meminspect: fault' | tail -3 | sed 's/^/# /'
fi
check_eq "fault: armed reads 1" "$(fget armed)" 1
check_eq "fault: stats: slab attached" "$(fstat slab attached)" yes
check_eq "fault: stats: pages attached" "$(fstat pages attached)" yes
check_eq "fault: stats: nothing matched" \
	"$(fstat slab matched)/$(fstat pages matched)" 0/0
bad probability 50 "$EBUSY"
bad aim-comm other "$EBUSY"
bad sites slab "$EBUSY"
bad armed 1 "$EBUSY"
checked=$(fstat slab checked)
if is_num "$checked" && [ "$checked" -gt 0 ]; then
	ok "fault: stats: slab calls are checked while armed ($checked)"
else
	fail "fault: stats: slab calls are checked while armed"
fi
check "fault: disarming succeeds" fset armed 0
check_eq "fault: stats: detached after disarming" \
	"$(fstat slab attached)/$(fstat pages attached)" no/no
c1=$(fstat slab checked)
ls -R /proc/self > /dev/null 2>&1
check_eq "fault: nothing is checked once disarmed" "$(fstat slab checked)" "$c1"
if [ "$(fstat slab checked)" -ge "$checked" ]; then
	ok "fault: slab checked kept ($(fstat slab checked) >= $checked)"
else
	fail "fault: slab checked kept"
fi
check "fault: disarming twice succeeds" fset armed 0

# -- linger: probes kept, inert, from a disarm to the next arming ------------------
# The kernel's own list of kprobes says what is attached: a linger keeps
# the site's probes there after the disarm, an arming with the same sites
# reuses them (no second set), and they go when the linger ends (a write
# to linger, its time running out, an arming of other sites, an unload).

KPL=/sys/kernel/debug/kprobes/list
nkp() { wc -l < "$KPL"; }
if [ -r "$KPL" ]; then
	kp0=$(nkp)
	fset sites slab
	fset aim-comm mi-nobody
	must linger 60000
	fset armed 1
	kp1=$(nkp)
	fset armed 0
	kpl=$(nkp)
	check "fault: linger: the slab probes stay listed after the disarm ($kp0 before arming, $kp1 armed, $kpl after)" \
		test "$kp1" -gt "$kp0" -a "$kpl" = "$kp1"
	check_eq "fault: linger: stats says attached, armed reads 0" \
		"$(fstat slab attached)/$(fget armed)" yes/0
	c1=$(fstat slab checked)
	ls -R /proc/self > /dev/null 2>&1
	check_eq "fault: linger: a lingering probe checks nothing" "$(fstat slab checked)" "$c1"
	fset armed 1
	check_eq "fault: linger: arming the same sites reuses the probes (still $kp1 listed)" \
		"$(nkp)" "$kp1"
	ls -R /proc/self > /dev/null 2>&1
	c2=$(fstat slab checked)
	check "fault: linger: the reused probes check calls again ($c2)" \
		test "$c2" -gt 0
	fset armed 0
	fset sites pages
	fset armed 1
	check_eq "fault: linger: arming other sites detaches the lingering slab probes" \
		"$(fstat slab attached)/$(fstat pages attached)" no/yes
	fset armed 0
	fset sites slab
	fset armed 1
	fset armed 0
	check "fault: linger: a write to linger detaches the lingering probes" fset linger 60000
	check_eq "fault: linger: after the write, the kprobes list is back to $kp0" \
		"$(nkp)/$(fstat slab attached)" "$kp0/no"
	must linger 200
	fset armed 1
	fset armed 0
	# the work item runs 200 ms on; unregistering ten probes then takes
	# about a second under TCG: up to 20 s
	i=0
	while [ "$(fstat slab attached)" != no ] && [ $i -lt 200 ]; do
		mi_nap 0.1
		i=$((i + 1))
	done
	check_eq "fault: linger: after a linger of 200 ms the probes go by themselves ($((i * 100)) ms)" \
		"$(nkp)/$(fstat slab attached)" "$kp0/no"
	must linger 60000
	fset armed 1
	fset armed 0
	if mi_reload; then
		check_eq "fault: linger: unloading detaches the lingering probes (kprobes list $kp0)" \
			"$(nkp)" "$kp0"
	else
		fail "fault: linger: meminspect unloads while its probes linger and loads again"
	fi
	fault_defaults
else
	skip "fault: linger: probes kept after a disarm" "no $KPL (debugfs kprobes)"
fi

# -- capabilities rows: entry points against /proc/kallsyms ------------------------

cat "$MI_DIR/capabilities" > "$T/caps"
# the kernel's own symbols (no "[module]" field), read once
awk 'NF == 3 { print $3 }' /proc/kallsyms > "$T/ksyms"
for row in fault.slab fault.pages; do
	avail=$(cap_available "$row" "$T/caps")
	check_eq "capabilities: $row available" "$avail" yes
	names=$(cap_detail "$row" "$T/caps" | sed -n 's/.* at //p')
	n=0
	for _ in $names; do
		n=$((n + 1))
	done
	# the names not in /proc/kallsyms, one awk for all of them
	missing=$(awk -v names="$names" '
		BEGIN { n = split(names, w, " "); for (i = 1; i <= n; i++) want[w[i]] = 1 }
		$0 in want { have[$0] = 1 }
		END { for (i = 1; i <= n; i++) if (!(w[i] in have)) printf " %s", w[i] }' "$T/ksyms") ||
		missing="$missing (awk could not read $T/ksyms)"
	if [ "$n" -gt 0 ] && [ -z "$missing" ]; then
		ok "capabilities: $row's $n entry points are in /proc/kallsyms"
	else
		fail "capabilities: $row's entry points are in /proc/kallsyms"
		diag "$row: $n names, missing:$missing"
	fi
done
check_eq "capabilities: fault (directory) row: mechanism, yes" \
	"$(mi_lookup "$T/caps" fault kind) $(cap_available fault "$T/caps")" "mechanism yes"
check_eq "capabilities: fault.aim_cache is available exactly when slab_caches is" \
	"$(cap_available fault.aim_cache "$T/caps")" \
	"$(cap_available slab_caches "$T/caps")"

# -- unloading while armed -----------------------------------------------------

fset sites slab
fset aim-comm mi-nobody
fset armed 1
if rmmod meminspect && insmod "$MI_KO"; then
	ok "fault: meminspect unloads while armed and loads again"
else
	fail "fault: meminspect unloads while armed and loads again"
fi
check_eq "fault: a fresh load starts disarmed" "$(fget armed)/$(fget sites)" 0/none
fault_defaults

# -- an entry point that does not attach shows in stats -------------------------
# fault_refuse_ep (a parameter for this test) makes arming take one entry
# point's register_kprobe() as failed (-EBUSY): the site attaches without it
# and stats says so in a note

ep=$(cap_detail fault.slab "$T/caps" | sed -n 's/.* at //p' | awk '{ print $NF }')
if rmmod meminspect && insmod "$MI_KO" fault_refuse_ep="$ep"; then
	fset sites slab
	fset aim-comm mi-nobody
	if fset armed 1; then
		check_eq "fault: arming with $ep refused: slab still attached" "$(fstat slab attached)" yes
		check_eq "fault: stats notes the entry point that did not attach" \
			"$(grep '^#' "$MI_FAULT/stats")" \
			"# slab: entry point $ep not attached: register_kprobe error -16"
	else
		fail "fault: arming with $ep refused succeeds"
	fi
	fset armed 0
	rmmod meminspect && insmod "$MI_KO"
else
	fail "fault: meminspect loads with fault_refuse_ep=$ep"
fi
check_eq "fault: a plain load notes nothing in stats" "$(grep -c '^#' "$MI_FAULT/stats")" 0
fault_defaults

# -- the aimed module goes away while armed ------------------------------------

helper_load
fset sites slab
fset times -1
must aim-module meminspect_test
fset armed 1
halloc kmalloc 64 10
check_eq "fault: aim-module: the helper's 10 kmallocs fail" "$HA_FAILED" 10
# the aim is a name: loaded again while armed, the new module's init is failed
# (its kvmalloc falls back to vmalloc, whose failure the kernel reports)
rmmod meminspect_test
expect_alloc_reports begin
insmod "$MI_TEST_KO" 2> /dev/null
rc=$?
expect_alloc_reports end
check "fault: aim-module: loaded again while armed, the module's init is failed (the aim follows the name)" \
	[ $rc -ne 0 ]
fset armed 0
insmod "$MI_TEST_KO"
fault_defaults
helper_unload
fset sites slab
if fset aim-module meminspect_test && fset armed 1; then
	ok "fault: aim-module at a module that is not loaded: accepted, arms"
else
	fail "fault: aim-module at a module that is not loaded: accepted, arms"
fi
check "fault: stats notes the aim waits for the module" \
	grep -qx '# aim-module meminspect_test: not loaded: matching from when it loads' \
	"$MI_FAULT/stats"
fset armed 0
fault_defaults
exit 0
