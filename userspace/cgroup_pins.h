/* SPDX-License-Identifier: GPL-2.0 */
/* What keeps each dying memory cgroup (cgroup_pins.c). */
#ifndef MI_CGROUP_PINS_H
#define MI_CGROUP_PINS_H

#include "cli.h"
#include "parse.h"

/*
 * The dying records of @t (the cgroups file) with two columns more before
 * path: top_files and top_slabs, from the files and cgroup_slabs files.
 */
struct mi_table *cgroup_pins(const struct mi_cli *c, const struct mi_table *t,
			     struct mi_error *e);

#endif
