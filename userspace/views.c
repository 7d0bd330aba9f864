// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of module files the reader knows (their required fields,
 * checks and JSON shapes), and the load/print steps every command shares.
 * A file not listed gets the generic view: any fields, records as objects.
 */
#include "views.h"
#include "access.h"
#include "cli.h"
#include "hist.h"
#include "output.h"
#include "parse.h"
#include "status.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>

int view_format_error(const struct mi_table *t, size_t rec, const char *what, const char *v)
{
	fprintf(stderr, "meminspect: %s:%u: %s '%.60s'\n", mi_table_name(t),
		mi_record_line(t, rec), what, v);
	return ST_FORMAT;
}

void view_keep_round(const struct mi_cli *c, struct mi_table **prev, struct mi_table *t)
{
	if (c->watch) {
		mi_table_free(*prev);
		*prev = t;
	} else {
		mi_table_free(t);
	}
}

int view_check_integers(const struct mi_table *t, size_t first)
{
	for (size_t r = 0; r < mi_nrecords(t); r++)
		for (size_t col = first; col + 1 < mi_nfields(t); col++) {
			const char *v = mi_value(t, r, col);

			if (!mi_is_none(v) && !mi_is_integer(v))
				return view_format_error(t, r, "value is not an integer", v);
		}
	return ST_OK;
}

int view_open_live(const struct mi_cli *c, const char *file, const char *what, char *path,
		   size_t len, int *fd)
{
	struct mi_error e;
	struct statfs fs;

	if (statfs(c->acc.dir, &fs) == 0 && fs.f_type != DEBUGFS_MAGIC) {
		fprintf(stderr, "meminspect: %s is not the module's debugfs directory: %s needs the live files\n",
			c->acc.dir, what);
		return ST_USAGE;
	}
	*fd = mi_open(&c->acc, file, O_RDWR, path, len);
	if (*fd < 0) {
		e.sys_errno = errno;
		snprintf(e.msg, sizeof(e.msg), "%.400s: %s", path, strerror(errno));
		return mi_open_failed(&c->acc, &e);
	}
	return ST_OK;
}

int view_require(const struct mi_table *t, const char *const *fields)
{
	struct mi_error e;

	if (mi_require_fields(t, &e, fields))
		return ST_OK;
	fprintf(stderr, "meminspect: %s\n", e.msg);
	return ST_FORMAT;
}

void view_notes_to_stderr(const struct mi_table *t, const char *file)
{
	for (size_t i = 0; i < mi_nnotes(t); i++)
		fprintf(stderr, "meminspect: %s: note: %s\n", file, mi_note(t, i));
}

int view_build_failed(const struct mi_table *t, const char *what)
{
	if (!t || mi_table_error(t) != -EINVAL)
		fprintf(stderr, "meminspect: out of memory\n");
	else
		fprintf(stderr, "meminspect: %s: a value the line format cannot hold\n", what);
	return ST_FORMAT;
}

/* ---- per-file checks and JSON shapes ---- */

int check_summary(const struct mi_table *t)
{
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *field = mi_get(t, r, "field"), *v = mi_get(t, r, "value");

		if (!mi_valid_name(field))
			return view_format_error(t, r, "bad field name", field);
		/* it becomes a JSON key: a duplicate would be silently lost */
		if ((size_t)mi_find(t, "field", field) != r)
			return view_format_error(t, r, "duplicate field", field);
		if (!mi_is_none(v) && !mi_is_integer(v))
			return view_format_error(t, r, "value is not an integer", v);
	}
	return ST_OK;
}

/* A file name from `capabilities` becomes a path: no "..", no absolute paths. */
static bool safe_file_name(const char *s)
{
	const char *seg = s;

	for (const char *p = s;; p++) {
		if (*p == '/' || *p == '\0') {
			size_t n = (size_t)(p - seg);

			if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && !strncmp(seg, "..", 2)))
				return false;
			if (*p == '\0')
				return true;
			seg = p + 1;
		} else if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789_.-", *p)) {
			return false;
		}
	}
}

bool view_is_file_row(const struct mi_table *t, size_t r)
{
	return !strcmp(mi_get(t, r, "kind"), "file");
}

int check_capabilities(const struct mi_table *t)
{
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *avail = mi_get(t, r, "available"), *name = mi_get(t, r, "name");

		if (strcmp(avail, "yes") && strcmp(avail, "no"))
			return view_format_error(t, r, "available is not yes or no", avail);
		if (!view_is_file_row(t, r))
			continue;
		if (!safe_file_name(name))
			return view_format_error(t, r, "unsafe file name", name);
		/* report keys its JSON by file name */
		for (size_t k = 0; k < r; k++)
			if (view_is_file_row(t, k) && !strcmp(mi_get(t, k, "name"), name))
				return view_format_error(t, r, "duplicate file", name);
	}
	return ST_OK;
}

/* {"mem_total": {"value": 2014232, "unit": "kB"}, ...} */
void json_summary(struct json *j, const struct mi_table *t)
{
	json_begin_object(j);
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		json_key(j, mi_get(t, r, "field"));
		json_begin_object(j);
		json_key(j, "value");
		json_value(j, mi_get(t, r, "value"));
		json_key(j, "unit");
		json_string(j, mi_get(t, r, "unit"));
		json_end_object(j);
	}
	json_end_object(j);
}


static const char *const summary_fields[] = { "field", "value", "unit", NULL };
static const char *const capabilities_fields[] = { "name", "kind", "available", "detail", NULL };
static const char *const slabs_fields[] = {
	"name", "object_size", "slab_size", "active_objs", "total_objs",
	"objs_per_slab", "order", "memory_bytes", "waste_bytes", "waste_pct",
	"aliases", "flags", NULL };
static const char *const cgroups_fields[] = {
	"id", "state", "anon_pages", "file_pages", "shmem_pages", "slab_bytes", "path", NULL };
static const char *const cgroup_slabs_fields[] = {
	"id", "cache", "objects", "bytes", "path", NULL };
static const char *const no_fields[] = { NULL };
static const char *const zones_fields[] = { "node", "zone", NULL };
static const char *const buddy_fields[] = { "node", "zone", "migratetype", NULL };
static const char *const frag_fields[] = { "node", "zone", "order", NULL };
static const char *const latency_fields[] = { "kind", "events", "sum_ns", "unpaired", "buckets",
					      NULL };

static const char *const page_alloc_fields[] = { "order", "fast", "slow", "failed", NULL };
static const char *const stallers_fields[] = { "pid", "cgroup_id", "events", "stall_ns", "comm",
					       NULL };

static const char *const allocs_fields[] = {
	"live_objs", "live_bytes", "live_bytes_alloc", "allocs", "frees", "rate", "site", NULL };

static const char *const files_fields[] = {
	"dev", "ino", "pages", "dirty", "writeback", "cgroup", "path", NULL };

static const char *const outstanding_fields[] = {
	"objs", "bytes", "oldest_s", "addrs", "site", NULL };

static const struct file_view {
	const char *file;	/* NULL: any other file */
	const char *const *fields;
	int (*check)(const struct mi_table *t);
	void (*json)(struct json *j, const struct mi_table *t);
} views[] = {
	{ "summary", summary_fields, check_summary, json_summary },
	{ "capabilities", capabilities_fields, check_capabilities, json_records },
	{ "slabs", slabs_fields, check_slabs, json_records },
	{ "files", files_fields, check_files, json_records },
	{ "cgroups", cgroups_fields, check_cgroups, json_records },
	{ "cgroup_slabs", cgroup_slabs_fields, check_cgroup_slabs, json_records },
	{ "zones", zones_fields, check_zone_table, json_zone_table },
	{ "buddy", buddy_fields, check_zone_table, json_zone_table },
	{ "fragmentation", frag_fields, check_zone_table, json_zone_table },
	{ "fragmentation_types", frag_fields, check_zone_table, json_zone_table },
	/* buckets as an array of counts */
	{ "latency/histograms", latency_fields, check_latency, json_zone_table },
	{ "latency/page_alloc", page_alloc_fields, check_page_alloc, json_records },
	{ "latency/stallers", stallers_fields, check_stallers, json_records },
	/* the "# allocs:" note's pairs, then the sites (cmd_allocs.c) */
	{ "allocs/table", allocs_fields, check_allocs, json_allocs },
	{ "allocs/outstanding", outstanding_fields, check_allocs_outstanding, json_allocs },
	{ NULL, no_fields, NULL, json_records },
};

static const struct file_view *view_of(const char *file)
{
	const struct file_view *v = views;

	while (v->file && strcmp(v->file, file))
		v++;
	return v;
}

int view_load(const struct mi_cli *c, const char *file, struct mi_table **t)
{
	const struct file_view *v = view_of(file);
	struct mi_error e;
	int st = mi_load(&c->acc, file, t);

	if (st)
		return st;
	if (!mi_require_fields(*t, &e, v->fields)) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		st = ST_FORMAT;
	} else if (v->check) {
		st = v->check(*t);
	}
	if (st) {
		mi_table_free(*t);
		*t = NULL;
	}
	return st;
}

void view_json_shape(struct json *j, const struct mi_table *t, const char *file)
{
	view_of(file)->json(j, t);
}

void view_json(struct json *j, const struct mi_table *t, const char *file)
{
	view_json_shape(j, t, file);
	view_notes_to_stderr(t, file);
}

int view_print(const struct mi_cli *c, const struct mi_table *t)
{
	if (out_table(stdout, t, &c->out)) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	return ST_OK;
}

int view_show(const struct mi_cli *c, const struct mi_table *t, const char *file)
{
	struct json j;

	if (!c->json)
		return view_print(c, t);
	json_init(&j, stdout);
	view_json(&j, t, file);
	json_finish(&j);
	return ST_OK;
}

int view_show_file(const struct mi_cli *c, const char *file)
{
	struct mi_table *t;
	int st = view_load(c, file, &t);

	if (st)
		return st;
	st = view_show(c, t, file);
	mi_table_free(t);
	return st;
}
