// SPDX-License-Identifier: GPL-2.0
/*
 * The server's side of RDMA and one-way tests: per connection, a buffer
 * registered for the peer's READs and WRITEs, and a sink for a stream
 * of Sends.  The state lives from the connection's first control
 * message until the transport is destroyed (xrdma_ops.closed).
 *
 * The buffer is the device's while registered: the server releases the
 * registration (which invalidates the key) before it looks at or
 * changes the data, and registers it again afterwards, so every answer
 * advertises a new key.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "xrping.h"

/**
 * struct xrping_peer - what the server keeps for one connection
 * @node: on the server's list
 * @xprt: the connection's transport
 * @buf: the exposed buffer, or NULL
 * @len: its length
 * @mr: its registration while exposed, or NULL
 * @desc: what was advertised
 * @sink_left: messages the sink still takes
 * @sink_seq: the number of the next one
 * @sink_len: the size of each
 * @sink_errors: bad messages it took
 *
 * Used from the transport's receive callback only, one call at a time,
 * and from its closed callback after the last of those.
 */
struct xrping_peer {
	struct list_head node;
	struct xrdma_xprt *xprt;
	void *buf;
	u32 len;
	struct xrdma_mr *mr;
	struct xrdma_remote desc;
	u32 sink_left;
	u32 sink_seq;
	u32 sink_len;
	u64 sink_errors;
};

static struct xrping_peer *xrping_peer_find(struct xrping_server *srv,
					    struct xrdma_xprt *xprt)
{
	struct xrping_peer *peer, *found = NULL;

	spin_lock(&srv->peers_lock);
	list_for_each_entry(peer, &srv->peers, node) {
		if (peer->xprt == xprt) {
			found = peer;
			break;
		}
	}
	spin_unlock(&srv->peers_lock);
	return found;
}

static struct xrping_peer *xrping_peer_get(struct xrping_server *srv,
					   struct xrdma_xprt *xprt)
{
	struct xrping_peer *peer = xrping_peer_find(srv, xprt);

	if (peer)
		return peer;
	peer = kzalloc(sizeof(*peer), GFP_KERNEL);
	if (!peer)
		return NULL;
	peer->xprt = xprt;
	spin_lock(&srv->peers_lock);
	list_add(&peer->node, &srv->peers);
	spin_unlock(&srv->peers_lock);
	return peer;
}

static void xrping_peer_unexpose(struct xrping_peer *peer)
{
	if (!peer->mr)
		return;
	xrdma_mr_release(peer->xprt, peer->mr);
	peer->mr = NULL;
}

static int xrping_peer_expose(struct xrping_server *srv,
			      struct xrping_peer *peer)
{
	struct xrdma_mr *mr;

	mr = xrdma_mr_register(peer->xprt, peer->buf, peer->len, true,
			       &peer->desc);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	peer->mr = mr;
	atomic64_inc(&srv->registered);
	return 0;
}

/* A buffer of @len bytes, the old one if it has that size. */
static int xrping_peer_alloc(struct xrping_peer *peer, u32 len)
{
	if (!len || len > XRPING_MAX_SIZE)
		return -EINVAL;
	xrping_peer_unexpose(peer);
	if (peer->buf && peer->len == len)
		return 0;
	kvfree(peer->buf);
	peer->len = 0;
	peer->buf = kvmalloc(len, GFP_KERNEL);
	if (!peer->buf)
		return -ENOMEM;
	peer->len = len;
	return 0;
}

/* FILL and VERIFY: take the buffer back from the device first. */
static int xrping_peer_check(struct xrping_server *srv,
			     struct xrping_peer *peer, u32 cmd, u32 seq,
			     u32 len)
{
	int rc = 0;

	if (!peer->buf || !len || len > peer->len)
		return -EINVAL;
	xrping_peer_unexpose(peer);
	if (cmd == XRPING_CTL_FILL) {
		xrping_fill(peer->buf, len, seq);
	} else if (xrping_valid(peer->buf, len, len, seq)) {
		atomic64_inc(&srv->verified);
	} else {
		atomic64_inc(&srv->bad);
		rc = -EBADMSG;
	}
	return rc;
}

static int xrping_peer_request(struct xrping_server *srv,
			       struct xrping_peer *peer,
			       const struct xrping_ctl *req,
			       struct xrping_ctl *rep)
{
	u32 cmd = le32_to_cpu(req->cmd), seq = le32_to_cpu(req->seq);
	u32 len = le32_to_cpu(req->len);
	int rc, vrc;

	switch (cmd) {
	case XRPING_CTL_EXPOSE:
		rc = xrping_peer_alloc(peer, len);
		if (rc)
			return rc;
		xrping_fill(peer->buf, len, seq);
		return xrping_peer_expose(srv, peer);
	case XRPING_CTL_VERIFY:
	case XRPING_CTL_FILL:
		vrc = xrping_peer_check(srv, peer, cmd, seq, len);
		if (vrc == -EINVAL)
			return vrc;
		rc = xrping_peer_expose(srv, peer);
		return vrc ? vrc : rc;
	case XRPING_CTL_SINK:
		peer->sink_left = le64_to_cpu(req->count);
		peer->sink_seq = 0;
		peer->sink_len = len;
		peer->sink_errors = 0;
		return 0;
	case XRPING_CTL_STATS:
		rep->count = cpu_to_le64(peer->sink_seq);
		rep->errors = cpu_to_le64(peer->sink_errors);
		return 0;
	default:
		return -EPROTO;
	}
}

/**
 * xrping_server_ctl() - answer a control request
 * @srv: the server
 * @xprt: the accepted transport it came on
 * @req: the request
 *
 * The reply carries the status and, while a buffer is exposed, its
 * address, key and length.
 *
 * Context: the transport's receive callback; may sleep.
 */
void xrping_server_ctl(struct xrping_server *srv, struct xrdma_xprt *xprt,
		       const struct xrping_ctl *req)
{
	u32 cmd = le32_to_cpu(req->cmd);
	struct xrping_peer *peer;
	struct xrping_ctl rep;
	int rc = -ENOMEM, sent;

	xrping_ctl_init(&rep, cmd | XRPING_CTL_REPLY, le32_to_cpu(req->seq),
			le32_to_cpu(req->len));
	peer = xrping_peer_get(srv, xprt);
	if (peer)
		rc = xrping_peer_request(srv, peer, req, &rep);
	if (peer && peer->mr) {
		rep.addr = cpu_to_le64(peer->desc.addr);
		rep.rkey = cpu_to_le32(peer->desc.rkey);
		rep.len = cpu_to_le32(peer->desc.len);
	}
	rep.status = cpu_to_le32((u32)rc);
	sent = xrdma_send(xprt, &rep, sizeof(rep));
	if (sent) {
		pr_debug("reply to request %#x (status %d) not sent: %d\n",
			 cmd, rc, sent);
		atomic64_inc(&srv->errors);
	}
}

/**
 * xrping_server_sink() - take a message into the connection's sink
 * @srv: the server
 * @xprt: the accepted transport it came on
 * @data: the message
 * @len: its length
 *
 * Context: the transport's receive callback.
 * Return: true if a sink took it (no echo), false if there is none.
 */
bool xrping_server_sink(struct xrping_server *srv, struct xrdma_xprt *xprt,
			const void *data, u32 len)
{
	struct xrping_peer *peer = xrping_peer_find(srv, xprt);

	if (!peer || !peer->sink_left)
		return false;
	if (!xrping_valid(data, len, peer->sink_len, peer->sink_seq)) {
		peer->sink_errors++;
		atomic64_inc(&srv->bad);
	}
	peer->sink_seq++;
	peer->sink_left--;
	atomic64_inc(&srv->sunk);
	return true;
}

/* What a transport's chunks and invalidations came to, for STATS. */
static void xrping_server_add_xinfo(struct xrping_server *srv,
				    struct xrdma_xprt *xprt)
{
	struct xrdma_info info;

	xrdma_get_info(xprt, &info);
	spin_lock(&srv->xinfo_lock);
	xrping_xinfo_add(&srv->xinfo, &info);
	spin_unlock(&srv->xinfo_lock);
}

/**
 * xrping_server_closed() - drop a connection's state
 * @xprt: an accepted transport being destroyed
 *
 * Its registration goes back (a dead handle by now) before the
 * transport does; its counters go into the server's.
 *
 * Context: xrdma_ops.closed: process context, no callback of @xprt
 * runs any more.
 */
void xrping_server_closed(struct xrdma_xprt *xprt)
{
	struct xrping_server *srv = xrdma_xprt_priv(xprt);
	struct xrping_peer *peer = xrping_peer_find(srv, xprt);

	xrping_server_add_xinfo(srv, xprt);
	if (!peer)
		return;
	spin_lock(&srv->peers_lock);
	list_del(&peer->node);
	spin_unlock(&srv->peers_lock);
	xrping_peer_unexpose(peer);
	kvfree(peer->buf);
	kfree(peer);
}
