// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_wr_wait: the list of work requests a thread waits for, and the
 * flush after the send queue's drain that completes those a provider
 * never did, through their own handlers.  The transport and its
 * connection are built by hand; nothing is posted to a device.
 */
#include <rdma/rdma_cm.h>

#include "xrdma.h"
#include "xrdma_kunit.h"

/**
 * struct wr_wait_test - a transport, its connection and two WRs
 * @xprt: the transport
 * @ep: its connection
 * @id: the connection's id
 * @dev: the id's device, for the flush's warning; its req_notify_cq
 *	counts the arms of @cq, its poll_cq finds nothing
 * @qp: the id's QP
 * @cq: the send CQ, whose context is @ep
 * @arms: how often @cq was armed
 * @w: the WRs' contexts
 * @calls: completions @w[i]'s handler saw
 * @status: the status of the last one
 * @cq_seen: the CQ the handler was given
 */
struct wr_wait_test {
	struct xrdma_xprt xprt;
	struct xrdma_ep ep;
	struct rdma_cm_id id;
	struct ib_device dev;
	struct ib_qp qp;
	struct ib_cq cq;
	unsigned int arms;
	struct xrdma_wr_wait w[2];
	unsigned int calls[2];
	enum ib_wc_status status[2];
	struct ib_cq *cq_seen;
};

static struct wr_wait_test *wr_wait_test_of(struct ib_cq *cq)
{
	return container_of(cq->cq_context, struct wr_wait_test, ep.send_cq);
}

static int wr_wait_test_arm(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	wr_wait_test_of(cq)->arms++;
	return 0;
}

/* The tests complete WRs by hand: a watch that looks finds nothing. */
static int wr_wait_test_poll(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	return 0;
}

/* What every handler of a waited-for WR does, and the record of it. */
static void wr_wait_test_wc(struct ib_cq *cq, struct ib_wc *wc)
{
	struct wr_wait_test *t = wr_wait_test_of(cq);
	struct xrdma_wr_wait *w = container_of(wc->wr_cqe,
					       struct xrdma_wr_wait, cqe);
	unsigned int i = w - t->w;

	t->calls[i]++;
	t->status[i] = wc->status;
	t->cq_seen = cq;
	xrdma_wr_wait_done(&t->xprt, w, wc);
}

static struct wr_wait_test *wr_wait_test_make(struct kunit *test)
{
	struct wr_wait_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	spin_lock_init(&t->xprt.send_lock);
	INIT_LIST_HEAD(&t->xprt.wr_waits);
	strscpy(t->dev.name, "kunit0", sizeof(t->dev.name));
	t->dev.ops.req_notify_cq = wr_wait_test_arm;
	t->dev.ops.poll_cq = wr_wait_test_poll;
	t->id.device = &t->dev;
	t->id.qp = &t->qp;
	t->cq.device = &t->dev;
	t->cq.cq_context = &t->ep.send_cq;
	t->ep.xprt = &t->xprt;
	t->ep.id = &t->id;
	xrdma_send_cq_prepare(&t->ep, false);
	t->ep.send_cq.ib = &t->cq;
	t->xprt.ep = &t->ep;
	for (i = 0; i < ARRAY_SIZE(t->w); i++)
		xrdma_wr_wait_init(&t->w[i], wr_wait_test_wc);
	test->priv = t;
	return t;
}

/* A post starts the send CQ's watch, which must not outlive the test. */
static void wr_wait_test_exit(struct kunit *test)
{
	struct wr_wait_test *t = test->priv;

	if (t)
		cancel_delayed_work_sync(&t->ep.send_cq_watch);
}

/* As xrdma_post_wr() does once the device took the WR. */
static void wr_wait_test_post(struct wr_wait_test *t, unsigned int i)
{
	spin_lock(&t->xprt.send_lock);
	xrdma_wr_wait_posted(&t->xprt, &t->w[i]);
	spin_unlock(&t->xprt.send_lock);
}

/* As the send CQ's work item does with the WR's completion. */
static void wr_wait_test_complete(struct wr_wait_test *t, unsigned int i,
				  enum ib_wc_status status)
{
	struct ib_wc wc = { .status = status, .wr_cqe = &t->w[i].cqe };

	t->w[i].cqe.done(&t->cq, &wc);
}

/* A posted WR arms the send CQ; its completion takes it off the list
 * and wakes its waiter.
 */
static void wr_wait_completion_unlists(struct kunit *test)
{
	struct wr_wait_test *t = wr_wait_test_make(test);

	wr_wait_test_post(t, 0);
	KUNIT_EXPECT_EQ(test, t->arms, 1U);
	KUNIT_EXPECT_FALSE(test, list_empty(&t->xprt.wr_waits));
	KUNIT_EXPECT_FALSE(test, completion_done(&t->w[0].done));
	wr_wait_test_complete(t, 0, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, list_empty(&t->xprt.wr_waits));
	KUNIT_EXPECT_TRUE(test, completion_done(&t->w[0].done));
	KUNIT_EXPECT_EQ(test, t->w[0].status, IB_WC_SUCCESS);
}

/* Nothing owed, nothing done: the flush calls no handler. */
static void wr_wait_flush_nothing_owed(struct kunit *test)
{
	struct wr_wait_test *t = wr_wait_test_make(test);

	wr_wait_test_post(t, 0);
	wr_wait_test_complete(t, 0, IB_WC_SUCCESS);
	xrdma_wr_waits_flush(&t->xprt, &t->ep);
	KUNIT_EXPECT_EQ(test, t->calls[0], 1U);
	KUNIT_EXPECT_EQ(test, t->calls[1], 0U);
}

/* A WR the provider never completed is completed as flushed, once, by
 * its own handler on the send CQ; one that completed is left alone.
 */
static void wr_wait_flush_completes_the_lost(struct kunit *test)
{
	struct wr_wait_test *t = wr_wait_test_make(test);

	wr_wait_test_post(t, 0);
	wr_wait_test_post(t, 1);
	wr_wait_test_complete(t, 0, IB_WC_REM_ACCESS_ERR);
	xrdma_wr_waits_flush(&t->xprt, &t->ep);
	KUNIT_EXPECT_EQ(test, t->calls[0], 1U);
	KUNIT_EXPECT_EQ(test, t->status[0], IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, t->calls[1], 1U);
	KUNIT_EXPECT_EQ(test, t->status[1], IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_PTR_EQ(test, t->cq_seen, &t->cq);
	KUNIT_EXPECT_TRUE(test, completion_done(&t->w[1].done));
	KUNIT_EXPECT_EQ(test, t->w[1].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_TRUE(test, list_empty(&t->xprt.wr_waits));
	/* A second flush finds nothing. */
	xrdma_wr_waits_flush(&t->xprt, &t->ep);
	KUNIT_EXPECT_EQ(test, t->calls[1], 1U);
}

static struct kunit_case wr_wait_cases[] = {
	KUNIT_CASE(wr_wait_completion_unlists),
	KUNIT_CASE(wr_wait_flush_nothing_owed),
	KUNIT_CASE(wr_wait_flush_completes_the_lost),
	{}
};

struct kunit_suite xrdma_wr_wait_suite = {
	.name = "xrdma_wr_wait",
	.exit = wr_wait_test_exit,
	.test_cases = wr_wait_cases,
};
