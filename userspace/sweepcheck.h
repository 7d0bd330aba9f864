/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fault sweep's checks after each run (docs/fault-sweep.md): is the
 * aimed module gone or live (never half-loaded), and what did kmemleak
 * find.  Plain files only: /proc/modules, /sys/module/NAME/initstate and
 * debugfs' kmemleak.
 */
#ifndef MI_SWEEPCHECK_H
#define MI_SWEEPCHECK_H

#include <stdbool.h>
#include <stddef.h>

enum mod_state { MOD_GONE, MOD_LIVE, MOD_HALF };

/*
 * The state of module @name ('-' read as '_'); for MOD_HALF, @why says
 * what was seen ("/proc/modules: Loading", "initstate: going").  A module
 * still loading or going is given a second to settle first.
 */
enum mod_state mod_state(const char *name, char *why, size_t len);

/* Unload it, like rmmod (O_NONBLOCK); 0 or an errno. */
int mod_unload(const char *name);

/* One unreferenced object of kmemleak's report. */
struct leak_obj {
	unsigned long addr;	/* with jiffies, names the object across reports */
	unsigned long jiffies;	/* of its allocation; 0: not in the report */
	long size;
	bool percpu;		/* a per-CPU object: its address is a per-CPU offset */
	long pid;		/* of the task that allocated it; -1: not in the report */
	char comm[24];
};

struct leak_scan {
	char path[4096];	/* "": no kmemleak */
	struct leak_obj *base;	/* reported before the sweep: not its leaks */
	long nbase;
};

/*
 * kmemleak next to @debugfs_dir's parent (MEMINSPECT_KMEMLEAK overrides):
 * true if it is there and answers.  It scans and keeps what the report
 * then lists, so that the sweep is charged only with its own objects;
 * nothing is cleared: kmemleak's "clear" would hide, for good, every leak
 * found before the sweep from the user and from any later scan.
 */
bool leak_open(struct leak_scan *l, const char *debugfs_dir);

/*
 * Scan once the last run's objects are old enough for kmemleak to report
 * (it waits MSECS_MIN_AGE, 5 s, after an allocation: @since is when the
 * run ended, CLOCK_MONOTONIC seconds) and read the report.  Returns the
 * number of unreferenced objects not listed by leak_open()'s scan, each in
 * *@objs (the caller frees it), or -1 if the scan failed.
 */
long leak_scan(struct leak_scan *l, double since, struct leak_obj **objs);

/* Free what leak_open() kept. */
void leak_close(struct leak_scan *l);

/*
 * The kernel's own record of each load and free of a module during a run:
 * its module_load and module_free trace events, in a tracefs instance of
 * the sweep's own (the user's tracing is left alone).
 */
struct load_trace {
	char dir[4096];		/* the instance; "": not traced */
	bool made;		/* made by load_trace_open(): removed at close */
};

/*
 * An instance with both events on: under MEMINSPECT_TRACE_INSTANCE (used
 * as it is), else made in /sys/kernel/tracing/instances or, where tracefs
 * is not mounted there, in the tracing directory next to @debugfs_dir's
 * parent.  False, @why saying why, if there is none.
 */
bool load_trace_open(struct load_trace *t, const char *debugfs_dir, char *why, size_t len);

/* Forget the events so far (before a run). */
void load_trace_clear(const struct load_trace *t);

/*
 * The loads and frees of module @name recorded since the last clear; false
 * if the trace cannot be read.
 */
bool load_trace_count(const struct load_trace *t, const char *name, int *loads, int *frees);

/* Turn the events off and remove the instance if it was made here. */
void load_trace_close(struct load_trace *t);

/* Is @pid one of those handed out from @first to @last (wrapping at pid_max)? */
bool pid_in(long pid, long first, long last);

/* The pid most recently handed out (/proc/loadavg's last field), -1 if unknown. */
long last_pid(void);

double mono_now(void);

#endif
