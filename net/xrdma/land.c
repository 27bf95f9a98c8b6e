// SPDX-License-Identifier: GPL-2.0
/*
 * Landing buffers: a message above the inline size written straight
 * into memory the receiver set aside for it, where a read chunk
 * (chunk.c) has the receiver pull it.  This is xprtrdma's write chunk
 * turned around: the receiver keeps XRDMA_LANDS buffers of
 * XRDMA_MAX_SEND bytes registered for remote WRITE and advertises each
 * in a LAND field of one of its Sends.  A sender that holds such an
 * advertisement posts one RDMA WRITE of the message into it and, in the
 * same chain, a Send whose PUSHED field names the buffer; on RC the
 * Send arrives only after the WRITE's data is in place.  The Send is a
 * SEND_WITH_INV of the buffer's key where both devices allow it, so
 * the key is used once.  The receiver hands the buffer to the user,
 * registers it again with a fresh key and advertises it anew.
 *
 * Against a read chunk this saves the sender's copy and registration
 * (the WRITE's source is the caller's memory, DMA-mapped, which needs
 * it in the kernel's linear map), the receiver's sink and its
 * registration, and the READ's round trip; siw also serves a READ
 * through its slower page-by-page path, where a signalled WRITE is
 * sent in one copy (Documentation/benchmarks.rst).
 *
 * Landing buffers are registered after the first message that did not
 * fit inline, so a transport with small messages only spends nothing
 * on them.  They are kept across connections and registered again on
 * the next one.  A sender with no advertisement in hand, with memory
 * outside the linear map or with XRDMA_LANDS WRITEs in flight sends a
 * chunk instead.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "xrdma.h"

/**
 * xrdma_peer_land_add() - keep a landing buffer the peer advertised
 * @lands: the ones kept, XRDMA_LANDS at most
 * @nr: how many
 * @land: the advertisement
 *
 * A well-behaved peer never has more than XRDMA_LANDS out; one more is
 * dropped (it is only an offer).
 *
 * Context: any; the caller serializes.
 * Return: true if kept.
 */
VISIBLE_IF_KUNIT bool xrdma_peer_land_add(struct xrdma_remote *lands,
					  unsigned int *nr,
					  const struct xrdma_remote *land)
{
	if (*nr >= XRDMA_LANDS)
		return false;
	lands[(*nr)++] = *land;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_peer_land_add);

/**
 * xrdma_peer_land_take() - use up the oldest landing buffer kept
 * @lands: the ones kept
 * @nr: how many
 * @land: set to the one taken
 *
 * The oldest first: its registration had the longest to complete.
 *
 * Context: any; the caller serializes.
 * Return: false when none is kept.
 */
VISIBLE_IF_KUNIT bool xrdma_peer_land_take(struct xrdma_remote *lands,
					   unsigned int *nr,
					   struct xrdma_remote *land)
{
	if (!*nr)
		return false;
	*land = lands[0];
	memmove(&lands[0], &lands[1], --(*nr) * sizeof(*lands));
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_peer_land_take);

/**
 * xrdma_push_source_ok() - can a message be the source of a push?
 * @data: the message
 * @len: its length, at least 1
 *
 * It is DMA-mapped whole, as one scatter entry: it must lie in the
 * kernel's linear map (kmalloc'ed, not vmalloc'ed, not on a stack
 * that is).
 *
 * Context: any.
 * Return: true if it can.
 */
bool xrdma_push_source_ok(const void *data, u32 len)
{
	return virt_addr_valid(data) &&
	       virt_addr_valid((const u8 *)data + len - 1);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_push_source_ok);

/**
 * xrdma_push_ready() - may a push be posted now?
 * @xprt: the transport
 *
 * Context: the send lock held.
 * Return: true when a landing buffer of the peer's is in hand and fewer
 * than XRDMA_LANDS pushes are in flight (the send queue has room for
 * that many WRITEs, xrdma_sq_depth()).
 */
bool xrdma_push_ready(struct xrdma_xprt *xprt)
{
	lockdep_assert_held(&xprt->send_lock);
	return xprt->nr_peer_lands && xprt->pushes_posted < XRDMA_LANDS;
}

static void xrdma_wc_push(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xrdma_push *push = container_of(wc->wr_cqe, struct xrdma_push,
					       wait.cqe);
	struct xrdma_xprt *xprt = xrdma_cq_xprt(cq);

	ib_dma_unmap_single(cq->device, push->dma, push->len, DMA_TO_DEVICE);
	spin_lock(&xprt->send_lock);
	xprt->pushes_posted--;
	if (wc->status == IB_WC_SUCCESS)
		xprt->info.pushes_sent++;
	spin_unlock(&xprt->send_lock);
	xrdma_flush_disconnect(xprt, wc);
	/* The sender's stack: not to be touched after this. */
	xrdma_wr_wait_done(xprt, &push->wait, wc);
}

/**
 * xrdma_push_prep() - map a push and take the landing buffer it goes to
 * @xprt: the transport
 * @ep: its live connection
 * @push: the push; its WRITE is built here
 * @msg: the header of the Send that announces it; gets its PUSHED field
 *
 * Context: the send lock held, xrdma_push_ready() true.
 * Return: 0, or -ENOMEM when the DMA mapping failed.
 */
int xrdma_push_prep(struct xrdma_xprt *xprt, struct xrdma_ep *ep,
		    struct xrdma_push *push, struct xrdma_msg *msg)
{
	struct ib_device *dev = ep->id->device;

	lockdep_assert_held(&xprt->send_lock);
	push->dma = ib_dma_map_single(dev, (void *)push->data, push->len,
				      DMA_TO_DEVICE);
	if (ib_dma_mapping_error(dev, push->dma))
		return -ENOMEM;
	xrdma_peer_land_take(xprt->peer_lands, &xprt->nr_peer_lands,
			     &push->dest);
	push->sge.addr = push->dma;
	push->sge.length = push->len;
	push->sge.lkey = ep->pd->local_dma_lkey;
	memset(&push->wr, 0, sizeof(push->wr));
	push->wr.wr.wr_cqe = &push->wait.cqe;
	push->wr.wr.sg_list = &push->sge;
	push->wr.wr.num_sge = 1;
	push->wr.wr.opcode = IB_WR_RDMA_WRITE;
	/* Signalled: siw sends an unsignalled one page by page. */
	push->wr.wr.send_flags = IB_SEND_SIGNALED;
	push->wr.remote_addr = push->dest.addr;
	push->wr.rkey = push->dest.rkey;
	msg->flags |= XRDMA_HDR_PUSHED;
	msg->pushed.rkey = push->dest.rkey;
	msg->pushed.len = push->len;
	return 0;
}

/**
 * xrdma_push_unprep() - undo xrdma_push_prep() after a failed post
 * @ep: the connection, which the failed post is tearing down (so the
 *	landing buffer taken is not given back)
 * @push: the push
 *
 * Context: the send lock held.
 */
void xrdma_push_unprep(struct xrdma_ep *ep, struct xrdma_push *push)
{
	ib_dma_unmap_single(ep->id->device, push->dma, push->len,
			    DMA_TO_DEVICE);
}

/**
 * xrdma_push_send() - send a message by pushing it into a landing buffer
 * @xprt: the transport
 * @data: the message; read by the device until this returns
 * @len: its length, 1 to XRDMA_MAX_SEND
 * @out: the Send being prepared
 *
 * Posts the WRITE and the Send that announces it in one chain, then
 * waits for the WRITE's completion, so that @data may be reused on
 * return as after any xrdma_send().  The wait is bounded by the
 * connection's life: a drain flushes the WRITE.
 *
 * Context: process context, may sleep.
 * Return: 0 when the message is sent; -ENOENT when it cannot be pushed
 * now (send a chunk instead); -ENOTCONN when the connection went before
 * the WRITE was done, -EIO when the WRITE failed otherwise (the
 * connection is going either way); else the error of xrdma_send_wait().
 */
int xrdma_push_send(struct xrdma_xprt *xprt, const void *data, u32 len,
		    struct xrdma_out *out)
{
	struct xrdma_push push = {
		.data = data,
		.len = len,
	};
	int rc;

	if (!xrdma_push_source_ok(data, len))
		return -ENOENT;
	xrdma_wr_wait_init(&push.wait, xrdma_wc_push);
	/* The payload is in the WRITE, nothing inline. */
	out->data = NULL;
	out->len = 0;
	out->push = &push;
	rc = xrdma_send_wait(xprt, out);
	out->push = NULL;
	if (rc)
		return rc;
	wait_for_completion(&push.wait.done);
	if (push.wait.status == IB_WC_SUCCESS)
		return 0;
	/* Flushed: the connection went with the message. */
	return push.wait.status == IB_WC_WR_FLUSH_ERR ? -ENOTCONN : -EIO;
}

/**
 * xrdma_land_offer() - advertise a landing buffer in a Send, if one waits
 * @xprt: the transport
 * @msg: the Send's header; gets a LAND field
 *
 * Context: the send lock held.
 */
void xrdma_land_offer(struct xrdma_xprt *xprt, struct xrdma_msg *msg)
{
	unsigned int i;

	lockdep_assert_held(&xprt->send_lock);
	for (i = 0; i < XRDMA_LANDS; i++) {
		if (xprt->lands[i].state == XRDMA_LAND_READY) {
			msg->flags |= XRDMA_HDR_LAND;
			msg->land = xprt->lands[i].desc;
			return;
		}
	}
}

/**
 * xrdma_land_offered() - the Send that advertised a landing buffer is
 *	posted
 * @xprt: the transport
 * @rkey: the buffer's key
 *
 * Context: the send lock held.
 */
void xrdma_land_offered(struct xrdma_xprt *xprt, u32 rkey)
{
	unsigned int i;

	lockdep_assert_held(&xprt->send_lock);
	for (i = 0; i < XRDMA_LANDS; i++) {
		if (xprt->lands[i].state == XRDMA_LAND_READY &&
		    xprt->lands[i].desc.rkey == rkey)
			xprt->lands[i].state = XRDMA_LAND_OUT;
	}
}

/**
 * xrdma_land_heard() - the peer advertised a landing buffer
 * @xprt: the transport
 * @land: the advertisement, checked by the header's decoder
 *
 * Context: the send lock held (a sender waiting for one is woken by
 * the caller).
 */
void xrdma_land_heard(struct xrdma_xprt *xprt, const struct xrdma_remote *land)
{
	lockdep_assert_held(&xprt->send_lock);
	xrdma_peer_land_add(xprt->peer_lands, &xprt->nr_peer_lands, land);
}

/* Does this connection advertise landing buffers?  Asked by the
 * receive work, during which the connection stays.
 */
static bool xrdma_land_wanted(struct xrdma_xprt *xprt)
{
	bool wanted;

	spin_lock(&xprt->send_lock);
	wanted = xprt->ep && xprt->ep->land && !xprt->ep->draining;
	spin_unlock(&xprt->send_lock);
	return wanted;
}

static void xrdma_land_set(struct xrdma_xprt *xprt, struct xrdma_land *land,
			   enum xrdma_land_state state)
{
	spin_lock(&xprt->send_lock);
	land->state = state;
	spin_unlock(&xprt->send_lock);
}

/* Register one idle landing buffer with a fresh key; on failure it
 * stays idle (senders send chunks, which need no landing buffer).
 */
static void xrdma_land_register(struct xrdma_xprt *xprt,
				struct xrdma_land *land)
{
	struct xrdma_mr *mr;

	if (!land->buf) {
		land->buf = kvmalloc(XRDMA_MAX_SEND, GFP_KERNEL);
		if (!land->buf)
			return;
	}
	mr = xrdma_mr_register_access(xprt, land->buf, XRDMA_MAX_SEND,
				      IB_ACCESS_LOCAL_WRITE |
				      IB_ACCESS_REMOTE_WRITE, &land->desc);
	if (IS_ERR(mr))
		return;
	land->mr = mr;
	xrdma_land_set(xprt, land, XRDMA_LAND_READY);
}

/**
 * xrdma_land_refill() - register the idle landing buffers
 * @xprt: the transport
 *
 * After each message that did not fit inline, so that landing buffers
 * exist only where such messages travel.  Their advertisements ride on
 * the next Sends.  Here rather than in a work item of its own: a peer
 * that sends while the registration is under way then finds none
 * advertised and falls back to a chunk, which costs more than the wait.
 *
 * Context: the receive CQ's work item; may sleep.
 */
void xrdma_land_refill(struct xrdma_xprt *xprt)
{
	unsigned int i;
	bool idle;

	for (i = 0; i < XRDMA_LANDS; i++) {
		if (!xrdma_land_wanted(xprt))
			return;
		spin_lock(&xprt->send_lock);
		idle = xprt->lands[i].state == XRDMA_LAND_IDLE;
		spin_unlock(&xprt->send_lock);
		if (idle)
			xrdma_land_register(xprt, &xprt->lands[i]);
	}
}

/* The advertised landing buffer with key @rkey, now idle, or NULL. */
static struct xrdma_land *xrdma_land_claim(struct xrdma_xprt *xprt, u32 rkey)
{
	struct xrdma_land *land = NULL;
	unsigned int i;

	spin_lock(&xprt->send_lock);
	for (i = 0; i < XRDMA_LANDS; i++) {
		if (xprt->lands[i].state == XRDMA_LAND_OUT &&
		    xprt->lands[i].desc.rkey == rkey) {
			land = &xprt->lands[i];
			land->state = XRDMA_LAND_IDLE;
			xprt->info.pushes_received++;
			break;
		}
	}
	spin_unlock(&xprt->send_lock);
	return land;
}

/**
 * xrdma_land_recv() - take in a message the peer pushed
 * @xprt: the transport
 * @pushed: the PUSHED field, checked by the header's decoder
 *
 * Releases the landing buffer's registration (no LOCAL_INV if the Send
 * invalidated it), which ends the device's use of it, hands the
 * message to the user, then registers the buffer again.
 *
 * Context: the receive CQ's work item; may sleep.
 * Return: 0, or -EPROTO when no landing buffer of ours was out under
 * that key (the caller forces a disconnect).
 */
int xrdma_land_recv(struct xrdma_xprt *xprt, const struct xrdma_remote *pushed)
{
	struct xrdma_land *land = xrdma_land_claim(xprt, pushed->rkey);

	if (!land)
		return -EPROTO;
	xrdma_mr_release(xprt, land->mr);
	land->mr = NULL;
	xprt->ops->recv(xprt, land->buf, pushed->len);
	xrdma_land_refill(xprt);
	return 0;
}

/**
 * xrdma_lands_reset() - forget the landing buffers of a connection gone
 * @xprt: the transport; its queues are drained and its MRs dead
 *
 * Our registrations are freed (the buffers stay for the next
 * connection) and the peer's advertisements dropped.
 *
 * Context: process context, may sleep; under @xprt->mutex.
 */
void xrdma_lands_reset(struct xrdma_xprt *xprt)
{
	struct xrdma_land *land;
	unsigned int i;

	lockdep_assert_held(&xprt->mutex);
	for (i = 0; i < XRDMA_LANDS; i++) {
		land = &xprt->lands[i];
		if (land->mr)
			xrdma_mr_release(xprt, land->mr);
		land->mr = NULL;
		xrdma_land_set(xprt, land, XRDMA_LAND_IDLE);
	}
	spin_lock(&xprt->send_lock);
	xprt->nr_peer_lands = 0;
	spin_unlock(&xprt->send_lock);
}

/**
 * xrdma_lands_free() - free the landing buffers
 * @xprt: the transport, with no connection left
 *
 * Context: process context.
 */
void xrdma_lands_free(struct xrdma_xprt *xprt)
{
	unsigned int i;

	for (i = 0; i < XRDMA_LANDS; i++) {
		kvfree(xprt->lands[i].buf);
		xprt->lands[i].buf = NULL;
	}
}
