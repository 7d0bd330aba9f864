// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect_kpfloor sym=NAME: an empty kprobe on NAME while loaded, for
 * bench/fault's floor: what any kprobe at that function's entry costs (on
 * x86 the ftrace-based path: the trampoline saving pt_regs and the kprobe
 * dispatch), with nothing of meminspect's handler.  Like meminspect's
 * probes it has a post-handler, so it takes the same unoptimised path.
 *
 * ret=1 adds a kretprobe on NAME whose entry handler takes ktime_get_ns()
 * and whose return handler adds the difference to a per-CPU sum: the
 * kprobe + kretprobe pair of a bpftrace latency one-liner, for
 * bench/latency's comparison.
 *
 * tp=1 instead attaches an empty probe to the kmalloc and kfree
 * tracepoints, the two that a kmalloc() + kfree() pair fires: bench/allocs'
 * floor, what any tracepoint user pays there (the enabled static key, the
 * probe call) before doing anything.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>

static char *sym;
module_param(sym, charp, 0400);
MODULE_PARM_DESC(sym, "function whose entry gets an empty kprobe");
static bool ret;
module_param(ret, bool, 0400);
MODULE_PARM_DESC(ret, "also a timing kretprobe on the function");
static bool tp;
module_param(tp, bool, 0400);
MODULE_PARM_DESC(tp, "empty probes on the kmalloc and kfree tracepoints instead");

/*
 * One empty probe for both tracepoints, registered untyped: kmalloc's
 * prototype changed in v6.1 (11e9734bcb6a folded in the node), and a
 * probe that reads none of its arguments does not care.  The callers pass
 * theirs in registers (x86-64, arm64) and the callee ignores them; no
 * kernel of the matrix has kCFI (Debian builds with GCC).
 */
static void mi_floor_tp(void *data)
{
}

/*
 * Calls the empty kprobe saw, so that a bench can show the floor it
 * prints was probed at all (an empty probe's run once came out cheaper
 * than no probe): /sys/module/meminspect_kpfloor/parameters/hits.
 */
static DEFINE_PER_CPU(unsigned long, mi_floor_hits);

static int mi_floor_hits_get(char *buf, const struct kernel_param *kp)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(mi_floor_hits, cpu);
	return sysfs_emit(buf, "%lu\n", n);
}

static const struct kernel_param_ops mi_floor_hits_ops = {
	.get = mi_floor_hits_get,
};

module_param_cb(hits, &mi_floor_hits_ops, NULL, 0400);
MODULE_PARM_DESC(hits, "calls the empty kprobe saw (read-only)");

static int mi_floor_pre(struct kprobe *kp, struct pt_regs *regs)
{
	this_cpu_inc(mi_floor_hits);
	return 0;
}

static void mi_floor_post(struct kprobe *kp, struct pt_regs *regs,
			  unsigned long flags)
{
}

static struct kprobe mi_floor_kp = {
	.pre_handler = mi_floor_pre,
	.post_handler = mi_floor_post,
};

static DEFINE_PER_CPU(u64, mi_floor_ns);

static int mi_floor_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(u64 *)ri->data = ktime_get_ns();
	return 0;
}

static int mi_floor_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	this_cpu_add(mi_floor_ns, ktime_get_ns() - *(u64 *)ri->data);
	return 0;
}

static struct kretprobe mi_floor_rp = {
	.entry_handler = mi_floor_entry,
	.handler = mi_floor_ret,
	.data_size = sizeof(u64),
};

static int __init mi_floor_init(void)
{
	int err;

	if (tp) {
		err = tracepoint_probe_register(&__tracepoint_kmalloc,
						(void *)mi_floor_tp, NULL);
		if (err)
			return err;
		err = tracepoint_probe_register(&__tracepoint_kfree,
						(void *)mi_floor_tp, NULL);
		if (err)
			tracepoint_probe_unregister(&__tracepoint_kmalloc,
						    (void *)mi_floor_tp, NULL);
		return err;
	}
	if (!sym || !*sym)
		return -EINVAL;
	mi_floor_kp.symbol_name = sym;
	err = register_kprobe(&mi_floor_kp);
	if (err) {
		pr_warn("register_kprobe(%s): %d\n", sym, err);
		return err;
	}
	if (!ret)
		return 0;
	mi_floor_rp.kp.symbol_name = sym;
	err = register_kretprobe(&mi_floor_rp);
	if (err) {
		pr_warn("register_kretprobe(%s): %d\n", sym, err);
		unregister_kprobe(&mi_floor_kp);
	}
	return err;
}

static void __exit mi_floor_exit(void)
{
	if (tp) {
		tracepoint_probe_unregister(&__tracepoint_kfree,
					    (void *)mi_floor_tp, NULL);
		tracepoint_probe_unregister(&__tracepoint_kmalloc,
					    (void *)mi_floor_tp, NULL);
		/* no probe may still run when the module's text goes */
		tracepoint_synchronize_unregister();
		return;
	}
	if (ret)
		unregister_kretprobe(&mi_floor_rp);
	unregister_kprobe(&mi_floor_kp);
}

module_init(mi_floor_init);
module_exit(mi_floor_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("meminspect bench: an empty kprobe or tracepoint probe, a floor");
