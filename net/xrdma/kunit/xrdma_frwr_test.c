// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_frwr: the arithmetic of the FRWR pool (never more MRs than the
 * cap, refill due below the low mark, reservations settled whether or
 * not the MRs could be made) and the key a registration gets.
 */
#include "xrdma.h"
#include "xrdma_kunit.h"

static void frwr_count_init_checks(struct kunit *test)
{
	struct xrdma_frwr_count c;

	KUNIT_EXPECT_EQ(test, xrdma_frwr_count_init(&c, 4, 0, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_frwr_count_init(&c, 4, 5, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_frwr_count_init(&c, 9, 2, 8), -EINVAL);
	KUNIT_ASSERT_EQ(test, xrdma_frwr_count_init(&c, 4, 2, 8), 0);
	KUNIT_EXPECT_EQ(test, c.total, 0U);
	KUNIT_EXPECT_EQ(test, c.free, 0U);
	/* An empty pool wants a refill. */
	KUNIT_EXPECT_TRUE(test, xrdma_frwr_count_low(&c));
	KUNIT_EXPECT_FALSE(test, xrdma_frwr_count_take(&c));
}

static void frwr_count_take_give(struct kunit *test)
{
	struct xrdma_frwr_count c;

	KUNIT_ASSERT_EQ(test, xrdma_frwr_count_init(&c, 4, 2, 8), 0);
	KUNIT_ASSERT_EQ(test, xrdma_frwr_count_reserve(&c, 2), 2U);
	xrdma_frwr_count_made(&c, 2, 2);
	KUNIT_EXPECT_EQ(test, c.total, 2U);
	KUNIT_EXPECT_EQ(test, c.free, 2U);
	KUNIT_EXPECT_FALSE(test, xrdma_frwr_count_low(&c));
	/* Lending one leaves the pool low: the refill work is due. */
	KUNIT_EXPECT_TRUE(test, xrdma_frwr_count_take(&c));
	KUNIT_EXPECT_TRUE(test, xrdma_frwr_count_low(&c));
	KUNIT_EXPECT_TRUE(test, xrdma_frwr_count_take(&c));
	KUNIT_EXPECT_FALSE(test, xrdma_frwr_count_take(&c));
	xrdma_frwr_count_give(&c);
	KUNIT_EXPECT_EQ(test, c.free, 1U);
	/* One lent MR failed and was destroyed. */
	xrdma_frwr_count_lose(&c);
	KUNIT_EXPECT_EQ(test, c.total, 1U);
	KUNIT_EXPECT_EQ(test, c.free, 1U);
	/* Nothing is lent now: neither may go below what is free. */
	xrdma_frwr_count_lose(&c);
	xrdma_frwr_count_give(&c);
	KUNIT_EXPECT_EQ(test, c.total, 1U);
	KUNIT_EXPECT_EQ(test, c.free, 1U);
}

static void frwr_count_cap(struct kunit *test)
{
	struct xrdma_frwr_count c;

	KUNIT_ASSERT_EQ(test, xrdma_frwr_count_init(&c, 4, 2, 5), 0);
	KUNIT_EXPECT_EQ(test, xrdma_frwr_count_reserve(&c, 4), 4U);
	/* A second maker, meanwhile, gets what the cap leaves. */
	KUNIT_EXPECT_EQ(test, xrdma_frwr_count_reserve(&c, 4), 1U);
	KUNIT_EXPECT_EQ(test, xrdma_frwr_count_reserve(&c, 1), 0U);
	KUNIT_EXPECT_EQ(test, c.total, 5U);
	xrdma_frwr_count_made(&c, 4, 4);
	xrdma_frwr_count_made(&c, 1, 1);
	KUNIT_EXPECT_EQ(test, c.free, 5U);
	while (xrdma_frwr_count_take(&c))
		;
	/* Every MR lent and the cap reached: no refill to do. */
	KUNIT_EXPECT_FALSE(test, xrdma_frwr_count_low(&c));
}

static void frwr_count_failed_make(struct kunit *test)
{
	struct xrdma_frwr_count c;

	KUNIT_ASSERT_EQ(test, xrdma_frwr_count_init(&c, 4, 2, 8), 0);
	KUNIT_ASSERT_EQ(test, xrdma_frwr_count_reserve(&c, 4), 4U);
	/* Only one of four could be made: the others are not counted. */
	xrdma_frwr_count_made(&c, 1, 4);
	KUNIT_EXPECT_EQ(test, c.total, 1U);
	KUNIT_EXPECT_EQ(test, c.free, 1U);
	KUNIT_EXPECT_EQ(test, xrdma_frwr_count_reserve(&c, 100), 7U);
	xrdma_frwr_count_made(&c, 0, 7);
	KUNIT_EXPECT_EQ(test, c.total, 1U);
	KUNIT_EXPECT_EQ(test, c.free, 1U);
}

static void frwr_rkey_steps(struct kunit *test)
{
	u32 key = 0x12345600, next;
	unsigned int i;

	/* The index (upper 24 bits) stays, the low byte moves by one. */
	for (i = 0; i < 255; i++) {
		next = xrdma_frwr_next_rkey(key);
		KUNIT_EXPECT_EQ(test, next & ~0xffU, 0x12345600U);
		KUNIT_EXPECT_EQ(test, next & 0xffU, (key + 1) & 0xffU);
		KUNIT_EXPECT_NE(test, next, key);
		key = next;
	}
	KUNIT_EXPECT_EQ(test, key, 0x123456ffU);
	/* It wraps inside its byte, never into the index. */
	KUNIT_EXPECT_EQ(test, xrdma_frwr_next_rkey(key), 0x12345600U);
	KUNIT_EXPECT_EQ(test, xrdma_frwr_next_rkey(0xffffffffU), 0xffffff00U);
}

static void frwr_rkey_distinct(struct kunit *test)
{
	DECLARE_BITMAP(seen, 256);
	u32 key = 0xabcdef17;
	unsigned int i;

	bitmap_zero(seen, 256);
	/* 256 registrations of one MR: 256 different keys. */
	for (i = 0; i < 256; i++) {
		KUNIT_EXPECT_FALSE(test, test_bit(key & 0xff, seen));
		__set_bit(key & 0xff, seen);
		key = xrdma_frwr_next_rkey(key);
	}
	KUNIT_EXPECT_EQ(test, key, 0xabcdef17U);
}

static struct kunit_case xrdma_frwr_cases[] = {
	KUNIT_CASE(frwr_count_init_checks),
	KUNIT_CASE(frwr_count_take_give),
	KUNIT_CASE(frwr_count_cap),
	KUNIT_CASE(frwr_count_failed_make),
	KUNIT_CASE(frwr_rkey_steps),
	KUNIT_CASE(frwr_rkey_distinct),
	{}
};

struct kunit_suite xrdma_frwr_suite = {
	.name = "xrdma_frwr",
	.test_cases = xrdma_frwr_cases,
};
