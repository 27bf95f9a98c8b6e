// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_rdma: what xrdma_rdma() and xrdma_rdma_nowait() refuse before
 * anything reaches the device, and that the second never waits: a
 * transport whose every RDMA context is in use makes it return -EAGAIN
 * at once where the first waits out the timeout.  The transport here
 * is built by hand, with a connection that has a QP and no device: no
 * case gets as far as posting.
 */
#include <linux/jiffies.h>
#include <rdma/rdma_cm.h>

#include "xrdma.h"
#include "xrdma_kunit.h"

static void rdma_test_done(struct xrdma_xprt *xprt, u64 cookie, int status)
{
}

static const struct xrdma_ops rdma_test_ops = {
	.rdma_done = rdma_test_done,
};

static const struct xrdma_ops rdma_test_no_ops;

/**
 * struct rdma_test - a transport, its connection and one registration
 * @xprt: the transport, with no free RDMA context
 * @ep: its connection, established
 * @id: the connection's id
 * @qp: the id's QP, never posted to
 * @ibmr: the registration's MR
 * @mr: a registration of 4 KiB
 * @rem: 4 KiB of the peer's
 */
struct rdma_test {
	struct xrdma_xprt xprt;
	struct xrdma_ep ep;
	struct rdma_cm_id id;
	struct ib_qp qp;
	struct ib_mr ibmr;
	struct xrdma_mr mr;
	struct xrdma_remote rem;
};

static struct rdma_test *rdma_test_make(struct kunit *test)
{
	struct rdma_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->xprt.ops = &rdma_test_ops;
	t->xprt.opts.timeout_ms = 1;
	spin_lock_init(&t->xprt.send_lock);
	init_waitqueue_head(&t->xprt.send_wait);
	INIT_LIST_HEAD(&t->xprt.rctx_free);
	t->id.qp = &t->qp;
	t->ep.id = &t->id;
	t->ep.status = XRDMA_CONNECTED;
	t->xprt.ep = &t->ep;
	t->mr.ibmr = &t->ibmr;
	t->mr.len = SZ_4K;
	t->rem.len = SZ_4K;
	return t;
}

static int rdma_test_nowait(struct rdma_test *t, u32 offset, u32 roffset,
			    u32 len)
{
	return xrdma_rdma_nowait(&t->xprt, XRDMA_RDMA_WRITE, &t->mr, offset,
				 &t->rem, roffset, len, 0);
}

static void rdma_refuses_bad_ranges(struct kunit *test)
{
	struct rdma_test *t = rdma_test_make(test);

	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, 1, 0, SZ_4K), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, 0, 1, SZ_4K), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, SZ_4K + 1, 0, 1), -EINVAL);
	/* An offset near U32_MAX must not wrap past the length check. */
	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, 0, U32_MAX, 2), -EINVAL);
	t->mr.len = XRDMA_MAX_RDMA + 1;
	t->rem.len = XRDMA_MAX_RDMA + 1;
	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, 0, 0, XRDMA_MAX_RDMA + 1),
			-EINVAL);
	/* Without rdma_done nobody could hear of the outcome. */
	t->xprt.ops = &rdma_test_no_ops;
	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, 0, 0, 1), -EINVAL);
}

static void rdma_needs_a_connection(struct kunit *test)
{
	struct rdma_test *t = rdma_test_make(test);

	t->xprt.ep = NULL;
	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, 0, 0, 1), -ENOTCONN);
	t->xprt.ep = &t->ep;
	t->ep.draining = true;
	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, 0, 0, 1), -ENOTCONN);
	t->ep.draining = false;
	t->ep.status = -ECONNRESET;
	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, 0, 0, 1), -ENOTCONN);
	/* A registration of an earlier connection has lost its MR. */
	t->ep.status = XRDMA_CONNECTED;
	t->mr.ibmr = NULL;
	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, 0, 0, 1), -ENOTCONN);
}

static void rdma_nowait_does_not_wait(struct kunit *test)
{
	struct rdma_test *t = rdma_test_make(test);
	unsigned long start;

	/* No free context: the waiting call times out, the other says so. */
	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, 0, 0, SZ_4K), -EAGAIN);
	start = jiffies;
	KUNIT_EXPECT_EQ(test,
			xrdma_rdma(&t->xprt, XRDMA_RDMA_WRITE, &t->mr, 0,
				   &t->rem, 0, SZ_4K, 0),
			-ETIMEDOUT);
	KUNIT_EXPECT_GE(test, jiffies - start, msecs_to_jiffies(1));
	/* An accepted connection before ESTABLISHED: the same. */
	t->ep.status = 0;
	KUNIT_EXPECT_EQ(test, rdma_test_nowait(t, 0, 0, SZ_4K), -EAGAIN);
}

static struct kunit_case xrdma_rdma_cases[] = {
	KUNIT_CASE(rdma_refuses_bad_ranges),
	KUNIT_CASE(rdma_needs_a_connection),
	KUNIT_CASE(rdma_nowait_does_not_wait),
	{}
};

struct kunit_suite xrdma_rdma_suite = {
	.name = "xrdma_rdma",
	.test_cases = xrdma_rdma_cases,
};
