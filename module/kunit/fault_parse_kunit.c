// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "meminspect_fault_parse": every writable knob of
 * /sys/kernel/debug/meminspect/fault/ (docs/fault.md) through
 * mi_fault_parse_knob(), the function fault_knobs.c calls on a write, on
 * the line of mi_fault_knobs[] that makes the knob's file: valid
 * values, both ends of each range and one past them, garbage, overflow,
 * the empty write, the one trailing newline that echo adds (and a second
 * one, which is garbage), and input that is not NUL-terminated.
 *
 * After each write the knob must print (mi_fault_format_knob(), what the
 * file shows) the expected value, and every other knob must print what it
 * printed before; after a refused write the whole settings struct must be
 * unchanged, byte for byte.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/threads.h>

#include "fault_parse.h"
#include "mi_kunit.h"

/* the highest page order the settings are bounded by (x86_64: 10) */
#define T_MAX_ORDER	10

struct t_write {
	const char *in;
	int len;		/* bytes of @in written; -1: strlen(in) */
	int err;
	const char *shows;	/* the knob's value afterwards, if err == 0 */
};

#define W(in, err, shows)	{ in, -1, err, shows }
#define OK(in, shows)		W(in, 0, shows)
#define BAD(in)			W(in, -EINVAL, NULL)
#define RANGE(in)		W(in, -ERANGE, NULL)

#define T_BUF	(MI_FAULT_INPUT_MAX + 8)

/* Working memory of a case, off the stack (KASAN makes frames large). */
struct t_mem {
	struct mi_fault_settings s, orig;
	char buf[T_BUF], again[T_BUF];
	char (*before)[T_BUF];		/* one per knob */
};

static unsigned int t_nr_knobs(void)
{
	const struct mi_fault_knob *k;
	unsigned int n = 0;

	for (k = mi_fault_knobs; k->name; k++)
		n++;
	return n;
}

static struct t_mem *t_mem(struct kunit *test)
{
	struct t_mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->before = kunit_kcalloc(test, t_nr_knobs(), T_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->before);
	return m;
}

/* The line of mi_fault_knobs[] that makes file @name. */
static const struct mi_fault_knob *t_find(struct kunit *test,
					  const char *name)
{
	const struct mi_fault_knob *k;

	for (k = mi_fault_knobs; k->name; k++)
		if (!strcmp(k->name, name))
			return k;
	KUNIT_FAIL(test, "no knob %s", name);
	return NULL;
}

static void t_show(const struct mi_fault_knob *k,
		   const struct mi_fault_settings *s, char *buf)
{
	mi_fault_format_knob(k, s, buf, T_BUF);
}

/*
 * Apply each write to a fresh default settings struct (so one case's
 * success cannot hide the next one's no-change) and check it.
 */
static void t_knob(struct kunit *test, const char *name,
		   const struct t_write *w, unsigned int n)
{
	const struct mi_fault_knob *knob = t_find(test, name), *k;
	struct t_mem *m = t_mem(test);
	struct mi_fault_settings *s = &m->s, *orig = &m->orig;
	char *after = m->buf;
	unsigned int i, j;

	KUNIT_ASSERT_NOT_NULL(test, knob);
	for (i = 0; i < n; i++) {
		size_t len = w[i].len < 0 ? strlen(w[i].in) : w[i].len;
		int err;

		mi_fault_settings_init(s, T_MAX_ORDER);
		memcpy(orig, s, sizeof(*s));
		j = 0;
		for (k = mi_fault_knobs; k->name; k++)
			t_show(k, s, m->before[j++]);

		err = mi_fault_parse_knob(knob, w[i].in, len, T_MAX_ORDER, s);
		KUNIT_EXPECT_EQ_MSG(test, err, w[i].err, "%s: write \"%*pE\"",
				    knob->name, (int)len,
				    w[i].in);
		if (err) {
			KUNIT_EXPECT_TRUE_MSG(test,
					      !memcmp(s, orig, sizeof(*s)),
					      "%s: refused write \"%*pE\" changed the settings",
					      knob->name,
					      (int)len, w[i].in);
			continue;
		}
		t_show(knob, s, after);
		if (w[i].shows)
			KUNIT_EXPECT_STREQ_MSG(test, after, w[i].shows,
					       "%s: write \"%*pE\"",
					       knob->name,
					       (int)len, w[i].in);
		j = 0;
		for (k = mi_fault_knobs; k->name; k++) {
			if (k == knob) {
				j++;
				continue;
			}
			t_show(k, s, after);
			KUNIT_EXPECT_STREQ_MSG(test, after, m->before[j++],
					       "%s: write \"%*pE\" changed %s",
					       knob->name, (int)len, w[i].in,
					       k->name);
		}
	}
}

/*
 * Garbage no number knob may take.  Not here: a NUL byte after the digits
 * ("1\0", 2 bytes), which the number knobs take as "1" (as the kernel's
 * kstrto*_from_user() knobs do) while the name knobs refuse it.
 */
static const struct t_write t_number_garbage[] = {
	BAD(""), BAD("\n"), BAD("abc"), BAD("1a"), BAD("a1"), BAD("+1"),
	BAD(" 1"), BAD("1 "), BAD("1\n\n"), BAD("\n1"), BAD("0x1"),
	BAD("1.0"), BAD("-"), BAD("--1"), BAD("1-"),
	RANGE("99999999999999999999"),	/* past long long */
	RANGE("999999999999999999999999999999"),	/* longer than any */
};

/* Y/N knobs */
static const struct t_write t_bool_writes[] = {
	OK("Y", "Y"), OK("N", "N"), OK("y", "Y"), OK("n", "N"),
	OK("1", "Y"), OK("0", "N"), OK("Y\n", "Y"), OK("0\n", "N"),
	BAD(""), BAD("\n"), BAD("YES"), BAD("yes"), BAD("no"),
	BAD("2"), BAD("-1"), BAD("YY"), BAD(" Y"), BAD("Y "),
	BAD("Y\n\n"), BAD("true"),
	{ "Yes", 1, 0, "Y" },	/* only the byte written counts */
};

static void mi_fault_sites(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("none", "none"), OK("none\n", "none"), OK("slab", "slab"),
		OK("pages", "pages"), OK("slab,pages", "slab,pages"),
		OK("pages,slab", "slab,pages"),
		OK("slab,pages\n", "slab,pages"),
		{ "slab,pages", 4, 0, "slab" },
		BAD(""), BAD("\n"), BAD("slab,"), BAD(",slab"),
		BAD("slab,,pages"), BAD("slab,slab"), BAD("none,slab"),
		BAD("slab,none"), BAD("Slab"), BAD("SLAB"), BAD("slab pages"),
		BAD("slab, pages"), BAD(" slab"), BAD("slab "),
		BAD("slab\n\n"), BAD("all"), BAD("page"), BAD("slabs"),
		BAD("1"),
	};

	t_knob(test, "sites", w, ARRAY_SIZE(w));
}

static void mi_fault_probability(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("0", "0"), OK("1", "1"), OK("50\n", "50"), OK("99", "99"),
		OK("100", "100"), OK("100\n", "100"), OK("007", "7"),
		{ "1234", 2, 0, "12" },
		RANGE("101"), RANGE("-1"), RANGE("2147483648"),
		RANGE("4294967296"),
	};

	t_knob(test, "probability", w, ARRAY_SIZE(w));
	t_knob(test, "probability", t_number_garbage,
	       ARRAY_SIZE(t_number_garbage));
}

static void mi_fault_interval(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("1", "1"), OK("2", "2"), OK("1000\n", "1000"),
		OK("2147483647", "2147483647"),
		RANGE("0"), RANGE("-1"), RANGE("2147483648"),
		RANGE("4294967296"),
	};

	t_knob(test, "interval", w, ARRAY_SIZE(w));
	t_knob(test, "interval", t_number_garbage,
	       ARRAY_SIZE(t_number_garbage));
}

static void mi_fault_times(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("-1", "-1"), OK("-1\n", "-1"), OK("0", "0"), OK("1", "1"),
		OK("5\n", "5"), OK("2147483647", "2147483647"),
		RANGE("-2"), RANGE("-2147483648"), RANGE("2147483648"),
		RANGE("4294967295"),
	};

	t_knob(test, "times", w, ARRAY_SIZE(w));
	t_knob(test, "times", t_number_garbage,
	       ARRAY_SIZE(t_number_garbage));
}

static void mi_fault_space(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("0", "0"), OK("4096\n", "4096"),
		OK("2147483647", "2147483647"),
		RANGE("-1"), RANGE("2147483648"),
	};

	t_knob(test, "space", w, ARRAY_SIZE(w));
	t_knob(test, "space", t_number_garbage,
	       ARRAY_SIZE(t_number_garbage));
}

static void mi_fault_verbose(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("0", "0"), OK("1", "1"), OK("2\n", "2"),
		RANGE("3"), RANGE("-1"),
	};

	t_knob(test, "verbose", w, ARRAY_SIZE(w));
	t_knob(test, "verbose", t_number_garbage,
	       ARRAY_SIZE(t_number_garbage));
}

static void mi_fault_ignore_gfp_wait(struct kunit *test)
{
	t_knob(test, "ignore-gfp-wait", t_bool_writes,
	       ARRAY_SIZE(t_bool_writes));
}

static void mi_fault_ignore_gfp_highmem(struct kunit *test)
{
	t_knob(test, "ignore-gfp-highmem", t_bool_writes,
	       ARRAY_SIZE(t_bool_writes));
}

static void mi_fault_ignore_pagefault(struct kunit *test)
{
	t_knob(test, "ignore-pagefault", t_bool_writes,
	       ARRAY_SIZE(t_bool_writes));
}

static void mi_fault_min_order(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("0", "0"), OK("2\n", "2"), OK("10", "10"),
		RANGE("11"), RANGE("-1"), RANGE("4294967296"),
	};

	t_knob(test, "min-order", w, ARRAY_SIZE(w));
	t_knob(test, "min-order", t_number_garbage,
	       ARRAY_SIZE(t_number_garbage));
}

static void mi_fault_max_order(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("0", "0"), OK("3\n", "3"), OK("10", "10"),
		RANGE("11"), RANGE("-1"), RANGE("4294967296"),
	};

	t_knob(test, "max-order", w, ARRAY_SIZE(w));
	t_knob(test, "max-order", t_number_garbage,
	       ARRAY_SIZE(t_number_garbage));
}

static void mi_fault_nth(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("0", "0"), OK("1", "1"), OK("3\n", "3"),
		OK("2147483647", "2147483647"),
		RANGE("2147483648"), RANGE("-1"),
	};

	t_knob(test, "nth", w, ARRAY_SIZE(w));
	t_knob(test, "nth", t_number_garbage, ARRAY_SIZE(t_number_garbage));
}

static void mi_fault_aim_pid(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("0", "0"), OK("1", "1"), OK("4242\n", "4242"),
		OK("4194304", "4194304"),	/* PID_MAX_LIMIT, 64-bit */
		RANGE("4194305"), RANGE("-1"), RANGE("2147483648"),
	};

	t_knob(test, "aim-pid", w, ARRAY_SIZE(w));
	t_knob(test, "aim-pid", t_number_garbage,
	       ARRAY_SIZE(t_number_garbage));
}

static void mi_fault_aim_children(struct kunit *test)
{
	t_knob(test, "aim-children", t_bool_writes,
	       ARRAY_SIZE(t_bool_writes));
}

static void mi_fault_aim_comm(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("", ""), OK("\n", ""), OK("sh", "sh"), OK("sh\n", "sh"),
		OK("my prog", "my prog"), OK(" lead", " lead"),
		OK("kworker/0:1", "kworker/0:1"),
		OK("fifteen_chars_x", "fifteen_chars_x"),	/* the most */
		OK("fifteen_chars_x\n", "fifteen_chars_x"),
		{ "meminspect", 4, 0, "memi" },
		RANGE("sixteen_chars_xx"), RANGE("sixteen_chars_xx\n"),
		BAD("a\tb"), BAD("a\nb"), BAD("sh\n\n"), BAD("\x01"),
		BAD("a\x7f"), { "a\0b", 3, -EINVAL, NULL },
	};

	t_knob(test, "aim-comm", w, ARRAY_SIZE(w));
}

/* 255 and 256 bytes: the longest path and one more */
#define P16	"/abcdefghijklmno"
#define P255	P16 P16 P16 P16 P16 P16 P16 P16 P16 P16 P16 P16 P16 P16 P16 \
		"/abcdefghijklmn"

static void mi_fault_aim_cgroup(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("", ""), OK("\n", ""), OK("/", "/"),
		OK("/mi-test", "/mi-test"), OK("/mi-test\n", "/mi-test"),
		OK("/a/b.scope", "/a/b.scope"), OK(P255, P255),
		OK(P255 "\n", P255),
		RANGE(P255 "x"),
		BAD("mi-test"), BAD("./mi-test"), BAD("/a b"), BAD(" /a"),
		BAD("/a "), BAD("/a\tb"), BAD("/a\n\n"), BAD("/a\nb"),
		{ "/a\0b", 4, -EINVAL, NULL },
	};

	t_knob(test, "aim-cgroup", w, ARRAY_SIZE(w));
}

/* 63 and 64 bytes: the longest cache or module name and one more */
#define N63	"abcdefghijklmnopqrstuvwxyz_abcdefghijklmnopqrstuvwxyz_012345678"
#define N64	N63 "x"
/* MODULE_NAME_LEN is 56 on 64-bit kernels: 55 characters and the NUL */
#define N55	"abcdefghijklmnopqrstuvwxyz_abcdefghijklmnopqrstuvwxyz_0"
#define N56	N55 "1"

static void mi_fault_aim_cache(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("", ""), OK("\n", ""), OK("kmalloc-64", "kmalloc-64"),
		OK("meminspect_test_obj\n", "meminspect_test_obj"),
		OK(":0000064", ":0000064"), OK(N63, N63), OK(N63 "\n", N63),
		RANGE(N64),
		BAD("a b"), BAD(" a"), BAD("a "), BAD("a\tb"), BAD("a\n\n"),
		BAD("a\nb"), BAD("\x01"), { "a\0b", 3, -EINVAL, NULL },
	};

	t_knob(test, "aim-cache", w, ARRAY_SIZE(w));
}

static void mi_fault_aim_size(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("", ""), OK("\n", ""), OK("0-0", "0-0"),
		OK("64-64", "64-64"), OK("64-4096", "64-4096"),
		OK("64-4096\n", "64-4096"),
		OK("0-18446744073709551615", "0-18446744073709551615"),
		{ "8-16-32", 4, 0, "8-16" },
		RANGE("4096-64"), RANGE("1-0"),
		RANGE("0-18446744073709551616"),	/* ULONG_MAX + 1 */
		RANGE("0-999999999999999999999999"),
		BAD("64"), BAD("64\n"), BAD("-64"), BAD("64-"), BAD("-"),
		BAD("a-b"), BAD("1-2-3"), BAD("1 - 2"), BAD(" 1-2"),
		BAD("1-2 "), BAD("1-2\n\n"), BAD("+1-2"), BAD("1-+2"),
		BAD("0x10-0x20"), BAD("-1-2"), { "1-\0", 3, -EINVAL, NULL },
	};

	t_knob(test, "aim-size", w, ARRAY_SIZE(w));
}

static void mi_fault_aim_module(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("", ""), OK("\n", ""),
		OK("meminspect_test", "meminspect_test"),
		OK("meminspect_test\n", "meminspect_test"),
		/* not loaded: still a name (a module to come) */
		OK("no_such_module", "no_such_module"),
		/* '-' is kept as '_', as Kbuild's KBUILD_MODNAME */
		OK("nf-conntrack", "nf_conntrack"), OK("A9_-", "A9__"),
		OK(N55, N55), RANGE(N56), RANGE(N63),
		BAD("a b"), BAD(" a"), BAD("a "), BAD("a\tb"), BAD("a\n\n"),
		BAD("a.b"), BAD("a/b"), BAD("a,b"), BAD("a:b"),
		{ "a\0", 2, -EINVAL, NULL },
	};

	t_knob(test, "aim-module", w, ARRAY_SIZE(w));
}

static void mi_fault_aim_depth(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("1", "1"), OK("8\n", "8"), OK("32", "32"),
		RANGE("0"), RANGE("33"), RANGE("-1"),
	};

	t_knob(test, "aim-depth", w, ARRAY_SIZE(w));
	t_knob(test, "aim-depth", t_number_garbage,
	       ARRAY_SIZE(t_number_garbage));
}

static void mi_fault_exclude_caller(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("kstrdup", "kstrdup"), OK("a,b\n", "a,b"), OK("", ""),
		OK("f.constprop.0,g_1", "f.constprop.0,g_1"),
		OK("a,b,c,d,e,f,g,h", "a,b,c,d,e,f,g,h"),
		RANGE("a,b,c,d,e,f,g,h,i"), BAD(","), BAD("a,"), BAD(",a"),
		BAD("a,,b"), BAD("a b"), BAD("a\tb"), BAD("a-b"), BAD("a\n\n"),
	};

	t_knob(test, "exclude-caller", w, ARRAY_SIZE(w));
}

static void mi_fault_duration(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("0", "0"), OK("1", "1"), OK("2147483647\n", "2147483647"),
		RANGE("2147483648"), RANGE("-1"), BAD("1s"), BAD(""),
	};

	t_knob(test, "duration", w, ARRAY_SIZE(w));
	t_knob(test, "duration", t_number_garbage,
	       ARRAY_SIZE(t_number_garbage));
}

static void mi_fault_linger(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("0", "0"), OK("1", "1"), OK("60000\n", "60000"),
		RANGE("60001"), RANGE("-1"), BAD("5s"), BAD(""),
	};

	t_knob(test, "linger", w, ARRAY_SIZE(w));
	t_knob(test, "linger", t_number_garbage,
	       ARRAY_SIZE(t_number_garbage));
}

static void mi_fault_armed(struct kunit *test)
{
	static const struct t_write w[] = {
		OK("0", "0"), OK("1", "1"), OK("1\n", "1"), OK("0\n", "0"),
		RANGE("2"), RANGE("-1"), BAD("Y"), BAD("N"),
	};

	t_knob(test, "armed", w, ARRAY_SIZE(w));
	t_knob(test, "armed", t_number_garbage,
	       ARRAY_SIZE(t_number_garbage));
}

/* docs/fault.md's names, in the order of its table */
static void mi_fault_knob_names_doc(struct kunit *test)
{
	static const char *const doc[] = {
		"sites", "probability", "interval", "times", "space",
		"verbose", "ignore-gfp-wait", "ignore-gfp-highmem",
		"ignore-pagefault", "min-order", "max-order", "nth", "aim-pid", "aim-children",
		"aim-comm", "aim-cgroup", "aim-cache", "aim-size",
		"aim-module", "aim-depth", "exclude-caller", "duration",
		"linger", "armed",
	};
	const struct mi_fault_knob *k;
	unsigned int i = 0;

	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(doc), (size_t)t_nr_knobs());
	for (k = mi_fault_knobs; k->name; k++)
		KUNIT_EXPECT_STREQ(test, k->name, doc[i++]);
}

/*
 * The table's lines are consistent: names unique, each value at its own
 * place inside struct mi_fault_settings, the numbers' ranges not empty,
 * the strings' bytes checked.  (That each value fits its field is the
 * cases above: a longest value written leaves every other knob as it was.)
 */
static void mi_fault_knob_table(struct kunit *test)
{
	const struct mi_fault_knob *k, *o;
	size_t end;

	for (k = mi_fault_knobs; k->name; k++) {
		end = k->offset + 1;
		if (k->type == MI_KNOB_STRING || k->type == MI_KNOB_CALLERS)
			end = k->offset + k->max + 1;
		KUNIT_EXPECT_LE_MSG(test, end, sizeof(struct mi_fault_settings),
				    "%s", k->name);
		for (o = mi_fault_knobs; o != k; o++) {
			KUNIT_EXPECT_STRNEQ(test, k->name, o->name);
			KUNIT_EXPECT_NE_MSG(test, k->offset, o->offset,
					    "%s and %s", k->name, o->name);
		}
		switch (k->type) {
		case MI_KNOB_UINT:
		case MI_KNOB_INT:
		case MI_KNOB_ARMED:
			if (!(k->flags & MI_KNOB_MAX_ORDER))
				KUNIT_EXPECT_LE_MSG(test, k->min, k->max, "%s",
						    k->name);
			break;
		case MI_KNOB_STRING:
		case MI_KNOB_CALLERS:
			KUNIT_EXPECT_NOT_NULL_MSG(test, k->ok, "%s", k->name);
			KUNIT_EXPECT_GT_MSG(test, k->max, 0LL, "%s", k->name);
			break;
		default:
			break;
		}
	}
}

/* The defaults of docs/fault.md, as the files print them. */
static void mi_fault_defaults(struct kunit *test)
{
	static const struct { const char *knob, *shows; } want[] = {
		{ "sites", "none" }, { "probability", "100" },
		{ "interval", "1" }, { "times", "1" },
		{ "space", "0" }, { "verbose", "1" },
		{ "ignore-gfp-wait", "N" },
		{ "ignore-gfp-highmem", "N" }, { "ignore-pagefault", "Y" },
		{ "min-order", "0" },
		{ "max-order", "10" },	/* the highest order given */
		{ "nth", "0" }, { "aim-pid", "0" },
		{ "aim-children", "N" }, { "aim-comm", "" },
		{ "aim-cgroup", "" }, { "aim-cache", "" },
		{ "aim-size", "" }, { "aim-module", "" },
		{ "aim-depth", "8" }, { "exclude-caller", "" },
		{ "duration", "0" }, { "linger", "0" }, { "armed", "0" },
	};
	const struct mi_fault_knob *k;
	struct t_mem *m = t_mem(test);
	struct mi_fault_settings *s = &m->s;
	char *buf = m->buf;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(want), (size_t)t_nr_knobs());
	mi_fault_settings_init(s, T_MAX_ORDER);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		k = t_find(test, want[i].knob);
		if (!k)
			continue;
		t_show(k, s, buf);
		KUNIT_EXPECT_STREQ_MSG(test, buf, want[i].shows, "knob %s",
				       k->name);
	}
	mi_fault_settings_init(s, 5);
	k = t_find(test, "max-order");
	KUNIT_ASSERT_NOT_NULL(test, k);
	t_show(k, s, buf);
	KUNIT_EXPECT_STREQ(test, buf, "5");
}

/*
 * What a knob prints, written back (as `cat K > K` would), parses and
 * prints the same: for the defaults and for a set of non-default values.
 */
static void mi_fault_round_trip(struct kunit *test)
{
	static const struct { const char *knob, *v; } set[] = {
		{ "sites", "slab,pages" }, { "probability", "37" },
		{ "interval", "3" }, { "times", "-1" },
		{ "space", "512" }, { "verbose", "2" },
		{ "ignore-gfp-wait", "Y" },
		{ "ignore-gfp-highmem", "Y" }, { "ignore-pagefault", "N" },
		{ "min-order", "2" },
		{ "max-order", "4" }, { "nth", "9" },
		{ "aim-pid", "77" }, { "aim-children", "Y" },
		{ "aim-comm", "a b" }, { "aim-cgroup", "/x/y" },
		{ "aim-cache", "kmalloc-128" },
		{ "aim-size", "100-200" },
		{ "aim-module", "meminspect_test" },
		{ "aim-depth", "16" },
		{ "exclude-caller", "kstrdup,f.constprop.0" },
		{ "duration", "1500" },
		{ "linger", "250" },
		{ "armed", "1" },
	};
	const struct mi_fault_knob *k;
	struct t_mem *m = t_mem(test);
	struct mi_fault_settings *s = &m->s, *t = &m->orig;
	char *buf = m->buf, *again = m->again;
	unsigned int i, pass;
	int err;

	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(set), (size_t)t_nr_knobs());
	for (pass = 0; pass < 2; pass++) {
		mi_fault_settings_init(s, T_MAX_ORDER);
		for (i = 0; pass && i < ARRAY_SIZE(set); i++) {
			k = t_find(test, set[i].knob);
			KUNIT_ASSERT_NOT_NULL(test, k);
			err = mi_fault_parse_knob(k, set[i].v,
						  strlen(set[i].v), T_MAX_ORDER,
						  s);
			KUNIT_ASSERT_EQ(test, err, 0);
		}
		for (k = mi_fault_knobs; k->name; k++) {
			mi_fault_settings_init(t, T_MAX_ORDER);
			t_show(k, s, buf);
			strcat(buf, "\n");	/* as cat prints it */
			err = mi_fault_parse_knob(k, buf, strlen(buf),
						  T_MAX_ORDER, t);
			KUNIT_EXPECT_EQ_MSG(test, err, 0, "knob %s value \"%s\"",
					    k->name, buf);
			t_show(k, t, again);
			strcat(again, "\n");
			KUNIT_EXPECT_STREQ_MSG(test, again, buf, "knob %s",
					       k->name);
		}
	}
}

/*
 * A name that is no knob has no line (so no file), and the table's end,
 * which is no knob, is refused and changes nothing.
 */
static void mi_fault_unknown_knob(struct kunit *test)
{
	static const char *const not_knobs[] = {
		"", "settings", "stats", "log", "excluded", "aim", "sites\n",
		"Sites", "aim_pid", "fail-nth",
	};
	const struct mi_fault_knob *k, *end;
	struct t_mem *m = t_mem(test);
	char buf[8] = "x";
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(not_knobs); i++)
		for (k = mi_fault_knobs; k->name; k++)
			KUNIT_EXPECT_STRNEQ(test, k->name, not_knobs[i]);
	end = &mi_fault_knobs[t_nr_knobs()];
	KUNIT_ASSERT_NULL(test, end->name);
	mi_fault_settings_init(&m->s, T_MAX_ORDER);
	memcpy(&m->orig, &m->s, sizeof(m->s));
	KUNIT_EXPECT_EQ(test, mi_fault_parse_knob(end, "1", 1, T_MAX_ORDER,
						  &m->s), -EINVAL);
	KUNIT_EXPECT_TRUE(test, !memcmp(&m->s, &m->orig, sizeof(m->s)));
	KUNIT_EXPECT_EQ(test, mi_fault_format_knob(end, &m->s, buf,
						   sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "");
}

static struct kunit_case mi_fault_parse_cases[] = {
	KUNIT_CASE(mi_fault_knob_names_doc),
	KUNIT_CASE(mi_fault_knob_table),
	KUNIT_CASE(mi_fault_defaults),
	KUNIT_CASE(mi_fault_sites),
	KUNIT_CASE(mi_fault_probability),
	KUNIT_CASE(mi_fault_interval),
	KUNIT_CASE(mi_fault_times),
	KUNIT_CASE(mi_fault_space),
	KUNIT_CASE(mi_fault_verbose),
	KUNIT_CASE(mi_fault_ignore_gfp_wait),
	KUNIT_CASE(mi_fault_ignore_gfp_highmem),
	KUNIT_CASE(mi_fault_ignore_pagefault),
	KUNIT_CASE(mi_fault_min_order),
	KUNIT_CASE(mi_fault_max_order),
	KUNIT_CASE(mi_fault_nth),
	KUNIT_CASE(mi_fault_aim_pid),
	KUNIT_CASE(mi_fault_aim_children),
	KUNIT_CASE(mi_fault_aim_comm),
	KUNIT_CASE(mi_fault_aim_cgroup),
	KUNIT_CASE(mi_fault_aim_cache),
	KUNIT_CASE(mi_fault_aim_size),
	KUNIT_CASE(mi_fault_aim_module),
	KUNIT_CASE(mi_fault_aim_depth),
	KUNIT_CASE(mi_fault_exclude_caller),
	KUNIT_CASE(mi_fault_duration),
	KUNIT_CASE(mi_fault_linger),
	KUNIT_CASE(mi_fault_armed),
	KUNIT_CASE(mi_fault_round_trip),
	KUNIT_CASE(mi_fault_unknown_knob),
	{}
};

struct kunit_suite mi_fault_parse_suite = {
	.name = "meminspect_fault_parse",
	.test_cases = mi_fault_parse_cases,
};
