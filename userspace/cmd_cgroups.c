// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect cgroups [--dying] [--sort KEY]: the module's cgroups file
 * (docs/cgroups.md), one row per memory cgroup with the pages the census
 * found charged to it; --dying keeps the removed ones that something still
 * holds, --sort orders the rows.  Also the cgroups' part of export: which
 * cgroups get series under --cgroup-series, and the totals of the rest.
 */
#include "cgroup_pins.h"
#include "cli.h"
#include "export.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* --sort KEY: the field it reads; "total" and the order keys read several */
static const char *const sort_keys[][2] = {
	{ "id", "id" }, { "path", "path" }, { "anon", "anon_pages" }, { "file", "file_pages" },
	{ "shmem", "shmem_pages" }, { "slab", "slab_bytes" }, { "total", NULL },
};

#define NKEYS (sizeof(sort_keys) / sizeof(sort_keys[0]))

bool cgroups_sort_key(const char *key)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(key, sort_keys[i][0]))
			return true;
	return false;
}

/* the reader's page size: the file's figures are pages of the machine it runs on */
static unsigned long long page_bytes(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (unsigned long long)p : 4096;
}

/* field's value in record r; false for '-' (the kernel cannot provide it) */
static bool figure(const struct mi_table *t, size_t r, const char *field,
		   unsigned long long *v)
{
	return !mi_parse_u64(mi_get(t, r, field), v);
}

/*
 * (anon + file + shmem pages) x page size + slab_bytes: what the cgroup
 * itself holds, in bytes.  A '-' adds nothing: slab_bytes is '-' where
 * the kernel cannot attribute slab (capabilities cgroups.slab_bytes no).
 */
unsigned long long cgroups_total(const struct mi_table *t, size_t r)
{
	static const char *const pages[] = { "anon_pages", "file_pages", "shmem_pages" };
	unsigned long long v, sum = 0;

	for (size_t i = 0; i < 3; i++)
		if (figure(t, r, pages[i], &v))
			sum += v;
	sum *= page_bytes();
	if (figure(t, r, "slab_bytes", &v))
		sum += v;
	return sum;
}

/* largest first, an unknown ('-') figure last; ties keep the file's order */
static int by_key(const struct mi_table *t, size_t a, size_t b, const void *arg)
{
	const char *key = arg, *field = NULL;
	unsigned long long va = 0, vb = 0;
	bool ka = true, kb = true;

	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(key, sort_keys[i][0]))
			field = sort_keys[i][1];
	if (!strcmp(key, "path"))
		return strcmp(mi_get(t, a, "path"), mi_get(t, b, "path"));
	if (!field) {
		va = cgroups_total(t, a);
		vb = cgroups_total(t, b);
	} else {
		ka = figure(t, a, field, &va);
		kb = figure(t, b, field, &vb);
	}
	if (ka != kb)
		return ka ? -1 : 1;
	if (va == vb)
		return 0;
	if (!strcmp(key, "id"))
		return va < vb ? -1 : 1;
	return va < vb ? 1 : -1;
}

int cmd_cgroups(const struct mi_cli *c, struct cmd_opts *o)
{
	struct mi_table *t, *d = NULL;
	struct mi_error e;
	int st;

	if (!o->cg.dying && !o->cg.sort)
		return view_show_file(c, "cgroups");
	st = view_load(c, "cgroups", &t);
	if (st)
		return st;
	if (o->cg.dying) {
		/* the dying rows with what keeps each: top files and slab caches */
		d = cgroup_pins(c, t, &e);
		if (!d) {
			fprintf(stderr, "meminspect: %s\n", e.msg);
			mi_table_free(t);
			return ST_FORMAT;
		}
	}
	if ((d && mi_table_error(d)) ||
	    (o->cg.sort && mi_table_sort(d ? d : t, by_key, o->cg.sort))) {
		fprintf(stderr, "meminspect: out of memory\n");
		st = ST_FORMAT;
	} else {
		st = view_show(c, d ? d : t, "cgroups");
	}
	mi_table_free(d);
	mi_table_free(t);
	return st;
}

/* ---- export: which cgroups get series ---- */

/* dying first (what pins memory after an rmdir), then by total, largest first */
static int by_export_rank(const struct mi_table *t, size_t a, size_t b, const void *arg)
{
	bool da = !strcmp(mi_get(t, a, "state"), "dying");
	bool db = !strcmp(mi_get(t, b, "state"), "dying");

	(void)arg;
	if (da != db)
		return da ? -1 : 1;
	return by_key(t, a, b, "total");
}

struct mi_table *cgroups_for_export(const struct mi_table *t, size_t cap,
				    struct cgroups_export_sums *s, struct mi_error *e)
{
	struct mi_table *rank = mi_table_new_like(t, "cgroups", e), *keep;
	size_t n = mi_nrecords(t);
	bool *kept;

	memset(s, 0, sizeof(*s));
	if (!rank)
		return NULL;
	/*
	 * rank: t's records in the file's order, sorted; its "id" holds the
	 * record's index in t (the rank is only read for that), so the kept
	 * records can be copied back in the file's order.
	 */
	for (size_t r = 0; r < n; r++) {
		if (!strcmp(mi_get(t, r, "state"), "dying")) {
			s->dying++;
			s->dying_bytes += cgroups_total(t, r);
		}
		mi_table_copy_record(rank, t, r);
		mi_table_setf(rank, r, (size_t)mi_field_index(rank, "id"), "%zu", r);
	}
	kept = calloc(n + 1, sizeof(*kept));
	keep = mi_table_new_like(t, "cgroups", e);
	if (!kept || !keep || mi_table_error(rank) ||
	    mi_table_sort(rank, by_export_rank, NULL)) {
		snprintf(e->msg, sizeof(e->msg), "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < n && i < cap; i++) {
		unsigned long long r;

		if (!mi_parse_u64(mi_get(rank, i, "id"), &r) && r < n)
			kept[r] = true;
	}
	/* the series in the file's order: a parent's before its children's */
	for (size_t r = 0; r < n; r++)
		if (kept[r])
			mi_table_copy_record(keep, t, r);
		else
			s->dropped++;
	if (mi_table_error(keep)) {
		snprintf(e->msg, sizeof(e->msg), "out of memory");
		goto fail;
	}
	free(kept);
	mi_table_free(rank);
	return keep;
fail:
	free(kept);
	mi_table_free(keep);
	mi_table_free(rank);
	return NULL;
}
