// SPDX-License-Identifier: GPL-2.0
/*
 * allocs/: the names of call sites in code that goes away.
 *
 * A row keeps its call site (and callers) as addresses, printed with %pS
 * when the table is read.  A module's init text is freed once its init has
 * returned, and all of its text when it is unloaded: after that %pS finds
 * no symbol and prints a bare address, with no word of which module it
 * was, while a driver's init-time allocations and what an unloaded module
 * left behind are the rows its developer reads first.  So when a module
 * goes live (its init about to be freed) or goes away, the rows with a
 * frame in the code that goes are named then, while kallsyms still has
 * its symbols, and the table prints the saved text.
 *
 * The names are kept per site slot, written and read under mi_allocs.lock
 * and freed when arming resets the table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "allocs_priv.h"
#include "lockdown.h"

/* the saved text of each site slot, NULL where %pS still answers */
static const char **mi_allocs_names;

/* Is @addr in the code of @mod that goes at @state? */
static bool mi_allocs_code_goes(unsigned long addr, struct module *mod,
				unsigned long state)
{
	if (state == MODULE_STATE_LIVE)
		return within_module_init(addr, mod);
	return within_module(addr, mod);
}

static bool mi_allocs_site_goes(const struct mi_allocs_site *s,
				unsigned long site, struct module *mod,
				unsigned long state)
{
	unsigned int i;

	if (mi_allocs_code_goes(site, mod, state))
		return true;
	for (i = 0; i < MI_ALLOCS_STACK_MAX && s->stack[i]; i++)
		if (mi_allocs_code_goes(s->stack[i], mod, state))
			return true;
	return false;
}

/* The row's site text as mi_allocs_put_site() prints it, allocated. */
static const char *mi_allocs_name_of(const struct mi_allocs_site *s,
				     unsigned long site)
{
	size_t size = (MI_ALLOCS_STACK_MAX + 1) * (KSYM_SYMBOL_LEN + 3);
	const char *name;
	unsigned int i;
	size_t len;
	char *buf;

	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return NULL;
	len = scnprintf(buf, size, "%pS", (void *)site);
	for (i = 0; i < MI_ALLOCS_STACK_MAX && s->stack[i]; i++)
		len += scnprintf(buf + len, size - len, " < %pS",
				 (void *)s->stack[i]);
	name = kstrdup(buf, GFP_KERNEL);
	kfree(buf);
	return name;
}

/*
 * Module notifier: LIVE is sent before the init text is freed, GOING
 * before the module's memory is (an unload, or an init that failed), with
 * its symbols still in kallsyms.  A row that cannot be named (out of
 * memory, or the loader was killed while waiting for the lock) keeps its
 * address.
 */
static int mi_allocs_module_notify(struct notifier_block *nb,
				   unsigned long state, void *data)
{
	struct module *mod = data;
	unsigned int i;

	if (state != MODULE_STATE_LIVE && state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	if (mutex_lock_killable(&mi_allocs.lock))
		return NOTIFY_DONE;
	for (i = 0; mi_allocs.sites && i < MI_ALLOCS_SITES; i++) {
		const struct mi_allocs_site *s = &mi_allocs.sites[i];
		/* pairs with the release in mi_allocs_site_get() */
		unsigned long site = smp_load_acquire(&s->call_site);

		if (!site || mi_allocs_names[i] ||
		    !mi_allocs_site_goes(s, site, mod, state))
			continue;
		mi_allocs_names[i] = mi_allocs_name_of(s, site);
	}
	mutex_unlock(&mi_allocs.lock);
	return NOTIFY_DONE;
}

static struct notifier_block mi_allocs_module_nb = {
	.notifier_call = mi_allocs_module_notify,
};

/*
 * A row's site: %pS, then its callers, " < " before each; or its saved
 * name.  @hide: no bare address (lockdown=confidentiality, lockdown.c).
 */
void mi_allocs_put_site(struct seq_file *m, const struct mi_allocs_site *s,
			unsigned long call_site, bool hide)
{
	const char *name = mi_allocs_names[s - mi_allocs.sites];
	unsigned int i;

	if (name) {
		seq_puts(m, name);
		return;
	}
	mi_put_code(m, "", call_site, hide);
	for (i = 0; i < MI_ALLOCS_STACK_MAX && s->stack[i]; i++)
		mi_put_code(m, " < ", s->stack[i], hide);
}

/* Arming: the rows start afresh.  Caller holds mi_allocs.lock. */
void mi_allocs_names_reset(void)
{
	unsigned int i;

	for (i = 0; i < MI_ALLOCS_SITES; i++) {
		kfree(mi_allocs_names[i]);
		mi_allocs_names[i] = NULL;
	}
}

int mi_allocs_names_init(void)
{
	mi_allocs_names = kcalloc(MI_ALLOCS_SITES, sizeof(*mi_allocs_names),
				  GFP_KERNEL);
	if (!mi_allocs_names)
		return -ENOMEM;
	return register_module_notifier(&mi_allocs_module_nb);
}

/* After the probes are detached and no file is open. */
void mi_allocs_names_exit(void)
{
	if (!mi_allocs_names)
		return;
	unregister_module_notifier(&mi_allocs_module_nb);
	mi_allocs_names_reset();
	kfree(mi_allocs_names);
	mi_allocs_names = NULL;
}
