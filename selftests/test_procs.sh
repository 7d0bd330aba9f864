#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# procs (docs/procmem.md): one record per process with user memory, its
# figures those of its /proc/PID/smaps_rollup (exactly for a stopped
# memtarget and for idle processes, between two readings of the kernel's
# for one that moves); its pids the set of /proc's processes that have an
# mm; in a pid namespace the namespace's pids; processes exiting during the
# read leave the read whole.
. "${ST_DIR:-$(dirname "$0")}/lib.sh"

mi_setup procs
MT=${MI_MEMTARGET:-$ST_DIR/progs/memtarget}

require_file "$MI_DIR/procs"
require_caps "procs" mm.rollup procs_pids

. "$ST_DIR/lib_procmem.sh"

# snap: every smaps_rollup, procs, every smaps_rollup again, in one process
# (progs/procsnap.c says why); then $T/a and $T/b as "pid Key value", Uss too
snap()
{
	"$ST_DIR/progs/procsnap" "$T/snap" "$MI_DIR/procs" || return 1
	for _k in a b; do
		awk '/^== / { pid = $2; next }
		     /^[A-Z][A-Za-z_]*:/ {
			k = $1; sub(/:$/, "", k); print pid, k, $2
			if (k ~ /^Private_(Clean|Dirty)$/) uss[pid] += $2
		     }
		     END { for (p in uss) print p, "Uss", uss[p] }' "$T/snap.$_k" > "$T/$_k"
	done
}

# ours PROCS READER OUT: the records as "pid Key value", smaps_rollup's keys
procs_kv()
{
	awk -v reader="$(cat "$2")" -v pairs="$ROLLUP_PAIRS" '
		BEGIN { n = split(pairs, p, " ")
			for (i = 1; i <= n; i++) { split(p[i], q, "="); key[q[1]] = q[2] } }
		NR == 1 { nf = split($0, h, " "); next }
		/^#/ || $1 == reader { next }
		{ for (i = 2; i < nf; i++) if (h[i] in key) print $1, key[h[i]], $i
		  print $1, "Comm", $nf }' "$1" > "$3"
}

# judge OURS A B READER: every pid of OURS is in A and B; each figure equals A's
# where A and B agree, lies between them where they differ; every pid of
# both A and B but READER's is in OURS. Prints the faults; "exact N moved M"
# last.
judge()
{
	awk -v reader="$(cat "$4")" '
		FILENAME == ARGV[1] { o[$1 " " $2] = $3; if ($2 != "Comm") op[$1] = 1; next }
		FILENAME == ARGV[2] { a[$1 " " $2] = $3; ap[$1] = 1; next }
		{ b[$1 " " $2] = $3; bp[$1] = 1 }
		END {
			for (k in o) {
				split(k, f, " ")
				if (f[2] == "Comm") continue
				if (!(f[1] in ap) || !(f[1] in bp)) {
					if (!(f[1] in seen)) print "pid " f[1] ": listed, not a process with an mm in /proc"
					seen[f[1]] = 1
					continue
				}
				if (!(k in a)) continue		# not on this kernel
				lo = a[k] + 0; hi = b[k] + 0
				if (lo > hi) { t = lo; lo = hi; hi = t }
				if (a[k] == b[k]) { exact++; if (o[k] != a[k]) print "pid " k ": " o[k] " vs " a[k] }
				else { moved++; if (o[k] + 0 < lo || o[k] + 0 > hi) print "pid " k ": " o[k] " not in [" lo ", " hi "]" }
			}
			for (p in ap)
				if ((p in bp) && !(p in op) && p != reader) print "pid " p ": a process with an mm, not listed"
			print "exact " exact + 0 " moved " moved + 0
		}' "$1" "$2" "$3"
}

# -- figures and pids, against smaps_rollup ------------------------------------

if start_target "$T/basic.out" basic "$T"; then
	kill -STOP "$tpid" "$cpid"
	mt_pids="$tpid $cpid"
	tries=0
	while [ $tries -lt 3 ]; do
		tries=$((tries + 1))
		snap || fail "procsnap reads procs and every smaps_rollup"
		cp "$T/snap.procs" "$T/procs"
		procs_kv "$T/procs" "$T/snap.self" "$T/ours"
		judge "$T/ours" "$T/a" "$T/b" "$T/snap.self" > "$T/judged"
		[ "$(wc -l < "$T/judged")" -gt 1 ] || break
	done
	check_eq "procs: header" "$(head -n 1 "$T/procs")" \
		"pid rss_kb pss_kb pss_dirty_kb pss_anon_kb pss_file_kb pss_shmem_kb uss_kb shared_clean_kb shared_dirty_kb private_clean_kb private_dirty_kb referenced_kb anonymous_kb lazyfree_kb anon_huge_kb shmem_pmd_kb file_pmd_kb swap_kb swap_pss_kb locked_kb shared_hugetlb_kb private_hugetlb_kb comm"
	if [ "$(wc -l < "$T/judged")" -gt 1 ]; then
		fail "procs: every record equals its smaps_rollup (exact where still, else between), pids = /proc's with an mm ($tries tries)"
		head -n 20 "$T/judged" | while read -r l; do diag "$l"; done
	else
		ok "procs: every record equals its smaps_rollup, pids = /proc's with an mm ($(cat "$T/judged"), $(($(wc -l < "$T/procs") - 1)) records, try $tries)"
	fi
	# the stopped target and its child: every figure exact, and present
	for p in $mt_pids; do
		got=$(awk -v p="$p" '
			FILENAME == ARGV[1] { if ($1 == p && $2 != "Comm") o[$2] = $3; next }
			FILENAME == ARGV[2] { if ($1 == p) a[$2] = $3; next }
			$1 == p { b[$2] = $3 }
			END { for (k in o) { if (!(k in a)) continue; n++
				if (o[k] != a[k] || a[k] != b[k]) printf "%s=%s/%s/%s ", k, o[k], a[k], b[k] }
			      print n + 0 }' "$T/ours" "$T/a" "$T/b")
		check "procs: the stopped memtarget $p: every figure exactly its smaps_rollup's ($got fields)" \
			sh -c "echo '$got' | grep -Eq '^[0-9]+\$' && test '$got' -ge 20"
	done
	check_eq "procs: comm of the memtarget is /proc's" \
		"$(awk -v p="$tpid" '$1 == p && $2 == "Comm" { print $3 }' "$T/ours")" \
		"$(cat "/proc/$tpid/comm")"
	kern=$(awk 'NR > 1 && $1 == 2' "$T/procs")
	check "procs: no kernel thread (pid 2, kthreadd) listed" test -z "$kern"
	kill -CONT "$tpid" "$cpid"
fi

# -- a pid namespace: the namespace's pids -------------------------------------

if unshare -p -f --mount-proc true 2> /dev/null; then
	unshare -p -f --mount-proc sh -c '
		sleep 30 & echo $! > "$1/ns.sleep"
		sh -c "echo \$\$ > \"$1/ns.reader\"; exec cat \"$2\"" > "$1/ns.procs"
		for d in /proc/[0-9]*; do
			[ -n "$(head -c 1 "$d/smaps_rollup" 2> /dev/null)" ] && echo "${d#/proc/}"
		done > "$1/ns.all"
		sort -n "$1/ns.all" > "$1/ns.pids"
		kill %1' sh "$T" "$MI_DIR/procs"
	r=$(cat "$T/ns.reader" 2> /dev/null)
	awk -v r="$r" 'NR > 1 && !/^#/ && $1 != r { print $1 }' "$T/ns.procs" | sort -n > "$T/ns.ours"
	grep -vx "$r" "$T/ns.pids" > "$T/ns.want"
	check "in a pid namespace procs lists the namespace's pids ($(tr '\n' ' ' < "$T/ns.ours")= $(tr '\n' ' ' < "$T/ns.want"))" \
		sh -c "cmp -s '$T/ns.ours' '$T/ns.want' && test -s '$T/ns.want'"
	check_eq "in a pid namespace: pid 1 is the namespace's sh" \
		"$(awk 'NR > 1 && $1 == 1 { print $NF }' "$T/ns.procs")" sh
	check "in a pid namespace: the reader sees itself by its namespace pid ($r)" \
		sh -c "awk -v r='$r' 'NR > 1 && \$1 == r && \$NF == \"cat\"' '$T/ns.procs' | grep -q ."
elif [ -e /proc/self/ns/pid ]; then
	fail "unshare -p -f --mount-proc works in the guest (the kernel has pid namespaces)"
else
	skip "procs: pids in a pid namespace" "the kernel has no pid namespaces (CONFIG_PID_NS)"
fi

# -- processes exiting during the read -----------------------------------------

# a shell forking short-lived processes, and a target with 4000 VMAs that
# exits while procs is read (after 20 to 200 ms)
( while :; do /bin/true; done ) &
churner=$!
pids="$pids $churner"
bad=0
reads=0
recs=0
i=0
while [ $i -lt 10 ]; do
	i=$((i + 1))
	"$MT" exit 4000 $((i * 20)) > /dev/null 2>&1 &
	xp=$!
	if ! cat "$MI_DIR/procs" > "$T/ex.$i" 2> "$T/ex.err"; then
		bad=$((bad + 1))
		diag "read $i failed: $(cat "$T/ex.err")"
	else
		reads=$((reads + 1))
		n=$(awk 'NR == 1 { nf = NF; next } /^#/ { next } NF != nf { print; exit }' "$T/ex.$i")
		[ -z "$n" ] || { bad=$((bad + 1)); diag "read $i: bad record '$n'"; }
		[ "$(head -n 1 "$T/ex.$i" | cut -d' ' -f1)" = pid ] || bad=$((bad + 1))
		recs=$((recs + $(grep -c -v '^#' "$T/ex.$i") - 1))
		dups=$(awk 'NR > 1 && !/^#/ { if (s[$1]++) print $1 }' "$T/ex.$i")
		[ -z "$dups" ] || { bad=$((bad + 1)); diag "read $i: pid listed twice: $dups"; }
	fi
	wait "$xp"
done
kill "$churner" 2> /dev/null
wait "$churner" 2> /dev/null
check "procs reads whole while processes exit during it ($reads of 10 reads, $recs records, $bad faults)" \
	test "$bad" = 0 -a "$reads" = 10
