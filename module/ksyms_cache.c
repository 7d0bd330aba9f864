// SPDX-License-Identifier: GPL-2.0
/*
 * One pass over kallsyms for module init, where kallsyms_lookup_name() is a
 * linear search.
 *
 * Before "kallsyms: Improve the performance of kallsyms_lookup_name()"
 * (60443c88f3a8, v6.2) a lookup expands every symbol name in turn, and one
 * of a name the kernel does not have (init asks for every kernel's names)
 * walks them all, the modules' too.  On 5.10 init made 93 lookups: 5.8 s of
 * a 6.3 s insmod under QEMU TCG (function_graph on kallsyms_lookup_name),
 * 5 to 23 s on a loaded machine.  So on such a kernel init reads kallsyms
 * once, with kallsyms_on_each_symbol() (unexported with kallsyms_lookup_name()
 * by 0bd476e6c671, v5.7, and found with it), into a table of name hashes,
 * answers its lookups from the table and drops it when init ends.  Lookups
 * after init (knob writes) go to kallsyms_lookup_name() again.
 *
 * The same series added kallsyms_on_each_match_symbol() (4dc533e0f2c0,
 * v6.2) to include/linux/kallsyms.h: probe.sh sets MI_HAVE_KALLSYMS_MATCH
 * from it, and where it is set (Debian's 6.1 has the series backported,
 * 6.12 and 7.3 have it) there is no table.
 *
 * The walk covers the modules as kallsyms_lookup_name() does, which on
 * 5.10 must hold module_mutex (module_kallsyms_on_each_symbol() asserts
 * it): taken killably, found with ksyms (declared, not exported).  The
 * first of several symbols of one name is kept, as a lookup finds it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "ksyms.h"

#ifndef MI_HAVE_KALLSYMS_MATCH

#define MI_KSC_BITS	18	/* 262144 slots, 4 MiB: 5.10 has 105k symbols */
#define MI_KSC_SLOTS	BIT(MI_KSC_BITS)
#define MI_KSC_MAX	(MI_KSC_SLOTS / 4 * 3)	/* fuller: give up the table */

struct mi_ksc_slot {
	u64 hash;	/* 0: empty */
	unsigned long addr;
};

static struct mi_ksc_slot *mi_ksc;
static unsigned int mi_ksc_used;

DEFINE_STATIC_CALL_NULL(mi_kallsyms_on_each_symbol, kallsyms_on_each_symbol);

/* FNV-1a, never 0 (0 marks an empty slot) */
static u64 mi_ksc_hash(const char *name)
{
	u64 h = 0xcbf29ce484222325ULL;

	while (*name) {
		h ^= (unsigned char)*name++;
		h *= 0x100000001b3ULL;
	}
	return h ?: 1;
}

/* The slot of @hash: its own, or the empty one where it would go. */
static struct mi_ksc_slot *mi_ksc_find(u64 hash)
{
	unsigned int i = hash & (MI_KSC_SLOTS - 1);

	while (mi_ksc[i].hash && mi_ksc[i].hash != hash)
		i = (i + 1) & (MI_KSC_SLOTS - 1);
	return &mi_ksc[i];
}

static int mi_ksc_add(void *data, const char *name, struct module *mod,
		      unsigned long addr)
{
	u64 hash = mi_ksc_hash(name);
	struct mi_ksc_slot *slot = mi_ksc_find(hash);

	/* process context, module_mutex the only lock held: may yield */
	if (!(mi_ksc_used % 4096))
		cond_resched();

	if (slot->hash)
		return 0;	/* a later symbol of the same name */
	if (++mi_ksc_used > MI_KSC_MAX)
		return -ENOSPC;
	slot->hash = hash;
	slot->addr = addr;
	return 0;
}

void mi_ksyms_cache_fill(void)
{
	struct mutex *modules = (struct mutex *)mi_ksym("module_mutex");
	struct mi_ksym_set set = MI_KSYM_SET_INIT;
	int err;

	if (!modules ||
	    !mi_ksym_static_call(&set, mi_kallsyms_on_each_symbol,
				 "kallsyms_on_each_symbol"))
		return;
	mi_ksc = vzalloc(array_size(MI_KSC_SLOTS, sizeof(*mi_ksc)));
	if (!mi_ksc)
		return;
	mi_ksc_used = 0;
	if (mutex_lock_killable(modules)) {
		err = -EINTR;
	} else {
		err = static_call(mi_kallsyms_on_each_symbol)(mi_ksc_add, NULL);
		mutex_unlock(modules);
	}
	if (err) {
		pr_warn("kallsyms read once failed (%d): init looks names up one by one\n",
			err);
		mi_ksyms_cache_drop();
	}
}

void mi_ksyms_cache_drop(void)
{
	vfree(mi_ksc);
	mi_ksc = NULL;
}

bool mi_ksyms_cache_lookup(const char *name, unsigned long *addr)
{
	/* "module:symbol" is kallsyms_lookup_name()'s own syntax */
	if (!mi_ksc || strchr(name, ':'))
		return false;
	*addr = mi_ksc_find(mi_ksc_hash(name))->addr;
	return true;
}

#else /* MI_HAVE_KALLSYMS_MATCH: lookups are a binary search */

void mi_ksyms_cache_fill(void)
{
}

void mi_ksyms_cache_drop(void)
{
}

bool mi_ksyms_cache_lookup(const char *name, unsigned long *addr)
{
	return false;
}

#endif
