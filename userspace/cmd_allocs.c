// SPDX-License-Identifier: GPL-2.0
/*
 * allocs: a slabratetop by call site, over the module's allocs/table
 * (docs/allocs.md). The table's "# allocs:" note (key-value pairs: mode,
 * sample_bytes, elapsed_ms, overflows) travels with it; under --watch a
 * recent_rate column is the allocations per second since the previous
 * round, timed by the note's elapsed_ms (the kernel's clock since arming).
 * --outstanding reads allocs/outstanding instead: the live objects at
 * least --min-age seconds old (written to the open file), by call site.
 * --allocinfo prints the sites in /proc/allocinfo's layout.
 */
#include "access.h"
#include "cli.h"
#include "output.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALLOCS_FILE "allocs/table"
#define ALLOCS_NOTE "allocs: "
#define OUT_FILE "allocs/outstanding"
#define OUT_NOTE "outstanding: "

/* integers before the site, but for cache: a name, (several), (pages) or - */
int check_allocs(const struct mi_table *t)
{
	int cache = mi_field_index(t, "cache");

	for (size_t r = 0; r < mi_nrecords(t); r++)
		for (size_t col = 0; col + 1 < mi_nfields(t); col++) {
			const char *v = mi_value(t, r, col);

			if ((int)col != cache && !mi_is_none(v) && !mi_is_integer(v))
				return view_format_error(t, r, "value is not an integer", v);
		}
	return ST_OK;
}

/*
 * objs, bytes, oldest_s integers; addrs a comma list of 0x hex, or '-'
 * where the module may not show a kernel address (lockdown=confidentiality,
 * as %pK hides them there).
 */
int check_allocs_outstanding(const struct mi_table *t)
{
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *a = mi_get(t, r, "addrs");

		for (size_t col = 0; col < 3; col++)
			if (!mi_is_integer(mi_value(t, r, col)))
				return view_format_error(t, r, "value is not an integer",
							 mi_value(t, r, col));
		if (!mi_is_none(a) &&
		    (strspn(a, "0123456789abcdefx,") != strlen(a) || strncmp(a, "0x", 2)))
			return view_format_error(t, r, "addrs is not a list of hex addresses", a);
	}
	return ST_OK;
}

/* The "# allocs:" (or "# outstanding:") note's text after the prefix, or NULL. */
static const char *allocs_note(const struct mi_table *t)
{
	for (size_t i = 0; i < mi_nnotes(t); i++) {
		const char *n = mi_note(t, i);

		if (!strncmp(n, ALLOCS_NOTE, strlen(ALLOCS_NOTE)))
			return n + strlen(ALLOCS_NOTE);
		if (!strncmp(n, OUT_NOTE, strlen(OUT_NOTE)))
			return n + strlen(OUT_NOTE);
	}
	return NULL;
}

/*
 * The value of key in the note into buf; false without a note or key.
 * Keys and values are single words, alternating.
 */
static bool note_get(const struct mi_table *t, const char *key, char *buf, size_t len)
{
	const char *p = allocs_note(t);
	size_t n = strlen(key);

	while (p && *p) {
		size_t kw = strcspn(p, " "), vw;
		const char *v = p + kw + strspn(p + kw, " ");

		vw = strcspn(v, " ");
		if (!vw)
			return false;
		if (kw == n && !strncmp(p, key, n)) {
			if (vw >= len)
				return false;
			memcpy(buf, v, vw);
			buf[vw] = '\0';
			return true;
		}
		p = v + vw + strspn(v + vw, " ");
	}
	return false;
}

static long long note_num(const struct mi_table *t, const char *key)
{
	char buf[32];
	long long v;

	if (!note_get(t, key, buf, sizeof(buf)) || mi_parse_s64(buf, &v))
		return -1;
	return v;
}

/* addrs, a comma list of hex addresses, as an array of strings; '-' null */
static void json_addrs(struct json *j, const char *v)
{
	char buf[32];

	if (mi_is_none(v)) {
		json_null(j);
		return;
	}
	json_begin_array(j);
	while (v && *v) {
		size_t n = strcspn(v, ",");

		if (n && n < sizeof(buf)) {
			memcpy(buf, v, n);
			buf[n] = '\0';
			json_string(j, buf);
		}
		v += n + (v[n] == ',');
	}
	json_end_array(j);
}

/* {"armed": 1, "mode": "exact", ... (the note), "call_sites": [{...}, ...]} */
void json_allocs(struct json *j, const struct mi_table *t)
{
	const char *p = allocs_note(t);
	char key[64], val[64];

	json_begin_object(j);
	while (p && *p) {
		size_t kw = strcspn(p, " "), vw;
		const char *v = p + kw + strspn(p + kw, " ");

		vw = strcspn(v, " ");
		if (!vw || kw >= sizeof(key) || vw >= sizeof(val))
			break;
		memcpy(key, p, kw);
		key[kw] = '\0';
		memcpy(val, v, vw);
		val[vw] = '\0';
		if (mi_valid_name(key) && strcmp(key, "call_sites")) {
			json_key(j, key);
			json_value(j, val);
		}
		p = v + vw + strspn(v + vw, " ");
	}
	json_key(j, strcmp(mi_field_name(t, mi_nfields(t) - 1), "cache") ? "call_sites" : "caches");
	json_begin_array(j);
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		json_begin_object(j);
		for (size_t col = 0; col < mi_nfields(t); col++) {
			json_key(j, mi_field_name(t, col));
			if (!strcmp(mi_field_name(t, col), "addrs"))
				json_addrs(j, mi_value(t, r, col));
			else
				json_value(j, mi_value(t, r, col));
		}
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

static long long num(const struct mi_table *t, size_t r, const char *f)
{
	long long v;
	const char *s = mi_get(t, r, f);

	return !s || mi_parse_s64(s, &v) ? -1 : v;
}

/* The row's name: the last field (site, or cache under --by cache). */
static const char *row_name(const struct mi_table *t, size_t r)
{
	return mi_value(t, r, mi_nfields(t) - 1);
}

/* Largest first by field key, then by name. */
static int allocs_cmp(const struct mi_table *t, size_t x, size_t y, const void *arg)
{
	const char *key = arg;
	long long vx = num(t, x, key), vy = num(t, y, key);

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return strcmp(row_name(t, x), row_name(t, y));
}

/*
 * --by cache: the sites summed by their cache column, a row per cache
 * (and per "(several)", "(pages)", "-"), with how many sites; every
 * count of the table is a sum over sites, so the sums are the cache's.
 * The note travels with it. NULL (and a message) when out of memory.
 */
static struct mi_table *by_cache(const struct mi_table *t)
{
	size_t nf = mi_nfields(t), k = 0;
	const char **fields = calloc(nf + 1, sizeof(*fields));
	int cache = mi_field_index(t, "cache"), sites;
	struct mi_table *v = NULL;
	struct mi_error e;

	if (!fields || cache < 0)
		goto out;
	for (size_t col = 0; col + 1 < nf; col++)
		if ((int)col != cache)
			fields[k++] = mi_field_name(t, col);
	fields[k++] = "sites";
	fields[k++] = "cache";
	v = mi_table_new(mi_table_name(t), fields, &e);
	if (!v)
		goto out;
	sites = mi_field_index(v, "sites");
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *name = mi_value(t, r, (size_t)cache);
		long g = mi_find(v, "cache", name);

		if (g < 0) {
			g = mi_table_add_record(v);
			if (g < 0)
				break;
			for (size_t col = 0; col < k; col++)
				mi_table_set(v, (size_t)g, col, "0");
			mi_table_set_field(v, (size_t)g, "cache", name);
		}
		for (size_t col = 0; col + 1 < nf; col++) {
			const char *f = mi_field_name(t, col);

			if ((int)col != cache)
				mi_table_setf(v, (size_t)g, (size_t)mi_field_index(v, f), "%lld",
					      num(v, (size_t)g, f) + num(t, r, f));
		}
		mi_table_setf(v, (size_t)g, (size_t)sites, "%lld", num(v, (size_t)g, "sites") + 1);
	}
	mi_table_copy_notes(v, t);
	if (mi_table_error(v)) {
		mi_table_free(v);
		v = NULL;
	}
out:
	free(fields);
	if (!v)
		fprintf(stderr, "meminspect: %s: %s\n", mi_table_name(t),
			cache < 0 ? "no cache column (a module older than this reader)" : "out of memory");
	return v;
}

static const struct allocs_key {
	const char *name, *field;
} allocs_keys[] = {
	{ "bytes", "live_bytes" }, { "rate", "rate" }, { "count", "live_objs" },
	{ "allocs", "allocs" },
};

/* outstanding's field for a --sort field of the table; NULL: none */
static const char *out_field(const char *table_field)
{
	if (!strcmp(table_field, "live_bytes"))
		return "bytes";
	if (!strcmp(table_field, "live_objs"))
		return "objs";
	return NULL;
}

bool allocs_sort_outstanding(const char *field)
{
	return out_field(field);
}

const char *allocs_sort_field(const char *name)
{
	for (size_t i = 0; i < sizeof(allocs_keys) / sizeof(allocs_keys[0]); i++)
		if (!strcmp(name, allocs_keys[i].name))
			return allocs_keys[i].field;
	return NULL;
}

/*
 * The view: the file's fields, with recent_rate before site under --watch
 * ("-" in the first round, for a new site's first round counts from 0);
 * sorted by key, largest first, cut to --top.
 */
static int allocs_view(const char *file, const struct mi_table *t, const struct mi_table *prev,
		       bool watch, const char *key, unsigned long top, struct mi_table **view)
{
	size_t nf = mi_nfields(t), k = 0;
	const char **fields = calloc(nf + 2, sizeof(*fields));
	long long ms = note_num(t, "elapsed_ms"), pms = prev ? note_num(prev, "elapsed_ms") : -1;
	struct mi_table *v;
	struct mi_error e;
	int rr;

	if (!fields) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	for (size_t col = 0; col + 1 < nf; col++)
		fields[k++] = mi_field_name(t, col);
	if (watch)
		fields[k++] = "recent_rate";
	fields[k++] = mi_field_name(t, nf - 1);
	v = mi_table_new(file, fields, &e);
	free(fields);
	if (!v) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	rr = mi_field_index(v, "recent_rate");
	/* re-armed between the rounds (the clock went back): no recent rate */
	if (pms < 0 || ms <= pms)
		prev = NULL;
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		mi_table_copy_record(v, t, r);
		if (prev && rr >= 0) {
			long p = mi_find(prev, mi_field_name(t, nf - 1), row_name(t, r));
			long long before = p < 0 ? 0 : num(prev, (size_t)p, "allocs");
			long long now = num(t, r, "allocs");

			if (before >= 0 && now >= before)
				mi_table_setf(v, r, (size_t)rr, "%lld", (now - before) * 1000 / (ms - pms));
		}
	}
	mi_table_copy_notes(v, t);
	if (mi_table_error(v) || mi_table_sort(v, allocs_cmp, key)) {
		view_build_failed(v, file);
		mi_table_free(v);
		return ST_FORMAT;
	}
	if (top)
		mi_table_truncate(v, top);
	*view = v;
	return ST_OK;
}

/*
 * allocs/outstanding with the minimum age written to the open file (the
 * live file only: a copy would not answer), or as it is without one.
 */
static int load_outstanding(const struct mi_cli *c, const struct allocs_opts *o,
			    struct mi_table **t)
{
	struct mi_error e;
	char path[4096], line[32];
	int fd, n, st;

	if (o->min_age < 0)
		return view_load(c, OUT_FILE, t);
	st = view_open_live(c, OUT_FILE, "--min-age", path, sizeof(path), &fd);
	if (st)
		return st;
	n = snprintf(line, sizeof(line), "%ld\n", o->min_age);
	if (write(fd, line, (size_t)n) != n) {
		fprintf(stderr, "meminspect: %s: writing the minimum age: %s\n", OUT_FILE,
			strerror(errno));
		st = ST_FORMAT;
	} else {
		*t = mi_table_read_fd(fd, path, &e);
		if (!*t) {
			fprintf(stderr, "meminspect: %s\n", e.msg);
			st = ST_FORMAT;
		} else if (view_require(*t, (const char *const[]){ "objs", "bytes", "oldest_s",
								   "addrs", "site", NULL }) ||
			   check_allocs_outstanding(*t)) {
			mi_table_free(*t);
			*t = NULL;
			st = ST_FORMAT;
		}
	}
	close(fd);
	return st;
}

/*
 * --allocinfo: the view in /proc/allocinfo's layout (lib/alloc_tag.c, v6.10:
 * a version line, a "#" header, then "%12lli %8llu <tag info>" per tag) so
 * that scripts written for that file read ours.  size is live_bytes_alloc,
 * for allocinfo counts each object's allocated size; calls is live_objs,
 * for allocinfo's calls are live allocations too (alloc_tag_sub() takes
 * them back).  The kernel's tag info is "file:line [module] func:name";
 * without debug info the site stands where file:line would, so
 * "name+off/size [module] func:name".  A row whose figures are not
 * numbers is left out and counted on stderr: the layout has no "-".
 */
static void print_allocinfo(const struct mi_table *v)
{
	size_t left_out = 0;

	printf("allocinfo - version: 1.0\n");
	printf("#     <size>  <calls> <tag info>\n");
	for (size_t r = 0; r < mi_nrecords(v); r++) {
		const char *site = row_name(v, r);
		long long size = num(v, r, "live_bytes_alloc"), calls = num(v, r, "live_objs");
		size_t fn = strcspn(site, "+ ");

		if (size < 0 || calls < 0) {
			left_out++;
			continue;
		}
		printf("%12lli %8llu %s func:%.*s\n", size, (unsigned long long)calls, site,
		       (int)fn, site);
	}
	if (left_out)
		fprintf(stderr, "meminspect: allocs --allocinfo: %zu site(s) left out: no figures\n",
			left_out);
}

/*
 * One round. Under --watch, meminspect.c calls it every c->watch seconds
 * and the round's table stays in o->prev for the next one's recent_rate.
 */
int cmd_allocs(const struct mi_cli *c, struct cmd_opts *opts)
{
	struct allocs_opts *o = &opts->allocs;
	const char *key = o->sort ? o->sort : "live_bytes";
	const char *file = o->outstanding ? OUT_FILE : ALLOCS_FILE;
	struct mi_table *t, *v;
	char mode[16];
	int st = o->outstanding ? load_outstanding(c, o, &t) : view_load(c, ALLOCS_FILE, &t);

	if (st)
		return st;
	/* rate sorts by the recent rate once there is one */
	if (c->watch && o->prev && !strcmp(key, "rate"))
		key = "recent_rate";
	if (o->outstanding)
		key = out_field(key);
	/* allocinfo's size is the allocated bytes: bytes sorts by what it shows */
	if (o->allocinfo && !strcmp(key, "live_bytes"))
		key = "live_bytes_alloc";
	if (o->by_cache) {
		struct mi_table *g = by_cache(t);

		mi_table_free(t);
		if (!g)
			return ST_FORMAT;
		t = g;
	}
	st = allocs_view(file, t, o->prev, c->watch && !o->outstanding, key, opts->slab.top, &v);
	if (st) {
		mi_table_free(t);
		return st;
	}
	if (c->json) {
		struct json j;

		/* the note's pairs are in the document: not on stderr too */
		json_init(&j, stdout);
		json_allocs(&j, v);
		json_finish(&j);
	} else if (o->allocinfo) {
		/* stdout keeps the kernel's layout: the mode goes to stderr */
		print_allocinfo(v);
		if (note_get(t, "mode", mode, sizeof(mode)) && !strcmp(mode, "sampled"))
			fprintf(stderr, "meminspect: allocs --allocinfo: sampled: size and calls are estimates (docs/allocs.md)\n");
	} else {
		st = view_print(c, v);
		if (note_get(t, "mode", mode, sizeof(mode)) && !strcmp(mode, "sampled"))
			printf("# sampled: every figure but samples is an estimate (docs/allocs.md)\n");
	}
	mi_table_free(v);
	view_keep_round(c, &o->prev, t);
	return st;
}
