// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: the allocating code behind a page allocation.
 *
 * The page site is probed at the innermost entry of the page allocator
 * (fault_probe.c), whose return address is, more often than not, one of the
 * allocator's own wrappers: alloc_pages() and alloc_pages_mpol() on a NUMA
 * kernel, 7.x's __alloc_pages_noprof() and alloc_pages_noprof() above
 * __alloc_frozen_pages_noprof(), __get_free_pages(), the large-kmalloc
 * path.  How many there are differs from kernel to kernel, so a raw frame
 * count would make `aim-depth` mean something else on each.  Here frames
 * inside those wrappers are skipped: depth 1 is the first frame outside the
 * allocator, on every kernel, and that frame is the `caller` of the log.
 *
 * The wrappers are found by name at init (ksyms), each as the range of its
 * code; names a kernel does not have are skipped.  The handler only
 * compares addresses with those ranges: no lookup, no lock, no allocation.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/seq_file.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include "fault.h"
#include "ksyms.h"

/*
 * The page allocator's API functions that only pass the request on, from
 * 5.10 to 7.x (the _noprof names are the memory allocation profiling
 * rename, "mm: enable page allocation tagging", b951aaff5035, v6.10).
 */
static const char *const mi_wrapper_names[] = {
	"alloc_pages_current", "alloc_pages_vma", "alloc_pages",
	"alloc_pages_noprof", "alloc_pages_mpol", "alloc_pages_mpol_noprof",
	"__alloc_pages", "__alloc_pages_noprof", "alloc_frozen_pages_noprof",
	"__get_free_pages", "__get_free_pages_noprof",
	"get_free_pages_noprof",	/* the name __get_free_pages() got in v6.10 */
	"get_zeroed_page",
	"get_zeroed_page_noprof", "folio_alloc", "folio_alloc_noprof",
	"__folio_alloc", "__folio_alloc_noprof", "folio_alloc_mpol_noprof",
	"vma_alloc_folio", "vma_alloc_folio_noprof", "alloc_pages_exact",
	"alloc_pages_exact_noprof", "alloc_pages_exact_nid",
	"alloc_pages_exact_nid_noprof", "kmalloc_large", "kmalloc_large_node",
	"kmalloc_large_noprof", "kmalloc_large_node_noprof",
	"__kmalloc_large_node", "__kmalloc_large_node_noprof",
	"___kmalloc_large_node",
};

static struct mi_code_range mi_wrappers[ARRAY_SIZE(mi_wrapper_names)];
static unsigned int mi_nr_wrappers;

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

bool mi_code_ranges_hold(const struct mi_code_range *r, unsigned int nr,
			 unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (addr >= r[i].start && addr < r[i].end)
			return true;
	return false;
}

NOKPROBE_SYMBOL(mi_code_ranges_hold);

void mi_fault_caller_init(void)
{
	mi_nr_wrappers = mi_code_ranges_fill(mi_wrapper_names,
					     ARRAY_SIZE(mi_wrapper_names),
					     mi_wrappers);
}

unsigned int mi_fault_nr_wrappers(void)
{
	return mi_nr_wrappers;
}

bool mi_in_wrapper(unsigned long addr)
{
	return mi_code_ranges_hold(mi_wrappers, mi_nr_wrappers, addr);
}

NOKPROBE_SYMBOL(mi_in_wrapper);

/* frames the unwinder adds above the entry point (handler, kprobe, ftrace) */
#define MI_STACK_EXTRA		16

/*
 * The stack of @c's allocating code, into @out: @out[0] is the first frame
 * outside the allocator, then its callers, at most @max.  0 if the
 * unwinder did not get past the probe (the caller alone is then known).
 */
static unsigned int mi_alloc_frames(const struct mi_fault_call *c,
				    unsigned long *out, unsigned int max)
{
	unsigned long entries[MI_FAULT_DEPTH_MAX + MI_STACK_EXTRA];
	unsigned int n, i, k;

	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	/* find the entry point's caller; the frames above it are ours */
	for (i = 0; i < n; i++)
		if (entries[i] == c->caller)
			break;
	if (i == n) {
		/*
		 * A frame-pointer unwinder (arm64's; x86-64's with
		 * UNWINDER_FRAME_POINTER) goes from the handler to the probe's
		 * register frame, reports its ip, then follows its frame
		 * pointer: the probed function has not made a frame yet, so the
		 * next address is the caller's caller, and the caller's return
		 * address (in arm64's link register, at x86-64's stack pointer)
		 * is in no frame record.  Put the caller in the ip's place.
		 * Until 5 Dec 2026 this compared with the probed address, which
		 * is the ip on arm64 but one byte short of it on x86-64: there
		 * no allocation was seen past its direct caller (aim-depth and
		 * exclude-caller saw one frame; a sweep of brd's init found 1
		 * failure point, not 44).
		 */
		for (i = 0; i < n; i++)
			if (entries[i] == c->regs_ip)
				break;
		if (i < n)
			entries[i] = c->caller;
	}
	while (i < n && mi_in_wrapper(entries[i]))
		i++;
	for (k = 0; i < n && k < max; i++, k++)
		out[k] = entries[i];
	return k;
}

NOKPROBE_SYMBOL(mi_alloc_frames);

/* The first frame of @c outside the allocator (its raw caller if unknown). */
unsigned long mi_fault_alloc_caller(const struct mi_fault_call *c)
{
	unsigned long first;

	if (!mi_in_wrapper(c->caller))
		return c->caller;
	return mi_alloc_frames(c, &first, 1) ? first : c->caller;
}

NOKPROBE_SYMBOL(mi_fault_alloc_caller);

/* Is a return address inside @mod among the first @depth frames of @c? */
bool mi_fault_caller_in(const struct mi_fault_call *c, struct module *mod,
			unsigned int depth)
{
	unsigned long frames[MI_FAULT_DEPTH_MAX];
	unsigned int n, i;

	if (!mi_in_wrapper(c->caller)) {
		if (within_module(c->caller, mod))
			return true;
		if (depth <= 1)
			return false;
	}
	n = mi_alloc_frames(c, frames, min_t(unsigned int, depth,
					     MI_FAULT_DEPTH_MAX));
	for (i = 0; i < n; i++)
		if (within_module(frames[i], mod))
			return true;
	return false;
}

NOKPROBE_SYMBOL(mi_fault_caller_in);

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

#define MI_NR_EXCL_BUILTIN	ARRAY_SIZE(mi_excl_builtin)

static struct mi_excl {
	unsigned long start, end;	/* 0, 0: not in this kernel */
	const char *name;		/* built-in: its table entry */
	char knob_name[KSYM_NAME_LEN];	/* from the knob */
	atomic_long_t spared;
} mi_excl[MI_NR_EXCL_BUILTIN + MI_FAULT_EXCLUDE_MAX];
static unsigned int mi_nr_excl;	/* built-ins first, then the knob's */

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

	for (i = 0; i < MI_NR_EXCL_BUILTIN; i++) {
		mi_excl[i].name = mi_excl_builtin[i];
		mi_func_range(mi_excl[i].name, &mi_excl[i].start,
			      &mi_excl[i].end);
	}
	mi_nr_excl = MI_NR_EXCL_BUILTIN;
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
	unsigned int n = MI_NR_EXCL_BUILTIN;
	unsigned long start, end;

	strscpy(buf, list, sizeof(buf));
	if (commit)
		WRITE_ONCE(mi_nr_excl, MI_NR_EXCL_BUILTIN);
	while ((name = strsep(&p, ",")) && *name) {
		if (!mi_func_range(name, &start, &end))
			return -EINVAL;
		if (!commit || n >= ARRAY_SIZE(mi_excl))
			continue;
		mi_excl[n].start = start;
		mi_excl[n].end = end;
		mi_excl[n].name = NULL;
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
			   mi_excl[i].knob_name,
			   i < MI_NR_EXCL_BUILTIN ? "builtin" : "knob",
			   mi_excl[i].start ? "yes" : "no",
			   atomic_long_read(&mi_excl[i].spared));
}

static int mi_excl_find(unsigned long addr, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (addr >= mi_excl[i].start && addr < mi_excl[i].end)
			return i;
	return -1;
}

NOKPROBE_SYMBOL(mi_excl_find);

/*
 * Is @c made under an excluded function?  Then it is counted as spared.
 * The direct caller first (the common case, no unwinding), then every
 * frame of the allocating code's stack, as mi_alloc_frames() finds it (on
 * arm64 the caller is missing from the raw trace: a search for it there
 * found nothing, and TOMOYO's tomoyo_encode2(), not inlined into
 * tomoyo_realpath_from_path() on arm64, was failed and panicked).
 */
bool mi_fault_excluded(const struct mi_fault_call *c)
{
	unsigned long frames[MI_FAULT_DEPTH_MAX + MI_STACK_EXTRA];
	unsigned int n = READ_ONCE(mi_nr_excl), nr, i;
	int k;

	if (!n)
		return false;
	k = mi_excl_find(c->caller, n);
	if (k < 0) {
		nr = mi_alloc_frames(c, frames, ARRAY_SIZE(frames));
		for (i = 0; i < nr && k < 0; i++)
			k = mi_excl_find(frames[i], n);
	}
	if (k < 0)
		return false;
	atomic_long_inc(&mi_excl[k].spared);
	return true;
}

NOKPROBE_SYMBOL(mi_fault_excluded);
