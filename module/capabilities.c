// SPDX-License-Identifier: GPL-2.0
/*
 * capabilities: header "name kind available detail", one record per row
 * that a feature registered (docs/capabilities.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>	/* va_list on every version */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>

#include "capabilities.h"
#include "show_fops.h"

static LIST_HEAD(mi_cap_tables);
static DEFINE_MUTEX(mi_cap_lock);	/* protects mi_cap_tables */

static const char *const mi_cap_kind_names[MI_CAP_NR_KINDS] = {
	[MI_CAP_FILE] = "file",
	[MI_CAP_FIELD] = "field",
	[MI_CAP_MECHANISM] = "mechanism",
};

void mi_cap_set(struct mi_cap *cap, bool available, const char *fmt, ...)
{
	va_list args;

	cap->available = available;
	va_start(args, fmt);
	vscnprintf(cap->detail, sizeof(cap->detail), fmt, args);
	va_end(args);
}

void mi_caps_register(struct mi_cap_table *table, struct mi_cap *caps,
		      unsigned int nr)
{
	table->caps = caps;
	table->nr = nr;
	mutex_lock(&mi_cap_lock);
	list_add_tail(&table->node, &mi_cap_tables);
	mutex_unlock(&mi_cap_lock);
}

/*
 * Safe on a table never registered (zeroed: a subdirectory whose init did
 * not run) and on one already unregistered (list_del_init), so that
 * mi_init()'s error path can call every exit.
 */
void mi_caps_unregister(struct mi_cap_table *table)
{
	mutex_lock(&mi_cap_lock);
	if (table->node.next)
		list_del_init(&table->node);
	mutex_unlock(&mi_cap_lock);
}

/*
 * What the kernel itself was built with that the selftests use: the debug
 * lane's checkers, which Debian's kernels lack (docs/capabilities.md).
 */
enum {
	MI_ROW_KUNIT,
	MI_ROW_KERNEL_FAULT_INJECTION,
	MI_NR_ROWS
};

static struct mi_cap mi_kernel_caps[MI_NR_ROWS] = {
	[MI_ROW_KUNIT] = { .name = "kunit", .kind = MI_CAP_MECHANISM },
	[MI_ROW_KERNEL_FAULT_INJECTION] = { .name = "kernel_fault_injection",
			    .kind = MI_CAP_MECHANISM },
};

static struct mi_cap_table mi_kernel_table;

void mi_kernel_caps_init(void)
{
	if (IS_ENABLED(CONFIG_KUNIT))
		mi_cap_set(&mi_kernel_caps[MI_ROW_KUNIT], true,
			   "kernel built with CONFIG_KUNIT: meminspect_kunit.ko runs the module's KUnit suites");
	else
		mi_cap_set(&mi_kernel_caps[MI_ROW_KUNIT], false,
			   "kernel built without CONFIG_KUNIT: no KUnit suites");
	if (IS_ENABLED(CONFIG_FAILSLAB) && IS_ENABLED(CONFIG_FAIL_PAGE_ALLOC) &&
	    IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS))
		mi_cap_set(&mi_kernel_caps[MI_ROW_KERNEL_FAULT_INJECTION], true,
			   "kernel's failslab and fail_page_alloc with their debugfs: the selftests compare them with meminspect's fault injection");
	else
		mi_cap_set(&mi_kernel_caps[MI_ROW_KERNEL_FAULT_INJECTION], false,
			   "kernel built without CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC or CONFIG_FAULT_INJECTION_DEBUG_FS: no failslab/fail_page_alloc to compare with");
	mi_caps_register(&mi_kernel_table, mi_kernel_caps, MI_NR_ROWS);
}

void mi_kernel_caps_exit(void)
{
	mi_caps_unregister(&mi_kernel_table);
}

static int mi_capabilities_show(struct seq_file *m, void *unused)
{
	const struct mi_cap_table *table;
	enum mi_cap_kind kind;
	unsigned int i;

	seq_puts(m, "name kind available detail\n");
	mutex_lock(&mi_cap_lock);
	list_for_each_entry(table, &mi_cap_tables, node)
		if (table->refresh)
			table->refresh(table->caps);
	for (kind = 0; kind < MI_CAP_NR_KINDS; kind++) {
		list_for_each_entry(table, &mi_cap_tables, node) {
			for (i = 0; i < table->nr; i++) {
				const struct mi_cap *cap = &table->caps[i];

				if (cap->kind != kind)
					continue;
				seq_printf(m, "%s %s %s %s\n", cap->name,
					   mi_cap_kind_names[kind],
					   cap->available ? "yes" : "no",
					   cap->detail[0] ? cap->detail : "-");
			}
		}
	}
	mutex_unlock(&mi_cap_lock);
	return 0;
}

MI_SHOW_OPEN(mi_capabilities)
const struct file_operations mi_capabilities_fops =
	MI_SHOW_FOPS(mi_capabilities);
