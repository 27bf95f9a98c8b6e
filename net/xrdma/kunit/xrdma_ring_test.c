// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_ring: the send-context ring hands out slots in order, refuses
 * when full, and retires in order up to a completed slot; the Sends
 * that ask for a completion are those the ring needs and the large.
 */
#include "xrdma.h"
#include "xrdma_kunit.h"

/**
 * struct ring_log - the slots a retire walked, in order
 * @slot: the slots
 * @n: how many
 */
struct ring_log {
	unsigned int slot[16];
	unsigned int n;
};

static void ring_log_fn(void *arg, unsigned int slot)
{
	struct ring_log *log = arg;

	if (log->n < ARRAY_SIZE(log->slot))
		log->slot[log->n] = slot;
	log->n++;
}

static void ring_init_rejects_zero(struct kunit *test)
{
	struct xrdma_ring ring;

	KUNIT_EXPECT_EQ(test, xrdma_ring_init(&ring, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_ring_init(&ring, 1), 0);
	KUNIT_EXPECT_EQ(test, xrdma_ring_in_use(&ring), 0U);
}

static void ring_full(struct kunit *test)
{
	struct xrdma_ring ring;
	int i;

	KUNIT_ASSERT_EQ(test, xrdma_ring_init(&ring, 4), 0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_GE(test, xrdma_ring_get(&ring), 0);
	KUNIT_EXPECT_EQ(test, xrdma_ring_in_use(&ring), 4U);
	KUNIT_EXPECT_EQ(test, xrdma_ring_get(&ring), -ENOBUFS);
}

static void ring_retire_in_order(struct kunit *test)
{
	struct ring_log log = {};
	struct xrdma_ring ring;
	int a, b, c;

	KUNIT_ASSERT_EQ(test, xrdma_ring_init(&ring, 4), 0);
	a = xrdma_ring_get(&ring);
	b = xrdma_ring_get(&ring);
	c = xrdma_ring_get(&ring);
	KUNIT_ASSERT_GE(test, c, 0);
	/* A signalled completion of b retires the unsignalled a too. */
	KUNIT_EXPECT_EQ(test, xrdma_ring_retire(&ring, b, ring_log_fn, &log),
			2U);
	KUNIT_ASSERT_EQ(test, log.n, 2U);
	KUNIT_EXPECT_EQ(test, log.slot[0], (unsigned int)a);
	KUNIT_EXPECT_EQ(test, log.slot[1], (unsigned int)b);
	KUNIT_EXPECT_EQ(test, xrdma_ring_in_use(&ring), 1U);
	/* The freed slots are handed out again. */
	KUNIT_EXPECT_GE(test, xrdma_ring_get(&ring), 0);
	KUNIT_EXPECT_GE(test, xrdma_ring_get(&ring), 0);
	KUNIT_EXPECT_GE(test, xrdma_ring_get(&ring), 0);
	KUNIT_EXPECT_EQ(test, xrdma_ring_get(&ring), -ENOBUFS);
}

static void ring_retire_stale(struct kunit *test)
{
	struct ring_log log = {};
	struct xrdma_ring ring;
	int a, b;

	KUNIT_ASSERT_EQ(test, xrdma_ring_init(&ring, 4), 0);
	a = xrdma_ring_get(&ring);
	b = xrdma_ring_get(&ring);
	KUNIT_ASSERT_EQ(test, xrdma_ring_retire(&ring, b, ring_log_fn, &log),
			2U);
	/* A flushed completion of a slot retired already changes nothing. */
	log.n = 0;
	KUNIT_EXPECT_EQ(test, xrdma_ring_retire(&ring, a, ring_log_fn, &log),
			0U);
	/* Nor does one for a slot never handed out, or out of range. */
	KUNIT_EXPECT_EQ(test, xrdma_ring_retire(&ring, (b + 1) % ring.size,
						ring_log_fn, &log), 0U);
	KUNIT_EXPECT_EQ(test, xrdma_ring_retire(&ring, ring.size, ring_log_fn,
						&log), 0U);
	KUNIT_EXPECT_EQ(test, log.n, 0U);
	KUNIT_EXPECT_EQ(test, xrdma_ring_in_use(&ring), 0U);
}

static void ring_unget(struct kunit *test)
{
	struct xrdma_ring ring;
	int a;

	KUNIT_ASSERT_EQ(test, xrdma_ring_init(&ring, 2), 0);
	a = xrdma_ring_get(&ring);
	xrdma_ring_unget(&ring);
	KUNIT_EXPECT_EQ(test, xrdma_ring_in_use(&ring), 0U);
	KUNIT_EXPECT_EQ(test, xrdma_ring_get(&ring), a);
}

static void ring_wraps(struct kunit *test)
{
	struct ring_log log = {};
	struct xrdma_ring ring;
	unsigned int i;
	int s, prev = -1;

	KUNIT_ASSERT_EQ(test, xrdma_ring_init(&ring, 3), 0);
	/* Ten times round the ring, two in flight, one retired each time. */
	for (i = 0; i < 40; i++) {
		s = xrdma_ring_get(&ring);
		KUNIT_ASSERT_GE(test, s, 0);
		if (prev >= 0) {
			log.n = 0;
			KUNIT_ASSERT_EQ(test, xrdma_ring_retire(&ring, prev,
								ring_log_fn,
								&log), 1U);
			KUNIT_EXPECT_EQ(test, log.slot[0], (unsigned int)prev);
		}
		KUNIT_EXPECT_EQ(test, xrdma_ring_in_use(&ring), 1U);
		prev = s;
	}
}

/* How many of @n Sends of @len bytes xrdma_send_signal() signals on a
 * connection that signals every Send of a page or more (as on siw).
 */
static unsigned int ring_signals(struct xrdma_xprt *xprt, unsigned int n,
				 u32 len)
{
	unsigned int i, signalled = 0;

	spin_lock(&xprt->send_lock);
	for (i = 0; i < n; i++)
		signalled += xrdma_send_signal(xprt, len, PAGE_SIZE);
	spin_unlock(&xprt->send_lock);
	return signalled;
}

static void ring_signal_policy(struct kunit *test)
{
	struct xrdma_xprt *xprt = kunit_kzalloc(test, sizeof(*xprt),
						GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, xprt);
	spin_lock_init(&xprt->send_lock);
	KUNIT_ASSERT_EQ(test, xrdma_ring_init(&xprt->ring, 64), 0);
	/* Small Sends: the last of every XRDMA_SIGNAL_EVERY. */
	KUNIT_EXPECT_EQ(test, ring_signals(xprt, 4 * XRDMA_SIGNAL_EVERY, 64),
			4U);
	/* A page or more: every one, right after a signalled one. */
	KUNIT_EXPECT_EQ(test, ring_signals(xprt, 3, PAGE_SIZE), 3U);
	KUNIT_EXPECT_EQ(test, ring_signals(xprt, XRDMA_SIGNAL_EVERY - 1,
					   PAGE_SIZE - 1), 0U);
	KUNIT_EXPECT_EQ(test, ring_signals(xprt, 1, 64), 1U);
	KUNIT_EXPECT_EQ(test, ring_signals(xprt, XRDMA_SIGNAL_EVERY - 2, 64),
			0U);
	KUNIT_EXPECT_EQ(test, ring_signals(xprt, 1, XRDMA_MAX_SEND), 1U);
	/* The Send whose slot fills the ring, right after a signalled one. */
	for (i = 0; i < 64; i++)
		KUNIT_ASSERT_GE(test, xrdma_ring_get(&xprt->ring), 0);
	KUNIT_EXPECT_EQ(test, ring_signals(xprt, 1, 64), 1U);
}

/* Where the device does not need it, a page is a small Send. */
static void ring_signal_pages_only_where_asked(struct kunit *test)
{
	struct xrdma_xprt *xprt = kunit_kzalloc(test, sizeof(*xprt),
						GFP_KERNEL);
	unsigned int i, signalled = 0;

	KUNIT_ASSERT_NOT_NULL(test, xprt);
	spin_lock_init(&xprt->send_lock);
	KUNIT_ASSERT_EQ(test, xrdma_ring_init(&xprt->ring, 64), 0);
	spin_lock(&xprt->send_lock);
	for (i = 0; i < 4 * XRDMA_SIGNAL_EVERY; i++)
		signalled += xrdma_send_signal(xprt, XRDMA_MAX_SEND, U32_MAX);
	spin_unlock(&xprt->send_lock);
	KUNIT_EXPECT_EQ(test, signalled, 4U);
}

static struct kunit_case xrdma_ring_cases[] = {
	KUNIT_CASE(ring_init_rejects_zero),
	KUNIT_CASE(ring_full),
	KUNIT_CASE(ring_retire_in_order),
	KUNIT_CASE(ring_retire_stale),
	KUNIT_CASE(ring_unget),
	KUNIT_CASE(ring_wraps),
	KUNIT_CASE(ring_signal_policy),
	KUNIT_CASE(ring_signal_pages_only_where_asked),
	{}
};

struct kunit_suite xrdma_ring_suite = {
	.name = "xrdma_ring",
	.test_cases = xrdma_ring_cases,
};
