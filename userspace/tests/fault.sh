# SPDX-License-Identifier: GPL-2.0
# Host tests of `meminspect fault`: sourced by run.sh (its ok/is/has/run,
# $M, $tmp, $FX). The module is faked by a directory of regular files
# (writes land in them, as `echo V > knob` would) and the kernel by the
# commands run under `fault run`/`fault sweep`, which write stats, log,
# a fake /dev/kmsg and a fake /proc/sys/kernel/tainted themselves.

FD=$tmp/fdir			# --dir: the module's files
F=$FD/fault
mkdir -p "$F" "$tmp/proc/sys/kernel"
export MEMINSPECT_PROC=$tmp/proc MEMINSPECT_KMSG=$tmp/kmsg
# a tracefs instance of plain files: the fake command writes the module events into its trace
export MEMINSPECT_TRACE_INSTANCE=$tmp/trace

fault_knobs="sites probability interval times space verbose ignore-gfp-wait ignore-gfp-highmem
ignore-pagefault min-order max-order nth aim-pid aim-children aim-comm aim-cgroup aim-cache aim-size aim-module
aim-depth exclude-caller duration armed"

# the module's defaults (docs/fault.md), as knob files
fault_reset() {
	rm -rf "$F"
	mkdir -p "$F"
	cp "$FX/fault/settings" "$FX/fault/stats" "$FX/fault/log" "$F/"
	for k in $fault_knobs; do
		v=$(awk -v k="$k" '$1 == k { print $2 }' "$F/settings")
		[ "$v" = - ] && v=
		echo "$v" >"$F/$k"
	done
	: >"$tmp/kmsg"
	echo 12288 >"$tmp/proc/sys/kernel/tainted"
	rm -rf "$tmp/trace"
	mkdir -p "$tmp/trace/events/module/module_load" "$tmp/trace/events/module/module_free"
	echo 0 >"$tmp/trace/events/module/module_load/enable"
	echo 0 >"$tmp/trace/events/module/module_free/enable"
	printf '# tracer: nop\n#\n' >"$tmp/trace/trace"
}

# fake_set KNOB VALUE: a knob as the module would hold it (file and settings)
fake_set() {
	echo "$2" >"$F/$1"
	sed -i "s/^$1 .*/$1 ${2:--}/" "$F/settings"
}

# every knob file's value, one "k=v" a line
fault_knob_values() {
	for k in $fault_knobs; do echo "$k=$(cat "$F/$k")"; done
}

fault_reset
defaults=$(fault_knob_values)

# ---- status ----

run "$M" --dir "$FD" fault status
is "fault status: exit 0" 0 "$rc"
is "fault status: three sections" "== settings ==|== stats ==|== log ==" \
	"$(grep '^==' <<<"$out" | paste -sd'|')"
has "fault status: caller with its [module] kept whole" \
	"mi_test_setup+0x2a/0x90 [meminspect_test]" "$out"
run "$M" --dir "$FD" fault status --json
jq -e '.settings.probability == 100 and .settings["aim-comm"] == null and
	.settings["ignore-gfp-wait"] == "N" and (.stats | length) == 2 and
	.stats[0].site == "slab" and .stats[0].failed == 1 and
	.log[0].caller == "mi_test_setup+0x2a/0x90 [meminspect_test]" and .log[0].order == null' \
	>/dev/null <<<"$out"
ok $? "fault status --json: settings object, stats and log arrays, '-' as null" "$out"
run "$M" --json --dir "$FD" fault status
jq -e '.settings.sites == "none"' >/dev/null <<<"$out"
ok $? "--json before 'fault' works too" "$out"
printf 'site attached checked\nslab no 1\n' >"$F/stats"
run "$M" --dir "$FD" fault status
is "fault status: a stats file without its fields: exit 1" 1 "$rc"
has "fault status: names the missing field" "missing field 'matched'" "$err"
fault_reset
mkdir "$tmp/nofault"
run "$M" --dir "$tmp/nofault" fault status
is "fault status: no fault/ in the module: exit 4" 4 "$rc"
has "fault status: says the module has no fault injection" "has no fault injection" "$err"

# ---- arm, disarm, set ----

run "$M" --dir "$FD" fault arm
is "fault arm: exit 0, writes 1" "0 1" "$rc $(cat "$F/armed")"
run "$M" --dir "$FD" fault disarm
is "fault disarm: exit 0, writes 0" "0 0" "$rc $(cat "$F/armed")"
run "$M" --dir "$FD" fault set aim-comm "my prog"
is "fault set: the value verbatim, one line" "0|my prog" "$rc|$(cat "$F/aim-comm")"
run "$M" --dir "$FD" fault set times -1
is "fault set times -1: a negative value is a value, not an option" "0|-1" "$rc|$(cat "$F/times")"
run "$M" --dir "$FD" fault set aim-comm ''
is "fault set KEY '': an empty line" "0|" "$rc|$(cat "$F/aim-comm")"
run "$M" --dir "$FD" fault set probabilty 5
is "fault set: unknown knob: usage error" 2 "$rc"
has "fault set: unknown knob lists the knobs" "one of: sites probability" "$err"
# The knobs are the module's: the reader takes fault/settings' list, not one
# of its own. A module with a knob this reader was never told of (aim-node),
# and one without aim-depth (as an older one): exactly settings' list counts.
fault_reset
sed -i '/^armed /i aim-node -' "$F/settings"
: >"$F/aim-node"
run "$M" --dir "$FD" fault set aim-node 1
is "fault set: a knob only the module's settings name is written" "0|1" "$rc|$(cat "$F/aim-node")"
run "$M" --dir "$FD" fault set probabilty 5
is "fault set: unknown knob: the list is settings' keys, in their order" \
	"$(awk 'NR > 1 { printf " %s", $1 }' "$F/settings")" "$(sed -n 's/.*one of://p' <<<"$err")"
fault_reset
sed -i '/^aim-depth /d' "$F/settings"
rm "$F/aim-depth"
run "$M" --dir "$FD" fault set aim-depth 3
is "fault set: a knob the module's settings lack: usage error 2" 2 "$rc"
is "fault set: the list it gives is settings' (no aim-depth)" \
	"$(awk 'NR > 1 { printf " %s", $1 }' "$F/settings")" "$(sed -n 's/.*one of://p' <<<"$err")"
run "$M" --dir "$FD" fault run -- sh -c 'exit 3'
is "fault run: a module without a knob the reader does not need: runs" 3 "$rc"
rm -f "$tmp/ran"
run "$M" --dir "$FD" fault run --depth 3 -- sh -c ": >'$tmp/ran'"
is "fault run --depth, the module has no aim-depth: exit 1" 1 "$rc"
has "fault run --depth: says the module has no such knob" \
	"fault run: depth 3 (aim-depth): No such file or directory (the loaded module has no such knob)" "$err"
ok "$([ ! -e "$tmp/ran" ]; echo $?)" "fault run --depth: the command did not run"
fault_reset
sed -i '/^nth /d' "$F/settings"
run "$M" --dir "$FD" fault sweep -- sh -c 'exit 0'
is "fault sweep: a module without the nth it needs: exit 1, naming it" \
	"1 meminspect: fault/settings has no 'nth'" "$rc $err"
is "fault sweep: without nth: knobs back, disarmed" "$defaults" "$(fault_knob_values)"
fault_reset
# the module first, then the knob: with none to read, its diagnostics, not a usage error
mkdir -p "$tmp/nosys"
MEMINSPECT_SYSFS=$tmp/nosys run "$M" --dir "$tmp/gone" fault set probabilty 5
is "fault set, module not loaded: exit 4 before the knob is judged" 4 "$rc"
has "fault set, module not loaded: says so" "the meminspect module is not loaded" "$err"
MEMINSPECT_SYSFS=$tmp/nosys run "$M" fault set probabilty 5
is "fault set, debugfs not mounted: exit 3 before the knob is judged" 3 "$rc"
rm "$F/probability"
mkdir "$F/probability"	# a write the "kernel" refuses: EISDIR
run "$M" --dir "$FD" fault set probability 101
is "fault set: a refused write exits 6" 6 "$rc"
is "fault set: the kernel's error, clearly" \
	"meminspect: fault set probability 101: Is a directory" "$err"
fault_reset
for bad in "fault" "fault frob" "fault set times" "fault set a b c" "fault status extra" \
	"fault status --pid 1" "fault run" "fault run --" "fault run --max-runs 3 -- true" \
	"fault sweep --max-runs 0 -- true" "fault sweep --max-runs x -- true" \
	"fault run --pid" "fault run --bogus -- true"; do
	run "$M" --dir "$FD" $bad
	is "$bad: usage error" 2 "$rc"
done
is "usage errors changed no knob" "$defaults" "$(fault_knob_values)"
run "$M" fault --help
is "fault --help: exit 0" 0 "$rc"
has "fault --help: documents sweep" "runs COMMAND with nth = 1, 2, 3" "$out"
has "fault --help: exit status 6" "6  the kernel refused a knob write" "$out"
run "$M" --help
has "meminspect --help lists fault" "fault         inject allocation failures" "$out"

# ---- run ----

# The command records what it saw while it ran: the knobs, and its own pid.
cat >"$tmp/seen.sh" <<EOF
echo "pid=\$\$" >"$tmp/seen"
for k in $(echo $fault_knobs); do echo "\$k=\$(cat "$F/\$k")" >>"$tmp/seen"; done
exit \${1:-0}
EOF
run "$M" --dir "$FD" fault run --cache kmalloc-64 --times 3 --size 8-64 --no-children \
	--ignore-gfp-wait -- sh "$tmp/seen.sh" 7
is "fault run: exits with the command's status" 7 "$rc"
seen=$(cat "$tmp/seen")
pid=$(sed -n 's/^pid=//p' <<<"$seen")
has "fault run: aimed at the command's pid" "aim-pid=$pid" "$seen"
has "fault run: armed while the command runs" "armed=1" "$seen"
has "fault run: --cache" "aim-cache=kmalloc-64" "$seen"
has "fault run: --times" "times=3" "$seen"
has "fault run: --size" "aim-size=8-64" "$seen"
has "fault run: --no-children" "aim-children=N" "$seen"
has "fault run: --ignore-gfp-wait without a value is Y" "ignore-gfp-wait=Y" "$seen"
has "fault run: sites none becomes slab" "sites=slab" "$seen"
is "fault run: every knob put back, disarmed" "$defaults" "$(fault_knob_values)"
has "fault run: prints the stats" "== stats ==" "$out"
has "fault run: and the command's status" "# sh exited with status 7" "$out"

run "$M" --dir "$FD" fault run --pid 4242 --sites slab,pages --verbose 2 -- sh "$tmp/seen.sh"
seen=$(cat "$tmp/seen")
has "fault run --pid: aims at that pid, not the command" "aim-pid=4242" "$seen"
has "fault run: children by default" "aim-children=Y" "$seen"
has "fault run: --sites" "sites=slab,pages" "$seen"
is "fault run --pid: exit 0 and settings back" "0|$defaults" "$rc|$(fault_knob_values)"

fake_set times 3
fake_set aim-cache mycache
mine=$(fault_knob_values)
run "$M" --dir "$FD" fault run --times 9 -- sh "$tmp/seen.sh"
has "fault run: options over the current settings" "aim-cache=mycache" "$(cat "$tmp/seen")"
is "fault run: puts back the user's own settings, not the defaults" "$mine" "$(fault_knob_values)"
fault_reset

run "$M" --dir "$FD" fault run --json -- sh -c 'exit 0'
jq -e '.command == ["sh", "-c", "exit 0"] and .exit_status == 0 and (.stats | length) == 2
	and .log[0].seq == 1' >/dev/null <<<"$out"
ok $? "fault run --json: command, exit_status, stats, log" "$out"
run "$M" --dir "$FD" fault run -- sh -c 'kill -9 $$'
is "fault run: a command killed by signal 9 exits 137" 137 "$rc"
run "$M" --dir "$FD" fault run -- /nonexistent/prog
is "fault run: a command not found exits 127" 127 "$rc"
has "fault run: says why" "cannot run '/nonexistent/prog'" "$err"
is "fault run: disarmed after a command that could not start" "$defaults" "$(fault_knob_values)"

# the default arms after the command's exec (ptrace stop): a command that
# cannot exec is never aimed at (aim-pid, unwritable here, is not touched);
# --from-exec aims before the exec, as failcmd.sh
rm "$F/aim-pid"
mkdir "$F/aim-pid"
run "$M" --dir "$FD" fault run -- /nonexistent/prog
is "fault run: a command that cannot exec is never aimed at: 127, not 6" 127 "$rc"
rm -f "$tmp/seen"
run "$M" --dir "$FD" fault run --from-exec -- sh "$tmp/seen.sh"
is "fault run --from-exec: aims before the exec: the refused aim-pid exits 6" 6 "$rc"
ok "$([ ! -e "$tmp/seen" ]; echo $?)" "fault run --from-exec: the command did not run"
rmdir "$F/aim-pid"
echo 0 >"$F/aim-pid"
run "$M" --dir "$FD" fault run --from-exec -- sh "$tmp/seen.sh" 7
is "fault run --from-exec: the command's status" 7 "$rc"
has "fault run --from-exec: armed while the command runs" "armed=1" "$(cat "$tmp/seen")"
run "$M" --dir "$FD" fault status --from-exec
is "fault status --from-exec: usage error" 2 "$rc"
is "fault run --from-exec: every knob put back, disarmed" "$defaults" "$(fault_knob_values)"

# armed is opened once, before arming, and disarmed through that file: a
# command that removes it meanwhile (as if opening it would fail) is still
# disarmed, with the writes landing in the file the reader holds
run "$M" --dir "$FD" fault run --duration 250 -- sh -c "cat '$F/duration' >'$tmp/dur'; rm '$F/armed'; exit 3"
is "fault run: disarms through the armed file opened before arming (no reopen)" 3 "$rc"
is "fault run --duration: written while the command runs" 250 "$(cat "$tmp/dur")"
echo 0 >"$F/armed"
is "fault run --duration: knobs back" "$defaults" "$(fault_knob_values)"

fake_set armed 1
run "$M" --dir "$FD" fault run -- sh "$tmp/seen.sh"
is "fault run while armed: refused with 6" 6 "$rc"
has "fault run while armed: says so" "already armed" "$err"
fault_reset

rm "$F/times"
mkdir "$F/times"
rm -f "$tmp/seen"
run "$M" --dir "$FD" fault run --times 5 -- sh "$tmp/seen.sh"
is "fault run: a refused option exits 6" 6 "$rc"
has "fault run: names the option and the knob" "fault run: times 5 (times): Is a directory" "$err"
ok "$([ ! -e "$tmp/seen" ]; echo $?)" "fault run: the command did not run"
rmdir "$F/times"
echo 1 >"$F/times"
is "fault run: a refused option changed nothing, left it disarmed" "$defaults" "$(fault_knob_values)"

# killed mid-run: SIGTERM and SIGINT disarm at once, the command is stopped,
# the knobs go back, and the reader dies of the same signal
for sig in TERM INT; do
	fault_reset
	"$M" --dir "$FD" fault run -- sleep 30 >/dev/null 2>&1 &
	rpid=$!
	i=0
	until [ "$(cat "$F/armed")" = 1 ] || [ $i -ge 200 ]; do sleep 0.02; i=$((i + 1)); done
	spid=$(cat "$F/aim-pid")
	kill -$sig $rpid
	wait $rpid
	rc=$?
	want=$((128 + $(kill -l $sig)))
	is "fault run killed by SIG$sig: dies of it ($want)" "$want" "$rc"
	is "fault run killed by SIG$sig: disarmed, settings back" "$defaults" "$(fault_knob_values)"
	kill -0 "$spid" 2>/dev/null
	ok "$([ $? -ne 0 ]; echo $?)" "fault run killed by SIG$sig: the command was stopped too"
done

# ---- sweep ----

# A fake kernel: the command is "allocating code" with POINTS failure
# points. With nth <= POINTS the nth one fails (stats failed 1, log its
# caller); SPLAT_AT makes that run log a WARNING; TAINT_AT sets taint W.
cat >"$tmp/fake.sh" <<EOF
nth=\$(cat "$F/nth")
points=\${POINTS:-3}
echo "nth=\$nth armed=\$(cat "$F/armed") pid=\$(cat "$F/aim-pid") self=\$\$ excl=\$(cat "$F/exclude-caller")" >>"$tmp/sweep.seen"
if [ "\$nth" -le "\$points" ]; then failed=1 matched=\$nth; else failed=0 matched=\$points; fi
printf 'site attached checked matched failed nofail\nslab yes 99 %s %s 0\npages no 0 0 0 0\n' \
	"\$matched" "\$failed" >"$F/stats"
{
	echo 'seq site pid comm size order gfp caller'
	[ \$failed = 1 ] && echo "1 slab \$\$ fake 64 - 0xcc0 step\$nth+0x10/0x40 [fake]"
} >"$F/log"
echo "6,1\$nth,100,-;meminspect: fault: an ordinary line" >>"$tmp/kmsg"
if [ "\$nth" = "\${SPLAT_AT:-0}" ]; then
	echo "4,2\$nth,101,-;WARNING: CPU: 1 PID: \$\$ at fake_probe+0x1/0x2" >>"$tmp/kmsg"
	echo " SUBSYSTEM=fake" >>"$tmp/kmsg"
fi
# LEAK_AT: that run's task leaves two objects unreferenced in the fake
# kmemleak report (the file MEMINSPECT_KMEMLEAK names), as kmemleak prints them
if [ "\$nth" = "\${LEAK_AT:-0}" ]; then
	printf 'unreferenced object 0xffff888004a1c000 (size 96):\n  comm "fake", pid %s, jiffies 4294901234\n  backtrace (crc 0):\n    kmalloc_trace+0x25/0x90\n' \$\$ >>"\$MEMINSPECT_KMEMLEAK"
	printf 'unreferenced object 0xffff888004a1c100 (size 128):\n  comm "a", pid 7", pid %s, jiffies 4294901235\n' \$\$ >>"\$MEMINSPECT_KMEMLEAK"
fi
# PERCPU_AT: that run's task leaves a per-CPU object, as kmemleak prints those since it
# scans per-CPU memory (a workqueue's leaked cpu_pwq table on a failed insmod, say)
if [ "\$nth" = "\${PERCPU_AT:-0}" ]; then
	printf 'unreferenced object (percpu) 0xc0fffa5b121048 (size 8):\n  comm "insmod", pid %s, jiffies 4294901237\n  backtrace (crc 0):\n    pcpu_alloc_noprof+0x665/0xac0\n' \$\$ >>"\$MEMINSPECT_KMEMLEAK"
fi
# OUTSIDE_AT: during that run a kernel thread from before the sweep leaves one
if [ "\$nth" = "\${OUTSIDE_AT:-0}" ]; then
	printf 'unreferenced object 0xffff888000000100 (size 64):\n  comm "kworker/0:2", pid 1, jiffies 4294901236 (age 1.2s)\n' >>"\$MEMINSPECT_KMEMLEAK"
fi
# REPORT_AT: the kernel's own report of the failure, stack dump and all
if [ "\$nth" = "\${REPORT_AT:-0}" ]; then
	echo "4,3\$nth,102,-;sh: vmalloc error: size 16384, vm_struct allocation failed, mode:0xdc0(GFP_KERNEL|__GFP_ZERO)" >>"$tmp/kmsg"
	echo "4,4\$nth,103,-;CPU: 1 UID: 0 PID: \$\$ Comm: sh Tainted: G OE 6.12.95+deb12-amd64 #1" >>"$tmp/kmsg"
	echo "4,5\$nth,104,-;Hardware name: QEMU Standard PC (Q35 + ICH9, 2009)" >>"$tmp/kmsg"
	echo "4,6\$nth,105,-;Call Trace:" >>"$tmp/kmsg"
	echo "4,7\$nth,106,-; <TASK>" >>"$tmp/kmsg"
fi
# TRACE_AT: a stack dump with no report before it
[ "\$nth" = "\${TRACE_AT:-0}" ] && echo "4,8\$nth,107,-;Call Trace:" >>"$tmp/kmsg"
# KMSG_AT: that run's kernel log gets the fixture KMSG_FILE, printed by the task KMSG_PID
# (default: the command itself)
[ "\$nth" = "\${KMSG_AT:-0}" ] && sed "s/@PID@/\${KMSG_PID:-\$\$}/g" "$FX/kmsg/\$KMSG_FILE" >>"$tmp/kmsg"
# The module's life as the kernel traces it (module_load, module_free): loaded, freed
# when its init failed; RETRY: loaded again at once, as busybox's insmod does after a
# failed finit_module(), that init succeeding (exit 0), and unloaded by the command.
# Another module (fakedep, a name fake is a prefix of) loads in every run.
ev() { echo "  fake.sh-\$\$     [000] .....   1.\$nth: module_\$1: \$2" >>"$tmp/trace/trace"; }
if [ "\$(cat "$tmp/trace/events/module/module_load/enable")" = 1 ]; then
	ev load fakedep
	ev load "fake (OE)"
	if [ \$failed = 1 ]; then
		ev free fake
		[ -z "\${RETRY:-}" ] || { ev load "fake (OE)"; ev free fake; }
	fi
fi
[ -z "\${RETRY:-}" ] || failed=0
[ "\$nth" = "\${TAINT_AT:-0}" ] && echo 12800 >"$tmp/proc/sys/kernel/tainted"
# SPARED: the module's excluded table, as after the run
if [ -n "\${SPARED:-}" ]; then
	printf 'caller origin present spared\ntomoyo_realpath_from_path builtin yes 2\ntomoyo_get_name builtin no 0\nmy_probe knob yes %s\n' \
		\$((nth == 1)) >"$F/excluded"
fi
echo "output of run \$nth"
exit \$((failed * 12))
EOF
fault_reset
rm -f "$tmp/sweep.seen"
run "$M" --dir "$FD" fault sweep --module fake -- sh "$tmp/fake.sh"
is "fault sweep: clean and complete: exit 0" 0 "$rc"
is "fault sweep: one run per failure point, plus the clean one" \
	"nth=1 armed=1|nth=2 armed=1|nth=3 armed=1|nth=4 armed=1" \
	"$(sed 's/ pid.*//' "$tmp/sweep.seen" | paste -sd'|')"
ok "$(awk '{ split($3, a, "="); split($4, b, "="); if (a[2] != b[2]) bad = 1 } END { print bad + 0 }' \
	"$tmp/sweep.seen")" "fault sweep: each run aimed at its own command"
is "fault sweep: table rows" \
"nth  exit  failed  matched  splats  reports  new_taint  module  loads  leaks  caller
  1    12       1        1       0        0          0  gone        1  -      step1+0x10/0x40 [fake]
  2    12       1        2       0        0          0  gone        1  -      step2+0x10/0x40 [fake]
  3    12       1        3       0        0          0  gone        1  -      step3+0x10/0x40 [fake]
  4     0       0        3       0        0          0  gone        1  -      -" "$(grep -v '^#' <<<"$out")"
lacks "fault sweep: one load a run: no reload note" "loaded twice" "$out"
is "fault sweep: the module events are turned off again" "0 0" \
	"$(cat "$tmp/trace/events/module/module_load/enable" "$tmp/trace/events/module/module_free/enable" | paste -sd' ')"
has "fault sweep --module: gone or live after every run" "# module fake: gone or live after every run" "$out"
has "fault sweep: no kmemleak file, said so" "# kmemleak: not checked (the kernel has no kmemleak file)" "$out"
has "fault sweep: says it is complete" "# complete: run 4 injected nothing; 3 failure points" "$out"
has "fault sweep: and clean" "# no kernel splat, no new taint" "$out"
ok "$(grep -c 'output of run' <<<"$out$err")" "fault sweep: the command's output went to /dev/null"
is "fault sweep: knobs back (nth 0, aim-module empty), disarmed" "$defaults" "$(fault_knob_values)"

# a module still Loading after its command ended: half-loaded, the sweep stops (exit 9)
fault_reset
printf 'fake 16384 0 - Loading 0x0000000000000000 (OE)\n' >"$tmp/proc/modules"
run "$M" --dir "$FD" fault sweep --module fake -- sh "$tmp/fake.sh"
is "fault sweep --module: half-loaded after a run: exit 9" 9 "$rc"
has "fault sweep --module: says what it saw" "# nth 1: module fake: /proc/modules: Loading" "$out"
is "fault sweep --module: stops at that run" 1 "$(grep -c '^ *[0-9]' <<<"$out")"
rm -f "$tmp/proc/modules"

fault_reset
run "$M" --dir "$FD" fault sweep --json -- sh "$tmp/fake.sh"
jq -e '.complete == 1 and .clean == 1 and .failure_points == 3 and (.runs | length) == 4 and
	.runs[0].caller == "step1+0x10/0x40 [fake]" and .runs[3].caller == null and
	.runs[1].exit_status == 12 and .runs[2].splat_lines == [] and
	.module == null and .runs[0].module_state == null and .kmemleak == 0 and
	.runs[0].leaks == null' >/dev/null <<<"$out"
ok $? "fault sweep --json: runs, complete, clean, failure_points" "$out"

# kmemleak (a fake report file): one scan after the last run, each object
# charged to the run whose task allocated it (by pid), one of a task from
# before the sweep counted apart; an object the report listed before the
# sweep (the scan leak_open writes) is not the sweep's, and nothing is
# cleared. The file is a plain file: "scan" overwrites its first line.
fault_reset
# Three records before the sweep, out of address order; the last at the address run 2's
# first object will have, allocated earlier: an address reused is a new object, charged.
before='unreferenced object 0xffff888100000000 (size 32):
  comm "kworker/1:1", pid 1, jiffies 4294900001 (age 20.4s)
unreferenced object 0xffff888000000000 (size 32):
  comm "kworker/0:1", pid 1, jiffies 4294900000 (age 20.5s)
unreferenced object 0xffff888004a1c000 (size 96):
  comm "old", pid 1, jiffies 4294800000 (age 420.5s)'
printf 'first-line-for-the-writes\n%s\n' "$before" >"$tmp/kmemleak"
rm -f "$tmp/sweep.seen"
t0=$(date +%s)
MEMINSPECT_KMEMLEAK=$tmp/kmemleak LEAK_AT=2 OUTSIDE_AT=3 run "$M" --dir "$FD" fault sweep --module fake -- sh "$tmp/fake.sh"
secs=$(($(date +%s) - t0))
is "fault sweep kmemleak: a leak: exit 10" 10 "$rc"
is "fault sweep kmemleak: the leaks column charges run 2 only" "0 2 0 0" \
	"$(awk '$1 ~ /^[0-9]+$/ { printf "%s%s", s, $10; s = " " }' <<<"$out")"
has "fault sweep kmemleak: run 2's note names its failure point" \
	"# nth 2: kmemleak: 2 unreferenced objects after failing step2+0x10/0x40 [fake]" "$out"
pid2=$(awk '$1 == "nth=2" { sub(/self=/, "", $4); print $4 }' "$tmp/sweep.seen")
has "fault sweep kmemleak: size and task of each (pid $pid2)" \
	"# nth 2: kmemleak: size 96, comm fake, pid $pid2" "$out"
has "fault sweep kmemleak: a comm holding '\", pid ' is read whole" \
	"# nth 2: kmemleak: size 128, comm a\", pid 7, pid $pid2" "$out"
has "fault sweep kmemleak: an object of no run's task counted apart" \
	"# kmemleak: 1 unreferenced objects of no run's task" "$out"
has "fault sweep kmemleak: and named" "# kmemleak: size 64, comm kworker/0:2, pid 1" "$out"
lacks "fault sweep kmemleak: the objects listed before the sweep are not charged" \
	"comm kworker/[01]:1\\|comm old" "$out"
has "fault sweep kmemleak: summary note" "# kmemleak: unreferenced objects after the sweep" "$out"
ok "$([ "$secs" -ge 5 ] && [ "$secs" -lt 11 ]; echo $?)" \
	"fault sweep kmemleak: one scan for 4 runs (its 5.5 s wait once: ${secs} s)"
is "fault sweep kmemleak: the scans were asked for, nothing was cleared" "scan" \
	"$(head -c 4 "$tmp/kmemleak")"
has "fault sweep kmemleak: the report before the sweep is still there" "$before" "$(cat "$tmp/kmemleak")"
fault_reset
printf 'first-line-for-the-writes\n' >"$tmp/kmemleak"
MEMINSPECT_KMEMLEAK=$tmp/kmemleak LEAK_AT=3 run "$M" --dir "$FD" fault sweep --json --module fake -- sh "$tmp/fake.sh"
jq -e '.kmemleak == 1 and .leaked == 1 and .leaks_outside == 0 and .outside_leak_lines == [] and
	[.runs[].leaks] == [0, 0, 2, 0] and (.runs[2].leak_lines | length) == 2' >/dev/null <<<"$out"
ok $? "fault sweep --json kmemleak: leaks per run, none outside" "$out"
fault_reset
printf 'first-line-for-the-writes\n' >"$tmp/kmemleak"
MEMINSPECT_KMEMLEAK=$tmp/kmemleak PERCPU_AT=2 run "$M" --dir "$FD" fault sweep --json --module fake -- sh "$tmp/fake.sh"
is "fault sweep --json kmemleak: a per-CPU object leaked: exit 10" 10 "$rc"
jq -e '.leaked == 1 and [.runs[].leaks] == [0, 1, 0, 0] and
	(.runs[1].leak_lines[0] | test("^percpu, size 8, comm insmod, pid [0-9]+$"))' >/dev/null <<<"$out"
ok $? "fault sweep --json kmemleak: a per-CPU object is charged to its run and called percpu" "$out"
fault_reset
printf 'first-line-for-the-writes\n' >"$tmp/kmemleak"
MEMINSPECT_KMEMLEAK=$tmp/kmemleak OUTSIDE_AT=1 run "$M" --dir "$FD" fault sweep --json --module fake -- sh "$tmp/fake.sh"
is "fault sweep --json kmemleak: only an object of no run's task: exit 10" 10 "$rc"
jq -e '.leaked == 1 and .leaks_outside == 1 and .outside_leak_lines == ["size 64, comm kworker/0:2, pid 1"] and
	[.runs[].leaks] == [0, 0, 0, 0]' >/dev/null <<<"$out"
ok $? "fault sweep --json kmemleak: leaked 1 when only an object apart leaked" "$out"
fault_reset
printf 'first-line-for-the-writes\n%s\n' "$before" >"$tmp/kmemleak"
MEMINSPECT_KMEMLEAK=$tmp/kmemleak run "$M" --dir "$FD" fault sweep --module fake -- sh "$tmp/fake.sh"
is "fault sweep kmemleak: nothing leaked (only an object from before): exit 0" 0 "$rc"
has "fault sweep kmemleak: says so" "# kmemleak: no unreferenced object after the sweep" "$out"

fault_reset
rm -f "$tmp/sweep.seen"
SPARED=1 run "$M" --dir "$FD" fault sweep --exclude-caller my_probe -- sh "$tmp/fake.sh"
is "fault sweep: spared callers summed over the runs, with why" \
"# spared: 8 allocations in 4 runs under tomoyo_realpath_from_path (built in: the kernel panics when it fails, docs/fault.md)
# spared: 1 allocations in 1 runs under my_probe (exclude-caller)" "$(grep '^# spared' <<<"$out")"
is "fault sweep --exclude-caller: the knob is set in every run" "4" \
	"$(grep -c 'excl=my_probe$' "$tmp/sweep.seen")"
is "fault sweep --exclude-caller: knobs back" "$defaults" "$(fault_knob_values)"
rm -f "$F/excluded"
SPARED=1 run "$M" --dir "$FD" fault sweep --json -- sh "$tmp/fake.sh"
jq -e '.spared == [{"caller": "tomoyo_realpath_from_path", "origin": "builtin", "allocations": 8, "runs": 4},
	{"caller": "my_probe", "origin": "knob", "allocations": 1, "runs": 1}]' >/dev/null <<<"$out"
ok $? "fault sweep --json: spared callers" "$out"

fault_reset
SPLAT_AT=2 run "$M" --dir "$FD" fault sweep -- sh "$tmp/fake.sh"
is "fault sweep: a run with a splat: exit 7" 7 "$rc"
is "fault sweep: the splat is that run's" "0 1 0 0" \
	"$(awk '$1 ~ /^[0-9]+$/ { printf "%s%s", sep, $5; sep = " " }' <<<"$out")"
has "fault sweep: the splat line as a note" \
	"# nth 2: WARNING: CPU: 1 PID:" "$out"
has "fault sweep: says so" "# a run left a kernel splat or a new taint" "$out"
ok "$(grep -c 'ordinary line\|SUBSYSTEM' <<<"$out")" "fault sweep: ordinary lines and record continuations are not splats"

fault_reset
REPORT_AT=1 run "$M" --dir "$FD" fault sweep -- sh "$tmp/fake.sh"
is "fault sweep: the kernel's report of an injected failure, stack dump and all, is no splat" \
	"0 0 0 0 0" "$rc $(awk '$1 ~ /^[0-9]+$/ { printf "%s%s", sep, $5; sep = " " }' <<<"$out")"

fault_reset
TRACE_AT=3 run "$M" --dir "$FD" fault sweep -- sh "$tmp/fake.sh"
is "fault sweep: a stack dump with no report before it is a splat: exit 7" 7 "$rc"
has "fault sweep: that run's note" "# nth 3: Call Trace:" "$out"

# The kernel's own report of a failure a run injected: dummy's init on 6.1, its
# register_netdevice() failing in sysctl (fixtures/kmsg/sysctl-report): a stack dump
# with no splat header, printed by the run's task. Named in its row, no splat, no exit 7.
fault_reset
KMSG_AT=2 KMSG_FILE=sysctl-report run "$M" --dir "$FD" fault sweep -- sh "$tmp/fake.sh"
is "fault sweep: sysctl's report of an injected failure, stack dump and all, is no splat: exit 0" 0 "$rc"
is "fault sweep: it is run 2's report (splats, reports)" "0/0 0/1 0/0 0/0" \
	"$(awk '$1 ~ /^[0-9]+$/ { printf "%s%s/%s", sep, $5, $6; sep = " " }' <<<"$out")"
has "fault sweep: the report named by its first line, in run 2's note" \
	"# nth 2: report: sysctl could not get directory: /net/ipv4/neigh/dummy0 -12" "$out"
has "fault sweep: the reports counted apart from splats" \
	"# kernel reports: 1 stack dumps were the kernel's own reports of a failure injected in their run (named above), not splats" "$out"
has "fault sweep: and the sweep is clean" "# no kernel splat, no new taint" "$out"
fault_reset
KMSG_AT=2 KMSG_FILE=sysctl-report run "$M" --dir "$FD" fault sweep --json -- sh "$tmp/fake.sh"
jq -e '.clean == 1 and [.runs[].reports] == [0, 1, 0, 0] and [.runs[].splats] == [0, 0, 0, 0] and
	.runs[1].report_lines == ["sysctl could not get directory: /net/ipv4/neigh/dummy0 -12"] and
	.runs[0].report_lines == []' >/dev/null <<<"$out"
ok $? "fault sweep --json: reports and report_lines per run, clean" "$out"
# A real WARNING (with the same dump header) is still a splat, its stack dump too.
fault_reset
KMSG_AT=2 KMSG_FILE=warning run "$M" --dir "$FD" fault sweep -- sh "$tmp/fake.sh"
is "fault sweep: a WARNING after an injected failure is a splat: exit 7" 7 "$rc"
is "fault sweep: the WARNING and its stack dump are run 2's splats, no report" "0/0 2/0 0/0 0/0" \
	"$(awk '$1 ~ /^[0-9]+$/ { printf "%s%s/%s", sep, $5, $6; sep = " " }' <<<"$out")"
has "fault sweep: the WARNING line as a note" "# nth 2: WARNING: CPU: 1 PID:" "$out"
lacks "fault sweep: no report named for it" "report:" "$out"
# The same report printed by a task that is none of the run's, or in the run that
# injected nothing: nothing says it answers an injected failure, a splat.
fault_reset
KMSG_AT=2 KMSG_FILE=sysctl-report KMSG_PID=1 run "$M" --dir "$FD" fault sweep -- sh "$tmp/fake.sh"
is "fault sweep: a stack dump printed by another task (pid 1) is a splat: exit 7" 7 "$rc"
has "fault sweep: that run's note" "# nth 2: Call Trace:" "$out"
fault_reset
KMSG_AT=4 KMSG_FILE=sysctl-report run "$M" --dir "$FD" fault sweep -- sh "$tmp/fake.sh"
is "fault sweep: a stack dump in the run that injected nothing is a splat: exit 7" 7 "$rc"
has "fault sweep: the clean run's note" "# nth 4: Call Trace:" "$out"

# busybox's insmod: a failed finit_module() is followed by init_module(), whose init
# succeeds (the failure point has passed). The kernel's module_load/module_free events
# show the module loaded twice in the run: said in the row (loads) and in a note.
fault_reset
RETRY=1 run "$M" --dir "$FD" fault sweep --module fake -- sh "$tmp/fake.sh"
is "fault sweep: a loader that retries: exit 0 (nothing wrong in the kernel)" 0 "$rc"
is "fault sweep: the rows show the retry: exit 0, failed 1, loads 2 (the clean run: 1)" \
	"0/1/2 0/1/2 0/1/2 0/0/1" \
	"$(awk '$1 ~ /^[0-9]+$/ { printf "%s%s/%s/%s", sep, $2, $3, $9; sep = " " }' <<<"$out")"
has "fault sweep: a note names the cause and the fix" \
	"# module fake: loaded twice in 3 of 4 runs (loads; the kernel's module_load and module_free events): its init failed and COMMAND loaded it again, as busybox's insmod does (init_module() after a failed finit_module()); those rows show the second load's exit and module state, not the failure. Load with one finit_module() call: kmod's insmod, or modprobe" "$out"
fault_reset
RETRY=1 run "$M" --dir "$FD" fault sweep --json --module fake -- sh "$tmp/fake.sh"
jq -e '.module_reloads == 3 and [.runs[].module_loads] == [2, 2, 2, 1] and
	[.runs[].module_reloaded] == [1, 1, 1, 0]' >/dev/null <<<"$out"
ok $? "fault sweep --json: module_loads, module_reloaded per run, module_reloads" "$out"
fault_reset
run "$M" --dir "$FD" fault sweep --json -- sh "$tmp/fake.sh"
jq -e '.module_reloads == null and [.runs[].module_loads] == [null, null, null, null]' >/dev/null <<<"$out"
ok $? "fault sweep --json: without --module, loads are not traced (null)" "$out"
# no tracefs instance to be had: said, not guessed
fault_reset
MEMINSPECT_TRACE_INSTANCE=$tmp/no-tracefs RETRY=1 run "$M" --dir "$FD" fault sweep --module fake -- sh "$tmp/fake.sh"
is "fault sweep: no tracefs: the loads column is '-'" "- - - -" \
	"$(awk '$1 ~ /^[0-9]+$/ { printf "%s%s", sep, $9; sep = " " }' <<<"$out")"
has "fault sweep: no tracefs: says loads were not checked, and why" \
	"# module fake: loads not checked (cannot enable the module_load and module_free events in $tmp/no-tracefs: No such file or directory)" "$out"

fault_reset
TAINT_AT=3 run "$M" --dir "$FD" fault sweep --json -- sh "$tmp/fake.sh"
jq -e '.clean == 0 and .runs[2].new_taint == 512 and .runs[1].new_taint == 0 and
	.runs[3].new_taint == 0' >/dev/null <<<"$out"
ok $? "fault sweep: a new taint bit (W) is that run's, O/E not counted" "$out"
is "fault sweep: taint: exit 7" 7 "$rc"

fault_reset
POINTS=50 run "$M" --dir "$FD" fault sweep --max-runs 5 -- sh "$tmp/fake.sh"
is "fault sweep: --max-runs reached: exit 8" 8 "$rc"
has "fault sweep: says it is incomplete" "# incomplete: stopped after 5 runs" "$out"
is "fault sweep --max-runs: knobs back" "$defaults" "$(fault_knob_values)"

fault_reset
run "$M" --dir "$FD" fault sweep --command-output -- sh "$tmp/fake.sh"
has "fault sweep --command-output: keeps it" "output of run 2" "$out"

fault_reset
POINTS=1000 "$M" --dir "$FD" fault sweep -- sh -c "sh $tmp/fake.sh; sleep 0.05" >/dev/null 2>&1 &
rpid=$!
sleep 0.5
kill -TERM $rpid
wait $rpid
is "fault sweep killed by SIGTERM: dies of it" 143 "$?"
is "fault sweep killed by SIGTERM: disarmed, knobs back" "$defaults" "$(fault_knob_values)"

# the kernel log patterns and taint bits are scripts/' files, built in
# (patterns.h), never a copy in the source
pattern_list() {	# pattern_list ARRAY: its strings, unescaped, from patterns.h
	sed -n "/^static const char \*const $1/,/^};/p" "$here/../patterns.h" |
		sed -n 's/^\t"\(.*\)",$/\1/p' | sed 's/\\\(.\)/\1/g'
}
is "fault sweep's splat patterns are scripts/splat-patterns, built in" \
	"$(grep -v -e '^#' -e '^$' "$here/../../scripts/splat-patterns")" "$(pattern_list splat_patterns)"
is "fault sweep's report headers are scripts/alloc-failure-reports, built in" \
	"$(grep -v -e '^#' -e '^$' "$here/../../scripts/alloc-failure-reports")" "$(pattern_list report_patterns)"
is "fault sweep's stack dump header is scripts/stack-dump-header, built in" \
	"$(grep -v -e '^#' -e '^$' "$here/../../scripts/stack-dump-header")" "$(pattern_list dump_header_patterns)"
is "fault sweep's expected taint bits are scripts/taint-expected, built in" \
	"$(awk '!/^#/ && NF { m += $1 } END { print m }' "$here/../../scripts/taint-expected")" \
	"$(( $(sed -n 's/^#define TAINT_EXPECTED (\(.*\))$/\1/p' "$here/../patterns.h" | sed 's/ul//g') ))"
is "no copy of them in the reader's source" "" \
	"$(grep -l -e '"WARNING:"' -e '"page allocation failure: order"' -e '262144' -e 'UID: \[0-9\]' \
		"$here"/../*.c "$here"/../*.h |
		grep -v '/patterns\.h$')"

# ---- report and export: the capabilities row "fault" names a directory ----

fault_reset
# the real module's rows (fixtures/fault/capabilities: a 6.1 guest's file),
# the ones this fake directory has: fault/ is a mechanism row
awk 'NR == 1 || $1 == "capabilities" || $1 ~ /^fault/' "$FX/fault/capabilities" >"$FD/capabilities"
run "$M" --dir "$FD" report
is "report: the fault row shows its three tables" \
	"== capabilities ==|== fault/settings ==|== fault/stats ==|== fault/log ==" \
	"$(grep '^==' <<<"$out" | paste -sd'|')"
is "report: exit 0" 0 "$rc"
run "$M" --dir "$FD" report --json
jq -e '(.fault | keys) == ["log", "settings", "stats"] and .fault.stats[0].failed == 1 and
	.fault.settings[0].key == "sites"' >/dev/null <<<"$out"
ok $? "report --json: \"fault\" is an object of its tables" "$out"
run "$M" --dir "$FD" export --prometheus
is "export: exit 0" 0 "$rc"
has "export: fault counters per site" 'meminspect_fault_failed_total{site="slab"} 1' "$out"
has "export: checked is a counter" "# TYPE meminspect_fault_checked_total counter" "$out"
has "export: attached as 0/1" 'meminspect_fault_attached{site="pages"} 0' "$out"
has "export: the fault row is one file_ok" 'meminspect_file_ok{file="fault"} 1' "$out"
ok "$(grep -c 'meminspect_fault_\(settings\|log\|seq\|pid\)' <<<"$out")" \
	"export: settings and log are not metrics"
promtool_ok "export with fault: promtool check metrics is silent" \
	"$(MEMINSPECT_DIR=$FD "$M" export --prometheus)" check metrics
run "$M" --dir "$FD" export --json
jq -e '[.[] | select(.metric == "meminspect_fault_matched_total")] | length == 2' \
	>/dev/null <<<"$out"
ok $? "export --json: the fault samples" "$out"
rm "$F/stats"
run "$M" --dir "$FD" export --prometheus
has "export: fault/stats missing: file_ok 0" 'meminspect_file_ok{file="fault"} 0' "$out"
is "export: fault/stats missing: exit 11 (the others exported)" 11 "$rc"
