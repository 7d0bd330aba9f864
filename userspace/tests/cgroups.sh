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
