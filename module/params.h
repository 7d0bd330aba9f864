/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing of the module's load-time parameters, as pure functions (no
 * state, no allocation) so the KUnit suite (module/kunit/) links them alone.
 */
#ifndef MI_PARAMS_H
#define MI_PARAMS_H

/* Entries walked per zone->lock hold, at most (parameter walk_budget). */
#define MI_WALK_BUDGET_DEFAULT	1024
#define MI_WALK_BUDGET_MAX	(1024U * 1024U)

int mi_walk_budget_parse(const char *val, unsigned int *out);

#endif /* MI_PARAMS_H */
