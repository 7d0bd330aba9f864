#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# allocs and the frees no kmem tracepoint reports (docs/allocs.md): the module
# meminspect_bulk (selftests/helper/meminspect_bulk.c) allocates N objects in
# its init from three sites (its cache, kmalloc, kmalloc with an rcu_head) and,
# when told, frees them by kmem_cache_free_bulk(), kfree_bulk() and kfree_rcu().
# Aimed at the module: the three rows hold N/2, N/4 and N/4 live objects, and
# none once they are freed; loaded a second time while armed, its new objects
# (at addresses the first load's had) are counted once.  The
# rows' sites are in the module's init, freed when init returns, and in its
# text, gone after rmmod: each reads "mi_bulk_init+0x../0x.. [meminspect_bulk]"
# all along, never a bare address.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

A=$MI_DIR/allocs
BULK=${MI_BULK_KO:-/meminspect/meminspect_bulk.ko}
P=/sys/module/meminspect_bulk/parameters
N=1280

bulk_cleanup()
{
	echo 0 > "$A/armed" 2>/dev/null
	echo > "$A/aim_module" 2>/dev/null
	rmmod meminspect_bulk 2>/dev/null
}
mi_setup allocs_bulk bulk_cleanup

require_file "$A/table"
check_eq "capabilities: allocs.bulk_free is available" "$(cap_available allocs.bulk_free)" yes
diag "allocs.bulk_free: $(cap_detail allocs.bulk_free)"

# rows FILE: the module's rows of a table copy, "live allocs frees site"
rows()
{
	awk '$1 != "#" && NR > 1 && (/\[meminspect_bulk\]$/ || $NF ~ /^0x[0-9a-f]+$/) {
		s = $9; for (i = 10; i <= NF; i++) s = s " " $i
		print $1, $4, $5, s }' "$1"
}

# note FILE KEY: KEY's value in the table's "# allocs:" note
note()
{
	awk -v k="$2" '$1 == "#" && $2 == "allocs:" {
		for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$1"
}

# sum FILE COLUMN: the module's rows' COLUMN (1 live, 2 allocs, 3 frees) added up
sum()
{
	rows "$1" | awk -v c="$2" '{ n += $c } END { print n + 0 }'
}

# live_by_site FILE: the rows' live counts, sorted ("N/2 N/4 N/4" when right)
live_by_site()
{
	rows "$1" | awk '{ print $1 }' | sort -rn | tr '\n' ' ' | sed 's/ $//'
}

# wait_freed FILE: until the module's rows hold no live object (kfree_rcu()
# frees after a grace period and its batch's delay) or 60 s pass; FILE gets
# the last table
wait_freed()
{
	_wf_i=0
	while :; do
		cat "$A/table" > "$1"
		[ "$(sum "$1" 1)" -eq 0 ] && return 0
		[ $_wf_i -ge 60 ] && return 1
		mi_nap 1
		_wf_i=$((_wf_i + 1))
	done
}

# names_ok FILE: three rows, each site one frame in mi_bulk_init of the module
names_ok()
{
	[ "$(rows "$1" | wc -l)" -eq 3 ] &&
		! rows "$1" | awk '{ print $4 }' |
			grep -qv '^mi_bulk_init+0x[0-9a-f]*/0x[0-9a-f]*$' &&
		[ "$(rows "$1" | awk '$5 == "[meminspect_bulk]"' | wc -l)" -eq 3 ]
}

rmmod meminspect_bulk 2>/dev/null
echo 0 > "$A/armed"
echo meminspect_bulk > "$A/aim_module" || fail "aim_module meminspect_bulk"
echo 1 > "$A/armed" || fail "arm allocs"

# ---- first load: allocated, then freed in bulk and by kfree_rcu() ---------------

if ! insmod "$BULK" objs=$N; then
	fail "insmod meminspect_bulk objs=$N"
	exit 1
fi
cat "$A/table" > "$T/loaded"
check_eq "after init: the module's rows hold N/2, N/4 and N/4 live objects (N=$N)" \
	"$(live_by_site "$T/loaded")" "$((N / 2)) $((N / 4)) $((N / 4))"
check_eq "after init: $N allocations counted" "$(sum "$T/loaded" 2)" $N
# the init section is freed once init returns: each name was taken before
if names_ok "$T/loaded"; then
	ok "after init: every row's site reads mi_bulk_init+0x../0x.. [meminspect_bulk]"
else
	fail "after init: every row's site reads mi_bulk_init+0x../0x.. [meminspect_bulk]"
	rows "$T/loaded" | tap_diag
fi

# the suite's own knob refuses what is not "1" (kstrtobool: 0, n, off; text) and
# frees nothing
for v in 0 n abc 2; do
	if (echo "$v" > "$P/release") 2> "$T/err"; then
		fail "release rejects '$v'"
	else
		check "release rejects '$v': $(cat "$T/err")" grep -q "Invalid argument" "$T/err"
	fi
done
check_read "release still reads 0" "$P/release" 0
check_eq "the refused writes freed nothing: $N live" "$(sum "$A/table" 1)" $N

echo 1 > "$P/release" || fail "release the objects"
if (echo 1 > "$P/release") 2> "$T/err"; then
	fail "a second release is refused (busy)"
else
	check "a second release is refused: $(cat "$T/err")" grep -q "busy" "$T/err"
fi
if wait_freed "$T/freed"; then
	ok "freed by kmem_cache_free_bulk(), kfree_bulk() and kfree_rcu(): no object left live"
else
	fail "freed by kmem_cache_free_bulk(), kfree_bulk() and kfree_rcu(): no object left live"
	rows "$T/freed" | tap_diag
fi
check_eq "every allocation's free counted" "$(sum "$T/freed" 3)" $N
check_eq "no object slot overflowed" "$(note "$T/freed" obj_overflow)" 0

# ---- second load, same arming: the freed objects' addresses come back -----------

rmmod meminspect_bulk || fail "rmmod meminspect_bulk"
cat "$A/table" > "$T/gone"
# the module's text is gone: the rows keep the names taken at init
check "after rmmod: the rows' sites still name mi_bulk_init in meminspect_bulk" names_ok "$T/gone"
if insmod "$BULK" objs=$N; then
	cat "$A/table" > "$T/again"
	# its sites are new rows, or the first load's where its text landed at the
	# same address: either way N live, none left of the first load
	check_eq "second load: $N objects live, counted once" "$(sum "$T/again" 1)" $N
	echo 1 > "$P/release" || fail "release the objects (second load)"
	if wait_freed "$T/freed2"; then
		ok "second load: every object freed"
	else
		fail "second load: every object freed"
		rows "$T/freed2" | tap_diag
	fi
	check_eq "second load: no object slot overflowed" "$(note "$T/freed2" obj_overflow)" 0
	rmmod meminspect_bulk
else
	fail "insmod meminspect_bulk a second time"
fi

# ---- the reader ----------------------------------------------------------------

require_reader
if "$MI_READER" allocs --top 100 > "$T/reader"; then
	check_eq "reader: allocs names each of the module's sites as the table does" \
		"$(grep -c ' mi_bulk_init+0x[0-9a-f]*/0x[0-9a-f]* \[meminspect_bulk\]$' "$T/reader")" \
		"$(rows "$T/freed2" | wc -l)"
else
	fail "reader: allocs"
fi
echo 0 > "$A/armed"
