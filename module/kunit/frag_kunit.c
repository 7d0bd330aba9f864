// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "meminspect_frag": the fragmentation index math of
 * frag_math.c against the formulas of mm/vmstat.c, on hand-made free block
 * counts with values worked out by hand, and on generated counts against a
 * transcription of the kernel's functions kept here as the reference.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/math64.h>

#include "frag_math.h"
#include "mi_kunit.h"

/* x86_64: orders 0..10, as free_area[] has on every kernel of the matrix */
#define T_ORDERS	11

/*
 * The reference: mm/vmstat.c's fill_contig_page_info(),
 * __fragmentation_index() and unusable_free_index() (6.12), with
 * zone->free_area[order].nr_free replaced by nr_free[order] and nothing
 * else changed.  Kept apart from frag_math.c on purpose: the suite checks
 * one against the other.
 */
struct t_contig_page_info {
	unsigned long free_pages;
	unsigned long free_blocks_total;
	unsigned long free_blocks_suitable;
};

static void t_fill_contig_page_info(const unsigned long *nr_free,
				    unsigned int suitable_order,
				    struct t_contig_page_info *info)
{
	unsigned int order;

	info->free_pages = 0;
	info->free_blocks_total = 0;
	info->free_blocks_suitable = 0;

	for (order = 0; order < T_ORDERS; order++) {
		unsigned long blocks;

		blocks = nr_free[order];
		info->free_blocks_total += blocks;
		info->free_pages += blocks << order;
		if (order >= suitable_order)
			info->free_blocks_suitable += blocks <<
						(order - suitable_order);
	}
}

static int t_fragmentation_index(unsigned int order,
				 struct t_contig_page_info *info)
{
	unsigned long requested = 1UL << order;

	if (!info->free_blocks_total)
		return 0;
	if (info->free_blocks_suitable)
		return -1000;
	return 1000 - div_u64((1000 + (div_u64(info->free_pages * 1000ULL,
						requested))),
			      info->free_blocks_total);
}

static int t_unusable_free_index(unsigned int order,
				 struct t_contig_page_info *info)
{
	if (info->free_pages == 0)
		return 1000;
	return div_u64((info->free_pages -
			(info->free_blocks_suitable << order)) * 1000ULL,
		       info->free_pages);
}

/* Every order of @nr_free: ours equal the reference, field by field. */
static void t_compare_all(struct kunit *test, const unsigned long *nr_free,
			  unsigned int round)
{
	unsigned int order;

	for (order = 0; order < T_ORDERS; order++) {
		struct t_contig_page_info ref;
		struct mi_contig got;

		t_fill_contig_page_info(nr_free, order, &ref);
		mi_fill_contig(nr_free, T_ORDERS, order, &got);
		KUNIT_EXPECT_EQ_MSG(test, got.free_pages, ref.free_pages,
				    "round %u order %u", round, order);
		KUNIT_EXPECT_EQ_MSG(test, got.free_blocks_total,
				    ref.free_blocks_total,
				    "round %u order %u", round, order);
		KUNIT_EXPECT_EQ_MSG(test, got.free_blocks_suitable,
				    ref.free_blocks_suitable,
				    "round %u order %u", round, order);
		KUNIT_EXPECT_EQ_MSG(test, mi_extfrag_index(order, &got),
				    t_fragmentation_index(order, &ref),
				    "round %u order %u", round, order);
		KUNIT_EXPECT_EQ_MSG(test, mi_unusable_index(order, &got),
				    t_unusable_free_index(order, &ref),
				    "round %u order %u", round, order);
	}
}

/* No free memory: all of it unusable, fragmentation index 0 (no data). */
static void mi_frag_empty_zone(struct kunit *test)
{
	unsigned long nr_free[T_ORDERS] = {};
	unsigned int order;

	for (order = 0; order < T_ORDERS; order++) {
		struct mi_contig c;

		mi_fill_contig(nr_free, T_ORDERS, order, &c);
		KUNIT_EXPECT_EQ(test, c.free_pages, 0UL);
		KUNIT_EXPECT_EQ(test, c.free_blocks_total, 0UL);
		KUNIT_EXPECT_EQ(test, c.free_blocks_suitable, 0UL);
		KUNIT_EXPECT_EQ(test, mi_unusable_index(order, &c), 1000);
		KUNIT_EXPECT_EQ(test, mi_extfrag_index(order, &c), 0);
	}
}

/*
 * 3 order-0, 2 order-1 and 1 order-2 blocks: 11 free pages in 6 blocks.
 * Worked by hand from the formulas:
 *   order 0: suitable 3 + 2*2 + 1*4 = 11, unusable (11 - 11) * 1000 / 11 = 0
 *   order 1: suitable 2 + 1*2 = 4,        unusable (11 - 8) * 1000 / 11 = 272
 *   order 2: suitable 1,                  unusable (11 - 4) * 1000 / 11 = 636
 *   order 3: suitable 0,                  unusable 1000,
 *            extfrag 1000 - (1000 + 11 * 1000 / 8) / 6 = 1000 - 2375 / 6 = 605
 *   order 4: extfrag 1000 - (1000 + 11000 / 16) / 6 = 1000 - 1687 / 6 = 719
 *   order 10: extfrag 1000 - (1000 + 11000 / 1024) / 6 = 1000 - 1010 / 6 = 832
 * and extfrag -1000 wherever a suitable block exists.
 */
static void mi_frag_small_zone(struct kunit *test)
{
	static const unsigned long nr_free[T_ORDERS] = { 3, 2, 1 };
	static const int unusable[T_ORDERS] = {
		0, 272, 636, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000
	};
	static const int extfrag[T_ORDERS] = {
		-1000, -1000, -1000, 605, 719, [10] = 832
	};
	unsigned int order;
	struct mi_contig c;

	mi_fill_contig(nr_free, T_ORDERS, 1, &c);
	KUNIT_EXPECT_EQ(test, c.free_pages, 11UL);
	KUNIT_EXPECT_EQ(test, c.free_blocks_total, 6UL);
	KUNIT_EXPECT_EQ(test, c.free_blocks_suitable, 4UL);

	for (order = 0; order < T_ORDERS; order++) {
		mi_fill_contig(nr_free, T_ORDERS, order, &c);
		KUNIT_EXPECT_EQ_MSG(test, mi_unusable_index(order, &c),
				    unusable[order], "order %u", order);
		if (order <= 4 || order == 10)
			KUNIT_EXPECT_EQ_MSG(test, mi_extfrag_index(order, &c),
					    extfrag[order], "order %u", order);
	}
}

/*
 * Only order-0 blocks, 8 of them: nothing above order 0 is usable.
 * Order 3: extfrag 1000 - (1000 + 8000 / 8) / 8 = 750.  Order 1 asks for
 * 2 pages: 1000 - (1000 + 4000) / 8 = 375.
 */
static void mi_frag_only_order0(struct kunit *test)
{
	static const unsigned long nr_free[T_ORDERS] = { 8 };
	struct mi_contig c;

	mi_fill_contig(nr_free, T_ORDERS, 0, &c);
	KUNIT_EXPECT_EQ(test, mi_unusable_index(0, &c), 0);
	KUNIT_EXPECT_EQ(test, mi_extfrag_index(0, &c), -1000);
	mi_fill_contig(nr_free, T_ORDERS, 1, &c);
	KUNIT_EXPECT_EQ(test, mi_unusable_index(1, &c), 1000);
	KUNIT_EXPECT_EQ(test, mi_extfrag_index(1, &c), 375);
	mi_fill_contig(nr_free, T_ORDERS, 3, &c);
	KUNIT_EXPECT_EQ(test, mi_unusable_index(3, &c), 1000);
	KUNIT_EXPECT_EQ(test, mi_extfrag_index(3, &c), 750);
}

/*
 * One free page, asked for two: the kernel's formula goes below zero
 * (1000 - (1000 + 500) / 1 = -500) and the module must print the same.
 */
static void mi_frag_below_request(struct kunit *test)
{
	static const unsigned long nr_free[T_ORDERS] = { 1 };
	struct mi_contig c;

	mi_fill_contig(nr_free, T_ORDERS, 1, &c);
	KUNIT_EXPECT_EQ(test, mi_extfrag_index(1, &c), -500);
	KUNIT_EXPECT_EQ(test, mi_unusable_index(1, &c), 1000);
}

/* A single order-10 block: every order is satisfiable, nothing unusable. */
static void mi_frag_one_max_block(struct kunit *test)
{
	static const unsigned long nr_free[T_ORDERS] = { [10] = 1 };
	unsigned int order;

	for (order = 0; order < T_ORDERS; order++) {
		struct mi_contig c;

		mi_fill_contig(nr_free, T_ORDERS, order, &c);
		KUNIT_EXPECT_EQ(test, c.free_pages, 1024UL);
		KUNIT_EXPECT_EQ(test, c.free_blocks_suitable,
				1UL << (10 - order));
		KUNIT_EXPECT_EQ(test, mi_unusable_index(order, &c), 0);
		KUNIT_EXPECT_EQ(test, mi_extfrag_index(order, &c), -1000);
	}
}

/*
 * Counts as large as a 16 TiB zone (2^32 order-0 pages) must not overflow
 * the 64-bit products: 2^32 * 1000 fits, and the result is the same as the
 * reference's.
 */
static void mi_frag_huge_counts(struct kunit *test)
{
	unsigned long nr_free[T_ORDERS] = { 1UL << 32, 1UL << 20, [9] = 3 };

	t_compare_all(test, nr_free, 0);
}

/* A fixed-seed generator, so a failure names a round that reproduces. */
static u32 t_next(u32 *state)
{
	*state = *state * 1664525u + 1013904223u;
	return *state >> 8;
}

/*
 * 2000 generated zones (each order empty, small, or up to 2^20 blocks)
 * against the reference, every order, every figure.
 */
static void mi_frag_matches_vmstat(struct kunit *test)
{
	unsigned long nr_free[T_ORDERS];
	u32 state = 20261129;
	unsigned int round, order;

	for (round = 1; round <= 2000; round++) {
		for (order = 0; order < T_ORDERS; order++) {
			switch (t_next(&state) % 4) {
			case 0:
				nr_free[order] = 0;
				break;
			case 1:
				nr_free[order] = t_next(&state) % 8;
				break;
			case 2:
				nr_free[order] = t_next(&state) % 1000;
				break;
			default:
				nr_free[order] = t_next(&state) % (1u << 20);
				break;
			}
		}
		t_compare_all(test, nr_free, round);
	}
}

static struct kunit_case mi_frag_cases[] = {
	KUNIT_CASE(mi_frag_empty_zone),
	KUNIT_CASE(mi_frag_small_zone),
	KUNIT_CASE(mi_frag_only_order0),
	KUNIT_CASE(mi_frag_below_request),
	KUNIT_CASE(mi_frag_one_max_block),
	KUNIT_CASE(mi_frag_huge_counts),
	KUNIT_CASE(mi_frag_matches_vmstat),
	{}
};

struct kunit_suite mi_frag_suite = {
	.name = "meminspect_frag",
	.test_cases = mi_frag_cases,
};
