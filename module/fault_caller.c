// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: functions found by name (their code ranges), and the
 * callers whose allocations are spared: the built-in ones, the page fault
 * exception's entries (ignore-pagefault) and exclude-caller's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "fault.h"
#include "ksyms.h"

/* The size of the function starting at @addr, from "name+0x0/0xSIZE". */
static unsigned long mi_func_size(unsigned long addr)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long size;
	char *slash, *end;

	sprint_symbol(buf, addr);
	slash = strrchr(buf, '/');
	if (!slash || !strstr(buf, "+0x0/"))
		return 0;
	end = strchr(slash, ' ');	/* " [module]" */
	if (end)
		*end = '\0';
	if (kstrtoul(slash + 1, 16, &size))
		return 0;
	return size;
}

unsigned int mi_code_ranges_fill(const char *const *names, unsigned int nr,
				 struct mi_code_range *out)
{
	unsigned int i, k = 0;

	for (i = 0; i < nr; i++)
		if (mi_func_range(names[i], &out[k].start, &out[k].end))
			k++;
	return k;
}

/*
 * exclude-caller: allocations made under one of these functions (anywhere
 * in the allocating code's saved stack) are never failed.  The built-in
 * entries are callers that bring the kernel down when their allocation
 * fails, on a stock kernel with its default settings; each cites where.
 * The handler compares addresses with the functions' ranges, found by
 * name (ksyms) at init for the built-ins and at arming for the knob's.
 */
static const char *const mi_excl_builtin[] = {
	/*
	 * TOMOYO is built in and active on Debian with no policy loaded;
	 * tomoyo_warn_oom() (security/tomoyo/memory.c) panics "MAC
	 * Initialization failed." while !tomoyo_policy_loaded.  Every exec
	 * reaches the first (security/tomoyo/realpath.c), through
	 * tomoyo_find_next_domain(); the others call tomoyo_memory_ok() on
	 * their own allocation, which calls tomoyo_warn_oom() when it is NULL
	 * (memory.c: tomoyo_get_name(), tomoyo_commit_ok(); domain.c:
	 * tomoyo_assign_namespace(); condition.c: tomoyo_get_condition()).
	 */
	"tomoyo_realpath_from_path",
	"tomoyo_get_name",
	"tomoyo_commit_ok",
	"tomoyo_assign_namespace",
	"tomoyo_get_condition",
};

/*
 * ignore-pagefault (Y by default): the entries of the page fault
 * exception, whose allocations are spared.  A page fault that cannot
 * allocate ends in VM_FAULT_OOM, and a fault from user mode is then
 * retried (pagefault_out_of_memory(), arch/x86/mm/fault.c's and
 * arch/arm64/mm/fault.c's do_page_fault()): the program never sees the
 * failure, and `times` is spent on retries.  x86-64 since "x86/entry:
 * Convert page fault exception to IDTENTRY_RAW" (91eeafea1e4b, v5.8):
 * asm_exc_page_fault() and exc_page_fault(); arm64: do_mem_abort() and the
 * fault_info handler do_page_fault().  Faults taken by get_user_pages() in
 * a system call are not exceptions: their failure is the call's error.
 */
static const char *const mi_excl_pagefault[] = {
	"asm_exc_page_fault",
	"exc_page_fault",
	"do_mem_abort",
	"do_page_fault",
};

#define MI_NR_EXCL_BUILTIN	ARRAY_SIZE(mi_excl_builtin)
#define MI_NR_EXCL_PAGEFAULT	ARRAY_SIZE(mi_excl_pagefault)
/* the knob's entries come after the built-ins and the page fault entries */
#define MI_EXCL_KNOB		(MI_NR_EXCL_BUILTIN + MI_NR_EXCL_PAGEFAULT)

static struct mi_excl {
	unsigned long start, end;	/* 0, 0: not in this kernel */
	const char *name;		/* built-in: its table entry */
	const char *origin;		/* "builtin", "pagefault" or "knob" */
	char knob_name[KSYM_NAME_LEN];	/* from the knob */
	atomic_long_t spared;
} mi_excl[MI_EXCL_KNOB + MI_FAULT_EXCLUDE_MAX];
static unsigned int mi_nr_excl;	/* built-ins, page fault entries, the knob's */

/* The range of function @name, false if the kernel has no such function. */
bool mi_func_range(const char *name, unsigned long *start, unsigned long *end)
{
	unsigned long addr = mi_ksym(name), size;

	if (!addr)
		return false;
	size = mi_func_size(addr);
	if (!size)
		return false;
	*start = addr;
	*end = addr + size;
	return true;
}

void mi_fault_exclude_init(void)
{
	unsigned int i;

	for (i = 0; i < MI_EXCL_KNOB; i++) {
		struct mi_excl *x = &mi_excl[i];

		if (i < MI_NR_EXCL_BUILTIN) {
			x->name = mi_excl_builtin[i];
			x->origin = "builtin";
		} else {
			x->name = mi_excl_pagefault[i - MI_NR_EXCL_BUILTIN];
			x->origin = "pagefault";
		}
		mi_func_range(x->name, &x->start, &x->end);
	}
	mi_nr_excl = MI_EXCL_KNOB;
}

/*
 * Resolve @list (the knob's "f,g" form, already checked by
 * fault_parse.c's MI_KNOB_CALLERS) into the entries after the built-ins
 * when @commit, else only check that every name is a function: -EINVAL if
 * one is not, and nothing changes.  Disarmed, under mi_fault_state.lock:
 * no handler is running.
 */
static int mi_fault_exclude_resolve(const char *list, bool commit)
{
	char buf[MI_FAULT_PATH_LEN], *p = buf, *name;
	unsigned int n = MI_EXCL_KNOB;
	unsigned long start, end;

	strscpy(buf, list, sizeof(buf));
	if (commit)
		WRITE_ONCE(mi_nr_excl, MI_EXCL_KNOB);
	while ((name = strsep(&p, ",")) && *name) {
		if (!mi_func_range(name, &start, &end))
			return -EINVAL;
		if (!commit || n >= ARRAY_SIZE(mi_excl))
			continue;
		mi_excl[n].start = start;
		mi_excl[n].end = end;
		mi_excl[n].name = NULL;
		mi_excl[n].origin = "knob";
		strscpy(mi_excl[n].knob_name, name,
			sizeof(mi_excl[n].knob_name));
		n++;
	}
	if (commit)
		WRITE_ONCE(mi_nr_excl, n);
	return 0;
}

int mi_fault_exclude_check(const char *list)
{
	return mi_fault_exclude_resolve(list, false);
}

int mi_fault_exclude_arm(const char *list)
{
	unsigned int i;
	int err;

	err = mi_fault_exclude_resolve(list, true);
	for (i = 0; i < ARRAY_SIZE(mi_excl); i++)
		atomic_long_set(&mi_excl[i].spared, 0);
	return err;
}

/* `excluded`: header "caller origin present spared" */
void mi_fault_exclude_show(struct seq_file *m)
{
	unsigned int i, n = READ_ONCE(mi_nr_excl);

	seq_puts(m, "caller origin present spared\n");
	for (i = 0; i < n; i++)
		seq_printf(m, "%s %s %s %ld\n",
			   mi_excl[i].name ? mi_excl[i].name :
			   mi_excl[i].knob_name, mi_excl[i].origin,
			   mi_excl[i].start ? "yes" : "no",
			   atomic_long_read(&mi_excl[i].spared));
}

/*
 * The entry of mi_excl[] holding @addr, -1 if none; the page fault
 * entries only while they are spared (ignore-pagefault).
 */
static int mi_excl_find(unsigned long addr, unsigned int n)
{
	bool pf = mi_fault_cfg.set.ignore_pagefault;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!pf && i >= MI_NR_EXCL_BUILTIN && i < MI_EXCL_KNOB)
			continue;
		if (addr >= mi_excl[i].start && addr < mi_excl[i].end)
			return i;
	}
	return -1;
}

NOKPROBE_SYMBOL(mi_excl_find);

/*
 * Is @c made under an excluded function?  Then it is counted as spared.
 * The direct caller first (the common case, no unwinding), then every
 * frame of the allocating code's stack, as mi_fault_frames() finds it (on
 * arm64 the caller is missing from the raw trace: a search for it there
 * found nothing, and TOMOYO's tomoyo_encode2(), not inlined into
 * tomoyo_realpath_from_path() on arm64, was failed and panicked).
 */
bool mi_fault_excluded(struct mi_fault_call *c)
{
	unsigned int n = READ_ONCE(mi_nr_excl), nr, i;
	const unsigned long *frames;
	int k;

	if (!n)
		return false;
	k = mi_excl_find(c->caller, n);
	if (k < 0) {
		nr = mi_fault_frames(c, &frames);
		for (i = 0; i < nr && k < 0; i++)
			k = mi_excl_find(frames[i], n);
	}
	if (k < 0)
		return false;
	atomic_long_inc(&mi_excl[k].spared);
	mi_fault_count(c->site, MI_CNT_SPARED);
	return true;
}

NOKPROBE_SYMBOL(mi_fault_excluded);
