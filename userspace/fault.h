/* SPDX-License-Identifier: GPL-2.0 */
/*
 * meminspect fault: the reader side of the module's fault injector
 * (docs/fault.md for the files, docs/fault-reader.md for the commands).
 */
#ifndef MI_FAULT_H
#define MI_FAULT_H

#include <stdbool.h>
#include <stdio.h>

struct mi_access;
struct mi_table;
struct out_opts;

/* Exit statuses: status.h (ST_REFUSED to ST_LEAK are fault's). */

struct fault_env {
	const char *dir;		/* the module's files; ours are under dir/fault/ */
	bool json;			/* --json given before the command */
	const struct out_opts *out;
	/* for mi_load(), with its diagnostics (not root, not loaded, ...) */
	const struct mi_access *acc;
};

/* argv[0] is "fault"; returns the exit status. */
int fault_main(const struct fault_env *env, int argc, char **argv);

/* The brief and the help text for the global command list. */
extern const char fault_brief[];
void fault_usage(FILE *f);

#endif
