// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_done: the DONE that tells a peer we pulled its chunk, owed
 * after the receive callback, and the user's Sends from that callback.
 * Neither may wait in the receive work item for a credit that only
 * that work item takes in: the DONE stays owed and goes once a credit
 * comes, or a Send's completion frees a slot; the user's Send returns
 * -EDEADLK at once.  The transport and its connection are built by
 * hand, with real send contexts and request buffers, on a device whose
 * post_send decodes and records each Send's header.
 */
#include <rdma/rdma_cm.h>

#include "xrdma.h"
#include "xrdma_kunit.h"

#define DONE_TEST_DEPTH	4
#define DONE_TEST_MAX	16
#define DONE_TEST_KEY	0x1234

/**
 * struct done_test - a transport with a live connection
 * @xprt: the transport
 * @ep: its connection
 * @id: the connection's id
 * @dev: its device, whose post_send records the Sends
 * @qp: the id's QP
 * @pd: the connection's PD
 * @cq: the send CQ, whose context is @ep's
 * @cqe: the completion entry of each Send posted
 * @flags: the header flags of each
 * @done: the DONE key each carried, if it had one
 * @posted: how many Sends were posted
 * @recv_rc: what xrdma_send() returned in the receive CQ's work item
 * @done_rc: what xrdma_send_done() returned there
 */
struct done_test {
	struct xrdma_xprt xprt;
	struct xrdma_ep ep;
	struct rdma_cm_id id;
	struct ib_device dev;
	struct ib_qp qp;
	struct ib_pd pd;
	struct ib_cq cq;
	struct ib_cqe *cqe[DONE_TEST_MAX];
	u32 flags[DONE_TEST_MAX];
	u32 done[DONE_TEST_MAX];
	unsigned int posted;
	int recv_rc;
	int done_rc;
};

static int done_test_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			       const struct ib_send_wr **bad)
{
	struct done_test *t = container_of(qp, struct done_test, qp);
	unsigned int slot = wr->wr_cqe - t->xprt.sc_cqe;
	struct xrdma_buf *buf = t->xprt.sc_buf[slot];
	struct xrdma_msg msg;

	if (t->posted >= DONE_TEST_MAX ||
	    xrdma_hdr_decode((u8 *)buf->data + buf->off, buf->len, &msg) < 0)
		return -EINVAL;
	t->cqe[t->posted] = wr->wr_cqe;
	t->flags[t->posted] = msg.flags;
	t->done[t->posted] = msg.done;
	t->posted++;
	return 0;
}

static void done_test_disconnect(struct work_struct *work)
{
}

static struct done_test *done_test_make(struct kunit *test)
{
	struct done_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct xrdma_xprt *xprt;

	KUNIT_ASSERT_NOT_NULL(test, t);
	xprt = &t->xprt;
	xprt->opts.depth = DONE_TEST_DEPTH;
	xprt->opts.inline_size = XRDMA_MIN_INLINE;
	xprt->opts.timeout_ms = 1;
	mutex_init(&xprt->mutex);
	spin_lock_init(&xprt->send_lock);
	init_waitqueue_head(&xprt->send_wait);
	INIT_LIST_HEAD(&xprt->wr_waits);
	INIT_WORK(&xprt->disconnect_work, done_test_disconnect);
	test->priv = t;
	KUNIT_ASSERT_EQ(test, xrdma_pool_create(&xprt->reqs, DONE_TEST_DEPTH,
						XRDMA_MIN_INLINE +
						XRDMA_HDR_MAX,
						DMA_TO_DEVICE), 0);
	KUNIT_ASSERT_EQ(test, xrdma_sendctx_create(xprt), 0);
	xrdma_credits_init(&xprt->credits, DONE_TEST_DEPTH);
	t->dev.ops.post_send = done_test_post_send;
	t->qp.device = &t->dev;
	t->id.device = &t->dev;
	t->id.qp = &t->qp;
	t->cq.device = &t->dev;
	t->cq.cq_context = &t->ep.send_cq;
	spin_lock_init(&t->ep.lock);
	t->ep.id = &t->id;
	t->ep.pd = &t->pd;
	t->ep.xprt = xprt;
	t->ep.status = XRDMA_CONNECTED;
	t->ep.inline_send = XRDMA_MIN_INLINE + XRDMA_HDR_MAX;
	t->ep.signal_from = U32_MAX;
	xrdma_send_cq_prepare(&t->ep, false);
	xprt->ep = &t->ep;
	return t;
}

static void done_test_exit(struct kunit *test)
{
	struct done_test *t = test->priv;

	if (!t)
		return;
	xrdma_sendctx_destroy(&t->xprt);
	xrdma_pool_destroy(&t->xprt.reqs);
}

/* No credit when the callback returns: the DONE does not wait for one
 * (the message that brings it waits behind this work item), stays owed
 * and goes alone once a message brings a credit.
 */
static void done_waits_for_no_credit(struct kunit *test)
{
	struct done_test *t = done_test_make(test);

	spin_lock(&t->xprt.send_lock);
	KUNIT_ASSERT_TRUE(test, xrdma_credits_take(&t->xprt.credits));
	spin_unlock(&t->xprt.send_lock);
	KUNIT_ASSERT_EQ(test, xrdma_done_owe(&t->xprt, DONE_TEST_KEY), 0);
	KUNIT_EXPECT_EQ(test, xrdma_send_done(&t->xprt), 0);
	KUNIT_EXPECT_EQ(test, t->posted, 0U);
	KUNIT_EXPECT_EQ(test, t->xprt.done_due, 1U);

	/* What taking in the peer's next message does. */
	spin_lock(&t->xprt.send_lock);
	xrdma_credits_grant(&t->xprt.credits, 2);
	KUNIT_EXPECT_EQ(test, xrdma_send_dones(&t->xprt), 0);
	spin_unlock(&t->xprt.send_lock);
	KUNIT_ASSERT_EQ(test, t->posted, 1U);
	KUNIT_EXPECT_EQ(test, t->flags[0], (u32)XRDMA_HDR_DONE);
	KUNIT_EXPECT_EQ(test, t->done[0], (u32)DONE_TEST_KEY);
	KUNIT_EXPECT_EQ(test, t->xprt.ndone, 0U);
	KUNIT_EXPECT_EQ(test, t->xprt.done_due, 0U);
}

/* Every request buffer in flight when the callback returns: the DONE
 * stays owed, also once the next message brought credits, keeps the
 * send CQ armed, and goes when a Send's completion gives buffers back.
 */
static void done_goes_when_a_send_completes(struct kunit *test)
{
	struct done_test *t = done_test_make(test);
	static const char msg[8];
	struct ib_wc wc = { .status = IB_WC_SUCCESS };
	unsigned int sent, i;

	spin_lock(&t->xprt.send_lock);
	xrdma_credits_grant(&t->xprt.credits, DONE_TEST_DEPTH);
	spin_unlock(&t->xprt.send_lock);
	for (i = 0; i < DONE_TEST_MAX; i++)
		if (xrdma_send(&t->xprt, msg, sizeof(msg)))
			break;
	sent = t->posted;
	KUNIT_ASSERT_EQ(test, sent, (unsigned int)DONE_TEST_DEPTH);

	KUNIT_ASSERT_EQ(test, xrdma_done_owe(&t->xprt, DONE_TEST_KEY), 0);
	KUNIT_EXPECT_EQ(test, xrdma_send_done(&t->xprt), 0);
	KUNIT_EXPECT_EQ(test, t->posted, sent);
	spin_lock(&t->xprt.send_lock);
	xrdma_credits_grant(&t->xprt.credits, 2 * DONE_TEST_DEPTH);
	KUNIT_EXPECT_EQ(test, xrdma_send_dones(&t->xprt), -EAGAIN);
	spin_unlock(&t->xprt.send_lock);
	KUNIT_EXPECT_EQ(test, t->posted, sent);
	KUNIT_EXPECT_TRUE(test, xrdma_kunit_send_cq_wanted(&t->xprt, &t->ep));

	/* The last Send completes, and with it those before it. */
	wc.wr_cqe = t->cqe[sent - 1];
	wc.wr_cqe->done(&t->cq, &wc);
	KUNIT_ASSERT_EQ(test, t->posted, sent + 1);
	KUNIT_EXPECT_EQ(test, t->flags[sent], (u32)XRDMA_HDR_DONE);
	KUNIT_EXPECT_EQ(test, t->done[sent], (u32)DONE_TEST_KEY);
	KUNIT_EXPECT_FALSE(test, xrdma_kunit_send_cq_wanted(&t->xprt, &t->ep));
}

/* A Send of the callback carries the DONE: none goes alone after it.
 * A peer with more chunks out than it may have is refused.
 */
static void done_rides_on_a_send(struct kunit *test)
{
	struct done_test *t = done_test_make(test);
	static const char msg[8];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, xrdma_done_owe(&t->xprt, DONE_TEST_KEY), 0);
	KUNIT_ASSERT_EQ(test, xrdma_send(&t->xprt, msg, sizeof(msg)), 0);
	KUNIT_EXPECT_EQ(test, xrdma_send_done(&t->xprt), 0);
	KUNIT_ASSERT_EQ(test, t->posted, 1U);
	KUNIT_EXPECT_EQ(test, t->flags[0],
			(u32)(XRDMA_HDR_DATA | XRDMA_HDR_DONE));
	KUNIT_EXPECT_EQ(test, t->done[0], (u32)DONE_TEST_KEY);

	for (i = 0; i < XRDMA_MAX_CHUNKS; i++)
		KUNIT_EXPECT_EQ(test, xrdma_done_owe(&t->xprt, i), 0);
	KUNIT_EXPECT_EQ(test, xrdma_done_owe(&t->xprt, i), -EPROTO);
}

/* As xrdma_ops.recv would: a message, then the DONE of a chunk. */
static void done_test_recv_work(struct work_struct *work)
{
	struct done_test *t = container_of(work, struct done_test,
					   ep.recv_cq.work);
	static const char msg[8];

	t->recv_rc = xrdma_send(&t->xprt, msg, sizeof(msg));
	t->done_rc = xrdma_done_owe(&t->xprt, DONE_TEST_KEY);
	if (!t->done_rc)
		t->done_rc = xrdma_send_done(&t->xprt);
}

/* No credit in the receive CQ's work item, which alone would take one
 * in: the user's Send returns -EDEADLK at once and the DONE stays owed,
 * where any other thread waits for the credit.
 */
static void done_recv_work_waits_for_no_credit(struct kunit *test)
{
	struct done_test *t = done_test_make(test);
	static const char msg[8];

	spin_lock(&t->xprt.send_lock);
	KUNIT_ASSERT_TRUE(test, xrdma_credits_take(&t->xprt.credits));
	spin_unlock(&t->xprt.send_lock);
	INIT_WORK(&t->ep.recv_cq.work, done_test_recv_work);
	queue_work(system_wq, &t->ep.recv_cq.work);
	flush_work(&t->ep.recv_cq.work);
	KUNIT_EXPECT_EQ(test, t->recv_rc, -EDEADLK);
	KUNIT_EXPECT_EQ(test, t->done_rc, 0);
	KUNIT_EXPECT_EQ(test, t->xprt.done_due, 1U);
	KUNIT_EXPECT_EQ(test, t->posted, 0U);
	KUNIT_EXPECT_EQ(test, xrdma_send(&t->xprt, msg, sizeof(msg)),
			-ETIMEDOUT);
}

static struct kunit_case done_cases[] = {
	KUNIT_CASE(done_waits_for_no_credit),
	KUNIT_CASE(done_goes_when_a_send_completes),
	KUNIT_CASE(done_rides_on_a_send),
	KUNIT_CASE(done_recv_work_waits_for_no_credit),
	{}
};

struct kunit_suite xrdma_done_suite = {
	.name = "xrdma_done",
	.exit = done_test_exit,
	.test_cases = done_cases,
};
