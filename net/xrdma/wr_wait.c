// SPDX-License-Identifier: GPL-2.0
/*
 * Work requests a thread waits for: the REG_MR and LOCAL_INV of a
 * registration, the READ that pulls a chunk, the WRITE of a push.  Some
 * of those threads are the receive CQ's work item.
 *
 * Each such WR is on the transport's list from its post to its
 * completion, so that the teardown can finish the ones a provider still
 * owes once the send queue is drained.  The verbs say there are none:
 * every WR posted before the drain's own has completed by then.  siw
 * breaks that: a REG_MR posted while a Send's transmission was failing
 * was never completed, neither by the error nor by the drain, and the
 * receive CQ's work item that waited for it held up the receive
 * queue's drain for good.  Such a WR is completed here as flushed,
 * through its own handler, so that what it holds is given back as for
 * any flush.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>

#include "xrdma.h"

/**
 * xrdma_wr_wait_init() - set up the context of a waited-for WR
 * @w: the context
 * @done: the handler of the WR's completion, which ends with
 *	xrdma_wr_wait_done()
 *
 * Context: any.
 */
void xrdma_wr_wait_init(struct xrdma_wr_wait *w,
			void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	w->cqe.done = done;
	init_completion(&w->done);
	w->status = IB_WC_SUCCESS;
	INIT_LIST_HEAD(&w->node);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_wr_wait_init);

/**
 * xrdma_wr_wait_posted() - the WR is posted: its completion is owed
 * @xprt: the transport, whose connection took the WR
 * @w: the WR's context
 *
 * The send CQ stays armed while the WR is listed (send_cq.c).
 *
 * Context: @xprt's send lock held, the same hold as the post's, so its
 * completion's handler finds it listed.
 */
void xrdma_wr_wait_posted(struct xrdma_xprt *xprt, struct xrdma_wr_wait *w)
{
	lockdep_assert_held(&xprt->send_lock);
	list_add_tail(&w->node, &xprt->wr_waits);
	xrdma_send_cq_arm(xprt->ep);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_wr_wait_posted);

/**
 * xrdma_wr_wait_done() - the WR completed: wake its waiter
 * @xprt: the transport
 * @w: the WR's context; the waiter's to free once this returns
 * @wc: the completion
 *
 * Context: a send completion's handler (send_cq.c), or
 * xrdma_wr_waits_flush(); takes the send lock.
 */
void xrdma_wr_wait_done(struct xrdma_xprt *xprt, struct xrdma_wr_wait *w,
			const struct ib_wc *wc)
{
	spin_lock(&xprt->send_lock);
	list_del_init(&w->node);
	spin_unlock(&xprt->send_lock);
	w->status = wc->status;
	complete(&w->done);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_wr_wait_done);

/**
 * xrdma_wr_wait_post() - post one WR and wait for its completion
 * @xprt: the transport
 * @wr: the WR, signalled here; one, not a chain
 * @w: its context, xrdma_wr_wait_init()'ed
 * @posted: if not NULL, set to whether the device took it
 *
 * The wait is bounded by the connection's life: the teardown's drain
 * completes the WR, or xrdma_wr_waits_flush() does.
 *
 * Context: process context, may sleep.
 * Return: 0 when it completed successfully, -EIO when it completed in
 * error, else the error of xrdma_post_wr().
 */
int xrdma_wr_wait_post(struct xrdma_xprt *xprt, struct ib_send_wr *wr,
		       struct xrdma_wr_wait *w, bool *posted)
{
	int rc;

	wr->wr_cqe = &w->cqe;
	wr->send_flags |= IB_SEND_SIGNALED;
	reinit_completion(&w->done);
	rc = xrdma_post_wr(xprt, wr, w);
	if (posted)
		*posted = !rc;
	if (rc)
		return rc;
	wait_for_completion(&w->done);
	return w->status == IB_WC_SUCCESS ? 0 : -EIO;
}

/**
 * xrdma_wr_waits_flush() - complete what a drained send queue still owes
 * @xprt: the transport
 * @ep: its connection, whose send queue ib_drain_sq() just drained
 *
 * Each WR left is completed as flushed by its own handler, with a
 * warning: the provider lost its completion.
 *
 * Context: process context; posting is refused (@ep->draining).
 */
void xrdma_wr_waits_flush(struct xrdma_xprt *xprt, struct xrdma_ep *ep)
{
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.qp = ep->id->qp,
	};
	struct xrdma_wr_wait *w;

	spin_lock(&xprt->send_lock);
	while ((w = list_first_entry_or_null(&xprt->wr_waits,
					     struct xrdma_wr_wait, node))) {
		list_del_init(&w->node);
		spin_unlock(&xprt->send_lock);
		pr_warn("%s: %ps not completed by the drain, flushed here\n",
			ep->id->device->name, w->cqe.done);
		wc.wr_cqe = &w->cqe;
		w->cqe.done(ep->send_cq.ib, &wc);
		spin_lock(&xprt->send_lock);
	}
	spin_unlock(&xprt->send_lock);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_wr_waits_flush);
