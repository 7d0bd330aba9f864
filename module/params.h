/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing of the module's load-time parameters, as pure functions (no
 * state, no allocation) so the KUnit suite (module/kunit/) links them alone.
 */
#ifndef MI_PARAMS_H
#define MI_PARAMS_H

/*
 * Entries walked per zone->lock hold (parameter walk_budget).  The lock is
 * held with IRQs off (on PREEMPT_RT the zone's allocators wait for it), so
 * at most 100000: the bound /proc/pagetypeinfo puts on one list walk for
 * the same reason ("mm, vmstat: reduce zone->lock holding time by
 * /proc/pagetypeinfo", 93b3a674485f, v5.4).
 */
#define MI_WALK_BUDGET_DEFAULT	1024
#define MI_WALK_BUDGET_MAX	100000U

int mi_walk_budget_parse(const char *val, unsigned int *out);

/*
 * Tests only (parameter test_walk_pause_ms): how long every walk that holds
 * the offline guard sleeps once it has taken it (offline_guard.c), so that
 * a selftest can start a memory offline while a walk is surely in
 * progress.  0 (the default) does not sleep; at most 10 s.
 */
#define MI_WALK_PAUSE_MAX_MS	10000U

int mi_walk_pause_parse(const char *val, unsigned int *out);

/*
 * Tests only (parameter test_census_step_ms): how long the pages census
 * sleeps every 4096 pfns (pages.c), so that a selftest has a walk long
 * enough to kill a reader in.  0 (the default) does not sleep; at most
 * 100 ms, which keeps a 1 GiB guest's census under 7 s.
 */
#define MI_CENSUS_STEP_MAX_MS	100U

int mi_census_step_parse(const char *val, unsigned int *out);

#endif /* MI_PARAMS_H */
