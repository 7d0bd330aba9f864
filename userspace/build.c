// SPDX-License-Identifier: GPL-2.0
/*
 * Tables the reader makes itself: a sorted, cut or decorated view of a
 * module file, a table of its own (top, sweep). They are the same type as
 * a parsed table, so the one formatter, JSON writer and exporter take them
 * as they are, and they obey the same format rules (docs/format.md): a
 * value is never empty and only the last one may hold a space.
 */
#include "parse.h"
#include "table_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mi_table_free_owned(struct mi_table *t)
{
	for (size_t i = 0; i < t->nfields; i++)
		free(t->fields[i]);
	for (size_t i = 0; i < t->nrec * t->nfields; i++)
		free(t->vals[i]);
	for (size_t i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
}

/* The first error sticks: one check after the last setter is enough. */
static int fail(struct mi_table *t, int err)
{
	if (!t->err)
		t->err = err;
	return t->err;
}

struct mi_table *mi_table_new(const char *name, const char *const *fields, struct mi_error *err)
{
	struct mi_table *t = calloc(1, sizeof(*t));
	size_t n = 0;

	while (fields[n])
		n++;
	if (!t || !(t->name = strdup(name)) || !(t->fields = calloc(n ? n : 1, sizeof(char *))))
		goto nomem;
	t->owned = true;
	for (size_t i = 0; i < n; i++) {
		if (!mi_valid_name(fields[i]) || mi_field_index(t, fields[i]) >= 0) {
			snprintf(err->msg, sizeof(err->msg), "%s: bad or duplicate field name '%.40s'",
				 name, fields[i]);
			err->sys_errno = 0;
			mi_table_free(t);
			return NULL;
		}
		t->fields[i] = strdup(fields[i]);
		if (!t->fields[i])
			goto nomem;
		t->nfields++;
	}
	return t;
nomem:
	mi_table_free(t);
	err->sys_errno = ENOMEM;
	snprintf(err->msg, sizeof(err->msg), "%s: out of memory", name);
	return NULL;
}

struct mi_table *mi_table_new_like(const struct mi_table *src, const char *name,
				   struct mi_error *err)
{
	const char **f = calloc(src->nfields + 1, sizeof(*f));
	struct mi_table *t;

	if (!f) {
		err->sys_errno = ENOMEM;
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", name);
		return NULL;
	}
	memcpy(f, src->fields, src->nfields * sizeof(*f));
	t = mi_table_new(name, f, err);
	free(f);
	return t;
}

long mi_table_add_record(struct mi_table *t)
{
	char **row;

	if (t->err)
		return t->err;
	if (!mi_grow_records(t))
		return fail(t, -ENOMEM);
	row = t->vals + t->nrec * t->nfields;
	for (size_t i = 0; i < t->nfields; i++) {
		row[i] = strdup("-");
		if (!row[i]) {
			while (i--)
				free(row[i]);
			return fail(t, -ENOMEM);
		}
	}
	t->lines[t->nrec] = 0;
	return (long)t->nrec++;
}

int mi_table_set(struct mi_table *t, size_t rec, size_t col, const char *v)
{
	char *copy, **cell;

	if (t->err)
		return t->err;
	if (rec >= t->nrec || col >= t->nfields || !*v || strchr(v, '\n') ||
	    (col + 1 < t->nfields && strchr(v, ' ')))
		return fail(t, -EINVAL);
	copy = strdup(v);
	if (!copy)
		return fail(t, -ENOMEM);
	cell = &t->vals[rec * t->nfields + col];
	free(*cell);
	*cell = copy;
	return 0;
}

static char *vformat(const char *fmt, va_list ap)
{
	va_list aq;
	char *s;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (s)
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

int mi_table_setf(struct mi_table *t, size_t rec, size_t col, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int ret;

	if (t->err)
		return t->err;
	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	if (!s)
		return fail(t, -ENOMEM);
	ret = mi_table_set(t, rec, col, s);
	free(s);
	return ret;
}

int mi_table_set_field(struct mi_table *t, size_t rec, const char *name, const char *v)
{
	int col = mi_field_index(t, name);

	return col < 0 ? fail(t, -EINVAL) : mi_table_set(t, rec, (size_t)col, v);
}

int mi_table_decorate(struct mi_table *t, size_t rec, size_t col, long long d)
{
	const char *v = mi_value(t, rec, col);

	if (!v)
		return fail(t, -EINVAL);
	return mi_table_setf(t, rec, col, "%s(%+lld)", v, d);
}

int mi_table_copy_record(struct mi_table *dst, const struct mi_table *src, size_t rec)
{
	long r = mi_table_add_record(dst);

	if (r < 0)
		return (int)r;
	for (size_t col = 0; col < dst->nfields; col++) {
		const char *v = mi_get(src, rec, dst->fields[col]);

		if (v)
			mi_table_set(dst, (size_t)r, col, v);
	}
	return dst->err;
}

int mi_table_add_note(struct mi_table *t, const char *fmt, ...)
{
	char **nn;
	va_list ap;
	char *s;

	if (t->err)
		return t->err;
	nn = mi_grow(t->notes, &t->note_cap, t->nnotes, sizeof(*nn));
	if (!nn)
		return fail(t, -ENOMEM);
	t->notes = nn;
	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	if (!s)
		return fail(t, -ENOMEM);
	if (strchr(s, '\n')) {
		free(s);
		return fail(t, -EINVAL);
	}
	t->notes[t->nnotes++] = s;
	return 0;
}

int mi_table_copy_notes(struct mi_table *dst, const struct mi_table *src)
{
	for (size_t i = 0; i < src->nnotes; i++)
		mi_table_add_note(dst, "%s", src->notes[i]);
	return dst->err;
}

int mi_table_error(const struct mi_table *t)
{
	return t->err;
}

/* Merge sort of record indexes: stable, and qsort has no context argument. */
static void merge_sort(size_t *idx, size_t *tmp, size_t n, const struct mi_table *t,
		       mi_record_cmp cmp, const void *arg)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	merge_sort(idx, tmp, h, t, cmp, arg);
	merge_sort(idx + h, tmp, n - h, t, cmp, arg);
	while (i < h && j < n)
		tmp[k++] = cmp(t, idx[j], idx[i], arg) < 0 ? idx[j++] : idx[i++];
	while (i < h)
		tmp[k++] = idx[i++];
	while (j < n)
		tmp[k++] = idx[j++];
	memcpy(idx, tmp, n * sizeof(*idx));
}

int mi_table_sort(struct mi_table *t, mi_record_cmp cmp, const void *arg)
{
	size_t n = t->nrec, nf = t->nfields;
	size_t *idx = calloc(n ? n : 1, sizeof(*idx)), *tmp = calloc(n ? n : 1, sizeof(*tmp));
	char **vals = calloc(n * nf + 1, sizeof(*vals));
	unsigned int *lines = calloc(n ? n : 1, sizeof(*lines));
	int ret = -ENOMEM;

	if (!idx || !tmp || !vals || !lines)
		goto out;
	for (size_t r = 0; r < n; r++)
		idx[r] = r;
	merge_sort(idx, tmp, n, t, cmp, arg);
	for (size_t r = 0; r < n; r++) {
		memcpy(vals + r * nf, t->vals + idx[r] * nf, nf * sizeof(*vals));
		lines[r] = t->lines[idx[r]];
	}
	if (n) {
		memcpy(t->vals, vals, n * nf * sizeof(*vals));
		memcpy(t->lines, lines, n * sizeof(*lines));
	}
	ret = 0;
out:
	free(idx);
	free(tmp);
	free(vals);
	free(lines);
	return ret;
}

void mi_table_truncate(struct mi_table *t, size_t n)
{
	if (n >= t->nrec)
		return;
	if (t->owned)
		for (size_t i = n * t->nfields; i < t->nrec * t->nfields; i++)
			free(t->vals[i]);
	t->nrec = n;
}
