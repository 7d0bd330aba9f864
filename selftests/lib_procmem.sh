# SPDX-License-Identifier: GPL-2.0
# Shared by the mm/vmas tests (test_procmem*.sh): start a memtarget, read
# mm or vmas of a pid, and compare every figure with the kernel's own
# (/proc/PID/status, smaps_rollup, smaps, maps).  The caller sets $T (its
# tmpdir), $MT (memtarget) and collects $pids (the targets started).

# pm_read FILE PID: FILE (mm or vmas) of PID on stdout; fails like the write.
# PM_DIR: where the files are (default MI_DIR; /dev/meminspect under lockdown)
pm_read()
{
	(
		exec 3<>"${PM_DIR:-$MI_DIR}/$1" || exit 1
		echo "$2" >&3 || exit 1
		cat <&3
	)
}

# start_ready OUT CMD...: CMD (memtarget, vmarace) in the background, its
# output in OUT and its pid added to $pids; waits (60 s at most) for its
# "ready PID [CHILD]" line and sets $tpid (and $cpid) from it.  OUT is
# removed first: the redirection happens in the background child, and the
# wait must not find an earlier target's "ready" line in a reused file.
start_ready()
{
	_out=$1
	shift
	rm -f "$_out"
	"$@" > "$_out" 2>&1 &
	pids="$pids $!"
	if ! wait_line "$_out" ready $!; then
		diag "${1##*/} did not get ready ($*): $(cat "$_out")"
		return 1
	fi
	tpid=$(awk '/^ready/ { print $2 }' "$_out")
	cpid=$(awk '/^ready/ { print $3 }' "$_out")
}

# start_target OUT ARGS...: memtarget ARGS, as start_ready
start_target()
{
	_st_out=$1
	shift
	start_ready "$_st_out" "$MT" "$@"
}

# kv FILE: "Key: value ..." lines (smaps_rollup, status) as "Key value"
kv()
{
	awk '{ k = $1; sub(/:$/, "", k); print k, $2 }' "$1"
}

# rec FILE: the one record of a meminspect file as "field value" lines
rec()
{
	awk 'NR == 1 { n = split($0, h, " "); next }
	     /^#/ { next }
	     { for (i = 1; i < n; i++) print h[i], $i
	       s = $0; for (i = 1; i < n; i++) sub(/^[^ ]* /, "", s)
	       print h[n], s; exit }' "$1"
}

# compare MINE THEIRS PAIRS: PAIRS is "ours=theirs ..."; prints mismatches
compare()
{
	awk -v pairs="$3" '
		FNR == NR { a[$1] = $2; next }
		{ b[$1] = $2 }
		END {
			n = split(pairs, p, " ")
			for (i = 1; i <= n; i++) {
				split(p[i], q, "=")
				if (!(q[2] in b))
					continue	# not on this kernel
				if (!(q[1] in a) || a[q[1]] != b[q[2]])
					printf "%s=%s vs %s=%s\n", q[1], a[q[1]], q[2], b[q[2]]
			}
		}' "$1" "$2"
}

ROLLUP_PAIRS="rss_kb=Rss pss_kb=Pss pss_dirty_kb=Pss_Dirty pss_anon_kb=Pss_Anon
pss_file_kb=Pss_File pss_shmem_kb=Pss_Shmem shared_clean_kb=Shared_Clean
shared_dirty_kb=Shared_Dirty private_clean_kb=Private_Clean
private_dirty_kb=Private_Dirty referenced_kb=Referenced
anonymous_kb=Anonymous lazyfree_kb=LazyFree anon_huge_kb=AnonHugePages
shmem_pmd_kb=ShmemPmdMapped file_pmd_kb=FilePmdMapped swap_kb=Swap
swap_pss_kb=SwapPss locked_kb=Locked uss_kb=Uss
shared_hugetlb_kb=Shared_Hugetlb private_hugetlb_kb=Private_Hugetlb"
STATUS_PAIRS="total_vm_kb=VmSize hiwater_vm_kb=VmPeak mm_rss_kb=VmRSS
mm_anon_kb=RssAnon mm_file_kb=RssFile mm_shmem_kb=RssShmem
hiwater_rss_kb=VmHWM data_vm_kb=VmData stack_vm_kb=VmStk locked_vm_kb=VmLck
pinned_vm_kb=VmPin swap_ents_kb=VmSwap exec_vm_kb=VmExecLib
pgtables_kb=VmPTE map_count=MapCount max_map_count=MaxMapCount
start_code=StartCode end_code=EndCode start_stack=StartStack
start_data=StartData end_data=EndData start_brk=StartBrk comm=Comm pid=Pid"
# Where the mm.max_map_count row says no (sysctl_max_map_count not found: 6.1-arm64's kallsyms
# has no variables), mm prints "-" for it, as documented: not compared.
if [ "$(cap_available mm.max_map_count)" != yes ]; then
	STATUS_PAIRS=$(echo "$STATUS_PAIRS" | sed 's/ max_map_count=MaxMapCount//')
fi

# anchors PID OUT: the kernel's own figures for PID, one "Key value" a line,
# read by one awk (it was ten processes, read twice a check: under KASAN a
# process costs the debug guest ~0.05-0.1 s)
anchors()
{
	awk -v pid="$1" '
	# smaps_rollup, status: "Key: value ..."
	FILENAME ~ /\/(smaps_rollup|status)$/ {
		k = $1
		sub(/:$/, "", k)
		print k, $2
		if (k ~ /^Private_(Clean|Dirty)$/)
			uss += $2
		if (k ~ /^Vm(Exe|Lib)$/)
			execlib += $2
		next
	}
	FILENAME ~ /\/maps$/ { if ($0 !~ /\[vsyscall\]/) nmaps++; next }
	FILENAME ~ /\/max_map_count$/ { print "MaxMapCount", $0; next }
	FILENAME ~ /\/comm$/ { print "Comm", $0; next }
	# /proc/PID/stat after the ")" of comm: field 3 is f[1] here
	FILENAME ~ /\/stat$/ {
		s = $0
		sub(/.*\) /, "", s)
		split(s, f, " ")
		print "StartCode", f[24]; print "EndCode", f[25]
		print "StartStack", f[26]; print "StartData", f[43]
		print "EndData", f[44]; print "StartBrk", f[45]
	}
	END {
		print "Uss", uss + 0
		print "VmExecLib", execlib + 0
		print "MapCount", nmaps + 0
		print "Pid", pid
	}' "/proc/$1/smaps_rollup" "/proc/$1/status" "/proc/$1/maps" \
		/proc/sys/vm/max_map_count "/proc/$1/comm" "/proc/$1/stat" > "$2"
}

# ours MMFILE OUT: the mm record, pgtables in kB, addresses in decimal
ours()
{
	rec "$1" | awk '
		function h2d(s,   i, d) {
			d = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++)
				d = d * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return d
		}
		$2 ~ /^0x/ { printf "%s %.0f\n", $1, h2d($2); next }
		{ print }
		$1 == "pgtables_bytes" { print "pgtables_kb", int($2 / 1024) }' > "$2"
}

# check_mm NAME PID: mm of PID equals its smaps_rollup and status; read
# again (up to 3 times) if the anchors moved between the reads
check_mm()
{
	_r=0
	while [ $_r -lt 3 ]; do
		_r=$((_r + 1))
		anchors "$2" "$T/a1"
		pm_read mm "$2" > "$T/mm" || { fail "$1: mm of pid $2 reads"; return; }
		anchors "$2" "$T/a2"
		cmp -s "$T/a1" "$T/a2" || continue
		ours "$T/mm" "$T/ours"
		compare "$T/ours" "$T/a1" "$ROLLUP_PAIRS $STATUS_PAIRS" > "$T/diff"
		[ -s "$T/diff" ] || break
	done
	if ! cmp -s "$T/a1" "$T/a2"; then
		fail "$1: quiescent target (the anchors moved in 3 tries)"
	elif [ -s "$T/diff" ]; then
		fail "$1: mm equals smaps_rollup and status exactly"
		while read -r l; do diag "$l"; done < "$T/diff"
	else
		ok "$1: mm equals smaps_rollup and status exactly ($(wc -l < "$T/ours") figures)"
	fi
}

# smaps_rows PID: one line per VMA of smaps: start and "Key value" pairs
smaps_rows()
{
	awk '/^[0-9a-f]+-[0-9a-f]+ / {
		if (line != "") print line
		split($1, r, "-"); s = r[1]; sub(/^0+/, "", s)
		name = ""
		for (i = 6; i <= NF; i++) name = name (i > 6 ? " " : "") $i
		if (name == "") name = "-"
		line = s " perms " $2 " inode " $5 " name " name
		next }
	     /^[A-Z][A-Za-z_]*: +[0-9]+ kB$/ { k = $1; sub(/:$/, "", k)
		line = line " " k " " $2 }
	     END { if (line != "") print line }' "/proc/$1/smaps"
}

VMA_PAIRS="size_kb=Size rss_kb=Rss pss_kb=Pss pss_dirty_kb=Pss_Dirty
shared_clean_kb=Shared_Clean shared_dirty_kb=Shared_Dirty
private_clean_kb=Private_Clean private_dirty_kb=Private_Dirty
referenced_kb=Referenced anonymous_kb=Anonymous lazyfree_kb=LazyFree
anon_huge_kb=AnonHugePages shmem_pmd_kb=ShmemPmdMapped
file_pmd_kb=FilePmdMapped swap_kb=Swap swap_pss_kb=SwapPss locked_kb=Locked
shared_hugetlb_kb=Shared_Hugetlb private_hugetlb_kb=Private_Hugetlb
perms=perms inode=inode"

# check_vmas NAME PID: each vmas row equals its smaps entry; the rows sum
# to the mm rollup
check_vmas()
{
	_r=0
	while [ $_r -lt 3 ]; do
		_r=$((_r + 1))
		smaps_rows "$2" > "$T/s1"
		pm_read vmas "$2" > "$T/vmas" || { fail "$1: vmas reads"; return; }
		pm_read mm "$2" > "$T/mm2"
		smaps_rows "$2" > "$T/s2"
		cmp -s "$T/s1" "$T/s2" && break
	done
	awk -v pairs="$VMA_PAIRS" '
		FNR == NR { s = $1; for (i = 2; i < NF; i += 2) v[s, $i] = $(i + 1)
			    have[s] = 1; next }
		FNR == 1 { n = split($0, h, " "); next }
		/^#/ { next }
		{ s = $1; sub(/^0x/, "", s); rows++
		  if (!(s in have)) { printf "row %s: not in smaps\n", $1; bad++; next }
		  seen[s] = 1
		  m = split(pairs, p, " ")
		  for (i = 1; i <= n; i++) f[h[i]] = $i
		  for (i = 1; i <= m; i++) {
			split(p[i], q, "=")
			if (!((s, q[2]) in v)) continue
			if (f[q[1]] != v[s, q[2]]) {
				printf "row %s: %s=%s vs smaps %s=%s\n", $1, q[1], f[q[1]], q[2], v[s, q[2]]
				bad++
			}
		  } }
		END { for (s in have) if (!(s in seen) && s != "ffffffffff600000")
			printf "smaps %s: no row\n", s }' "$T/s1" "$T/vmas" > "$T/vdiff"
	if [ -s "$T/vdiff" ]; then
		fail "$1: every vmas row equals its smaps entry"
		head -n 20 "$T/vdiff" | while read -r l; do diag "$l"; done
	else
		ok "$1: every vmas row equals its smaps entry ($(grep -c '^0x' "$T/vmas") rows)"
	fi

	rec "$T/mm2" > "$T/mm2.rec"
	rows_vs_rollup "$T/mm2.rec" "$T/vmas" > "$T/sdiff"
	if [ -s "$T/sdiff" ]; then
		fail "$1: vmas rows sum to the mm rollup"
		while read -r l; do diag "$l"; done < "$T/sdiff"
	else
		ok "$1: vmas rows sum to the mm rollup (PSS within the per-row kB truncation)"
	fi
}

# rows_vs_rollup MMREC VMAS [loose]: the vmas rows summed against the mm
# rollup (MMREC: rec form), one line per figure that differs.  Exactly, but
# the PSS figures (pss*, swap_pss*, locked*), which smaps and we print
# truncated to kB per row: 0 <= rollup - sum < rows; and the rows are
# map_count.  "loose": the PSS figures and the row count are not compared.
rows_vs_rollup()
{
	# the sums by progs/colsum: busybox awk took 31 s for 65530 rows
	if ! "$ST_DIR/progs/colsum" "$2" > "$2.sums"; then
		echo "progs/colsum $2 failed"
		return
	fi
	awk -v loose="${3:-}" 'FILENAME == ARGV[1] { m[$1] = $2; next }
	     FILENAME == ARGV[2] { if ($1 == "rows") rows = $2; else s[$1] = $2; next }
	     /^#/ { next }
	     { n = split($0, h, " "); for (i = 8; i < n; i++) want[h[i]] = 1; exit }
	     END { for (k in want) {
			if (k == "size_kb") continue
			d = m[k] - s[k]
			if (k ~ /^(pss|swap_pss|locked)/) {
				if (loose == "" && (d < 0 || d >= rows)) printf "%s: rollup %s, rows sum to %s (%d rows)\n", k, m[k], s[k] + 0, rows
			} else if (d != 0) printf "%s: rollup %s, rows sum to %s\n", k, m[k], s[k] + 0
		   }
		   if (loose == "" && rows != m["map_count"]) printf "rows %d, map_count %s\n", rows, m["map_count"] }' \
		"$1" "$2.sums" "$2"
}
