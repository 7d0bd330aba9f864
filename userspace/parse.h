/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one parser of the meminspect line format (docs/format.md): a header
 * line of field names, then records of space-separated values whose last
 * value runs to the end of the line, `#` notes kept aside, `-` = no value.
 */
#ifndef MI_PARSE_H
#define MI_PARSE_H

#include <stdbool.h>
#include <stddef.h>

struct mi_table;

struct mi_error {
	int sys_errno;	/* errno of a failed open/read; 0 for a format error */
	char msg[512];	/* "PATH:LINE: what is wrong", ready to print */
};

/* Both return NULL and fill *err on any failure; never a partial table. */
struct mi_table *mi_table_read(const char *path, struct mi_error *err);
/* The rest of the open file fd (from its current offset); name for messages. */
struct mi_table *mi_table_read_fd(int fd, const char *name, struct mi_error *err);
/* Parse text in memory; name is used in messages only. */
struct mi_table *mi_table_parse(const char *text, size_t len,
				const char *name, struct mi_error *err);
void mi_table_free(struct mi_table *t);

const char *mi_table_name(const struct mi_table *t);
size_t mi_nfields(const struct mi_table *t);
const char *mi_field_name(const struct mi_table *t, size_t col);
int mi_field_index(const struct mi_table *t, const char *name); /* -1: none */

size_t mi_nrecords(const struct mi_table *t);
const char *mi_value(const struct mi_table *t, size_t rec, size_t col);
/* Value of field `name` in record `rec`; NULL when the table has no such field. */
const char *mi_get(const struct mi_table *t, size_t rec, const char *name);
unsigned int mi_record_line(const struct mi_table *t, size_t rec);
/* First record whose field `name` equals `value`; -1 if none. */
long mi_find(const struct mi_table *t, const char *name, const char *value);

size_t mi_nnotes(const struct mi_table *t);
const char *mi_note(const struct mi_table *t, size_t i); /* text after "# " */

/* Fail with a format error unless the table has every listed field (NULL-terminated). */
bool mi_require_fields(const struct mi_table *t, struct mi_error *err,
		       const char *const *names);

/*
 * Building a table in memory (build.c): views the reader derives from a
 * module file (sorted, cut, with growth or N(+D) columns) and tables of its
 * own.  Setters return 0 or a negative errno, and the first error sticks:
 * mi_table_error() after the last one says whether all of them worked.
 * A value must be non-empty, without a newline, and without a space unless
 * it is the last field's, as in a file the module writes.
 */
struct mi_table *mi_table_new(const char *name, const char *const *fields,
			      struct mi_error *err);
/* A table with src's fields and no records. */
struct mi_table *mi_table_new_like(const struct mi_table *src, const char *name,
				   struct mi_error *err);
/* A new record, every value "-"; its index, or a negative errno. */
long mi_table_add_record(struct mi_table *t);
int mi_table_set(struct mi_table *t, size_t rec, size_t col, const char *v);
__attribute__((format(printf, 4, 5)))
int mi_table_setf(struct mi_table *t, size_t rec, size_t col, const char *fmt, ...);
int mi_table_set_field(struct mi_table *t, size_t rec, const char *name, const char *v);
/* The value followed by "(+D)" / "(-D)": a change since the previous round. */
int mi_table_decorate(struct mi_table *t, size_t rec, size_t col, long long d);
/* A new record with src's values of record rec for the fields both have. */
int mi_table_copy_record(struct mi_table *dst, const struct mi_table *src, size_t rec);
__attribute__((format(printf, 2, 3)))
int mi_table_add_note(struct mi_table *t, const char *fmt, ...);
int mi_table_copy_notes(struct mi_table *dst, const struct mi_table *src);
int mi_table_error(const struct mi_table *t);

/* <0: record a before b.  Any table, parsed or built. */
typedef int (*mi_record_cmp)(const struct mi_table *t, size_t a, size_t b, const void *arg);
/* Stable: records that compare equal keep their order.  0 or -ENOMEM. */
int mi_table_sort(struct mi_table *t, mi_record_cmp cmp, const void *arg);
/* Keep the first n records. */
void mi_table_truncate(struct mi_table *t, size_t n);

/* `-`: the kernel cannot provide the value. */
bool mi_is_none(const char *v);
/* True for [a-z0-9_]+, the only legal field name. */
bool mi_valid_name(const char *s);

/*
 * Strict decimal conversion: optional '-' (signed only), digits, nothing
 * else -- no blanks, no '+', no trailing text. 0, -EINVAL or -ERANGE.
 */
int mi_parse_s64(const char *s, long long *out);
int mi_parse_u64(const char *s, unsigned long long *out);
/* s is a decimal integer that fits in s64 or u64. */
bool mi_is_integer(const char *s);

#endif
