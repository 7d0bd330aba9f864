// SPDX-License-Identifier: GPL-2.0
/*
 * What keeps each dying memory cgroup (meminspect cgroups --dying): beside
 * its pages by class, its top files by page cache (the files file names,
 * per file, the cgroup charged for most of its pages) and its top slab
 * caches (cgroup_slabs), so that why it cannot be freed is on its row.
 * A removed cgroup's slab objects move to its parent on every kernel of
 * the matrix (capabilities: cgroups.dying_slab), so its top_slabs is "-"
 * there; it is read all the same, not assumed.
 */
#include "cgroup_pins.h"
#include "access.h"
#include "mountinfo.h"
#include "views.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PINS_TOP 3

static const char *const pins_fields[] = {
	"id", "state", "anon_pages", "file_pages", "shmem_pages", "slab_bytes",
	"top_files", "top_slabs", "path", NULL };

static long long num_of(const struct mi_table *t, size_t r, const char *f)
{
	long long v;

	return mi_parse_s64(mi_get(t, r, f), &v) ? -1 : v;
}

/*
 * The PINS_TOP records of @t whose @key is @want, by @by, largest first, as
 * "NAME:VALUE,..." into buf ("-" if none); @name gives a record's name.
 */
static void top_rows(const struct mi_table *t, const char *key, const char *want,
		     const char *by, void (*name)(const struct mi_table *, size_t, char *, size_t),
		     char *buf, size_t len)
{
	long top[PINS_TOP];
	size_t o = 0;
	int n = 0;

	for (size_t r = 0; t && r < mi_nrecords(t); r++) {
		long long v = num_of(t, r, by);
		int i;

		if (strcmp(mi_get(t, r, key), want) || v <= 0)
			continue;
		for (i = n; i > 0 && num_of(t, (size_t)top[i - 1], by) < v; i--)
			if (i < PINS_TOP)
				top[i] = top[i - 1];
		if (i < PINS_TOP) {
			top[i] = (long)r;
			if (n < PINS_TOP)
				n++;
		}
	}
	snprintf(buf, len, "-");
	for (int i = 0; i < n && o + 1 < len; i++) {
		char nm[PATH_MAX];
		int w;

		name(t, (size_t)top[i], nm, sizeof(nm));
		w = snprintf(buf + o, len - o, "%s%s:%s", i ? "," : "", nm,
			     mi_get(t, (size_t)top[i], by));
		if (w < 0 || (size_t)w >= len - o)
			break;
		o += (size_t)w;
	}
}

/* a cell holds no blank: one as \040, as the module escapes paths */
static void unblank(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		if (*s == ' ') {
			memcpy(buf + o, "\\040", 4);
			o += 4;
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = '\0';
}

/* a file's path as /proc/PID/maps prints it: its mount point first */
static void file_name(const struct mi_table *t, size_t r, char *buf, size_t len)
{
	char full[PATH_MAX], type[64];
	const char *path = mi_get(t, r, "path");

	/* no dentry cached (a block device's own inode): dev:ino names it */
	if (!strcmp(path, "-"))
		snprintf(full, sizeof(full), "%s:%s", mi_get(t, r, "dev"), mi_get(t, r, "ino"));
	else if (!mi_mount_path(mi_get(t, r, "dev"), path, full, sizeof(full), type, sizeof(type)))
		snprintf(full, sizeof(full), "%s", path);
	unblank(full, buf, len);
}

static void cache_name(const struct mi_table *t, size_t r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", mi_get(t, r, "cache"));
}

/* @file's table, quietly absent where the module has no such file */
static int pins_load(const struct mi_cli *c, const char *file, struct mi_table **t)
{
	char path[PATH_MAX];
	int fd = mi_open(&c->acc, file, O_RDONLY, path, sizeof(path));

	*t = NULL;
	if (fd < 0)
		return -1;
	close(fd);
	return view_load(c, file, t);
}

struct mi_table *cgroup_pins(const struct mi_cli *c, const struct mi_table *t,
			     struct mi_error *e)
{
	struct mi_table *files = NULL, *slabs = NULL, *d;
	char tf[4096], ts[1024];

	d = mi_table_new("cgroups", pins_fields, e);
	if (!d)
		return NULL;
	if (pins_load(c, "files", &files))
		mi_table_add_note(d, "files could not be read: top_files is -");
	if (pins_load(c, "cgroup_slabs", &slabs))
		mi_table_add_note(d, "cgroup_slabs could not be read (capabilities: cgroups.slab_bytes): top_slabs is -");
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *path = mi_get(t, r, "path"), *id = mi_get(t, r, "id");
		long n;

		if (strcmp(mi_get(t, r, "state"), "dying"))
			continue;
		n = mi_table_add_record(d);
		if (n < 0)
			break;
		for (const char *const *f = pins_fields; *f; f++)
			if (mi_field_index(t, *f) >= 0)
				mi_table_set_field(d, (size_t)n, *f, mi_get(t, r, *f));
		top_rows(files, "cgroup", path, "pages", file_name, tf, sizeof(tf));
		top_rows(slabs, "id", id, "objects", cache_name, ts, sizeof(ts));
		mi_table_set_field(d, (size_t)n, "top_files", tf);
		mi_table_set_field(d, (size_t)n, "top_slabs", ts);
	}
	mi_table_add_note(d, "top_files: the %d files with the most page cache charged to the cgroup, path:pages (dev:ino:pages without a path); top_slabs: its %d slab caches with the most objects, cache:objects",
			  PINS_TOP, PINS_TOP);
	mi_table_copy_notes(d, t);
	mi_table_free(files);
	mi_table_free(slabs);
	return d;
}
