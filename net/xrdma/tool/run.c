// SPDX-License-Identifier: GPL-2.0
/*
 * xrping's client run: open the connections, ping-pong on each with a
 * pattern that depends on the message's number, check every echo byte
 * by byte, time every round trip and every connection step, close.
 *
 * With one message in flight that fits inline (and the test's chain
 * option on), the receive callback sends the next one itself, as the
 * server's echoes it: a round trip then wakes no thread of ours, only
 * the CQs' work items, as the verbs floor's wakes its one thread once
 * each way.  A larger message stays with the thread: rxe builds a
 * WRITE's packets in the poster's context, and the bound receive work
 * item cannot move to the idle vCPU for that as the thread can
 * (Documentation/benchmarks.rst).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "xrping.h"

/**
 * struct xrping_conn - one connection of a run
 * @xprt: its transport
 * @wait: woken by each echo; in a chained run by the last one or a
 *	failed send only
 * @sent: messages sent
 * @echoed: echoes received (they come back in order)
 * @errors: echoes that did not match their message
 * @size: the message size
 * @window: messages in flight at most
 * @t_sent: when each message in the window was sent, by seq % window
 * @rtt: where the round-trip times go, one per echo
 * @msg: scratch buffer for the message being sent
 * @connects: the transport's connection count after the first connect
 * @inline_send: the largest message that goes inline on the connection
 * @chain: the run may let the receive callback send (xrping_params)
 * @target: 0, or the messages of a run whose receive callback sends
 *	each next message itself (one in flight, inline)
 * @rc: the error of a send from the receive callback
 *
 * @echoed, @errors, @rtt and @rc are written by the receive callback
 * only; @sent, @t_sent and @msg by the run, or once the run set
 * @target by the callback only; a slot of @t_sent is rewritten only after
 * its echo came.
 */
struct xrping_conn {
	struct xrdma_xprt *xprt;
	wait_queue_head_t wait;
	u32 sent;
	u32 echoed;
	u32 errors;
	u32 size;
	u32 window;
	u64 *t_sent;
	u64 *rtt;
	u8 *msg;
	u64 connects;
	u32 inline_send;
	bool chain;
	u32 target;
	int rc;
};

/* The next message: filled, then timed from its send.  One that goes
 * inline is written in the request buffer it leaves from.
 */
static int xrping_send_next(struct xrping_conn *c)
{
	struct xrdma_buf *buf = NULL;
	u8 *data = c->msg;
	u32 seq = c->sent;

	if (c->size <= c->inline_send) {
		data = xrdma_send_buf_get(c->xprt, c->size, &buf);
		if (IS_ERR(data))
			return PTR_ERR(data);
	}
	xrping_fill(data, c->size, seq);
	c->t_sent[seq % c->window] = ktime_get_ns();
	/* The echo may come before the send returns. */
	WRITE_ONCE(c->sent, seq + 1);
	if (buf)
		return xrdma_send_buf_post(c->xprt, buf, c->size);
	return xrdma_send(c->xprt, c->msg, c->size);
}

/* Runs in the receive CQ's work item, one echo at a time, in order.
 * In a chained run the thread hears only of the last echo or of a
 * failed send.
 */
static void xrping_client_recv(struct xrdma_xprt *xprt, const void *data,
			       u32 len)
{
	struct xrping_conn *c = xrdma_xprt_priv(xprt);
	u32 seq = c->echoed;
	int rc;

	if (seq == READ_ONCE(c->sent)) {
		c->errors++;	/* an echo of nothing we sent */
		return;
	}
	/* Timed before the check: the latency is the transport's. */
	c->rtt[seq] = ktime_get_ns() - c->t_sent[seq % c->window];
	if (!xrping_valid(data, len, c->size, seq))
		c->errors++;
	/* Pairs with the acquire in xrping_echoed(). */
	smp_store_release(&c->echoed, seq + 1);
	if (seq + 1 < c->target && !c->rc) {
		rc = xrping_send_next(c);
		if (!rc)
			return;	/* the chain goes on: nobody to wake */
		WRITE_ONCE(c->rc, rc);
	}
	wake_up(&c->wait);
}

/**
 * xrping_dial() - create a client transport and connect it
 * @p: the test: transport options and the server's address
 * @ops: the transport's callbacks
 * @priv: their pointer
 * @xprtp: set to the transport, NULL if there is none
 *
 * Context: process context, may sleep.
 * Return: 0, or the error of creating or connecting; a transport made
 * stays in *@xprtp for the caller to destroy.
 */
int xrping_dial(const struct xrping_params *p, const struct xrdma_ops *ops,
		void *priv, struct xrdma_xprt **xprtp)
{
	struct xrdma_xprt *xprt = xrdma_xprt_create(&p->opts, ops, priv);

	if (IS_ERR(xprt)) {
		*xprtp = NULL;
		return PTR_ERR(xprt);
	}
	*xprtp = xprt;
	return xrdma_connect(xprt, current->nsproxy->net_ns,
			     (const struct sockaddr *)&p->addr);
}

static const struct xrdma_ops xrping_client_ops = {
	.recv = xrping_client_recv,
};

static void xrping_add_steps(struct xrping_result *res,
			     const struct xrdma_info *info, int from, int to)
{
	int i;

	for (i = from; i <= to; i++)
		xrping_stat_add(&res->steps[i], info->step_ns[i]);
}

static int xrping_open(const struct xrping_params *p, struct xrping_conn *c,
		       struct xrping_result *res)
{
	struct xrdma_info info;
	int rc;

	c->size = p->size;
	c->window = p->window;
	c->chain = p->chain;
	init_waitqueue_head(&c->wait);
	c->msg = kvmalloc(p->size, GFP_KERNEL);
	c->t_sent = kcalloc(p->window, sizeof(*c->t_sent), GFP_KERNEL);
	if (!c->msg || !c->t_sent)
		return -ENOMEM;
	rc = xrping_dial(p, &xrping_client_ops, c, &c->xprt);
	if (rc)
		return rc;
	xrdma_get_info(c->xprt, &info);
	c->connects = info.connects;
	c->inline_send = info.inline_send;
	xrping_add_steps(res, &info, XRDMA_STEP_CREATE_ID,
			 XRDMA_STEP_ESTABLISHED);
	return 0;
}

static void xrping_close(struct xrping_conn *c, struct xrping_result *res)
{
	struct xrdma_info info;

	if (c->xprt) {
		xrdma_get_info(c->xprt, &info);
		xrping_xinfo_add(&res->xinfo, &info);
		res->reconnects += info.connects - c->connects;
		if (info.connected) {
			xrdma_disconnect(c->xprt);
			xrdma_get_info(c->xprt, &info);
			xrping_add_steps(res, &info, XRDMA_STEP_DISCONNECT,
					 XRDMA_STEP_DESTROY);
		}
		xrdma_xprt_destroy(c->xprt);
	}
	kfree(c->t_sent);
	kvfree(c->msg);
}

static bool xrping_echoed(struct xrping_conn *c, u32 until)
{
	/* Pairs with the release in xrping_client_recv(): the round-trip
	 * times of those echoes are written.
	 */
	return smp_load_acquire(&c->echoed) >= until;
}

/* Wait for an echo: for room in the window, or for the last one. */
static int xrping_wait_echo(struct xrping_conn *c, u32 until, unsigned int ms)
{
	long left = msecs_to_jiffies(ms) + 1;

	left = wait_event_interruptible_timeout(c->wait,
						xrping_echoed(c, until), left);
	if (left < 0)
		return left;
	return left ? 0 : -ETIMEDOUT;
}

static bool xrping_chain_over(struct xrping_conn *c, u32 n)
{
	return xrping_echoed(c, n) || READ_ONCE(c->rc);
}

/* Until @n echoes came or a send failed; -ETIMEDOUT once no echo came
 * for @ms.  The receive callback wakes us only at the end.
 */
static int xrping_wait_chain(struct xrping_conn *c, u32 n, unsigned int ms)
{
	long left;
	u32 seen;

	for (;;) {
		seen = READ_ONCE(c->echoed);
		left = wait_event_interruptible_timeout(c->wait,
							xrping_chain_over(c, n),
							msecs_to_jiffies(ms) + 1);
		if (left < 0)
			return left;
		if (READ_ONCE(c->rc))
			return READ_ONCE(c->rc);
		if (left)
			return 0;
		if (READ_ONCE(c->echoed) == seen)
			return -ETIMEDOUT;
	}
}

static int xrping_conn_run(struct xrping_conn *c, u32 n, unsigned int ms)
{
	int rc;

	if (c->chain && c->window == 1 && n && c->size <= c->inline_send) {
		c->target = n;
		rc = xrping_send_next(c);
		return rc ? rc : xrping_wait_chain(c, n, ms);
	}
	while (c->sent < n) {
		if (c->sent >= c->window) {
			rc = xrping_wait_echo(c, c->sent - c->window + 1, ms);
			if (rc)
				return rc;
		}
		rc = xrping_send_next(c);
		if (rc)
			return rc;
	}
	return xrping_wait_echo(c, n, ms);
}

static bool xrping_connected(struct xrping_conn *c)
{
	struct xrdma_info info;

	xrdma_get_info(c->xprt, &info);
	return info.connected;
}

/* Wait for the transport's reconnect, polled: nothing wakes us. */
static int xrping_wait_reconnect(struct xrping_conn *c)
{
	unsigned int waited;

	for (waited = 0; waited < XRPING_RECONNECT_WAIT_MS; waited += 50) {
		if (xrping_connected(c))
			return 0;
		if (msleep_interruptible(50))
			return -EINTR;
	}
	return -ETIMEDOUT;
}

/* The echo of @seq, given up early if the connection goes. */
static int xrping_wait_echo_or_loss(struct xrping_conn *c, u32 seq,
				    unsigned int ms)
{
	unsigned int waited;
	int rc;

	for (waited = 0; waited < ms; waited += 100) {
		rc = xrping_wait_echo(c, seq + 1, min(ms - waited, 100U));
		if (rc != -ETIMEDOUT)
			return rc;
		if (!xrping_connected(c))
			return -ENOTCONN;
	}
	return -ETIMEDOUT;
}

/* One message at a time, surviving lost connections: a message whose
 * echo did not come is sent again once the transport reconnected.  A
 * push whose WRITE failed (-EIO) is lost with its connection too: the
 * peer that went away may have taken its landing buffer with it before
 * the connection was seen to go.
 */
static int xrping_conn_run_reconnect(struct xrping_conn *c, u32 n,
				     unsigned int ms)
{
	u32 seq;
	int rc;

	for (seq = 0; seq < n; seq++) {
		xrping_fill(c->msg, c->size, seq);
		WRITE_ONCE(c->sent, seq + 1);
		for (;;) {
			c->t_sent[0] = ktime_get_ns();
			rc = xrdma_send(c->xprt, c->msg, c->size);
			if (!rc)
				rc = xrping_wait_echo_or_loss(c, seq, ms);
			if (!rc)
				break;
			if (rc != -ENOTCONN && rc != -ETIMEDOUT && rc != -EIO)
				return rc;
			rc = xrping_wait_reconnect(c);
			if (rc)
				return rc;
			/* The echo may have come after we saw the loss: the
			 * teardown delivers every message received before the
			 * transport reconnects.  Sent again, it would come
			 * twice.
			 */
			if (xrping_echoed(c, seq + 1))
				break;
		}
	}
	return 0;
}

static int xrping_pingpong(const struct xrping_params *p,
			   struct xrping_conn *conns, u64 *rtt,
			   struct xrping_result *res)
{
	u32 i, n, at = 0;
	int rc = 0;

	for (i = 0; i < p->conns && !rc; i++) {
		n = p->count / p->conns + (i < p->count % p->conns);
		conns[i].rtt = rtt + at;
		if (p->opts.reconnect_ms)
			rc = xrping_conn_run_reconnect(&conns[i], n,
						       p->opts.timeout_ms);
		else
			rc = xrping_conn_run(&conns[i], n, p->opts.timeout_ms);
		at += conns[i].echoed;
		res->errors += conns[i].errors;
	}
	res->messages = at;
	return rc;
}

/**
 * xrping_run() - run a ping-pong test
 * @p: the parameters, checked by the configfs attributes
 * @res: the results, zeroed here
 *
 * Context: process context, may sleep for as long as the test lasts.
 */
void xrping_run(const struct xrping_params *p, struct xrping_result *res)
{
	struct xrping_conn *conns;
	u64 *rtt, start;
	u32 i;

	memset(res, 0, sizeof(*res));
	conns = kcalloc(p->conns, sizeof(*conns), GFP_KERNEL);
	rtt = kvmalloc_array(max(p->count, 1U), sizeof(*rtt), GFP_KERNEL);
	if (!conns || !rtt) {
		res->rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->conns && !res->rc; i++)
		res->rc = xrping_open(p, &conns[i], res);
	if (!res->rc) {
		start = ktime_get_ns();
		res->rc = xrping_pingpong(p, conns, rtt, res);
		res->elapsed_ns = ktime_get_ns() - start;
	}
	if (res->messages) {
		res->has_lat = true;
		xrping_latency(rtt, res->messages, res);
	}
	res->bytes = res->messages * p->size * 2;
	for (i = 0; i < p->conns; i++)
		xrping_close(&conns[i], res);
out:
	kvfree(rtt);
	kfree(conns);
}
