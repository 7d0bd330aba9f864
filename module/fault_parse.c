// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing and printing of the fault injection knobs (docs/fault.md).
 * Pure: see fault_parse.h.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/threads.h>

#include "fault_parse.h"

const char *const mi_fault_knob_names[MI_FK_NR] = {
	[MI_FK_SITES] = "sites",
	[MI_FK_PROBABILITY] = "probability",
	[MI_FK_INTERVAL] = "interval",
	[MI_FK_TIMES] = "times",
	[MI_FK_SPACE] = "space",
	[MI_FK_VERBOSE] = "verbose",
	[MI_FK_IGNORE_GFP_WAIT] = "ignore-gfp-wait",
	[MI_FK_IGNORE_GFP_HIGHMEM] = "ignore-gfp-highmem",
	[MI_FK_MIN_ORDER] = "min-order",
	[MI_FK_MAX_ORDER] = "max-order",
	[MI_FK_NTH] = "nth",
	[MI_FK_AIM_PID] = "aim-pid",
	[MI_FK_AIM_CHILDREN] = "aim-children",
	[MI_FK_AIM_COMM] = "aim-comm",
	[MI_FK_AIM_CGROUP] = "aim-cgroup",
	[MI_FK_AIM_CACHE] = "aim-cache",
	[MI_FK_AIM_SIZE] = "aim-size",
	[MI_FK_AIM_MODULE] = "aim-module",
	[MI_FK_AIM_DEPTH] = "aim-depth",
	[MI_FK_EXCLUDE_CALLER] = "exclude-caller",
	[MI_FK_DURATION] = "duration",
	[MI_FK_ARMED] = "armed",
};

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

int mi_fault_parse_uint(const char *buf, size_t len, unsigned int min,
			unsigned int max, unsigned int *out)
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

int mi_fault_parse_times(const char *buf, size_t len, int *out)
{
	long long v;
	int err;

	err = mi_parse_ll(buf, len, &v);
	if (err)
		return err;
	if (v < -1 || v > INT_MAX)
		return -ERANGE;
	*out = v;
	return 0;
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

int mi_fault_parse_sites(const char *buf, size_t len, unsigned int *out)
{
	unsigned int sites = 0;
	const char *end;
	size_t n;

	len = mi_trim(buf, len);
	if (mi_word_is(buf, len, "none")) {
		*out = 0;
		return 0;
	}
	if (!len)
		return -EINVAL;
	/* comma-separated site names, each at most once */
	while (len) {
		unsigned int site;

		end = memchr(buf, ',', len);
		n = end ? end - buf : len;
		if (mi_word_is(buf, n, "slab"))
			site = MI_FAULT_SITE_SLAB;
		else if (mi_word_is(buf, n, "pages"))
			site = MI_FAULT_SITE_PAGES;
		else
			return -EINVAL;
		if (sites & site)
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

int mi_fault_parse_size_range(const char *buf, size_t len, bool *set,
			      unsigned long *min, unsigned long *max)
{
	unsigned long lo, hi;
	const char *dash;
	int err;

	len = mi_trim(buf, len);
	if (!len) {
		*set = false;
		*min = 0;
		*max = 0;
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
	*set = true;
	*min = lo;
	*max = hi;
	return 0;
}

/* ctype's classes are macros: functions, to be passed to mi_parse_str() */
static bool mi_is_graph(char c)
{
	return isgraph(c);
}

static bool mi_is_print(char c)
{
	return isprint(c);
}

/*
 * The string knobs' one shape: trim, every byte in the class @ok (-EINVAL),
 * shorter than @max and than @size (-ERANGE), then copy NUL-padded.  Empty
 * is valid: it clears the aim.
 */
static int mi_parse_str(const char *buf, size_t len, bool (*ok)(char c),
			size_t max, char *out, size_t size)
{
	size_t i;

	len = mi_trim(buf, len);
	for (i = 0; i < len; i++)
		if (!ok(buf[i]))
			return -EINVAL;
	if (len >= size || len >= max)
		return -ERANGE;
	memcpy(out, buf, len);
	memset(out + len, 0, size - len);
	return 0;
}

int mi_fault_parse_name(const char *buf, size_t len, char *out, size_t size)
{
	return mi_parse_str(buf, len, mi_is_graph, size, out, size);
}

/*
 * A module name as the kernel keeps it (struct module's name, shorter
 * than MODULE_NAME_LEN): Kbuild makes KBUILD_MODNAME of a file name's
 * letters, digits and '_', with each '-' turned into '_'; modprobe and
 * /sys/module accept either spelling.  A '-' is stored as '_', so that
 * "foo-bar" aims at the module foo_bar.  Loaded or not is fault.c's
 * business: a module that is not loaded yet is a valid aim.
 */
static bool mi_is_modname_char(char c)
{
	return isalnum(c) || c == '_' || c == '-';
}

static int mi_fault_parse_module(const char *buf, size_t len, char *out, size_t size)
{
	char *p;
	int err;

	err = mi_parse_str(buf, len, mi_is_modname_char, MODULE_NAME_LEN,
			   out, size);
	if (err)
		return err;
	for (p = out; *p; p++)
		if (*p == '-')
			*p = '_';
	return 0;
}

/* a task's comm: spaces allowed, as in /proc/PID/comm */
int mi_fault_parse_comm(const char *buf, size_t len, char *out, size_t size)
{
	return mi_parse_str(buf, len, mi_is_print, MI_FAULT_COMM_LEN, out, size);
}

/* a cgroup path from the hierarchy's root: absolute */
int mi_fault_parse_path(const char *buf, size_t len, char *out, size_t size)
{
	size_t t = mi_trim(buf, len);

	if (t && buf[0] != '/')
		return -EINVAL;
	return mi_parse_str(buf, len, mi_is_graph, size, out, size);
}

/* a symbol name as kallsyms prints it, or the comma between two */
static bool mi_is_caller_char(char c)
{
	return isalnum(c) || c == '_' || c == '.' || c == ',';
}

int mi_fault_parse_callers(const char *buf, size_t len, char *out,
			   size_t size)
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
	return mi_parse_str(buf, len, mi_is_caller_char, size, out, size);
}

int mi_fault_parse_knob(enum mi_fault_knob knob, const char *buf, size_t len,
			unsigned int max_order_limit,
			struct mi_fault_settings *s)
{
	unsigned long lo, hi;
	unsigned int u;
	bool set;
	int err;

	switch (knob) {
	case MI_FK_SITES:
		return mi_fault_parse_sites(buf, len, &s->sites);
	case MI_FK_PROBABILITY:
		return mi_fault_parse_uint(buf, len, 0, 100, &s->probability);
	case MI_FK_INTERVAL:
		return mi_fault_parse_uint(buf, len, 1, INT_MAX, &s->interval);
	case MI_FK_TIMES:
		return mi_fault_parse_times(buf, len, &s->times);
	case MI_FK_SPACE:
		return mi_fault_parse_uint(buf, len, 0, INT_MAX, &s->space);
	case MI_FK_VERBOSE:
		return mi_fault_parse_uint(buf, len, 0, MI_FAULT_VERBOSE_MAX,
					   &s->verbose);
	case MI_FK_IGNORE_GFP_WAIT:
		return mi_fault_parse_bool(buf, len, &s->ignore_gfp_wait);
	case MI_FK_IGNORE_GFP_HIGHMEM:
		return mi_fault_parse_bool(buf, len, &s->ignore_gfp_highmem);
	case MI_FK_MIN_ORDER:
		return mi_fault_parse_uint(buf, len, 0, max_order_limit,
					   &s->min_order);
	case MI_FK_MAX_ORDER:
		return mi_fault_parse_uint(buf, len, 0, max_order_limit,
					   &s->max_order);
	case MI_FK_NTH:
		return mi_fault_parse_uint(buf, len, 0, INT_MAX, &s->nth);
	case MI_FK_AIM_PID:
		err = mi_fault_parse_uint(buf, len, 0, PID_MAX_LIMIT, &u);
		if (!err)
			s->aim_pid = u;
		return err;
	case MI_FK_AIM_CHILDREN:
		return mi_fault_parse_bool(buf, len, &s->aim_children);
	case MI_FK_AIM_COMM:
		return mi_fault_parse_comm(buf, len, s->aim_comm,
					   sizeof(s->aim_comm));
	case MI_FK_AIM_CGROUP:
		return mi_fault_parse_path(buf, len, s->aim_cgroup,
					   sizeof(s->aim_cgroup));
	case MI_FK_AIM_CACHE:
		return mi_fault_parse_name(buf, len, s->aim_cache,
					   sizeof(s->aim_cache));
	case MI_FK_AIM_SIZE:
		err = mi_fault_parse_size_range(buf, len, &set, &lo, &hi);
		if (!err) {
			s->aim_size_set = set;
			s->aim_size_min = lo;
			s->aim_size_max = hi;
		}
		return err;
	case MI_FK_AIM_MODULE:
		return mi_fault_parse_module(buf, len, s->aim_module,
					     sizeof(s->aim_module));
	case MI_FK_AIM_DEPTH:
		return mi_fault_parse_uint(buf, len, 1, MI_FAULT_DEPTH_MAX,
					   &s->aim_depth);
	case MI_FK_EXCLUDE_CALLER:
		return mi_fault_parse_callers(buf, len, s->exclude_caller,
					      sizeof(s->exclude_caller));
	case MI_FK_DURATION:
		return mi_fault_parse_uint(buf, len, 0, INT_MAX, &s->duration);
	case MI_FK_ARMED:
		err = mi_fault_parse_uint(buf, len, 0, 1, &u);
		if (!err)
			s->armed = u;
		return err;
	case MI_FK_NR:
		break;
	}
	return -EINVAL;
}

int mi_fault_format_knob(enum mi_fault_knob knob,
			 const struct mi_fault_settings *s, char *buf,
			 size_t size)
{
	switch (knob) {
	case MI_FK_SITES:
		return scnprintf(buf, size, "%s",
				 s->sites == MI_FAULT_SITES_ALL ? "slab,pages" :
				 s->sites == MI_FAULT_SITE_SLAB ? "slab" :
				 s->sites == MI_FAULT_SITE_PAGES ? "pages" :
				 "none");
	case MI_FK_PROBABILITY:
		return scnprintf(buf, size, "%u", s->probability);
	case MI_FK_INTERVAL:
		return scnprintf(buf, size, "%u", s->interval);
	case MI_FK_TIMES:
		return scnprintf(buf, size, "%d", s->times);
	case MI_FK_SPACE:
		return scnprintf(buf, size, "%u", s->space);
	case MI_FK_VERBOSE:
		return scnprintf(buf, size, "%u", s->verbose);
	case MI_FK_IGNORE_GFP_WAIT:
		return scnprintf(buf, size, "%c", s->ignore_gfp_wait ? 'Y' : 'N');
	case MI_FK_IGNORE_GFP_HIGHMEM:
		return scnprintf(buf, size, "%c",
				 s->ignore_gfp_highmem ? 'Y' : 'N');
	case MI_FK_MIN_ORDER:
		return scnprintf(buf, size, "%u", s->min_order);
	case MI_FK_MAX_ORDER:
		return scnprintf(buf, size, "%u", s->max_order);
	case MI_FK_NTH:
		return scnprintf(buf, size, "%u", s->nth);
	case MI_FK_AIM_PID:
		return scnprintf(buf, size, "%d", s->aim_pid);
	case MI_FK_AIM_CHILDREN:
		return scnprintf(buf, size, "%c", s->aim_children ? 'Y' : 'N');
	case MI_FK_AIM_COMM:
		return scnprintf(buf, size, "%s", s->aim_comm);
	case MI_FK_AIM_CGROUP:
		return scnprintf(buf, size, "%s", s->aim_cgroup);
	case MI_FK_AIM_CACHE:
		return scnprintf(buf, size, "%s", s->aim_cache);
	case MI_FK_AIM_SIZE:
		if (!s->aim_size_set)
			return scnprintf(buf, size, "%s", "");
		return scnprintf(buf, size, "%lu-%lu", s->aim_size_min,
				 s->aim_size_max);
	case MI_FK_AIM_MODULE:
		return scnprintf(buf, size, "%s", s->aim_module);
	case MI_FK_AIM_DEPTH:
		return scnprintf(buf, size, "%u", s->aim_depth);
	case MI_FK_EXCLUDE_CALLER:
		return scnprintf(buf, size, "%s", s->exclude_caller);
	case MI_FK_DURATION:
		return scnprintf(buf, size, "%u", s->duration);
	case MI_FK_ARMED:
		return scnprintf(buf, size, "%d", s->armed);
	case MI_FK_NR:
		break;
	}
	if (size)
		buf[0] = '\0';
	return 0;
}
