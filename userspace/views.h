/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each module file's view: the fields the reader needs, its value checks and
 * its JSON shape (one registry, views.c), and the loading and printing every
 * command shares.
 */
#ifndef MI_VIEWS_H
#define MI_VIEWS_H

#include <stdbool.h>
#include <stddef.h>

struct json;
struct mi_cli;
struct mi_table;

/* Load, validate and check one file; *t is NULL unless ST_OK. */
int view_load(const struct mi_cli *c, const char *file, struct mi_table **t);
/* t as its file's JSON shape; notes go to stderr (JSON has no place for them). */
void view_json(struct json *j, const struct mi_table *t, const char *file);
/* The same without the notes: for a command that reads them itself. */
void view_json_shape(struct json *j, const struct mi_table *t, const char *file);
/* The aligned table, notes after it. */
int view_print(const struct mi_cli *c, const struct mi_table *t);
/* A table, or with --json its records: what most commands end with. */
int view_show(const struct mi_cli *c, const struct mi_table *t, const char *file);
/* Load and show one file as it is. */
int view_show_file(const struct mi_cli *c, const char *file);

/* "FILE:LINE: WHAT 'V'" on stderr; ST_FORMAT. */
int view_format_error(const struct mi_table *t, size_t rec, const char *what, const char *v);
/* ST_OK if t has every field, else the message and ST_FORMAT. */
int view_require(const struct mi_table *t, const char *const *fields);
/* The notes on stderr, "meminspect: FILE: note: ..." */
void view_notes_to_stderr(const struct mi_table *t, const char *file);
/* "out of memory" or the builder's error, for a table made in memory; ST_FORMAT. */
int view_build_failed(const struct mi_table *t, const char *what);
/* Under --watch t replaces *prev, kept for the next round's differences; else t is freed. */
void view_keep_round(const struct mi_cli *c, struct mi_table **prev, struct mi_table *t);
/* Every value from column @first to the last but one is an integer or '-'. */
int view_check_integers(const struct mi_table *t, size_t first);
/*
 * The module's live FILE opened read-write in *fd (path in @path), for a
 * command that writes its question to the open file (a pid, a minimum age):
 * a copy of the directory cannot answer, so that is a usage error naming
 * @what the option needs. ST_OK, or the status with its message printed.
 */
int view_open_live(const struct mi_cli *c, const char *file, const char *what, char *path,
		   size_t len, int *fd);

/* The per-file checks and JSON shapes that the registry points at. */
int check_summary(const struct mi_table *t);
int check_capabilities(const struct mi_table *t);
int check_slabs(const struct mi_table *t);
int check_files(const struct mi_table *t);
/* cmd_cgroups.c */
int check_cgroups(const struct mi_table *t);
/* cmd_cgroup_slabs.c */
int check_cgroup_slabs(const struct mi_table *t);
int check_zone_table(const struct mi_table *t);
void json_summary(struct json *j, const struct mi_table *t);
void json_zone_table(struct json *j, const struct mi_table *t);
int check_allocs(const struct mi_table *t);
void json_allocs(struct json *j, const struct mi_table *t);
int check_allocs_outstanding(const struct mi_table *t);

/* capabilities: a "file" row */
bool view_is_file_row(const struct mi_table *t, size_t r);

#endif
