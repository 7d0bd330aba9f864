# SPDX-License-Identifier: GPL-2.0
# Reading the cgroups file and memory.stat, for the cgroup tests (sourced after lib.sh).

# rec FILE PATH COL: column COL of PATH's record in a cgroups table (the path is last)
rec()
{
	awk -v p="$2" -v col="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
	/^#/ { next }
	$NF == p { print $idx[col]; f = 1; exit }
	END { exit !f }' "$1"
}

# subtree FILE PATH COL: COL summed over PATH and its descendants, which
# memory.stat counts (cgroup v2's figures are hierarchical)
subtree()
{
	awk -v p="$2" -v col="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
	/^#/ { next }
	$NF == p || index($NF, p "/") == 1 { s += $idx[col] }
	END { print s + 0 }' "$1"
}

# stat_of FILE KEY: a memory.stat figure
stat_of()
{
	awk -v k="$2" '$1 == k { print $2; f = 1 } END { exit !f }' "$1"
}

# cg_drain_stocks CGROOT: a charge for a scratch memcg on each online CPU, so
# that no CPU's charge stock keeps a removed memcg. Each CPU caches charges
# for one memcg (memcg_stock: refill_stock() in mm/memcontrol.c) and holds a
# css reference to it until a charge for another memcg on that CPU drains
# it. The drain at offline (drain_all_stock(), skipped while another drain
# runs) does not stop a later uncharge from stocking the removed memcg again
# (5.10 uncharges kmem pages into the memcg itself), and in a guest where
# everything else runs in the root cgroup, which is never stocked, nothing
# would drain it: the cgroup would stay dying with no page or slab left, as
# a CI run saw on 5.10. On a real machine any other cgroup's charge does
# this. The scratch memcg is then stocked instead, and removed.
cg_drain_stocks()
{
	_sd=$1/mi-stock
	mkdir "$_sd" || return 1
	for _cpu in /sys/devices/system/cpu/cpu[0-9]*; do
		[ "$(cat "$_cpu/online" 2> /dev/null || echo 1)" = 1 ] || continue
		# dd's 1 MiB buffer is anon memory charged on that CPU
		sh -c 'echo $$ > "$1/cgroup.procs" && exec taskset -c "$2" dd if=/dev/zero of=/dev/null bs=1M count=1 2> /dev/null' \
			sh "$_sd" "${_cpu##*/cpu}" || true
	done
	rmdir "$_sd"
}

# cg_churn NAME SCRIPT ARG: until $T/stop exists, cgroups $CG/NAME0..3 made in
# turn, SCRIPT run by sh inside the one made ($1 its directory, $2 ARG with the
# cgroup's number appended), and the cgroup removed: memcgs made, charged and
# left dying while the readers read
cg_churn()
{
	_n=0
	while [ ! -e "$T/stop" ]; do
		_d=$CG/$1$((_n % 4))
		mkdir "$_d" 2> /dev/null
		sh -c 'echo $$ > "$1/cgroup.procs" && '"$2" sh "$_d" "$3$((_n % 4))"
		rmdir "$_d" 2> /dev/null
		_n=$((_n + 1))
	done
}
