// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect cgroups [--dying]: the module's cgroups file (docs/cgroups.md),
 * one row per memory cgroup with the pages the census found charged to it;
 * --dying keeps the removed ones that something still holds.
 */
#include "cli.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <stdio.h>
#include <string.h>

/* the cgroups view's check: ids and page counts are integers, state a word */
int check_cgroups(const struct mi_table *t)
{
	int st = view_check_integers(t, 2);

	if (st)
		return st;
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *id = mi_get(t, r, "id"), *s = mi_get(t, r, "state");

		if (!mi_is_integer(id))
			return view_format_error(t, r, "id is not an integer", id);
		if (strcmp(s, "online") && strcmp(s, "dying"))
			return view_format_error(t, r, "state is neither online nor dying", s);
	}
	return ST_OK;
}

int cmd_cgroups(const struct mi_cli *c, struct cmd_opts *o)
{
	struct mi_table *t, *d;
	struct mi_error e;
	int st;

	if (!o->cg.dying)
		return view_show_file(c, "cgroups");
	st = view_load(c, "cgroups", &t);
	if (st)
		return st;
	d = mi_table_new_like(t, "cgroups", &e);
	if (!d) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		mi_table_free(t);
		return ST_FORMAT;
	}
	for (size_t r = 0; r < mi_nrecords(t); r++)
		if (!strcmp(mi_get(t, r, "state"), "dying"))
			mi_table_copy_record(d, t, r);
	mi_table_copy_notes(d, t);
	if (mi_table_error(d)) {
		fprintf(stderr, "meminspect: out of memory\n");
		st = ST_FORMAT;
	} else {
		st = view_show(c, d, "cgroups");
	}
	mi_table_free(d);
	mi_table_free(t);
	return st;
}
