// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_pool: a fixed set of buffers handed out once each, given back,
 * and all free again after a reset (the end of a connection), but for
 * those lent to the user, which stay the user's; and when a reply
 * buffer may carry the message it holds out again.
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

/* A message being received leaves from its reply buffer only as a
 * whole or a prefix, within the inline size, and only while a spare
 * reply buffer is left for the next receive.
 */
static void pool_send_from_rx(struct kunit *test)
{
	struct xrdma_xprt *xprt = kunit_kzalloc(test, sizeof(*xprt),
						GFP_KERNEL);
	struct xrdma_buf *buf, *spare;
	u8 other[8];
	u8 *msg;

	KUNIT_ASSERT_NOT_NULL(test, xprt);
	spin_lock_init(&xprt->send_lock);
	xprt->opts.inline_size = 1024;
	KUNIT_ASSERT_EQ(test, xrdma_pool_create(&xprt->reps, 2,
						1024 + 2 * XRDMA_HDR_MAX,
						DMA_BIDIRECTIONAL), 0);
	buf = xrdma_pool_get(&xprt->reps);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	buf->off = XRDMA_HDR_MAX;
	msg = (u8 *)buf->data + buf->off + 4;	/* behind a 4-byte header */
	xprt->rx_buf = buf;
	xprt->rx_msg = msg;
	xprt->rx_len = 100;
	xprt->rx_limit = 1024 + XRDMA_HDR_MAX;
	KUNIT_EXPECT_TRUE(test, xrdma_send_from_rx(xprt, buf, msg, 100));
	KUNIT_EXPECT_TRUE(test, xrdma_send_from_rx(xprt, buf, msg, 1));
	KUNIT_EXPECT_FALSE(test, xrdma_send_from_rx(xprt, buf, msg, 101));
	KUNIT_EXPECT_FALSE(test, xrdma_send_from_rx(xprt, buf, msg + 1, 10));
	KUNIT_EXPECT_FALSE(test, xrdma_send_from_rx(xprt, buf, other, 8));
	KUNIT_EXPECT_FALSE(test, xrdma_send_from_rx(xprt, NULL, msg, 100));
	/* Above the inline size: it goes as a chunk, from a copy. */
	xprt->rx_len = 1025;
	KUNIT_EXPECT_TRUE(test, xrdma_send_from_rx(xprt, buf, msg, 1024));
	KUNIT_EXPECT_FALSE(test, xrdma_send_from_rx(xprt, buf, msg, 1025));
	/* No spare left. */
	spare = xrdma_pool_get(&xprt->reps);
	KUNIT_ASSERT_NOT_NULL(test, spare);
	KUNIT_EXPECT_FALSE(test, xrdma_send_from_rx(xprt, buf, msg, 100));
	xrdma_pool_put(&xprt->reps, spare);
	KUNIT_EXPECT_TRUE(test, xrdma_send_from_rx(xprt, buf, msg, 100));
	xrdma_pool_put(&xprt->reps, buf);
	xrdma_pool_destroy(&xprt->reps);
}

static struct kunit_case xrdma_pool_cases[] = {
	KUNIT_CASE(pool_rejects_empty),
	KUNIT_CASE(pool_get_all),
	KUNIT_CASE(pool_reset_spares_lent),
	KUNIT_CASE(pool_reset),
	KUNIT_CASE(pool_memory_is_whole),
	KUNIT_CASE(pool_send_from_rx),
	{}
};

struct kunit_suite xrdma_pool_suite = {
	.name = "xrdma_pool",
	.test_cases = xrdma_pool_cases,
};
