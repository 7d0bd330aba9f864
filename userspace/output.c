// SPDX-License-Identifier: GPL-2.0
/* Table, JSON and Prometheus output for meminspect tables. */
#include "output.h"
#include "parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- table ---- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

void out_human(char *num, size_t len, const char **unit, long long v,
	       unsigned long long unit_bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	/* double: v * unit_bytes may not fit in 64 bits, and we round anyway */
	double x = (double)v * (double)unit_bytes;
	size_t u = 0;

	while (fabs(x) >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		x /= 1024;
		u++;
	}
	*unit = units[u];
	if (x == floor(x))
		snprintf(num, len, "%.0f", x);
	else /* three significant digits: 1.92, 19.2, 192 */
		snprintf(num, len, fabs(x) < 10 ? "%.2f" : fabs(x) < 100 ? "%.1f" : "%.0f", x);
}

/*
 * Bytes per unit of a cell, 0 if not a size. Per docs/format.md units are
 * in the field name (_kb, _bytes) or in the record's `unit` column, which
 * qualifies its `value` column. _pages and "pages" stay counts: huge pages
 * are not base pages.
 */
static unsigned long long cell_scale(const struct mi_table *t, size_t rec, size_t col)
{
	const char *name = mi_field_name(t, col), *unit;

	if (ends_with(name, "_kb"))
		return 1024;
	if (ends_with(name, "_bytes"))
		return 1;
	if (strcmp(name, "value") != 0 || !(unit = mi_get(t, rec, "unit")))
		return 0;
	return strcmp(unit, "kB") == 0 ? 1024 : strcmp(unit, "B") == 0 ? 1 : 0;
}

/* What out_table prints for a cell; buf holds it when it is rewritten. */
static const char *cell_text(const struct mi_table *t, size_t rec, size_t col,
			     const struct out_opts *o, char *buf, size_t len)
{
	const char *v = mi_value(t, rec, col), *unit;
	int vcol = mi_field_index(t, "value");
	long long n;

	if (!o->human)
		return v;
	/* a `unit` cell names the unit its `value` was scaled to */
	if (vcol >= 0 && strcmp(mi_field_name(t, col), "unit") == 0) {
		unsigned long long scale = cell_scale(t, rec, (size_t)vcol);

		if (!scale || mi_parse_s64(mi_value(t, rec, (size_t)vcol), &n))
			return v;
		out_human(buf, len, &unit, n, scale);
		return unit;
	}
	if (!cell_scale(t, rec, col) || mi_parse_s64(v, &n))
		return v;
	out_human(buf, len, &unit, n, cell_scale(t, rec, col));
	if (strcmp(mi_field_name(t, col), "value") != 0) {
		/* no unit column to carry the unit: keep it in the cell */
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, " %s", unit);
	}
	return buf;
}

/* Integer columns (ignoring `-`) are right-aligned, text left-aligned. */
static bool column_is_numeric(const struct mi_table *t, size_t col)
{
	bool any = false;

	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *v = mi_value(t, r, col);

		if (mi_is_none(v))
			continue;
		if (!mi_is_integer(v))
			return false;
		any = true;
	}
	return any;
}

struct column {
	size_t width;
	bool right;
	const char *cell;
	char buf[32];	/* a rewritten (human) cell */
};

static void print_row(FILE *f, const struct column *cols, size_t n)
{
	for (size_t c = 0; c < n; c++) {
		int w = (int)cols[c].width;

		if (c + 1 == n && !cols[c].right)	/* no trailing blanks */
			fprintf(f, "%s\n", cols[c].cell);
		else
			fprintf(f, cols[c].right ? "%*s%s" : "%-*s%s", w, cols[c].cell,
				c + 1 == n ? "\n" : "  ");
	}
}

int out_table(FILE *f, const struct mi_table *t, const struct out_opts *o)
{
	size_t n = mi_nfields(t);
	/* on the heap: the column count comes from the file */
	struct column *cols = calloc(n, sizeof(*cols));

	if (!cols)
		return -ENOMEM;
	for (size_t c = 0; c < n; c++) {
		cols[c].width = strlen(mi_field_name(t, c));
		cols[c].right = column_is_numeric(t, c);
		for (size_t r = 0; r < mi_nrecords(t); r++) {
			size_t w = strlen(cell_text(t, r, c, o, cols[c].buf, sizeof(cols[c].buf)));

			if (w > cols[c].width)
				cols[c].width = w;
		}
	}
	for (size_t c = 0; c < n; c++)
		cols[c].cell = mi_field_name(t, c);
	print_row(f, cols, n);
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		for (size_t c = 0; c < n; c++)
			cols[c].cell = cell_text(t, r, c, o, cols[c].buf, sizeof(cols[c].buf));
		print_row(f, cols, n);
	}
	for (size_t i = 0; i < mi_nnotes(t); i++)
		fprintf(f, "# %s\n", mi_note(t, i));
	free(cols);
	return 0;
}

/* ---- JSON ---- */

/* Length of the valid UTF-8 sequence at s (RFC 3629), 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong forms, no UTF-16 surrogates, nothing past U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', f);
	while (*s) {
		size_t n = utf8_len(s);

		if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s);
		} else if (!n) {
			fputs("\\ufffd", f);
			n = 1;
		} else {
			fwrite(s, 1, n, f);
		}
		s += n ? n : 1;
	}
	putc('"', f);
}

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* Before any value or key: the comma and newline-indent it needs. */
static void json_sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0)
		return;
	fprintf(j->f, "%s\n%*s", j->nonempty[j->depth] ? "," : "", 2 * j->depth, "");
	j->nonempty[j->depth] = true;
}

static void json_open(struct json *j, char c)
{
	json_sep(j);
	putc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->nonempty[j->depth] = false;
}

static void json_close(struct json *j, char c)
{
	if (j->nonempty[j->depth])
		fprintf(j->f, "\n%*s", 2 * (j->depth - 1), "");
	if (j->depth > 0)
		j->depth--;
	putc(c, j->f);
}

void json_begin_object(struct json *j)
{
	json_open(j, '{');
}

void json_end_object(struct json *j)
{
	json_close(j, '}');
}

void json_begin_array(struct json *j)
{
	json_open(j, '[');
}

void json_end_array(struct json *j)
{
	json_close(j, ']');
}

void json_key(struct json *j, const char *key)
{
	json_sep(j);
	json_write_string(j->f, key);
	fputs(": ", j->f);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	json_sep(j);
	json_write_string(j->f, s);
}

void json_null(struct json *j)
{
	json_sep(j);
	fputs("null", j->f);
}

void json_value(struct json *j, const char *v)
{
	long long n;
	unsigned long long u;

	/* numbers printed from the parsed value: "007" is not JSON, 7 is */
	if (mi_is_none(v)) {
		json_null(j);
	} else if (mi_parse_s64(v, &n) == 0) {
		json_sep(j);
		fprintf(j->f, "%lld", n);
	} else if (mi_parse_u64(v, &u) == 0) {
		json_sep(j);
		fprintf(j->f, "%llu", u);
	} else {
		json_string(j, v);
	}
}

void json_decimal(struct json *j, const char *v)
{
	size_t i = v[0] == '-' ? 1 : 0, digits = strspn(v + i, "0123456789");

	/* [-]D+.D+ only: JSON has no "1.", ".5" or "1e3" from a table */
	if (digits && v[i + digits] == '.' && v[i + digits + 1] &&
	    !v[i + digits + 1 + strspn(v + i + digits + 1, "0123456789")]) {
		json_sep(j);
		fputs(v, j->f);
	} else {
		json_value(j, v);
	}
}

void json_record(struct json *j, const struct mi_table *t, size_t rec)
{
	json_begin_object(j);
	for (size_t c = 0; c < mi_nfields(t); c++) {
		json_key(j, mi_field_name(t, c));
		json_value(j, mi_value(t, rec, c));
	}
	json_end_object(j);
}

void json_records(struct json *j, const struct mi_table *t)
{
	json_begin_array(j);
	for (size_t r = 0; r < mi_nrecords(t); r++)
		json_record(j, t, r);
	json_end_array(j);
}

void json_finish(struct json *j)
{
	putc('\n', j->f);
}

/* ---- Prometheus text format ---- */

bool prom_metric_name(char *buf, size_t len, const char *prefix, const char *name)
{
	size_t o = 0;
	const char *parts[] = { prefix ? prefix : "", name };

	for (size_t p = 0; p < 2; p++) {
		for (const char *s = parts[p]; *s; s++) {
			char c = *s;
			bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
			bool digit = c >= '0' && c <= '9';

			if (o == 0 && digit) {	/* names may not start with a digit */
				if (len < 2)
					return false;
				buf[o++] = '_';
			}
			if (o + 1 >= len)
				return false;
			buf[o++] = alpha || digit ? c : '_';
		}
	}
	if (o == 0 || len == 0)
		return false;
	buf[o] = '\0';
	return true;
}

void prom_write_label_value(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			putc(*s, f);
	}
	putc('"', f);
}
