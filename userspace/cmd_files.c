// SPDX-License-Identifier: GPL-2.0
/*
 * files: the module's files table (the page cache by inode) with each path completed by its
 * mount point, as /proc/PID/maps prints it; --top N keeps the first N rows.
 */
#include "cli.h"
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

/*
 * The mount point of dev (hex "MAJ:MIN" as the module prints it) whose root is a prefix of
 * path, from /proc/self/mountinfo ($MEMINSPECT_MOUNTINFO for tests): mount point and root
 * into mnt/root; false if none.
 */
static bool mount_of(const char *dev, const char *path, char *mnt, size_t mlen, char *root,
		     size_t rlen)
{
	const char *file = getenv("MEMINSPECT_MOUNTINFO");
	unsigned int dmaj, dmin, maj, min;
	char line[8192], r[4096], m[4096];
	bool found = false;
	FILE *f;

	if (sscanf(dev, "%x:%x", &dmaj, &dmin) != 2)
		return false;
	f = fopen(file ? file : "/proc/self/mountinfo", "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		size_t n;

		if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &maj, &min, r, m) != 4 ||
		    maj != dmaj || min != dmin)
			continue;
		n = strlen(r);
		if (!strcmp(r, "/"))
			n = 0;
		if (strncmp(path, r, n) || (path[n] && path[n] != '/'))
			continue;
		snprintf(mnt, mlen, "%s", m);
		snprintf(root, rlen, "%s", n ? r : "");
		found = true;
	}
	fclose(f);
	return found;
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
		const char *p = mi_get(t, r, "path");
		char mnt[4096], root[4096];

		mi_table_copy_record(v, t, r);
		if (p && p[0] == '/' &&
		    mount_of(mi_get(t, r, "dev"), p, mnt, sizeof(mnt), root, sizeof(root)))
			mi_table_setf(v, r, (size_t)pc, "%s%s",
				      strcmp(mnt, "/") ? mnt : "",
				      p + strlen(root));
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
