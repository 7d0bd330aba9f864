/* SPDX-License-Identifier: GPL-2.0 */
/*
 * meminspect's exit statuses, for every command: documented in
 * meminspect --help (meminspect.c's exit_help) and meminspect.8; keep the
 * three in step.
 */
#ifndef MI_STATUS_H
#define MI_STATUS_H

enum {
	ST_OK = 0,
	ST_FORMAT = 1,		/* unparsable file, I/O or internal error */
	ST_USAGE = 2,
	ST_NO_DEBUGFS = 3,
	ST_NO_MODULE = 4,
	ST_PERM = 5,
	ST_REFUSED = 6,		/* fault: the kernel refused a knob write (EINVAL, ERANGE, EBUSY, ...) */
	ST_SPLAT = 7,		/* fault sweep: a run left a kernel splat or a new taint */
	ST_INCOMPLETE = 8,	/* fault sweep: --max-runs reached before a run injected nothing */
	ST_MODULE = 9,		/* fault sweep: --module's module half-loaded after a run, or not unloadable */
	ST_LEAK = 10,		/* fault sweep: kmemleak found unreferenced objects after a run */
	ST_PARTIAL = 11,	/* report, export: files left out (named); the rest printed */
	ST_LOCKDOWN = 12,	/* kernel lockdown refused a file (fault: every knob) */
};

#endif
