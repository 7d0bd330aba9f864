// SPDX-License-Identifier: GPL-2.0
/*
 * where: the one screen for "where did my memory go".  First the figures
 * that hold the memory, largest first, with their holders (where_rank.c);
 * then the reconciliation: summary's big figures and the census classes
 * (pages, summed over nodes and zones), each in kB with the kernel figure it
 * is to be read against (docs/summary.md, docs/pages.md): its name, and its
 * value read from /proc just after the module's files (kernel_kb; "-" where
 * the kernel has no single figure for it).  Derived tables built in memory;
 * --json prints {"ranked": [...], "reconciliation": [...]}.
 */
#include "cli.h"
#include "parse.h"
#include "status.h"
#include "output.h"
#include "views.h"
#include "where_rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	/*
	 * no counter holds it: Mapped counts mapped shmem too, so
	 * Cached+Buffers-Shmem-Mapped subtracts those twice and goes negative
	 * (-3328 kB on a 6.12 guest); file_mapped + file_unmapped + shmem is
	 * held to nr_file_pages in the guest (test_pages.sh)
	 */
	{ "file_unmapped", "-" },
	{ "reserved", "-" },
	{ "offline", "-" },
	{ "unclassified", "unaccounted+VmallocUsed+Percpu" },
};

static const char *const where_fields[] = {
	"section", "figure", "kb", "counterpart", "kernel_kb", NULL
};

/* ---- the counterparts' values, from $MEMINSPECT_PROC (default /proc) ---- */

#define WHERE_KEYS 96

/* /proc/meminfo's lines, each in kB (HugePages_* counts times Hugepagesize) */
struct where_kernel {
	size_t n;
	struct { char key[64]; long long kb; } v[WHERE_KEYS];
	long long page_kb;
};

FILE *where_proc_open(const char *name)
{
	const char *proc = getenv("MEMINSPECT_PROC");
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", proc && *proc ? proc : "/proc", name);
	return fopen(path, "re");
}

static void kernel_put(struct where_kernel *k, const char *key, long long kb)
{
	if (k->n < WHERE_KEYS) {
		snprintf(k->v[k->n].key, sizeof(k->v[k->n].key), "%s", key);
		k->v[k->n++].kb = kb;
	}
}

static bool kernel_get(const struct where_kernel *k, const char *key, long long *kb)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->v[i].key, key)) {
			*kb = k->v[i].kb;
			return true;
		}
	return false;
}

/*
 * meminfo ("Key:   N kB", or a bare count for HugePages_*), vmstat's
 * nr_zspages and zoneinfo's per-CPU list counts, all in kB. What cannot be
 * read is simply absent: its figures print "-".
 */
static void kernel_read(struct where_kernel *k)
{
	char line[256], key[64], unit[16];
	long long v, hp_kb = 0, pcp = 0;
	bool have_pcp = false;
	FILE *f;
	int n;

	k->n = 0;
	k->page_kb = sysconf(_SC_PAGESIZE) / 1024;
	f = where_proc_open("meminfo");
	while (f && fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%63[^:]: %lld %15s", key, &v, unit);
		if (n == 3 && !strcmp(unit, "kB"))
			kernel_put(k, key, v);
		else if (n == 2)
			kernel_put(k, key, v);	/* a count: HugePages_* */
	}
	if (f)
		fclose(f);
	if (kernel_get(k, "Hugepagesize", &hp_kb))
		for (size_t i = 0; i < k->n; i++)
			if (!strncmp(k->v[i].key, "HugePages_", 10))
				k->v[i].kb *= hp_kb;
	f = where_proc_open("vmstat");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", key, &v) == 2 && !strcmp(key, "nr_zspages"))
			kernel_put(k, "vmstat:nr_zspages", v * k->page_kb);
	if (f)
		fclose(f);
	/* the per-CPU lists: every "count: N" of zoneinfo's pagesets */
	f = where_proc_open("zoneinfo");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %lld", &v) == 1) {
			pcp += v;
			have_pcp = true;
		}
	if (f)
		fclose(f);
	if (have_pcp)
		kernel_put(k, "zoneinfo:count", pcp * k->page_kb);
}

/*
 * A counterpart "A+B-C" in kB: each term a meminfo key, vmstat:NAME,
 * zoneinfo:count, or unaccounted (summary's own figure); false when a term
 * is none of those the kernel printed (the value is then "-").
 */
static bool counterpart_kb(const struct where_kernel *k, const struct mi_table *s,
			   const char *expr, long long *out)
{
	char term[64];
	long long sum = 0, v;
	int sign = 1;

	if (!strcmp(expr, "-"))
		return false;
	while (*expr) {
		size_t len = strcspn(expr, "+-");

		if (!len || len >= sizeof(term))
			return false;
		memcpy(term, expr, len);
		term[len] = '\0';
		if (!strcmp(term, "unaccounted")) {
			long r = mi_find(s, "field", "unaccounted");

			if (r < 0 || mi_parse_s64(mi_get(s, (size_t)r, "value"), &v))
				return false;
		} else if (!kernel_get(k, term, &v)) {
			return false;
		}
		sum += sign * v;
		expr += len;
		if (*expr)
			sign = *expr++ == '-' ? -1 : 1;
	}
	*out = sum;
	return true;
}

static int where_add(struct mi_table *v, const struct where_kernel *k, const struct mi_table *s,
		     const char *section, const char *figure, const char *kb,
		     const char *counterpart)
{
	long r = mi_table_add_record(v);
	char num[32];
	long long c;

	if (r < 0)
		return -1;
	if (counterpart_kb(k, s, counterpart, &c))
		snprintf(num, sizeof(num), "%lld", c);
	else
		snprintf(num, sizeof(num), "-");
	mi_table_set(v, (size_t)r, 0, section);
	mi_table_set(v, (size_t)r, 1, figure);
	mi_table_set(v, (size_t)r, 2, kb);
	mi_table_set(v, (size_t)r, 3, counterpart);
	mi_table_set(v, (size_t)r, 4, num);
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
	struct where_kernel *k = malloc(sizeof(*k));
	char kb[32];

	if (!k) {
		mi_table_free(v);
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	kernel_read(k);
	if (!v) {
		free(k);
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	for (size_t i = 0; i < sizeof(where_summary) / sizeof(where_summary[0]); i++) {
		long r = mi_find(s, "field", where_summary[i].figure);

		if (r >= 0)
			where_add(v, k, s, "summary", where_summary[i].figure,
				  mi_get(s, (size_t)r, "value"), where_summary[i].counterpart);
	}
	for (size_t i = 0; i < sizeof(where_census) / sizeof(where_census[0]); i++) {
		long long ckb = census_kb(p, where_census[i].figure);

		if (ckb < 0)
			continue;	/* a class this module does not print */
		snprintf(kb, sizeof(kb), "%lld", ckb);
		where_add(v, k, s, "census", where_census[i].figure, kb, where_census[i].counterpart);
	}
	free(k);
	mi_table_add_note(v, "census figures are the pages file summed over nodes and zones, in kB; docs/summary.md says how unaccounted is made of the census classes");
	mi_table_add_note(v, "kernel_kb is the counterpart read from /proc just after the module's files; '-' where the kernel has no one figure for it");
	if (mi_table_error(v)) {
		view_build_failed(v, "where");
		mi_table_free(v);
		return ST_FORMAT;
	}
	*out = v;
	return ST_OK;
}

/* the two tables: text one after the other, JSON one object */
static int where_show(const struct mi_cli *c, const struct mi_table *rank,
		      const struct mi_table *v)
{
	struct json j;
	int st;

	if (!c->json) {
		st = view_print(c, rank);
		if (!st) {
			putchar('\n');
			st = view_print(c, v);
		}
		return st;
	}
	json_init(&j, stdout);
	json_begin_object(&j);
	/* pct a number, holders text (null: none) */
	json_key(&j, "ranked");
	json_begin_array(&j);
	for (size_t r = 0; r < mi_nrecords(rank); r++) {
		json_begin_object(&j);
		for (size_t col = 0; col < mi_nfields(rank); col++) {
			json_key(&j, mi_field_name(rank, col));
			json_decimal(&j, mi_value(rank, r, col));
		}
		json_end_object(&j);
	}
	json_end_array(&j);
	json_key(&j, "reconciliation");
	json_records(&j, v);
	json_end_object(&j);
	json_finish(&j);
	view_notes_to_stderr(rank, "where");
	view_notes_to_stderr(v, "where");
	return ST_OK;
}

int cmd_where(const struct mi_cli *c, struct cmd_opts *o)
{
	struct mi_table *s, *p, *v, *rank;
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
		st = where_rank_build(c, s, p, &rank);
		if (!st) {
			st = where_show(c, rank, v);
			mi_table_free(rank);
		}
		mi_table_free(v);
	}
	mi_table_free(s);
	mi_table_free(p);
	return st;
}
