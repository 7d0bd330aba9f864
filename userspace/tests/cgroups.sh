# SPDX-License-Identifier: GPL-2.0
# meminspect cgroups (sourced by run.sh): the cgroups file of a 6.1 guest
# (fixtures/cgroups: memory enabled in /system.slice, x.service removed with
# 2 MiB of tmpfs charged to it, so dying)
CGX=$FX/cgroups
run "$M" --dir "$CGX" cgroups
is "cgroups: exit 0, header" "0 id state anon_pages file_pages shmem_pages slab_bytes path" \
	"$rc $(head -n 1 <<<"$out" | tr -s ' ')"
is "cgroups: one row per record, in the file's order" "/ /system.slice /system.slice/x.service /system.slice/y.service /user.slice" \
	"$(awk 'NR > 1 && !/^#/ { printf "%s%s", s, $NF; s = " " }' <<<"$out")"
run "$M" --dir "$CGX" cgroups --dying
is "cgroups --dying: only the dying row" "0 58 dying /system.slice/x.service" \
	"$rc $(awk 'NR > 1 && !/^#/ { print $1, $2, $NF }' <<<"$out")"
run "$M" --dir "$CGX" --json cgroups
is "cgroups --json: numbers, '-' as null, the path a string" "0 5 6857 null /system.slice" \
	"$rc $(jq -r '"\(length) \(.[0].shmem_pages) \(.[0].slab_bytes) \(.[1].path)"' <<<"$out")"
run "$M" --dir "$CGX" --json cgroups --dying
is "cgroups --json --dying: one object" "0 58 512" "$rc $(jq -r '"\(.[0].id) \(.[0].shmem_pages)"' <<<"$out")"
run "$M" --dir "$CGX" pages --dying
is "--dying on another command: a usage error" 2 "$rc"
mkdir -p "$tmp/cgbad"
sed '3s/ online / alive /' "$CGX/cgroups" >"$tmp/cgbad/cgroups"
run "$M" --dir "$tmp/cgbad" cgroups
is "cgroups: a state other than online or dying is a format error" 1 "$rc"
has "cgroups: the format error names the value" "alive" "$err"
# export: one series per cgroup, told apart by id, state and path
mkdir -p "$tmp/cgexp"
cp "$CGX/cgroups" "$tmp/cgexp/"
printf 'name kind available detail\ncgroups file yes fixture\n' >"$tmp/cgexp/capabilities"
run "$M" --dir "$tmp/cgexp" export --prometheus
is "export of cgroups: exit 0" 0 "$rc"
has "export of cgroups: a dying cgroup's shmem, labelled" \
	'meminspect_cgroups_shmem_pages{id="58",state="dying",path="/system.slice/x.service"} 512' "$out"
has "export of cgroups: meminspect_file_ok 1" 'meminspect_file_ok{file="cgroups"} 1' "$out"
promtool_ok "export of cgroups: promtool check metrics is silent and exits 0" "$out" check metrics

# --sort KEY on fixtures/cgroups_slab: the 6.1 file's layout with numeric slab_bytes (no
# kernel gives them yet) but old.service's '-' (before a 0 in the file: unknown sorts
# last, not as 0), ties, and paths whose byte order is not the tree's ('/B.slice' first).  Totals (4 KiB pages): old 2867200, db 2097152,
# web 2093056 (db's slab breaks the tie of their pages), / 1925120, /b.slice 1261568.
CGS=$FX/cgroups_slab
ids() { awk 'NR > 1 && !/^#/ { printf "%s%s", s, $1; s = " " }' <<<"$1"; }
run "$M" --dir "$CGS" cgroups
is "cgroups: no --sort: the file's order" "0 1 20 35 31 40 12 50" "$rc $(ids "$out")"
for c in "id:1 12 20 31 35 40 50" "path:1 50 20 40 31 35 12" "anon:35 40 1 20 31 12 50" \
	"file:31 1 35 40 12 20 50" "shmem:12 1 20 35 31 40 50" "slab:1 12 40 35 20 50 31" \
	"total:31 40 35 1 12 20 50"; do
	run "$M" --dir "$CGS" cgroups --sort "${c%%:*}"
	is "cgroups --sort ${c%%:*}: exit 0, that order (ties and '-' as documented)" \
		"0 ${c#*:}" "$rc $(ids "$out")"
done
is "cgroups --sort: the notes kept" 4 "$(grep -c '^#' <<<"$out")"
run "$M" --dir "$CGX" cgroups --sort shmem
is "cgroups --sort shmem, slab_bytes all '-': exit 0, largest first, ties in file order" \
	"0 1 58 23 75 92" "$rc $(ids "$out")"
run "$M" --dir "$CGX" cgroups --sort slab
is "cgroups --sort slab, slab_bytes all '-': the file's order" "0 1 23 58 75 92" "$rc $(ids "$out")"
run "$M" --dir "$CGX" cgroups --sort total
is "cgroups --sort total, slab_bytes '-': pages alone" "0 1 58 23 75 92" "$rc $(ids "$out")"
run "$M" --dir "$CGS" cgroups --dying --sort id
is "cgroups --dying --sort id: the dying rows, by id" "0 12 31" "$rc $(ids "$out")"
run "$M" --dir "$CGS" --json cgroups --sort total
is "cgroups --json --sort total: the objects in that order, '-' as null" \
	"0 31 40 35 1 12 20 50 null" "$rc $(jq -r '(map(.id) | join(" ")) + " \(.[0].slab_bytes)"' <<<"$out")"
run "$M" --dir "$CGS" --json cgroups --dying --sort file
is "cgroups --json --dying --sort file" "0 31 12" "$rc $(jq -r 'map(.id) | join(" ")' <<<"$out")"
for k in bogus Total '' size; do
	run "$M" --dir "$CGS" cgroups --sort "$k"
	is "cgroups --sort '$k': usage error, exit 2, nothing on stdout" "2 " "$rc $out"
	has "cgroups --sort '$k': the message names the valid keys" \
		"--sort takes id, path, anon, file, shmem, slab or total, not '$k'" "$err"
done
run "$M" --dir "$CGS" zones --sort total
is "--sort total on a command without cgroups' keys: usage error" 2 "$rc"

# export --cgroup-series N: the dying cgroups first, then the largest totals; the
# unlabeled gauges count every record whatever the cap
mkdir -p "$tmp/cgcap"
cp "$CGS/cgroups" "$tmp/cgcap/"
printf 'name kind available detail\ncgroups file yes fixture\n' >"$tmp/cgcap/capabilities"
cgseries() { grep '^meminspect_cgroups_file_pages{' <<<"$1" | sed 's/.*id="\([0-9]*\)".*/\1/' | paste -sd' '; }
for c in "1:31:6" "2:31 12:5" "3:31 40 12:4" "5:1 35 31 40 12:2" "7:1 20 35 31 40 12 50:0" \
	"4096:1 20 35 31 40 12 50:0" "-:1 20 35 31 40 12 50:0"; do
	n=${c%%:*} rest=${c#*:} want=${rest%:*} drop=${rest##*:}
	if [ "$n" = - ]; then run "$M" --dir "$tmp/cgcap" export --prometheus
	else run "$M" --dir "$tmp/cgcap" export --prometheus --cgroup-series "$n"; fi
	is "export --cgroup-series $n: exit 0, these cgroups' series (dying first, then by total)" \
		"0 $want" "$rc $(cgseries "$out")"
	is "export --cgroup-series $n: series_dropped $drop, dying 2 and their bytes" \
		"meminspect_cgroups_series_dropped $drop|meminspect_cgroups_dying 2|meminspect_cgroups_dying_bytes 4128768" \
		"$(grep -E '^meminspect_cgroups_(series_dropped|dying|dying_bytes) ' <<<"$out" | paste -sd'|')"
	promtool_ok "export --cgroup-series $n: promtool check metrics is silent and exits 0" "$out" check metrics
done
run "$M" --dir "$tmp/cgcap" export --prometheus --cgroup-series 3
is "export --cgroup-series 3: 3 series per metric (2 of slab_bytes: old.service's is '-')" "3 3 3 2" \
	"$(for m in anon_pages file_pages shmem_pages slab_bytes; do grep -c "^meminspect_cgroups_$m{" <<<"$out"; done | paste -sd' ')"
has "export: a numeric slab_bytes is a sample" \
	'meminspect_cgroups_slab_bytes{id="12",state="dying",path="/b.slice"} 12288' "$out"
lacks "export: a '-' slab_bytes is no sample" '^meminspect_cgroups_slab_bytes{id="31"' "$out"
run "$M" --dir "$tmp/cgcap" --json export --cgroup-series 1
is "export --json --cgroup-series 1: the gauges as JSON samples" "0 6 2 4128768 1" \
	"$rc $(jq -r 'map({(.metric): .value}) | add | "\(.meminspect_cgroups_series_dropped) \(.meminspect_cgroups_dying) \(.meminspect_cgroups_dying_bytes)"' <<<"$out") $(jq '[.[] | select(.metric == "meminspect_cgroups_file_pages")] | length' <<<"$out")"
for v in 0 -1 4097 abc '' 1x; do
	run "$M" --dir "$tmp/cgcap" export --prometheus --cgroup-series "$v"
	is "export --cgroup-series '$v': usage error, exit 2, nothing on stdout" "2 " "$rc $out"
	has "export --cgroup-series '$v': says what it takes" \
		"--cgroup-series takes a number of cgroups from 1 to 4096, not '$v'" "$err"
done
run "$M" --dir "$CGS" cgroups --cgroup-series 5
is "--cgroup-series on cgroups: a usage error (an export option)" 2 "$rc"
run "$M" --dir "$tmp/cgcap" export --prometheus --cgroup-series 1
for m in $(grep -o 'meminspect_cgroups_[a-z_]*' "$here/../../docs/meminspect-alerts.yml" | sort -u); do
	has "docs/meminspect-alerts.yml: $m is exported" "# TYPE $m gauge" "$out"
done
# --dying with what keeps each cgroup (fixtures/cgroup_pins: a 6.1 guest right after
# rmdir of x.service, which had read an 8 MiB ramdisk and written 1 MiB of tmpfs)
CGP=$FX/cgroup_pins
run env MEMINSPECT_MOUNTINFO="$CGP/mountinfo" "$M" --dir "$CGP" cgroups --dying
is "cgroups --dying: top_files and top_slabs before path" \
	"0 id state anon_pages file_pages shmem_pages slab_bytes top_files top_slabs path" \
	"$rc $(head -n 1 <<<"$out" | tr -s ' ')"
is "cgroups --dying: the ramdisk's inode (no path: dev:ino), then the tmpfs file with its mount point; no slab cache" \
	'58 00:03:1048576:2048,/mnt/t/cache\040file:256 - /system.slice/x.service' \
	"$(awk 'NR == 2 { print $1, $7, $8, $9 }' <<<"$out")"
is "cgroups --dying: nothing on stderr" "" "$err"
# the slab side, with rows for x.service (a kernel that kept them: none of the matrix does)
mkdir -p "$tmp/cgpins"
cp "$CGP"/* "$tmp/cgpins/"
printf '58 dentry 30 6000 /system.slice/x.service\n58 kmalloc-cg-32 50 2000 /system.slice/x.service\n58 pid 1 136 /system.slice/x.service\n58 task_struct 2 14000 /system.slice/x.service\n' \
	>>"$tmp/cgpins/cgroup_slabs"
run env MEMINSPECT_MOUNTINFO="$CGP/mountinfo" "$M" --dir "$tmp/cgpins" --json cgroups --dying
is "cgroups --json --dying: the top 3 slab caches by objects, largest first" \
	"0 kmalloc-cg-32:50,dentry:30,task_struct:2" "$rc $(jq -r '.[0].top_slabs' <<<"$out")"
is "cgroups --json --dying: top_files a string" \
	'00:03:1048576:2048,/mnt/t/cache\040file:256' "$(jq -r '.[0].top_files' <<<"$out")"
# a module without files or cgroup_slabs: '-' and a note, no error
run "$M" --dir "$CGX" cgroups --dying
is "cgroups --dying without files and cgroup_slabs: exit 0, '-' for both" "0 - -" \
	"$rc $(awk 'NR == 2 { print $7, $8 }' <<<"$out")"
has "cgroups --dying without files: a note says so" "files could not be read" "$out"
