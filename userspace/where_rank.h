/* SPDX-License-Identifier: GPL-2.0 */
/* where's first screen: the ranked figures and their holders (where_rank.c) */
#ifndef MI_WHERE_RANK_H
#define MI_WHERE_RANK_H

#include <stdio.h>

struct mi_cli;
struct mi_table;

/* $MEMINSPECT_PROC/NAME (default /proc/NAME) for reading; NULL if it cannot be opened */
FILE *where_proc_open(const char *name);

/*
 * The table "rank figure kb pct holders" from summary S and the census P,
 * largest first; the holders from the module's optional files. ST_OK and
 * *out, or the status with its message printed.
 */
int where_rank_build(const struct mi_cli *c, const struct mi_table *s, const struct mi_table *p,
		     struct mi_table **out);

#endif
