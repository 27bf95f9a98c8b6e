// SPDX-License-Identifier: GPL-2.0
/*
 * Transports: the persistent half.  A transport keeps its buffers, its
 * send contexts and its counters for its whole life; each connection
 * (endpoint) borrows them while it is attached.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "xrdma.h"

#define XRDMA_DEFAULT_TIMEOUT_MS	5000

static int xrdma_opts_check(const struct xrdma_opts *opts)
{
	if (opts->depth < XRDMA_MIN_DEPTH || opts->depth > XRDMA_MAX_DEPTH)
		return -EINVAL;
	if (opts->inline_size < XRDMA_MIN_INLINE ||
	    opts->inline_size > XRDMA_MAX_INLINE)
		return -EINVAL;
	if (opts->reconnect_ms > XRDMA_RECONNECT_MAX_MS)
		return -EINVAL;
	return 0;
}

static int xrdma_xprt_buffers(struct xrdma_xprt *xprt)
{
	size_t size = xprt->opts.inline_size + XRDMA_HDR_MAX;
	unsigned int depth = xprt->opts.depth;
	int rc;

	rc = xrdma_pool_create(&xprt->reqs, depth, size, DMA_TO_DEVICE);
	if (rc)
		return rc;
	/* One more than posted: a reply is handled after its replacement
	 * was posted.  XRDMA_SIGNAL_EVERY more for Sends made from reply
	 * buffers (xrdma_send_received()), which hold them until a signalled
	 * completion retires them; mapped both ways for those.  Receives
	 * land behind room for a header, which such a Send writes in place.
	 */
	rc = xrdma_pool_create(&xprt->reps, depth + 1 + XRDMA_SIGNAL_EVERY,
			       size + XRDMA_HDR_MAX, DMA_BIDIRECTIONAL);
	if (rc)
		goto out_reqs;
	rc = xrdma_sendctx_create(xprt);
	if (rc)
		goto out_reps;
	rc = xrdma_rctx_create(xprt);
	if (rc)
		goto out_sendctx;
	return 0;

out_sendctx:
	xrdma_sendctx_destroy(xprt);
out_reps:
	xrdma_pool_destroy(&xprt->reps);
out_reqs:
	xrdma_pool_destroy(&xprt->reqs);
	return rc;
}

/**
 * xrdma_xprt_alloc() - a transport with its buffers, not connected
 * @opts: options (checked here)
 * @ops: callbacks
 * @priv: the user's pointer
 *
 * Context: process context, may sleep.
 * Return: the transport or an ERR_PTR: -EINVAL for bad options,
 * -ENOMEM.
 */
struct xrdma_xprt *xrdma_xprt_alloc(const struct xrdma_opts *opts,
				    const struct xrdma_ops *ops, void *priv)
{
	struct xrdma_xprt *xprt;
	int rc;

	rc = xrdma_opts_check(opts);
	if (rc)
		return ERR_PTR(rc);
	if (!ops || !ops->recv)
		return ERR_PTR(-EINVAL);
	xprt = kzalloc(sizeof(*xprt), GFP_KERNEL);
	if (!xprt)
		return ERR_PTR(-ENOMEM);
	xprt->opts = *opts;
	if (!xprt->opts.timeout_ms)
		xprt->opts.timeout_ms = XRDMA_DEFAULT_TIMEOUT_MS;
	xprt->ops = ops;
	xprt->priv = priv;
	mutex_init(&xprt->mutex);
	spin_lock_init(&xprt->send_lock);
	init_waitqueue_head(&xprt->send_wait);
	INIT_WORK(&xprt->disconnect_work, xrdma_disconnect_worker);
	INIT_DELAYED_WORK(&xprt->reconnect_work, xrdma_reconnect_worker);
	INIT_LIST_HEAD(&xprt->lsn_node);
	xrdma_frwr_init(xprt);
	xrdma_pull_init(xprt);
	INIT_LIST_HEAD(&xprt->wr_waits);
	rc = xrdma_xprt_buffers(xprt);
	if (rc) {
		xrdma_frwr_destroy(xprt);
		kfree(xprt);
		return ERR_PTR(rc);
	}
	return xprt;
}

/**
 * xrdma_xprt_create() - create a client transport
 * @opts: queue depth, inline size, timeouts, reconnect delay
 * @ops: the user's callbacks; @ops->recv is required
 * @priv: the user's pointer, for xrdma_xprt_priv()
 *
 * Context: process context, may sleep.
 * Return: the transport, or an ERR_PTR (-EINVAL for options out of
 * range, -ENOMEM).
 */
struct xrdma_xprt *xrdma_xprt_create(const struct xrdma_opts *opts,
				     const struct xrdma_ops *ops, void *priv)
{
	return xrdma_xprt_alloc(opts, ops, priv);
}
EXPORT_SYMBOL_GPL(xrdma_xprt_create);

/**
 * xrdma_xprt_destroy() - disconnect and free a transport
 * @xprt: the transport
 *
 * xrdma_ops.closed runs once the connection is gone; memory
 * registrations the user did not give back by its end are freed, and
 * their handles with them.
 *
 * Context: process context, may sleep; not from @xprt's own callbacks.
 */
void xrdma_xprt_destroy(struct xrdma_xprt *xprt)
{
	xrdma_disconnect(xprt);
	/* A forced disconnect may have been queued meanwhile. */
	cancel_work_sync(&xprt->disconnect_work);
	cancel_delayed_work_sync(&xprt->reconnect_work);
	mutex_lock(&xprt->mutex);
	xrdma_ep_teardown(xprt);
	mutex_unlock(&xprt->mutex);
	if (xprt->ops->closed)
		xprt->ops->closed(xprt);
	xrdma_xprt_free(xprt);
}
EXPORT_SYMBOL_GPL(xrdma_xprt_destroy);

/**
 * xrdma_xprt_free() - free a transport that has no connection left
 * @xprt: the transport: no endpoint, no disconnect or reconnect queued
 *
 * The end of xrdma_xprt_destroy(), without its disconnect, and so
 * without taking @xprt->mutex: a CONNECT_REQUEST handler whose accept
 * failed frees its new transport here, under the id's handler mutex,
 * which the connect side takes inside @xprt->mutex.
 *
 * Context: process context, may sleep.
 */
void xrdma_xprt_free(struct xrdma_xprt *xprt)
{
	xrdma_frwr_destroy(xprt);
	xrdma_lands_free(xprt);
	xrdma_rctx_destroy(xprt);
	xrdma_sendctx_destroy(xprt);
	xrdma_pool_destroy(&xprt->reps);
	xrdma_pool_destroy(&xprt->reqs);
	if (xprt->net)
		put_net(xprt->net);
	mutex_destroy(&xprt->mutex);
	kfree(xprt);
}

/**
 * xrdma_xprt_priv() - the pointer given at creation
 * @xprt: the transport
 *
 * Context: any.
 * Return: the user's pointer.
 */
void *xrdma_xprt_priv(const struct xrdma_xprt *xprt)
{
	return xprt->priv;
}
EXPORT_SYMBOL_GPL(xrdma_xprt_priv);

/**
 * xrdma_xprt_attach() - make an endpoint the transport's connection
 * @xprt: the transport, with no endpoint
 * @ep: the new endpoint
 *
 * From here on teardown finds the endpoint, however little of it is
 * built.  Senders still wait: the status is not CONNECTED yet.
 *
 * Context: under @xprt->mutex, or the accepting handler (which owns a
 * transport nobody else can see yet).
 */
void xrdma_xprt_attach(struct xrdma_xprt *xprt, struct xrdma_ep *ep)
{
	spin_lock(&xprt->send_lock);
	xprt->ep = ep;
	xrdma_credits_init(&xprt->credits, xprt->opts.depth);
	xprt->rx_posted = 0;
	spin_unlock(&xprt->send_lock);
}

/**
 * xrdma_xprt_start() - map the buffers and post the first receives
 * @xprt: the transport
 * @ep: its endpoint, with a QP
 *
 * Receives go up before the connect request or the accept: the peer
 * may send as soon as it sees the connection.  The FRWR pool gets the
 * connection's PD and its first MRs.
 *
 * Context: process context (or the accepting handler), may sleep.
 * Return: 0, or a negative errno with the buffers unmapped.
 */
int xrdma_xprt_start(struct xrdma_xprt *xprt, struct xrdma_ep *ep)
{
	struct ib_device *dev = ep->id->device;
	int rc;

	rc = xrdma_pool_map(&xprt->reqs, dev);
	if (rc)
		return rc;
	rc = xrdma_pool_map(&xprt->reps, dev);
	if (rc) {
		xrdma_pool_unmap(&xprt->reqs);
		return rc;
	}
	xrdma_frwr_attach(xprt, ep);
	xrdma_post_recvs(xprt);
	return 0;
}

/**
 * xrdma_step_done() - record how long a step of the connection took
 * @xprt: the transport
 * @step: which step
 * @start: ktime_get_ns() when it began
 *
 * Context: any.
 */
void xrdma_step_done(struct xrdma_xprt *xprt, enum xrdma_step step, u64 start)
{
	u64 ns = ktime_get_ns() - start;

	spin_lock(&xprt->send_lock);
	xprt->info.step_ns[step] = ns;
	spin_unlock(&xprt->send_lock);
}

/**
 * xrdma_get_info() - copy a transport's counters
 * @xprt: the transport
 * @info: filled in
 *
 * Context: any; takes the send lock.
 */
void xrdma_get_info(struct xrdma_xprt *xprt, struct xrdma_info *info)
{
	spin_lock(&xprt->send_lock);
	*info = xprt->info;
	info->connected = xprt->ep &&
			  READ_ONCE(xprt->ep->status) == XRDMA_CONNECTED;
	info->inline_send = xprt->ep ? xprt->ep->inline_send -
				       XRDMA_HDR_MAX : 0;
	spin_unlock(&xprt->send_lock);
}
EXPORT_SYMBOL_GPL(xrdma_get_info);
