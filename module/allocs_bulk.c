// SPDX-License-Identifier: GPL-2.0
/*
 * allocs/: the frees that fire no tracepoint.
 *
 * kmem_cache_free_bulk() fires neither kfree nor kmem_cache_free, and
 * kfree_bulk() is an inline call of it: it frees kfree_rcu() batches
 * (kfree_rcu_work()), maple tree nodes and NAPI's cached skb heads.  From
 * "slab: add sheaf support for batching kfree_rcu() operations" (v6.18) a
 * kfree_rcu() of an object of a cache with sheaves goes to
 * __kfree_rcu_sheaf() instead, whose objects are freed after the grace
 * period inside the allocator, traced nowhere either.  An object freed
 * either way would stay live in its row forever, pin its hash slot, and
 * a later object at its address would be credited to it.
 *
 * So a kprobe on each forgets the objects at entry: for kfree_rcu() that
 * is when the owner lets go, a grace period before the memory is free; no
 * other object can take the address before it is.  The handler only reads
 * the array it is given and clears hash slots (mi_allocs_forget()): no
 * lock, no allocation, no print.  A symbol the kernel does not have (the
 * sheaf path before v6.18) is not probed, and the capabilities row says
 * which are.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>

#include "allocs_priv.h"
#include "capabilities.h"
#include "ksyms.h"

/* kmem_cache_free_bulk(struct kmem_cache *s, size_t size, void **p) */
static int mi_allocs_free_bulk_pre(struct kprobe *kp, struct pt_regs *regs)
{
	size_t n = regs_get_kernel_argument(regs, 1);
	void **p = (void **)regs_get_kernel_argument(regs, 2);
	size_t i;

	for (i = 0; i < n; i++)
		mi_allocs_forget(READ_ONCE(p[i]));
	return 0;
}

NOKPROBE_SYMBOL(mi_allocs_free_bulk_pre);

/* __kfree_rcu_sheaf(struct kmem_cache *s, void *obj, ...) */
static int mi_allocs_rcu_sheaf_pre(struct kprobe *kp, struct pt_regs *regs)
{
	mi_allocs_forget((const void *)regs_get_kernel_argument(regs, 1));
	return 0;
}

NOKPROBE_SYMBOL(mi_allocs_rcu_sheaf_pre);

struct mi_allocs_bulk_point {
	const char *symbol;
	kprobe_pre_handler_t pre;
	bool present;		/* in this kernel's kallsyms, at init */
	bool registered;	/* by this arming */
	struct kprobe kp;
};

static struct mi_allocs_bulk_point mi_allocs_bulk_points[] = {
	{ .symbol = "kmem_cache_free_bulk", .pre = mi_allocs_free_bulk_pre },
	{ .symbol = "__kfree_rcu_sheaf", .pre = mi_allocs_rcu_sheaf_pre },
};

void mi_allocs_bulk_init(struct mi_cap *cap)
{
	char probed[96] = "";
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mi_allocs_bulk_points); i++) {
		struct mi_allocs_bulk_point *b = &mi_allocs_bulk_points[i];

		b->present = mi_ksym(b->symbol);
		if (!b->present)
			continue;
		if (probed[0])
			strlcat(probed, ", ", sizeof(probed));
		strlcat(probed, b->symbol, sizeof(probed));
	}
	if (!mi_allocs_bulk_points[0].present)
		mi_cap_set(cap, false,
			   "kmem_cache_free_bulk not found in kallsyms: objects freed by kfree_bulk() and kfree_rcu() batches stay live");
	else
		mi_cap_set(cap, true,
			   "bulk frees followed by kprobes on %s (kfree_bulk(), kfree_rcu())",
			   probed);
}

/*
 * Registered before the allocation tracepoints, as the frees are: no
 * recorded object misses its free.  A point that fails to register fails
 * the arming (a missed free is a false leak); the ones registered before
 * it are unregistered.
 */
int mi_allocs_bulk_attach(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(mi_allocs_bulk_points); i++) {
		struct mi_allocs_bulk_point *b = &mi_allocs_bulk_points[i];

		if (!b->present)
			continue;
		/* a kprobe is registered afresh: no state of the last one */
		memset(&b->kp, 0, sizeof(b->kp));
		b->kp.symbol_name = b->symbol;
		b->kp.pre_handler = b->pre;
		err = register_kprobe(&b->kp);
		if (err) {
			pr_warn("allocs: kprobe on %s: error %d\n", b->symbol, err);
			mi_allocs_bulk_detach();
			return err;
		}
		b->registered = true;
	}
	return 0;
}

/* unregister_kprobe() waits until no handler runs. */
void mi_allocs_bulk_detach(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mi_allocs_bulk_points); i++) {
		struct mi_allocs_bulk_point *b = &mi_allocs_bulk_points[i];

		if (!b->registered)
			continue;
		unregister_kprobe(&b->kp);
		b->registered = false;
	}
}
