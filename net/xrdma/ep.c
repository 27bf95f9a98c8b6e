// SPDX-License-Identifier: GPL-2.0
/*
 * Endpoints and their CM event handler.
 *
 * An endpoint is one connection.  Its kref counts the owner (the
 * transport that created it) and, while the connection is up, the
 * reference ESTABLISHED takes.  Whoever drops the last reference
 * releases the QP, CQs and PD, and the id goes exactly once: the
 * event handler returns 1 so the CM destroys it, anyone else calls
 * rdma_destroy_id() itself.  The handler never destroys its own id.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "xrdma.h"

/**
 * xrdma_ep_alloc() - a new endpoint with the owner's reference
 * @xprt: the transport that will own it
 *
 * The endpoint holds a module reference: its id's handler is our code
 * and may outlive the owner until DISCONNECTED arrives.
 *
 * Context: process context, may sleep.
 * Return: the endpoint, or NULL when out of memory.
 */
struct xrdma_ep *xrdma_ep_alloc(struct xrdma_xprt *xprt)
{
	struct xrdma_ep *ep;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return NULL;
	kref_init(&ep->ref);
	spin_lock_init(&ep->lock);
	init_completion(&ep->done);
	init_waitqueue_head(&ep->wait);
	ep->xprt = xprt;
	ep->async_rc = -ETIMEDOUT;
	ep->inline_send = xprt->opts.inline_size + XRDMA_HDR_MAX;
	ep->inline_recv = ep->inline_send;
	__module_get(THIS_MODULE);
	return ep;
}

static void xrdma_ep_release(struct kref *ref)
{
	xrdma_ep_release_qp(container_of(ref, struct xrdma_ep, ref));
}

/**
 * xrdma_ep_put() - drop a reference
 * @ep: the endpoint
 *
 * The last reference releases the QP, CQs and PD.  The caller then
 * owes the id its destruction (rdma_destroy_id() or a handler's 1)
 * and the endpoint its xrdma_ep_free(), after that.
 *
 * Context: process context, may sleep.
 * Return: true if that was the last reference.
 */
bool xrdma_ep_put(struct xrdma_ep *ep)
{
	return kref_put(&ep->ref, xrdma_ep_release);
}

/**
 * xrdma_ep_free() - free an endpoint whose last reference is gone
 * @ep: the endpoint
 *
 * Context: process context; the id is destroyed, or is about to be by
 * the CM with no further event.
 */
void xrdma_ep_free(struct xrdma_ep *ep)
{
	kfree(ep);
	module_put(THIS_MODULE);
}

/**
 * xrdma_ep_force_disconnect() - have the owner tear the connection down
 * @ep: the endpoint
 *
 * Only the first call per connection does anything, so any number of
 * error completions force exactly one disconnect.  An endpoint its
 * owner already let go of has nobody to tell.
 *
 * Context: any; takes @ep->lock.
 */
void xrdma_ep_force_disconnect(struct xrdma_ep *ep)
{
	if (test_and_set_bit(0, &ep->flushed))
		return;
	pr_debug("%pISpc: disconnect forced by %pS\n",
		 &ep->id->route.addr.dst_addr, __builtin_return_address(0));
	spin_lock(&ep->lock);
	if (ep->xprt)
		queue_work(xrdma_wq, &ep->xprt->disconnect_work);
	spin_unlock(&ep->lock);
}

/**
 * xrdma_ep_post_failed() - the device refused a post: the connection ends
 * @ep: the endpoint
 * @rc: what ib_post_send() or ib_post_recv() returned
 *
 * The queues are sized so that a post never finds them full; a refusal
 * means the QP left RTS under us, and says so once.
 *
 * Context: any; takes @ep->lock.
 */
void xrdma_ep_post_failed(struct xrdma_ep *ep, int rc)
{
	pr_warn_ratelimited("%pISpc: post refused by %pS: %d\n",
			    &ep->id->route.addr.dst_addr,
			    __builtin_return_address(0), rc);
	xrdma_ep_force_disconnect(ep);
}

/* Does our device send and take SEND_WITH_INV?  The id's device is
 * known once the address is resolved or the request arrived.
 */
static bool xrdma_ep_can_inv(struct xrdma_ep *ep)
{
	struct ib_device *dev = ep->id ? ep->id->device : NULL;

	return dev && (dev->attrs.device_cap_flags &
		       IB_DEVICE_MEM_MGT_EXTENSIONS);
}

/* Immediate data is InfiniBand's and RoCE's; iWARP has none. */
static bool xrdma_ep_can_imm(struct xrdma_ep *ep)
{
	struct ib_device *dev = ep->id ? ep->id->device : NULL;

	return dev && !rdma_protocol_iwarp(dev, ep->id->port_num);
}

/**
 * xrdma_ep_fill_private() - our private data for connect or accept
 * @ep: the endpoint
 * @pd: filled in
 *
 * Context: any.
 */
void xrdma_ep_fill_private(struct xrdma_ep *ep, struct xrdma_cm_private *pd)
{
	memset(pd, 0, sizeof(*pd));
	pd->magic = cpu_to_be32(XRDMA_CM_MAGIC);
	pd->version = XRDMA_CM_VERSION;
	if (xrdma_ep_can_inv(ep))
		pd->flags |= XRDMA_CM_F_REMOTE_INV;
	if (xrdma_ep_can_imm(ep))
		pd->flags |= XRDMA_CM_F_IMM_HDR;
	pd->flags |= XRDMA_CM_F_LAND;
	pd->inline_send = cpu_to_be32(ep->inline_send);
	pd->inline_recv = cpu_to_be32(ep->inline_recv);
}

/* Note what the peer's private data says; a peer that sent none valid
 * gets only minimum-sized messages and no option.
 */
static void xrdma_ep_read_private(struct xrdma_ep *ep,
				  const struct rdma_conn_param *param)
{
	const struct xrdma_cm_private *pd = param->private_data;

	ep->peer_recv = XRDMA_MIN_INLINE + XRDMA_HDR_MAX;
	ep->peer_flags = 0;
	if (pd && param->private_data_len >= sizeof(*pd) &&
	    be32_to_cpu(pd->magic) == XRDMA_CM_MAGIC &&
	    pd->version == XRDMA_CM_VERSION) {
		ep->peer_recv = be32_to_cpu(pd->inline_recv);
		ep->peer_flags = pd->flags;
	}
}

/* Adopt what xrdma_ep_read_private() noted. */
static void xrdma_ep_adopt_private(struct xrdma_ep *ep)
{
	u8 flags = ep->peer_flags;

	if (ep->peer_recv < ep->inline_send)
		ep->inline_send = max_t(u32, ep->peer_recv, XRDMA_HDR_MAX);
	ep->remote_inv = xrdma_ep_can_inv(ep) &&
			 (flags & XRDMA_CM_F_REMOTE_INV);
	ep->imm_hdr = xrdma_ep_can_imm(ep) && (flags & XRDMA_CM_F_IMM_HDR);
	ep->land = flags & XRDMA_CM_F_LAND;
}

/**
 * xrdma_ep_update_private() - adopt the peer's inline sizes and flags
 * @ep: the endpoint, accepted: nobody sends on it before its
 *	ESTABLISHED
 * @param: the connection parameters of its connect request
 *
 * We never send more than the peer can receive.  A peer that sent no
 * valid private data gets only minimum-sized messages.  We send
 * SEND_WITH_INV only when both devices do memory management extensions
 * (the peer's says so in its flags), headers as immediate data only
 * when both ends have it, and advertise landing buffers only to a peer
 * that pushes into them.  The active side adopts them in
 * xrdma_ep_publish().
 *
 * Context: under the id's handler mutex.
 */
void xrdma_ep_update_private(struct xrdma_ep *ep,
			     const struct rdma_conn_param *param)
{
	xrdma_ep_read_private(ep, param);
	xrdma_ep_adopt_private(ep);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_ep_update_private);

/**
 * xrdma_ep_publish() - make an established active connection live
 * @xprt: the transport, connecting
 * @ep: its connection, which ESTABLISHED left XRDMA_ESTABLISHED
 *
 * Senders read the status under the send lock and then use the inline
 * size and flags: they must not find the connection live with the
 * local ones.  The ESTABLISHED handler cannot take the send lock (it
 * reaches the transport only under @ep->lock, which nests inside it),
 * so, as xprtrdma's connect worker sets its transport connected once
 * its CM handler saw ESTABLISHED, the connecting thread adopts the
 * peer's sizes and flags here and publishes XRDMA_CONNECTED in the same
 * hold of the send lock.
 *
 * Context: process context, under @xprt->mutex (the connect).
 * Return: 0 when live, else the negative status that ended the
 * connection first.
 */
int xrdma_ep_publish(struct xrdma_xprt *xprt, struct xrdma_ep *ep)
{
	int status;

	lockdep_assert_held(&xprt->mutex);
	spin_lock(&xprt->send_lock);
	/* Ordered after the handler's notes, which came before its own
	 * cmpxchg to XRDMA_ESTABLISHED.
	 */
	status = cmpxchg(&ep->status, XRDMA_ESTABLISHED, XRDMA_CONNECTED);
	if (status == XRDMA_ESTABLISHED)
		xrdma_ep_adopt_private(ep);
	spin_unlock(&xprt->send_lock);
	if (status != XRDMA_ESTABLISHED)
		return status;
	wake_up_all(&xprt->send_wait);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_ep_publish);

/* The connection is gone (DISCONNECTED, DEVICE_REMOVAL, ADDR_CHANGE):
 * whoever moves the status away from ESTABLISHED or CONNECTED drops the
 * ESTABLISHED reference, exactly once.  A connect still waiting is
 * woken instead.
 */
static int xrdma_ep_lost(struct xrdma_ep *ep, int status)
{
	int old = xchg(&ep->status, status);

	if (old != XRDMA_CONNECTED && old != XRDMA_ESTABLISHED) {
		if (old)
			return 0;
		wake_up_all(&ep->wait);
		/* Accepted and not yet established: nobody waits to tear
		 * it down, and a device waits for its id to go.
		 */
		if (ep->passive)
			xrdma_ep_force_disconnect(ep);
		return 0;
	}
	/* Not published yet: the connect fails and tears it down itself. */
	if (old == XRDMA_CONNECTED)
		xrdma_ep_force_disconnect(ep);
	if (!xrdma_ep_put(ep))
		return 0;
	xrdma_ep_free(ep);
	return 1;
}

/* A connect attempt failed: fail the waiter, unless it gave up already.
 * An accepted connection has no waiter: its transport must go.
 */
static int xrdma_ep_failed(struct xrdma_ep *ep, int status)
{
	if (cmpxchg(&ep->status, 0, status))
		return 0;
	wake_up_all(&ep->wait);
	if (ep->passive)
		xrdma_ep_force_disconnect(ep);
	return 0;
}

/* The passive side took the peer's sizes and flags from the connect
 * request and is live at once; the active side notes them here and
 * its connecting thread publishes it (xrdma_ep_publish()).
 */
static int xrdma_ep_established(struct xrdma_ep *ep,
				const struct rdma_conn_param *param)
{
	/* The owner may have given up and dropped its reference. */
	if (!kref_get_unless_zero(&ep->ref))
		return 0;
	if (!ep->passive)
		xrdma_ep_read_private(ep, param);
	if (cmpxchg(&ep->status, 0, ep->passive ? XRDMA_CONNECTED :
						 XRDMA_ESTABLISHED)) {
		if (!xrdma_ep_put(ep))
			return 0;
		xrdma_ep_free(ep);
		return 1;
	}
	ep->was_connected = true;
	wake_up_all(&ep->wait);
	/* An accepted connection may already have a reply waiting. */
	spin_lock(&ep->lock);
	if (ep->xprt)
		wake_up_all(&ep->xprt->send_wait);
	spin_unlock(&ep->lock);
	return 0;
}

static int xrdma_ep_resolved(struct xrdma_ep *ep, int rc)
{
	ep->async_rc = rc;
	complete(&ep->done);
	return 0;
}

/**
 * xrdma_cm_event_handler() - handle a CM event of a connection's id
 * @id: the id the event is for; its context is our endpoint
 * @ev: the event
 *
 * Called by the CM with @id's handler mutex held, in process context;
 * it may sleep.  Every event type is handled: resolution results wake
 * the connecting thread, connect failures fail it, ESTABLISHED takes a
 * reference, and the end of a connection forces one disconnect and
 * drops that reference.
 *
 * Return: 1 if the caller should destroy @id (this dropped the last
 * reference and freed the endpoint), otherwise 0.
 */
int xrdma_cm_event_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct xrdma_ep *ep = id->context;

	might_sleep();
	pr_debug("%pISpc: %s, status %d\n", &id->route.addr.dst_addr,
		 rdma_event_msg(ev->event), ev->status);
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		return xrdma_ep_resolved(ep, 0);
	case RDMA_CM_EVENT_ADDR_ERROR:
		return xrdma_ep_resolved(ep, -EPROTO);
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return xrdma_ep_resolved(ep, -ENETUNREACH);
	case RDMA_CM_EVENT_ESTABLISHED:
		return xrdma_ep_established(ep, &ev->param.conn);
	case RDMA_CM_EVENT_CONNECT_ERROR:
		return xrdma_ep_failed(ep, -ENOTCONN);
	case RDMA_CM_EVENT_UNREACHABLE:
		return xrdma_ep_failed(ep, -ENETUNREACH);
	case RDMA_CM_EVENT_REJECTED:
		return xrdma_ep_failed(ep, -ECONNREFUSED);
	case RDMA_CM_EVENT_DISCONNECTED:
		return xrdma_ep_lost(ep, -ECONNABORTED);
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		pr_info("device %s is going away\n", id->device->name);
		/* A resolution in progress must not wait for its timeout. */
		xrdma_ep_resolved(ep, -ENODEV);
		return xrdma_ep_lost(ep, -ENODEV);
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return xrdma_ep_lost(ep, -ENODEV);
	default:
		/* CONNECT_RESPONSE, TIMEWAIT_EXIT, multicast: not for us. */
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_cm_event_handler);
