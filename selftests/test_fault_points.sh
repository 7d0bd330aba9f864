#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One allocation call is one failure point, on every kernel, whatever its size
# (docs/fault.md, "One call, one point"): the helper meminspect_drv with sizes=1
# makes a kmalloc(64), a kmalloc() of a constant 64 KiB (the large kmalloc entry
# point), a kmalloc() of 64 KiB known only at run time (__kmalloc(), which calls
# the large path itself) and a kvmalloc(1 MiB) (which tries kmalloc first), each
# failing its init with the earlier ones freed. With both sites attached and nth
# 1 to 5 (a sweep by hand), runs 1-4 fail exactly those four calls, in order, each
# logged with the module's own code as caller (so aim-module at depth 1 matches
# it), and run 5 loads the module: an entry point called by another probed one,
# or a large kmalloc's page allocation, is no point of its own.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"
. "${ST_DIR:-$(dirname "$0")}/lib_fault.sh"

DRV=${MI_DRV_KO:-/meminspect/meminspect_drv.ko}
KML=$MI_DEBUGFS/kmemleak
# one finit_module() call: busybox's insmod would load again after a failure
INSMOD=${ST_DIR:-$(dirname "$0")}/progs/finsmod

fault_setup fault_points
fault_cleanup_more()
{
	rmmod meminspect_drv 2> /dev/null
}
for c in fault fault.slab fault.pages fault.aim_module; do
	if [ "$(cap_available $c)" != yes ]; then
		skip "fault: one call, one point" "capabilities: $c: $(cap_detail $c)"
		exit 0
	fi
done
rmmod meminspect_drv 2> /dev/null

# kmemleak's own record of each allocation is made under the module's frames
# (its post-allocation hook): spared, as test_fault_module.sh does; such calls
# count as matched and spared, so the calls of the init are matched - spared
spare=
if [ -e "$KML" ]; then
	spare=$(awk 'NF == 3 && $3 ~ /^(__alloc_object|__create_object|create_object|kmemleak_alloc)$/ &&
		!seen[$3]++ { printf "%s,", $3 }' /proc/kallsyms)
	spare=${spare%,}
fi

# the size each failure point allocates, in the init's order
want_sizes="64 65536 65536 1048576"
sizes= callers= rcs= matched= bad=
for depth in 1 8; do
	sizes= callers= rcs= matched=
	n=1
	while [ $n -le 5 ]; do
		must sites slab,pages
		must times -1
		must nth $n
		must aim-module meminspect_drv
		must aim-depth $depth
		[ -z "$spare" ] || must exclude-caller "$spare"
		must armed 1
		"$INSMOD" "$DRV" sizes=1 2> /dev/null
		rc=$?
		fset armed 0
		rcs="$rcs $rc"
		matched="$matched $(( $(fstat slab matched) + $(fstat pages matched) - \
			$(fstat slab spared) - $(fstat pages spared) ))"
		f=$(( $(fstat slab failed) + $(fstat pages failed) ))
		if [ $n -le 4 ]; then
			# the one failure: its size and caller from the log
			l=$(awk '$1 ~ /^[0-9]+$/ { print $5, $8 }' "$MI_FAULT/log")
			sizes="$sizes ${l%% *}"
			c=${l#* }
			case $c in
			mi_drv_*init+*) callers="$callers module" ;;
			*) callers="$callers $c" ;;
			esac
			[ "$f" = 1 ] || bad="$bad depth $depth nth $n: $f failures;"
		else
			[ "$f" = 0 ] || bad="$bad depth $depth nth 5: $f failures;"
		fi
		rmmod meminspect_drv 2> /dev/null
		fault_defaults
		n=$((n + 1))
	done
	check_eq "fault: aim-depth $depth, nth 1-4: one failure each, of sizes $want_sizes" \
		"${sizes# }${bad:+ ($bad)}" "$want_sizes"
	check_eq "fault: aim-depth $depth, nth 1-4: each failure's caller is the module's init" \
		"${callers# }" "module module module module"
	# insmod's status: ENOMEM for 1-4, then loaded
	check "fault: aim-depth $depth: insmod fails at nth 1-4 and loads at nth 5 (exit statuses$rcs)" \
		sh -c "set -- $rcs; [ \$1 -ne 0 ] && [ \$2 -ne 0 ] && [ \$3 -ne 0 ] && [ \$4 -ne 0 ] && [ \$5 -eq 0 ]"
	# matched counts each call once: nth N stops the init at its Nth call
	check_eq "fault: aim-depth $depth: matched - spared, per run, counts each call once" \
		"${matched# }" "1 2 3 4 4"
done
check_eq "fault: the injector is disarmed" "$(fget armed)" 0
