// SPDX-License-Identifier: GPL-2.0
/*
 * The send path: a message is copied into a request buffer behind room
 * for our header (or the user wrote it there: xrdma_send_buf_get()),
 * the header, which tells the peer how many receives we have posted,
 * goes right before it, and both go out as one SEND from the next slot
 * of the send-context ring.
 * Only every XRDMA_SIGNAL_EVERY-th Send, the one that fills the ring,
 * or one of a page or more is signalled; its completion retires the
 * earlier ones in order.
 * Where both ends have immediate data, a message with nothing but a
 * payload leaves its header there instead (hdr.c).
 * A message above the inline size is pushed into a landing buffer the
 * peer advertised (land.c), by a WRITE chained before the Send that
 * announces it, or else leaves as a chunk (chunk.c): the Send carries
 * only its descriptor.  Any Send carries the DONE we owe the peer for a
 * chunk we pulled and the advertisement of a landing buffer of ours
 * that waits for one, and is a SEND_WITH_INV where both devices allow
 * it: of the landing buffer a push went to, else of the chunk it ends.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <kunit/visibility.h>

#include "xrdma.h"

static void xrdma_sendctx_retire_one(void *arg, unsigned int slot)
{
	struct xrdma_xprt *xprt = arg;
	struct xrdma_buf *buf = xprt->sc_buf[slot];

	xprt->sc_buf[slot] = NULL;
	if (buf)
		xrdma_pool_put(buf->pool, buf);
}

static void xrdma_wc_send(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xrdma_xprt *xprt = xrdma_cq_xprt(cq);
	unsigned int slot = wc->wr_cqe - xprt->sc_cqe;

	/* Only wr_cqe and status are valid in a failed completion. */
	xrdma_ring_retire(&xprt->ring, slot, xrdma_sendctx_retire_one, xprt);
	/* Racy on purpose: the flush looks again under the send lock. */
	if (unlikely(data_race(xprt->done_due))) {
		spin_lock(&xprt->send_lock);
		xrdma_send_dones(xprt);
		spin_unlock(&xprt->send_lock);
	}
	xrdma_wake_senders(xprt);
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
EXPORT_SYMBOL_IF_KUNIT(xrdma_sendctx_create);

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
EXPORT_SYMBOL_IF_KUNIT(xrdma_sendctx_destroy);

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

/**
 * xrdma_send_signal() - should the Send about to be posted be signalled?
 * @xprt: the transport; its ring slot for the Send is taken
 * @len: the Send's bytes
 * @signal_from: the connection's xrdma_ep.signal_from
 *
 * One Send in XRDMA_SIGNAL_EVERY, and always the one that fills the
 * ring: a sender waiting for a slot then has a completion coming.  A
 * Send of @signal_from bytes or more is signalled too (see
 * xrdma_ep_setup_qp()).
 *
 * Context: @xprt's send lock held.
 * Return: true to signal it.
 */
VISIBLE_IF_KUNIT bool xrdma_send_signal(struct xrdma_xprt *xprt, u32 len,
					u32 signal_from)
{
	lockdep_assert_held(&xprt->send_lock);
	return xrdma_signal_next(&xprt->unsignalled, XRDMA_SIGNAL_EVERY,
				 len >= signal_from ||
				 xrdma_ring_in_use(&xprt->ring) >=
				 xprt->ring.size - 1);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_signal);

/* The header (with a pending DONE and a landing buffer to advertise,
 * if any) and the inline payload; or, when the connection carries this
 * header as immediate data (returns true), the payload alone.  @msg
 * comes zeroed, or with the PUSHED field of xrdma_push_prep().  The
 * payload starts at XRDMA_HDR_MAX, or where the buffer given holds it,
 * and the header ends there.
 */
static bool xrdma_send_fill(struct xrdma_xprt *xprt,
			    const struct xrdma_ep *ep, struct xrdma_buf *buf,
			    const struct xrdma_out *out, struct xrdma_msg *msg)
{
	u32 at = out->buf ? out->at : XRDMA_HDR_MAX;
	u8 *payload = (u8 *)buf->data + at;
	u32 hlen = 0;
	bool imm;

	lockdep_assert_held(&xprt->send_lock);
	msg->credits = xrdma_credits_announce(&xprt->credits);
	msg->flags |= out->flags;
	msg->len = out->len;
	msg->chunk = out->chunk;
	if (xprt->ndone) {
		msg->flags |= XRDMA_HDR_DONE;
		msg->done = xprt->dones[0];
	}
	if (ep->land)
		xrdma_land_offer(xprt, msg);
	imm = ep->imm_hdr && !out->inv && xrdma_hdr_imm_ok(msg);
	if (!imm) {
		hlen = xrdma_hdr_size(msg->flags);
		xrdma_hdr_encode(payload - hlen, msg);
	}
	if (out->data && out->len)
		memcpy(payload, out->data, out->len);
	buf->off = at - hlen;
	buf->len = hlen + out->len;
	return imm;
}

/* The key this Send invalidates at the peer, if it may: the caller's,
 * else that of the landing buffer it announces a push into, else that
 * of the chunk it says we are done with.
 */
static bool xrdma_send_inv_key(const struct xrdma_ep *ep,
			       const struct xrdma_out *out,
			       const struct xrdma_msg *msg, u32 *rkey)
{
	if (!ep->remote_inv)
		return false;
	if (out->inv)
		*rkey = out->rkey;
	else if (msg->flags & XRDMA_HDR_PUSHED)
		*rkey = msg->pushed.rkey;
	else if (msg->flags & XRDMA_HDR_DONE)
		*rkey = msg->done;
	else
		return false;
	return true;
}

/* A Send of @buf: invalidating @inv, or with the header @imm, if set;
 * behind the WRITE of @push, if any.
 */
static int xrdma_send_post(struct xrdma_xprt *xprt, struct xrdma_ep *ep,
			   struct xrdma_buf *buf, int slot, const u32 *inv,
			   const __be32 *imm, struct xrdma_push *push)
{
	struct ib_sge sge = {
		.addr = buf->dma + buf->off,
		.length = buf->len,
		.lkey = ep->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &xprt->sc_cqe[slot],
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
	};

	if (inv) {
		wr.opcode = IB_WR_SEND_WITH_INV;
		wr.ex.invalidate_rkey = *inv;
	} else if (imm) {
		wr.opcode = IB_WR_SEND_WITH_IMM;
		wr.ex.imm_data = *imm;
	}
	if (xrdma_send_signal(xprt, buf->len, ep->signal_from))
		wr.send_flags = IB_SEND_SIGNALED;
	ib_dma_sync_single_for_device(ep->id->device, buf->dma,
				      buf->off + buf->len, DMA_TO_DEVICE);
	xprt->sc_buf[slot] = buf;
	if (!push)
		return ib_post_send(ep->id->qp, &wr, NULL);
	push->wr.wr.next = &wr;
	return ib_post_send(ep->id->qp, &push->wr.wr, NULL);
}

/* What a posted Send changed: the DONE it carried is told, the landing
 * buffer it advertised is out, the chunk it advertised waits for the
 * peer, the counters.
 */
static void xrdma_send_posted(struct xrdma_xprt *xprt,
			      const struct xrdma_out *out,
			      const struct xrdma_msg *msg, bool inv, bool imm)
{
	lockdep_assert_held(&xprt->send_lock);
	if (msg->flags & XRDMA_HDR_DONE) {
		xprt->ndone--;
		memmove(xprt->dones, xprt->dones + 1,
			xprt->ndone * sizeof(xprt->dones[0]));
		if (xprt->done_due)
			xprt->done_due--;
	}
	if (msg->flags & XRDMA_HDR_LAND)
		xrdma_land_offered(xprt, msg->land.rkey);
	if (out->push) {
		xprt->pushes_posted++;
		xrdma_wr_wait_posted(xprt, &out->push->wait);
	}
	if (out->slot) {
		out->slot->rkey = out->chunk.rkey;
		out->slot->armed = true;
		xprt->info.chunks_sent++;
	}
	if (inv)
		xprt->info.sends_inv++;
	if (imm)
		xprt->info.sends_imm++;
	if (out->buf && out->buf->pool == &xprt->reps)
		xprt->info.sends_received++;
	if (out->flags & XRDMA_HDR_DATA)
		xprt->info.sent++;
}

/* Give back what a try took for a Send it did not post; a buffer lent
 * to the user stays with the user.
 */
static void xrdma_send_unget(struct xrdma_xprt *xprt,
			     const struct xrdma_out *out, struct xrdma_buf *buf,
			     int slot)
{
	xprt->sc_buf[slot] = NULL;
	xrdma_ring_unget(&xprt->ring);
	if (buf != out->buf)
		xrdma_pool_put(&xprt->reqs, buf);
	xprt->credits.sent--;
}

/* Is the caller the receive CQ's work item of @ep?  A credit comes
 * only in a message of the peer's, which that work item takes in: a
 * wait of its for one could only run out.
 */
static bool xrdma_credit_from_self(const struct xrdma_ep *ep)
{
	return current_work() == &ep->recv_cq.work;
}

/* One try under the send lock: -EAGAIN when a credit, a buffer or a
 * slot is missing, which a completion or a peer's message will bring;
 * -EDEADLK when a credit is missing and only the caller would bring it
 * (xrdma_credit_from_self()); -ENOENT for a push that has no landing
 * buffer to go to.
 */
static int xrdma_try_send(struct xrdma_xprt *xprt, const struct xrdma_out *out)
{
	struct xrdma_msg msg = {};
	struct xrdma_buf *buf;
	struct xrdma_ep *ep;
	bool inv, imm, lent;
	int slot, rc;
	__be32 hdr;
	u32 rkey;

	rc = xrdma_ep_live(xprt, &ep);
	if (rc)
		return rc;
	if (out->len > ep->inline_send - XRDMA_HDR_MAX)
		return -EMSGSIZE;
	if (out->push && !xrdma_push_ready(xprt))
		return -ENOENT;
	if (!xrdma_credits_avail(&xprt->credits))
		return xrdma_credit_from_self(ep) ? -EDEADLK : -EAGAIN;
	slot = xrdma_ring_get(&xprt->ring);
	if (slot < 0)
		return -EAGAIN;
	buf = out->buf ? out->buf : xrdma_pool_get(&xprt->reqs);
	if (!buf) {
		xrdma_ring_unget(&xprt->ring);
		return -EAGAIN;
	}
	xrdma_credits_take(&xprt->credits);
	if (out->push) {
		rc = xrdma_push_prep(xprt, ep, out->push, &msg);
		if (rc) {
			xrdma_send_unget(xprt, out, buf, slot);
			return rc;
		}
	}
	imm = xrdma_send_fill(xprt, ep, buf, out, &msg);
	inv = xrdma_send_inv_key(ep, out, &msg, &rkey);
	hdr = xrdma_hdr_encode_imm(&msg);
	/* Before the post: its completion may put the buffer back.  Only
	 * a request buffer is lent (xrdma_send_buf_get()); a reply buffer
	 * sent on is the receive's.
	 */
	lent = out->buf && buf->pool == &xprt->reqs;
	if (lent)
		xrdma_pool_mark_lent(buf->pool, buf, false);
	rc = xrdma_send_post(xprt, ep, buf, slot, inv ? &rkey : NULL,
			     imm ? &hdr : NULL, out->push);
	if (rc) {
		if (lent)
			xrdma_pool_mark_lent(buf->pool, buf, true);
		if (out->push)
			xrdma_push_unprep(ep, out->push);
		xrdma_send_unget(xprt, out, buf, slot);
		xrdma_ep_post_failed(ep, rc);
		return rc;
	}
	xrdma_send_posted(xprt, out, &msg, inv, imm);
	return 0;
}

static int xrdma_try_send_locked(struct xrdma_xprt *xprt,
				 const struct xrdma_out *out)
{
	int rc;

	spin_lock(&xprt->send_lock);
	rc = xrdma_try_send(xprt, out);
	spin_unlock(&xprt->send_lock);
	return rc;
}

/* The wait condition of xrdma_send_wait(): a try that did not need to
 * wait.  Like every condition on send_wait, it arms the send CQ when it
 * fails (send_cq.c).
 */
static bool xrdma_send_tried(struct xrdma_xprt *xprt,
			     const struct xrdma_out *out, int *rc)
{
	*rc = xrdma_try_send_locked(xprt, out);
	return xrdma_send_cq_ready_or_arm(xprt, *rc != -EAGAIN);
}

/**
 * xrdma_send_wait() - post one Send, waiting for what it needs
 * @xprt: the transport
 * @out: what the Send carries; the payload is copied
 *
 * Waits for a credit, a request buffer and a send context for at most
 * the transport's timeout, but not from xrdma_ops.rdma_done, where the
 * completion that frees one would wait for the caller
 * (xrdma_wait_refused()), and not for a credit from the receive CQ's
 * work item, which alone takes credits in.  A DONE the peer is owed
 * rides along.
 *
 * Context: process context, may sleep; takes the send lock.
 * Return: 0 when posted; -ENOTCONN; -EMSGSIZE for an inline payload
 * larger than the peer takes; -ETIMEDOUT; -ERESTARTSYS on a signal;
 * -EDEADLK from xrdma_ops.rdma_done when it would have to wait, or from
 * the receive CQ's work item when no credit is at hand; or the error of
 * ib_post_send(), which forces a disconnect.
 */
int xrdma_send_wait(struct xrdma_xprt *xprt, struct xrdma_out *out)
{
	long left = msecs_to_jiffies(xprt->opts.timeout_ms) + 1;
	int rc = -EAGAIN;

	if (xrdma_wait_refused(xprt)) {
		rc = xrdma_try_send_locked(xprt, out);
		return rc == -EAGAIN ? -EDEADLK : rc;
	}
	left = wait_event_interruptible_timeout(xprt->send_wait,
						xrdma_send_tried(xprt, out,
								 &rc),
						left);
	if (left < 0)
		return left;
	return rc == -EAGAIN ? -ETIMEDOUT : rc;
}

/**
 * xrdma_send_limit_locked() - the largest Send the peer takes now
 * @xprt: the transport
 *
 * Context: @xprt's send lock held.
 * Return: the size, header room included.
 */
u32 xrdma_send_limit_locked(struct xrdma_xprt *xprt)
{
	lockdep_assert_held(&xprt->send_lock);
	return xprt->ep ? xprt->ep->inline_send :
			  xprt->opts.inline_size + XRDMA_HDR_MAX;
}

static u32 xrdma_send_limit(struct xrdma_xprt *xprt)
{
	u32 limit;

	spin_lock(&xprt->send_lock);
	limit = xrdma_send_limit_locked(xprt);
	spin_unlock(&xprt->send_lock);
	return limit;
}

static int xrdma_send_msg(struct xrdma_xprt *xprt, const void *data,
			  u32 len, bool inv, u32 rkey)
{
	struct xrdma_out out = {
		.data = data,
		.len = len,
		.flags = XRDMA_HDR_DATA,
		.inv = inv,
		.rkey = rkey,
	};
	int rc;

	if (len > XRDMA_MAX_SEND)
		return -EMSGSIZE;
	/* Inline unless the peer takes less: the try tells (-EMSGSIZE),
	 * under the send lock it takes anyway.
	 */
	if (len <= xprt->opts.inline_size) {
		rc = xrdma_send_wait(xprt, &out);
		if (rc != -EMSGSIZE)
			return rc;
	}
	/* A push and a chunk each wait for a WR of their own. */
	rc = xrdma_wait_refused(xprt);
	if (rc)
		return rc;
	rc = xrdma_push_send(xprt, data, len, &out);
	if (rc != -ENOENT)
		return rc;
	return xrdma_chunk_send(xprt, data, len, &out);
}

/**
 * xrdma_send() - send one message
 * @xprt: the transport
 * @data: the message
 * @len: its length, at most XRDMA_MAX_SEND
 *
 * @data may be reused on return.  Within the connection's inline size
 * the message is copied into one Send.  Above, it is written straight
 * into a landing buffer the peer advertised, if one is in hand and
 * @data is in the kernel's linear map (kmalloc'ed; this then returns
 * once the device has read it), or else copied into a chunk the peer
 * pulls; xrdma_ops.recv there sees the whole message all the same.
 * Waits for a credit and a send context (a chunk: also for a chunk
 * slot and its registration) for at most the transport's timeout
 * each.
 *
 * From xrdma_ops.rdma_done, which must not wait for the send CQ, only
 * a message within the inline size goes, and only if a credit and a
 * send context are at hand.
 *
 * Context: process context, may sleep (also from xrdma_ops.recv).
 * Return: 0 when posted; -ENOTCONN without a connection; -EMSGSIZE
 * above XRDMA_MAX_SEND; -ETIMEDOUT when no credit or slot came;
 * -ERESTARTSYS on a signal; -EDEADLK from xrdma_ops.rdma_done when it
 * would have to wait, or from xrdma_ops.recv when no credit is at hand
 * (only the receive work that runs it takes credits in); -ENOMEM; the
 * error of the registration;
 * -ENOTCONN also when the connection went before a push's WRITE was
 * done, -EIO when the WRITE failed otherwise; or the error of
 * ib_post_send(), which forces a disconnect.
 */
int xrdma_send(struct xrdma_xprt *xprt, const void *data, u32 len)
{
	return xrdma_send_msg(xprt, data, len, false, 0);
}
EXPORT_SYMBOL_GPL(xrdma_send);

/**
 * xrdma_send_inv() - send one message that ends the use of a peer's key
 * @xprt: the transport
 * @data: the message
 * @len: its length, at most XRDMA_MAX_SEND
 * @rkey: a key the peer advertised and we will not use again
 *
 * As xrdma_send(); when both devices allow it the Send invalidates
 * @rkey at the peer (IB_WR_SEND_WITH_INV), so the peer's release of
 * that registration needs no LOCAL_INV.  Otherwise a plain Send, and
 * the peer invalidates the key itself when it releases it.
 *
 * Context: process context, may sleep (also from xrdma_ops.recv).
 * Return: as xrdma_send().
 */
int xrdma_send_inv(struct xrdma_xprt *xprt, const void *data, u32 len,
		   u32 rkey)
{
	return xrdma_send_msg(xprt, data, len, true, rkey);
}
EXPORT_SYMBOL_GPL(xrdma_send_inv);

static bool xrdma_send_buf_lent(struct xrdma_xprt *xprt,
				struct xrdma_buf **bufp)
{
	*bufp = xrdma_pool_lend(&xprt->reqs);
	return xrdma_send_cq_ready_or_arm(xprt, *bufp);
}

/* Hand @buf to the user: where the message is to be written in it. */
static void *xrdma_send_buf_at(struct xrdma_buf *buf, struct xrdma_buf **bufp)
{
	*bufp = buf;
	return (u8 *)buf->data + XRDMA_HDR_MAX;
}

/**
 * xrdma_send_buf_get() - a request buffer to write a message in
 * @xprt: the transport
 * @len: the most bytes the message will have, within the inline size
 * @bufp: set to the buffer, for xrdma_send_buf_post() or
 *	xrdma_send_buf_put()
 *
 * The zero-copy way to send a message that goes inline: the caller
 * writes it where the Send will carry it from, behind room for the
 * header, instead of xrdma_send() copying it there.  Waits for a free
 * request buffer for at most the transport's timeout, but not from
 * xrdma_ops.rdma_done (xrdma_wait_refused()).  The buffer is
 * the caller's until it is posted or put back, also across a lost
 * connection; it must go back before xrdma_xprt_destroy().
 *
 * Context: process context, may sleep (also from xrdma_ops.recv).
 * Return: where to write the message (@len bytes, 8-byte aligned);
 * ERR_PTR(-EMSGSIZE) above the inline size of the connection (of the
 * options without one), ERR_PTR(-ETIMEDOUT), ERR_PTR(-ERESTARTSYS),
 * ERR_PTR(-EDEADLK) from xrdma_ops.rdma_done when none is free.
 */
void *xrdma_send_buf_get(struct xrdma_xprt *xprt, u32 len,
			 struct xrdma_buf **bufp)
{
	long left = msecs_to_jiffies(xprt->opts.timeout_ms) + 1;
	struct xrdma_buf *buf = NULL;

	if (xrdma_send_chunked(len, xrdma_send_limit(xprt)))
		return ERR_PTR(-EMSGSIZE);
	if (xrdma_wait_refused(xprt)) {
		buf = xrdma_pool_lend(&xprt->reqs);
		return buf ? xrdma_send_buf_at(buf, bufp) : ERR_PTR(-EDEADLK);
	}
	left = wait_event_interruptible_timeout(xprt->send_wait,
						xrdma_send_buf_lent(xprt, &buf),
						left);
	if (left < 0)
		return ERR_PTR(left);
	if (!buf)
		return ERR_PTR(-ETIMEDOUT);
	return xrdma_send_buf_at(buf, bufp);
}
EXPORT_SYMBOL_GPL(xrdma_send_buf_get);

/**
 * xrdma_send_buf_put() - give back a request buffer not sent
 * @xprt: the transport the buffer came from
 * @buf: the buffer, from xrdma_send_buf_get()
 *
 * Context: any; does not sleep.
 */
void xrdma_send_buf_put(struct xrdma_xprt *xprt, struct xrdma_buf *buf)
{
	xrdma_pool_put(&xprt->reqs, buf);
	xrdma_wake_senders(xprt);
}
EXPORT_SYMBOL_GPL(xrdma_send_buf_put);

/**
 * xrdma_send_buf_post() - send the message written in a request buffer
 * @xprt: the transport the buffer came from
 * @buf: the buffer, from xrdma_send_buf_get()
 * @len: the message's length
 *
 * As xrdma_send() of the @len bytes written at the address
 * xrdma_send_buf_get() returned, without copying them.  The buffer is
 * the transport's again on return, posted or not.
 *
 * Context: process context, may sleep (also from xrdma_ops.recv).
 * Return: 0 when posted; -ENOTCONN without a connection; -EMSGSIZE
 * above the connection's inline size; -ETIMEDOUT when no credit or slot
 * came; -ERESTARTSYS on a signal; -EDEADLK from xrdma_ops.rdma_done when
 * it would have to wait; or the error of ib_post_send(), which forces a
 * disconnect.
 */
int xrdma_send_buf_post(struct xrdma_xprt *xprt, struct xrdma_buf *buf,
			u32 len)
{
	struct xrdma_out out = {
		.len = len,
		.flags = XRDMA_HDR_DATA,
		.buf = buf,
		.at = XRDMA_HDR_MAX,
	};
	int rc;

	rc = xrdma_send_wait(xprt, &out);
	if (rc)
		xrdma_send_buf_put(xprt, buf);
	return rc;
}
EXPORT_SYMBOL_GPL(xrdma_send_buf_post);

/**
 * xrdma_send_from_rx() - may bytes leave from the reply buffer they are in?
 * @xprt: the transport
 * @buf: @xprt->rx_buf, the reply buffer being handled, or NULL
 * @data: the bytes
 * @len: how many
 *
 * They must be the start of the message being handled and within the
 * inline size of the connection, and a spare reply buffer must be left
 * for the next receive's replacement while this one is out.
 *
 * Context: the receive CQ's work item (xrdma_ops.recv).
 * Return: true to send them from @buf.
 */
VISIBLE_IF_KUNIT bool xrdma_send_from_rx(struct xrdma_xprt *xprt,
					 const struct xrdma_buf *buf,
					 const void *data, u32 len)
{
	if (!buf || data != xprt->rx_msg || len > xprt->rx_len)
		return false;
	return xrdma_pool_nfree(&xprt->reps) &&
	       !xrdma_send_chunked(len, xprt->rx_limit);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_from_rx);

/**
 * xrdma_send_received() - send on bytes of the message being received
 * @xprt: the transport
 * @data: the message xrdma_ops.recv is handling, as it was given
 * @len: how many of its bytes to send, from the first
 *
 * The zero-copy way to send back or forward what arrived: the bytes
 * leave from the receive buffer they arrived in, which the Send keeps
 * until it completes; the header is written in place before them.
 * Anything else (other memory, more than the connection's inline size,
 * a moment when no spare receive buffer is left) is sent as by
 * xrdma_send().  Either way @data stays readable, unchanged, until the
 * callback returns.
 *
 * Context: xrdma_ops.recv of @xprt; may sleep.
 * Return: as xrdma_send().
 */
int xrdma_send_received(struct xrdma_xprt *xprt, const void *data, u32 len)
{
	struct xrdma_buf *buf = xprt->rx_buf;
	struct xrdma_out out = {
		.len = len,
		.flags = XRDMA_HDR_DATA,
		.buf = buf,
	};
	int rc;

	if (!xrdma_send_from_rx(xprt, buf, data, len))
		return xrdma_send(xprt, data, len);
	out.at = (const u8 *)data - (u8 *)buf->data;
	rc = xrdma_send_wait(xprt, &out);
	if (!rc)
		xprt->rx_buf = NULL;	/* the Send's until it completes */
	return rc;
}
EXPORT_SYMBOL_GPL(xrdma_send_received);

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
	struct xrdma_out out = {};

	xrdma_try_send_locked(xprt, &out);
}

/**
 * xrdma_done_owe() - note a chunk of the peer's that we pulled
 * @xprt: the transport
 * @rkey: the chunk's key, for the DONE that tells the peer
 *
 * The next Send of ours carries the DONE, or xrdma_send_done() sends it
 * alone after the receive callback.
 *
 * Context: the receive CQ's work item; takes the send lock.
 * Return: 0, or -EPROTO when the peer had more chunks out than it may.
 */
int xrdma_done_owe(struct xrdma_xprt *xprt, u32 rkey)
{
	int rc = -EPROTO;

	spin_lock(&xprt->send_lock);
	if (xprt->ndone < ARRAY_SIZE(xprt->dones)) {
		xprt->dones[xprt->ndone++] = rkey;
		rc = 0;
	}
	spin_unlock(&xprt->send_lock);
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_done_owe);

/**
 * xrdma_send_dones() - send the DONEs owed alone, while it can
 * @xprt: the transport
 *
 * One Send each, never waiting.  Called when what they lacked may have
 * come: a credit (a message taken in), a slot or a buffer (a Send's
 * completion).
 *
 * Context: @xprt's send lock held; does not sleep.
 * Return: 0 when none is left; -EAGAIN when a credit, a slot or a
 * buffer is missing (-EDEADLK for a credit, in the receive CQ's work
 * item); else the error of the Send.
 */
int xrdma_send_dones(struct xrdma_xprt *xprt)
{
	struct xrdma_out out = {};
	int rc = 0;

	lockdep_assert_held(&xprt->send_lock);
	while (xprt->done_due && !rc)
		rc = xrdma_try_send(xprt, &out);
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_dones);

/**
 * xrdma_send_done() - tell the peer we pulled its chunks
 * @xprt: the transport
 *
 * After the receive callback that saw a chunked message: the DONEs no
 * Send of the callback carried go now, alone, with SEND_WITH_INV of the
 * chunk's key where the devices allow it.  This does not wait: the
 * credit a DONE may lack comes in a message of the peer's, which only
 * this work item takes in, and the slot or buffer in a Send's
 * completion.  A DONE left owed goes with the next Send of ours, or
 * alone once the next message is taken in (xrdma_recv_take()) or a
 * Send completes; the send CQ stays armed for that meanwhile
 * (xrdma_send_cq_wanted()).
 *
 * Context: the receive CQ's work item; does not sleep.
 * Return: 0 when the peer is told or will be, else the error of the
 * Send.
 */
int xrdma_send_done(struct xrdma_xprt *xprt)
{
	int rc;

	spin_lock(&xprt->send_lock);
	xprt->done_due = xprt->ndone;
	rc = xrdma_send_dones(xprt);
	spin_unlock(&xprt->send_lock);
	if (rc != -EAGAIN && rc != -EDEADLK)
		return rc;
	xrdma_send_cq_ready_or_arm(xprt, false);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_done);
