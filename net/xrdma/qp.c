// SPDX-License-Identifier: GPL-2.0
/*
 * A connection's verbs resources: PD, a send CQ armed only when a
 * completion is waited for (send_cq.c) and a receive CQ always armed,
 * both polled by work items (cq.c, so completion handlers run in
 * process context), and the RC QP attached to the id.  They are
 * connection scoped: released when the endpoint's last reference goes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "xrdma.h"

/* Runs in whatever context the driver reports from, possibly atomic.
 * Data that reaches an accepted QP before the CM's RTU does raises
 * COMM_EST, which the CM must hear of to report ESTABLISHED.  Fatal
 * errors need nothing here: they flush the WRs, which forces a
 * disconnect.
 */
static void xrdma_qp_event(struct ib_event *event, void *context)
{
	struct xrdma_ep *ep = context;

	if (event->event == IB_EVENT_COMM_EST)
		rdma_notify(ep->id, event->event);
	else
		pr_debug("QP event %s on %s\n", ib_event_msg(event->event),
			 ep->id->device->name);
}

/* The device must take our queues: the send queue carries Sends, RDMA
 * operations and MR work requests (xrdma_sq_depth), the receive queue
 * our depth; each has one more WR for its drain.
 */
static int xrdma_check_device(struct ib_device *dev, unsigned int depth)
{
	unsigned int sq = xrdma_sq_depth(depth);

	if (dev->attrs.max_qp_wr < sq || dev->attrs.max_cqe < sq) {
		pr_err("%s: depth %u is more than the device takes\n",
		       dev->name, depth);
		return -EINVAL;
	}
	return 0;
}

/* Receives are reaped by a worker bound to the CPU that completed
 * them (cq.c), but not on siw, which completes a receive in TCP's
 * receive softirq; between two ends on one host that runs in the
 * sender's siw transmit thread, and on a kernel without preemption a
 * bound worker waited for that thread to sleep, and the message's
 * handler, often the sender of its answer, with it (4 KiB ping-pong:
 * 0.78 of the time unbound; Documentation/benchmarks.rst).
 */
static int xrdma_recv_cq_create(struct xrdma_ep *ep, unsigned int cqe)
{
	const struct ib_device *dev = ep->id->device;

	xrdma_cq_prepare(&ep->recv_cq, ep, NULL,
			 xrdma_cq_may_miss(dev) ? XRDMA_CQ_RECHECK :
						  XRDMA_CQ_BOUND);
	return xrdma_cq_create(&ep->recv_cq, cqe);
}

/**
 * xrdma_ep_setup_qp() - make the PD, the CQs and the QP of a connection
 * @ep: the endpoint, with an id bound to a device
 * @xprt: its transport, the source of the depth
 *
 * On failure what was made stays for xrdma_ep_release_qp(), which the
 * endpoint's last reference runs: teardown copes with any prefix.
 *
 * Context: process context, may sleep (also under the id's handler
 * mutex, for an accepted connection).
 * Return: 0 or a negative errno.
 */
int xrdma_ep_setup_qp(struct xrdma_ep *ep, struct xrdma_xprt *xprt)
{
	struct ib_device *dev = ep->id->device;
	unsigned int depth = xprt->opts.depth;
	struct ib_qp_init_attr attr = {};
	struct ib_pd *pd;
	int rc;

	rc = xrdma_check_device(dev, depth);
	if (rc)
		return rc;
	pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	ep->pd = pd;
	rc = xrdma_send_cq_create(ep, xrdma_sq_depth(depth));
	if (rc)
		return rc;
	ep->rd_atom = min3(XRDMA_RD_ATOM, dev->attrs.max_qp_rd_atom,
			   dev->attrs.max_qp_init_rd_atom);
	/* siw hands an unsignalled Send or WRITE of a page or more to TCP
	 * page by page, zero copy, which more than doubled the latency of
	 * 4 KiB messages; a signalled one goes in one copy.  Elsewhere
	 * such a completion would only be one more to handle
	 * (Documentation/benchmarks.rst).
	 */
	ep->signal_from = dev->ops.driver_id == RDMA_DRIVER_SIW ? PAGE_SIZE :
								  U32_MAX;
	rc = xrdma_recv_cq_create(ep, depth + 1);
	if (rc)
		return rc;

	attr.event_handler = xrdma_qp_event;
	attr.qp_context = ep;
	attr.send_cq = ep->send_cq.ib;
	attr.recv_cq = ep->recv_cq.ib;
	attr.cap.max_send_wr = xrdma_sq_depth(depth);
	attr.cap.max_recv_wr = depth + 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	return rdma_create_qp(ep->id, ep->pd, &attr);
}

/**
 * xrdma_ep_release_qp() - release what xrdma_ep_setup_qp() made
 * @ep: the endpoint; any part may be missing
 *
 * The QP goes before the CQs, so no WR is left to complete.  The
 * receives its destruction flushes (a connection that never was up,
 * an accept undone) are nobody's: the receive CQ is quiesced first, so
 * no handler runs for them.
 *
 * Context: process context, may sleep; the endpoint's last reference.
 */
void xrdma_ep_release_qp(struct xrdma_ep *ep)
{
	xrdma_cq_quiesce(&ep->recv_cq);
	if (ep->id && ep->id->qp)
		rdma_destroy_qp(ep->id);
	xrdma_cq_destroy(&ep->recv_cq);
	xrdma_send_cq_destroy(ep);
	if (ep->pd)
		ib_dealloc_pd(ep->pd);
	ep->pd = NULL;
}
