// SPDX-License-Identifier: GPL-2.0
/*
 * allocs: a slabratetop by call site, over the module's allocs/table
 * (docs/allocs.md). The table's "# allocs:" note (key-value pairs: mode,
 * sample_bytes, elapsed_ms, overflows) travels with it; under --watch a
 * recent_rate column is the allocations per second since the previous
 * round, timed by the note's elapsed_ms (the kernel's clock since arming).
 */
#include "cli.h"
#include "output.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALLOCS_FILE "allocs/table"
#define ALLOCS_NOTE "allocs: "

int check_allocs(const struct mi_table *t)
{
	for (size_t r = 0; r < mi_nrecords(t); r++)
		for (size_t col = 0; col + 1 < mi_nfields(t); col++) {
			const char *v = mi_value(t, r, col);

			if (!mi_is_none(v) && !mi_is_integer(v))
				return view_format_error(t, r, "value is not an integer", v);
		}
	return ST_OK;
}

/* The "# allocs:" note's text after the prefix, or NULL. */
static const char *allocs_note(const struct mi_table *t)
{
	for (size_t i = 0; i < mi_nnotes(t); i++)
		if (!strncmp(mi_note(t, i), ALLOCS_NOTE, strlen(ALLOCS_NOTE)))
			return mi_note(t, i) + strlen(ALLOCS_NOTE);
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
	json_key(j, "call_sites");
	json_records(j, t);
	json_end_object(j);
}

static long long num(const struct mi_table *t, size_t r, const char *f)
{
	long long v;
	const char *s = mi_get(t, r, f);

	return !s || mi_parse_s64(s, &v) ? -1 : v;
}

/* Largest first by field key, then by site. */
static int allocs_cmp(const struct mi_table *t, size_t x, size_t y, const void *arg)
{
	const char *key = arg;
	long long vx = num(t, x, key), vy = num(t, y, key);

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return strcmp(mi_get(t, x, "site"), mi_get(t, y, "site"));
}

static const struct allocs_key {
	const char *name, *field;
} allocs_keys[] = {
	{ "bytes", "live_bytes" }, { "rate", "rate" }, { "count", "live_objs" },
	{ "allocs", "allocs" },
};

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
static int allocs_view(const struct mi_table *t, const struct mi_table *prev, bool watch,
		       const char *key, unsigned long top, struct mi_table **view)
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
	v = mi_table_new(ALLOCS_FILE, fields, &e);
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
			long p = mi_find(prev, "site", mi_get(t, r, "site"));
			long long before = p < 0 ? 0 : num(prev, (size_t)p, "allocs");
			long long now = num(t, r, "allocs");

			if (before >= 0 && now >= before)
				mi_table_setf(v, r, (size_t)rr, "%lld", (now - before) * 1000 / (ms - pms));
		}
	}
	mi_table_copy_notes(v, t);
	if (mi_table_error(v) || mi_table_sort(v, allocs_cmp, key)) {
		view_build_failed(v, ALLOCS_FILE);
		mi_table_free(v);
		return ST_FORMAT;
	}
	if (top)
		mi_table_truncate(v, top);
	*view = v;
	return ST_OK;
}

/*
 * One round. Under --watch, meminspect.c calls it every c->watch seconds
 * and the round's table stays in o->prev for the next one's recent_rate.
 */
int cmd_allocs(const struct mi_cli *c, struct cmd_opts *opts)
{
	struct allocs_opts *o = &opts->allocs;
	const char *key = o->sort ? o->sort : "live_bytes";
	struct mi_table *t, *v;
	char mode[16];
	int st = view_load(c, ALLOCS_FILE, &t);

	if (st)
		return st;
	/* rate sorts by the recent rate once there is one */
	if (c->watch && o->prev && !strcmp(key, "rate"))
		key = "recent_rate";
	st = allocs_view(t, o->prev, c->watch, key, opts->slab.top, &v);
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
	} else {
		st = view_print(c, v);
		if (note_get(t, "mode", mode, sizeof(mode)) && !strcmp(mode, "sampled"))
			printf("# sampled: every figure but samples is an estimate (docs/allocs.md)\n");
	}
	mi_table_free(v);
	if (c->watch) {
		mi_table_free(o->prev);
		o->prev = t;
	} else {
		mi_table_free(t);
	}
	return st;
}
