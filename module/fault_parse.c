// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing and printing of the fault injection knobs (docs/fault.md): one
 * table, mi_fault_knobs[], one line per knob file, drives both, as
 * lib/fault-inject.c's fault_create_debugfs_attr() builds one file per
 * line.  Pure: see fault_parse.h.
 */
#include <linux/build_bug.h>
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/stddef.h>
#include <linux/threads.h>

#include "fault_parse.h"

void mi_fault_settings_init(struct mi_fault_settings *s,
			    unsigned int max_order_limit)
{
	*s = (struct mi_fault_settings){
		.sites = 0,
		.probability = 100,
		.interval = 1,
		.times = 1,
		.space = 0,
		.verbose = 1,
		.min_order = 0,
		.max_order = max_order_limit,
		.aim_depth = 8,
		.ignore_pagefault = true,
	};
}

/* The value without its one optional trailing newline; its length. */
static size_t mi_trim(const char *buf, size_t len)
{
	if (len && buf[len - 1] == '\n')
		len--;
	return len;
}

/*
 * A decimal number of at most 20 digits, optionally negative, into
 * @out.  -EINVAL for anything else, -ERANGE past the range of long long.
 */
static int mi_parse_ll(const char *buf, size_t len, long long *out)
{
	char tmp[24];
	size_t i = 0;

	len = mi_trim(buf, len);
	if (!len)
		return -EINVAL;
	if (len >= sizeof(tmp))
		return -ERANGE;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	/* kstrtoll() accepts a leading '+' and no spaces: only digits here */
	if (tmp[0] == '-')
		i = 1;
	if (!tmp[i])
		return -EINVAL;
	for (; tmp[i]; i++)
		if (!isdigit(tmp[i]))
			return -EINVAL;
	return kstrtoll(tmp, 10, out);
}

/* A number in [@min, @max] into @out. */
static int mi_parse_number(const char *buf, size_t len, long long min,
			   long long max, long long *out)
{
	long long v;
	int err;

	err = mi_parse_ll(buf, len, &v);
	if (err)
		return err;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int mi_fault_parse_uint(const char *buf, size_t len, unsigned int min,
			unsigned int max, unsigned int *out)
{
	long long v;
	int err;

	err = mi_parse_number(buf, len, min, max, &v);
	if (!err)
		*out = v;
	return err;
}

int mi_fault_parse_bool(const char *buf, size_t len, bool *out)
{
	len = mi_trim(buf, len);
	if (len != 1)
		return -EINVAL;
	switch (buf[0]) {
	case 'Y':
	case 'y':
	case '1':
		*out = true;
		return 0;
	case 'N':
	case 'n':
	case '0':
		*out = false;
		return 0;
	}
	return -EINVAL;
}

static bool mi_word_is(const char *buf, size_t len, const char *word)
{
	return len == strlen(word) && !memcmp(buf, word, len);
}

/* sites' words, in the order they print */
static const struct {
	const char *name;
	unsigned int site;
} mi_fault_site_words[] = {
	{ "slab", MI_FAULT_SITE_SLAB },
	{ "pages", MI_FAULT_SITE_PAGES },
};

static int mi_parse_sites(const char *buf, size_t len, unsigned int *out)
{
	unsigned int sites = 0;
	const char *end;
	size_t n, i;

	len = mi_trim(buf, len);
	if (mi_word_is(buf, len, "none")) {
		*out = 0;
		return 0;
	}
	if (!len)
		return -EINVAL;
	/* comma-separated site names, each at most once */
	while (len) {
		unsigned int site = 0;

		end = memchr(buf, ',', len);
		n = end ? end - buf : len;
		for (i = 0; i < ARRAY_SIZE(mi_fault_site_words); i++)
			if (mi_word_is(buf, n, mi_fault_site_words[i].name))
				site = mi_fault_site_words[i].site;
		if (!site || (sites & site))
			return -EINVAL;
		sites |= site;
		if (!end)
			break;
		buf += n + 1;
		len -= n + 1;
		if (!len)		/* trailing comma */
			return -EINVAL;
	}
	*out = sites;
	return 0;
}

static int mi_format_sites(unsigned int sites, char *buf, size_t size)
{
	const char *sep = "";
	int n = 0;
	size_t i;

	if (!sites)
		return scnprintf(buf, size, "none");
	for (i = 0; i < ARRAY_SIZE(mi_fault_site_words); i++) {
		if (!(sites & mi_fault_site_words[i].site))
			continue;
		n += scnprintf(buf + n, size - n, "%s%s", sep,
			       mi_fault_site_words[i].name);
		sep = ",";
	}
	return n;
}

/* An unsigned decimal of at most 20 digits into @out. */
static int mi_parse_ul(const char *buf, size_t len, unsigned long *out)
{
	char tmp[24];
	size_t i;

	if (!len)
		return -EINVAL;
	if (len >= sizeof(tmp))
		return -ERANGE;
	for (i = 0; i < len; i++)
		if (!isdigit(buf[i]))
			return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	return kstrtoul(tmp, 10, out);
}

static int mi_parse_size_range(const char *buf, size_t len,
			       struct mi_fault_size_range *out)
{
	unsigned long lo, hi;
	const char *dash;
	int err;

	len = mi_trim(buf, len);
	if (!len) {
		*out = (struct mi_fault_size_range){ .set = false };
		return 0;
	}
	dash = memchr(buf, '-', len);
	if (!dash)
		return -EINVAL;
	err = mi_parse_ul(buf, dash - buf, &lo);
	if (err)
		return err;
	err = mi_parse_ul(dash + 1, len - (dash - buf) - 1, &hi);
	if (err)
		return err;
	if (lo > hi)
		return -ERANGE;
	*out = (struct mi_fault_size_range){ .set = true, .min = lo, .max = hi };
	return 0;
}

/* ctype's classes are macros: functions, for the knobs' ok() */
static bool mi_is_graph(char c)
{
	return isgraph(c);
}

static bool mi_is_print(char c)
{
	return isprint(c);
}

/*
 * A module name as the kernel keeps it (struct module's name, shorter
 * than MODULE_NAME_LEN): Kbuild makes KBUILD_MODNAME of a file name's
 * letters, digits and '_', with each '-' turned into '_'; modprobe and
 * /sys/module accept either spelling.  A '-' is stored as '_'
 * (MI_KNOB_DASH_TO_UNDERSCORE), so that "foo-bar" aims at the module
 * foo_bar.  Loaded or not is fault_knobs.c's business: a module that is
 * not loaded yet is a valid aim.
 */
static bool mi_is_modname_char(char c)
{
	return isalnum(c) || c == '_' || c == '-';
}

/* a symbol name as kallsyms prints it, or the comma between two */
static bool mi_is_caller_char(char c)
{
	return isalnum(c) || c == '_' || c == '.' || c == ',';
}

/*
 * The strings' one shape: trim, every byte in the class @ok (-EINVAL), at
 * most @max bytes and shorter than @size (-ERANGE), then copy NUL-padded.
 * Empty is valid: it clears the aim.
 */
static int mi_parse_str(const char *buf, size_t len, bool (*ok)(char c),
			size_t max, char *out, size_t size)
{
	size_t i;

	len = mi_trim(buf, len);
	for (i = 0; i < len; i++)
		if (!ok(buf[i]))
			return -EINVAL;
	if (len >= size || len > max)
		return -ERANGE;
	memcpy(out, buf, len);
	memset(out + len, 0, size - len);
	return 0;
}

/* a task's comm: spaces allowed, as in /proc/PID/comm */
int mi_fault_parse_comm(const char *buf, size_t len, char *out, size_t size)
{
	return mi_parse_str(buf, len, mi_is_print, MI_FAULT_COMM_LEN - 1,
			    out, size);
}

static int mi_parse_string(const struct mi_fault_knob *k, const char *buf,
			   size_t len, char *out)
{
	size_t t = mi_trim(buf, len);
	char *p;
	int err;

	/* a cgroup path from the hierarchy's root: absolute */
	if ((k->flags & MI_KNOB_ABSOLUTE) && t && buf[0] != '/')
		return -EINVAL;
	err = mi_parse_str(buf, len, k->ok, k->max, out, k->max + 1);
	if (err || !(k->flags & MI_KNOB_DASH_TO_UNDERSCORE))
		return err;
	for (p = out; *p; p++)
		if (*p == '-')
			*p = '_';
	return 0;
}

static int mi_parse_callers(const struct mi_fault_knob *k, const char *buf,
			    size_t len, char *out)
{
	size_t t = mi_trim(buf, len), i, names = 1;

	/* no empty name: not first, not last, never two commas in a row */
	for (i = 0; i < t; i++) {
		if (buf[i] != ',')
			continue;
		if (i == 0 || i == t - 1 || buf[i + 1] == ',')
			return -EINVAL;
		names++;
	}
	if (names > MI_FAULT_EXCLUDE_MAX)
		return -ERANGE;
	return mi_parse_str(buf, len, k->ok, k->max, out, k->max + 1);
}

/* the knob whose value is field @f of struct mi_fault_settings */
#define MI_AT(f)	offsetof(struct mi_fault_settings, f)

/* aim-module's longest name and its NUL fit the field */
static_assert(sizeof_field(struct mi_fault_settings, aim_module) >= MODULE_NAME_LEN);

/* { name, type, offset, min, max, ok, flags }: struct mi_fault_knob */
const struct mi_fault_knob mi_fault_knobs[] = {
	{ "sites",		MI_KNOB_SITES,	MI_AT(sites) },
	{ "probability",	MI_KNOB_UINT,	MI_AT(probability), 0, 100 },
	{ "interval",		MI_KNOB_UINT,	MI_AT(interval), 1, INT_MAX },
	{ "times",		MI_KNOB_INT,	MI_AT(times), -1, INT_MAX },
	{ "space",		MI_KNOB_UINT,	MI_AT(space), 0, INT_MAX },
	{ "verbose",		MI_KNOB_UINT,	MI_AT(verbose), 0,
	  MI_FAULT_VERBOSE_MAX },
	{ "ignore-gfp-wait",	MI_KNOB_BOOL,	MI_AT(ignore_gfp_wait) },
	{ "ignore-gfp-highmem",	MI_KNOB_BOOL,	MI_AT(ignore_gfp_highmem) },
	{ "ignore-pagefault",	MI_KNOB_BOOL,	MI_AT(ignore_pagefault) },
	{ "min-order",		MI_KNOB_UINT,	MI_AT(min_order), 0, 0, NULL,
	  MI_KNOB_MAX_ORDER },
	{ "max-order",		MI_KNOB_UINT,	MI_AT(max_order), 0, 0, NULL,
	  MI_KNOB_MAX_ORDER },
	{ "nth",		MI_KNOB_UINT,	MI_AT(nth), 0, INT_MAX },
	{ "aim-pid",		MI_KNOB_INT,	MI_AT(aim_pid), 0, PID_MAX_LIMIT },
	{ "aim-children",	MI_KNOB_BOOL,	MI_AT(aim_children) },
	{ "aim-comm",		MI_KNOB_STRING,	MI_AT(aim_comm), 0,
	  MI_FAULT_COMM_LEN - 1, mi_is_print },
	{ "aim-cgroup",		MI_KNOB_STRING,	MI_AT(aim_cgroup), 0,
	  MI_FAULT_PATH_LEN - 1, mi_is_graph, MI_KNOB_ABSOLUTE },
	{ "aim-cache",		MI_KNOB_STRING,	MI_AT(aim_cache), 0,
	  MI_FAULT_NAME_LEN - 1, mi_is_graph },
	{ "aim-size",		MI_KNOB_SIZE_RANGE, MI_AT(aim_size) },
	{ "aim-module",		MI_KNOB_STRING,	MI_AT(aim_module), 0,
	  MODULE_NAME_LEN - 1, mi_is_modname_char,
	  MI_KNOB_DASH_TO_UNDERSCORE },
	{ "aim-depth",		MI_KNOB_UINT,	MI_AT(aim_depth), 1,
	  MI_FAULT_DEPTH_MAX },
	{ "exclude-caller",	MI_KNOB_CALLERS, MI_AT(exclude_caller), 0,
	  MI_FAULT_PATH_LEN - 1, mi_is_caller_char },
	{ "duration",		MI_KNOB_UINT,	MI_AT(duration), 0, INT_MAX },
	{ "linger",		MI_KNOB_UINT,	MI_AT(linger), 0,
	  MI_FAULT_LINGER_MAX },
	{ "armed",		MI_KNOB_ARMED,	MI_AT(armed), 0, 1 },
	{}
};

int mi_fault_parse_knob(const struct mi_fault_knob *k, const char *buf,
			size_t len, unsigned int max_order_limit,
			struct mi_fault_settings *s)
{
	void *p = (char *)s + k->offset;
	long long max = k->max, v;
	int err;

	if (!k->name)		/* the table's end */
		return -EINVAL;
	if (k->flags & MI_KNOB_MAX_ORDER)
		max = max_order_limit;
	switch (k->type) {
	case MI_KNOB_UINT:
	case MI_KNOB_INT:
	case MI_KNOB_ARMED:
		err = mi_parse_number(buf, len, k->min, max, &v);
		if (err)
			return err;
		if (k->type == MI_KNOB_UINT)
			*(unsigned int *)p = v;
		else if (k->type == MI_KNOB_INT)
			*(int *)p = v;
		else
			*(bool *)p = v;
		return 0;
	case MI_KNOB_BOOL:
		return mi_fault_parse_bool(buf, len, p);
	case MI_KNOB_SITES:
		return mi_parse_sites(buf, len, p);
	case MI_KNOB_SIZE_RANGE:
		return mi_parse_size_range(buf, len, p);
	case MI_KNOB_STRING:
		return mi_parse_string(k, buf, len, p);
	case MI_KNOB_CALLERS:
		return mi_parse_callers(k, buf, len, p);
	}
	return -EINVAL;
}

int mi_fault_format_knob(const struct mi_fault_knob *k,
			 const struct mi_fault_settings *s, char *buf,
			 size_t size)
{
	const void *p = (const char *)s + k->offset;
	const struct mi_fault_size_range *r = p;

	if (!k->name)		/* the table's end */
		goto empty;
	switch (k->type) {
	case MI_KNOB_UINT:
		return scnprintf(buf, size, "%u", *(const unsigned int *)p);
	case MI_KNOB_INT:
		return scnprintf(buf, size, "%d", *(const int *)p);
	case MI_KNOB_BOOL:
		return scnprintf(buf, size, "%c", *(const bool *)p ? 'Y' : 'N');
	case MI_KNOB_ARMED:
		return scnprintf(buf, size, "%d", *(const bool *)p);
	case MI_KNOB_SITES:
		return mi_format_sites(*(const unsigned int *)p, buf, size);
	case MI_KNOB_SIZE_RANGE:
		if (!r->set)
			return scnprintf(buf, size, "%s", "");
		return scnprintf(buf, size, "%lu-%lu", r->min, r->max);
	case MI_KNOB_STRING:
	case MI_KNOB_CALLERS:
		return scnprintf(buf, size, "%s", (const char *)p);
	}
empty:
	if (size)
		buf[0] = '\0';
	return 0;
}
