// SPDX-License-Identifier: GPL-2.0
/* Parsing of the module's load-time parameters (params.h). */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "params.h"

/*
 * walk_budget: a decimal 1..MI_WALK_BUDGET_MAX, one trailing newline
 * allowed (kstrtouint()).  -EINVAL if it is not a number, -ERANGE if it is
 * out of range; *@out is written only on success.
 */
int mi_walk_budget_parse(const char *val, unsigned int *out)
{
	unsigned int v;
	int err = kstrtouint(val, 10, &v);

	if (err)
		return err;
	if (v < 1 || v > MI_WALK_BUDGET_MAX)
		return -ERANGE;
	*out = v;
	return 0;
}

/* A decimal 0..@max; *@out written only on success. */
static int mi_parse_uint_max(const char *val, unsigned int max,
			     unsigned int *out)
{
	unsigned int v;
	int err = kstrtouint(val, 10, &v);

	if (err)
		return err;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * test_walk_pause_ms: a decimal 0..MI_WALK_PAUSE_MAX_MS, one trailing
 * newline allowed.  -EINVAL if it is not a number, -ERANGE if it is too
 * large; *@out is written only on success.
 */
int mi_walk_pause_parse(const char *val, unsigned int *out)
{
	return mi_parse_uint_max(val, MI_WALK_PAUSE_MAX_MS, out);
}

/* test_census_step_ms: the same, 0..MI_CENSUS_STEP_MAX_MS. */
int mi_census_step_parse(const char *val, unsigned int *out)
{
	return mi_parse_uint_max(val, MI_CENSUS_STEP_MAX_MS, out);
}
