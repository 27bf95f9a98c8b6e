// SPDX-License-Identifier: GPL-2.0
/*
 * The server side: a listening id whose CONNECT_REQUEST handler builds
 * a transport and its endpoint for the new id and accepts.  Accepted
 * transports belong to the listener; when their connection ends the
 * disconnect work retires them and the listener's reap work frees them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "xrdma.h"

static int xrdma_accept_ep(struct xrdma_xprt *xprt, struct xrdma_ep *ep,
			   const struct rdma_conn_param *req)
{
	struct rdma_conn_param param = {};
	struct xrdma_cm_private pd;
	int rc;

	xrdma_ep_update_private(ep, req);
	rc = xrdma_ep_setup_qp(ep, xprt);
	if (rc)
		return rc;
	rc = xrdma_xprt_start(xprt, ep);
	if (rc)
		return rc;
	xrdma_ep_fill_private(ep, &pd);
	param.private_data = &pd;
	param.private_data_len = sizeof(pd);
	param.flow_control = 1;
	param.rnr_retry_count = 7;
	/* RDMA READs: as many as the peer issues and we serve, each way. */
	param.responder_resources = min(req->initiator_depth, ep->rd_atom);
	param.initiator_depth = min(req->responder_resources, ep->rd_atom);
	return rdma_accept(ep->id, &param);
}

/* Undo a failed accept.  The CM destroys the id when we return 1.  The
 * endpoint is unhooked first, so that nothing can queue a disconnect:
 * the transport then goes without its mutex.
 */
static void xrdma_accept_undo(struct xrdma_xprt *xprt, struct xrdma_ep *ep)
{
	spin_lock(&xprt->send_lock);
	xprt->ep = NULL;
	spin_unlock(&xprt->send_lock);
	xrdma_frwr_detach(xprt);
	xrdma_ep_release_qp(ep);
	xrdma_pool_unmap(&xprt->reqs);
	xrdma_pool_unmap(&xprt->reps);
	xrdma_ep_free(ep);
	xrdma_xprt_free(xprt);
}

static int xrdma_listener_accept(struct xrdma_listener *lsn,
				 struct rdma_cm_id *id,
				 struct rdma_cm_event *ev)
{
	struct xrdma_xprt *xprt;
	struct xrdma_ep *ep;
	int rc;

	xprt = xrdma_xprt_alloc(&lsn->opts, lsn->ops, lsn->priv);
	if (IS_ERR(xprt))
		return 1;
	xprt->lsn = lsn;
	ep = xrdma_ep_alloc(xprt);
	if (!ep) {
		xrdma_xprt_free(xprt);
		return 1;
	}
	ep->id = id;
	ep->passive = true;
	id->context = ep;
	xrdma_xprt_attach(xprt, ep);
	rc = xrdma_accept_ep(xprt, ep, &ev->param.conn);
	if (rc) {
		pr_warn("accept failed: %d\n", rc);
		xrdma_accept_undo(xprt, ep);
		return 1;
	}
	spin_lock(&lsn->lock);
	list_add_tail(&xprt->lsn_node, &lsn->xprts);
	lsn->count++;
	spin_unlock(&lsn->lock);
	return 0;
}

/* The handler of the listening id and of the ids it spawns: a new id
 * carries the listener as its context until its CONNECT_REQUEST gave it
 * an endpoint.  Called with @id's handler mutex held; returns 1 if the
 * CM should destroy @id.
 */
static int xrdma_listener_handler(struct rdma_cm_id *id,
				  struct rdma_cm_event *ev)
{
	struct xrdma_cm_ctx *ctx = id->context;
	struct xrdma_listener *lsn;

	if (!ctx->listener)
		return xrdma_cm_event_handler(id, ev);
	lsn = container_of(ctx, struct xrdma_listener, ctx);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return xrdma_listener_accept(lsn, id, ev);
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* The listening id must go for the device to go. */
		queue_work(xrdma_wq, &lsn->remove_work);
		return 0;
	default:
		return 0;
	}
}

static void xrdma_listener_drop_id(struct xrdma_listener *lsn)
{
	struct rdma_cm_id *id;

	spin_lock(&lsn->lock);
	id = lsn->id;
	lsn->id = NULL;
	spin_unlock(&lsn->lock);
	if (id)
		rdma_destroy_id(id);
}

static void xrdma_listener_remove_worker(struct work_struct *work)
{
	xrdma_listener_drop_id(container_of(work, struct xrdma_listener,
					    remove_work));
}

static void xrdma_destroy_list(struct list_head *list)
{
	struct xrdma_xprt *xprt, *next;

	list_for_each_entry_safe(xprt, next, list, lsn_node) {
		list_del_init(&xprt->lsn_node);
		xrdma_xprt_destroy(xprt);
	}
}

static void xrdma_listener_reap_worker(struct work_struct *work)
{
	struct xrdma_listener *lsn = container_of(work, struct xrdma_listener,
						  reap_work);
	LIST_HEAD(dead);

	spin_lock(&lsn->lock);
	list_splice_init(&lsn->dead, &dead);
	spin_unlock(&lsn->lock);
	xrdma_destroy_list(&dead);
}

/**
 * xrdma_listener_retire() - hand a disconnected transport to its listener
 * @xprt: an accepted transport whose connection ended
 *
 * Context: xrdma_wq (the transport's disconnect work).
 */
void xrdma_listener_retire(struct xrdma_xprt *xprt)
{
	struct xrdma_listener *lsn = xprt->lsn;

	spin_lock(&lsn->lock);
	if (!lsn->closing) {
		list_move_tail(&xprt->lsn_node, &lsn->dead);
		queue_work(xrdma_wq, &lsn->reap_work);
	}
	spin_unlock(&lsn->lock);
}

static int xrdma_listener_bind(struct xrdma_listener *lsn, struct net *net,
			       const struct sockaddr *addr)
{
	struct rdma_cm_id *id;
	int rc;

	id = rdma_create_id(net, xrdma_listener_handler, &lsn->ctx,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	rc = rdma_bind_addr(id, (struct sockaddr *)addr);
	if (!rc)
		rc = rdma_listen(id, 64);
	if (rc) {
		rdma_destroy_id(id);
		return rc;
	}
	lsn->id = id;
	return 0;
}

/**
 * xrdma_listen() - accept connections on an address and port
 * @net: the network namespace
 * @addr: the local address and port, AF_INET or AF_INET6
 * @opts: options of each accepted transport
 * @ops: callbacks of each accepted transport
 * @priv: user pointer of each accepted transport
 *
 * Context: process context, may sleep.
 * Return: the listener, or an ERR_PTR: -EINVAL for bad options or
 * address, -EADDRINUSE, -EADDRNOTAVAIL, -ENOMEM or what the CM said.
 */
struct xrdma_listener *xrdma_listen(struct net *net,
				    const struct sockaddr *addr,
				    const struct xrdma_opts *opts,
				    const struct xrdma_ops *ops, void *priv)
{
	struct xrdma_listener *lsn;
	struct xrdma_xprt *probe;
	int rc;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return ERR_PTR(-EINVAL);
	/* Check the options once, here, rather than at each request. */
	probe = xrdma_xprt_alloc(opts, ops, priv);
	if (IS_ERR(probe))
		return ERR_CAST(probe);
	xrdma_xprt_destroy(probe);
	lsn = kzalloc(sizeof(*lsn), GFP_KERNEL);
	if (!lsn)
		return ERR_PTR(-ENOMEM);
	lsn->ctx.listener = true;
	lsn->opts = *opts;
	lsn->opts.reconnect_ms = 0;
	lsn->ops = ops;
	lsn->priv = priv;
	spin_lock_init(&lsn->lock);
	INIT_LIST_HEAD(&lsn->xprts);
	INIT_LIST_HEAD(&lsn->dead);
	INIT_WORK(&lsn->reap_work, xrdma_listener_reap_worker);
	INIT_WORK(&lsn->remove_work, xrdma_listener_remove_worker);
	rc = xrdma_listener_bind(lsn, net, addr);
	if (rc) {
		kfree(lsn);
		return ERR_PTR(rc);
	}
	return lsn;
}
EXPORT_SYMBOL_GPL(xrdma_listen);

/**
 * xrdma_listener_count() - connections accepted so far
 * @lsn: the listener
 *
 * Context: any.
 * Return: the count.
 */
unsigned int xrdma_listener_count(struct xrdma_listener *lsn)
{
	unsigned int count;

	spin_lock(&lsn->lock);
	count = lsn->count;
	spin_unlock(&lsn->lock);
	return count;
}
EXPORT_SYMBOL_GPL(xrdma_listener_count);

/**
 * xrdma_listener_destroy() - stop listening and end every connection
 * @lsn: the listener
 *
 * Context: process context, may sleep.
 */
void xrdma_listener_destroy(struct xrdma_listener *lsn)
{
	LIST_HEAD(all);

	/* No new connection and no event once the listening id is gone;
	 * then no removal work can be queued any more.
	 */
	xrdma_listener_drop_id(lsn);
	cancel_work_sync(&lsn->remove_work);
	spin_lock(&lsn->lock);
	lsn->closing = true;
	list_splice_init(&lsn->xprts, &all);
	list_splice_init(&lsn->dead, &all);
	spin_unlock(&lsn->lock);
	cancel_work_sync(&lsn->reap_work);
	xrdma_destroy_list(&all);
	kfree(lsn);
}
EXPORT_SYMBOL_GPL(xrdma_listener_destroy);
