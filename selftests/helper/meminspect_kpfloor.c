// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect_kpfloor sym=NAME: an empty kprobe on NAME while loaded, for
 * bench/fault's floor: what any kprobe at that function's entry costs (on
 * x86 the ftrace-based path: the trampoline saving pt_regs and the kprobe
 * dispatch), with nothing of meminspect's handler.  Like meminspect's
 * probes it has a post-handler, so it takes the same unoptimised path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static char *sym;
module_param(sym, charp, 0400);
MODULE_PARM_DESC(sym, "function whose entry gets an empty kprobe");

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

static int __init mi_floor_init(void)
{
	int err;

	if (!sym || !*sym)
		return -EINVAL;
	mi_floor_kp.symbol_name = sym;
	err = register_kprobe(&mi_floor_kp);
	if (err)
		pr_warn("register_kprobe(%s): %d\n", sym, err);
	return err;
}

static void __exit mi_floor_exit(void)
{
	unregister_kprobe(&mi_floor_kp);
}

module_init(mi_floor_init);
module_exit(mi_floor_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("meminspect bench: an empty kprobe, the floor of bench/fault");
