// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect cgroup-slabs: the module's cgroup_slabs file (docs/cgroups.md),
 * one row per memory cgroup and slab cache with the objects charged to the
 * cgroup, and per cache the objects in use charged to none (id "-").
 */
#include "cli.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <string.h>

/* ids are integers or "-" (charged to none); objects and bytes integers */
int check_cgroup_slabs(const struct mi_table *t)
{
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *id = mi_get(t, r, "id");
		const char *n = mi_get(t, r, "objects"), *b = mi_get(t, r, "bytes");

		if (!mi_is_integer(id) && strcmp(id, "-"))
			return view_format_error(t, r, "id is neither an integer nor -", id);
		if (!mi_is_integer(n))
			return view_format_error(t, r, "objects is not an integer", n);
		if (!mi_is_integer(b))
			return view_format_error(t, r, "bytes is not an integer", b);
	}
	return ST_OK;
}

int cmd_cgroup_slabs(const struct mi_cli *c, struct cmd_opts *o)
{
	(void)o;
	return view_show_file(c, "cgroup_slabs");
}
