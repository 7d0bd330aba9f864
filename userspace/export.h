/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every figure of a meminspect table as Prometheus metrics (docs/export.md).
 * How a file maps to metrics is data: a row of export.c's table, else the
 * defaults derived from the file's header.
 */
#ifndef MI_EXPORT_H
#define MI_EXPORT_H

#include "output.h"

#include <stdbool.h>
#include <stdio.h>

struct mi_table;
struct mi_error;

/* export --cgroup-series: the default, and the module's cap on cgroups records */
#define MI_CGROUP_SERIES_DEFAULT 100
#define MI_CGROUP_SERIES_MAX 4096

struct prom_out {
	FILE *f;
	struct json *j;		/* non-NULL: samples as JSON objects instead */
	bool per_pid;		/* export files with per-process rows too */
	size_t cgroup_series;	/* cgroups: series for this many at most; 0: the default */
	/* private */
	const char *family;	/* current metric name (JSON mode) */
	const char *type;
	char **seen;		/* every family so far: each may appear once */
	size_t nseen;
};

/*
 * One metric family: # HELP and # TYPE lines (nothing in JSON mode). 0, or
 * -EEXIST when the export already has a family of that name (two fields
 * mapped to one name: its samples must be left out; message on stderr),
 * or -ENOMEM.
 */
int prom_family(struct prom_out *o, const char *name, const char *type, const char *help);
/* Frees what prom_family keeps. */
void prom_out_release(struct prom_out *o);
/*
 * One sample of the current family. labels: NULL-terminated name, value
 * pairs (names already valid); value: the sample's text.
 */
void prom_sample(struct prom_out *o, const char *name, const char *const *labels,
		 const char *value);

/*
 * All figures of table t (the module's file `file`). 0, or -EINVAL when
 * the file cannot be mapped (duplicate series; message on stderr), or
 * -ENOMEM. A file with per-process rows is left out unless o->per_pid;
 * mm and vmas (the reading process's own memory) always are.
 */
int prom_export_table(struct prom_out *o, const char *file, const struct mi_table *t);

/* cmd_cgroups.c: the cgroups left without series, and the dying ones */
struct cgroups_export_sums {
	size_t dropped;			/* records not exported */
	size_t dying;			/* dying records, exported or not */
	unsigned long long dying_bytes;	/* the sum of their cgroups_total() */
};

/*
 * The cgroups (at most cap) whose records get series: every dying one
 * first, then the largest by cgroups_total(); in the file's order.  NULL
 * and *e filled when out of memory.
 */
struct mi_table *cgroups_for_export(const struct mi_table *t, size_t cap,
				    struct cgroups_export_sums *s, struct mi_error *e);
/* record r's bytes: pages x page size + slab_bytes, a '-' counting as 0 */
unsigned long long cgroups_total(const struct mi_table *t, size_t r);

#endif
