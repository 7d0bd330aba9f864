// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime symbol lookup (mechanism "ksyms" in the capabilities file).
 *
 * kallsyms_lookup_name() is not exported since "kallsyms: unexport
 * kallsyms_lookup_name() and kallsyms_on_each_symbol()" (0bd476e6c671,
 * v5.7).  A kprobe registered by symbol name resolves its address for us:
 * register it, read kp.addr, unregister it.  The probe has no handlers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "capabilities.h"
#include "compat.h"
#include "ksyms.h"

#define MI_ENDBR_SIZE	4

/* A direct CALL to kallsyms_lookup_name(), once found: see ksyms.h */
DEFINE_STATIC_CALL_NULL(mi_kallsyms_lookup_name, kallsyms_lookup_name);
static bool mi_lookup_ok;

static struct mi_cap mi_ksyms_caps[] = {
	{ .name = "ksyms", .kind = MI_CAP_MECHANISM },
};

static struct mi_cap_table mi_ksyms_table;

/*
 * The entry of the function that a kprobe was placed in at @kp_addr.
 *
 * With CONFIG_X86_KERNEL_IBT (Debian 6.12 and later) a function starts with
 * a 4-byte ENDBR, and kprobes place the probe after it ("x86/ibt,kprobes:
 * Fix more +0 assumptions", v5.18), so kp.addr is the symbol + 4.  The
 * entry is wanted: kallsyms_lookup_name() returns entries (the self-check
 * below compares with one), and an indirect call past an ENDBR faults with
 * "Missing ENDBR" on CPUs that enforce IBT.  QEMU does not emulate IBT, so
 * no VM test catches a mistake here: it is handled on purpose.
 *
 * At boot the kernel also replaces ("seals") the ENDBR of every function
 * whose address it never takes, kallsyms_lookup_name() included, with a
 * NOP; mi_is_endbr() recognises both, as kprobes do.  Sealing is why a
 * function found here is only ever called directly (static call): an
 * indirect call to a sealed function faults whatever address is used.
 */
static unsigned long mi_kprobe_entry(unsigned long kp_addr, bool *endbr)
{
	*endbr = IS_ENABLED(CONFIG_X86_64) &&
		 mi_is_endbr(kp_addr - MI_ENDBR_SIZE);
	return *endbr ? kp_addr - MI_ENDBR_SIZE : kp_addr;
}

/* Is @addr the first byte of the function @name? */
static bool mi_is_symbol_entry(unsigned long addr, const char *name)
{
	char buf[KSYM_SYMBOL_LEN];
	size_t len = strlen(name);

	sprint_symbol(buf, addr);
	return !strncmp(buf, name, len) && !strncmp(buf + len, "+0x0/", 5);
}

void mi_ksyms_init(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	struct mi_cap *cap = &mi_ksyms_caps[0];
	unsigned long (*lookup)(const char *name);
	unsigned long addr;
	bool endbr;
	int err;

	err = register_kprobe(&kp);
	if (err) {
		pr_warn("cannot find kallsyms_lookup_name: register_kprobe: %d\n",
			err);
		mi_cap_set(cap, false,
			   "register_kprobe(kallsyms_lookup_name) failed: %d",
			   err);
		goto out;
	}
	addr = mi_kprobe_entry((unsigned long)kp.addr, &endbr);
	unregister_kprobe(&kp);

	/*
	 * Before the first call, make sure @addr is the entry: the exported
	 * sprint_symbol() must name it "kallsyms_lookup_name+0x0/...".
	 */
	if (!mi_is_symbol_entry(addr, "kallsyms_lookup_name")) {
		pr_warn("kallsyms_lookup_name entry not confirmed\n");
		mi_cap_set(cap, false,
			   "kprobe address of kallsyms_lookup_name is not its entry (%s)",
			   endbr ? "ENDBR skipped" : "no ENDBR");
		goto out;
	}

	lookup = (unsigned long (*)(const char *))addr;
	static_call_update(mi_kallsyms_lookup_name, lookup);

	/* It must find itself, at the address it is called at. */
	if (static_call(mi_kallsyms_lookup_name)("kallsyms_lookup_name") !=
	    addr) {
		pr_warn("kallsyms_lookup_name failed its self-check\n");
		mi_cap_set(cap, false,
			   "kallsyms_lookup_name at the kprobe address failed the self-check (%s)",
			   endbr ? "ENDBR skipped" : "no ENDBR");
		goto out;
	}
	mi_lookup_ok = true;
	mi_cap_set(cap, true,
		   "kallsyms_lookup_name by kprobe: %s; found functions are called directly (static_call)%s",
		   endbr ? "ENDBR or its sealing NOP before kp.addr (IBT), entry is kp.addr-4" :
		   "no ENDBR before kp.addr, entry is kp.addr",
		   IS_ENABLED(CONFIG_KALLSYMS_ALL) ? "" :
		   "; kallsyms lists functions only (CONFIG_KALLSYMS_ALL is not set): no variable is found");
out:
	mi_caps_register(&mi_ksyms_table, mi_ksyms_caps,
			 ARRAY_SIZE(mi_ksyms_caps));
}

void mi_ksyms_exit(void)
{
	mi_caps_unregister(&mi_ksyms_table);
	mi_lookup_ok = false;
}

bool mi_ksyms_available(void)
{
	return mi_lookup_ok;
}

/*
 * ksyms_deny: comma-separated symbol names that mi_ksym() answers 0 for,
 * as on a kernel without them.  For the selftests: what a file prints when
 * a lookup fails can only be tested where one does (docs/capabilities.md).
 */
static char mi_ksyms_deny[256];
module_param_string(ksyms_deny, mi_ksyms_deny, sizeof(mi_ksyms_deny), 0444);
MODULE_PARM_DESC(ksyms_deny,
		 "symbols to treat as missing, comma-separated (for tests)");

static bool mi_ksym_denied(const char *name)
{
	size_t len = strlen(name);
	const char *p = mi_ksyms_deny;

	while (*p) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchrnul(p, ',');
		if (*p)
			p++;
	}
	return false;
}

/*
 * Address of @name, or 0 if it is unknown or ksyms is unavailable.
 *
 * Process context only (init, and knob writes under fault.c's mutex).
 * Before "kallsyms: Improve the performance of kallsyms_lookup_name()"
 * (60443c88f3a8, v6.2) a lookup expands every symbol name in turn and never
 * yields, and the module makes dozens at init: on a slow or loaded
 * machine (5.10 under a busy QEMU TCG host) insmod ran 22 s without a
 * reschedule and the soft-lockup detector fired.  So yield before each one.
 */
unsigned long mi_ksym(const char *name)
{
	unsigned long addr;

	if (!mi_lookup_ok || mi_ksym_denied(name))
		return 0;
	if (mi_ksyms_cache_lookup(name, &addr))
		return addr;
	cond_resched();
	return static_call(mi_kallsyms_lookup_name)(name);
}

unsigned long mi_ksym_in(struct mi_ksym_set *set, const char *name)
{
	unsigned long addr = mi_ksym(name);

	if (!addr) {
		if (!set->missing)
			set->missing = name;
		set->ok = false;
	}
	return addr;
}

void mi_ksym_set_missing(struct mi_cap *cap, const struct mi_ksym_set *set)
{
	if (!mi_ksyms_available())
		mi_cap_set(cap, false,
			   "needs %s (not exported) but ksyms is unavailable",
			   set->missing);
	else
		mi_cap_set(cap, false, "symbol %s not found%s", set->missing,
			   mi_ksyms_scope());
}

void mi_ksym_set_row(struct mi_cap *cap, const struct mi_ksym_set *set,
		     const char *fmt, ...)
{
	va_list args;

	if (!set->ok) {
		mi_ksym_set_missing(cap, set);
		return;
	}
	cap->available = true;
	va_start(args, fmt);
	vscnprintf(cap->detail, sizeof(cap->detail), fmt, args);
	va_end(args);
}
