/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection settings and the parsing of every writable knob
 * (docs/fault.md).  Pure functions: no kernel state, no debugfs, no
 * locking, so that KUnit can test them on their own.  Names that must be
 * resolved against the running kernel (pid, cgroup, cache, module) are only
 * checked for form here; fault_knobs.c resolves them.
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

/* aim-size: [min, max] bytes when set */
struct mi_fault_size_range {
	bool set;
	unsigned long min, max;
};

/* linger's largest value, in ms: probes left inert on every call for a minute at most */
#define MI_FAULT_LINGER_MAX	60000

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
	bool ignore_pagefault;		/* spare the page fault exception's */
	unsigned int min_order;		/* 0..max_order_limit */
	unsigned int max_order;		/* 0..max_order_limit */
	unsigned int nth;		/* 0 (off) or 1..INT_MAX */
	int aim_pid;			/* 0 (any) or 1..PID_MAX_LIMIT */
	bool aim_children;
	char aim_comm[MI_FAULT_COMM_LEN];	/* "" = any */
	char aim_cgroup[MI_FAULT_PATH_LEN];	/* "" = any */
	char aim_cache[MI_FAULT_NAME_LEN];	/* "" = any */
	struct mi_fault_size_range aim_size;
	char aim_module[MI_FAULT_NAME_LEN];	/* "" = any */
	unsigned int aim_depth;		/* 1..MI_FAULT_DEPTH_MAX */
	char exclude_caller[MI_FAULT_PATH_LEN];	/* "f,g"; "" = none */
	unsigned int duration;		/* ms, 0 (none) or 1..INT_MAX */
	unsigned int linger;		/* ms, 0 or 1..MI_FAULT_LINGER_MAX */
	bool armed;
};

/* How a knob's value is written and printed. */
enum mi_fault_knob_type {
	MI_KNOB_UINT,		/* unsigned int in [min, max]; "%u" */
	MI_KNOB_INT,		/* int in [min, max] (-1: no limit); "%d" */
	MI_KNOB_BOOL,		/* bool: Y, y, 1 or N, n, 0; prints Y or N */
	MI_KNOB_ARMED,		/* bool: a number in [min, max]; prints 0 or 1 */
	MI_KNOB_SITES,		/* unsigned int: "none" or site names, each once */
	MI_KNOB_SIZE_RANGE,	/* struct mi_fault_size_range: "" or "MIN-MAX" */
	/* char[]: "" or up to max bytes of the class @ok */
	MI_KNOB_STRING,
	/*
	 * char[]: "" or up to MI_FAULT_EXCLUDE_MAX names of the class @ok
	 * separated by single commas, up to max bytes
	 */
	MI_KNOB_CALLERS,
};

/* max is the parameter max_order_limit: the running kernel's highest order */
#define MI_KNOB_MAX_ORDER	0x1U
/* a string that is empty or starts with '/' */
#define MI_KNOB_ABSOLUTE	0x2U
/* a string in which '-' is stored as '_' (module names, as Kbuild's) */
#define MI_KNOB_DASH_TO_UNDERSCORE	0x4U

/*
 * One knob file of fault/: its name, how it parses and prints (@type),
 * where its value is in struct mi_fault_settings (@offset), and its
 * bounds: the range of a number (MI_KNOB_UINT, MI_KNOB_INT,
 * MI_KNOB_ARMED), the longest value of a string (MI_KNOB_STRING,
 * MI_KNOB_CALLERS: its first max + 1 bytes, NUL-padded, are written, so
 * the field must have as many); 0 where unused.
 */
struct mi_fault_knob {
	const char *name;
	enum mi_fault_knob_type type;
	size_t offset;
	long long min, max;
	bool (*ok)(char c);		/* the bytes a string may hold */
	unsigned int flags;		/* MI_KNOB_MAX_ORDER, ... */
};

/*
 * The knobs, in the order of the table in docs/fault.md; a line without
 * a name ends it.
 */
extern const struct mi_fault_knob mi_fault_knobs[];

/* The defaults of docs/fault.md; @max_order_limit: the kernel's highest order. */
void mi_fault_settings_init(struct mi_fault_settings *s,
			    unsigned int max_order_limit);

/* Single values, for other files' knobs. */
int mi_fault_parse_uint(const char *buf, size_t len, unsigned int min,
			unsigned int max, unsigned int *out);
int mi_fault_parse_bool(const char *buf, size_t len, bool *out);
/* a command name: printable, spaces allowed, at most TASK_COMM_LEN - 1 */
int mi_fault_parse_comm(const char *buf, size_t len, char *out, size_t size);

/*
 * Parse a write of knob @k into @s (only the field of that knob changes,
 * and only on success).  @max_order_limit is the max of the knobs with
 * MI_KNOB_MAX_ORDER (min-order, max-order).
 */
int mi_fault_parse_knob(const struct mi_fault_knob *k, const char *buf,
			size_t len, unsigned int max_order_limit,
			struct mi_fault_settings *s);

/*
 * Print knob @k's value as its file shows it, without the newline, into
 * @buf of @size bytes (NUL-terminated).  Returns the length printed.  An
 * empty string value prints as "" (the file shows an empty line).
 */
int mi_fault_format_knob(const struct mi_fault_knob *k,
			 const struct mi_fault_settings *s, char *buf,
			 size_t size);

#endif /* MI_FAULT_PARSE_H */
