// SPDX-License-Identifier: GPL-2.0
/*
 * Disconnect: rdma_disconnect(), drain the send queue and then the
 * receive queue, release the connection-scoped state and drop the owner's
 * reference.  The buffers stay with the transport for the next
 * connection.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <kunit/visibility.h>

#include "xrdma.h"

/**
 * xrdma_ep_drain() - finish every WR of a connection and stop its CQs
 * @xprt: the transport
 * @ep: its connection, draining, at any stage of its making
 *
 * Every WR is done and its completion handled once this returns, and
 * no handler, work item or watch of either CQ runs any more.
 *
 * The send queue goes first, unlike xprtrdma's drain: our receive
 * handlers wait for WRs of the send queue (a chunk's READ, a landing
 * buffer's REG_MR, the WRITE of a push sent from a receive callback),
 * and the receive queue's drain waits for them.  Nothing is posted
 * after @ep->draining was set, so a receive handler that runs after
 * the send queue's drain has nothing left to wait for.
 *
 * A connection that never came up has its send CQ quiesced all the
 * same: a sender waiting for it to come up armed that CQ, which starts
 * the watch, and neither may run once the connection has let go of its
 * transport.
 *
 * Context: process context, may sleep; the teardown.
 */
VISIBLE_IF_KUNIT void xrdma_ep_drain(struct xrdma_xprt *xprt,
				     struct xrdma_ep *ep)
{
	struct ib_qp *qp = ep->id ? ep->id->qp : NULL;
	/* A QP that never reached RTS may refuse the drain WR; it has no
	 * WR in flight (nothing is posted before CONNECTED), and
	 * destroying it flushes its receives, which nobody handles after
	 * the quiesce: the buffers are the pool's.
	 */
	bool drain = qp && ep->was_connected;

	if (drain) {
		/* The drain waits for its own completion: the send CQ must
		 * tell.
		 */
		xrdma_send_cq_arm(ep);
		ib_drain_sq(qp);
	}
	xrdma_send_cq_quiesce(ep);
	if (drain) {
		xrdma_wr_waits_flush(xprt, ep);
		ib_drain_rq(qp);
	}
	xrdma_cq_quiesce(&ep->recv_cq);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_ep_drain);

/* Drop the owner's reference; the id goes with the last one. */
static void xrdma_ep_let_go(struct xrdma_ep *ep)
{
	struct rdma_cm_id *id = ep->id;

	spin_lock(&ep->lock);
	ep->xprt = NULL;
	spin_unlock(&ep->lock);
	if (!xrdma_ep_put(ep))
		return;
	if (id)
		rdma_destroy_id(id);
	xrdma_ep_free(ep);
}

/**
 * xrdma_ep_teardown() - end the transport's connection, if it has one
 * @xprt: the transport
 *
 * Copes with an endpoint at any stage, from no id yet to connected.
 * Afterwards the buffers are unmapped and free and no completion
 * handler of the old connection runs any more.  The endpoint itself
 * may live on until DISCONNECTED drops the last reference.
 *
 * Context: process context, may sleep; under @xprt->mutex.
 */
void xrdma_ep_teardown(struct xrdma_xprt *xprt)
{
	struct xrdma_ep *ep = xprt->ep;
	u64 start;

	lockdep_assert_held(&xprt->mutex);
	if (!ep)
		return;
	/* No forced disconnect from now on, and a late ESTABLISHED finds
	 * the connect abandoned and takes no reference.
	 */
	set_bit(0, &ep->flushed);
	cmpxchg(&ep->status, 0, -ECONNABORTED);

	start = ktime_get_ns();
	spin_lock(&xprt->send_lock);
	ep->draining = true;
	spin_unlock(&xprt->send_lock);
	wake_up_all(&xprt->send_wait);
	if (ep->was_connected)
		rdma_disconnect(ep->id);
	xrdma_ep_drain(xprt, ep);
	xrdma_rdma_retire_writes(xprt);
	/* No MR work request is in flight now; the MRs go before the PD. */
	xrdma_frwr_detach(xprt);
	xrdma_chunks_reset(xprt);
	xrdma_lands_reset(xprt);
	xrdma_step_done(xprt, XRDMA_STEP_DISCONNECT, start);

	start = ktime_get_ns();
	spin_lock(&xprt->send_lock);
	xprt->ep = NULL;
	spin_unlock(&xprt->send_lock);
	xrdma_ep_let_go(ep);
	xrdma_sendctx_reset(xprt);
	xrdma_rctx_reset(xprt);
	xrdma_pool_unmap(&xprt->reqs);
	xrdma_pool_unmap(&xprt->reps);
	xrdma_pool_reset(&xprt->reqs);
	xrdma_pool_reset(&xprt->reps);
	xrdma_step_done(xprt, XRDMA_STEP_DESTROY, start);
}

/**
 * xrdma_disconnect_worker() - the disconnect an error or the peer forced
 * @work: the transport's disconnect_work
 *
 * Tears the connection down, then schedules a reconnect (clients that
 * asked for one) or hands the transport back to its listener.
 *
 * Context: xrdma_wq.
 */
void xrdma_disconnect_worker(struct work_struct *work)
{
	struct xrdma_xprt *xprt = container_of(work, struct xrdma_xprt,
					       disconnect_work);
	bool retire;

	mutex_lock(&xprt->mutex);
	xrdma_ep_teardown(xprt);
	retire = xprt->lsn && !xprt->stopping;
	if (!xprt->lsn && !xprt->stopping && xprt->opts.reconnect_ms)
		queue_delayed_work(xrdma_wq, &xprt->reconnect_work,
				   msecs_to_jiffies(xprt->backoff_ms));
	mutex_unlock(&xprt->mutex);
	if (retire)
		xrdma_listener_retire(xprt);
}

/**
 * xrdma_disconnect() - end the connection and stop reconnecting
 * @xprt: the transport
 *
 * A disconnect the connection forced and that has not run yet is
 * cancelled: it was for this connection, and would tear down the next.
 *
 * Context: process context, may sleep; not from @xprt's callbacks.
 */
void xrdma_disconnect(struct xrdma_xprt *xprt)
{
	mutex_lock(&xprt->mutex);
	xprt->stopping = true;
	mutex_unlock(&xprt->mutex);
	cancel_delayed_work_sync(&xprt->reconnect_work);
	mutex_lock(&xprt->mutex);
	xrdma_ep_teardown(xprt);
	mutex_unlock(&xprt->mutex);
	/* The connection let go of the transport in its teardown, so
	 * nothing queues the work again.
	 */
	cancel_work_sync(&xprt->disconnect_work);
}
EXPORT_SYMBOL_GPL(xrdma_disconnect);
