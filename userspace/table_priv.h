/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table's insides, shared by its two makers: parse.c (a table read from
 * the module, every string a piece of one buffer) and build.c (a view the
 * reader makes in memory, every string its own allocation).
 */
#ifndef MI_TABLE_PRIV_H
#define MI_TABLE_PRIV_H

#include <stdbool.h>
#include <stddef.h>

struct mi_table {
	char *name;
	char *buf;		/* parsed: the whole text, split in place; built: NULL */
	bool owned;		/* built: fields, values and notes are each malloc'd */
	int err;		/* built: the first error of a setter (-ENOMEM, -EINVAL) */
	char **fields;
	size_t nfields;
	char **vals;		/* nrec rows of nfields pointers */
	unsigned int *lines;	/* source line of each record, for messages; 0: built */
	size_t nrec, rec_cap;	/* rec_cap rows allocated in vals and lines */
	char **notes;
	size_t nnotes, note_cap;
};

/*
 * Array p (cap elements of size bytes) with room for element n: p itself,
 * a bigger copy, or NULL on overflow/OOM (p is then still valid).
 */
void *mi_grow(void *p, size_t *cap, size_t n, size_t size);
/* Room for one more record: vals and lines grow together, by whole rows. */
bool mi_grow_records(struct mi_table *t);

/* build.c: frees the strings of a built table (mi_table_free does the rest). */
void mi_table_free_owned(struct mi_table *t);

#endif
