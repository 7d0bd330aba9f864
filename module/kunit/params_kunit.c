// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "meminspect_params": parsing of the module's load-time
 * parameters (params.c), walk_budget, test_walk_pause_ms and
 * test_census_step_ms: valid values, both ends of the range and one past,
 * garbage, overflow, empty input and the trailing newline that sysfs
 * writes and insmod does not.
 * On every error the destination must keep its value.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "mi_kunit.h"
#include "params.h"

struct t_budget_case {
	const char *in;
	int err;
	unsigned int want;	/* when err == 0 */
};

static const struct t_budget_case t_budget_cases[] = {
	{ "1", 0, 1 },				/* lowest */
	{ "1024", 0, 1024 },			/* default */
	{ "1024\n", 0, 1024 },			/* one trailing newline */
	{ "+16", 0, 16 },			/* kstrtouint() takes a '+' */
	{ "100000", 0, MI_WALK_BUDGET_MAX },	/* highest */
	{ "0000100000", 0, MI_WALK_BUDGET_MAX },	/* leading zeros */
	{ "0", -ERANGE, 0 },			/* one below */
	{ "100001", -ERANGE, 0 },		/* one above */
	{ "1048576", -ERANGE, 0 },		/* the old highest */
	{ "4294967295", -ERANGE, 0 },		/* UINT_MAX */
	{ "4294967296", -ERANGE, 0 },		/* UINT_MAX + 1: overflow */
	{ "147573952589676412928", -ERANGE, 0 },	/* 2^67 */
	{ "", -EINVAL, 0 },
	{ "\n", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "-0", -EINVAL, 0 },
	{ "abc", -EINVAL, 0 },
	{ "12abc", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },			/* decimal only */
	{ " 16", -EINVAL, 0 },
	{ "16 ", -EINVAL, 0 },
	{ "16\n\n", -EINVAL, 0 },		/* one newline only */
	{ "1.5", -EINVAL, 0 },
};

static void mi_params_walk_budget(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t_budget_cases); i++) {
		const struct t_budget_case *c = &t_budget_cases[i];
		unsigned int v = 777;
		int err = mi_walk_budget_parse(c->in, &v);

		KUNIT_EXPECT_EQ_MSG(test, err, c->err, "input \"%s\"", c->in);
		KUNIT_EXPECT_EQ_MSG(test, v, c->err ? 777U : c->want,
				    "input \"%s\"", c->in);
	}
}

/* The default is a value the parser accepts. */
static void mi_params_walk_budget_default(struct kunit *test)
{
	unsigned int v = 0;

	KUNIT_EXPECT_EQ(test, mi_walk_budget_parse("1024", &v), 0);
	KUNIT_EXPECT_EQ(test, v, (unsigned int)MI_WALK_BUDGET_DEFAULT);
}

static const struct t_budget_case t_pause_cases[] = {
	{ "0", 0, 0 },				/* lowest, the default */
	{ "3000", 0, 3000 },			/* hotplug_buddy.sh's */
	{ "3000\n", 0, 3000 },			/* one trailing newline */
	{ "10000", 0, MI_WALK_PAUSE_MAX_MS },	/* highest */
	{ "10001", -ERANGE, 0 },		/* one above */
	{ "4294967295", -ERANGE, 0 },		/* UINT_MAX */
	{ "4294967296", -ERANGE, 0 },		/* UINT_MAX + 1: overflow */
	{ "", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "1s", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },			/* decimal only */
	{ "16\n\n", -EINVAL, 0 },		/* one newline only */
};

static void mi_params_walk_pause(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t_pause_cases); i++) {
		const struct t_budget_case *c = &t_pause_cases[i];
		unsigned int v = 777;
		int err = mi_walk_pause_parse(c->in, &v);

		KUNIT_EXPECT_EQ_MSG(test, err, c->err, "input \"%s\"", c->in);
		KUNIT_EXPECT_EQ_MSG(test, v, c->err ? 777U : c->want,
				    "input \"%s\"", c->in);
	}
}

static const struct t_budget_case t_step_cases[] = {
	{ "0", 0, 0 },				/* lowest, the default */
	{ "50", 0, 50 },			/* test_pages.sh's */
	{ "100", 0, MI_CENSUS_STEP_MAX_MS },	/* highest */
	{ "101", -ERANGE, 0 },			/* one above */
	{ "-1", -EINVAL, 0 },
	{ "1ms", -EINVAL, 0 },
};

static void mi_params_census_step(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t_step_cases); i++) {
		const struct t_budget_case *c = &t_step_cases[i];
		unsigned int v = 777;
		int err = mi_census_step_parse(c->in, &v);

		KUNIT_EXPECT_EQ_MSG(test, err, c->err, "input \"%s\"", c->in);
		KUNIT_EXPECT_EQ_MSG(test, v, c->err ? 777U : c->want,
				    "input \"%s\"", c->in);
	}
}

static struct kunit_case mi_params_cases[] = {
	KUNIT_CASE(mi_params_walk_budget),
	KUNIT_CASE(mi_params_walk_budget_default),
	KUNIT_CASE(mi_params_walk_pause),
	KUNIT_CASE(mi_params_census_step),
	{}
};

struct kunit_suite mi_params_suite = {
	.name = "meminspect_params",
	.test_cases = mi_params_cases,
};
