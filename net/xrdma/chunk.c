// SPDX-License-Identifier: GPL-2.0
/*
 * Messages above the inline size travel as read chunks, the way
 * xprtrdma moves a large RPC call: the sender copies the message into
 * memory of its own, registers it for remote READ only and sends a
 * header that advertises it (address, key, length) and carries no
 * payload.  The receiver registers a sink, pulls the message with one
 * RDMA READ, hands it to the user and then tells the sender it is done
 * with the chunk: a DONE field in its next Send, which is a
 * SEND_WITH_INV of the chunk's key where both devices allow it.  The
 * sender then releases the registration (with no LOCAL_INV if the peer
 * invalidated it) and frees its copy.
 *
 * The sender keeps each chunk in one of XRDMA_MAX_CHUNKS slots from
 * the registration to the DONE; a slot is "armed" once its header is
 * posted, under the send lock, so a DONE always finds the slot it
 * ends.  A connection that goes takes its armed chunks with it: the
 * teardown releases them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>

#include "xrdma.h"

/* A free slot, taken, or NULL. */
static struct xrdma_chunk *xrdma_chunk_take(struct xrdma_xprt *xprt)
{
	struct xrdma_chunk *ch = NULL;
	unsigned int i;

	spin_lock(&xprt->send_lock);
	for (i = 0; i < XRDMA_MAX_CHUNKS; i++) {
		if (!xprt->chunks[i].busy) {
			ch = &xprt->chunks[i];
			ch->busy = true;
			ch->armed = false;
			break;
		}
	}
	spin_unlock(&xprt->send_lock);
	return ch;
}

static bool xrdma_chunk_taken(struct xrdma_xprt *xprt,
			      struct xrdma_chunk **chp)
{
	*chp = xrdma_chunk_take(xprt);
	return xrdma_send_cq_ready_or_arm(xprt, *chp);
}

/* Give a slot back with what it holds; its owner calls this (the
 * sender before arming, whoever disarmed it after).
 */
static void xrdma_chunk_put(struct xrdma_xprt *xprt, struct xrdma_chunk *ch)
{
	if (ch->mr)
		xrdma_mr_release(xprt, ch->mr);
	kvfree(ch->buf);
	ch->mr = NULL;
	ch->buf = NULL;
	spin_lock(&xprt->send_lock);
	ch->armed = false;
	ch->busy = false;
	spin_unlock(&xprt->send_lock);
	xrdma_wake_senders(xprt);
}

/**
 * xrdma_chunk_send() - send a message as a read chunk
 * @xprt: the transport
 * @data: the message; copied
 * @len: its length, 1 to XRDMA_MAX_SEND
 * @out: the Send being prepared (its invalidation, if any, is kept)
 *
 * Waits for a free slot for at most the transport's timeout, copies
 * and registers the message and posts the header that advertises it.
 * The slot comes back with the peer's DONE, or at teardown.
 *
 * Context: process context, may sleep.
 * Return: 0 when the header is posted, else the error of the wait
 * (-ETIMEDOUT, -ERESTARTSYS), of the allocation, of the registration
 * or of the Send; then nothing is left behind.
 */
int xrdma_chunk_send(struct xrdma_xprt *xprt, const void *data, u32 len,
		     struct xrdma_out *out)
{
	long left = msecs_to_jiffies(xprt->opts.timeout_ms) + 1;
	struct xrdma_chunk *ch = NULL;
	int rc;

	left = wait_event_interruptible_timeout(xprt->send_wait,
						xrdma_chunk_taken(xprt, &ch),
						left);
	if (!ch)
		return left < 0 ? left : -ETIMEDOUT;
	rc = -ENOMEM;
	ch->buf = kvmalloc(len, GFP_KERNEL);
	if (!ch->buf)
		goto out_put;
	memcpy(ch->buf, data, len);
	ch->mr = xrdma_mr_register_access(xprt, ch->buf, len,
					  IB_ACCESS_LOCAL_WRITE |
					  IB_ACCESS_REMOTE_READ,
					  &out->chunk);
	if (IS_ERR(ch->mr)) {
		rc = PTR_ERR(ch->mr);
		ch->mr = NULL;
		goto out_put;
	}
	out->flags |= XRDMA_HDR_CHUNK;
	out->data = NULL;
	out->len = 0;
	out->slot = ch;
	rc = xrdma_send_wait(xprt, out);
	if (!rc)
		return 0;
out_put:
	xrdma_chunk_put(xprt, ch);
	return rc;
}

/**
 * xrdma_chunk_done() - the peer pulled a chunk of ours
 * @xprt: the transport
 * @rkey: the key of the chunk, from the peer's DONE
 *
 * Releases the registration (the peer may have invalidated it with its
 * Send already) and frees the copy; a sender waiting for a slot wakes.
 *
 * Context: the receive CQ's work item; may sleep.
 * Return: 0, or -EPROTO when no chunk of ours has that key.
 */
int xrdma_chunk_done(struct xrdma_xprt *xprt, u32 rkey)
{
	struct xrdma_chunk *ch = NULL;
	unsigned int i;

	spin_lock(&xprt->send_lock);
	for (i = 0; i < XRDMA_MAX_CHUNKS; i++) {
		if (xprt->chunks[i].armed && xprt->chunks[i].rkey == rkey) {
			ch = &xprt->chunks[i];
			ch->armed = false;
			break;
		}
	}
	spin_unlock(&xprt->send_lock);
	if (!ch)
		return -EPROTO;
	xrdma_chunk_put(xprt, ch);
	return 0;
}

/**
 * xrdma_chunks_reset() - forget the chunks of a connection that is gone
 * @xprt: the transport; its QP is drained and its MRs destroyed, so the
 *	registrations are dead handles
 *
 * Armed chunks are freed; a slot a sender still holds (not armed yet)
 * is the sender's to give back when its Send fails.  A DONE we owed
 * the peer is moot.
 *
 * Context: process context, may sleep; under @xprt->mutex.
 */
void xrdma_chunks_reset(struct xrdma_xprt *xprt)
{
	struct xrdma_chunk *ch;
	unsigned int i;
	bool armed;

	lockdep_assert_held(&xprt->mutex);
	for (i = 0; i < XRDMA_MAX_CHUNKS; i++) {
		ch = &xprt->chunks[i];
		spin_lock(&xprt->send_lock);
		armed = ch->armed;
		ch->armed = false;
		spin_unlock(&xprt->send_lock);
		if (armed)
			xrdma_chunk_put(xprt, ch);
	}
	spin_lock(&xprt->send_lock);
	xprt->ndone = 0;
	xprt->done_due = 0;
	spin_unlock(&xprt->send_lock);
}

static void xrdma_wc_pull(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xrdma_xprt *xprt = xrdma_cq_xprt(cq);

	xrdma_flush_disconnect(xprt, wc);
	xrdma_wr_wait_done(xprt, &xprt->pull.wait, wc);
}

/**
 * xrdma_pull_init() - set up the transport's pull context
 * @xprt: the transport being made
 *
 * Context: any.
 */
void xrdma_pull_init(struct xrdma_xprt *xprt)
{
	xrdma_wr_wait_init(&xprt->pull.wait, xrdma_wc_pull);
}

/* One RDMA READ of the whole chunk into @buf, waited for. */
static int xrdma_chunk_pull(struct xrdma_xprt *xprt,
			    const struct xrdma_remote *rem, void *buf)
{
	struct ib_sge sge = { .length = rem->len };
	struct ib_rdma_wr wr = {
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
		.wr.opcode = IB_WR_RDMA_READ,
		.remote_addr = rem->addr,
		.rkey = rem->rkey,
	};
	struct xrdma_remote local;
	struct xrdma_mr *mr;
	int rc;

	mr = xrdma_mr_register(xprt, buf, rem->len, false, &local);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	sge.addr = local.addr;
	rc = xrdma_mr_lkey(xprt, mr, &sge.lkey);
	if (!rc)
		rc = xrdma_wr_wait_post(xprt, &wr.wr, &xprt->pull.wait, NULL);
	xrdma_mr_release(xprt, mr);
	return rc;
}

/**
 * xrdma_chunk_recv() - take in a chunked message
 * @xprt: the transport
 * @chunk: where the peer advertised it, checked by the header's decoder
 *
 * Pulls it, hands it to the user, and makes sure the peer hears that
 * we are done with it: by a Send of the user's callback, or one of its
 * own.
 *
 * Context: the receive CQ's work item; may sleep.
 * Return: 0, or the error that lost the message (the caller forces a
 * disconnect).
 */
int xrdma_chunk_recv(struct xrdma_xprt *xprt, const struct xrdma_remote *chunk)
{
	void *buf;
	int rc;

	buf = kvmalloc(chunk->len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	rc = xrdma_chunk_pull(xprt, chunk, buf);
	if (rc)
		goto out;
	rc = xrdma_done_owe(xprt, chunk->rkey);
	if (rc)
		goto out;
	spin_lock(&xprt->send_lock);
	xprt->info.chunks_received++;
	spin_unlock(&xprt->send_lock);
	xprt->ops->recv(xprt, buf, chunk->len);
	rc = xrdma_send_done(xprt);
	/* Large messages travel here: the next ones may be pushed. */
	xrdma_land_refill(xprt);
out:
	kvfree(buf);
	return rc;
}
