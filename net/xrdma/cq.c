// SPDX-License-Identifier: GPL-2.0
/*
 * A connection's CQ, polled by a work item of ours after an event, and
 * armed again by it after each poll: ib_alloc_cq()'s scheme, with two
 * things of ours.
 *
 *  - Whether to arm again is the owner's to say (@rearm): the send CQ
 *    is armed only while a completion is waited for (send_cq.c); the
 *    receive CQ always is.
 *  - An arm's answer is not always to be trusted.  siw (6.1) counts a
 *    new completion and then reads whether its CQ is armed, while an
 *    arm sets the flag and then reads that count without the CQ's
 *    lock: with no full barrier on the completing side, both can read
 *    the old value, and the completion then sits in an armed CQ with no
 *    event until the next one comes, which, for the receive of a
 *    ping-pong's answer, never does.  So, where the device is such
 *    (XRDMA_CQ_RECHECK), the work item polls once more after an arm
 *    that reported nothing; the poll takes the CQ's lock, which either
 *    shows it the completion or orders the completing side's read after
 *    the arm.
 *
 * Handlers never run twice at once: the work item never runs on two
 * CPUs at once, and a CQ that others poll too (XRDMA_CQ_SHARED, the
 * send CQ) is polled under @poll, which the others only try
 * (xrdma_cq_try_poll()).  The receive CQ, polled by its work item
 * alone, saves the mutex: on a debug kernel a lock is a call into
 * lockdep, twice a message on siw.
 *
 * The CQ's context is the struct xrdma_cq, so a handler finds its
 * transport with xrdma_cq_xprt(): a connection lets go of its transport
 * only after the quiesce, after which no handler runs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "xrdma.h"

/* Completions one run of the work item handles before it yields. */
#define XRDMA_CQ_BUDGET	256

/* Send CQs' events are handled by unbound workers.  A bound one queues
 * behind the thread that produced the completions: siw completes a
 * WRITE in its per-CPU transmit thread, which on a kernel without
 * preemption runs until its queue is empty, so the poster heard of its
 * window only once the window was drained (a stream of 4 KiB WRITEs at
 * 0.28 of the floor's rate).
 */
static struct workqueue_struct *xrdma_cq_wq;

/* Receives are reaped by a worker bound to the CPU that completed them,
 * where rxe's softirq is over by then: on rxe an unbound one cost a
 * cross-CPU wake-up per message.  Not on siw (qp.c).
 */
static struct workqueue_struct *xrdma_cq_bound_wq;

/**
 * xrdma_cq_may_miss() - may an arm of @dev's CQs miss a completion?
 * @dev: the device
 *
 * Context: any.
 * Return: true for siw (see above).
 */
bool xrdma_cq_may_miss(const struct ib_device *dev)
{
	return dev->ops.driver_id == RDMA_DRIVER_SIW;
}

/**
 * xrdma_cq_notify() - have the CQ's next completion raise an event
 * @cq: the CQ
 *
 * Context: any; does not sleep.
 * Return: XRDMA_CQ_MISSED if a completion is in it already, which
 * raises none; XRDMA_CQ_ARMED otherwise.
 */
enum xrdma_cq_armed xrdma_cq_notify(struct xrdma_cq *cq)
{
	return ib_req_notify_cq(cq->ib, IB_CQ_NEXT_COMP |
				IB_CQ_REPORT_MISSED_EVENTS) > 0 ?
	       XRDMA_CQ_MISSED : XRDMA_CQ_ARMED;
}

/**
 * xrdma_cq_kick() - queue the work item, unless the CQ is quiesced
 * @cq: the CQ
 *
 * Context: any; does not sleep.
 */
void xrdma_cq_kick(struct xrdma_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	if (!cq->off)
		queue_work(cq->wq, &cq->work);
	spin_unlock_irqrestore(&cq->lock, flags);
}

/* Handle up to @budget completions; returns how many there were. */
static int xrdma_cq_poll(struct xrdma_cq *cq, int budget)
{
	int n;

	if (!cq->shared)
		return ib_process_cq_direct(cq->ib, budget);
	mutex_lock(&cq->poll);
	n = ib_process_cq_direct(cq->ib, budget);
	mutex_unlock(&cq->poll);
	return n;
}

/**
 * xrdma_cq_try_poll() - handle what is there, unless someone polls
 * @cq: the CQ
 *
 * Whoever polls already handles them.
 *
 * Context: process context, no lock the handlers take; @cq is
 * XRDMA_CQ_SHARED.
 * Return: how many completions there were, or -EBUSY.
 */
int xrdma_cq_try_poll(struct xrdma_cq *cq)
{
	int n;

	if (!mutex_trylock(&cq->poll))
		return -EBUSY;
	n = ib_process_cq_direct(cq->ib, XRDMA_CQ_BUDGET);
	mutex_unlock(&cq->poll);
	return n;
}

/* Arm again, if the owner wants to. */
static enum xrdma_cq_armed xrdma_cq_rearm(struct xrdma_cq *cq)
{
	return cq->rearm ? cq->rearm(cq) : xrdma_cq_notify(cq);
}

/**
 * xrdma_cq_worker() - handle a CQ's completions after an event
 * @work: the CQ's work item
 *
 * Polls and arms again until nothing is left or nothing is wanted; on
 * a device whose arm may miss a completion, a poll after an arm that
 * reported none must find none too.
 *
 * Context: the CQ's workqueue, while its connection holds its
 * transport: the teardown quiesces the CQ before it lets go.
 */
VISIBLE_IF_KUNIT void xrdma_cq_worker(struct work_struct *work)
{
	struct xrdma_cq *cq = container_of(work, struct xrdma_cq, work);
	enum xrdma_cq_armed armed = XRDMA_CQ_IDLE;
	int n;

	for (;;) {
		n = xrdma_cq_poll(cq, XRDMA_CQ_BUDGET);
		if (n >= XRDMA_CQ_BUDGET) {
			xrdma_cq_kick(cq);
			return;
		}
		if (armed == XRDMA_CQ_ARMED && !n)
			return;
		armed = xrdma_cq_rearm(cq);
		if (armed == XRDMA_CQ_IDLE ||
		    (armed == XRDMA_CQ_ARMED && !cq->recheck))
			return;
	}
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_cq_worker);

/**
 * xrdma_cq_event() - a CQ's completion handler
 * @ibcq: the CQ
 * @context: its struct xrdma_cq
 *
 * Context: whatever the driver reports from, possibly hard IRQ; it may
 * be late: rxe raises its events from a tasklet, which can run after a
 * poll took the completion that raised it.
 */
VISIBLE_IF_KUNIT void xrdma_cq_event(struct ib_cq *ibcq, void *context)
{
	xrdma_cq_kick(context);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_cq_event);

/**
 * xrdma_cq_prepare() - set up what polls a CQ not made yet
 * @cq: the CQ
 * @ep: its connection
 * @rearm: after a poll, arms the CQ if its owner still wants events and
 *	says how (XRDMA_CQ_IDLE if not); NULL to arm it always
 * @flags: XRDMA_CQ_BOUND to poll on the CPU of the event,
 *	XRDMA_CQ_RECHECK if the device's arm may miss a completion,
 *	XRDMA_CQ_SHARED if others than the work item poll it
 *
 * Context: process context.
 */
void xrdma_cq_prepare(struct xrdma_cq *cq, struct xrdma_ep *ep,
		      enum xrdma_cq_armed (*rearm)(struct xrdma_cq *cq),
		      unsigned int flags)
{
	cq->ib = NULL;
	cq->ep = ep;
	cq->rearm = rearm;
	cq->wq = flags & XRDMA_CQ_BOUND ? xrdma_cq_bound_wq : xrdma_cq_wq;
	INIT_WORK(&cq->work, xrdma_cq_worker);
	mutex_init(&cq->poll);
	spin_lock_init(&cq->lock);
	cq->off = false;
	cq->recheck = flags & XRDMA_CQ_RECHECK;
	cq->shared = flags & XRDMA_CQ_SHARED;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_cq_prepare);

/**
 * xrdma_cq_create() - make a prepared CQ
 * @cq: the CQ, prepared by xrdma_cq_prepare()
 * @cqe: the entries it needs
 *
 * A CQ that is always armed (no @cq->rearm) is armed now.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno; @cq->ib is set on success only.
 */
int xrdma_cq_create(struct xrdma_cq *cq, unsigned int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct ib_cq *ibcq;

	ibcq = ib_create_cq(cq->ep->id->device, xrdma_cq_event, NULL, cq,
			    &attr);
	if (IS_ERR(ibcq))
		return PTR_ERR(ibcq);
	cq->ib = ibcq;
	if (!cq->rearm)
		ib_req_notify_cq(ibcq, IB_CQ_NEXT_COMP);
	return 0;
}

/**
 * xrdma_cq_off() - from now on, neither an event nor an arm queues work
 * @cq: the CQ
 *
 * Context: any; does not sleep.
 */
void xrdma_cq_off(struct xrdma_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cq->off = true;
	spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * xrdma_cq_quiesce() - stop the work item for good
 * @cq: the CQ, whose queue is drained or never had a connection
 *
 * No completion the handlers need comes any more, but an event still
 * may: the drain leaves the CQ armed, destroying a QP that never
 * connected flushes its receives, and rxe raises an event from a
 * tasklet that can run after the poll that took its completion, and
 * after this flush (one ran the work item after the teardown let go,
 * in CI).  So events queue nothing from now on, and the work item
 * queued before is waited for.  What is left is nobody's, or the
 * send CQ's reap's.
 *
 * Context: process context, may sleep; not from the work item.
 */
void xrdma_cq_quiesce(struct xrdma_cq *cq)
{
	if (!cq->ib)
		return;
	xrdma_cq_off(cq);
	flush_work(&cq->work);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_cq_quiesce);

/**
 * xrdma_cq_destroy() - free a CQ, if it was made
 * @cq: the CQ, whose QP is gone
 *
 * Context: process context, may sleep.
 */
void xrdma_cq_destroy(struct xrdma_cq *cq)
{
	if (!cq->ib)
		return;
	xrdma_cq_off(cq);
	cancel_work_sync(&cq->work);
	ib_destroy_cq(cq->ib);
	mutex_destroy(&cq->poll);
	cq->ib = NULL;
}

/**
 * xrdma_cq_init() - make the workqueues of the CQs
 *
 * Context: module load.
 * Return: 0 or -ENOMEM.
 */
int xrdma_cq_init(void)
{
	xrdma_cq_wq = alloc_workqueue("xrdma_cq", WQ_UNBOUND | WQ_HIGHPRI |
				      WQ_MEM_RECLAIM, 0);
	if (!xrdma_cq_wq)
		return -ENOMEM;
	xrdma_cq_bound_wq = alloc_workqueue("xrdma_cq_bound", WQ_HIGHPRI |
					    WQ_MEM_RECLAIM, 0);
	if (!xrdma_cq_bound_wq) {
		destroy_workqueue(xrdma_cq_wq);
		return -ENOMEM;
	}
	return 0;
}

/**
 * xrdma_cq_exit() - free the workqueues of the CQs
 *
 * Context: module unload; every CQ is gone.
 */
void xrdma_cq_exit(void)
{
	destroy_workqueue(xrdma_cq_bound_wq);
	destroy_workqueue(xrdma_cq_wq);
}
