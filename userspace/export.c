// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus export of the module's tables (docs/export.md).
 *
 * A file becomes metrics by its header alone: fields that identify a row
 * (node, zone, order, ...) become labels, integer and yes/no fields become
 * one metric each, named meminspect_FILE_FIELD with the unit turned into a
 * base unit (_kb -> _bytes, values times 1024). A row of prom_rules only
 * says what the header cannot: which fields only grow (counters), which
 * are labels although they look like numbers, what not to export.
 */
#include "export.h"
#include "hist.h"
#include "parse.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum prom_shape {
	PROM_WIDE,	/* a record per object, a column per figure */
	PROM_LONG,	/* "field value unit": a record per figure */
	PROM_HISTOGRAM,	/* latency/histograms: Prometheus histograms (hist.c) */
};

struct prom_rule {
	const char *file;	/* NULL: the defaults, for every other file */
	const char *metric;	/* replaces FILE in meminspect_FILE_FIELD; NULL: FILE */
	enum prom_shape shape;
	const char *labels;	/* fields that become labels, space-separated */
	const char *counters;	/* fields that only grow: TYPE counter, _total */
	const char *skip;	/* fields never exported */
	const char *per_pid;	/* the field that makes rows per process */
	/*
	 * "FIELD=NAME ...": NAME replaces FIELD in the metric name, where the
	 * field's name breaks a Prometheus convention (promtool reads "sec"
	 * as abbreviated seconds).
	 */
	const char *renames;
	/*
	 * "PREFIX LABEL METRIC": the columns PREFIX0, PREFIX1, ... are one
	 * metric METRIC with a label LABEL=0, 1, ... (a column per order
	 * becomes the order label).
	 */
	const char *pivot;
	/*
	 * Why the file is never exported, said in a "#" comment. mm and vmas
	 * show the process that reads them unless a pid is written to the open
	 * file: export would publish its own memory under a pid that changes
	 * every run, and it never chooses a target (meminspect mm PID, top).
	 */
	const char *left_out;
};

/*
 * One row per file whose header alone does not say it all. A new file
 * that follows docs/format.md is exported without a row here; add one to
 * name its counters or labels. Keep the defaults' label list in step with
 * the label fields the module's files use.
 */
#define DEFAULT_LABELS "node zone order migratetype cache name kind cpu type site"
static const struct prom_rule prom_rules[] = {
	/*
	 * summary holds the headline figures: meminspect_mem_total_bytes,
	 * meminspect_unaccounted_bytes (and "summary" in a metric name is the
	 * name of a Prometheus type, which promtool rejects).
	 */
	{ .file = "summary", .metric = "", .shape = PROM_LONG,
	  .renames = "sec_page_tables=secondary_page_tables" },
	{ .file = "capabilities", .labels = "name kind", .skip = "detail" },
	/* zones' counts are pages, as in /proc/zoneinfo: say so in the name */
	{ .file = "zones", .labels = DEFAULT_LABELS, .pivot = "nr_free_ order free_blocks",
	  .renames = "spanned=spanned_pages present=present_pages managed=managed_pages "
		     "free=free_pages min=min_pages low=low_pages high=high_pages "
		     "boost=boost_pages pcp=pcp_pages" },
	{ .file = "buddy", .labels = DEFAULT_LABELS, .pivot = "order_ order free_blocks" },
	/*
	 * one row per cache: its name is the label; order is the slab's, a
	 * figure. The sizes are bytes: say so in the name.
	 */
	{ .file = "slabs", .labels = "name",
	  .renames = "name=cache object_size=object_size_bytes slab_size=slab_size_bytes "
		     "align=align_bytes" },
	/*
	 * pages: one row per node, zone and class (docs/pages.md):
	 * meminspect_pages_pages{node,zone,class} and _bytes.
	 */
	{ .file = "pages", .labels = "node zone class" },
	/*
	 * cgroups: one row per memory cgroup, told apart by id (its
	 * directory's inode) and path; state is a label, as a dying cgroup's
	 * figures are what still pins it (docs/cgroups.md):
	 * meminspect_cgroups_anon_pages{id,state,path}, ...; for
	 * --cgroup-series cgroups at most (export_cgroups()).
	 */
	{ .file = "cgroups", .labels = "id state path" },
	/*
	 * cgroup_slabs: a row per cgroup and cache, up to 16384: each
	 * cgroup's total is the cgroups file's slab_bytes.
	 */
	{ .file = "cgroup_slabs",
	  .left_out = "a series per memory cgroup and slab cache is too many; the cgroups file's slab_bytes is each cgroup's total" },
	/*
	 * files: an inode is its device and number, named by its path and the
	 * cgroup charged; files_top (default 100) bounds the series:
	 * meminspect_files_pages{dev,ino,path,cgroup}, _dirty, _writeback.
	 */
	{ .file = "files", .labels = "dev ino path cgroup" },
	/*
	 * pressure: one row per figure, told apart by section, scope and name;
	 * the unit is a label, as the figures differ in kind. delta is the
	 * change since this open file's previous read: one scrape opens the
	 * file once, so it says nothing there (rate() over value does).
	 */
	{ .file = "pressure", .labels = "section scope name unit", .skip = "delta" },
	/* meminspect_latency_seconds_bucket{kind,le}, _sum, _count (hist.c) */
	{ .file = "latency/histograms", .shape = PROM_HISTOGRAM },
	/*
	 * latency/page_alloc (docs/latency.md): meminspect_latency_page_alloc_
	 * fast_total{order="0"}, _slow_total, _failed_total; since arming.
	 */
	{ .file = "latency/page_alloc", .metric = "latency_page_alloc", .labels = "order",
	  .counters = "fast slow failed" },
	{ .file = "mm", .left_out = "the reading process's own memory (meminspect mm PID, top)" },
	{ .file = "vmas", .left_out = "the reading process's own mappings (meminspect vmas PID)" },
	/*
	 * fault/stats (docs/fault.md): meminspect_fault_checked_total{site="slab"},
	 * ..., and meminspect_fault_attached; the counts restart at each arming.
	 */
	{ .file = "fault/stats", .metric = "fault", .labels = "site",
	  .counters = "checked matched failed nofail spared" },
	/*
	 * allocs/table (docs/allocs.md): meminspect_allocs_live_bytes{cache=
	 * "kmalloc-64",site="kstrdup+0x2d/0x60"}, ..._allocs_total,
	 * ..._frees_total; the counts restart at each arming; rate (since
	 * arming) is left to rate().
	 */
	{ .file = "allocs/table", .metric = "allocs", .labels = "cache site",
	  .counters = "allocs frees", .skip = "rate" },
	{ .labels = DEFAULT_LABELS, .per_pid = "pid" },
};

static const struct prom_rule *rule_of(const char *file)
{
	const struct prom_rule *r = prom_rules;

	while (r->file && strcmp(r->file, file))
		r++;
	return r;
}

/* name is one of the space-separated words of list */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		size_t w = strcspn(p, " ");

		if (w == n && !strncmp(p, name, n))
			return true;
		p += w;
		p += strspn(p, " ");
	}
	return false;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* field's name in metric names: its rename in r, else itself (into buf) */
static const char *renamed(const struct prom_rule *r, const char *field, char *buf, size_t len)
{
	size_t n = strlen(field);

	for (const char *p = r->renames; p && *p;) {
		size_t w = strcspn(p, " ");

		if (w > n + 1 && !strncmp(p, field, n) && p[n] == '=' && w - n - 1 < len) {
			memcpy(buf, p + n + 1, w - n - 1);
			buf[w - n - 1] = '\0';
			return buf;
		}
		p += w;
		p += strspn(p, " ");
	}
	return field;
}

/* ---- output: text format or JSON ---- */

int prom_family(struct prom_out *o, const char *name, const char *type, const char *help)
{
	char **seen;

	for (size_t i = 0; i < o->nseen; i++) {
		if (!strcmp(o->seen[i], name)) {
			fprintf(stderr, "meminspect: export: two figures map to metric %s; the second is left out\n",
				name);
			return -EEXIST;
		}
	}
	seen = realloc(o->seen, (o->nseen + 1) * sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	o->seen = seen;
	seen[o->nseen] = strdup(name);
	if (!seen[o->nseen])
		return -ENOMEM;
	o->nseen++;
	o->family = name;
	o->type = type;
	if (o->j)
		return 0;
	fprintf(o->f, "# HELP %s ", name);
	for (; *help; help++) {	/* HELP escapes '\\' and newline */
		if (*help == '\\')
			fputs("\\\\", o->f);
		else if (*help == '\n')
			fputs("\\n", o->f);
		else
			putc(*help, o->f);
	}
	fprintf(o->f, "\n# TYPE %s %s\n", name, type);
	return 0;
}

void prom_out_release(struct prom_out *o)
{
	for (size_t i = 0; i < o->nseen; i++)
		free(o->seen[i]);
	free(o->seen);
	o->seen = NULL;
	o->nseen = 0;
}

void prom_sample(struct prom_out *o, const char *name, const char *const *labels,
		 const char *value)
{
	if (o->j) {
		json_begin_object(o->j);
		json_key(o->j, "metric");
		json_string(o->j, name);
		json_key(o->j, "type");
		json_string(o->j, o->type);
		json_key(o->j, "labels");
		json_begin_object(o->j);
		for (size_t i = 0; labels && labels[i]; i += 2) {
			json_key(o->j, labels[i]);
			json_string(o->j, labels[i + 1]);
		}
		json_end_object(o->j);
		json_key(o->j, "value");
		json_value(o->j, value);
		json_end_object(o->j);
		return;
	}
	fputs(name, o->f);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		fprintf(o->f, "%s%s=", i ? "," : "{", labels[i]);
		prom_write_label_value(o->f, labels[i + 1]);
	}
	fprintf(o->f, "%s %s\n", labels && labels[0] ? "}" : "", value);
}

/* ---- values ---- */

/*
 * The sample text for a table value times scale (1 or 1024); false for
 * `-` (no sample: the kernel cannot provide it) and non-numbers. yes/no
 * become 1/0. Exact integers while they fit in 64 bits, else a float.
 */
static bool sample_value(char *buf, size_t len, const char *v, unsigned int scale)
{
	long long s;
	unsigned long long u;

	if (!strcmp(v, "yes") || !strcmp(v, "no")) {
		snprintf(buf, len, "%d", v[0] == 'y');
		return true;
	}
	if (!mi_parse_s64(v, &s)) {
		if (s <= LLONG_MAX / scale && s >= LLONG_MIN / scale)
			snprintf(buf, len, "%lld", s * scale);
		else
			snprintf(buf, len, "%.17g", (double)s * scale);
		return true;
	}
	if (!mi_parse_u64(v, &u)) {
		if (u <= ULLONG_MAX / scale)
			snprintf(buf, len, "%llu", u * scale);
		else
			snprintf(buf, len, "%.17g", (double)u * scale);
		return true;
	}
	return false;
}

static bool is_bool(const char *v)
{
	return !strcmp(v, "yes") || !strcmp(v, "no");
}

/*
 * meminspect_FILE_FIELD with the unit made a base unit: *scale is what
 * values are multiplied by. unit is the record's unit column (long shape)
 * or NULL. Counters end in _total; a gauge must not end in a suffix that
 * Prometheus reserves (_total, _count, _sum, _bucket).
 */
static bool metric_name(char *buf, size_t len, const char *file, const char *field,
			const char *unit, bool counter, unsigned int *scale)
{
	char base[256], stem[200];
	const char *suffix = "";
	size_t n = strlen(field);

	*scale = 1;
	if (n >= sizeof(stem))
		return false;
	memcpy(stem, field, n + 1);
	if (ends_with(stem, "_kb")) {
		stem[n - 3] = '\0';
		*scale = 1024;
		suffix = "_bytes";
	} else if (unit && !strcmp(unit, "kB")) {
		*scale = 1024;
		suffix = "_bytes";
	} else if (unit && (!strcmp(unit, "B") || !strcmp(unit, "bytes"))) {
		suffix = "_bytes";
	} else if (unit && !strcmp(unit, "pages")) {
		suffix = "_pages";
	}
	if (*suffix && ends_with(stem, suffix))
		suffix = "";
	if (!counter && (ends_with(stem, "_total") || ends_with(stem, "_count") ||
			 ends_with(stem, "_sum") || ends_with(stem, "_bucket")) && !*suffix)
		suffix = "_value";
	snprintf(base, sizeof(base), "%s%s%s%s%s", file, *file ? "_" : "", stem, suffix,
		 counter && !ends_with(stem, "_total") ? "_total" : "");
	return prom_metric_name(buf, len, "meminspect_", base);
}

/* ---- the two shapes ---- */

static int export_long(struct prom_out *o, const char *file, const struct mi_table *t,
		       const struct prom_rule *r)
{
	char name[300], val[64], help[300], alias[128];
	unsigned int scale;
	int err = 0, ret;

	for (size_t rec = 0; rec < mi_nrecords(t); rec++) {
		const char *field = mi_get(t, rec, "field"), *unit = mi_get(t, rec, "unit");
		bool counter = in_list(r->counters, field);

		if (in_list(r->skip, field))
			continue;
		if (!sample_value(val, sizeof(val), mi_get(t, rec, "value"), 1))
			continue;	/* `-`: no sample; capabilities says why */
		if (!metric_name(name, sizeof(name), r->metric ? r->metric : file,
				 renamed(r, field, alias, sizeof(alias)), unit, counter, &scale))
			continue;
		sample_value(val, sizeof(val), mi_get(t, rec, "value"), scale);
		snprintf(help, sizeof(help), "%s %s (%s in the file)", file, field,
			 unit ? unit : "no unit");
		ret = prom_family(o, name, counter ? "counter" : "gauge", help);
		if (ret == -ENOMEM)
			return ret;
		if (ret) {
			err = -EINVAL;
			continue;
		}
		prom_sample(o, name, NULL, val);
	}
	return err;
}

/*
 * A label field: one the rule names (by default those that identify a row
 * in the module's files). Other text columns (free text, lists) are not
 * exported: as labels they would make series nobody asked for.
 */
static bool is_label(const struct mi_table *t, size_t col, const struct prom_rule *r)
{
	return in_list(r->labels, mi_field_name(t, col));
}

/* The pivot's PREFIX, LABEL and METRIC words; false if the rule has none. */
static bool pivot_of(const struct prom_rule *r, char *prefix, char *label, char *metric,
		     size_t len)
{
	char fmt[32];

	if (!r->pivot)
		return false;
	snprintf(fmt, sizeof(fmt), "%%%zus %%%zus %%%zus", len - 1, len - 1, len - 1);
	return sscanf(r->pivot, fmt, prefix, label, metric) == 3;
}

/* Column name with the pivot's prefix and something after it. */
static bool in_pivot(const char *field, const char *prefix)
{
	size_t n = strlen(prefix);

	return *prefix && !strncmp(field, prefix, n) && field[n];
}

/* Every value of the column is a number, yes/no or `-`, and one is not `-`. */
static bool is_figure(const struct mi_table *t, size_t col)
{
	bool any = false;

	for (size_t rec = 0; rec < mi_nrecords(t); rec++) {
		const char *v = mi_value(t, rec, col);

		if (mi_is_none(v))
			continue;
		if (!mi_is_integer(v) && !is_bool(v))
			return false;
		any = true;
	}
	return any;
}

/* Two records with the same labels would be one series twice. */
static bool duplicate_series(const struct mi_table *t, const size_t *lab, size_t nlab,
			     size_t *a, size_t *b)
{
	for (size_t i = 0; i < mi_nrecords(t); i++) {
		for (size_t k = 0; k < i; k++) {
			size_t l = 0;

			while (l < nlab && !strcmp(mi_value(t, i, lab[l]), mi_value(t, k, lab[l])))
				l++;
			if (l == nlab) {
				*a = k;
				*b = i;
				return true;
			}
		}
	}
	return false;
}

static int export_wide(struct prom_out *o, const char *file, const struct mi_table *t,
		       const struct prom_rule *r)
{
	size_t nf = mi_nfields(t), nlab = 0, a, b;
	size_t *lab = calloc(nf + 1, sizeof(*lab));
	char (*labname)[64] = calloc(nf + 1, sizeof(*labname));
	const char **labels = calloc(2 * nf + 3, sizeof(*labels));
	char name[300], val[64], help[300], alias[128];
	char pprefix[64], plabel[64], pmetric[64];
	unsigned int scale;
	int err = 0, ret;

	if (!lab || !labname || !labels) {
		err = -ENOMEM;
		goto out;
	}
	if (r->per_pid && mi_field_index(t, r->per_pid) >= 0 && !o->per_pid) {
		if (!o->j)
			fprintf(o->f, "# meminspect: %s left out: per-process rows (--per-pid)\n", file);
		goto out;
	}
	for (size_t c = 0; c < nf; c++) {
		const char *field = mi_field_name(t, c);

		if (in_list(r->skip, field))
			continue;
		if (!is_label(t, c, r) && !(o->per_pid && r->per_pid && !strcmp(field, r->per_pid)))
			continue;
		if (!prom_metric_name(labname[nlab], sizeof(labname[nlab]), NULL,
				      renamed(r, field, alias, sizeof(alias))) ||
		    !strncmp(labname[nlab], "__", 2))
			continue;
		lab[nlab++] = c;
	}
	if (duplicate_series(t, lab, nlab, &a, &b)) {
		fprintf(stderr, "meminspect: export: %s: lines %u and %u have the same labels; file left out\n",
			file, mi_record_line(t, a), mi_record_line(t, b));
		err = -EINVAL;
		goto out;
	}
	if (pivot_of(r, pprefix, plabel, pmetric, sizeof(pprefix))) {
		bool any = false;

		for (size_t c = 0; c < nf; c++)
			any |= in_pivot(mi_field_name(t, c), pprefix) && is_figure(t, c);
		if (any && metric_name(name, sizeof(name), r->metric ? r->metric : file, pmetric,
				       NULL, in_list(r->counters, pmetric), &scale)) {
			snprintf(help, sizeof(help), "%s fields %sN as %s{%s=\"N\"}", file, pprefix,
				 pmetric, plabel);
			ret = prom_family(o, name, in_list(r->counters, pmetric) ? "counter" : "gauge",
					  help);
			for (size_t rec = 0; !ret && rec < mi_nrecords(t); rec++) {
				for (size_t c = 0; c < nf; c++) {
					const char *field = mi_field_name(t, c);

					if (!in_pivot(field, pprefix) ||
					    !sample_value(val, sizeof(val), mi_value(t, rec, c), scale))
						continue;
					for (size_t l = 0; l < nlab; l++) {
						labels[2 * l] = labname[l];
						labels[2 * l + 1] = mi_value(t, rec, lab[l]);
					}
					labels[2 * nlab] = plabel;
					labels[2 * nlab + 1] = field + strlen(pprefix);
					labels[2 * nlab + 2] = NULL;
					prom_sample(o, name, labels, val);
				}
			}
			if (ret) {
				err = ret == -ENOMEM ? ret : -EINVAL;
				goto out;
			}
		}
	} else {
		pprefix[0] = '\0';
	}
	for (size_t c = 0; c < nf; c++) {
		const char *field = mi_field_name(t, c);
		bool counter = in_list(r->counters, field), label = false;

		for (size_t l = 0; l < nlab; l++)
			label |= lab[l] == c;
		if (label || in_list(r->skip, field) || in_pivot(field, pprefix) || !is_figure(t, c))
			continue;
		if (!metric_name(name, sizeof(name), r->metric ? r->metric : file,
				 renamed(r, field, alias, sizeof(alias)), NULL, counter, &scale))
			continue;
		snprintf(help, sizeof(help), "%s field %s%s", file, field,
			 scale == 1024 ? " (kB in the file)" : "");
		ret = prom_family(o, name, counter ? "counter" : "gauge", help);
		if (ret == -ENOMEM) {
			err = ret;
			goto out;
		}
		if (ret) {
			err = -EINVAL;
			continue;
		}
		for (size_t rec = 0; rec < mi_nrecords(t); rec++) {
			if (!sample_value(val, sizeof(val), mi_value(t, rec, c), scale))
				continue;
			for (size_t l = 0; l < nlab; l++) {
				labels[2 * l] = labname[l];
				labels[2 * l + 1] = mi_value(t, rec, lab[l]);
			}
			labels[2 * nlab] = NULL;
			prom_sample(o, name, labels, val);
		}
	}
out:
	free(lab);
	free(labname);
	free(labels);
	return err;
}

/*
 * cgroups: up to 4096 records, 4 series each.  Only o->cgroup_series of
 * them get series (cgroups_for_export(): the dying ones first, then the
 * largest); three gauges without labels keep the totals whatever the cap.
 */
static int export_cgroups(struct prom_out *o, const struct mi_table *t,
			  const struct prom_rule *r)
{
	static const char *const names[] = {
		"meminspect_cgroups_series_dropped", "meminspect_cgroups_dying",
		"meminspect_cgroups_dying_bytes" };
	static const char *const helps[] = {
		"memory cgroups left without series by export --cgroup-series",
		"dying memory cgroups (removed, still held), exported or not",
		"bytes the dying memory cgroups hold: pages x page size + slab_bytes where known" };
	size_t cap = o->cgroup_series ? o->cgroup_series : MI_CGROUP_SERIES_DEFAULT;
	struct cgroups_export_sums s;
	struct mi_error e;
	struct mi_table *keep = cgroups_for_export(t, cap, &s, &e);
	unsigned long long v[3];
	char val[32];
	int err, ret;

	if (!keep)
		return -ENOMEM;
	err = export_wide(o, "cgroups", keep, r);
	mi_table_free(keep);
	if (err == -ENOMEM)
		return err;
	v[0] = s.dropped;
	v[1] = s.dying;
	v[2] = s.dying_bytes;
	for (size_t i = 0; i < 3; i++) {
		ret = prom_family(o, names[i], "gauge", helps[i]);
		if (ret == -ENOMEM)
			return ret;
		if (ret) {
			err = -EINVAL;
			continue;
		}
		snprintf(val, sizeof(val), "%llu", v[i]);
		prom_sample(o, names[i], NULL, val);
	}
	return err;
}

int prom_export_table(struct prom_out *o, const char *file, const struct mi_table *t)
{
	const struct prom_rule *r = rule_of(file);

	if (r->left_out) {
		if (!o->j)
			fprintf(o->f, "# meminspect: %s left out: %s\n", file, r->left_out);
		return 0;
	}
	if (r->shape == PROM_HISTOGRAM)
		return prom_export_histograms(o, file, t);
	if (r->shape == PROM_LONG && mi_field_index(t, "field") >= 0 &&
	    mi_field_index(t, "value") >= 0)
		return export_long(o, file, t, r);
	if (!strcmp(file, "cgroups"))
		return export_cgroups(o, t, r);
	return export_wide(o, file, t, r);
}
