// SPDX-License-Identifier: GPL-2.0
/*
 * files: the module's files table (the page cache by inode) with each path completed by its
 * mount point, as /proc/PID/maps prints it; --top N keeps the first N rows.
 */
#include "cli.h"
#include "mountinfo.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* integers after dev ("MAJ:MIN", hex) but cgroup, a path or - */
int check_files(const struct mi_table *t)
{
	int cg = mi_field_index(t, "cgroup");

	for (size_t r = 0; r < mi_nrecords(t); r++)
		for (size_t col = 1; col + 1 < mi_nfields(t); col++) {
			const char *v = mi_value(t, r, col);

			if (mi_is_none(v))
				continue;
			if ((int)col == cg ? v[0] != '/' : !mi_is_integer(v))
				return view_format_error(t, r, (int)col == cg ?
							 "cgroup is not a path" :
							 "value is not an integer", v);
		}
	return ST_OK;
}

int cmd_files(const struct mi_cli *c, struct cmd_opts *o)
{
	struct mi_table *t, *v;
	struct mi_error e;
	int pc, st = view_load(c, "files", &t);

	if (st)
		return st;
	v = mi_table_new_like(t, "files", &e);
	if (!v) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		mi_table_free(t);
		return ST_FORMAT;
	}
	pc = mi_field_index(v, "path");
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		char full[8192], fstype[64];

		mi_table_copy_record(v, t, r);
		if (mi_mount_path(mi_get(t, r, "dev"), mi_get(t, r, "path"), full, sizeof(full),
				  fstype, sizeof(fstype)))
			mi_table_set(v, r, (size_t)pc, full);
	}
	mi_table_copy_notes(v, t);
	mi_table_free(t);
	if (mi_table_error(v)) {
		st = view_build_failed(v, "files");
		mi_table_free(v);
		return st;
	}
	if (o->slab.top)
		mi_table_truncate(v, o->slab.top);
	st = view_show(c, v, "files");
	mi_table_free(v);
	return st;
}
