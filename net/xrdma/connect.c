// SPDX-License-Identifier: GPL-2.0
/*
 * The client side of a connection: create the id, resolve the address
 * and the route (each bounded by the transport's timeout), build the
 * QP, post the receives, connect and wait for ESTABLISHED.  A lost
 * connection is retried with exponential backoff.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/ktime.h>
#include <net/net_namespace.h>

#include "xrdma.h"

/* Wait for the handler's answer to one resolution step. */
static int xrdma_wait_resolved(struct xrdma_ep *ep, unsigned int ms)
{
	if (!wait_for_completion_timeout(&ep->done,
					 msecs_to_jiffies(ms) + 1))
		return -ETIMEDOUT;
	return READ_ONCE(ep->async_rc);
}

static int xrdma_resolve(struct xrdma_xprt *xprt, struct xrdma_ep *ep)
{
	unsigned int ms = xprt->opts.timeout_ms;
	u64 start = ktime_get_ns();
	int rc;

	rc = rdma_resolve_addr(ep->id, NULL, (struct sockaddr *)&xprt->dst,
			       ms);
	if (!rc)
		rc = xrdma_wait_resolved(ep, ms);
	if (rc)
		return rc;
	xrdma_step_done(xprt, XRDMA_STEP_RESOLVE_ADDR, start);

	start = ktime_get_ns();
	reinit_completion(&ep->done);
	WRITE_ONCE(ep->async_rc, -ETIMEDOUT);
	rc = rdma_resolve_route(ep->id, ms);
	if (!rc)
		rc = xrdma_wait_resolved(ep, ms);
	if (rc)
		return rc;
	xrdma_step_done(xprt, XRDMA_STEP_RESOLVE_ROUTE, start);
	return 0;
}

static int xrdma_wait_established(struct xrdma_xprt *xprt,
				  struct xrdma_ep *ep)
{
	long left = msecs_to_jiffies(xprt->opts.timeout_ms) + 1;
	int status;

	wait_event_timeout(ep->wait, READ_ONCE(ep->status), left);
	/* Give up atomically: a late ESTABLISHED then takes no reference. */
	status = cmpxchg(&ep->status, 0, -ETIMEDOUT);
	if (!status)
		return -ETIMEDOUT;
	if (status != XRDMA_ESTABLISHED)
		return status;
	return xrdma_ep_publish(xprt, ep);
}

static int xrdma_rdma_connect(struct xrdma_xprt *xprt, struct xrdma_ep *ep)
{
	struct rdma_conn_param param = {};
	struct xrdma_cm_private pd;
	u64 start = ktime_get_ns();
	int rc;

	xrdma_ep_fill_private(ep, &pd);
	param.private_data = &pd;
	param.private_data_len = sizeof(pd);
	param.flow_control = 1;
	param.retry_count = 6;
	param.rnr_retry_count = 7;
	param.responder_resources = ep->rd_atom;
	param.initiator_depth = ep->rd_atom;
	rc = rdma_connect(ep->id, &param);
	if (rc)
		return rc;
	xrdma_step_done(xprt, XRDMA_STEP_CONNECT, start);
	start = ktime_get_ns();
	rc = xrdma_wait_established(xprt, ep);
	if (!rc)
		xrdma_step_done(xprt, XRDMA_STEP_ESTABLISHED, start);
	return rc;
}

/* One attempt; on failure teardown takes whatever was built. */
static int xrdma_do_connect(struct xrdma_xprt *xprt)
{
	struct rdma_cm_id *id;
	struct xrdma_ep *ep;
	u64 start;
	int rc;

	lockdep_assert_held(&xprt->mutex);
	ep = xrdma_ep_alloc(xprt);
	if (!ep)
		return -ENOMEM;
	xrdma_xprt_attach(xprt, ep);
	start = ktime_get_ns();
	id = rdma_create_id(xprt->net, xrdma_cm_event_handler, ep,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		rc = PTR_ERR(id);
		goto out_teardown;
	}
	ep->id = id;
	xrdma_step_done(xprt, XRDMA_STEP_CREATE_ID, start);
	rc = xrdma_resolve(xprt, ep);
	if (rc)
		goto out_teardown;
	start = ktime_get_ns();
	rc = xrdma_ep_setup_qp(ep, xprt);
	if (!rc)
		rc = xrdma_xprt_start(xprt, ep);
	if (rc)
		goto out_teardown;
	xrdma_step_done(xprt, XRDMA_STEP_CREATE_QP, start);
	rc = xrdma_rdma_connect(xprt, ep);
	if (rc)
		goto out_teardown;
	spin_lock(&xprt->send_lock);
	xprt->info.connects++;
	spin_unlock(&xprt->send_lock);
	return 0;

out_teardown:
	xrdma_ep_teardown(xprt);
	return rc;
}

/**
 * xrdma_connect() - connect a client transport
 * @xprt: the transport, not connected
 * @net: the network namespace (a reference is kept for reconnects)
 * @dst: the server's address and port, AF_INET or AF_INET6
 *
 * Waits at most the transport's timeout for each of address
 * resolution, route resolution and ESTABLISHED.  With a reconnect
 * delay set, a connection lost later is retried in the background.
 *
 * Context: process context, may sleep.
 * Return: 0 when connected; -EISCONN if already connected; -EINVAL for
 * a bad address or an accepted transport; -ETIMEDOUT, -ECONNREFUSED,
 * -ENETUNREACH, -EPROTO (no address), -ENODEV or another negative errno
 * of the step that failed.
 */
int xrdma_connect(struct xrdma_xprt *xprt, struct net *net,
		  const struct sockaddr *dst)
{
	int rc;

	if (dst->sa_family != AF_INET && dst->sa_family != AF_INET6)
		return -EINVAL;
	mutex_lock(&xprt->mutex);
	if (xprt->lsn) {
		rc = -EINVAL;
		goto out;
	}
	if (xprt->ep) {
		rc = -EISCONN;
		goto out;
	}
	if (xprt->net)
		put_net(xprt->net);
	xprt->net = get_net(net);
	memcpy(&xprt->dst, dst, dst->sa_family == AF_INET ?
	       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	xprt->stopping = false;
	xprt->backoff_ms = xprt->opts.reconnect_ms;
	rc = xrdma_do_connect(xprt);
out:
	mutex_unlock(&xprt->mutex);
	return rc;
}
EXPORT_SYMBOL_GPL(xrdma_connect);

/**
 * xrdma_reconnect_worker() - one reconnect attempt
 * @work: the transport's reconnect_work
 *
 * On failure the delay doubles, up to XRDMA_RECONNECT_MAX_MS; on
 * success it goes back to the one the user asked for.
 *
 * Context: xrdma_wq.
 */
void xrdma_reconnect_worker(struct work_struct *work)
{
	struct xrdma_xprt *xprt = container_of(to_delayed_work(work),
					       struct xrdma_xprt,
					       reconnect_work);
	int rc;

	mutex_lock(&xprt->mutex);
	if (xprt->stopping || xprt->ep)
		goto out;
	rc = xrdma_do_connect(xprt);
	if (!rc) {
		xprt->backoff_ms = xprt->opts.reconnect_ms;
		goto out;
	}
	xprt->backoff_ms = min(xprt->backoff_ms * 2, XRDMA_RECONNECT_MAX_MS);
	pr_debug("reconnect failed (%d), next try in %u ms\n", rc,
		 xprt->backoff_ms);
	queue_delayed_work(xrdma_wq, &xprt->reconnect_work,
			   msecs_to_jiffies(xprt->backoff_ms));
out:
	mutex_unlock(&xprt->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_reconnect_worker);
