/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection settings and the parsing of every writable knob
 * (docs/fault.md).  Pure functions: no kernel state, no debugfs, no
 * locking, so that KUnit can test them on their own.  Names that must be
 * resolved against the running kernel (pid, cgroup, cache, module) are only
 * checked for form here; fault.c resolves them.
 *
 * Every parser takes the bytes written (@buf, @len, not NUL-terminated;
 * one trailing newline is ignored) and either stores the value and
 * returns 0, or returns -EINVAL (does not parse) or -ERANGE (parses, out
 * of range) and leaves its output untouched.
 */
#ifndef MI_FAULT_PARSE_H
#define MI_FAULT_PARSE_H

#include <linux/kernel.h>
#include <linux/types.h>

#define MI_FAULT_SITE_SLAB	0x1U
#define MI_FAULT_SITE_PAGES	0x2U
#define MI_FAULT_SITES_ALL	(MI_FAULT_SITE_SLAB | MI_FAULT_SITE_PAGES)

#define MI_FAULT_COMM_LEN	16	/* TASK_COMM_LEN, NUL included */
#define MI_FAULT_NAME_LEN	64	/* cache and module names, NUL included */
#define MI_FAULT_PATH_LEN	256	/* cgroup path, NUL included */
#define MI_FAULT_DEPTH_MAX	32
#define MI_FAULT_VERBOSE_MAX	2
/* function names in exclude-caller */
#define MI_FAULT_EXCLUDE_MAX	8
/* longest accepted write: a cgroup path and a newline */
#define MI_FAULT_INPUT_MAX	MI_FAULT_PATH_LEN

/* The knobs, in the order of the table in docs/fault.md. */
enum mi_fault_knob {
	MI_FK_SITES,
	MI_FK_PROBABILITY,
	MI_FK_INTERVAL,
	MI_FK_TIMES,
	MI_FK_SPACE,
	MI_FK_VERBOSE,
	MI_FK_IGNORE_GFP_WAIT,
	MI_FK_IGNORE_GFP_HIGHMEM,
	MI_FK_MIN_ORDER,
	MI_FK_MAX_ORDER,
	MI_FK_NTH,
	MI_FK_AIM_PID,
	MI_FK_AIM_CHILDREN,
	MI_FK_AIM_COMM,
	MI_FK_AIM_CGROUP,
	MI_FK_AIM_CACHE,
	MI_FK_AIM_SIZE,
	MI_FK_AIM_MODULE,
	MI_FK_AIM_DEPTH,
	MI_FK_EXCLUDE_CALLER,
	MI_FK_DURATION,
	MI_FK_ARMED,
	MI_FK_NR
};

/* Every knob's value, as written (names unresolved). */
struct mi_fault_settings {
	unsigned int sites;		/* MI_FAULT_SITE_* */
	unsigned int probability;	/* 0..100 */
	unsigned int interval;		/* 1..INT_MAX */
	int times;			/* -1 (no limit) or 0..INT_MAX */
	unsigned int space;		/* 0..INT_MAX bytes */
	unsigned int verbose;		/* 0..MI_FAULT_VERBOSE_MAX */
	bool ignore_gfp_wait;
	bool ignore_gfp_highmem;
	unsigned int min_order;		/* 0..max_order_limit */
	unsigned int max_order;		/* 0..max_order_limit */
	unsigned int nth;		/* 0 (off) or 1..INT_MAX */
	int aim_pid;			/* 0 (any) or 1..PID_MAX_LIMIT */
	bool aim_children;
	char aim_comm[MI_FAULT_COMM_LEN];	/* "" = any */
	char aim_cgroup[MI_FAULT_PATH_LEN];	/* "" = any */
	char aim_cache[MI_FAULT_NAME_LEN];	/* "" = any */
	bool aim_size_set;
	unsigned long aim_size_min, aim_size_max;
	char aim_module[MI_FAULT_NAME_LEN];	/* "" = any */
	unsigned int aim_depth;		/* 1..MI_FAULT_DEPTH_MAX */
	char exclude_caller[MI_FAULT_PATH_LEN];	/* "f,g"; "" = none */
	unsigned int duration;		/* ms, 0 (none) or 1..INT_MAX */
	bool armed;
};

extern const char *const mi_fault_knob_names[MI_FK_NR];

/* The defaults of docs/fault.md; @max_order_limit: the kernel's highest order. */
void mi_fault_settings_init(struct mi_fault_settings *s,
			    unsigned int max_order_limit);

/* Single values. */
int mi_fault_parse_uint(const char *buf, size_t len, unsigned int min,
			unsigned int max, unsigned int *out);
int mi_fault_parse_times(const char *buf, size_t len, int *out);
int mi_fault_parse_bool(const char *buf, size_t len, bool *out);
int mi_fault_parse_sites(const char *buf, size_t len, unsigned int *out);
int mi_fault_parse_size_range(const char *buf, size_t len, bool *set,
			      unsigned long *min, unsigned long *max);
/* a name without spaces or control characters; "" allowed */
int mi_fault_parse_name(const char *buf, size_t len, char *out, size_t size);
/* a command name: printable, spaces allowed, at most TASK_COMM_LEN - 1 */
int mi_fault_parse_comm(const char *buf, size_t len, char *out, size_t size);
/*
 * "" or up to MI_FAULT_EXCLUDE_MAX function names ([A-Za-z0-9_.]) separated
 * by single commas
 */
int mi_fault_parse_callers(const char *buf, size_t len, char *out,
			   size_t size);
/* "" or an absolute path ("/..."), no spaces or control characters */
int mi_fault_parse_path(const char *buf, size_t len, char *out, size_t size);

/*
 * Parse a write of knob @knob into @s (only the field(s) of that knob
 * change, and only on success).  @max_order_limit bounds min-order and
 * max-order.  MI_FK_ARMED parses 0/1 into s->armed.
 */
int mi_fault_parse_knob(enum mi_fault_knob knob, const char *buf, size_t len,
			unsigned int max_order_limit,
			struct mi_fault_settings *s);

/*
 * Print knob @knob's value as its file shows it, without the newline, into
 * @buf of @size bytes (NUL-terminated).  Returns the length printed.  An
 * empty string value prints as "" (the file shows an empty line).
 */
int mi_fault_format_knob(enum mi_fault_knob knob,
			 const struct mi_fault_settings *s, char *buf,
			 size_t size);

#endif /* MI_FAULT_PARSE_H */
