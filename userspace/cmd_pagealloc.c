// SPDX-License-Identifier: GPL-2.0
/*
 * The page allocator's tables: zones, buddy, fragmentation (one row per
 * node and zone, then migratetype or order), and the machine-wide summary
 * and capabilities.  Under --watch the zone tables show what moved.
 */
#include "cli.h"
#include "output.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <stdio.h>
#include <string.h>

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
int check_zone_table(const struct mi_table *t)
{
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		for (size_t col = 2; col < mi_nfields(t); col++) {
			const char *name = mi_field_name(t, col), *v = mi_value(t, r, col);

			if (!strcmp(name, "migratetype"))
				continue;
			if (!mi_is_none(v) && !mi_is_integer(v) && !is_int_list(v))
				return view_format_error(t, r, "value is not an integer", v);
		}
	}
	return ST_OK;
}

/* A value for JSON: a list becomes an array of numbers. */
static void json_zone_value(struct json *j, const char *v)
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

/*
 * Key columns of a record: the leading fields that name it rather than
 * count (zones, buddy, fragmentation: node zone [migratetype|order];
 * pages: node zone class; pressure: section scope name).
 */
static size_t zone_nkeys(const struct mi_table *t)
{
	static const char *const keys[] = {
		"node", "zone", "migratetype", "order", "class", "section", "scope", "name",
	};
	size_t k = 0;

	while (k < mi_nfields(t) && k < 3) {
		const char *name = mi_field_name(t, k);
		size_t i = 0;

		while (i < sizeof(keys) / sizeof(keys[0]) && strcmp(name, keys[i]))
			i++;
		if (i == sizeof(keys) / sizeof(keys[0]))
			break;
		k++;
	}
	return k;
}

/* The record of prev with the same key columns as rec of t; -1 if none. */
static long zone_match(const struct mi_table *t, size_t rec, const struct mi_table *prev)
{
	size_t nk = zone_nkeys(t);

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
static bool zone_delta(const char *cur, const char *old, long long *d)
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
static void json_zone_rows(struct json *j, const struct mi_table *t, const struct mi_table *prev)
{
	json_begin_array(j);
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		long m = zone_match(t, r, prev);

		json_begin_object(j);
		for (size_t c = 0; c < mi_nfields(t); c++) {
			json_key(j, mi_field_name(t, c));
			json_zone_value(j, mi_value(t, r, c));
		}
		if (m >= 0) {
			json_key(j, "change");
			json_begin_object(j);
			for (size_t c = zone_nkeys(t); c < mi_nfields(t); c++) {
				const char *name = mi_field_name(t, c);
				long long d;

				if (!zone_delta(mi_value(t, r, c), mi_get(prev, (size_t)m, name), &d))
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

void json_zone_table(struct json *j, const struct mi_table *t)
{
	json_zone_rows(j, t, NULL);
}

/*
 * A copy of t with every integer cell that moved since prev shown as
 * "N(+D)", for out_table() to align.  NULL on OOM (message given).
 */
static struct mi_table *zone_change_table(const struct mi_table *t, const struct mi_table *prev)
{
	struct mi_error e;
	struct mi_table *out = mi_table_new_like(t, mi_table_name(t), &e);

	if (!out) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return NULL;
	}
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		long m = zone_match(t, r, prev);

		mi_table_copy_record(out, t, r);
		for (size_t c = zone_nkeys(t); m >= 0 && c < mi_nfields(t); c++) {
			long long d;

			if (zone_delta(mi_value(t, r, c), mi_get(prev, (size_t)m, mi_field_name(t, c)),
				       &d) && d)
				mi_table_decorate(out, r, c, d);
		}
	}
	mi_table_copy_notes(out, t);
	mi_table_add_note(out, "(+D): change since the previous round");
	if (mi_table_error(out)) {
		view_build_failed(out, mi_table_name(t));
		mi_table_free(out);
		return NULL;
	}
	return out;
}

/*
 * zones, buddy, fragmentation, pages, pressure: the file, and under --watch (meminspect.c
 * repeats it) each number that moved since the previous round: N(+D) in
 * tables, a "change" object per record in JSON.
 */
static int show_zone_table(const struct mi_cli *c, struct pagealloc_opts *o, const char *file)
{
	struct mi_table *t, *shown = NULL;
	struct json j;
	int st;

	if (!c->watch)
		return view_show_file(c, file);
	st = view_load(c, file, &t);
	if (st)
		return st;	/* the previous round stays the reference */
	if (c->json) {
		json_init(&j, stdout);
		json_zone_rows(&j, t, o->prev);
		view_notes_to_stderr(t, file);
		json_finish(&j);
	} else {
		if (o->prev) {
			shown = zone_change_table(t, o->prev);
			if (!shown)
				st = ST_FORMAT;
		}
		if (!st)
			st = view_print(c, shown ? shown : t);
		mi_table_free(shown);
	}
	mi_table_free(o->prev);
	o->prev = t;
	return st;
}

int cmd_zones(const struct mi_cli *c, struct cmd_opts *o)
{
	return show_zone_table(c, &o->pa, "zones");
}

int cmd_buddy(const struct mi_cli *c, struct cmd_opts *o)
{
	return show_zone_table(c, &o->pa, "buddy");
}

/*
 * The indexes come from nr_free (cheap, like debugfs extfrag/); the split
 * by migratetype only from a walk of every free list, so only --types
 * reads that file (docs/fragmentation.md).
 */
int cmd_frag(const struct mi_cli *c, struct cmd_opts *o)
{
	return show_zone_table(c, &o->pa, o->pa.types ? "fragmentation_types" : "fragmentation");
}

int cmd_summary(const struct mi_cli *c, struct cmd_opts *o)
{
	(void)o;
	return view_show_file(c, "summary");
}

int cmd_capabilities(const struct mi_cli *c, struct cmd_opts *o)
{
	(void)o;
	return view_show_file(c, "capabilities");
}

/* The census (docs/pages.md): a zone table, so --watch marks N(+D). */
int cmd_pages(const struct mi_cli *c, struct cmd_opts *o)
{
	return show_zone_table(c, &o->pa, "pages");
}

/*
 * One row per figure, keyed by section, scope and name; --watch is the
 * vmstat-like line per interval (cmd_pressure.c), --table --watch as zones.
 */
int cmd_pressure(const struct mi_cli *c, struct cmd_opts *o)
{
	if (c->watch && !o->stall.table)
		return cmd_pressure_lines(c, o);
	return show_zone_table(c, &o->pa, "pressure");
}
