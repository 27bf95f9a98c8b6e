// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_credits: one credit until the peer speaks, cumulative grants
 * that a stale or excessive count cannot corrupt, and wrap-around.
 */
#include "xrdma.h"
#include "xrdma_kunit.h"

static void credits_start_at_one(struct kunit *test)
{
	struct xrdma_credits cr;

	xrdma_credits_init(&cr, 16);
	KUNIT_EXPECT_EQ(test, xrdma_credits_avail(&cr), 1U);
	KUNIT_EXPECT_TRUE(test, xrdma_credits_take(&cr));
	KUNIT_EXPECT_FALSE(test, xrdma_credits_take(&cr));
	KUNIT_EXPECT_EQ(test, xrdma_credits_avail(&cr), 0U);
}

static void credits_grant(struct kunit *test)
{
	struct xrdma_credits cr;
	int i;

	xrdma_credits_init(&cr, 16);
	KUNIT_ASSERT_TRUE(test, xrdma_credits_take(&cr));
	/* The peer posted 16 receives: 15 left after the one we used. */
	xrdma_credits_grant(&cr, 16);
	KUNIT_EXPECT_EQ(test, xrdma_credits_avail(&cr), 15U);
	for (i = 0; i < 15; i++)
		KUNIT_EXPECT_TRUE(test, xrdma_credits_take(&cr));
	KUNIT_EXPECT_FALSE(test, xrdma_credits_take(&cr));
	/* It reposted 4. */
	xrdma_credits_grant(&cr, 20);
	KUNIT_EXPECT_EQ(test, xrdma_credits_avail(&cr), 4U);
}

static void credits_stale_grant(struct kunit *test)
{
	struct xrdma_credits cr;

	xrdma_credits_init(&cr, 16);
	xrdma_credits_grant(&cr, 10);
	/* An older count, delivered late, takes nothing back. */
	xrdma_credits_grant(&cr, 8);
	KUNIT_EXPECT_EQ(test, xrdma_credits_avail(&cr), 10U);
	xrdma_credits_grant(&cr, 0);
	KUNIT_EXPECT_EQ(test, xrdma_credits_avail(&cr), 10U);
}

static void credits_clamped(struct kunit *test)
{
	struct xrdma_credits cr;

	xrdma_credits_init(&cr, 8);
	/* A peer cannot grant more than we can have in flight. */
	xrdma_credits_grant(&cr, 1000);
	KUNIT_EXPECT_EQ(test, xrdma_credits_avail(&cr), 8U);
	KUNIT_EXPECT_TRUE(test, xrdma_credits_take(&cr));
	KUNIT_EXPECT_EQ(test, xrdma_credits_avail(&cr), 7U);
}

static void credits_wrap(struct kunit *test)
{
	struct xrdma_credits cr;

	xrdma_credits_init(&cr, 16);
	cr.sent = U32_MAX - 2;
	cr.granted = U32_MAX - 2;
	KUNIT_EXPECT_EQ(test, xrdma_credits_avail(&cr), 0U);
	/* The peer's count wrapped past zero: still 6 ahead of us. */
	xrdma_credits_grant(&cr, 3);
	KUNIT_EXPECT_EQ(test, xrdma_credits_avail(&cr), 6U);
	/* And a count from before the wrap is older, not larger. */
	xrdma_credits_grant(&cr, U32_MAX);
	KUNIT_EXPECT_EQ(test, xrdma_credits_avail(&cr), 6U);
}

static void credits_announce(struct kunit *test)
{
	struct xrdma_credits cr;

	xrdma_credits_init(&cr, 16);
	xrdma_credits_posted(&cr, 16);
	KUNIT_EXPECT_EQ(test, xrdma_credits_unannounced(&cr), 16U);
	KUNIT_EXPECT_EQ(test, xrdma_credits_announce(&cr), 16U);
	KUNIT_EXPECT_EQ(test, xrdma_credits_unannounced(&cr), 0U);
	xrdma_credits_posted(&cr, 3);
	KUNIT_EXPECT_EQ(test, xrdma_credits_unannounced(&cr), 3U);
	KUNIT_EXPECT_EQ(test, xrdma_credits_announce(&cr), 19U);
}

static struct kunit_case xrdma_credits_cases[] = {
	KUNIT_CASE(credits_start_at_one),
	KUNIT_CASE(credits_grant),
	KUNIT_CASE(credits_stale_grant),
	KUNIT_CASE(credits_clamped),
	KUNIT_CASE(credits_wrap),
	KUNIT_CASE(credits_announce),
	{}
};

struct kunit_suite xrdma_credits_suite = {
	.name = "xrdma_credits",
	.test_cases = xrdma_credits_cases,
};
