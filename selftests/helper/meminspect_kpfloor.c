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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/timekeeping.h>

static char *sym;
module_param(sym, charp, 0400);
MODULE_PARM_DESC(sym, "function whose entry gets an empty kprobe");
static bool ret;
module_param(ret, bool, 0400);
MODULE_PARM_DESC(ret, "also a timing kretprobe on the function");

static int mi_floor_pre(struct kprobe *kp, struct pt_regs *regs)
{
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
	if (ret)
		unregister_kretprobe(&mi_floor_rp);
	unregister_kprobe(&mi_floor_kp);
}

module_init(mi_floor_init);
module_exit(mi_floor_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("meminspect bench: an empty kprobe, the floor of bench/fault");
