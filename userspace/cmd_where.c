// SPDX-License-Identifier: GPL-2.0
/*
 * where: the one screen for "where did my memory go".  summary's big
 * figures, then the census classes (pages, summed over nodes and zones),
 * each in kB with the kernel figure it is to be read against
 * (docs/summary.md, docs/pages.md).  A derived table built in memory.
 */
#include "cli.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <stdio.h>
#include <string.h>

struct where_row {
	const char *figure;
	const char *counterpart;	/* a /proc/meminfo or vmstat name, "-": none */
};

/* summary's fields, in its order; a field the file lacks is left out */
static const struct where_row where_summary[] = {
	{ "mem_total", "MemTotal" },
	{ "mem_free", "MemFree" },
	{ "pcp_free", "zoneinfo:count" },
	{ "cached", "Cached" },
	{ "buffers", "Buffers" },
	{ "shmem", "Shmem" },
	{ "anon_pages", "AnonPages" },
	{ "slab_reclaimable", "SReclaimable" },
	{ "slab_unreclaimable", "SUnreclaim" },
	{ "page_tables", "PageTables" },
	{ "vmalloc_used", "VmallocUsed" },
	{ "percpu", "Percpu" },
	{ "hugetlb", "Hugetlb" },
	{ "unaccounted", "-" },
};

/* the census classes, each with the counter it agrees with (docs/pages.md) */
static const struct where_row where_census[] = {
	{ "buddy_free", "MemFree" },
	{ "free_other", "zoneinfo:count+non-compound-tails" },
	{ "slab", "SReclaimable+SUnreclaim" },
	{ "large_kmalloc", "SUnreclaim" },
	{ "pagetable", "PageTables" },
	{ "zsmalloc", "vmstat:nr_zspages" },
	{ "hugetlb_free", "HugePages_Free" },
	{ "hugetlb_used", "HugePages_Total-HugePages_Free" },
	{ "anon_lru", "AnonPages" },
	{ "anon_other", "AnonPages" },
	{ "shmem", "Shmem" },
	{ "file_mapped", "Mapped" },
	{ "file_unmapped", "Cached+Buffers-Shmem-Mapped" },
	{ "reserved", "-" },
	{ "offline", "-" },
	{ "unclassified", "unaccounted+VmallocUsed+Percpu" },
};

static const char *const where_fields[] = {
	"section", "figure", "kb", "counterpart", NULL
};

static int where_add(struct mi_table *v, const char *section, const char *figure,
		     const char *kb, const char *counterpart)
{
	long r = mi_table_add_record(v);

	if (r < 0)
		return -1;
	mi_table_set(v, (size_t)r, 0, section);
	mi_table_set(v, (size_t)r, 1, figure);
	mi_table_set(v, (size_t)r, 2, kb);
	mi_table_set(v, (size_t)r, 3, counterpart);
	return 0;
}

/* The class's bytes over every node and zone, in kB; -1 if none is a number. */
static long long census_kb(const struct mi_table *p, const char *class)
{
	long long sum = 0, b;
	bool seen = false;

	for (size_t r = 0; r < mi_nrecords(p); r++) {
		if (strcmp(mi_get(p, r, "class"), class))
			continue;
		if (mi_parse_s64(mi_get(p, r, "bytes"), &b))
			return -1;
		sum += b;
		seen = true;
	}
	return seen ? sum / 1024 : -1;
}

static int where_build(const struct mi_table *s, const struct mi_table *p, struct mi_table **out)
{
	struct mi_error e;
	struct mi_table *v = mi_table_new("where", where_fields, &e);
	char kb[32];

	if (!v) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	for (size_t i = 0; i < sizeof(where_summary) / sizeof(where_summary[0]); i++) {
		long r = mi_find(s, "field", where_summary[i].figure);

		if (r >= 0)
			where_add(v, "summary", where_summary[i].figure, mi_get(s, (size_t)r, "value"),
				  where_summary[i].counterpart);
	}
	for (size_t i = 0; i < sizeof(where_census) / sizeof(where_census[0]); i++) {
		long long k = census_kb(p, where_census[i].figure);

		if (k < 0)
			continue;	/* a class this module does not print */
		snprintf(kb, sizeof(kb), "%lld", k);
		where_add(v, "census", where_census[i].figure, kb, where_census[i].counterpart);
	}
	mi_table_add_note(v, "census figures are the pages file summed over nodes and zones, in kB; docs/summary.md says how unaccounted is made of the census classes");
	if (mi_table_error(v)) {
		view_build_failed(v, "where");
		mi_table_free(v);
		return ST_FORMAT;
	}
	*out = v;
	return ST_OK;
}

int cmd_where(const struct mi_cli *c, struct cmd_opts *o)
{
	struct mi_table *s, *p, *v;
	int st;

	(void)o;
	st = view_load(c, "summary", &s);
	if (st)
		return st;
	st = view_load(c, "pages", &p);
	if (st) {
		mi_table_free(s);
		return st;
	}
	st = where_build(s, p, &v);
	if (!st) {
		st = view_show(c, v, "where");
		mi_table_free(v);
	}
	mi_table_free(s);
	mi_table_free(p);
	return st;
}
