// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_reconnect: the reconnect work of a client transport.  Each
 * attempt goes to an IPv6 link-local address without a scope, which
 * rdma_resolve_addr() refuses at once, so an attempt fails without a
 * device or a wait; the worker is called directly, as the workqueue
 * would, and what it queued is read from the delayed work itself.
 * Then that xrdma_disconnect() leaves no forced disconnect queued.
 */
#include <linux/in6.h>
#include <net/net_namespace.h>

#include "xrdma.h"
#include "xrdma_kunit.h"

static void reconnect_test_recv(struct xrdma_xprt *xprt, const void *data,
				u32 len)
{
}

static const struct xrdma_ops reconnect_test_ops = {
	.recv = reconnect_test_recv,
};

/* A client transport that asked for reconnects, as xrdma_connect()
 * leaves it once a connection is lost: no endpoint, its namespace and
 * destination kept, the delay at @backoff_ms.
 */
static struct xrdma_xprt *reconnect_test_xprt(struct kunit *test,
					      unsigned int reconnect_ms,
					      unsigned int backoff_ms)
{
	struct xrdma_opts opts = {
		.depth = 4,
		.inline_size = XRDMA_MIN_INLINE,
		.timeout_ms = 1000,
		.reconnect_ms = reconnect_ms,
	};
	struct sockaddr_in6 *dst;
	struct xrdma_xprt *xprt;

	xprt = xrdma_xprt_create(&opts, &reconnect_test_ops, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(xprt));
	xprt->net = get_net(&init_net);
	dst = (struct sockaddr_in6 *)&xprt->dst;
	dst->sin6_family = AF_INET6;
	dst->sin6_port = htons(7471);
	dst->sin6_addr.s6_addr32[0] = htonl(0xfe800000);
	dst->sin6_addr.s6_addr32[3] = htonl(1);
	xprt->backoff_ms = backoff_ms;
	return xprt;
}

/* The delay of the attempt now queued, in ms, from its timer. */
static unsigned long reconnect_test_queued_ms(struct xrdma_xprt *xprt)
{
	return jiffies_to_msecs(xprt->reconnect_work.timer.expires - jiffies);
}

static void reconnect_failure_doubles_delay(struct kunit *test)
{
	struct xrdma_xprt *xprt = reconnect_test_xprt(test, 1000, 1000);

	xrdma_reconnect_worker(&xprt->reconnect_work.work);
	KUNIT_EXPECT_NULL(test, xprt->ep);
	KUNIT_EXPECT_EQ(test, xprt->backoff_ms, 2000U);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&xprt->reconnect_work));
	KUNIT_EXPECT_LE(test, reconnect_test_queued_ms(xprt), 2000UL);
	xrdma_xprt_destroy(xprt);
}

static void reconnect_delay_ceiling(struct kunit *test)
{
	struct xrdma_xprt *xprt;

	/* Doubling 40 s would give 80 s: the ceiling is 60 s. */
	xprt = reconnect_test_xprt(test, 1000, 40000);
	xrdma_reconnect_worker(&xprt->reconnect_work.work);
	KUNIT_EXPECT_EQ(test, xprt->backoff_ms, XRDMA_RECONNECT_MAX_MS);
	KUNIT_ASSERT_TRUE(test, delayed_work_pending(&xprt->reconnect_work));
	KUNIT_EXPECT_LE(test, reconnect_test_queued_ms(xprt),
			(unsigned long)XRDMA_RECONNECT_MAX_MS);
	/* And it stays there. */
	cancel_delayed_work_sync(&xprt->reconnect_work);
	xrdma_reconnect_worker(&xprt->reconnect_work.work);
	KUNIT_EXPECT_EQ(test, xprt->backoff_ms, XRDMA_RECONNECT_MAX_MS);
	xrdma_xprt_destroy(xprt);
}

static void reconnect_cancelled_by_disconnect(struct kunit *test)
{
	struct xrdma_xprt *xprt = reconnect_test_xprt(test, 1000, 30000);

	/* A failed attempt leaves the next one queued, 60 s away. */
	xrdma_reconnect_worker(&xprt->reconnect_work.work);
	KUNIT_ASSERT_TRUE(test, delayed_work_pending(&xprt->reconnect_work));
	xrdma_disconnect(xprt);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&xprt->reconnect_work));
	KUNIT_EXPECT_TRUE(test, xprt->stopping);
	xrdma_xprt_destroy(xprt);
}

/**
 * struct reconnect_test_gate - holds an ordered workqueue's later work
 * @work: queued first; returns once @open is completed
 * @open: lets it return
 */
struct reconnect_test_gate {
	struct work_struct work;
	struct completion open;
};

static void reconnect_test_gate_wait(struct work_struct *work)
{
	struct reconnect_test_gate *gate =
		container_of(work, struct reconnect_test_gate, work);

	wait_for_completion(&gate->open);
}

/* A disconnect that an error of the connection queued, still waiting
 * to run when the user disconnects, is cancelled: it was that
 * connection's, and run later it would tear down the next one.  It is
 * kept queued behind a gate on an ordered workqueue of the test's.
 */
static void disconnect_cancels_queued_teardown(struct kunit *test)
{
	struct xrdma_xprt *xprt = reconnect_test_xprt(test, 0, 0);
	struct reconnect_test_gate gate;
	struct workqueue_struct *wq;

	wq = alloc_ordered_workqueue("xrdma_kunit_gate", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	init_completion(&gate.open);
	INIT_WORK_ONSTACK(&gate.work, reconnect_test_gate_wait);
	queue_work(wq, &gate.work);
	queue_work(wq, &xprt->disconnect_work);
	xrdma_disconnect(xprt);
	KUNIT_EXPECT_FALSE(test, work_pending(&xprt->disconnect_work));
	complete(&gate.open);
	destroy_workqueue(wq);
	destroy_work_on_stack(&gate.work);
	xrdma_xprt_destroy(xprt);
}

static struct kunit_case xrdma_reconnect_cases[] = {
	KUNIT_CASE(reconnect_failure_doubles_delay),
	KUNIT_CASE(reconnect_delay_ceiling),
	KUNIT_CASE(reconnect_cancelled_by_disconnect),
	KUNIT_CASE(disconnect_cancels_queued_teardown),
	{}
};

struct kunit_suite xrdma_reconnect_suite = {
	.name = "xrdma_reconnect",
	.test_cases = xrdma_reconnect_cases,
};
