// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_pool: a fixed set of buffers handed out once each, given back,
 * and all free again after a reset (the end of a connection), but for
 * those lent to the user, which stay the user's.
 */
#include "xrdma.h"
#include "xrdma_kunit.h"

static void pool_rejects_empty(struct kunit *test)
{
	struct xrdma_pool pool;

	KUNIT_EXPECT_EQ(test, xrdma_pool_create(&pool, 0, 64, DMA_TO_DEVICE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_pool_create(&pool, 4, 0, DMA_TO_DEVICE),
			-EINVAL);
}

static void pool_get_all(struct kunit *test)
{
	struct xrdma_buf *got[8];
	struct xrdma_pool pool;
	unsigned int i, j;

	KUNIT_ASSERT_EQ(test, xrdma_pool_create(&pool, 8, 128, DMA_TO_DEVICE),
			0);
	KUNIT_EXPECT_EQ(test, xrdma_pool_nfree(&pool), 8U);
	for (i = 0; i < 8; i++) {
		got[i] = xrdma_pool_get(&pool);
		KUNIT_ASSERT_NOT_NULL(test, got[i]);
		KUNIT_EXPECT_NOT_NULL(test, got[i]->data);
		KUNIT_EXPECT_PTR_EQ(test, got[i]->pool, &pool);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_PTR_NE(test, got[i], got[j]);
	}
	KUNIT_EXPECT_NULL(test, xrdma_pool_get(&pool));
	KUNIT_EXPECT_EQ(test, xrdma_pool_nfree(&pool), 0U);
	xrdma_pool_put(&pool, got[3]);
	KUNIT_EXPECT_EQ(test, xrdma_pool_nfree(&pool), 1U);
	KUNIT_EXPECT_PTR_EQ(test, xrdma_pool_get(&pool), got[3]);
	xrdma_pool_destroy(&pool);
}

static void pool_reset(struct kunit *test)
{
	struct xrdma_pool pool;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, xrdma_pool_create(&pool, 4, 64,
						DMA_FROM_DEVICE), 0);
	/* Buffers a dead QP held are simply free again. */
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_NOT_NULL(test, xrdma_pool_get(&pool));
	xrdma_pool_reset(&pool);
	KUNIT_EXPECT_EQ(test, xrdma_pool_nfree(&pool), 4U);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_NOT_NULL(test, xrdma_pool_get(&pool));
	KUNIT_EXPECT_NULL(test, xrdma_pool_get(&pool));
	xrdma_pool_destroy(&pool);
}

static void pool_reset_spares_lent(struct kunit *test)
{
	struct xrdma_buf *lent, *used, *buf;
	struct xrdma_pool pool;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, xrdma_pool_create(&pool, 4, 64,
						DMA_TO_DEVICE), 0);
	lent = xrdma_pool_lend(&pool);
	KUNIT_ASSERT_NOT_NULL(test, lent);
	used = xrdma_pool_lend(&pool);
	KUNIT_ASSERT_NOT_NULL(test, used);
	/* Posted: a work request holds it, which a reset frees. */
	xrdma_pool_mark_lent(&pool, used, false);
	xrdma_pool_reset(&pool);
	KUNIT_EXPECT_EQ(test, xrdma_pool_nfree(&pool), 3U);
	for (i = 0; i < 3; i++) {
		buf = xrdma_pool_get(&pool);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		KUNIT_EXPECT_PTR_NE(test, buf, lent);
	}
	KUNIT_EXPECT_NULL(test, xrdma_pool_get(&pool));
	/* Given back, it is an ordinary buffer again. */
	xrdma_pool_put(&pool, lent);
	KUNIT_EXPECT_EQ(test, xrdma_pool_nfree(&pool), 1U);
	xrdma_pool_reset(&pool);
	KUNIT_EXPECT_EQ(test, xrdma_pool_nfree(&pool), 4U);
	xrdma_pool_destroy(&pool);
}

static void pool_memory_is_whole(struct kunit *test)
{
	struct xrdma_pool pool;
	struct xrdma_buf *buf;

	KUNIT_ASSERT_EQ(test, xrdma_pool_create(&pool, 2, 65548,
						DMA_TO_DEVICE), 0);
	buf = xrdma_pool_get(&pool);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* KASAN catches a buffer shorter than the pool's size. */
	memset(buf->data, 0xa5, pool.size);
	xrdma_pool_put(&pool, buf);
	xrdma_pool_destroy(&pool);
	KUNIT_EXPECT_EQ(test, pool.count, 0U);
}

static struct kunit_case xrdma_pool_cases[] = {
	KUNIT_CASE(pool_rejects_empty),
	KUNIT_CASE(pool_get_all),
	KUNIT_CASE(pool_reset_spares_lent),
	KUNIT_CASE(pool_reset),
	KUNIT_CASE(pool_memory_is_whole),
	{}
};

struct kunit_suite xrdma_pool_suite = {
	.name = "xrdma_pool",
	.test_cases = xrdma_pool_cases,
};
