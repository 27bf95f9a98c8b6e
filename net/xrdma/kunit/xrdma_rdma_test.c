// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_rdma: what xrdma_rdma() and xrdma_rdma_nowait() refuse before
 * anything reaches the device, and that the second never waits: a
 * transport whose every RDMA context is in use makes it return -EAGAIN
 * at once where the first waits out the timeout.  Then, with contexts
 * and a device that only records what is posted to it: which WRITEs
 * ask for a completion, and that a completion, or the teardown, tells
 * the outcome of every WRITE before it, in order, each context free by
 * then.  The transport here is built by hand, with a connection that
 * has a QP and no hardware.
 */
#include <linux/jiffies.h>
#include <rdma/rdma_cm.h>

#include "xrdma.h"
#include "xrdma_kunit.h"

#define RDMA_TEST_MAX	16

/**
 * struct rdma_test - a transport, its connection and one registration
 * @xprt: the transport, with no free RDMA context unless given some
 * @ep: its connection, established
 * @id: the connection's id
 * @dev: the id's device, whose post_send records the WR
 * @qp: the id's QP
 * @cq: the send CQ, whose context is @ep
 * @ibmr: the registration's MR
 * @mr: a registration of 4 KiB
 * @rem: 4 KiB of the peer's
 * @cqe: the completion entry of each WR posted, in order
 * @signalled: whether each asked for a completion
 * @posted: how many were posted
 * @cookie: the cookie of each call of rdma_done, in order
 * @status: its status
 * @ctx_free: whether a context was free during it
 * @done: how many calls
 * @chain: while @posted is below it, each call of rdma_done posts the
 *	next WRITE of a stream, as a chained user does
 * @disconnects: runs of the transport's disconnect work
 * @waits: the next call of rdma_done makes the calls that wait, as a
 *	user's that needs a context or a registration would
 * @wait: the context of the WR that call posts to wait for
 * @wait_rc: what each of those calls returned
 */
struct rdma_test {
	struct xrdma_xprt xprt;
	struct xrdma_ep ep;
	struct rdma_cm_id id;
	struct ib_device dev;
	struct ib_qp qp;
	struct ib_cq cq;
	struct ib_mr ibmr;
	struct xrdma_mr mr;
	struct xrdma_remote rem;
	struct ib_cqe *cqe[RDMA_TEST_MAX];
	bool signalled[RDMA_TEST_MAX];
	unsigned int posted;
	u64 cookie[RDMA_TEST_MAX];
	int status[RDMA_TEST_MAX];
	bool ctx_free[RDMA_TEST_MAX];
	unsigned int done;
	unsigned int chain;
	unsigned int disconnects;
	bool waits;
	struct xrdma_wr_wait wait;
	int wait_rc[3];
};

static void rdma_test_wc_wait(struct ib_cq *cq, struct ib_wc *wc)
{
}

/* From rdma_done: the calls that would wait for a send completion. */
static void rdma_test_done_waits(struct rdma_test *t)
{
	struct ib_send_wr wr = { .opcode = IB_WR_LOCAL_INV };

	t->waits = false;
	/* The context of the operation done is free again. */
	t->wait_rc[0] = xrdma_rdma(&t->xprt, XRDMA_RDMA_WRITE, &t->mr, 0,
				   &t->rem, 0, 64, 100);
	/* The other one's completion comes after this call: no waiting. */
	t->wait_rc[1] = xrdma_rdma(&t->xprt, XRDMA_RDMA_WRITE, &t->mr, 0,
				   &t->rem, 0, 64, 101);
	/* What xrdma_mr_register() and xrdma_mr_release() post. */
	xrdma_wr_wait_init(&t->wait, rdma_test_wc_wait);
	wr.wr_cqe = &t->wait.cqe;
	t->wait_rc[2] = xrdma_post_wr(&t->xprt, &wr, &t->wait);
}

/* A forced disconnect queues this in place of the teardown. */
static void rdma_test_disconnect(struct work_struct *work)
{
	struct rdma_test *t = container_of(work, struct rdma_test,
					   xprt.disconnect_work);

	t->disconnects++;
}

static void rdma_test_done(struct xrdma_xprt *xprt, u64 cookie, int status)
{
	struct rdma_test *t = container_of(xprt, struct rdma_test, xprt);

	if (t->done >= RDMA_TEST_MAX)
		return;
	t->cookie[t->done] = cookie;
	t->status[t->done] = status;
	t->ctx_free[t->done] = !list_empty(&xprt->rctx_free);
	t->done++;
	if (t->waits)
		rdma_test_done_waits(t);
	if (t->posted < t->chain)
		xrdma_rdma_nowait(xprt, XRDMA_RDMA_WRITE | XRDMA_RDMA_MORE,
				  &t->mr, 0, &t->rem, 0, 64, t->posted);
}

static const struct xrdma_ops rdma_test_ops = {
	.rdma_done = rdma_test_done,
};

static const struct xrdma_ops rdma_test_no_ops;

static int rdma_test_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			       const struct ib_send_wr **bad)
{
	struct rdma_test *t = container_of(qp, struct rdma_test, qp);

	if (t->posted >= RDMA_TEST_MAX)
		return -ENOMEM;
	t->cqe[t->posted] = wr->wr_cqe;
	t->signalled[t->posted] = wr->send_flags & IB_SEND_SIGNALED;
	t->posted++;
	return 0;
}

static struct rdma_test *rdma_test_make(struct kunit *test)
{
	struct rdma_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->xprt.ops = &rdma_test_ops;
	t->xprt.opts.timeout_ms = 1;
	mutex_init(&t->xprt.mutex);
	spin_lock_init(&t->xprt.send_lock);
	init_waitqueue_head(&t->xprt.send_wait);
	INIT_LIST_HEAD(&t->xprt.rctx_free);
	INIT_LIST_HEAD(&t->xprt.rctx_writes);
	INIT_LIST_HEAD(&t->xprt.wr_waits);
	INIT_WORK(&t->xprt.disconnect_work, rdma_test_disconnect);
	t->dev.ops.post_send = rdma_test_post_send;
	t->qp.device = &t->dev;
	xrdma_send_cq_prepare(&t->ep, false);
	t->cq.cq_context = &t->ep.send_cq;
	t->id.qp = &t->qp;
	spin_lock_init(&t->ep.lock);
	t->ep.xprt = &t->xprt;
	t->ep.id = &t->id;
	t->ep.status = XRDMA_CONNECTED;
	t->ep.signal_from = U32_MAX;
	t->xprt.ep = &t->ep;
	t->mr.ibmr = &t->ibmr;
	t->mr.len = SZ_4K;
	t->rem.len = SZ_4K;
	return t;
}

/* The same, with @depth RDMA contexts, all free. */
static struct rdma_test *rdma_test_make_ctx(struct kunit *test,
					    unsigned int depth)
{
	struct rdma_test *t = rdma_test_make(test);

	t->xprt.opts.depth = depth;
	t->xprt.rctx = kunit_kcalloc(test, depth, sizeof(*t->xprt.rctx),
				     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->xprt.rctx);
	xrdma_rctx_reset(&t->xprt);
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

/* Post operation @cookie; true when posted. */
static bool rdma_test_post(struct rdma_test *t, enum xrdma_rdma_op op,
			   u64 cookie)
{
	return !xrdma_rdma_nowait(&t->xprt, op, &t->mr, 0, &t->rem, 0, 64,
				  cookie);
}

/* Complete posted WR @i with @status, as the send CQ's work would. */
static void rdma_test_complete(struct rdma_test *t, unsigned int i,
			       enum ib_wc_status status)
{
	struct ib_wc wc = {
		.wr_cqe = t->cqe[i],
		.status = status,
		.qp = &t->qp,
	};

	wc.wr_cqe->done(&t->cq, &wc);
}

static unsigned int rdma_test_free_contexts(struct rdma_test *t)
{
	return list_count_nodes(&t->xprt.rctx_free);
}

static void rdma_signals_one_write_in_four(struct kunit *test)
{
	struct rdma_test *t = rdma_test_make_ctx(test, 16);
	unsigned int i;

	/* 16 contexts: a completion for every fourth WRITE of a stream. */
	for (i = 0; i < 16; i++) {
		KUNIT_ASSERT_TRUE(test, rdma_test_post(t, XRDMA_RDMA_WRITE |
						       XRDMA_RDMA_MORE, i));
		KUNIT_EXPECT_EQ_MSG(test, t->signalled[i], i % 4 == 3,
				    "WRITE %u", i);
	}
	KUNIT_EXPECT_FALSE(test, rdma_test_post(t, XRDMA_RDMA_WRITE, 16));
	KUNIT_EXPECT_EQ(test, t->posted, 16U);
}

static void rdma_signals_reads_and_lone_writes(struct kunit *test)
{
	struct rdma_test *t = rdma_test_make_ctx(test, 16);

	/* A READ always, and it does not count among the WRITEs. */
	KUNIT_ASSERT_TRUE(test, rdma_test_post(t, XRDMA_RDMA_WRITE |
					       XRDMA_RDMA_MORE, 0));
	KUNIT_ASSERT_TRUE(test, rdma_test_post(t, XRDMA_RDMA_READ |
					       XRDMA_RDMA_MORE, 1));
	KUNIT_ASSERT_TRUE(test, rdma_test_post(t, XRDMA_RDMA_WRITE |
					       XRDMA_RDMA_MORE, 2));
	/* The last of a stream, without the flag. */
	KUNIT_ASSERT_TRUE(test, rdma_test_post(t, XRDMA_RDMA_WRITE, 3));
	KUNIT_ASSERT_TRUE(test, rdma_test_post(t, XRDMA_RDMA_WRITE |
					       XRDMA_RDMA_MORE, 4));
	KUNIT_EXPECT_FALSE(test, t->signalled[0]);
	KUNIT_EXPECT_TRUE(test, t->signalled[1]);
	KUNIT_EXPECT_FALSE(test, t->signalled[2]);
	KUNIT_EXPECT_TRUE(test, t->signalled[3]);
	/* The count starts again after a signalled WRITE. */
	KUNIT_EXPECT_FALSE(test, t->signalled[4]);
	/* A WRITE as large as the connection says (siw: a page). */
	t->ep.signal_from = 64;
	KUNIT_ASSERT_TRUE(test, rdma_test_post(t, XRDMA_RDMA_WRITE |
					       XRDMA_RDMA_MORE, 5));
	KUNIT_EXPECT_TRUE(test, t->signalled[5]);
	/* An unknown operation is refused. */
	KUNIT_EXPECT_EQ(test,
			xrdma_rdma_nowait(&t->xprt, XRDMA_RDMA_READ + 1,
					  &t->mr, 0, &t->rem, 0, 64, 6),
			-EINVAL);
}

static void rdma_chained_stream_signals_as_any(struct kunit *test)
{
	struct rdma_test *t = rdma_test_make_ctx(test, 6);
	unsigned int i;

	/* Under 8 contexts, every WRITE is signalled. */
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_TRUE(test, rdma_test_post(t, XRDMA_RDMA_WRITE |
						       XRDMA_RDMA_MORE, i));
	KUNIT_EXPECT_TRUE(test, t->signalled[0]);
	KUNIT_EXPECT_TRUE(test, t->signalled[1]);

	/* 8: every second WRITE, also one that takes the last context. */
	t = rdma_test_make_ctx(test, 8);
	for (i = 0; i < 8; i++)
		KUNIT_ASSERT_TRUE(test, rdma_test_post(t, XRDMA_RDMA_WRITE |
						       XRDMA_RDMA_MORE, i));
	/* The completion of the fourth gives back four contexts, one
	 * rdma_done at a time, and each posts the next WRITE: every one of
	 * them takes the only context free, and still every second one
	 * is signalled.
	 */
	t->chain = 12;
	rdma_test_complete(t, 3, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->done, 4U);
	KUNIT_ASSERT_EQ(test, t->posted, 12U);
	for (i = 0; i < 12; i++)
		KUNIT_EXPECT_EQ_MSG(test, t->signalled[i], i % 2 == 1,
				    "WRITE %u", i);
	KUNIT_EXPECT_EQ(test, rdma_test_free_contexts(t), 0U);
}

static void rdma_completion_retires_earlier_writes(struct kunit *test)
{
	struct rdma_test *t = rdma_test_make_ctx(test, 8);
	static const u64 order[] = { 0, 1, 3, 4, 2 };
	unsigned int i;

	/* 8 contexts: every second WRITE of a stream is signalled. */
	rdma_test_post(t, XRDMA_RDMA_WRITE | XRDMA_RDMA_MORE, 0);
	rdma_test_post(t, XRDMA_RDMA_WRITE | XRDMA_RDMA_MORE, 1);
	rdma_test_post(t, XRDMA_RDMA_READ, 2);
	rdma_test_post(t, XRDMA_RDMA_WRITE | XRDMA_RDMA_MORE, 3);
	rdma_test_post(t, XRDMA_RDMA_WRITE, 4);
	KUNIT_ASSERT_EQ(test, t->posted, 5U);
	KUNIT_EXPECT_FALSE(test, t->signalled[0]);
	KUNIT_EXPECT_FALSE(test, t->signalled[3]);
	/* Each keeps the send CQ armed until its outcome is told. */
	KUNIT_EXPECT_EQ(test, t->xprt.rdma_busy, 5U);

	rdma_test_complete(t, 1, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->done, 2U);
	/* siw completes a READ once its response arrives, after a WRITE
	 * posted behind it: that WRITE's completion must leave it alone.
	 */
	rdma_test_complete(t, 4, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->done, 4U);
	rdma_test_complete(t, 2, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, t->done, 5U);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		KUNIT_EXPECT_EQ(test, t->cookie[i], order[i]);
		KUNIT_EXPECT_EQ(test, t->status[i], 0);
		KUNIT_EXPECT_TRUE(test, t->ctx_free[i]);
	}
	KUNIT_EXPECT_EQ(test, rdma_test_free_contexts(t), 8U);
	KUNIT_EXPECT_EQ(test, t->xprt.rdma_busy, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&t->xprt.rctx_writes));
	KUNIT_EXPECT_EQ(test, t->xprt.info.rdma_ops, 5ULL);
	KUNIT_EXPECT_EQ(test, t->xprt.info.rdma_bytes, 5ULL * 64);
}

static void rdma_flush_fails_only_its_own(struct kunit *test)
{
	struct rdma_test *t = rdma_test_make_ctx(test, 8);

	rdma_test_post(t, XRDMA_RDMA_WRITE | XRDMA_RDMA_MORE, 0);
	rdma_test_post(t, XRDMA_RDMA_WRITE | XRDMA_RDMA_MORE, 1);
	rdma_test_post(t, XRDMA_RDMA_WRITE | XRDMA_RDMA_MORE, 2);
	/* The WRITE before the flushed one went well; the flush forces
	 * the disconnect.
	 */
	rdma_test_complete(t, 1, IB_WC_WR_FLUSH_ERR);
	KUNIT_ASSERT_EQ(test, t->done, 2U);
	KUNIT_EXPECT_EQ(test, t->cookie[0], 0ULL);
	KUNIT_EXPECT_EQ(test, t->status[0], 0);
	KUNIT_EXPECT_EQ(test, t->cookie[1], 1ULL);
	KUNIT_EXPECT_EQ(test, t->status[1], -EIO);
	KUNIT_EXPECT_TRUE(test, test_bit(0, &t->ep.flushed));
	flush_work(&t->xprt.disconnect_work);
	KUNIT_EXPECT_EQ(test, t->disconnects, 1U);
	/* A flush completes an unsignalled WRITE too. */
	rdma_test_complete(t, 2, IB_WC_WR_FLUSH_ERR);
	KUNIT_ASSERT_EQ(test, t->done, 3U);
	KUNIT_EXPECT_EQ(test, t->status[2], -EIO);
	KUNIT_EXPECT_EQ(test, t->xprt.info.rdma_ops, 1ULL);
	KUNIT_EXPECT_EQ(test, rdma_test_free_contexts(t), 8U);
	/* Still one disconnect. */
	flush_work(&t->xprt.disconnect_work);
	KUNIT_EXPECT_EQ(test, t->disconnects, 1U);
}

static void rdma_teardown_retires_silent_writes(struct kunit *test)
{
	struct rdma_test *t = rdma_test_make_ctx(test, 16);

	rdma_test_post(t, XRDMA_RDMA_WRITE | XRDMA_RDMA_MORE, 0);
	rdma_test_post(t, XRDMA_RDMA_READ, 1);
	rdma_test_post(t, XRDMA_RDMA_WRITE | XRDMA_RDMA_MORE, 2);
	KUNIT_ASSERT_EQ(test, t->posted, 3U);
	rdma_test_complete(t, 1, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->done, 1U);
	/* Drained without a word on the two WRITEs: both went well. */
	mutex_lock(&t->xprt.mutex);
	xrdma_rdma_retire_writes(&t->xprt);
	mutex_unlock(&t->xprt.mutex);
	KUNIT_ASSERT_EQ(test, t->done, 3U);
	KUNIT_EXPECT_EQ(test, t->cookie[1], 0ULL);
	KUNIT_EXPECT_EQ(test, t->cookie[2], 2ULL);
	KUNIT_EXPECT_EQ(test, t->status[1], 0);
	KUNIT_EXPECT_EQ(test, t->status[2], 0);
	KUNIT_EXPECT_EQ(test, rdma_test_free_contexts(t), 16U);
}

/* rdma_done is a send completion handler: the completions that would
 * end a wait of its are handled only after it returns (under the send
 * CQ's poll, which the work item, the reap and the watch take), so a
 * call that would wait is refused at once, and one that need not goes
 * ahead.  Outside rdma_done the same call waits again.
 */
static void rdma_done_waits_for_nothing(struct kunit *test)
{
	struct rdma_test *t = rdma_test_make_ctx(test, 2);

	KUNIT_ASSERT_TRUE(test, rdma_test_post(t, XRDMA_RDMA_WRITE, 0));
	KUNIT_ASSERT_TRUE(test, rdma_test_post(t, XRDMA_RDMA_WRITE, 1));
	t->waits = true;
	rdma_test_complete(t, 0, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, t->done, 1U);
	KUNIT_EXPECT_EQ(test, t->wait_rc[0], 0);
	KUNIT_EXPECT_EQ(test, t->wait_rc[1], -EDEADLK);
	KUNIT_EXPECT_EQ(test, t->wait_rc[2], -EDEADLK);
	/* The first WRITE only; nothing listed to wait for. */
	KUNIT_EXPECT_EQ(test, t->posted, 3U);
	KUNIT_EXPECT_TRUE(test, list_empty(&t->xprt.wr_waits));
	KUNIT_EXPECT_NULL(test, t->xprt.rdma_done_task);
	KUNIT_EXPECT_EQ(test,
			xrdma_rdma(&t->xprt, XRDMA_RDMA_WRITE, &t->mr, 0,
				   &t->rem, 0, 64, 102),
			-ETIMEDOUT);
}

static struct kunit_case xrdma_rdma_cases[] = {
	KUNIT_CASE(rdma_refuses_bad_ranges),
	KUNIT_CASE(rdma_needs_a_connection),
	KUNIT_CASE(rdma_nowait_does_not_wait),
	KUNIT_CASE(rdma_signals_one_write_in_four),
	KUNIT_CASE(rdma_signals_reads_and_lone_writes),
	KUNIT_CASE(rdma_chained_stream_signals_as_any),
	KUNIT_CASE(rdma_completion_retires_earlier_writes),
	KUNIT_CASE(rdma_flush_fails_only_its_own),
	KUNIT_CASE(rdma_teardown_retires_silent_writes),
	KUNIT_CASE(rdma_done_waits_for_nothing),
	{}
};

struct kunit_suite xrdma_rdma_suite = {
	.name = "xrdma_rdma",
	.test_cases = xrdma_rdma_cases,
};
