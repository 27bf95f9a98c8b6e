// SPDX-License-Identifier: GPL-2.0
/*
 * The receive path: receives are replenished up to the credit grant we
 * make (our queue depth) in one chained post, never while the queue is
 * being drained.  Each message's header updates our view of the peer's
 * grant; a message with data goes to the user.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "xrdma.h"

/**
 * xrdma_flush_disconnect() - force a disconnect on an error completion
 * @xprt: the transport the completion is for
 * @wc: the completion
 *
 * Context: a CQ's work item.
 */
void xrdma_flush_disconnect(struct xrdma_xprt *xprt, const struct ib_wc *wc)
{
	if (wc->status == IB_WC_SUCCESS)
		return;
	spin_lock(&xprt->send_lock);
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		xprt->info.errors++;
	if (xprt->ep)
		xrdma_ep_force_disconnect(xprt->ep);
	spin_unlock(&xprt->send_lock);
}

static void xrdma_wc_receive(struct ib_cq *cq, struct ib_wc *wc);

/* Chain up to @want free reply buffers; returns the first WR. */
static struct ib_recv_wr *xrdma_recv_chain(struct xrdma_xprt *xprt,
					   u32 lkey, unsigned int want)
{
	struct ib_recv_wr *first = NULL, **link = &first;
	struct xrdma_buf *buf;

	while (want--) {
		buf = xrdma_pool_get(&xprt->reps);
		if (!buf)
			break;
		buf->cqe.done = xrdma_wc_receive;
		buf->sge.addr = buf->dma;
		buf->sge.length = xprt->reps.size;
		buf->sge.lkey = lkey;
		buf->rwr.wr_cqe = &buf->cqe;
		buf->rwr.sg_list = &buf->sge;
		buf->rwr.num_sge = 1;
		buf->rwr.next = NULL;
		*link = &buf->rwr;
		link = &buf->rwr.next;
	}
	return first;
}

/* Give back the WRs of a failed post, from the first not posted. */
static unsigned int xrdma_recv_unchain(struct xrdma_xprt *xprt,
				       const struct ib_recv_wr *wr)
{
	struct xrdma_buf *buf;
	unsigned int n = 0;

	while (wr) {
		buf = container_of(wr, struct xrdma_buf, rwr);
		wr = wr->next;
		xrdma_pool_put(&xprt->reps, buf);
		n++;
	}
	return n;
}

/**
 * xrdma_post_recvs() - replenish the receive queue
 * @xprt: the transport
 *
 * Context: process context (connect, accept, a receive completion);
 * takes the send lock, so a drain that started sees no new receive.
 */
void xrdma_post_recvs(struct xrdma_xprt *xprt)
{
	const struct ib_recv_wr *bad = NULL;
	struct ib_recv_wr *first;
	struct xrdma_ep *ep;
	unsigned int n = 0;
	int rc;

	spin_lock(&xprt->send_lock);
	ep = xprt->ep;
	if (!ep || ep->draining || !ep->id->qp)
		goto out;
	first = xrdma_recv_chain(xprt, ep->pd->local_dma_lkey,
				 xprt->opts.depth - xprt->rx_posted);
	if (!first)
		goto out;
	rc = ib_post_recv(ep->id->qp, first, &bad);
	for (; first && first != bad; first = first->next)
		n++;
	if (rc) {
		xrdma_recv_unchain(xprt, bad);
		xrdma_ep_force_disconnect(ep);
	}
	xprt->rx_posted += n;
	xrdma_credits_posted(&xprt->credits, n);
out:
	spin_unlock(&xprt->send_lock);
}

/* Take in the header's count; returns the payload length or -EPROTO. */
static int xrdma_recv_header(struct xrdma_xprt *xprt, struct xrdma_buf *buf,
			     u32 byte_len, u32 *flags)
{
	const struct xrdma_hdr *hdr = buf->data;
	u32 len;

	if (byte_len < sizeof(*hdr))
		return -EPROTO;
	len = be32_to_cpu(hdr->len);
	if (len > byte_len - sizeof(*hdr))
		return -EPROTO;
	*flags = be32_to_cpu(hdr->flags);
	spin_lock(&xprt->send_lock);
	xprt->rx_posted--;
	xrdma_credits_grant(&xprt->credits, be32_to_cpu(hdr->credits));
	if (*flags & XRDMA_HDR_DATA)
		xprt->info.received++;
	spin_unlock(&xprt->send_lock);
	wake_up(&xprt->send_wait);
	return len;
}

/* A one-way stream needs a credit update now and then. */
static void xrdma_recv_credit_check(struct xrdma_xprt *xprt)
{
	u32 unannounced;

	spin_lock(&xprt->send_lock);
	unannounced = xrdma_credits_unannounced(&xprt->credits);
	spin_unlock(&xprt->send_lock);
	if (unannounced >= max(1U, xprt->opts.depth / 2))
		xrdma_send_credit_update(xprt);
}

static void xrdma_wc_receive(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xrdma_buf *buf = container_of(wc->wr_cqe, struct xrdma_buf,
					     cqe);
	struct xrdma_xprt *xprt = cq->cq_context;
	u32 flags = 0;
	int len;

	if (wc->status != IB_WC_SUCCESS)
		goto out_flushed;
	ib_dma_sync_single_for_cpu(cq->device, buf->dma, wc->byte_len,
				   DMA_FROM_DEVICE);
	len = xrdma_recv_header(xprt, buf, wc->byte_len, &flags);
	if (len < 0) {
		pr_warn_ratelimited("malformed message of %u bytes\n",
				    wc->byte_len);
		goto out_flushed;
	}
	/* The replacement goes up before the user sees this one. */
	xrdma_post_recvs(xprt);
	if (flags & XRDMA_HDR_DATA)
		xprt->ops->recv(xprt, (struct xrdma_hdr *)buf->data + 1, len);
	xrdma_pool_put(&xprt->reps, buf);
	if (flags & XRDMA_HDR_DATA)
		xrdma_recv_credit_check(xprt);
	return;

out_flushed:
	spin_lock(&xprt->send_lock);
	xprt->rx_posted--;
	/* A malformed message is as fatal as an error completion. */
	if (xprt->ep && wc->status == IB_WC_SUCCESS) {
		xprt->info.errors++;
		xrdma_ep_force_disconnect(xprt->ep);
	}
	spin_unlock(&xprt->send_lock);
	xrdma_pool_put(&xprt->reps, buf);
	xrdma_flush_disconnect(xprt, wc);
}
