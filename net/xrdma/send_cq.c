// SPDX-License-Identifier: GPL-2.0
/*
 * The send CQ: armed only while someone waits for one of its
 * completions.
 *
 * A Send's completion only gives back its ring slot and its buffer;
 * nobody waits for it unless a sender is short of one.  Raising an
 * event for each would cost a work item per Send: on siw, where a Send
 * of a page or more must be signalled, two more hand-offs per round
 * trip, 35-40 us a hop on Debian's kernel, which the bare verbs
 * ping-pong of Documentation/benchmarks.rst avoids by arming its CQ
 * only when it is about to wait.  So does this CQ: ib_alloc_cq() would
 * arm it after every poll; ours (cq.c) asks this file whether to.
 *
 * It is armed (xrdma_send_cq_arm()) by
 *  - a thread about to sleep on the transport's send_wait
 *    (xrdma_send_cq_ready_or_arm()),
 *  - the post of a WR a thread waits for (xrdma_wr_wait_posted()),
 *  - the post of an RDMA operation, whose outcome goes to the user
 *    (unless a handler of the work item posts it: see there),
 *  - the drain,
 *  - a DONE owed alone that found no slot or buffer (xrdma_send_done()),
 * and re-armed by its work item for as long as any of those is still
 * owed a completion (xrdma_send_cq_wanted()).  A waiter makes itself
 * seen (queued on send_wait, or its WR listed under the send lock)
 * before it arms, and the work item looks for waiters after it polled,
 * so either the work item sees the waiter and arms, or the waiter arms
 * after the work item's last poll: no completion that is waited for
 * stays unseen.  Arming asks about missed events, so a completion that
 * came before the arm is polled at once.
 *
 * Otherwise completions wait in the CQ until the receive handler reaps
 * them (xrdma_send_cq_reap(), which polls only while a signalled Send
 * is in the ring), before it replenishes the receive queue and hands
 * the message up, whose answer then finds the slot and the buffer of
 * the previous Send free.  The CQ cannot overflow: each of
 * its entries holds a ring slot, an RDMA context or a waiter, which
 * only polling gives back, and the send queue it is sized for has room
 * for all of them (xrdma_sq_depth()).
 *
 * An arm's answer is not always to be trusted (cq.c): where the device
 * may miss a completion, the work item polls again after its arms, but
 * a thread that arms cannot poll in its place (it may hold the send
 * lock the handlers take).  So a watch looks in the CQ
 * XRDMA_SEND_CQ_WATCH after a thread armed it, and every as long after
 * that while a completion is still waited for: a lost event costs a
 * watch's period, not the connection.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "xrdma.h"

/* How long after an arm by a thread the watch looks in the CQ. */
#define XRDMA_SEND_CQ_WATCH	(HZ / 10)

/**
 * xrdma_send_cq_wanted() - is a completion of the send CQ waited for?
 * @xprt: the transport
 * @ep: its connection, the CQ's owner
 *
 * By the drain, a thread asleep on @xprt->send_wait, a thread waiting
 * for a WR it posted, the user of an RDMA operation in flight, or a
 * DONE owed alone that lacks a slot or a buffer (xrdma_send_done()).
 *
 * Context: @xprt's send lock held.
 * Return: true to keep the CQ armed.
 */
VISIBLE_IF_KUNIT bool xrdma_send_cq_wanted(struct xrdma_xprt *xprt,
					   const struct xrdma_ep *ep)
{
	lockdep_assert_held(&xprt->send_lock);
	return ep->draining || xprt->rdma_busy || xprt->done_due ||
	       !list_empty(&xprt->wr_waits) ||
	       wq_has_sleeper(&xprt->send_wait);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_wanted);

/* Have the watch look in the CQ in a while, unless it will already;
 * not once the drain is over.
 */
static void xrdma_send_cq_watch(struct xrdma_ep *ep)
{
	struct xrdma_cq *cq = &ep->send_cq;
	unsigned long flags;

	if (delayed_work_pending(&ep->send_cq_watch))
		return;
	spin_lock_irqsave(&cq->lock, flags);
	if (!cq->off)
		queue_delayed_work(cq->wq, &ep->send_cq_watch,
				   XRDMA_SEND_CQ_WATCH);
	spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * xrdma_send_cq_arm() - have the send CQ's next completion raise an event
 * @ep: the connection; nothing happens before its CQ exists
 *
 * A completion already in the CQ is polled at once, by the work item;
 * one the device failed to report, by the watch, which this starts.
 * A handler the work item runs needs no arm: the work item arms after
 * its poll for whatever is waited for by then (xrdma_send_cq_rearm()).
 * Arming in the middle of its poll, as a stream of WRITEs chained from
 * xrdma_ops.rdma_done would, could only queue it again, for completions
 * the running poll takes anyway.
 *
 * Context: any; does not sleep.
 */
void xrdma_send_cq_arm(struct xrdma_ep *ep)
{
	struct xrdma_cq *cq = &ep->send_cq;

	if (!cq->ib || current_work() == &cq->work)
		return;
	if (xrdma_cq_notify(cq) == XRDMA_CQ_MISSED)
		xrdma_cq_kick(cq);
	xrdma_send_cq_watch(ep);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_arm);

/**
 * xrdma_send_cq_ready_or_arm() - a send waiter's condition
 * @xprt: the transport whose send_wait the caller waits on
 * @ready: whether the condition holds
 *
 * For use inside wait_event*(): when @ready is false the caller, queued
 * on send_wait already, is about to sleep, so the current connection's
 * send CQ is armed; the completion that frees what it waits for then
 * wakes it.  The drain arms for itself.
 *
 * Context: process context; takes the send lock.
 * Return: @ready.
 */
bool xrdma_send_cq_ready_or_arm(struct xrdma_xprt *xprt, bool ready)
{
	struct xrdma_ep *ep;

	if (ready)
		return true;
	spin_lock(&xprt->send_lock);
	ep = xprt->ep;
	if (ep && !ep->draining)
		xrdma_send_cq_arm(ep);
	spin_unlock(&xprt->send_lock);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_ready_or_arm);

/* The work item's arm after a poll: only if a completion is still
 * waited for, which a waiter says under the send lock.
 */
static enum xrdma_cq_armed xrdma_send_cq_rearm(struct xrdma_cq *cq)
{
	struct xrdma_ep *ep = cq->ep;
	struct xrdma_xprt *xprt = ep->xprt;
	enum xrdma_cq_armed armed = XRDMA_CQ_IDLE;

	spin_lock(&xprt->send_lock);
	if (xrdma_send_cq_wanted(xprt, ep))
		armed = xrdma_cq_notify(cq);
	spin_unlock(&xprt->send_lock);
	return armed;
}

/* The watch found completions nobody was told of; the work item, not
 * queued, cannot have been told either, unless the event is a moment
 * old.
 */
static void xrdma_send_cq_rescued(struct xrdma_ep *ep, int n)
{
	struct xrdma_xprt *xprt = ep->xprt;

	spin_lock(&xprt->send_lock);
	xprt->info.send_cq_rescued += n;
	spin_unlock(&xprt->send_lock);
	pr_debug("%s: %d send completion(s) with no event, found by the watch\n",
		 ep->id->device->name, n);
}

/**
 * xrdma_send_cq_watcher() - look for completions a device did not report
 * @work: the connection's send_cq_watch
 *
 * When the work item is not queued, polls the CQ; what it finds, the
 * device neither reported to an arm nor raised an event for.  The work
 * item then polls and arms again.  Looks again later while a
 * completion is still waited for.
 *
 * Context: the send CQ's workqueue, while the connection holds its
 * transport: the teardown quiesces the watch before it lets go.
 */
VISIBLE_IF_KUNIT void xrdma_send_cq_watcher(struct work_struct *work)
{
	struct xrdma_ep *ep = container_of(to_delayed_work(work),
					   struct xrdma_ep, send_cq_watch);
	struct xrdma_xprt *xprt = ep->xprt;
	bool wanted;
	int n;

	if (!work_pending(&ep->send_cq.work)) {
		n = xrdma_cq_try_poll(&ep->send_cq);
		if (n > 0) {
			xrdma_send_cq_rescued(ep, n);
			xrdma_cq_kick(&ep->send_cq);
		}
	}
	spin_lock(&xprt->send_lock);
	wanted = xrdma_send_cq_wanted(xprt, ep);
	spin_unlock(&xprt->send_lock);
	if (wanted)
		xrdma_send_cq_watch(ep);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_watcher);

/**
 * xrdma_send_cq_reap_due() - may the send CQ hold a Send's completion?
 * @xprt: the transport
 *
 * Only a signalled Send completes into the CQ, and the Sends posted
 * since the last signalled one are not signalled: when the ring holds
 * no more Sends than those, none of its completions is there to reap.
 * Anything else the CQ may hold (an RDMA operation's, a registration's)
 * was armed for by its poster, and its event has the work item poll.
 *
 * Context: any.  Read without the send lock, which would cost the
 * receive path a lock a message: a Send that another thread posts
 * meanwhile may make the answer wrong either way.  A wrong yes costs
 * an empty poll; a completion a wrong no leaves in the CQ goes to the
 * next reap, or to the work item that a sender short of its slot or
 * buffer arms the CQ for.
 * Return: true if a signalled Send is in the ring.
 */
VISIBLE_IF_KUNIT bool xrdma_send_cq_reap_due(const struct xrdma_xprt *xprt)
{
	/* Racy on purpose: a snapshot, as the ring's count is. */
	return xrdma_ring_in_use(&xprt->ring) > data_race(xprt->unsignalled);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_reap_due);

/**
 * xrdma_send_cq_reap() - handle the Send completions already there
 * @ep: the connection
 *
 * Polls only when one may be there (xrdma_send_cq_reap_due()): on a
 * ping-pong, fifteen receives in sixteen would find the CQ empty, and
 * an empty poll still takes the poll mutex, the driver's CQ lock and
 * an indirect call.  Nothing happens either if the work item is
 * polling: it handles them.
 *
 * Context: process context, no lock held (the handlers take the send
 * lock); the receive CQ's work item.
 */
void xrdma_send_cq_reap(struct xrdma_ep *ep)
{
	if (xrdma_send_cq_reap_due(ep->xprt))
		xrdma_cq_try_poll(&ep->send_cq);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_reap);

/**
 * xrdma_send_cq_prepare() - set up what polls a connection's send CQ
 * @ep: the connection, whose CQ is not made yet
 * @recheck: its device's arm may miss a completion (siw): the work
 *	item polls once more after an arm that reported none
 *
 * Context: process context.
 */
VISIBLE_IF_KUNIT void xrdma_send_cq_prepare(struct xrdma_ep *ep,
					    bool recheck)
{
	xrdma_cq_prepare(&ep->send_cq, ep, xrdma_send_cq_rearm,
			 XRDMA_CQ_SHARED | (recheck ? XRDMA_CQ_RECHECK : 0));
	INIT_DELAYED_WORK(&ep->send_cq_watch, xrdma_send_cq_watcher);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_prepare);

/**
 * xrdma_send_cq_create() - make a connection's send CQ, not armed
 * @ep: the connection, with an id bound to a device
 * @cqe: the entries it needs
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno; @ep->send_cq.ib is set on success only.
 */
int xrdma_send_cq_create(struct xrdma_ep *ep, unsigned int cqe)
{
	xrdma_send_cq_prepare(ep, xrdma_cq_may_miss(ep->id->device));
	return xrdma_cq_create(&ep->send_cq, cqe);
}

/**
 * xrdma_send_cq_quiesce() - stop the work item and the watch for good
 * @ep: the connection, whose send queue is drained
 *
 * The watch goes first: it may queue the work item.  Completions left
 * are the reap's.
 *
 * Context: process context, may sleep; not from the work item.
 */
void xrdma_send_cq_quiesce(struct xrdma_ep *ep)
{
	if (!ep->send_cq.ib)
		return;
	xrdma_cq_off(&ep->send_cq);
	cancel_delayed_work_sync(&ep->send_cq_watch);
	xrdma_cq_quiesce(&ep->send_cq);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_quiesce);

/**
 * xrdma_send_cq_destroy() - free the send CQ, if it was made
 * @ep: the connection, whose QP is gone
 *
 * Context: process context, may sleep.
 */
void xrdma_send_cq_destroy(struct xrdma_ep *ep)
{
	if (!ep->send_cq.ib)
		return;
	xrdma_cq_off(&ep->send_cq);
	cancel_delayed_work_sync(&ep->send_cq_watch);
	xrdma_cq_destroy(&ep->send_cq);
}
