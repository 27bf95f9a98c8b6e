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
 * arm it after every poll, so it is made with ib_create_cq() and its
 * arming is ours.
 *
 * It is armed (xrdma_send_cq_arm()) by
 *  - a thread about to sleep on the transport's send_wait
 *    (xrdma_send_cq_ready_or_arm()),
 *  - the post of a WR a thread waits for (xrdma_wr_wait_posted()),
 *  - the post of an RDMA operation, whose outcome goes to the user
 *    (unless a handler of the work item posts it: see there),
 *  - the drain,
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
 * them (xrdma_send_cq_reap()), before it replenishes the receive queue
 * and hands the message up, whose answer then finds the slot and the
 * buffer of the previous Send free.  The CQ cannot overflow: each of
 * its entries holds a ring slot, an RDMA context or a waiter, which
 * only polling gives back, and the send queue it is sized for has room
 * for all of them (xrdma_sq_depth()).
 *
 * Polling runs under @ep->send_cq_poll, so handlers never run twice at
 * once, as they never did on one work item; the reap only tries it.
 *
 * An arm's answer is not always to be trusted.  siw (6.1) counts a new
 * completion and then reads whether its CQ is armed, while an arm sets
 * the flag and then reads that count without the CQ's lock: with no
 * full barrier on the completing side, both can read the old value, and
 * the completion then sits in an armed CQ with no event until the next
 * one comes.  A WR whose completion a thread arms for just after its
 * post, a REG_MR most of all, which siw's transmit thread completes
 * on the other CPU at once, is exposed to that.  So, where the device
 * is such (@ep->send_cq_recheck), the work item polls once more after
 * an arm that reported nothing; the poll takes the CQ's lock, which
 * either shows it the completion or orders the completing side's read
 * after the arm.  A thread that arms cannot poll in its place (it may
 * hold the send lock the handlers take), so a watch looks in the CQ
 * XRDMA_SEND_CQ_WATCH after a thread armed it, and every as long after
 * that while a completion is still waited for: a lost event costs a
 * watch's period, not the connection.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "xrdma.h"

/* Completions one run of the work item handles before it yields. */
#define XRDMA_SEND_CQ_BUDGET	256

/* How long after an arm by a thread the watch looks in the CQ. */
#define XRDMA_SEND_CQ_WATCH	(HZ / 10)

/* Send CQs' events are handled here, by unbound workers.  A bound one
 * queues behind the thread that produced the completions: siw completes
 * a WRITE in its per-CPU transmit thread, which on a kernel without
 * preemption runs until its queue is empty, so the poster heard of its
 * window only once the window was drained (a stream of 4 KiB WRITEs at
 * 0.28 of the floor's rate).
 */
static struct workqueue_struct *xrdma_cq_wq;

/**
 * xrdma_send_cq_wanted() - is a completion of the send CQ waited for?
 * @xprt: the transport
 * @ep: its connection, the CQ's owner
 *
 * By the drain, a thread asleep on @xprt->send_wait, a thread waiting
 * for a WR it posted, or the user of an RDMA operation in flight.
 *
 * Context: @xprt's send lock held.
 * Return: true to keep the CQ armed.
 */
VISIBLE_IF_KUNIT bool xrdma_send_cq_wanted(struct xrdma_xprt *xprt,
					   const struct xrdma_ep *ep)
{
	lockdep_assert_held(&xprt->send_lock);
	return ep->draining || xprt->rdma_busy ||
	       !list_empty(&xprt->wr_waits) ||
	       wq_has_sleeper(&xprt->send_wait);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_wanted);

/* Have @cq's next completion raise an event; true if one is in it
 * already, which raises none.
 */
static bool xrdma_send_cq_notify(struct ib_cq *cq)
{
	return ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
				    IB_CQ_REPORT_MISSED_EVENTS) > 0;
}

/* Queue the work item, unless the connection's drain is over. */
static void xrdma_send_cq_kick(struct xrdma_ep *ep)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->send_cq_lock, flags);
	if (!ep->send_cq_off)
		queue_work(xrdma_cq_wq, &ep->send_cq_work);
	spin_unlock_irqrestore(&ep->send_cq_lock, flags);
}

/* Have the watch look in the CQ in a while, unless it will already;
 * not once the drain is over.
 */
static void xrdma_send_cq_watch(struct xrdma_ep *ep)
{
	unsigned long flags;

	if (delayed_work_pending(&ep->send_cq_watch))
		return;
	spin_lock_irqsave(&ep->send_cq_lock, flags);
	if (!ep->send_cq_off)
		queue_delayed_work(xrdma_cq_wq, &ep->send_cq_watch,
				   XRDMA_SEND_CQ_WATCH);
	spin_unlock_irqrestore(&ep->send_cq_lock, flags);
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
	if (!ep->send_cq || current_work() == &ep->send_cq_work)
		return;
	if (xrdma_send_cq_notify(ep->send_cq))
		xrdma_send_cq_kick(ep);
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

/* Handle up to @budget completions; returns how many there were. */
static int xrdma_send_cq_poll(struct xrdma_ep *ep, int budget)
{
	int n;

	mutex_lock(&ep->send_cq_poll);
	n = ib_process_cq_direct(ep->send_cq, budget);
	mutex_unlock(&ep->send_cq_poll);
	return n;
}

/* Handle what is there unless someone is polling already, who will;
 * returns how many there were, or -EBUSY.
 */
static int xrdma_send_cq_try_poll(struct xrdma_ep *ep)
{
	int n;

	if (!mutex_trylock(&ep->send_cq_poll))
		return -EBUSY;
	n = ib_process_cq_direct(ep->send_cq, XRDMA_SEND_CQ_BUDGET);
	mutex_unlock(&ep->send_cq_poll);
	return n;
}

/* What an arm after a poll found. */
enum xrdma_send_cq_armed {
	XRDMA_SEND_CQ_IDLE,	/* nothing waited for: not armed */
	XRDMA_SEND_CQ_MISSED,	/* armed; completions came meanwhile */
	XRDMA_SEND_CQ_ARMED,	/* armed; the device reported none */
};

/* Arm again if a completion is still waited for. */
static enum xrdma_send_cq_armed xrdma_send_cq_rearm(struct xrdma_xprt *xprt,
						    struct xrdma_ep *ep)
{
	enum xrdma_send_cq_armed armed = XRDMA_SEND_CQ_IDLE;

	spin_lock(&xprt->send_lock);
	if (xrdma_send_cq_wanted(xprt, ep))
		armed = xrdma_send_cq_notify(ep->send_cq) ?
			XRDMA_SEND_CQ_MISSED : XRDMA_SEND_CQ_ARMED;
	spin_unlock(&xprt->send_lock);
	return armed;
}

/* Poll and arm again until nothing is left or nothing is waited for;
 * on a device whose arm may miss a completion, a poll after the arm
 * that reported none must find none too.
 */
static void xrdma_send_cq_run(struct xrdma_ep *ep)
{
	enum xrdma_send_cq_armed armed = XRDMA_SEND_CQ_IDLE;
	int n;

	for (;;) {
		n = xrdma_send_cq_poll(ep, XRDMA_SEND_CQ_BUDGET);
		if (n >= XRDMA_SEND_CQ_BUDGET) {
			xrdma_send_cq_kick(ep);
			return;
		}
		if (armed == XRDMA_SEND_CQ_ARMED && !n)
			return;
		armed = xrdma_send_cq_rearm(ep->xprt, ep);
		if (armed == XRDMA_SEND_CQ_IDLE ||
		    (armed == XRDMA_SEND_CQ_ARMED && !ep->send_cq_recheck))
			return;
	}
}

/**
 * xrdma_send_cq_worker() - handle the send CQ's completions after an event
 * @work: the connection's send_cq_work
 *
 * Context: xrdma_cq_wq, while the connection holds its transport: the
 * teardown quiesces the work item before it lets go.
 */
VISIBLE_IF_KUNIT void xrdma_send_cq_worker(struct work_struct *work)
{
	xrdma_send_cq_run(container_of(work, struct xrdma_ep, send_cq_work));
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_worker);

/* The watch found completions nobody was told of; the work item, not
 * queued, cannot have been told either, unless the event is a moment
 * old.
 */
static void xrdma_send_cq_rescued(struct xrdma_xprt *xprt,
				  struct xrdma_ep *ep, int n)
{
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
 * Context: xrdma_cq_wq, while the connection holds its transport: the
 * teardown quiesces the watch before it lets go.
 */
VISIBLE_IF_KUNIT void xrdma_send_cq_watcher(struct work_struct *work)
{
	struct xrdma_ep *ep = container_of(to_delayed_work(work),
					   struct xrdma_ep, send_cq_watch);
	struct xrdma_xprt *xprt = ep->xprt;
	bool wanted;
	int n;

	if (!work_pending(&ep->send_cq_work)) {
		n = xrdma_send_cq_try_poll(ep);
		if (n > 0) {
			xrdma_send_cq_rescued(xprt, ep, n);
			xrdma_send_cq_kick(ep);
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
 * xrdma_send_cq_event() - the send CQ's completion handler
 * @cq: the send CQ
 * @context: its connection
 *
 * Context: whatever the driver reports from, possibly hard IRQ; it may
 * be late: rxe raises its events from a tasklet, which can run after a
 * poll took the completion that raised it.
 */
VISIBLE_IF_KUNIT void xrdma_send_cq_event(struct ib_cq *cq, void *context)
{
	xrdma_send_cq_kick(context);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_event);

/**
 * xrdma_send_cq_reap() - handle the send completions already there
 * @ep: the connection
 *
 * Nothing happens if the work item is polling: it handles them.
 *
 * Context: process context, no lock held (the handlers take the send
 * lock); the receive CQ's work item.
 */
void xrdma_send_cq_reap(struct xrdma_ep *ep)
{
	xrdma_send_cq_try_poll(ep);
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
	INIT_WORK(&ep->send_cq_work, xrdma_send_cq_worker);
	INIT_DELAYED_WORK(&ep->send_cq_watch, xrdma_send_cq_watcher);
	mutex_init(&ep->send_cq_poll);
	spin_lock_init(&ep->send_cq_lock);
	ep->send_cq_off = false;
	ep->send_cq_recheck = recheck;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_prepare);

/**
 * xrdma_send_cq_create() - make a connection's send CQ, not armed
 * @ep: the connection, with an id bound to a device
 * @cqe: the entries it needs
 *
 * Its context is @ep, whose work item it queues (xrdma_send_cq_xprt()).
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno; @ep->send_cq is set on success only.
 */
int xrdma_send_cq_create(struct xrdma_ep *ep, unsigned int cqe)
{
	struct ib_device *dev = ep->id->device;
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct ib_cq *cq;

	xrdma_send_cq_prepare(ep, dev->ops.driver_id == RDMA_DRIVER_SIW);
	cq = ib_create_cq(dev, xrdma_send_cq_event, NULL, ep, &attr);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	ep->send_cq = cq;
	return 0;
}

/* From now on neither an event nor an arm queues work. */
static void xrdma_send_cq_off(struct xrdma_ep *ep)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->send_cq_lock, flags);
	ep->send_cq_off = true;
	spin_unlock_irqrestore(&ep->send_cq_lock, flags);
}

/**
 * xrdma_send_cq_quiesce() - stop the work item for good
 * @ep: the connection, whose send queue is drained
 *
 * No completion comes to a drained send queue, but an event still may:
 * the drain leaves the CQ armed, and rxe raises an event from a tasklet
 * that can run after the poll that took its completion, and after this
 * flush (one ran the work item after the teardown let go, in CI).  So
 * events queue nothing from now on, and the work item and the watch
 * queued before are waited for (the watch first: it may queue the work
 * item).  Completions left are the reap's.
 *
 * Context: process context, may sleep; not from the work item.
 */
void xrdma_send_cq_quiesce(struct xrdma_ep *ep)
{
	if (!ep->send_cq)
		return;
	xrdma_send_cq_off(ep);
	cancel_delayed_work_sync(&ep->send_cq_watch);
	flush_work(&ep->send_cq_work);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_cq_quiesce);

/**
 * xrdma_send_cq_destroy() - free the send CQ
 * @ep: the connection, whose QP is gone
 *
 * Context: process context, may sleep.
 */
void xrdma_send_cq_destroy(struct xrdma_ep *ep)
{
	if (!ep->send_cq)
		return;
	xrdma_send_cq_off(ep);
	cancel_delayed_work_sync(&ep->send_cq_watch);
	cancel_work_sync(&ep->send_cq_work);
	ib_destroy_cq(ep->send_cq);
	mutex_destroy(&ep->send_cq_poll);
	ep->send_cq = NULL;
}

/**
 * xrdma_send_cq_init() - make the workqueue of the send CQs
 *
 * Context: module load.
 * Return: 0 or -ENOMEM.
 */
int xrdma_send_cq_init(void)
{
	xrdma_cq_wq = alloc_workqueue("xrdma_cq", WQ_UNBOUND | WQ_HIGHPRI |
				      WQ_MEM_RECLAIM, 0);
	return xrdma_cq_wq ? 0 : -ENOMEM;
}

/**
 * xrdma_send_cq_exit() - free the workqueue of the send CQs
 *
 * Context: module unload; every CQ is gone.
 */
void xrdma_send_cq_exit(void)
{
	destroy_workqueue(xrdma_cq_wq);
}
