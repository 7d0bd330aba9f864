// SPDX-License-Identifier: GPL-2.0
/* meminspect: read the meminspect module's debugfs tables. Commands are data. */
#include "export.h"
#include "fault.h"
#include "output.h"
#include "parse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define MI_VERSION "0.1.0"

/* Exit statuses: documented in usage() and meminspect.8; keep all three in step. */
enum {
	ST_OK = 0,
	ST_FORMAT = 1,		/* unparsable file, I/O or internal error */
	ST_USAGE = 2,
	ST_NO_DEBUGFS = 3,
	ST_NO_MODULE = 4,
	ST_PERM = 5,
};

struct ctx {
	const char *dir;	/* where the module's files are */
	const char *sysfs;	/* "/sys"; $MEMINSPECT_SYSFS lets tests fake it */
	char debugfs[256];	/* sysfs + "/kernel/debug" */
	char default_dir[300];
	bool json;
	struct out_opts out;
	unsigned int watch;	/* --watch SECONDS; 0: once */
	unsigned long count;	/* --count N: stop after N rounds; 0: until a signal */
	struct mi_table *prev;	/* zones, buddy, frag under --watch: the previous round */
	bool prometheus;	/* export --prometheus */
	const char *textfile_dir;
	bool per_pid;
	bool types;		/* frag --types: fragmentation_types, a free-list walk */
	/* slab only */
	const struct slab_key *sort;	/* slab --sort; NULL: by size */
	const char *sort_arg;	/* --sort KEY as given */
	const char *psort;	/* vmas, top: --sort KEY */
	const char *pid;	/* mm, vmas: the optional PID argument */
	unsigned long top;	/* --top N: the first N rows; 0: all */
	bool aliases;		/* --aliases: alias_names from /sys/kernel/slab */
	struct mi_table *slabs_prev;	/* slab --watch: the last round's, for growth */
};

/* Which options beyond the common ones a command takes. */
enum {
	CMD_WATCH = 1,		/* its figures change: --watch, --count */
	CMD_EXPORT = 2,		/* --prometheus, --textfile-dir, --per-pid */
	CMD_SLAB = 4,		/* --sort, --top, --aliases */
	CMD_PID = 8,		/* one optional PID argument */
	CMD_SORT = 16,		/* --sort rss|pss|uss|swap */
	CMD_TYPES = 32,		/* --types (frag) */
	CMD_OWN_ARGS = 64,	/* parses the rest of the line itself (fault) */
};

struct command {
	const char *name;
	int (*run)(struct ctx *c);
	unsigned int flags;
	const char *brief;	/* one line for the global help */
	const char *help;	/* the rest of "COMMAND --help" */
};

/* ---- diagnostics: name the real reason a file cannot be opened ---- */

/* The loaded module's version into buf ("" when unknown); false if none. */
static bool module_version(const struct ctx *c, char *buf, size_t len)
{
	char path[300];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/module/meminspect/version", c->sysfs);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return buf[0] != '\0';
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static bool module_loaded(const struct ctx *c)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/module/meminspect", c->sysfs);
	return exists(path);
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static int no_permission(const struct ctx *c, const char *what)
{
	if (geteuid() != 0) {
		fprintf(stderr, "meminspect: %s: not root; run meminspect as root (e.g. sudo meminspect ...)%s\n",
			what, module_loaded(c) ? "" :
			"\nmeminspect: note: the meminspect module does not seem to be loaded either");
	} else {
		fprintf(stderr, "meminspect: %s even as root (kernel lockdown? see dmesg)\n", what);
	}
	return ST_PERM;
}

/*
 * c->dir is missing. Checked in the order a user must fix things: debugfs
 * mounted, then module loaded. A non-root user never gets here for the
 * default dir: debugfs is 0700, so the open fails with EACCES instead.
 */
static int dir_missing(const struct ctx *c)
{
	struct statfs fs;
	bool in_debugfs = under(c->dir, c->debugfs);

	if (in_debugfs && (statfs(c->debugfs, &fs) != 0 || fs.f_type != DEBUGFS_MAGIC)) {
		fprintf(stderr, "meminspect: debugfs is not mounted on %s; mount it: mount -t debugfs none %s%s\n",
			c->debugfs, c->debugfs,
			geteuid() ? "\nmeminspect: note: reading debugfs also needs root" : "");
		return ST_NO_DEBUGFS;
	}
	if (!module_loaded(c)) {
		fprintf(stderr, "meminspect: %s does not exist: the meminspect module is not loaded; load it: insmod meminspect.ko (or modprobe meminspect)\n",
			c->dir);
		return ST_NO_MODULE;
	}
	if (in_debugfs) {
		fprintf(stderr, "meminspect: %s does not exist although the meminspect module is loaded (see dmesg)\n",
			c->dir);
		return ST_FORMAT;
	}
	fprintf(stderr, "meminspect: %s does not exist (check --dir and MEMINSPECT_DIR)\n", c->dir);
	return ST_USAGE;
}

static int open_failed(const struct ctx *c, const struct mi_error *e)
{
	struct stat st;

	switch (e->sys_errno) {
	case EACCES:
	case EPERM:
		return no_permission(c, e->msg);
	case ENOENT:
	case ENOTDIR:
		if (stat(c->dir, &st) != 0)
			return errno == EACCES ? no_permission(c, c->dir) : dir_missing(c);
		if (!S_ISDIR(st.st_mode)) {
			fprintf(stderr, "meminspect: %s is not a directory (check --dir)\n", c->dir);
			return ST_USAGE;
		}
		fprintf(stderr, "meminspect: %s (the module did not create it?)\n", e->msg);
		return ST_FORMAT;
	default:	/* a format error (0), EIO, ENOMEM, ... */
		fprintf(stderr, "meminspect: %s\n", e->msg);
		return ST_FORMAT;
	}
}

static int load(const struct ctx *c, const char *file, struct mi_table **t)
{
	struct mi_error e;
	size_t len = strlen(c->dir) + strlen(file) + 2;
	char *path = malloc(len);

	if (!path) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	snprintf(path, len, "%s/%s", c->dir, file);
	*t = mi_table_read(path, &e);
	free(path);
	return *t ? ST_OK : open_failed(c, &e);
}

static int format_error(const struct mi_table *t, size_t rec, const char *what, const char *v)
{
	fprintf(stderr, "meminspect: %s:%u: %s '%.60s'\n", mi_table_name(t),
		mi_record_line(t, rec), what, v);
	return ST_FORMAT;
}

/* ---- per-file checks and JSON shapes ---- */

static int check_summary(const struct mi_table *t)
{
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *field = mi_get(t, r, "field"), *v = mi_get(t, r, "value");

		if (!mi_valid_name(field))
			return format_error(t, r, "bad field name", field);
		/* it becomes a JSON key: a duplicate would be silently lost */
		if ((size_t)mi_find(t, "field", field) != r)
			return format_error(t, r, "duplicate field", field);
		if (!mi_is_none(v) && !mi_is_integer(v))
			return format_error(t, r, "value is not an integer", v);
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

static bool is_file_row(const struct mi_table *t, size_t r)
{
	return !strcmp(mi_get(t, r, "kind"), "file");
}

static int check_capabilities(const struct mi_table *t)
{
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *avail = mi_get(t, r, "available"), *name = mi_get(t, r, "name");

		if (strcmp(avail, "yes") && strcmp(avail, "no"))
			return format_error(t, r, "available is not yes or no", avail);
		if (!is_file_row(t, r))
			continue;
		if (!safe_file_name(name))
			return format_error(t, r, "unsafe file name", name);
		/* report keys its JSON by file name */
		for (size_t k = 0; k < r; k++)
			if (is_file_row(t, k) && !strcmp(mi_get(t, k, "name"), name))
				return format_error(t, r, "duplicate file", name);
	}
	return ST_OK;
}

/* {"mem_total": {"value": 2014232, "unit": "kB"}, ...} */
static void json_summary(struct json *j, const struct mi_table *t)
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

/* "1,2,3": a list value (zones' lowmem_reserve) */
static bool is_int_list(const char *v)
{
	char buf[32];
	const char *p = v, *comma;

	if (!strchr(v, ','))
		return false;
	for (;;) {
		size_t n;

		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		if (n == 0 || n >= sizeof(buf))
			return false;
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (!mi_is_integer(buf))
			return false;
		if (!comma)
			return true;
		p = comma + 1;
	}
}

/*
 * zones, buddy, fragmentation: the key columns (node, zone[, migratetype
 * or order]) come first; every other value is an integer, '-', or a list.
 */
static int check_mm(const struct mi_table *t)
{
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		for (size_t col = 2; col < mi_nfields(t); col++) {
			const char *name = mi_field_name(t, col), *v = mi_value(t, r, col);

			if (!strcmp(name, "migratetype"))
				continue;
			if (!mi_is_none(v) && !mi_is_integer(v) && !is_int_list(v))
				return format_error(t, r, "value is not an integer", v);
		}
	}
	return ST_OK;
}

/* A value for JSON: a list becomes an array of numbers. */
static void json_mm_value(struct json *j, const char *v)
{
	char buf[32];
	const char *p = v, *comma;

	if (!is_int_list(v)) {
		json_value(j, v);
		return;
	}
	json_begin_array(j);
	for (;;) {
		size_t n;

		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		memcpy(buf, p, n);	/* is_int_list() bounded n */
		buf[n] = '\0';
		json_value(j, buf);
		if (!comma)
			break;
		p = comma + 1;
	}
	json_end_array(j);
}

/* Key columns of a record: the fields that are not counts. */
static size_t mm_nkeys(const struct mi_table *t)
{
	size_t k = 0;

	while (k < mi_nfields(t) && k < 3) {
		const char *name = mi_field_name(t, k);

		if (strcmp(name, "node") && strcmp(name, "zone") &&
		    strcmp(name, "migratetype") && strcmp(name, "order"))
			break;
		k++;
	}
	return k;
}

/* The record of prev with the same key columns as rec of t; -1 if none. */
static long mm_match(const struct mi_table *t, size_t rec, const struct mi_table *prev)
{
	size_t nk = mm_nkeys(t);

	if (!prev)
		return -1;
	for (size_t r = 0; r < mi_nrecords(prev); r++) {
		size_t k;

		for (k = 0; k < nk; k++) {
			const char *a = mi_value(t, rec, k), *b = mi_get(prev, r, mi_field_name(t, k));

			if (!b || strcmp(a, b))
				break;
		}
		if (k == nk)
			return (long)r;
	}
	return -1;
}

/* cur - old for two integer cells; false when either is not an integer. */
static bool mm_delta(const char *cur, const char *old, long long *d)
{
	long long a, b;

	if (!old || mi_parse_s64(cur, &a) || mi_parse_s64(old, &b))
		return false;
	*d = a - b;
	return true;
}

/*
 * [{"node": 0, "zone": "DMA32", ..., "lowmem_reserve": [0, 933, ...]}, ...];
 * with a previous sample (--watch), each record also has "change": the
 * difference of every integer field since then.
 */
static void json_mm_rows(struct json *j, const struct mi_table *t, const struct mi_table *prev)
{
	json_begin_array(j);
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		long m = mm_match(t, r, prev);

		json_begin_object(j);
		for (size_t c = 0; c < mi_nfields(t); c++) {
			json_key(j, mi_field_name(t, c));
			json_mm_value(j, mi_value(t, r, c));
		}
		if (m >= 0) {
			json_key(j, "change");
			json_begin_object(j);
			for (size_t c = mm_nkeys(t); c < mi_nfields(t); c++) {
				const char *name = mi_field_name(t, c);
				long long d;

				if (!mm_delta(mi_value(t, r, c), mi_get(prev, (size_t)m, name), &d))
					continue;
				char num[24];

				snprintf(num, sizeof(num), "%lld", d);
				json_key(j, name);
				json_value(j, num);
			}
			json_end_object(j);
		}
		json_end_object(j);
	}
	json_end_array(j);
}

static void json_mm(struct json *j, const struct mi_table *t)
{
	json_mm_rows(j, t, NULL);
}

static const char *const summary_fields[] = { "field", "value", "unit", NULL };
static const char *const capabilities_fields[] = { "name", "kind", "available", "detail", NULL };
static const char *const slabs_fields[] = {
	"name", "object_size", "slab_size", "active_objs", "total_objs",
	"objs_per_slab", "order", "memory_bytes", "waste_bytes", "waste_pct",
	"aliases", "flags", NULL };
static const char *const no_fields[] = { NULL };
static const char *const zones_fields[] = { "node", "zone", NULL };
static const char *const buddy_fields[] = { "node", "zone", "migratetype", NULL };
static const char *const frag_fields[] = { "node", "zone", "order", NULL };

static int check_slabs(const struct mi_table *t)
{
	for (size_t r = 0; r < mi_nrecords(t); r++)
		for (size_t col = 1; col + 1 < mi_nfields(t); col++) {
			const char *v = mi_value(t, r, col);

			if (!mi_is_none(v) && !mi_is_integer(v))
				return format_error(t, r, "value is not an integer", v);
		}
	return ST_OK;
}

static const struct file_view {
	const char *file;	/* NULL: any other file */
	const char *const *fields;
	int (*check)(const struct mi_table *t);
	void (*json)(struct json *j, const struct mi_table *t);
} views[] = {
	{ "summary", summary_fields, check_summary, json_summary },
	{ "capabilities", capabilities_fields, check_capabilities, json_records },
	{ "slabs", slabs_fields, check_slabs, json_records },
	{ "zones", zones_fields, check_mm, json_mm },
	{ "buddy", buddy_fields, check_mm, json_mm },
	{ "fragmentation", frag_fields, check_mm, json_mm },
	{ "fragmentation_types", frag_fields, check_mm, json_mm },
	{ NULL, no_fields, NULL, json_records },
};

static const struct file_view *view_of(const char *file)
{
	const struct file_view *v = views;

	while (v->file && strcmp(v->file, file))
		v++;
	return v;
}

/* Load, validate and check one file; *t is NULL unless ST_OK. */
static int load_checked(const struct ctx *c, const char *file, struct mi_table **t)
{
	const struct file_view *v = view_of(file);
	struct mi_error e;
	int st = load(c, file, t);

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

/* JSON has no place for notes: they go to stderr rather than being lost. */
static void print_json(struct json *j, const struct mi_table *t, const char *file)
{
	view_of(file)->json(j, t);
	for (size_t i = 0; i < mi_nnotes(t); i++)
		fprintf(stderr, "meminspect: %s: note: %s\n", file, mi_note(t, i));
}

static int print_table(const struct ctx *c, const struct mi_table *t)
{
	if (out_table(stdout, t, &c->out)) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	return ST_OK;
}

/* ---- commands ---- */

static int show_one(const struct ctx *c, const char *file)
{
	struct mi_table *t;
	struct json j;
	int st = load_checked(c, file, &t);

	if (st)
		return st;
	if (c->json) {
		json_init(&j, stdout);
		print_json(&j, t, file);
		json_finish(&j);
	} else {
		st = print_table(c, t);
	}
	mi_table_free(t);
	return st;
}

/*
 * The table of t with every integer cell that moved since prev shown as
 * "N(+D)", as text in the line format, parsed again so that out_table()
 * aligns it.  NULL on OOM.
 */
static struct mi_table *mm_change_table(const struct mi_table *t, const struct mi_table *prev)
{
	struct mi_error e;
	struct mi_table *out;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (size_t c = 0; c < mi_nfields(t); c++)
		fprintf(f, "%s%s", c ? " " : "", mi_field_name(t, c));
	fputc('\n', f);
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		long m = mm_match(t, r, prev);

		for (size_t c = 0; c < mi_nfields(t); c++) {
			const char *v = mi_value(t, r, c);
			long long d;

			fprintf(f, "%s%s", c ? " " : "", v);
			if (m >= 0 && c >= mm_nkeys(t) &&
			    mm_delta(v, mi_get(prev, (size_t)m, mi_field_name(t, c)), &d) && d)
				fprintf(f, "(%+lld)", d);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < mi_nnotes(t); i++)
		fprintf(f, "# %s\n", mi_note(t, i));
	fputs("# (+D): change since the previous round\n", f);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	out = mi_table_parse(text, len, mi_table_name(t), &e);
	free(text);
	return out;
}

/*
 * zones, buddy, fragmentation: the file, and under --watch (run_command()
 * repeats it) each number that moved since the previous round: N(+D) in
 * tables, a "change" object per record in JSON.
 */
static int show_mm(struct ctx *c, const char *file)
{
	struct mi_table *t, *shown;
	struct json j;
	int st;

	if (!c->watch)
		return show_one(c, file);
	st = load_checked(c, file, &t);
	if (st)
		return st;	/* the previous round stays the reference */
	if (c->json) {
		json_init(&j, stdout);
		json_mm_rows(&j, t, c->prev);
		for (size_t i = 0; i < mi_nnotes(t); i++)
			fprintf(stderr, "meminspect: %s: note: %s\n", file, mi_note(t, i));
		json_finish(&j);
	} else {
		shown = c->prev ? mm_change_table(t, c->prev) : NULL;
		st = print_table(c, shown ? shown : t);
		mi_table_free(shown);
	}
	mi_table_free(c->prev);
	c->prev = t;
	return st;
}

static int cmd_zones(struct ctx *c)
{
	return show_mm(c, "zones");
}

static int cmd_buddy(struct ctx *c)
{
	return show_mm(c, "buddy");
}

/*
 * The indexes come from nr_free (cheap, like debugfs extfrag/); the split
 * by migratetype only from a walk of every free list, so only --types
 * reads that file (docs/fragmentation.md).
 */
static int cmd_frag(struct ctx *c)
{
	return show_mm(c, c->types ? "fragmentation_types" : "fragmentation");
}

static int cmd_summary(struct ctx *c)
{
	return show_one(c, "summary");
}

static int cmd_capabilities(struct ctx *c)
{
	return show_one(c, "capabilities");
}

/*
 * capabilities rows that name a directory of tables (docs/fault.md): the
 * tables in it that report shows and export exports, under the row's name.
 * The module lists a directory with kind "mechanism", not "file" (every
 * file row is one table, and test_capabilities.sh holds it to that).
 */
static const struct dir_row {
	const char *name;
	const char *report[4];	/* NULL-terminated */
	const char *export[2];
} dir_rows[] = {
	{ "fault", { "fault/settings", "fault/stats", "fault/log" }, { "fault/stats" } },
};

/* The tables behind a file row: the file itself, or a directory's tables. */
static const char *const *row_files(const char *name, bool export, const char *one[2])
{
	for (size_t i = 0; i < sizeof(dir_rows) / sizeof(dir_rows[0]); i++)
		if (!strcmp(dir_rows[i].name, name))
			return export ? dir_rows[i].export : dir_rows[i].report;
	one[0] = name;
	one[1] = NULL;
	return one;
}

/* A row report and export read: a file, or a directory's mechanism row. */
static bool is_table_row(const struct mi_table *caps, size_t r)
{
	if (is_file_row(caps, r))
		return true;
	if (strcmp(mi_get(caps, r, "kind"), "mechanism"))
		return false;
	for (size_t i = 0; i < sizeof(dir_rows) / sizeof(dir_rows[0]); i++)
		if (!strcmp(dir_rows[i].name, mi_get(caps, r, "name")))
			return true;
	return false;
}

/* Every table row of capabilities; a broken file is reported and skipped. */
static int cmd_report(struct ctx *c)
{
	struct mi_table *caps, *t;
	struct json j;
	int st = load_checked(c, "capabilities", &caps), worst = ST_OK;

	if (st)
		return st;
	json_init(&j, stdout);
	if (c->json)
		json_begin_object(&j);
	for (size_t r = 0; r < mi_nrecords(caps); r++) {
		const char *name = mi_get(caps, r, "name"), *one[2];
		const char *const *files = row_files(name, false, one);
		bool dir = files != one;

		if (!is_table_row(caps, r))
			continue;
		if (strcmp(mi_get(caps, r, "available"), "yes")) {
			if (!c->json)
				printf("== %s == (not available: %s)\n\n", name, mi_get(caps, r, "detail"));
			continue;
		}
		/* a directory: {"fault": {"settings": [...], "stats": [...], ...}} */
		if (c->json && dir) {
			json_key(&j, name);
			json_begin_object(&j);
		}
		for (const char *const *fp = files; *fp; fp++) {
			const char *file = *fp;

			st = load_checked(c, file, &t);
			if (st) {
				worst = worst ? worst : st;
				continue;
			}
			if (c->json) {
				json_key(&j, dir ? strrchr(file, '/') + 1 : file);
				print_json(&j, t, file);
			} else {
				printf("== %s ==\n", file);
				st = print_table(c, t);
				worst = worst ? worst : st;
				putchar('\n');
			}
			mi_table_free(t);
		}
		if (c->json && dir)
			json_end_object(&j);
	}
	if (c->json) {
		json_end_object(&j);
		json_finish(&j);
	}
	mi_table_free(caps);
	return worst;
}

/* ---- slab: a slabtop with waste and growth ---- */

/* numeric value of field f in record r; -1 for "-" */
static long long num(const struct mi_table *t, size_t r, const char *f)
{
	long long v;

	return mi_parse_s64(mi_get(t, r, f), &v) ? -1 : v;
}

struct slab_sort {
	const struct mi_table *t;
	const char *key;	/* a field of t, sorted descending */
};

static struct slab_sort sort_by;

static int slab_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	long long vx, vy;

	if (!sort_by.key)
		return strcmp(mi_get(sort_by.t, x, "name"), mi_get(sort_by.t, y, "name"));
	vx = num(sort_by.t, x, sort_by.key);
	vy = num(sort_by.t, y, sort_by.key);
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return strcmp(mi_get(sort_by.t, x, "name"), mi_get(sort_by.t, y, "name"));
}

/* --sort KEY: the field sorted by, largest first; NULL: by name */
static const struct slab_key {
	const char *name, *field;
} slab_keys[] = {
	{ "name", NULL }, { "size", "memory_bytes" }, { "waste", "waste_bytes" },
	{ "objs", "active_objs" }, { "growth", "growth_bytes" },
};

static const struct slab_key *slab_key(const char *name)
{
	for (size_t i = 0; i < sizeof(slab_keys) / sizeof(slab_keys[0]); i++)
		if (!strcmp(name, slab_keys[i].name))
			return &slab_keys[i];
	return NULL;
}

static bool sorts_by_growth(const struct ctx *c)
{
	return c->sort && c->sort->field && !strcmp(c->sort->field, "growth_bytes");
}

/*
 * Alias names live only in sysfs: SLUB links every mergeable cache's name,
 * and every name merged into it, to one directory (":0000096") under
 * /sys/kernel/slab; unmergeable caches are directories of their own name.
 */
struct slab_links {
	size_t n;
	char (*name)[256];
	char (*target)[256];
};

static void links_free(struct slab_links *l)
{
	free(l->name);
	free(l->target);
	l->name = NULL;
	l->target = NULL;
	l->n = 0;
}

/* false: no /sys/kernel/slab (alias_names are then "-") */
static bool links_load(const struct ctx *c, struct slab_links *l)
{
	char dir[300], path[600], buf[256];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/kernel/slab", c->sysfs);
	d = opendir(dir);
	if (!d)
		return false;
	while ((de = readdir(d))) {
		ssize_t len;
		char *base;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(buf))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		len = readlink(path, buf, sizeof(buf) - 1);
		if (len < 0)
			continue;	/* a directory: an unmergeable cache */
		buf[len] = '\0';
		base = strrchr(buf, '/');
		base = base ? base + 1 : buf;
		if (l->n == cap) {
			void *a, *b;

			cap = cap ? 2 * cap : 256;
			a = realloc(l->name, cap * sizeof(*l->name));
			if (a)
				l->name = a;
			b = realloc(l->target, cap * sizeof(*l->target));
			if (b)
				l->target = b;
			if (!a || !b)
				break;
		}
		snprintf(l->name[l->n], sizeof(l->name[0]), "%s", de->d_name);
		snprintf(l->target[l->n], sizeof(l->target[0]), "%s", base);
		l->n++;
	}
	closedir(d);
	return true;
}

/* The names linked to the same directory as cache, comma-separated, or "none". */
static void alias_names(FILE *f, const struct slab_links *l, const char *cache)
{
	const char *t = NULL;
	bool any = false;

	for (size_t i = 0; i < l->n && !t; i++)
		if (!strcmp(l->name[i], cache))
			t = l->target[i];
	for (size_t i = 0; t && i < l->n; i++) {
		if (strcmp(l->target[i], t) || !strcmp(l->name[i], cache))
			continue;
		fprintf(f, "%s%s", any ? "," : "", l->name[i]);
		any = true;
	}
	fputs(any ? " " : "none ", f);
}

/*
 * The sorted, cut view as text in the module's own format, so that the one
 * parser and the one table formatter handle it: the file's fields, with
 * growth_bytes and growth_objs (since the previous sample) before flags in
 * watch mode.
 */
static int slab_view(const struct ctx *c, const struct mi_table *t, const struct mi_table *prev,
		     const char *key, struct mi_table **view)
{
	size_t n = mi_nrecords(t), nf = mi_nfields(t), *idx, len = 0, cap = 4096;
	char *text = malloc(cap);
	struct slab_links links = { 0 };
	struct mi_table *g = NULL;
	bool have_links = false;
	struct mi_error e;
	FILE *f;

	idx = calloc(n ? n : 1, sizeof(*idx));
	if (!text || !idx)
		goto nomem;
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	if (!f)
		goto nomem;
	/* with growth first, as a table of its own, so that it can be a sort key */
	for (size_t col = 0; col + 1 < nf; col++)
		fprintf(f, "%s ", mi_field_name(t, col));
	if (prev)
		fprintf(f, "growth_bytes growth_objs ");
	if (c->aliases)
		fprintf(f, "alias_names ");
	fprintf(f, "%s\n", mi_field_name(t, nf - 1));
	if (c->aliases)
		have_links = links_load(c, &links);
	for (size_t r = 0; r < n; r++) {
		for (size_t col = 0; col + 1 < nf; col++)
			fprintf(f, "%s ", mi_value(t, r, col));
		if (prev) {
			long p = mi_find(prev, "name", mi_get(t, r, "name"));
			long long m = num(t, r, "memory_bytes"), o = num(t, r, "active_objs");

			if (p < 0)	/* a new cache grew from nothing */
				fprintf(f, "%lld %lld ", m, o);
			else if (m < 0 || o < 0 || num(prev, p, "memory_bytes") < 0)
				fprintf(f, "- - ");
			else
				fprintf(f, "%lld %lld ", m - num(prev, p, "memory_bytes"),
					o - num(prev, p, "active_objs"));
		}
		if (c->aliases && have_links)
			alias_names(f, &links, mi_get(t, r, "name"));
		else if (c->aliases)
			fputs("- ", f);
		fprintf(f, "%s\n", mi_value(t, r, nf - 1));
	}
	links_free(&links);
	if (fclose(f))
		goto nomem;
	g = mi_table_parse(text, len, "slabs", &e);
	free(text);
	text = NULL;
	if (!g) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		free(idx);
		return ST_FORMAT;
	}
	for (size_t r = 0; r < n; r++)
		idx[r] = r;
	sort_by.t = g;
	sort_by.key = key;
	qsort(idx, n, sizeof(*idx), slab_cmp);
	if (c->top && c->top < n)
		n = c->top;

	f = open_memstream(&text, &len);
	if (!f)
		goto nomem;
	for (size_t col = 0; col < mi_nfields(g); col++)
		fprintf(f, "%s%s", col ? " " : "", mi_field_name(g, col));
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		for (size_t col = 0; col < mi_nfields(g); col++)
			fprintf(f, "%s%s", col ? " " : "", mi_value(g, idx[i], col));
		fputc('\n', f);
	}
	for (size_t i = 0; i < mi_nnotes(t); i++)
		fprintf(f, "# %s\n", mi_note(t, i));
	mi_table_free(g);
	free(idx);
	if (fclose(f)) {
		free(text);
		return ST_FORMAT;
	}
	*view = mi_table_parse(text, len, "slabs", &e);
	free(text);
	if (!*view) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	return ST_OK;
nomem:
	links_free(&links);
	free(text);
	free(idx);
	fprintf(stderr, "meminspect: out of memory\n");
	return ST_FORMAT;
}

/*
 * One round. Under --watch, run_command() calls it every c->watch seconds
 * and the round's table stays in c->slabs_prev for the next one's growth.
 */
static int cmd_slab(struct ctx *c)
{
	const char *key = c->sort ? c->sort->field : "memory_bytes";
	struct mi_table *t, *v;
	struct json j;
	int st = load_checked(c, "slabs", &t);

	if (st)
		return st;
	/* the first round has no growth yet: it is sorted by size */
	if (sorts_by_growth(c) && !c->slabs_prev)
		key = "memory_bytes";
	st = slab_view(c, t, c->slabs_prev, key, &v);
	if (st) {
		mi_table_free(t);
		return st;
	}
	if (c->json) {
		json_init(&j, stdout);
		print_json(&j, v, "slabs");
		json_finish(&j);
	} else {
		st = print_table(c, v);
		if (c->watch && !c->slabs_prev)
			printf("# growth columns from the next round on\n");
	}
	mi_table_free(v);
	if (c->watch) {
		mi_table_free(c->slabs_prev);
		c->slabs_prev = t;
	} else {
		mi_table_free(t);
	}
	return st;
}

/* ---- export ---- */

static int export_to(struct ctx *c, FILE *f)
{
	struct prom_out o = { .f = f, .per_pid = c->per_pid };
	const char *info[] = { "reader_version", MI_VERSION, "module_version", "unknown", NULL };
	struct mi_table *caps = NULL, *t;
	char mod[64];
	const char **files = NULL, **ok = NULL;
	size_t nfiles = 0;
	struct json j;
	int st = load_checked(c, "capabilities", &caps), worst = st;

	if (c->json) {
		json_init(&j, f);
		json_begin_array(&j);
		o.j = &j;
	}
	if (module_version(c, mod, sizeof(mod)))
		info[3] = mod;
	prom_family(&o, "meminspect_up", "gauge",
		    "1 if the module's files could be read, 0 if not (see the reader's stderr)");
	prom_sample(&o, "meminspect_up", NULL, st ? "0" : "1");
	prom_family(&o, "meminspect_info", "gauge", "versions of the reader and the loaded module");
	prom_sample(&o, "meminspect_info", info, "1");
	if (st)
		goto out;
	files = calloc(mi_nrecords(caps) + 1, sizeof(*files));
	ok = calloc(mi_nrecords(caps) + 1, sizeof(*ok));
	if (!files || !ok) {
		fprintf(stderr, "meminspect: out of memory\n");
		worst = ST_FORMAT;
		goto out;
	}
	for (size_t r = 0; r < mi_nrecords(caps); r++) {
		const char *name = mi_get(caps, r, "name"), *one[2];
		int err;

		if (!is_table_row(caps, r) || strcmp(mi_get(caps, r, "available"), "yes"))
			continue;
		files[nfiles] = name;
		ok[nfiles] = "1";
		/* a directory row is ok when all its exported tables are */
		for (const char *const *fp = row_files(name, true, one); *fp; fp++) {
			const char *file = *fp;

			t = caps;
			if (strcmp(file, "capabilities")) {
				st = load_checked(c, file, &t);
				if (st) {
					worst = worst ? worst : st;
					ok[nfiles] = "0";
					continue;
				}
			}
			err = prom_export_table(&o, file, t);
			if (err) {
				if (err == -ENOMEM)
					fprintf(stderr, "meminspect: out of memory\n");
				worst = worst ? worst : ST_FORMAT;
				ok[nfiles] = "0";
			}
			if (t != caps)
				mi_table_free(t);
		}
		nfiles++;
	}
	prom_family(&o, "meminspect_file_ok", "gauge",
		    "1 if the file (available on this kernel) was read and exported");
	for (size_t i = 0; i < nfiles; i++) {
		const char *lab[] = { "file", files[i], NULL };

		prom_sample(&o, "meminspect_file_ok", lab, ok[i]);
	}
out:
	if (c->json) {
		json_end_array(&j);
		json_finish(&j);
	}
	prom_out_release(&o);
	free(files);
	free(ok);
	mi_table_free(caps);
	return worst;
}

/*
 * node_exporter's textfile collector reads every DIR/NAME.prom whenever it is
 * scraped: write a hidden temporary file in DIR and rename it over
 * meminspect.prom, so a scrape sees the old file or the new one, never half
 * of one. The file is written even when the module cannot be read:
 * meminspect_up 0 says so, where a stale file would say nothing.
 */
static int export_textfile(struct ctx *c)
{
	size_t len = strlen(c->textfile_dir) + 32;
	char *tmp = malloc(len), *dst = malloc(len);
	int fd = -1, st = ST_FORMAT, werr = 0;
	FILE *f;

	if (!tmp || !dst) {
		fprintf(stderr, "meminspect: out of memory\n");
		goto out;
	}
	snprintf(dst, len, "%s/meminspect.prom", c->textfile_dir);
	snprintf(tmp, len, "%s/.meminspect.prom.XXXXXX", c->textfile_dir);
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "meminspect: --textfile-dir %s: cannot create a file there: %s\n",
			c->textfile_dir, strerror(errno));
		st = errno == EACCES || errno == EPERM || errno == EROFS ? ST_PERM : ST_USAGE;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f || fchmod(fd, 0644)) {
		werr = errno;
		if (f)
			fclose(f);
		else
			close(fd);
	} else {
		st = export_to(c, f);
		if (fflush(f) || ferror(f) || fsync(fd))
			werr = errno ? errno : EIO;
		if (fclose(f) && !werr)
			werr = errno;
	}
	if (!werr && rename(tmp, dst))
		werr = errno;
	if (werr) {
		fprintf(stderr, "meminspect: writing %s: %s\n", dst, strerror(werr));
		unlink(tmp);
		st = ST_FORMAT;
	}
out:
	free(tmp);
	free(dst);
	return st;
}

static int cmd_export(struct ctx *c)
{
	if (c->textfile_dir)
		return export_textfile(c);
	return export_to(c, stdout);
}

__attribute__((format(printf, 1, 2)))
static int bad_usage(const char *fmt, ...);

/* ---- mm, vmas, top: one process's memory (the module's docs/procmem.md) ---- */

static bool is_pid(const char *s)
{
	if (!*s || strlen(s) > 10)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/*
 * Choose PID as the target of the open file fd (docs: write the pid, then
 * read).  Quiet: ST_OK, or the errno in *err and a non-zero status.
 */
static int choose_pid(int fd, const char *pid, int *err)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "%s\n", pid);

	if (write(fd, line, (size_t)n) == n)
		return ST_OK;
	*err = errno;
	return ST_FORMAT;
}

static int pid_error(const char *file, const char *pid, int err)
{
	switch (err) {
	case ESRCH:
		fprintf(stderr, "meminspect: %s: no process %s\n", file, pid);
		return ST_FORMAT;
	case EACCES:
	case EPERM:
		fprintf(stderr, "meminspect: %s: may not read process %s (needs ptrace read access, as /proc/%s/smaps)\n",
			file, pid, pid);
		return ST_PERM;
	case EINVAL:
	case ERANGE:
		fprintf(stderr, "meminspect: %s: bad pid '%s'\n", file, pid);
		return ST_USAGE;
	default:
		fprintf(stderr, "meminspect: %s: choosing pid %s: %s\n", file, pid, strerror(err));
		return ST_FORMAT;
	}
}

/* Read an already open module file from its start and parse it. */
static int read_table(int fd, const char *path, struct mi_table **t)
{
	struct mi_error e;

	if (lseek(fd, 0, SEEK_SET) < 0) {
		fprintf(stderr, "meminspect: %s: %s\n", path, strerror(errno));
		return ST_FORMAT;
	}
	*t = mi_table_read_fd(fd, path, &e);
	if (!*t) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	return ST_OK;
}

/* FILE (mm or vmas) for c->pid, or for the reader itself without one. */
static int load_process(const struct ctx *c, const char *file, struct mi_table **t)
{
	struct mi_error e;
	struct statfs fs;
	char path[4096];
	int fd, st, err;

	if (!c->pid)
		return load(c, file, t);
	snprintf(path, sizeof(path), "%s/%s", c->dir, file);
	/* a pid is written to the file: never to a copy of it */
	if (statfs(c->dir, &fs) == 0 && fs.f_type != DEBUGFS_MAGIC) {
		fprintf(stderr, "meminspect: %s is not the module's debugfs directory: a PID needs the live files\n",
			c->dir);
		return ST_USAGE;
	}
	fd = open(path, O_RDWR);
	if (fd < 0) {
		e.sys_errno = errno;
		snprintf(e.msg, sizeof(e.msg), "%.400s: %s", path, strerror(errno));
		return open_failed(c, &e);
	}
	st = choose_pid(fd, c->pid, &err);
	if (st)
		st = pid_error(file, c->pid, err);
	else
		st = read_table(fd, path, t);
	close(fd);
	return st;
}

/* The notes of a record-less answer (kernel thread, zombie) as an error. */
static int no_memory(const struct mi_table *t, const char *file)
{
	for (size_t i = 0; i < mi_nnotes(t); i++)
		fprintf(stderr, "meminspect: %s: %s\n", file, mi_note(t, i));
	return ST_FORMAT;
}

static void put_notes(FILE *f, const struct mi_table *t)
{
	for (size_t i = 0; i < mi_nnotes(t); i++)
		fprintf(f, "# %s\n", mi_note(t, i));
}

/* Parse text that this reader built (same format); frees text. */
static int parse_built(char *text, size_t len, const char *name, struct mi_table **t)
{
	struct mi_error e;

	*t = text ? mi_table_parse(text, len, name, &e) : NULL;
	free(text);
	if (!*t) {
		fprintf(stderr, "meminspect: %s\n", text ? e.msg : "out of memory");
		return ST_FORMAT;
	}
	return ST_OK;
}

static const char *const mm_fields[] = { "pid", "rss_kb", "pss_kb", "uss_kb", "swap_kb", "comm", NULL };
static const char *const vmas_fields[] = { "start", "end", "rss_kb", "pss_kb", "uss_kb", "swap_kb", "name", NULL };

static int require(const struct mi_table *t, const char *const *fields)
{
	struct mi_error e;

	if (mi_require_fields(t, &e, fields))
		return ST_OK;
	fprintf(stderr, "meminspect: %s\n", e.msg);
	return ST_FORMAT;
}

/* mm: the one record, shown as "field value" rows; JSON: one object. */
static int cmd_mm(struct ctx *c)
{
	struct mi_table *t, *v;
	size_t len;
	char *text = NULL;
	FILE *f;
	int st = load_process(c, "mm", &t);

	if (st)
		return st;
	st = require(t, mm_fields);
	if (!st && mi_nrecords(t) != 1)
		st = no_memory(t, "mm");
	if (st)
		goto out;
	if (c->json) {
		struct json j;

		json_init(&j, stdout);
		json_record(&j, t, 0);
		json_finish(&j);
		for (size_t i = 0; i < mi_nnotes(t); i++)
			fprintf(stderr, "meminspect: mm: note: %s\n", mi_note(t, i));
		goto out;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		st = ST_FORMAT;
		goto out;
	}
	fputs("field value\n", f);
	for (size_t i = 0; i < mi_nfields(t); i++)
		fprintf(f, "%s %s\n", mi_field_name(t, i), mi_value(t, 0, i));
	put_notes(f, t);
	fclose(f);
	st = parse_built(text, len, "mm", &v);
	if (!st) {
		st = print_table(c, v);
		mi_table_free(v);
	}
out:
	mi_table_free(t);
	return st;
}

static const char *sort_field(const char *key)
{
	static const char *const keys[][2] = {
		{ "rss", "rss_kb" }, { "pss", "pss_kb" }, { "uss", "uss_kb" }, { "swap", "swap_kb" },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i][0]))
			return keys[i][1];
	return NULL;
}

/* qsort has no context argument: the column being sorted on. */
static const struct mi_table *sort_table;
static int sort_col;

static long long num_of(const char *v)
{
	long long n;

	return mi_parse_s64(v, &n) ? -1 : n;
}

/* descending by the column, then by the original order */
static int by_column(const void *a, const void *b)
{
	size_t ra = *(const size_t *)a, rb = *(const size_t *)b;
	long long va = num_of(mi_value(sort_table, ra, (size_t)sort_col));
	long long vb = num_of(mi_value(sort_table, rb, (size_t)sort_col));

	if (va != vb)
		return va < vb ? 1 : -1;
	return ra < rb ? -1 : ra > rb;
}

/* t's records reordered by --sort (descending), as a new table. */
static int sorted(const struct ctx *c, const struct mi_table *t, const char *dflt, struct mi_table **out)
{
	const char *field = sort_field(c->psort ? c->psort : dflt);
	size_t n = mi_nrecords(t), len, *order;
	char *text = NULL;
	FILE *f;

	if (!field)
		return bad_usage("--sort takes rss, pss, uss or swap, not '%s'", c->psort);
	sort_col = mi_field_index(t, field);
	if (sort_col < 0) {
		fprintf(stderr, "meminspect: %s has no field %s\n", mi_table_name(t), field);
		return ST_FORMAT;
	}
	order = calloc(n ? n : 1, sizeof(*order));
	f = order ? open_memstream(&text, &len) : NULL;
	if (!f) {
		free(order);
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	for (size_t r = 0; r < n; r++)
		order[r] = r;
	sort_table = t;
	qsort(order, n, sizeof(*order), by_column);
	for (size_t i = 0; i < mi_nfields(t); i++)
		fprintf(f, "%s%s", i ? " " : "", mi_field_name(t, i));
	fputc('\n', f);
	for (size_t r = 0; r < n; r++) {
		for (size_t i = 0; i < mi_nfields(t); i++)
			fprintf(f, "%s%s", i ? " " : "", mi_value(t, order[r], i));
		fputc('\n', f);
	}
	put_notes(f, t);
	fclose(f);
	free(order);
	return parse_built(text, len, mi_table_name(t), out);
}

static int show_table(const struct ctx *c, const struct mi_table *t, const char *file)
{
	struct json j;

	if (!c->json)
		return print_table(c, t);
	json_init(&j, stdout);
	json_records(&j, t);
	json_finish(&j);
	for (size_t i = 0; i < mi_nnotes(t); i++)
		fprintf(stderr, "meminspect: %s: note: %s\n", file, mi_note(t, i));
	return ST_OK;
}

static int cmd_vmas(struct ctx *c)
{
	struct mi_table *t, *s = NULL;
	int st = load_process(c, "vmas", &t);

	if (st)
		return st;
	st = require(t, vmas_fields);
	if (!st && !mi_nrecords(t) && mi_nnotes(t))
		st = no_memory(t, "vmas");
	if (!st && c->psort)
		st = sorted(c, t, "pss", &s);
	if (!st)
		st = show_table(c, s ? s : t, "vmas");
	mi_table_free(s);
	mi_table_free(t);
	return st;
}

/* top: every process's mm rollup, one open file re-targeted per pid. */
static int cmd_top(struct ctx *c)
{
	static const char *const cols[] = { "pid", "rss_kb", "pss_kb", "uss_kb", "swap_kb", "swap_pss_kb" };
	struct mi_table *t, *all = NULL, *s = NULL;
	char path[4096], proc[300], *text = NULL;
	unsigned long long pss = 0, uss = 0;
	unsigned int n = 0, skipped = 0;
	struct dirent *d;
	size_t len;
	int fd, st = ST_OK, err;
	FILE *f;
	DIR *dir;

	if (c->psort && !sort_field(c->psort))
		return bad_usage("--sort takes rss, pss, uss or swap, not '%s'", c->psort);
	snprintf(path, sizeof(path), "%s/mm", c->dir);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		struct mi_error e = { .sys_errno = errno };

		snprintf(e.msg, sizeof(e.msg), "%.400s: %s", path, strerror(errno));
		return open_failed(c, &e);
	}
	snprintf(proc, sizeof(proc), "%s/../proc", c->sysfs);
	dir = opendir(strcmp(c->sysfs, "/sys") ? proc : "/proc");
	f = open_memstream(&text, &len);
	if (!dir || !f) {
		fprintf(stderr, "meminspect: /proc: %s\n", strerror(errno));
		st = ST_FORMAT;
		goto out;
	}
	fprintf(f, "pid rss_kb pss_kb uss_kb swap_kb swap_pss_kb comm\n");
	while ((d = readdir(dir))) {
		if (!is_pid(d->d_name))
			continue;
		/* gone, or not ours to read: skip, as smem does */
		if (choose_pid(fd, d->d_name, &err)) {
			skipped++;
			continue;
		}
		if (read_table(fd, path, &t))
			continue;
		if (mi_nrecords(t) == 1 && !require(t, mm_fields) &&
		    !mi_is_none(mi_get(t, 0, "pss_kb"))) {
			for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
				fprintf(f, "%s ", mi_get(t, 0, cols[i]));
			fprintf(f, "%s\n", mi_get(t, 0, "comm"));
			pss += (unsigned long long)num_of(mi_get(t, 0, "pss_kb"));
			uss += (unsigned long long)num_of(mi_get(t, 0, "uss_kb"));
			n++;
		}
		mi_table_free(t);
	}
	fprintf(f, "# %u processes: pss %llu kB, uss %llu kB in all; %u could not be read (exited or not permitted); kernel threads have no user memory\n",
		n, pss, uss, skipped);
	fclose(f);
	f = NULL;
	st = parse_built(text, len, "top", &all);
	text = NULL;
	if (!st)
		st = sorted(c, all, "pss", &s);
	if (!st)
		st = show_table(c, s, "top");
out:
	if (f)
		fclose(f);
	free(text);
	if (dir)
		closedir(dir);
	mi_table_free(s);
	mi_table_free(all);
	close(fd);
	return st;
}

static const struct command commands[] = {
	{ "summary", cmd_summary, CMD_WATCH, "memory on this box: field, value, unit",
	  "Prints the module's summary file: one row per figure (docs/summary.md).\n"
	  "--json prints an object keyed by field:\n"
	  "  {\"mem_total\": {\"value\": 2014232, \"unit\": \"kB\"}, ...}\n"
	  "where value is null when the kernel cannot provide it.\n"
	  "--watch SECONDS prints it again every SECONDS (one JSON document each\n"
	  "time with --json) until interrupted or --count rounds are done.\n" },
	{ "capabilities", cmd_capabilities, 0, "what the module can show on this kernel, and why not",
	  "Prints the module's capabilities file: name, kind (file, field or\n"
	  "mechanism), available (yes/no) and detail.\n"
	  "--json prints an array of objects:\n"
	  "  [{\"name\": \"summary\", \"kind\": \"file\", \"available\": \"yes\", \"detail\": null}, ...]\n" },
	{ "zones", cmd_zones, CMD_WATCH, "every populated zone: watermarks, reserves, free pages per order",
	  "Prints the module's zones file: one row per populated zone (docs/zones.md).\n"
	  "--json prints an array of objects, lowmem_reserve as an array:\n"
	  "  [{\"node\": 0, \"zone\": \"DMA32\", \"start_pfn\": 4096, ..., \"lowmem_reserve\": [0, 0, 0, 0, 0], ...}]\n"
	  "--watch SECONDS prints it again every SECONDS, as for summary, with each\n"
	  "number that moved as N(+D), the change since the previous round (JSON: a\n"
	  "\"change\" object per record); --count N stops after N rounds.\n" },
	{ "buddy", cmd_buddy, CMD_WATCH, "exact free blocks per zone, migratetype and order",
	  "Prints the module's buddy file: one row per node, zone and migratetype\n"
	  "with the exact number of free blocks of every order and the pageblocks\n"
	  "of that migratetype (docs/buddy.md); the \"# walk:\" note says what the\n"
	  "walk cost.  --json: an array of objects (notes go to stderr).\n"
	  "--watch SECONDS and --count N as for zones.\n" },
	{ "frag", cmd_frag, CMD_WATCH | CMD_TYPES,
	  "fragmentation indexes and free blocks per order (--types: per migratetype)",
	  "Prints the module's fragmentation file: per zone and order the unusable\n"
	  "free space and external fragmentation indexes (in thousandths), the free\n"
	  "blocks of at least that order and the order-sized blocks they make, all\n"
	  "from the zone's nr_free counts, as cheap as debugfs extfrag/\n"
	  "(docs/fragmentation.md).\n"
	  "--types prints the fragmentation_types file instead: the order-sized\n"
	  "blocks split by migratetype, which takes a walk of every free list (the\n"
	  "cost of a buddy read; its \"# walk:\" note says what it cost).\n"
	  "--json: an array of objects.  --watch SECONDS and --count N as for zones.\n" },
	{ "report", cmd_report, CMD_WATCH, "every file the module offers, one table each",
	  "Prints every file that capabilities lists with kind=file, each under a\n"
	  "\"== FILE ==\" heading; unavailable files are listed with the reason.\n"
	  "--json prints one object keyed by file name, each value in that file's\n"
	  "own shape (summary: as 'summary --json'; others: an array of objects);\n"
	  "unavailable files are left out.\n"
	  "--watch SECONDS repeats it every SECONDS, as for summary.\n" },
	{ "slab", cmd_slab, CMD_WATCH | CMD_SLAB,
	  "slab caches: sizes, counts, waste and growth (a slabtop)",
	  "Prints the module's slabs file, one row per slab cache, sorted.\n"
	  "  --sort KEY        name, size (memory_bytes, the default), waste (waste_bytes),\n"
	  "                    objs (active_objs) or growth (growth_bytes, needs --watch);\n"
	  "                    numbers sort largest first\n"
	  "  --top N           only the first N rows\n"
	  "  --aliases         an alias_names column before flags: the names merged into\n"
	  "                    the cache, from the symlinks in /sys/kernel/slab (the module\n"
	  "                    only has their number); 'none', or '-' without sysfs\n"
	  "--watch SECONDS repeats it every SECONDS, as for summary; from the second\n"
	  "round on, growth_bytes and growth_objs (change since the previous round)\n"
	  "come before flags.\n"
	  "--json prints an array of objects, one per row, in the table's order:\n"
	  "  [{\"name\": \"dentry\", \"object_size\": 192, ..., \"flags\": \"none\"}, ...]\n"
	  "With --watch one such array per round, each a complete JSON document.\n" },
	{ "export", cmd_export, CMD_WATCH | CMD_EXPORT,
	  "every figure as Prometheus metrics (node_exporter textfile)",
	  "--prometheus prints every figure of every available file in the\n"
	  "Prometheus text format: meminspect_FILE_FIELD, sizes in _bytes,\n"
	  "counters in _total, labels for node/zone/order/migratetype/cache\n"
	  "(docs/export.md). Files with per-process rows are left out unless\n"
	  "--per-pid is given.\n"
	  "--textfile-dir DIR writes DIR/meminspect.prom instead, atomically\n"
	  "(temporary file + rename), for node_exporter's textfile collector; with\n"
	  "--watch SECONDS it rewrites it every SECONDS. The file is written even\n"
	  "when the module cannot be read: meminspect_up is then 0.\n"
	  "--json prints the same samples as an array of\n"
	  "  {\"metric\": \"meminspect_up\", \"type\": \"gauge\", \"labels\": {}, \"value\": 1}\n" },
	{ "mm", cmd_mm, CMD_WATCH | CMD_PID, "one process's memory: status figures and the smaps rollup",
	  "meminspect mm [PID]: the module's mm file for PID (default: meminspect\n"
	  "itself), shown as field/value rows: the mm_struct figures of\n"
	  "/proc/PID/status and the page-walk rollup of /proc/PID/smaps_rollup\n"
	  "(rss, pss, uss, swap, ...; all _kb in kB).\n"
	  "--json prints one object: {\"pid\": 1, \"rss_kb\": 1720, ..., \"comm\": \"init\"}.\n"
	  "A kernel thread or zombie has no user memory: that is said on stderr, exit 1.\n"
	  "--watch SECONDS repeats it every SECONDS, as for summary.\n" },
	{ "vmas", cmd_vmas, CMD_WATCH | CMD_PID | CMD_SORT,
	  "one process's mappings with RSS, PSS, USS and swap each",
	  "meminspect vmas [PID] [--sort rss|pss|uss|swap]: one row per VMA of PID\n"
	  "(default: meminspect itself), as /proc/PID/smaps; --sort orders the rows\n"
	  "by that figure, largest first.\n"
	  "--json prints an array of objects, one per VMA.\n"
	  "--watch SECONDS repeats it every SECONDS, as for summary.\n" },
	{ "top", cmd_top, CMD_WATCH | CMD_SORT, "every process by PSS and USS, like smem",
	  "meminspect top [--sort rss|pss|uss|swap]: the mm rollup of every process\n"
	  "that may be read, largest PSS first (or by --sort); kernel threads and\n"
	  "processes that exit meanwhile are left out (a note counts them).\n"
	  "--json prints an array of objects: [{\"pid\": 1, \"rss_kb\": ..., \"comm\": \"init\"}, ...].\n"
	  "--watch SECONDS repeats it every SECONDS, as for summary.\n" },
	{ "fault", NULL, CMD_OWN_ARGS, fault_brief, NULL },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* ---- options, help, version ---- */

static const char options_help[] =
	"Options:\n"
	"  -d, --dir DIR   read the module's files from DIR (default: $MEMINSPECT_DIR,\n"
	"                  else /sys/kernel/debug/meminspect)\n"
	"  -j, --json      print JSON instead of tables (notes go to stderr)\n"
	"  -H, --human     sizes in B/KiB/MiB/GiB instead of kB (tables only)\n"
	"  -h, --help      show this help; after COMMAND, that command's help\n"
	"  -V, --version   print the reader's and the loaded module's versions\n"
	"  -w, --watch SECONDS  repeat every SECONDS (all but capabilities; zones,\n"
	"                  buddy, frag show changes as N(+D))\n"
	"  -n, --count N   with --watch: stop after N rounds\n"
	"frag only:\n"
	"  --types         the split by migratetype (a walk of every free list)\n"
	"vmas, top:\n"
	"  --sort KEY      rss, pss, uss or swap, largest first\n"
	"slab only:\n"
	"  --sort KEY      name, size, waste, objs or growth (needs --watch)\n"
	"  --top N         only the first N rows\n"
	"  --aliases       the names merged into each cache (alias_names)\n"
	"export only:\n"
	"  --prometheus    Prometheus text format\n"
	"  --textfile-dir DIR  write DIR/meminspect.prom atomically (node_exporter)\n"
	"  --per-pid       also export files with per-process rows\n";

static const char exit_help[] =
	"Exit status:\n"
	"  0  success\n"
	"  1  a file could not be read or parsed (format or internal error)\n"
	"  2  usage error (bad option or command, or a --dir that does not exist)\n"
	"  3  debugfs is not mounted on /sys/kernel/debug\n"
	"  4  the meminspect module is not loaded\n"
	"  5  permission denied (not root)\n";

static void usage(FILE *f)
{
	fprintf(f, "Usage: meminspect [OPTIONS] COMMAND [OPTIONS]\n"
		"Show the memory tables of the meminspect kernel module.\n\nCommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-13s %s\n", commands[i].name, commands[i].brief);
	fprintf(f, "\n%s\n%s\nSee meminspect(8).\n", options_help, exit_help);
}

static void command_usage(const struct command *cmd)
{
	printf("Usage: meminspect [OPTIONS] %s\n\n%s\n%s\n%s", cmd->name, cmd->help,
	       options_help, exit_help);
}

__attribute__((format(printf, 1, 2)))
static int bad_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("meminspect: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'meminspect --help'.\n", stderr);
	return ST_USAGE;
}

/* The warning every command gives when the loaded module is another version. */
static void warn_version(const char *mod)
{
	fprintf(stderr, "meminspect: warning: reader %s and module %s differ\n", MI_VERSION, mod);
}

static int version(const struct ctx *c)
{
	char mod[64];

	printf("meminspect %s\n", MI_VERSION);
	if (module_version(c, mod, sizeof(mod))) {
		printf("module meminspect %s\n", mod);
		if (strcmp(mod, MI_VERSION))
			warn_version(mod);
	} else {
		printf("module meminspect %s\n", module_loaded(c) ? "loaded, version unknown" : "not loaded");
	}
	return ST_OK;
}

enum { OPT_DONE = -1, OPT_EXIT_OK = -2 };
enum {
	OPT_PROMETHEUS = 256, OPT_TEXTFILE_DIR, OPT_PER_PID, OPT_SORT, OPT_TOP, OPT_ALIASES,
	OPT_TYPES,
};

/*
 * One getopt_long pass over argv; the same options are accepted before and
 * after COMMAND. Returns OPT_DONE, OPT_EXIT_OK (help/version printed) or an
 * exit status.
 */
static int parse_options(struct ctx *c, int argc, char **argv, const struct command *cmd)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "human", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "watch", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "prometheus", no_argument, NULL, OPT_PROMETHEUS },
		{ "textfile-dir", required_argument, NULL, OPT_TEXTFILE_DIR },
		{ "per-pid", no_argument, NULL, OPT_PER_PID },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "aliases", no_argument, NULL, OPT_ALIASES },
		{ "types", no_argument, NULL, OPT_TYPES },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long n;
	int opt;

	opterr = 0;	/* our own messages, naming meminspect, not argv[0] */
	optind = 0;	/* glibc: full re-initialisation for the second pass */
	/*
	 * Before COMMAND, stop at it ("+"); after it, GNU getopt moves the
	 * operands (a PID) behind the options: "vmas 1 --sort pss" works.
	 */
	while ((opt = getopt_long(argc, argv, cmd ? ":d:jHhVw:n:" : "+:d:jHhVw:n:", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (!*optarg)
				return bad_usage("--dir needs a directory");
			c->dir = optarg;
			break;
		case 'j':
			c->json = true;
			break;
		case 'H':
			c->out.human = true;
			break;
		case 'h':
			if (cmd)
				command_usage(cmd);
			else
				usage(stdout);
			return OPT_EXIT_OK;
		case 'V':
			version(c);
			return OPT_EXIT_OK;
		case 'w':
			if (mi_parse_u64(optarg, &n) || n < 1 || n > 86400)
				return bad_usage("--watch takes whole seconds from 1 to 86400, not '%s'",
						 optarg);
			c->watch = (unsigned int)n;
			break;
		case 'n':
			if (mi_parse_u64(optarg, &n) || n < 1 || n > 1000000000)
				return bad_usage("--count takes a number of rounds from 1, not '%s'",
						 optarg);
			c->count = (unsigned long)n;
			break;
		case OPT_PROMETHEUS:
			c->prometheus = true;
			break;
		case OPT_TEXTFILE_DIR:
			if (!*optarg)
				return bad_usage("--textfile-dir needs a directory");
			c->textfile_dir = optarg;
			break;
		case OPT_PER_PID:
			c->per_pid = true;
			break;
		case OPT_SORT:
			c->sort_arg = optarg;	/* its keys depend on the command */
			break;
		case OPT_TOP:
			if (mi_parse_u64(optarg, &n) || n < 1 || n > 1000000)
				return bad_usage("--top takes a number of rows from 1 to 1000000, not '%s'",
						 optarg);
			c->top = (unsigned long)n;
			break;
		case OPT_ALIASES:
			c->aliases = true;
			break;
		case OPT_TYPES:
			c->types = true;
			break;
		case ':':
			return bad_usage("option '%s' needs an argument", argv[optind - 1]);
		default:
			if (!optopt)	/* an unknown long option */
				return bad_usage("unknown option '%s'", argv[optind - 1]);
			/* inside "-jx", argv[optind - 1] is not the culprit: name the letter */
			if (!strchr("djHhVwn", optopt))
				return bad_usage("unknown option '-%c'", optopt);
			return bad_usage("option '%s' takes no argument", argv[optind - 1]);
		}
	}
	return OPT_DONE;
}

/* Options that only some commands take, and those that need each other. */
static int check_options(struct ctx *c, const struct command *cmd)
{
	if (c->sort_arg && (cmd->flags & CMD_SLAB)) {
		c->sort = slab_key(c->sort_arg);
		if (!c->sort)
			return bad_usage("--sort takes name, size, waste, objs or growth, not '%s'",
					 c->sort_arg);
	} else if (c->sort_arg && (cmd->flags & CMD_SORT)) {
		if (!sort_field(c->sort_arg))
			return bad_usage("--sort takes rss, pss, uss or swap, not '%s'", c->sort_arg);
		c->psort = c->sort_arg;
	} else if (c->sort_arg) {
		return bad_usage("--sort is for slab, vmas and top");
	}
	if ((c->watch || c->count) && !(cmd->flags & CMD_WATCH))
		return bad_usage("'%s' takes no --watch or --count: its content does not change",
				 cmd->name);
	if (c->count && !c->watch)
		return bad_usage("--count needs --watch");
	if ((c->prometheus || c->textfile_dir || c->per_pid) && !(cmd->flags & CMD_EXPORT))
		return bad_usage("--prometheus, --textfile-dir and --per-pid are export options");
	if ((cmd->flags & CMD_EXPORT) && !c->prometheus && !c->json)
		return bad_usage("export needs a format: --prometheus (or --json)");
	if (c->textfile_dir && c->json)
		return bad_usage("--textfile-dir writes the Prometheus text format: drop --json");
	if ((c->top || c->aliases) && !(cmd->flags & CMD_SLAB))
		return bad_usage("--top and --aliases are slab options");
	if (c->types && !(cmd->flags & CMD_TYPES))
		return bad_usage("--types is a frag option");
	if (sorts_by_growth(c) && !c->watch)
		return bad_usage("--sort growth needs --watch");
	return OPT_DONE;
}

static volatile sig_atomic_t stop_watch;

static void on_stop(int sig)
{
	(void)sig;
	stop_watch = 1;
}

/*
 * The command once, or with --watch every c->watch seconds until SIGINT or
 * SIGTERM (which end the current round first: a textfile is never left
 * half-written) or --count rounds. Errors a retry cannot fix end the loop;
 * others (the module unloaded for a while) are reported and retried.
 */
static int run_command(struct ctx *c, const struct command *cmd)
{
	struct sigaction sa = { .sa_handler = on_stop };
	unsigned long round = 0;
	int st;

	if (!c->watch)
		return cmd->run(c);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (;;) {
		struct timespec ts = { .tv_sec = c->watch };

		if (!c->json && !c->textfile_dir && !(cmd->flags & CMD_EXPORT)) {
			time_t now = time(NULL);
			char when[64];

			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&now));
			printf("%s== %s ==\n", round ? "\n" : "", when);
		}
		st = cmd->run(c);
		if (fflush(stdout) || ferror(stdout) || st == ST_USAGE || st == ST_PERM)
			break;
		if (++round == c->count)
			break;
		while (!stop_watch && nanosleep(&ts, &ts) && errno == EINTR)
			;
		if (stop_watch)
			break;
	}
	mi_table_free(c->prev);
	c->prev = NULL;
	return st;
}

static int finish(int st)
{
	/* a full disk or closed pipe must not pass for success */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "meminspect: writing output: %s\n", strerror(errno));
		return st ? st : ST_FORMAT;
	}
	return st;
}

static int load_for_fault(const void *c, const char *file, struct mi_table **t)
{
	return load(c, file, t);
}

/* fault: its own subcommands and options (userspace/fault.c) */
static int own_args(const struct ctx *c, int argc, char **argv)
{
	const struct fault_env env = {
		.dir = c->dir, .json = c->json, .out = &c->out, .load = load_for_fault, .ctx = c,
	};
	char mod[64];

	if (module_version(c, mod, sizeof(mod)) && strcmp(mod, MI_VERSION))
		warn_version(mod);
	return fault_main(&env, argc, argv);
}

int main(int argc, char **argv)
{
	struct ctx c = { .sysfs = "/sys" };
	const struct command *cmd = NULL;
	const char *env;
	char mod[64];
	int st, first;

	if ((env = getenv("MEMINSPECT_SYSFS")) && *env)
		c.sysfs = env;
	snprintf(c.debugfs, sizeof(c.debugfs), "%s/kernel/debug", c.sysfs);
	snprintf(c.default_dir, sizeof(c.default_dir), "%s/meminspect", c.debugfs);
	c.dir = (env = getenv("MEMINSPECT_DIR")) && *env ? env : c.default_dir;

	st = parse_options(&c, argc, argv, NULL);
	if (st != OPT_DONE)
		return finish(st == OPT_EXIT_OK ? ST_OK : st);
	if (optind >= argc)
		return bad_usage("missing COMMAND");
	first = optind;
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[first], commands[i].name))
			cmd = &commands[i];
	if (!cmd)
		return bad_usage("unknown command '%s'", argv[first]);
	if (cmd->flags & CMD_OWN_ARGS)
		return finish(own_args(&c, argc - first, argv + first));
	st = parse_options(&c, argc - first, argv + first, cmd);
	if (st != OPT_DONE)
		return finish(st == OPT_EXIT_OK ? ST_OK : st);
	if ((cmd->flags & CMD_PID) && optind < argc - first) {
		c.pid = argv[first + optind++];
		if (!is_pid(c.pid))
			return bad_usage("bad PID '%s'", c.pid);
	}
	if (optind < argc - first)
		return bad_usage("unexpected argument '%s'", argv[first + optind]);
	st = check_options(&c, cmd);
	if (st != OPT_DONE)
		return st;
	if (module_version(&c, mod, sizeof(mod)) && strcmp(mod, MI_VERSION))
		warn_version(mod);
	st = run_command(&c, cmd);
	mi_table_free(c.slabs_prev);
	return finish(st);
}
