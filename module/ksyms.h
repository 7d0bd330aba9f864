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

#include <linux/types.h>

void mi_ksyms_init(void);
void mi_ksyms_exit(void);
bool mi_ksyms_available(void);
unsigned long mi_ksym(const char *name);

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
