// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel lockdown (docs/lockdown.md): the level now, the capabilities row
 * that says what it stops, and the printing of code addresses that stays
 * within it.
 *
 * A Secure Boot machine runs Debian's kernels at lockdown=integrity
 * (CONFIG_LOCK_DOWN_IN_EFI_SECURE_BOOT), and root may raise the level at
 * run time.  debugfs then opens no file with a write bit
 * (debugfs_locked_down(), LOCKDOWN_DEBUGFS, an integrity reason): the
 * mirrors under /dev/meminspect/ (mirror.c) keep mm, vmas and the
 * observation knobs usable; the injector's knobs have none.  At
 * confidentiality tracing is refused too (LOCKDOWN_TRACEFS), and nothing
 * printed may reveal a kernel address, as /proc/kallsyms and %pK behave.
 *
 * The level is not exported: security_locked_down() answers whether a
 * reason of either level is refused, and logs a rate-limited notice when
 * it is, the kernel's own way of saying what lockdown stopped.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "capabilities.h"
#include "lockdown.h"

enum mi_lockdown_level mi_lockdown_level(void)
{
	if (!security_locked_down(LOCKDOWN_KCORE))
		return security_locked_down(LOCKDOWN_DEBUGFS) ?
			MI_LOCKDOWN_INTEGRITY : MI_LOCKDOWN_NONE;
	return MI_LOCKDOWN_CONFIDENTIALITY;
}

static const char *const mi_lockdown_names[] = {
	[MI_LOCKDOWN_NONE] = "none",
	[MI_LOCKDOWN_INTEGRITY] = "integrity",
	[MI_LOCKDOWN_CONFIDENTIALITY] = "confidentiality",
};

/*
 * At confidentiality, no kernel address may be printed.  Only the
 * confidentiality reason is asked: the integrity one would make the kernel
 * log a refused access at every read of a table at integrity.
 */
bool mi_lockdown_hides_addresses(void)
{
	return security_locked_down(LOCKDOWN_KCORE) != 0;
}

/*
 * " < " (or @sep) and @addr as %pS prints it, "function+off/size [module]";
 * under lockdown=confidentiality an address kallsyms cannot name prints as
 * "?" rather than in hex.  @hide: mi_lockdown_hides_addresses(), asked
 * once per file read.
 */
void mi_put_code(struct seq_file *m, const char *sep, unsigned long addr,
		 bool hide)
{
	char sym[KSYM_SYMBOL_LEN];

	if (!hide) {
		seq_printf(m, "%s%pS", sep, (void *)addr);
		return;
	}
	sprint_symbol(sym, addr);
	/* sprint_symbol() prints the bare address where there is no name */
	seq_printf(m, "%s%s", sep, strncmp(sym, "0x", 2) ? sym : "?");
}

enum { MI_ROW_LOCKDOWN, MI_NR_ROWS };

static struct mi_cap mi_lockdown_caps[MI_NR_ROWS] = {
	[MI_ROW_LOCKDOWN] = { .name = "lockdown", .kind = MI_CAP_MECHANISM },
};

/* capabilities' refresh: the level can be raised at any time */
static void mi_lockdown_refresh(struct mi_cap *caps)
{
	struct mi_cap *cap = &caps[MI_ROW_LOCKDOWN];
	enum mi_lockdown_level level;

	if (!IS_ENABLED(CONFIG_SECURITY_LOCKDOWN_LSM)) {
		mi_cap_set(cap, true,
			   "level none: kernel built without the lockdown LSM");
		return;
	}
	level = mi_lockdown_level();
	switch (level) {
	case MI_LOCKDOWN_NONE:
		mi_cap_set(cap, true, "level none: nothing stopped");
		break;
	case MI_LOCKDOWN_INTEGRITY:
		mi_cap_set(cap, false,
			   "level %s: debugfs refuses files with a write bit: mm, vmas, allocs/ and latency/armed through /dev/meminspect/; fault injection refused (fault/ has no mirror)",
			   mi_lockdown_names[level]);
		break;
	default:
		mi_cap_set(cap, false,
			   "level %s: debugfs refuses files with a write bit: mm, vmas through /dev/meminspect/; arming allocs/ and latency/ refused (tracing); fault injection refused; no kernel address printed",
			   mi_lockdown_names[level]);
		break;
	}
}

static struct mi_cap_table mi_lockdown_table = {
	.refresh = mi_lockdown_refresh,
};

void mi_lockdown_init(void)
{
	mi_lockdown_refresh(mi_lockdown_caps);
	mi_caps_register(&mi_lockdown_table, mi_lockdown_caps, MI_NR_ROWS);
}

void mi_lockdown_exit(void)
{
	mi_caps_unregister(&mi_lockdown_table);
}
