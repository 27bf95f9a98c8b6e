// SPDX-License-Identifier: GPL-2.0
/*
 * The send path: a message is copied into a request buffer behind our
 * header, which tells the peer how many receives we have posted, and
 * goes out as one SEND from the next slot of the send-context ring.
 * Only every XRDMA_SIGNAL_EVERY-th Send, or the one that fills the
 * ring, is signalled; its completion retires the earlier ones in order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "xrdma.h"

static void xrdma_sendctx_retire_one(void *arg, unsigned int slot)
{
	struct xrdma_xprt *xprt = arg;
	struct xrdma_buf *buf = xprt->sc_buf[slot];

	xprt->sc_buf[slot] = NULL;
	if (buf)
		xrdma_pool_put(&xprt->reqs, buf);
}

static void xrdma_wc_send(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xrdma_xprt *xprt = cq->cq_context;
	unsigned int slot = wc->wr_cqe - xprt->sc_cqe;

	/* Only wr_cqe and status are valid in a failed completion. */
	xrdma_ring_retire(&xprt->ring, slot, xrdma_sendctx_retire_one, xprt);
	wake_up(&xprt->send_wait);
	xrdma_flush_disconnect(xprt, wc);
}

/**
 * xrdma_sendctx_create() - allocate the send contexts of a transport
 * @xprt: the transport; its depth is the number of Sends in flight
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int xrdma_sendctx_create(struct xrdma_xprt *xprt)
{
	unsigned int i, slots;

	if (xrdma_ring_init(&xprt->ring, xprt->opts.depth))
		return -EINVAL;
	slots = xprt->ring.size;
	xprt->sc_cqe = kcalloc(slots, sizeof(*xprt->sc_cqe), GFP_KERNEL);
	xprt->sc_buf = kcalloc(slots, sizeof(*xprt->sc_buf), GFP_KERNEL);
	if (!xprt->sc_cqe || !xprt->sc_buf) {
		xrdma_sendctx_destroy(xprt);
		return -ENOMEM;
	}
	for (i = 0; i < slots; i++)
		xprt->sc_cqe[i].done = xrdma_wc_send;
	return 0;
}

/**
 * xrdma_sendctx_destroy() - free the send contexts
 * @xprt: the transport, with no connection
 *
 * Context: process context.
 */
void xrdma_sendctx_destroy(struct xrdma_xprt *xprt)
{
	kfree(xprt->sc_cqe);
	kfree(xprt->sc_buf);
	xprt->sc_cqe = NULL;
	xprt->sc_buf = NULL;
}

/**
 * xrdma_sendctx_reset() - forget the Sends of a connection that is gone
 * @xprt: the transport; its QP is drained or destroyed
 *
 * The request buffers go back with the pool's reset.
 *
 * Context: under @xprt->mutex.
 */
void xrdma_sendctx_reset(struct xrdma_xprt *xprt)
{
	spin_lock(&xprt->send_lock);
	xrdma_ring_init(&xprt->ring, xprt->opts.depth);
	memset(xprt->sc_buf, 0, xprt->ring.size * sizeof(*xprt->sc_buf));
	xprt->unsignalled = 0;
	spin_unlock(&xprt->send_lock);
}

/* Signal one Send in XRDMA_SIGNAL_EVERY, and always the one that fills
 * the ring: a sender waiting for a slot then has a completion coming.
 */
static bool xrdma_send_signal(struct xrdma_xprt *xprt)
{
	if (++xprt->unsignalled < XRDMA_SIGNAL_EVERY &&
	    xrdma_ring_in_use(&xprt->ring) < xprt->ring.size - 1)
		return false;
	xprt->unsignalled = 0;
	return true;
}

static void xrdma_send_fill(struct xrdma_xprt *xprt, struct xrdma_buf *buf,
			    const void *data, u32 len, u32 flags)
{
	struct xrdma_hdr *hdr = buf->data;

	hdr->credits = cpu_to_be32(xrdma_credits_announce(&xprt->credits));
	hdr->flags = cpu_to_be32(flags);
	hdr->len = cpu_to_be32(len);
	if (len)
		memcpy(hdr + 1, data, len);
	buf->len = sizeof(*hdr) + len;
}

static int xrdma_send_post(struct xrdma_xprt *xprt, struct xrdma_ep *ep,
			   struct xrdma_buf *buf, int slot)
{
	struct ib_sge sge = {
		.addr = buf->dma,
		.length = buf->len,
		.lkey = ep->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &xprt->sc_cqe[slot],
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
	};

	if (xrdma_send_signal(xprt))
		wr.send_flags = IB_SEND_SIGNALED;
	ib_dma_sync_single_for_device(ep->id->device, buf->dma, buf->len,
				      DMA_TO_DEVICE);
	xprt->sc_buf[slot] = buf;
	return ib_post_send(ep->id->qp, &wr, NULL);
}

/* One try under the send lock: -EAGAIN when a credit, a buffer or a
 * slot is missing, which a completion or a peer's message will bring.
 */
static int xrdma_try_send(struct xrdma_xprt *xprt, const void *data, u32 len,
			  u32 flags)
{
	struct xrdma_ep *ep = xprt->ep;
	struct xrdma_buf *buf;
	int slot, rc, status;

	if (!ep || ep->draining)
		return -ENOTCONN;
	status = READ_ONCE(ep->status);
	/* The passive side may hear from the peer before ESTABLISHED. */
	if (!status)
		return -EAGAIN;
	if (status != XRDMA_CONNECTED)
		return -ENOTCONN;
	if (sizeof(struct xrdma_hdr) + len > ep->inline_send)
		return -EMSGSIZE;
	if (!xrdma_credits_avail(&xprt->credits))
		return -EAGAIN;
	buf = xrdma_pool_get(&xprt->reqs);
	if (!buf)
		return -EAGAIN;
	slot = xrdma_ring_get(&xprt->ring);
	if (slot < 0) {
		xrdma_pool_put(&xprt->reqs, buf);
		return -EAGAIN;
	}
	xrdma_credits_take(&xprt->credits);
	xrdma_send_fill(xprt, buf, data, len, flags);
	rc = xrdma_send_post(xprt, ep, buf, slot);
	if (rc) {
		xprt->sc_buf[slot] = NULL;
		xrdma_ring_unget(&xprt->ring);
		xrdma_pool_put(&xprt->reqs, buf);
		xprt->credits.sent--;
		xrdma_ep_force_disconnect(ep);
		return rc;
	}
	if (flags & XRDMA_HDR_DATA)
		xprt->info.sent++;
	return 0;
}

static int xrdma_try_send_locked(struct xrdma_xprt *xprt, const void *data,
				 u32 len, u32 flags)
{
	int rc;

	spin_lock(&xprt->send_lock);
	rc = xrdma_try_send(xprt, data, len, flags);
	spin_unlock(&xprt->send_lock);
	return rc;
}

/* The wait condition of xrdma_send(): a try that did not need to wait. */
static bool xrdma_send_tried(struct xrdma_xprt *xprt, const void *data,
			     u32 len, int *rc)
{
	*rc = xrdma_try_send_locked(xprt, data, len, XRDMA_HDR_DATA);
	return *rc != -EAGAIN;
}

/**
 * xrdma_send() - send one message
 * @xprt: the transport
 * @data: the message
 * @len: its length, at most the connection's inline size
 *
 * The message is copied; @data may be reused on return.  Waits for a
 * credit and a send context for at most the transport's timeout.
 *
 * Context: process context, may sleep (also from xrdma_ops.recv).
 * Return: 0 when posted; -ENOTCONN without a connection; -EMSGSIZE for
 * a message larger than the peer takes; -ETIMEDOUT when no credit came;
 * -ERESTARTSYS on a signal; or the error of ib_post_send(), which
 * forces a disconnect.
 */
int xrdma_send(struct xrdma_xprt *xprt, const void *data, u32 len)
{
	long left = msecs_to_jiffies(xprt->opts.timeout_ms) + 1;
	int rc = -EAGAIN;

	if (len > XRDMA_MAX_INLINE)
		return -EMSGSIZE;
	left = wait_event_interruptible_timeout(xprt->send_wait,
						xrdma_send_tried(xprt, data,
								 len, &rc),
						left);
	if (left < 0)
		return left;
	return rc == -EAGAIN ? -ETIMEDOUT : rc;
}
EXPORT_SYMBOL_GPL(xrdma_send);

/**
 * xrdma_send_credit_update() - tell the peer about receives we posted
 * @xprt: the transport
 *
 * For a one-way stream, where the receiver has nothing to send that
 * would carry the count.  Does nothing if no credit or slot is free:
 * the next message carries the count anyway.
 *
 * Context: process context (a receive completion), does not sleep.
 */
void xrdma_send_credit_update(struct xrdma_xprt *xprt)
{
	xrdma_try_send_locked(xprt, NULL, 0, 0);
}
