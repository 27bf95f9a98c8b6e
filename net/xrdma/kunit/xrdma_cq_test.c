// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_send_cq: when the send CQ is armed, that its work item
 * handles every completion there is and arms again exactly while one is
 * still waited for, and that its watch finds what the device did not
 * report.  xrdma_recv_cq: that the receive CQ is armed again after
 * every poll, and polled again after an arm where the device's may miss
 * a completion.  The connection is built by hand on a device whose
 * CQ hands out completions the test queued and records each arm.
 */
#include <rdma/rdma_cm.h>

#include "xrdma.h"
#include "xrdma_kunit.h"

#define SEND_CQ_TEST_MAX	8

/**
 * struct send_cq_test - a transport, its connection and a fake send CQ
 * @xprt: the transport
 * @ep: its connection, whose send CQ is @cq
 * @dev: the CQ's device
 * @cq: the send CQ, whose context is @ep
 * @cqe: the completion entries the CQ may hand out
 * @queued: how many completions are in the CQ, oldest first from @next
 * @next: the next one poll_cq hands out
 * @handled: each entry's handler calls
 * @order: the entries in the order their handlers ran
 * @nhandled: how many handler calls in all
 * @arms: the flags of each arm
 * @narms: how many arms
 * @missed: what each arm returns, in order; 0 past the end
 * @arrive: completions that come in with each arm, in order
 */
struct send_cq_test {
	struct xrdma_xprt xprt;
	struct xrdma_ep ep;
	struct ib_device dev;
	struct ib_cq cq;
	struct ib_cqe cqe[SEND_CQ_TEST_MAX];
	unsigned int queued;
	unsigned int next;
	unsigned int handled[SEND_CQ_TEST_MAX];
	unsigned int order[SEND_CQ_TEST_MAX];
	unsigned int nhandled;
	enum ib_cq_notify_flags arms[SEND_CQ_TEST_MAX];
	unsigned int narms;
	int missed[SEND_CQ_TEST_MAX];
	unsigned int arrive[SEND_CQ_TEST_MAX];
};

static struct send_cq_test *send_cq_test_of(struct ib_cq *cq)
{
	return container_of(cq, struct send_cq_test, cq);
}

static int send_cq_test_poll(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	struct send_cq_test *t = send_cq_test_of(cq);
	int i;

	for (i = 0; i < n && t->next < t->queued; i++, t->next++) {
		memset(&wc[i], 0, sizeof(wc[i]));
		wc[i].wr_cqe = &t->cqe[t->next];
		wc[i].status = IB_WC_SUCCESS;
	}
	return i;
}

static int send_cq_test_arm(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	struct send_cq_test *t = send_cq_test_of(cq);
	unsigned int i = t->narms;

	if (i >= SEND_CQ_TEST_MAX)
		return 0;
	t->arms[i] = flags;
	t->narms++;
	t->queued += t->arrive[i];
	return t->missed[i];
}

static void send_cq_test_wc(struct ib_cq *cq, struct ib_wc *wc)
{
	struct send_cq_test *t = send_cq_test_of(cq);
	unsigned int i = wc->wr_cqe - t->cqe;

	t->handled[i]++;
	if (t->nhandled < SEND_CQ_TEST_MAX)
		t->order[t->nhandled] = i;
	t->nhandled++;
}

static struct send_cq_test *send_cq_test_make(struct kunit *test)
{
	struct send_cq_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	spin_lock_init(&t->xprt.send_lock);
	init_waitqueue_head(&t->xprt.send_wait);
	INIT_LIST_HEAD(&t->xprt.wr_waits);
	t->dev.ops.poll_cq = send_cq_test_poll;
	t->dev.ops.req_notify_cq = send_cq_test_arm;
	t->cq.device = &t->dev;
	t->cq.cq_context = &t->ep.send_cq;
	t->ep.xprt = &t->xprt;
	xrdma_send_cq_prepare(&t->ep, false);
	t->ep.send_cq.ib = &t->cq;
	t->xprt.ep = &t->ep;
	for (i = 0; i < SEND_CQ_TEST_MAX; i++)
		t->cqe[i].done = send_cq_test_wc;
	test->priv = t;
	return t;
}

/* No work item or watch outlives the test's memory. */
static void send_cq_test_exit(struct kunit *test)
{
	struct send_cq_test *t = test->priv;

	if (!t)
		return;
	cancel_delayed_work_sync(&t->ep.send_cq_watch);
	cancel_work_sync(&t->ep.send_cq.work);
}

/* Nobody waits: no arm.  Each kind of waiter alone wants it armed. */
static void send_cq_wanted_by_each_waiter(struct kunit *test)
{
	struct send_cq_test *t = send_cq_test_make(test);
	struct wait_queue_entry sleeper;
	struct xrdma_wr_wait w;

	KUNIT_EXPECT_FALSE(test, xrdma_kunit_send_cq_wanted(&t->xprt, &t->ep));

	t->ep.draining = true;
	KUNIT_EXPECT_TRUE(test, xrdma_kunit_send_cq_wanted(&t->xprt, &t->ep));
	t->ep.draining = false;

	t->xprt.rdma_busy = 1;
	KUNIT_EXPECT_TRUE(test, xrdma_kunit_send_cq_wanted(&t->xprt, &t->ep));
	t->xprt.rdma_busy = 0;

	xrdma_wr_wait_init(&w, send_cq_test_wc);
	list_add_tail(&w.node, &t->xprt.wr_waits);
	KUNIT_EXPECT_TRUE(test, xrdma_kunit_send_cq_wanted(&t->xprt, &t->ep));
	list_del_init(&w.node);

	init_waitqueue_entry(&sleeper, current);
	add_wait_queue(&t->xprt.send_wait, &sleeper);
	KUNIT_EXPECT_TRUE(test, xrdma_kunit_send_cq_wanted(&t->xprt, &t->ep));
	remove_wait_queue(&t->xprt.send_wait, &sleeper);

	KUNIT_EXPECT_FALSE(test, xrdma_kunit_send_cq_wanted(&t->xprt, &t->ep));
}

/* An arm asks for the next completion and for those already there; one
 * already there is polled, by the work item.
 */
static void send_cq_arm_asks_for_missed(struct kunit *test)
{
	struct send_cq_test *t = send_cq_test_make(test);

	xrdma_send_cq_arm(&t->ep);
	KUNIT_ASSERT_EQ(test, t->narms, 1U);
	KUNIT_EXPECT_EQ(test, t->arms[0],
			IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS);
	KUNIT_EXPECT_EQ(test, t->nhandled, 0U);

	/* A connection whose CQ is not made yet has nothing to arm. */
	t->ep.send_cq.ib = NULL;
	xrdma_send_cq_arm(&t->ep);
	KUNIT_EXPECT_EQ(test, t->narms, 1U);
}

/* A send waiter's condition arms only when it fails, and only a live
 * connection's CQ: the drain arms for itself.
 */
static void send_cq_ready_or_arm(struct kunit *test)
{
	struct send_cq_test *t = send_cq_test_make(test);

	KUNIT_EXPECT_TRUE(test, xrdma_send_cq_ready_or_arm(&t->xprt, true));
	KUNIT_EXPECT_EQ(test, t->narms, 0U);
	KUNIT_EXPECT_FALSE(test, xrdma_send_cq_ready_or_arm(&t->xprt, false));
	KUNIT_EXPECT_EQ(test, t->narms, 1U);

	t->ep.draining = true;
	KUNIT_EXPECT_FALSE(test, xrdma_send_cq_ready_or_arm(&t->xprt, false));
	KUNIT_EXPECT_EQ(test, t->narms, 1U);

	t->xprt.ep = NULL;
	KUNIT_EXPECT_FALSE(test, xrdma_send_cq_ready_or_arm(&t->xprt, false));
	KUNIT_EXPECT_EQ(test, t->narms, 1U);
}

/* With nobody waiting the work item handles every completion, oldest
 * first, and leaves the CQ unarmed.
 */
static void send_cq_worker_handles_all(struct kunit *test)
{
	struct send_cq_test *t = send_cq_test_make(test);
	unsigned int i;

	t->queued = 3;
	xrdma_cq_worker(&t->ep.send_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 3U);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, t->handled[i], 1U);
		KUNIT_EXPECT_EQ(test, t->order[i], i);
	}
	KUNIT_EXPECT_EQ(test, t->narms, 0U);
}

/* While a completion is waited for the work item arms again, and
 * polls again when one came in before the arm.
 */
static void send_cq_worker_rearms_while_wanted(struct kunit *test)
{
	struct send_cq_test *t = send_cq_test_make(test);

	t->xprt.rdma_busy = 1;
	t->queued = 2;
	t->arrive[0] = 1;
	t->missed[0] = 1;
	xrdma_cq_worker(&t->ep.send_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 3U);
	KUNIT_EXPECT_EQ(test, t->handled[2], 1U);
	KUNIT_ASSERT_EQ(test, t->narms, 2U);
	KUNIT_EXPECT_EQ(test, t->arms[1],
			IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS);
}

/* On a device whose arm may miss a completion, the work item polls
 * once more after an arm that reported none, and arms again when that
 * poll found one.  Elsewhere it trusts the arm.
 */
static void send_cq_worker_rechecks_after_arm(struct kunit *test)
{
	struct send_cq_test *t = send_cq_test_make(test);

	t->xprt.rdma_busy = 1;
	t->queued = 1;
	t->arrive[0] = 1;	/* came in during the arm, which missed it */
	xrdma_cq_worker(&t->ep.send_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 1U);
	KUNIT_EXPECT_EQ(test, t->narms, 1U);

	t->ep.send_cq.recheck = true;
	t->arrive[1] = 1;
	xrdma_cq_worker(&t->ep.send_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 3U);
	KUNIT_EXPECT_EQ(test, t->handled[2], 1U);
	KUNIT_EXPECT_EQ(test, t->narms, 3U);
}

/* Run the watch now rather than in a while. */
static void send_cq_test_watch_now(struct send_cq_test *t)
{
	cancel_delayed_work_sync(&t->ep.send_cq_watch);
	xrdma_send_cq_watcher(&t->ep.send_cq_watch.work);
	flush_work(&t->ep.send_cq.work);
}

/* An arm by a thread starts the watch.  A completion that the device
 * neither reported nor raised an event for is handled when the watch
 * looks, and counted.  The watch looks again while a completion is
 * waited for, and is not started after the quiesce.
 */
static void send_cq_watch_finds_unreported(struct kunit *test)
{
	struct send_cq_test *t = send_cq_test_make(test);

	t->xprt.rdma_busy = 1;
	xrdma_send_cq_arm(&t->ep);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&t->ep.send_cq_watch));
	t->queued = 1;
	send_cq_test_watch_now(t);
	KUNIT_EXPECT_EQ(test, t->nhandled, 1U);
	KUNIT_EXPECT_EQ(test, t->xprt.info.send_cq_rescued, 1ULL);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&t->ep.send_cq_watch));

	/* Nothing there: nothing counted. */
	send_cq_test_watch_now(t);
	KUNIT_EXPECT_EQ(test, t->xprt.info.send_cq_rescued, 1ULL);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&t->ep.send_cq_watch));

	t->xprt.rdma_busy = 0;
	send_cq_test_watch_now(t);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&t->ep.send_cq_watch));

	xrdma_send_cq_quiesce(&t->ep);
	t->xprt.rdma_busy = 1;
	xrdma_send_cq_arm(&t->ep);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&t->ep.send_cq_watch));
}

/* A sender waiting for a connection that never came up armed its send
 * CQ: the teardown's drain stops the watch and the work item all the
 * same, before the connection lets go of its transport, which both
 * read.  A late event queues nothing either.
 */
static void send_cq_quiet_after_failed_connect(struct kunit *test)
{
	struct send_cq_test *t = send_cq_test_make(test);

	t->missed[0] = 1;
	KUNIT_EXPECT_FALSE(test, xrdma_send_cq_ready_or_arm(&t->xprt, false));
	KUNIT_ASSERT_TRUE(test, delayed_work_pending(&t->ep.send_cq_watch));
	spin_lock(&t->xprt.send_lock);
	t->ep.draining = true;
	spin_unlock(&t->xprt.send_lock);
	xrdma_ep_drain(&t->xprt, &t->ep);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&t->ep.send_cq_watch));
	KUNIT_EXPECT_FALSE(test, work_pending(&t->ep.send_cq.work));
	xrdma_cq_event(&t->cq, &t->ep.send_cq);
	KUNIT_EXPECT_FALSE(test, work_pending(&t->ep.send_cq.work));
}

/* Post @n Sends on the test's ring, the first of them signalled. */
static void send_cq_test_sends(struct kunit *test, struct send_cq_test *t,
			       unsigned int n)
{
	unsigned int i;

	KUNIT_ASSERT_EQ(test, xrdma_ring_init(&t->xprt.ring, 16), 0);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_GE(test, xrdma_ring_get(&t->xprt.ring), 0);
	t->xprt.unsignalled = n - 1;
}

/* Until the quiesce, an arm that finds a completion there has the work
 * item poll it.  After it neither such an arm nor an event queues the
 * work item, as late as rxe's tasklet may raise one; what is left in
 * the CQ is the reap's.
 */
static void send_cq_no_work_after_quiesce(struct kunit *test)
{
	struct send_cq_test *t = send_cq_test_make(test);

	t->queued = 1;
	t->missed[0] = 1;
	xrdma_send_cq_arm(&t->ep);
	flush_work(&t->ep.send_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 1U);

	xrdma_send_cq_quiesce(&t->ep);
	t->queued = 2;
	t->missed[1] = 1;
	xrdma_send_cq_arm(&t->ep);
	xrdma_cq_event(&t->cq, &t->ep.send_cq);
	KUNIT_EXPECT_FALSE(test, work_pending(&t->ep.send_cq.work));
	flush_work(&t->ep.send_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 1U);
	KUNIT_EXPECT_EQ(test, t->narms, 2U);

	send_cq_test_sends(test, t, 1);
	xrdma_send_cq_reap(&t->ep);
	KUNIT_EXPECT_EQ(test, t->nhandled, 2U);
}

/* A handler that starts an operation, as a chained stream's does. */
static void send_cq_test_wc_posts(struct ib_cq *cq, struct ib_wc *wc)
{
	struct send_cq_test *t = send_cq_test_of(cq);

	send_cq_test_wc(cq, wc);
	spin_lock(&t->xprt.send_lock);
	t->xprt.rdma_busy++;
	xrdma_send_cq_arm(&t->ep);
	spin_unlock(&t->xprt.send_lock);
}

/* What a handler of the work item posts does not arm the CQ in the
 * middle of the poll: the work item arms once, after it, for all of
 * them.  Anyone else arms for itself.
 */
static void send_cq_worker_arms_once_for_its_handlers(struct kunit *test)
{
	struct send_cq_test *t = send_cq_test_make(test);

	t->queued = 2;
	t->cqe[0].done = send_cq_test_wc_posts;
	t->cqe[1].done = send_cq_test_wc_posts;
	queue_work(system_wq, &t->ep.send_cq.work);
	flush_work(&t->ep.send_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 2U);
	KUNIT_EXPECT_EQ(test, t->xprt.rdma_busy, 2U);
	KUNIT_EXPECT_EQ(test, t->narms, 1U);

	spin_lock(&t->xprt.send_lock);
	xrdma_send_cq_arm(&t->ep);
	spin_unlock(&t->xprt.send_lock);
	KUNIT_EXPECT_EQ(test, t->narms, 2U);
}

/* The receive handler's reap handles what is there, unless the work
 * item is polling: then it leaves them to it.
 */
static void send_cq_reap_defers_to_poller(struct kunit *test)
{
	struct send_cq_test *t = send_cq_test_make(test);

	send_cq_test_sends(test, t, 2);
	t->queued = 2;
	mutex_lock(&t->ep.send_cq.poll);
	xrdma_send_cq_reap(&t->ep);
	mutex_unlock(&t->ep.send_cq.poll);
	KUNIT_EXPECT_EQ(test, t->nhandled, 0U);

	xrdma_send_cq_reap(&t->ep);
	KUNIT_EXPECT_EQ(test, t->nhandled, 2U);
	KUNIT_EXPECT_EQ(test, t->narms, 0U);
}

/* The reap polls only while a signalled Send is in the ring: the Sends
 * after the last signalled one complete into nothing, and whatever
 * else is in the CQ (here two completions of other WRs) is left to the
 * work item their posters armed for.
 */
static void send_cq_reap_only_for_signalled_sends(struct kunit *test)
{
	struct send_cq_test *t = send_cq_test_make(test);

	t->queued = 2;
	KUNIT_ASSERT_EQ(test, xrdma_ring_init(&t->xprt.ring, 16), 0);
	KUNIT_EXPECT_FALSE(test, xrdma_send_cq_reap_due(&t->xprt));
	xrdma_send_cq_reap(&t->ep);
	KUNIT_EXPECT_EQ(test, t->nhandled, 0U);

	/* Three Sends, none of them signalled. */
	send_cq_test_sends(test, t, 3);
	t->xprt.unsignalled = 3;
	KUNIT_EXPECT_FALSE(test, xrdma_send_cq_reap_due(&t->xprt));
	xrdma_send_cq_reap(&t->ep);
	KUNIT_EXPECT_EQ(test, t->nhandled, 0U);

	/* The oldest of them signalled. */
	t->xprt.unsignalled = 2;
	KUNIT_EXPECT_TRUE(test, xrdma_send_cq_reap_due(&t->xprt));
	xrdma_send_cq_reap(&t->ep);
	KUNIT_EXPECT_EQ(test, t->nhandled, 2U);
	KUNIT_EXPECT_EQ(test, t->narms, 0U);
}

static struct kunit_case send_cq_cases[] = {
	KUNIT_CASE(send_cq_wanted_by_each_waiter),
	KUNIT_CASE(send_cq_arm_asks_for_missed),
	KUNIT_CASE(send_cq_ready_or_arm),
	KUNIT_CASE(send_cq_worker_handles_all),
	KUNIT_CASE(send_cq_worker_rearms_while_wanted),
	KUNIT_CASE(send_cq_worker_arms_once_for_its_handlers),
	KUNIT_CASE(send_cq_worker_rechecks_after_arm),
	KUNIT_CASE(send_cq_watch_finds_unreported),
	KUNIT_CASE(send_cq_no_work_after_quiesce),
	KUNIT_CASE(send_cq_quiet_after_failed_connect),
	KUNIT_CASE(send_cq_reap_defers_to_poller),
	KUNIT_CASE(send_cq_reap_only_for_signalled_sends),
	{}
};

struct kunit_suite xrdma_send_cq_suite = {
	.name = "xrdma_send_cq",
	.exit = send_cq_test_exit,
	.test_cases = send_cq_cases,
};

/* The fake CQ as the connection's receive CQ, with @flags. */
static struct send_cq_test *recv_cq_test_make(struct kunit *test,
					      unsigned int flags)
{
	struct send_cq_test *t = send_cq_test_make(test);

	xrdma_cq_prepare(&t->ep.recv_cq, &t->ep, NULL, flags);
	t->ep.recv_cq.ib = &t->cq;
	t->cq.cq_context = &t->ep.recv_cq;
	return t;
}

static void recv_cq_test_exit(struct kunit *test)
{
	struct send_cq_test *t = test->priv;

	send_cq_test_exit(test);
	if (t)
		cancel_work_sync(&t->ep.recv_cq.work);
}

/* A handler finds its transport through the CQ, whichever it is. */
static void recv_cq_xprt_of_handler(struct kunit *test)
{
	struct send_cq_test *t = recv_cq_test_make(test, 0);

	KUNIT_EXPECT_PTR_EQ(test, xrdma_cq_xprt(&t->cq), &t->xprt);
	t->cq.cq_context = &t->ep.send_cq;
	KUNIT_EXPECT_PTR_EQ(test, xrdma_cq_xprt(&t->cq), &t->xprt);
}

/* With nobody waiting on the send side, the receive CQ's work item
 * still arms after its poll, and polls again when a completion came in
 * before the arm.
 */
static void recv_cq_rearms_always(struct kunit *test)
{
	struct send_cq_test *t = recv_cq_test_make(test, 0);

	t->queued = 2;
	xrdma_cq_worker(&t->ep.recv_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 2U);
	KUNIT_ASSERT_EQ(test, t->narms, 1U);
	KUNIT_EXPECT_EQ(test, t->arms[0],
			IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS);

	t->arrive[1] = 1;
	t->missed[1] = 1;
	xrdma_cq_worker(&t->ep.recv_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 3U);
	KUNIT_EXPECT_EQ(test, t->narms, 3U);
}

/* A receive that came in during an arm which did not report it: only
 * where the CQ is made to recheck is it handled without another event,
 * which, for the answer of a ping-pong, would never come.
 */
static void recv_cq_recheck_finds_unreported(struct kunit *test)
{
	struct send_cq_test *t = recv_cq_test_make(test, 0);

	t->arrive[0] = 1;
	xrdma_cq_worker(&t->ep.recv_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 0U);
	KUNIT_EXPECT_EQ(test, t->narms, 1U);

	t = recv_cq_test_make(test, XRDMA_CQ_RECHECK);
	t->arrive[0] = 1;
	xrdma_cq_worker(&t->ep.recv_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 1U);
	KUNIT_EXPECT_EQ(test, t->narms, 2U);
}

/* An event queues the work item until the quiesce, and nothing after
 * it: the receives a QP's destruction flushes are nobody's.
 */
static void recv_cq_no_work_after_quiesce(struct kunit *test)
{
	struct send_cq_test *t = recv_cq_test_make(test, XRDMA_CQ_BOUND);

	t->queued = 1;
	xrdma_cq_event(&t->cq, &t->ep.recv_cq);
	flush_work(&t->ep.recv_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 1U);
	KUNIT_EXPECT_EQ(test, t->narms, 1U);

	xrdma_cq_quiesce(&t->ep.recv_cq);
	t->queued = 2;
	xrdma_cq_event(&t->cq, &t->ep.recv_cq);
	KUNIT_EXPECT_FALSE(test, work_pending(&t->ep.recv_cq.work));
	flush_work(&t->ep.recv_cq.work);
	KUNIT_EXPECT_EQ(test, t->nhandled, 1U);
	KUNIT_EXPECT_EQ(test, t->narms, 1U);
}

static struct kunit_case recv_cq_cases[] = {
	KUNIT_CASE(recv_cq_xprt_of_handler),
	KUNIT_CASE(recv_cq_rearms_always),
	KUNIT_CASE(recv_cq_recheck_finds_unreported),
	KUNIT_CASE(recv_cq_no_work_after_quiesce),
	{}
};

struct kunit_suite xrdma_recv_cq_suite = {
	.name = "xrdma_recv_cq",
	.exit = recv_cq_test_exit,
	.test_cases = recv_cq_cases,
};
