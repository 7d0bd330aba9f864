// SPDX-License-Identifier: GPL-2.0
/* slab: a slabtop with waste and growth, over the module's slabs file. */
#include "cli.h"
#include "output.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int check_slabs(const struct mi_table *t)
{
	return view_check_integers(t, 1);	/* after the name */
}

/* numeric value of field f in record r; -1 for "-" */
static long long num(const struct mi_table *t, size_t r, const char *f)
{
	long long v;

	return mi_parse_s64(mi_get(t, r, f), &v) ? -1 : v;
}

/* Largest first by key (a field), then by name; by name alone without a key. */
static int slab_cmp(const struct mi_table *t, size_t x, size_t y, const void *arg)
{
	const char *key = arg;
	long long vx, vy;

	if (key) {
		vx = num(t, x, key);
		vy = num(t, y, key);
		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	return strcmp(mi_get(t, x, "name"), mi_get(t, y, "name"));
}

/* --sort KEY: the field sorted by, largest first; NULL: by name */
static const struct slab_key {
	const char *name, *field;
} slab_keys[] = {
	{ "name", NULL }, { "size", "memory_bytes" }, { "waste", "waste_bytes" },
	{ "objs", "active_objs" }, { "growth", "growth_bytes" },
};

const struct slab_key *slab_key(const char *name)
{
	for (size_t i = 0; i < sizeof(slab_keys) / sizeof(slab_keys[0]); i++)
		if (!strcmp(name, slab_keys[i].name))
			return &slab_keys[i];
	return NULL;
}

bool slab_sorts_by_growth(const struct slab_opts *o)
{
	return o->sort && o->sort->field && !strcmp(o->sort->field, "growth_bytes");
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
static bool links_load(const struct mi_cli *c, struct slab_links *l)
{
	char dir[300], path[600], buf[256];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/kernel/slab", c->acc.sysfs);
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

/*
 * Cell col of record r: the names linked to the same directory as cache,
 * comma-separated, or "none".
 */
static void alias_names(struct mi_table *v, size_t r, size_t col, const struct slab_links *l,
			const char *cache)
{
	const char *t = NULL;
	char *names = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&names, &len);	/* a string, not a table */
	bool any = false;

	if (!f) {
		mi_table_set(v, r, col, "");	/* records the error */
		return;
	}
	for (size_t i = 0; i < l->n && !t; i++)
		if (!strcmp(l->name[i], cache))
			t = l->target[i];
	for (size_t i = 0; t && i < l->n; i++) {
		if (strcmp(l->target[i], t) || !strcmp(l->name[i], cache))
			continue;
		fprintf(f, "%s%s", any ? "," : "", l->name[i]);
		any = true;
	}
	if (fclose(f) || !names)
		mi_table_set(v, r, col, "");
	else
		mi_table_set(v, r, col, any ? names : "none");
	free(names);
}

/*
 * The view: the file's fields, with growth_bytes and growth_objs (since the
 * previous sample, watch mode) and alias_names (--aliases) before flags;
 * sorted by key (growth included, so it is a column before the sort) and
 * cut to --top.
 */
static int slab_view(const struct mi_cli *c, const struct slab_opts *o, const struct mi_table *t,
		     const char *key, struct mi_table **view)
{
	size_t nf = mi_nfields(t), k = 0;
	const char **fields = calloc(nf + 4, sizeof(*fields));
	struct slab_links links = { 0 };
	bool have_links = false;
	const struct mi_table *prev = o->prev;
	struct mi_table *v;
	struct mi_error e;
	int gb, go, an;

	if (!fields) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	for (size_t col = 0; col + 1 < nf; col++)
		fields[k++] = mi_field_name(t, col);
	if (prev) {
		fields[k++] = "growth_bytes";
		fields[k++] = "growth_objs";
	}
	if (o->aliases)
		fields[k++] = "alias_names";
	fields[k++] = mi_field_name(t, nf - 1);
	v = mi_table_new("slabs", fields, &e);
	free(fields);
	if (!v) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	if (o->aliases)
		have_links = links_load(c, &links);
	gb = mi_field_index(v, "growth_bytes");
	go = mi_field_index(v, "growth_objs");
	an = mi_field_index(v, "alias_names");
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		mi_table_copy_record(v, t, r);
		if (prev) {
			long p = mi_find(prev, "name", mi_get(t, r, "name"));
			long long m = num(t, r, "memory_bytes"), n = num(t, r, "active_objs");

			if (p < 0) {	/* a new cache grew from nothing */
				mi_table_setf(v, r, (size_t)gb, "%lld", m);
				mi_table_setf(v, r, (size_t)go, "%lld", n);
			} else if (m >= 0 && n >= 0 && num(prev, p, "memory_bytes") >= 0) {
				mi_table_setf(v, r, (size_t)gb, "%lld", m - num(prev, p, "memory_bytes"));
				mi_table_setf(v, r, (size_t)go, "%lld", n - num(prev, p, "active_objs"));
			}	/* else both stay "-" */
		}
		if (an >= 0 && have_links)
			alias_names(v, r, (size_t)an, &links, mi_get(t, r, "name"));
	}
	links_free(&links);
	mi_table_copy_notes(v, t);
	if (mi_table_error(v) || mi_table_sort(v, slab_cmp, key)) {
		view_build_failed(v, "slabs");
		mi_table_free(v);
		return ST_FORMAT;
	}
	if (o->top)
		mi_table_truncate(v, o->top);
	*view = v;
	return ST_OK;
}

/*
 * One round. Under --watch, meminspect.c calls it every c->watch seconds
 * and the round's table stays in o->prev for the next one's growth.
 */
int cmd_slab(const struct mi_cli *c, struct cmd_opts *opts)
{
	struct slab_opts *o = &opts->slab;
	const char *key = o->sort ? o->sort->field : "memory_bytes";
	struct mi_table *t, *v;
	int st = view_load(c, "slabs", &t);

	if (st)
		return st;
	/* the first round has no growth yet: it is sorted by size */
	if (slab_sorts_by_growth(o) && !o->prev)
		key = "memory_bytes";
	st = slab_view(c, o, t, key, &v);
	if (st) {
		mi_table_free(t);
		return st;
	}
	st = view_show(c, v, "slabs");
	if (!c->json && c->watch && !o->prev)
		printf("# growth columns from the next round on\n");
	mi_table_free(v);
	view_keep_round(c, &o->prev, t);
	return st;
}
