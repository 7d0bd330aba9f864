/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runtime lookup of kernel symbols that are not exported to modules.
 * Process context only; a lookup is a kallsyms search, so callers resolve
 * what they need once, at init.
 *
 * A function found this way must only be called through a static call
 * (a direct CALL): never through a function pointer.  On IBT kernels the
 * kernel seals the ENDBR of every function whose address it never takes,
 * and an indirect call to such a function faults on CPUs that enforce IBT.
 * mi_ksym_static_call() does the lookup and points the static call at it.
 */
#ifndef MI_KSYMS_H
#define MI_KSYMS_H

#include <linux/static_call.h>
#include <linux/types.h>

struct mi_cap;

void mi_ksyms_init(void);
void mi_ksyms_exit(void);
bool mi_ksyms_available(void);
unsigned long mi_ksym(const char *name);

/*
 * ksyms_cache.c: where kallsyms_lookup_name() is a linear search, module
 * init reads kallsyms once into a table (fill, after mi_ksyms_init()) that
 * answers mi_ksym() until init drops it; elsewhere these do nothing.
 * lookup: true when the table answered (*addr 0: no such symbol).
 */
void mi_ksyms_cache_fill(void);
void mi_ksyms_cache_drop(void);
bool mi_ksyms_cache_lookup(const char *name, unsigned long *addr);

/*
 * The lookups behind one capabilities row: whether all were found (and
 * whatever else the row depends on: a set may start with .ok false), and
 * the first symbol that was not, for mi_ksym_set_missing() to name.
 */
struct mi_ksym_set {
	bool ok;
	const char *missing;
};

#define MI_KSYM_SET_INIT { .ok = true }

/* mi_ksym(), the outcome recorded in @set. */
unsigned long mi_ksym_in(struct mi_ksym_set *set, const char *name);

/*
 * Look @sym up and, when found, point static call @name at it: the one way
 * a looked-up function is called (above).  The outcome goes to @set; true
 * when found.
 *
 * The cast's type is the trampoline's, spelled __SCT__##name rather than
 * STATIC_CALL_TRAMP(name) so that @name is used once outside token pasting
 * (checkpatch's MACRO_ARG_REUSE); __SCT__ is STATIC_CALL_TRAMP_PREFIX of
 * linux/static_call_types.h on every kernel since static calls came (5.10).
 */
#define mi_ksym_static_call(set, name, sym) ({				\
	unsigned long __mi_addr = mi_ksym_in(set, sym);			\
									\
	if (__mi_addr)							\
		static_call_update(name, (typeof(__SCT__##name) *)__mi_addr); \
	__mi_addr != 0;							\
})

/*
 * @cap says why @set failed (docs/capabilities.md): "needs SYMBOL (not
 * exported) but ksyms is unavailable", or "symbol SYMBOL not found".
 */
void mi_ksym_set_missing(struct mi_cap *cap, const struct mi_ksym_set *set);

/* @cap available with detail @fmt when every lookup of @set worked, else why not. */
__printf(3, 4)
void mi_ksym_set_row(struct mi_cap *cap, const struct mi_ksym_set *set,
		     const char *fmt, ...);

/*
 * Appended to every "symbol NAME not found" detail.  Without
 * CONFIG_KALLSYMS_ALL (Debian's arm64 6.1) kallsyms holds functions only
 * ("kallsyms: include all symbols in kallsyms", v2.6.12 Kconfig), so no
 * variable (slab_caches, hstates, __start_BTF ...) can be found through it:
 * the detail says so instead of blaming the kernel for lacking the symbol.
 */
static inline const char *mi_ksyms_scope(void)
{
	return IS_ENABLED(CONFIG_KALLSYMS_ALL) ? "" :
		" (kallsyms lists functions only: CONFIG_KALLSYMS_ALL is not set)";
}

#endif /* MI_KSYMS_H */
