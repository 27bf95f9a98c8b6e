// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA READ and WRITE between memory registered here (xrdma_mr_register)
 * and memory the peer advertised.  Each operation in flight holds one
 * of the transport's @opts.depth contexts; its completion gives the
 * context back and tells the user.  They share the send queue with the
 * Sends and the MR work requests, which is sized for all of them
 * (xrdma_sq_depth).
 *
 * A stream of WRITEs asks for few completions (XRDMA_RDMA_MORE,
 * xrdma_rdma_signal()): the WRITEs in flight are listed in the order
 * they were posted, and a completion retires every WRITE listed up to
 * its own.  Each completion is a run of the send CQ's work item: on
 * siw, one hand-off per WRITE more than the bare verbs stream of
 * Documentation/benchmarks.rst makes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <kunit/visibility.h>

#include "xrdma.h"

/**
 * xrdma_sq_depth() - send queue entries a connection needs
 * @depth: the transport's queue depth
 *
 * Sends and RDMA operations, @depth each; one REG_MR or LOCAL_INV per
 * MR at most (each is waited for); the READ that pulls a chunk; the
 * WRITEs of XRDMA_LANDS pushes; one for the drain.
 *
 * Context: any.
 * Return: the number of entries.
 */
unsigned int xrdma_sq_depth(unsigned int depth)
{
	return 2 * depth + XRDMA_FRWR_MAX + XRDMA_LANDS + 2;
}

/**
 * xrdma_ep_live() - may work requests be posted on the connection now?
 * @xprt: the transport
 * @epp: set to its connection on success
 *
 * Context: @xprt's send lock held, under which an active connection is
 * published with its negotiated sizes (xrdma_ep_publish()).
 * Return: 0; -EAGAIN while the connection is coming up (the passive
 * side may hear from the peer before its ESTABLISHED; ESTABLISHED or
 * the publication wakes the send waiters); else -ENOTCONN.
 */
int xrdma_ep_live(struct xrdma_xprt *xprt, struct xrdma_ep **epp)
{
	struct xrdma_ep *ep = xprt->ep;
	int status;

	lockdep_assert_held(&xprt->send_lock);
	if (!ep || ep->draining || !ep->id->qp)
		return -ENOTCONN;
	status = READ_ONCE(ep->status);
	if (!status || status == XRDMA_ESTABLISHED)
		return -EAGAIN;
	if (status != XRDMA_CONNECTED)
		return -ENOTCONN;
	*epp = ep;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_ep_live);

static int xrdma_post_wr_try(struct xrdma_xprt *xprt,
			     const struct ib_send_wr *wr,
			     struct xrdma_wr_wait *w)
{
	struct xrdma_ep *ep;
	int rc;

	spin_lock(&xprt->send_lock);
	rc = xrdma_ep_live(xprt, &ep);
	if (!rc) {
		rc = ib_post_send(ep->id->qp, wr, NULL);
		if (rc)
			xrdma_ep_post_failed(ep, rc);
		else
			xrdma_wr_wait_posted(xprt, w);
	}
	spin_unlock(&xprt->send_lock);
	return rc;
}

static bool xrdma_post_wr_tried(struct xrdma_xprt *xprt,
				const struct ib_send_wr *wr,
				struct xrdma_wr_wait *w, int *rc)
{
	*rc = xrdma_post_wr_try(xprt, wr, w);
	return xrdma_send_cq_ready_or_arm(xprt, *rc != -EAGAIN);
}

/**
 * xrdma_post_wr() - post a work request on the send queue
 * @xprt: the transport
 * @wr: the work request (one, not a chain), completed through @w
 * @w: its context, listed as owed once posted (xrdma_wr_wait_post())
 *
 * Refused once the drain of the connection began, so every WR posted
 * here completes before teardown goes on.  On an accepted connection
 * not yet ESTABLISHED it waits for that, at most the transport's
 * timeout.  A failed post forces a disconnect.
 *
 * Its poster waits for its completion, which xrdma_ops.rdma_done cannot
 * do (xrdma_wait_refused()): nothing is posted from there.
 *
 * Context: process context, may sleep; takes the send lock.
 * Return: 0, -ENOTCONN, -ETIMEDOUT, -EDEADLK from xrdma_ops.rdma_done,
 * or the error of ib_post_send().
 */
int xrdma_post_wr(struct xrdma_xprt *xprt, const struct ib_send_wr *wr,
		  struct xrdma_wr_wait *w)
{
	long left = msecs_to_jiffies(xprt->opts.timeout_ms) + 1;
	int rc = xrdma_wait_refused(xprt);

	if (rc)
		return rc;
	rc = -EAGAIN;
	wait_event_timeout(xprt->send_wait,
			   xrdma_post_wr_tried(xprt, wr, w, &rc), left);
	return rc == -EAGAIN ? -ETIMEDOUT : rc;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_post_wr);

/* The oldest WRITE in flight, or NULL. */
static struct xrdma_rctx *xrdma_rctx_oldest_write(struct xrdma_xprt *xprt)
{
	struct xrdma_rctx *rc;

	spin_lock(&xprt->send_lock);
	rc = list_first_entry_or_null(&xprt->rctx_writes, struct xrdma_rctx,
				      node);
	spin_unlock(&xprt->send_lock);
	return rc;
}

/* Give @rc back, then tell the user its outcome: its context is free
 * when xrdma_ops.rdma_done runs, for the next operation.
 */
static void xrdma_rctx_finish(struct xrdma_xprt *xprt, struct xrdma_rctx *rc,
			      bool ok)
{
	u64 cookie;

	spin_lock(&xprt->send_lock);
	cookie = rc->cookie;
	if (ok) {
		xprt->info.rdma_ops++;
		xprt->info.rdma_bytes += rc->len;
	}
	list_move(&rc->node, &xprt->rctx_free);
	xprt->rdma_busy--;
	spin_unlock(&xprt->send_lock);
	xrdma_wake_senders(xprt);
	WRITE_ONCE(xprt->rdma_done_task, current);
	xprt->ops->rdma_done(xprt, cookie, ok ? 0 : -EIO);
	WRITE_ONCE(xprt->rdma_done_task, NULL);
}

static void xrdma_wc_rdma(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xrdma_rctx *rc = container_of(wc->wr_cqe, struct xrdma_rctx,
					     cqe);
	struct xrdma_xprt *xprt = xrdma_cq_xprt(cq);
	struct xrdma_rctx *first;

	/* Each WRITE before this one completed, and well: a failed or
	 * flushed one has a completion of its own, which came first.
	 */
	do {
		first = rc->write ? xrdma_rctx_oldest_write(xprt) : rc;
		if (WARN_ON_ONCE(!first))
			break;
		xrdma_rctx_finish(xprt, first,
				  first != rc || wc->status == IB_WC_SUCCESS);
	} while (first != rc);
	xrdma_flush_disconnect(xprt, wc);
}

/**
 * xrdma_rdma_retire_writes() - tell the outcome of the WRITEs left over
 * @xprt: the transport, whose send queue was drained
 *
 * A WRITE still listed went unsignalled, and no completion came after
 * it.  It completed well: a failed or flushed one has a completion of
 * its own, which came before the drain's.
 *
 * Context: process context, under @xprt->mutex, in the teardown; the
 * send CQ has nothing more for the connection.
 */
void xrdma_rdma_retire_writes(struct xrdma_xprt *xprt)
{
	struct xrdma_rctx *rc;

	lockdep_assert_held(&xprt->mutex);
	while ((rc = xrdma_rctx_oldest_write(xprt)))
		xrdma_rctx_finish(xprt, rc, true);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_rdma_retire_writes);

/**
 * xrdma_rctx_create() - allocate the RDMA contexts of a transport
 * @xprt: the transport being made
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int xrdma_rctx_create(struct xrdma_xprt *xprt)
{
	xprt->rctx = kcalloc(xprt->opts.depth, sizeof(*xprt->rctx),
			     GFP_KERNEL);
	if (!xprt->rctx)
		return -ENOMEM;
	xrdma_rctx_reset(xprt);
	return 0;
}

/**
 * xrdma_rctx_destroy() - free the RDMA contexts
 * @xprt: the transport, with no connection
 *
 * Context: process context.
 */
void xrdma_rctx_destroy(struct xrdma_xprt *xprt)
{
	kfree(xprt->rctx);
	xprt->rctx = NULL;
}

/**
 * xrdma_rctx_reset() - every RDMA context free
 * @xprt: the transport; no RDMA operation is in flight (its QP is
 *	drained or destroyed, or it never had one)
 *
 * Context: process context.
 */
void xrdma_rctx_reset(struct xrdma_xprt *xprt)
{
	unsigned int i;

	spin_lock(&xprt->send_lock);
	INIT_LIST_HEAD(&xprt->rctx_free);
	INIT_LIST_HEAD(&xprt->rctx_writes);
	xprt->rdma_unsignalled = 0;
	xprt->rdma_busy = 0;
	for (i = 0; i < xprt->opts.depth; i++) {
		xprt->rctx[i].cqe.done = xrdma_wc_rdma;
		list_add_tail(&xprt->rctx[i].node, &xprt->rctx_free);
	}
	spin_unlock(&xprt->send_lock);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_rctx_reset);

/**
 * xrdma_rdma_signal() - should the operation about to be posted be
 *	signalled?
 * @xprt: the transport, its context for the operation taken
 * @op: the operation, with its flags
 * @len: its bytes
 * @signal_from: the connection's xrdma_ep.signal_from
 *
 * READs always are: a device may complete a READ after a WRITE posted
 * behind it (siw completes a WRITE once sent, a READ once its response
 * arrived), so only a WRITE's completion vouches for the WRITEs before
 * it.  A WRITE is unless the user starts more (XRDMA_RDMA_MORE), and
 * even then one WRITE in @opts.depth / XRDMA_RDMA_SIGNALS is, so that a
 * stream that keeps every context busy hears of its WRITEs a few at a
 * time, before its window runs dry.  So is one of @signal_from bytes or
 * more, as for a Send.
 *
 * A user waiting for a free context needs no more.  The WRITEs in
 * flight are the last ones posted (they retire in order), so with every
 * context busy either they are enough to hold a signalled one, or READs,
 * always signalled, hold the other contexts.  Signalling the WRITE that
 * takes the last free context as well signalled every WRITE of a stream
 * chained from xrdma_ops.rdma_done: a completion gives back its WRITEs'
 * contexts one rdma_done at a time, so each next WRITE took the only one
 * free.
 *
 * Context: @xprt's send lock held.
 * Return: true to signal it.
 */
VISIBLE_IF_KUNIT bool xrdma_rdma_signal(struct xrdma_xprt *xprt,
					enum xrdma_rdma_op op, u32 len,
					u32 signal_from)
{
	unsigned int every = max(xprt->opts.depth / XRDMA_RDMA_SIGNALS, 1U);

	lockdep_assert_held(&xprt->send_lock);
	if (op & XRDMA_RDMA_READ)
		return true;
	return xrdma_signal_next(&xprt->rdma_unsignalled, every,
				 !(op & XRDMA_RDMA_MORE) ||
				 len >= signal_from);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_rdma_signal);

/**
 * struct xrdma_rdma_req - one RDMA operation, as the user asked for it
 * @wr: its work request; its context, flags and local memory are
 *	filled in by the try that posts it
 * @sge: the local memory
 * @op: the operation, with its flags
 * @mr: the local registration
 * @offset: where in @mr the data starts
 * @cookie: the user's
 */
struct xrdma_rdma_req {
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	enum xrdma_rdma_op op;
	struct xrdma_mr *mr;
	u32 offset;
	u64 cookie;
};

static int xrdma_rdma_check(struct xrdma_xprt *xprt, enum xrdma_rdma_op op,
			    struct xrdma_mr *mr, u32 offset,
			    const struct xrdma_remote *rem, u32 roffset, u32 len)
{
	if (!xprt->ops->rdma_done)
		return -EINVAL;
	if ((op & ~XRDMA_RDMA_MORE) > XRDMA_RDMA_READ)
		return -EINVAL;
	if (!len || len > XRDMA_MAX_RDMA)
		return -EINVAL;
	if (offset > mr->len || len > mr->len - offset)
		return -EINVAL;
	if (roffset > rem->len || len > rem->len - roffset)
		return -EINVAL;
	return 0;
}

/* One try under the send lock: -EAGAIN while every context is busy. */
static int xrdma_rdma_try(struct xrdma_xprt *xprt, struct xrdma_rdma_req *req)
{
	struct xrdma_rctx *rc;
	struct xrdma_ep *ep;
	struct ib_mr *ibmr;
	int err;

	spin_lock(&xprt->send_lock);
	err = xrdma_ep_live(xprt, &ep);
	if (err)
		goto out;
	/* A live connection has not been torn down since @mr was lent,
	 * unless @mr belongs to an earlier one (then its MR is gone).
	 */
	ibmr = READ_ONCE(req->mr->ibmr);
	err = -ENOTCONN;
	if (!ibmr)
		goto out;
	err = -EAGAIN;
	rc = list_first_entry_or_null(&xprt->rctx_free, struct xrdma_rctx,
				      node);
	if (!rc)
		goto out;
	list_del_init(&rc->node);
	rc->cookie = req->cookie;
	rc->len = req->sge.length;
	rc->write = !(req->op & XRDMA_RDMA_READ);
	req->sge.addr = ibmr->iova + req->offset;
	req->sge.lkey = ibmr->lkey;
	req->wr.wr.wr_cqe = &rc->cqe;
	req->wr.wr.send_flags = xrdma_rdma_signal(xprt, req->op,
						  req->sge.length,
						  ep->signal_from) ?
				IB_SEND_SIGNALED : 0;
	err = ib_post_send(ep->id->qp, &req->wr.wr, NULL);
	if (err) {
		list_add(&rc->node, &xprt->rctx_free);
		xrdma_ep_post_failed(ep, err);
		goto out;
	}
	if (rc->write)
		list_add_tail(&rc->node, &xprt->rctx_writes);
	/* The user hears of it from a completion: the send CQ must tell. */
	xprt->rdma_busy++;
	xrdma_send_cq_arm(ep);
out:
	spin_unlock(&xprt->send_lock);
	return err;
}

static bool xrdma_rdma_tried(struct xrdma_xprt *xprt,
			     struct xrdma_rdma_req *req, int *rc)
{
	*rc = xrdma_rdma_try(xprt, req);
	return xrdma_send_cq_ready_or_arm(xprt, *rc != -EAGAIN);
}

static int xrdma_rdma_start(struct xrdma_xprt *xprt, enum xrdma_rdma_op op,
			    struct xrdma_mr *mr, u32 offset,
			    const struct xrdma_remote *rem, u32 roffset,
			    u32 len, u64 cookie, bool wait)
{
	long left = msecs_to_jiffies(xprt->opts.timeout_ms) + 1;
	struct xrdma_rdma_req req = {
		.wr.wr.sg_list = &req.sge,
		.wr.wr.num_sge = 1,
		.wr.wr.opcode = op & XRDMA_RDMA_READ ? IB_WR_RDMA_READ :
						       IB_WR_RDMA_WRITE,
		.wr.remote_addr = rem->addr + roffset,
		.wr.rkey = rem->rkey,
		.sge.length = len,
		.op = op,
		.mr = mr,
		.offset = offset,
		.cookie = cookie,
	};
	int rc;

	rc = xrdma_rdma_check(xprt, op, mr, offset, rem, roffset, len);
	if (rc)
		return rc;
	if (!wait)
		return xrdma_rdma_try(xprt, &req);
	if (xrdma_wait_refused(xprt)) {
		rc = xrdma_rdma_try(xprt, &req);
		return rc == -EAGAIN ? -EDEADLK : rc;
	}
	rc = -EAGAIN;
	left = wait_event_interruptible_timeout(xprt->send_wait,
						xrdma_rdma_tried(xprt, &req,
								 &rc),
						left);
	if (left < 0)
		return left;
	return rc == -EAGAIN ? -ETIMEDOUT : rc;
}

/**
 * xrdma_rdma() - start an RDMA WRITE or READ
 * @xprt: a connected transport
 * @op: XRDMA_RDMA_WRITE (local to remote) or XRDMA_RDMA_READ
 * @mr: the local memory, registered on @xprt's current connection
 * @offset: where in it the data starts
 * @rem: the peer's memory, as it advertised it
 * @roffset: where in that the data starts
 * @len: bytes, 1 to XRDMA_MAX_RDMA, within both
 * @cookie: handed to xrdma_ops.rdma_done with the outcome
 *
 * Waits for a free context (at most @opts.depth operations are in
 * flight) for at most the transport's timeout.  On 0 the outcome comes
 * exactly once through xrdma_ops.rdma_done; the local memory is the
 * device's until then.
 *
 * Context: process context, may sleep; from xrdma_ops.rdma_done it does
 * not wait (see xrdma_rdma_nowait()).
 * Return: 0 when posted; -EINVAL for a range outside either memory or
 * no rdma_done callback; -ENOTCONN without a connection (or for @mr of
 * an earlier connection); -ETIMEDOUT; -ERESTARTSYS on a signal;
 * -EDEADLK from xrdma_ops.rdma_done when every context is in use; or
 * the error of ib_post_send(), which forces a disconnect.
 */
int xrdma_rdma(struct xrdma_xprt *xprt, enum xrdma_rdma_op op,
	       struct xrdma_mr *mr, u32 offset,
	       const struct xrdma_remote *rem, u32 roffset, u32 len,
	       u64 cookie)
{
	return xrdma_rdma_start(xprt, op, mr, offset, rem, roffset, len,
				cookie, true);
}
EXPORT_SYMBOL_GPL(xrdma_rdma);

/**
 * xrdma_rdma_nowait() - start an RDMA WRITE or READ if a context is free
 * @xprt: a connected transport
 * @op: XRDMA_RDMA_WRITE (local to remote) or XRDMA_RDMA_READ
 * @mr: the local memory, registered on @xprt's current connection
 * @offset: where in it the data starts
 * @rem: the peer's memory, as it advertised it
 * @roffset: where in that the data starts
 * @len: bytes, 1 to XRDMA_MAX_RDMA, within both
 * @cookie: handed to xrdma_ops.rdma_done with the outcome
 *
 * As xrdma_rdma(), but it never waits.  The completion of an
 * operation gives its context back before xrdma_ops.rdma_done runs, so
 * a user that keeps at most @opts.depth operations in flight can start
 * the next one from there: a stream then goes on without waking any
 * thread of its own.
 *
 * Context: process context, also xrdma_ops.rdma_done and
 * xrdma_ops.recv; does not sleep.
 * Return: 0 when posted; -EAGAIN when every context is in use (or an
 * accepted connection is not ESTABLISHED yet); -EINVAL or -ENOTCONN as
 * for xrdma_rdma(); or the error of ib_post_send(), which forces a
 * disconnect.
 */
int xrdma_rdma_nowait(struct xrdma_xprt *xprt, enum xrdma_rdma_op op,
		      struct xrdma_mr *mr, u32 offset,
		      const struct xrdma_remote *rem, u32 roffset, u32 len,
		      u64 cookie)
{
	return xrdma_rdma_start(xprt, op, mr, offset, rem, roffset, len,
				cookie, false);
}
EXPORT_SYMBOL_GPL(xrdma_rdma_nowait);
