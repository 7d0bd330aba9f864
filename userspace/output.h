/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything meminspect prints: one aligned table formatter, one JSON
 * writer, and the Prometheus text-format primitives.
 */
#ifndef MI_OUTPUT_H
#define MI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct mi_table;

struct out_opts {
	bool human;	/* kB/_kb/_bytes values as "1.92 GiB" */
};

/*
 * Header, records and then the notes as "# ..." lines. Columns are padded
 * to a common width (integer columns right-aligned); the last column, free
 * text, is never padded. 0 or -ENOMEM.
 */
int out_table(FILE *f, const struct mi_table *t, const struct out_opts *o);

/*
 * v units of unit_bytes each, scaled to B/KiB/MiB/...: number into num
 * ("1.92"), unit name into *unit ("GiB").
 */
void out_human(char *num, size_t len, const char **unit, long long v,
	       unsigned long long unit_bytes);

/* A streaming JSON writer: commas and indentation are its business. */
#define JSON_MAX_DEPTH 32
struct json {
	FILE *f;
	int depth;
	bool after_key;
	bool nonempty[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *f);
void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);
void json_null(struct json *j);
/* A table value: null for `-`, a number if it is an integer, else a string. */
void json_value(struct json *j, const char *v);
/* The same, and a decimal fraction ("94.4") as a number too. */
void json_decimal(struct json *j, const char *v);
/* One record as {"field": value, ...}. */
void json_record(struct json *j, const struct mi_table *t, size_t rec);
/* All records as [{...}, ...]. */
void json_records(struct json *j, const struct mi_table *t);
/* Ends the document with a newline. */
void json_finish(struct json *j);

/*
 * s as a JSON string literal: quotes, '\\' and '"' escaped, control bytes
 * as \uXXXX, invalid UTF-8 as \ufffd (so the output is always valid JSON).
 */
void json_write_string(FILE *f, const char *s);

/*
 * Prometheus text format. A metric name is prefix+name with every byte
 * outside [a-zA-Z0-9_] turned into '_' (':' is reserved for recording
 * rules) and a leading digit guarded by '_'. False if buf is too small.
 */
bool prom_metric_name(char *buf, size_t len, const char *prefix, const char *name);
/* s as a quoted label value: '\\', '"' and newline escaped. */
void prom_write_label_value(FILE *f, const char *s);

#endif
