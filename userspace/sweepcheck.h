/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fault sweep's checks after each run (docs/fault-reader.md): is the
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

struct leak_scan {
	char path[4096];	/* "": no kmemleak */
};

/* One unreferenced object of kmemleak's report. */
struct leak_obj {
	long size;
	long pid;		/* of the task that allocated it; -1: not in the report */
	char comm[24];
};

/*
 * kmemleak next to @debugfs_dir's parent (MEMINSPECT_KMEMLEAK overrides):
 * true if it is there and answers; then earlier reports are cleared, so
 * that the sweep is charged only with its own.
 */
bool leak_open(struct leak_scan *l, const char *debugfs_dir);

/*
 * Scan once the last run's objects are old enough for kmemleak to report
 * (it waits MSECS_MIN_AGE, 5 s, after an allocation: @since is when the
 * run ended, CLOCK_MONOTONIC seconds), read the report, clear it.
 * Returns the number of unreferenced objects, each in *@objs (the caller
 * frees it), or -1 if the scan failed.
 */
long leak_scan(struct leak_scan *l, double since, struct leak_obj **objs);

/* The pid most recently handed out (/proc/loadavg's last field), -1 if unknown. */
long last_pid(void);

double mono_now(void);

#endif
