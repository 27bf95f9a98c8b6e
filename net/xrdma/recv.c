// SPDX-License-Identifier: GPL-2.0
/*
 * The receive path: receives are replenished up to the credit grant we
 * make (our queue depth) in one chained post, never while the queue is
 * being drained.  Each message's header updates our view of the peer's
 * grant and the landing buffers it offers; a message with data goes to
 * the user: from the Send (and the user may send it on from there),
 * pulled first if it came as a chunk, or from the landing buffer it was
 * pushed into.  A key the peer invalidated
 * with its Send and a chunk of ours it says it is done with are taken
 * back before that.
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
	bool flushed = wc->status == IB_WC_WR_FLUSH_ERR;

	if (wc->status == IB_WC_SUCCESS)
		return;
	/* A flush is the drain's doing; anything else says why we go. */
	if (!flushed)
		pr_warn_ratelimited("%s: error completion of %ps: %s (vendor error %u)\n",
				    wc->qp->device->name, wc->wr_cqe->done,
				    ib_wc_status_msg(wc->status),
				    wc->vendor_err);
	spin_lock(&xprt->send_lock);
	if (!flushed)
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
		buf->sge.addr = buf->dma + XRDMA_HDR_MAX;
		buf->sge.length = xprt->reps.size - XRDMA_HDR_MAX;
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

/* Chain and post the receives the grant lacks, unless the queue is
 * being drained.
 */
static void xrdma_post_recvs_locked(struct xrdma_xprt *xprt)
{
	const struct ib_recv_wr *bad = NULL;
	struct ib_recv_wr *first;
	struct xrdma_ep *ep = xprt->ep;
	unsigned int n = 0;
	int rc;

	lockdep_assert_held(&xprt->send_lock);
	if (!ep || ep->draining || !ep->id->qp)
		return;
	first = xrdma_recv_chain(xprt, ep->pd->local_dma_lkey,
				 xprt->opts.depth - xprt->rx_posted);
	if (!first)
		return;
	rc = ib_post_recv(ep->id->qp, first, &bad);
	for (; first && first != bad; first = first->next)
		n++;
	if (rc) {
		xrdma_recv_unchain(xprt, bad);
		xrdma_ep_post_failed(ep, rc);
	}
	xprt->rx_posted += n;
	xrdma_credits_posted(&xprt->credits, n);
}

/**
 * xrdma_post_recvs() - replenish the receive queue
 * @xprt: the transport
 *
 * Context: process context (connect, accept); takes the send lock, so
 * a drain that started sees no new receive.
 */
void xrdma_post_recvs(struct xrdma_xprt *xprt)
{
	spin_lock(&xprt->send_lock);
	xrdma_post_recvs_locked(xprt);
	spin_unlock(&xprt->send_lock);
}

/* The header's length (0 when it came as immediate data) or -EPROTO. */
static int xrdma_recv_decode(const struct xrdma_buf *buf,
			     const struct ib_wc *wc, struct xrdma_msg *msg)
{
	if (wc->wc_flags & IB_WC_WITH_IMM)
		return xrdma_hdr_decode_imm(wc->ex.imm_data, wc->byte_len, msg);
	return xrdma_hdr_decode((u8 *)buf->data + buf->off, wc->byte_len,
				msg);
}

/* Take in what the header says and put up the receive's replacement,
 * in one hold of the send lock (each costs a call into lockdep on a
 * debug kernel, for every message); note what a Send of the user's
 * from this message may carry.
 */
static void xrdma_recv_take(struct xrdma_xprt *xprt,
			    const struct xrdma_msg *msg)
{
	spin_lock(&xprt->send_lock);
	xprt->rx_posted--;
	xrdma_credits_grant(&xprt->credits, msg->credits);
	if (msg->flags & XRDMA_HDR_LAND)
		xrdma_land_heard(xprt, &msg->land);
	if (msg->flags & XRDMA_HDR_DATA)
		xprt->info.received++;
	xrdma_post_recvs_locked(xprt);
	/* The credit a DONE owed alone lacked may have come with it. */
	if (unlikely(xprt->done_due))
		xrdma_send_dones(xprt);
	xprt->rx_limit = xrdma_send_limit_locked(xprt);
	spin_unlock(&xprt->send_lock);
	xrdma_wake_senders(xprt);
}

/* A one-way stream needs a credit update now and then.  Read without
 * the send lock: on a connection only this work item raises the count
 * posted, and a Send that announces it meanwhile only makes the count
 * read larger, which costs at worst an update that was not needed.
 */
static void xrdma_recv_credit_check(struct xrdma_xprt *xprt)
{
	u32 unannounced;

	/* Racy on purpose: see above. */
	unannounced = data_race(xrdma_credits_unannounced(&xprt->credits));
	if (unannounced >= max(1U, xprt->opts.depth / 2))
		xrdma_send_credit_update(xprt);
}

/* What the message ends on our side: a key the peer invalidated with
 * it, a chunk of ours it pulled.  The invalidation comes first, so the
 * chunk's release knows it needs no LOCAL_INV.
 */
static int xrdma_recv_ends(struct xrdma_xprt *xprt, const struct ib_wc *wc,
			   const struct xrdma_msg *msg)
{
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		xrdma_frwr_remote_inv(xprt, wc->ex.invalidate_rkey);
	if (msg->flags & XRDMA_HDR_DONE)
		return xrdma_chunk_done(xprt, msg->done);
	return 0;
}

/* An error after the header was taken in (the receive is accounted):
 * the connection cannot go on.  One that is going anyway is no error.
 */
static void xrdma_recv_fail(struct xrdma_xprt *xprt, int rc)
{
	if (rc != -ENOTCONN)
		pr_warn_ratelimited("message not taken: %d\n", rc);
	spin_lock(&xprt->send_lock);
	if (xprt->ep) {
		if (rc != -ENOTCONN)
			xprt->info.errors++;
		xrdma_ep_force_disconnect(xprt->ep);
	}
	spin_unlock(&xprt->send_lock);
}

/* An inline message goes to the user, who may send it on from @buf
 * (xrdma_send_received()).  Returns @buf, or NULL when a Send took it.
 */
static struct xrdma_buf *xrdma_recv_deliver(struct xrdma_xprt *xprt,
					    struct xrdma_buf *buf, int hlen,
					    u32 len)
{
	xprt->rx_buf = buf;
	xprt->rx_msg = (u8 *)buf->data + buf->off + hlen;
	xprt->rx_len = len;
	xprt->ops->recv(xprt, xprt->rx_msg, len);
	buf = xprt->rx_buf;
	xprt->rx_buf = NULL;
	return buf;
}

static void xrdma_wc_receive(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xrdma_buf *buf = container_of(wc->wr_cqe, struct xrdma_buf,
					     cqe);
	struct xrdma_xprt *xprt = xrdma_cq_xprt(cq);
	struct xrdma_msg msg;
	int hlen, rc;

	if (wc->status != IB_WC_SUCCESS)
		goto out_flushed;
	buf->off = XRDMA_HDR_MAX;
	buf->len = wc->byte_len;
	ib_dma_sync_single_for_cpu(cq->device, buf->dma + buf->off,
				   buf->len, DMA_FROM_DEVICE);
	hlen = xrdma_recv_decode(buf, wc, &msg);
	if (hlen < 0) {
		pr_warn_ratelimited("malformed message of %u bytes\n",
				    wc->byte_len);
		goto out_flushed;
	}
	/* The Sends done by now give back their slots and buffers, which
	 * the replacement and the user's answer may need (send_cq.c).
	 */
	xrdma_send_cq_reap(wc->qp->qp_context);
	/* The replacement goes up before the user sees this one. */
	xrdma_recv_take(xprt, &msg);
	rc = xrdma_recv_ends(xprt, wc, &msg);
	if (!rc && (msg.flags & (XRDMA_HDR_CHUNK | XRDMA_HDR_PUSHED))) {
		xrdma_pool_put(&xprt->reps, buf);
		buf = NULL;
		rc = msg.flags & XRDMA_HDR_CHUNK ?
		     xrdma_chunk_recv(xprt, &msg.chunk) :
		     xrdma_land_recv(xprt, &msg.pushed);
	} else if (!rc && (msg.flags & XRDMA_HDR_DATA)) {
		buf = xrdma_recv_deliver(xprt, buf, hlen, msg.len);
	}
	if (buf)
		xrdma_pool_put(&xprt->reps, buf);
	if (rc) {
		xrdma_recv_fail(xprt, rc);
		return;
	}
	if (msg.flags & (XRDMA_HDR_DATA | XRDMA_HDR_DONE))
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
