// SPDX-License-Identifier: GPL-2.0
/*
 * xrping's RDMA and one-way runs, on one connection:
 *
 * - write/read pingpong: per message, register the local buffer (a new
 *   key each time), one RDMA WRITE or READ timed from post to
 *   completion, release it; a WRITE is checked by the server (VERIFY),
 *   a READ here, against the pattern of the message's number, and the
 *   server fills its buffer for the next READ (FILL).  Every answer of
 *   the server advertises a new registration; VERIFY and FILL invalidate
 *   the key they end at the server (SEND_WITH_INV) where the devices
 *   allow it.
 * - write/read bw: @count operations of @size, @window in flight, into
 *   or out of one exposed buffer; the data is checked at the end.  With
 *   @chain the completion of each operation posts the next
 *   (xrdma_rdma_nowait()), else the run's thread posts every one.
 * - duplex (write or read): WRITEs and READs of the same pattern
 *   interleaved, @count of each, so data flows both ways at once.
 * - send bw: the server sinks @count messages and validates each; its
 *   tally comes back in STATS.
 * - write stale: a WRITE under the key of a registration the server
 *   has invalidated and replaced since (FILL, which invalidated it by
 *   SEND_WITH_INV): the device must refuse it, which ends the
 *   connection.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/net_namespace.h>

#include "xrping.h"

/**
 * struct xrping_chain - a one-way stream of RDMA operations, chained
 * @mr: the local buffer
 * @op: WRITE or READ
 * @size: bytes per operation
 * @total: operations in all
 */
struct xrping_chain {
	struct xrdma_mr *mr;
	enum xrdma_rdma_op op;
	u32 size;
	u32 total;
};

/**
 * struct xrping_rconn - the client side of an RDMA or one-way run
 * @xprt: its transport
 * @wait: woken by replies and completions
 * @reply: the last control reply (written by the receive callback)
 * @replies: replies received
 * @stray: messages that were no reply
 * @done: RDMA operations completed well
 * @failed: RDMA operations that failed
 * @rem: the server's buffer, as last advertised
 * @rkeys: every key the server advertised, @nkeys of them (at most
 *	@maxkeys kept)
 * @nkeys: how many
 * @maxkeys: room in @rkeys
 * @chain: the stream whose completions post its next operations; no
 *	chain while its @total is 0 (set by the run before its first post)
 * @posted: the chained stream's operations posted so far, or taken by
 *	the run to stop the chain
 * @chain_rc: the error of a post from the completion callback
 */
struct xrping_rconn {
	struct xrdma_xprt *xprt;
	wait_queue_head_t wait;
	struct xrping_ctl reply;
	u32 replies;
	u32 stray;
	atomic_t done;
	atomic_t failed;
	struct xrdma_remote rem;
	u32 *rkeys;
	u32 nkeys;
	u32 maxkeys;
	struct xrping_chain chain;
	atomic_t posted;
	int chain_rc;
};

static void xrping_rconn_recv(struct xrdma_xprt *xprt, const void *data,
			      u32 len)
{
	struct xrping_rconn *c = xrdma_xprt_priv(xprt);

	if (!xrping_ctl_parse(data, len, &c->reply)) {
		c->stray++;
		return;
	}
	/* Pairs with the acquire in xrping_replied(). */
	smp_store_release(&c->replies, c->replies + 1);
	wake_up(&c->wait);
}

/* Operation @i of @total: all but the last have more behind them. */
static enum xrdma_rdma_op xrping_op_more(enum xrdma_rdma_op op, u32 i,
					 u32 total)
{
	return i + 1 < total ? op | XRDMA_RDMA_MORE : op;
}

/* Post the chain's next operation: false when none is left or the
 * chain broke (@status of the completion that asks, or a failed post),
 * which the run is to hear of.
 */
static bool xrping_chain_next(struct xrping_rconn *c, int status)
{
	const struct xrping_chain *ch = &c->chain;
	u32 i;
	int rc;

	if (status)
		WRITE_ONCE(c->chain_rc, status);
	if (READ_ONCE(c->chain_rc))
		return false;
	i = atomic_inc_return(&c->posted) - 1;
	if (i >= ch->total)
		return false;
	rc = xrdma_rdma_nowait(c->xprt, xrping_op_more(ch->op, i, ch->total),
			       ch->mr, 0, &c->rem, 0, ch->size, i);
	if (rc)
		WRITE_ONCE(c->chain_rc, rc);
	return !rc;
}

static void xrping_rconn_done(struct xrdma_xprt *xprt, u64 cookie,
			      int status)
{
	struct xrping_rconn *c = xrdma_xprt_priv(xprt);

	atomic_inc(status ? &c->failed : &c->done);
	if (c->chain.total && xrping_chain_next(c, status))
		return;
	wake_up(&c->wait);
}

static const struct xrdma_ops xrping_rconn_ops = {
	.recv = xrping_rconn_recv,
	.rdma_done = xrping_rconn_done,
};

static bool xrping_replied(struct xrping_rconn *c, u32 n)
{
	/* Pairs with the release in xrping_rconn_recv(): the reply is
	 * written.
	 */
	return smp_load_acquire(&c->replies) >= n;
}

/* VERIFY and FILL end our use of the key we were given: the server
 * registers its buffer again before it answers.  The request then
 * invalidates that key at the server, where the devices allow it.
 */
static int xrping_call_send(struct xrping_rconn *c,
			    const struct xrping_ctl *req)
{
	u32 cmd = le32_to_cpu(req->cmd);

	if (c->nkeys && (cmd == XRPING_CTL_VERIFY || cmd == XRPING_CTL_FILL))
		return xrdma_send_inv(c->xprt, req, sizeof(*req), c->rem.rkey);
	return xrdma_send(c->xprt, req, sizeof(*req));
}

/* Wait until @done(@c, @n); -ETIMEDOUT once @moved(@c) stood still
 * for @ms, else 0 or -ERESTARTSYS.
 */
static int xrping_wait_moving(struct xrping_rconn *c,
			      bool (*done)(struct xrping_rconn *c, u32 n),
			      u32 n, u64 (*moved)(struct xrping_rconn *c),
			      unsigned int ms)
{
	long tmo = msecs_to_jiffies(ms) + 1, left;
	u64 seen;

	do {
		seen = moved(c);
		left = wait_event_interruptible_timeout(c->wait, done(c, n),
							tmo);
		if (left < 0)
			return left;
	} while (!left && moved(c) != seen);
	return left ? 0 : -ETIMEDOUT;
}

/* Registrations of ours ended so far.  While a call waits, only the
 * server ends any: the DONE for each chunk of ours it pulled does.
 */
static u64 xrping_peer_progress(struct xrping_rconn *c)
{
	struct xrdma_info info;

	xrdma_get_info(c->xprt, &info);
	return info.mr_invs + info.mr_invs_skipped;
}

/* One control request and its reply; the reply's buffer, if any, is
 * the one to use from now on.  A request queued behind a stream of
 * chunks is answered once the server has pulled them all, which over a
 * slow device takes longer than @p->opts.timeout_ms: the call is
 * stalled only when, meanwhile, the server finished none.
 */
static int xrping_call(struct xrping_rconn *c, const struct xrping_params *p,
		       struct xrping_ctl *req)
{
	u32 want = c->replies + 1;
	int rc;

	rc = xrping_call_send(c, req);
	if (!rc)
		rc = xrping_wait_moving(c, xrping_replied, want,
					xrping_peer_progress,
					p->opts.timeout_ms);
	if (rc)
		return rc;
	if (le32_to_cpu(c->reply.cmd) !=
	    (le32_to_cpu(req->cmd) | XRPING_CTL_REPLY))
		return -EPROTO;
	if (c->reply.rkey || c->reply.addr) {
		c->rem.addr = le64_to_cpu(c->reply.addr);
		c->rem.rkey = le32_to_cpu(c->reply.rkey);
		c->rem.len = le32_to_cpu(c->reply.len);
		if (c->nkeys < c->maxkeys)
			c->rkeys[c->nkeys] = c->rem.rkey;
		c->nkeys++;
	}
	return (int)le32_to_cpu(c->reply.status);
}

static int xrping_ctl(struct xrping_rconn *c, const struct xrping_params *p,
		      u32 cmd, u32 seq, u32 len, u64 count)
{
	struct xrping_ctl req;

	xrping_ctl_init(&req, cmd, seq, len);
	req.count = cpu_to_le64(count);
	return xrping_call(c, p, &req);
}

static u64 xrping_ops_count(struct xrping_rconn *c)
{
	return atomic_read(&c->done) + atomic_read(&c->failed);
}

static bool xrping_ops_done(struct xrping_rconn *c, u32 n)
{
	return xrping_ops_count(c) >= n || READ_ONCE(c->chain_rc);
}

/* Wait until @n operations completed, well or not, or a chained post
 * failed; -ETIMEDOUT once none completed for @ms.  A chain's callback
 * wakes us only at its end.
 */
static int xrping_wait_ops(struct xrping_rconn *c, u32 n, unsigned int ms)
{
	int rc = xrping_wait_moving(c, xrping_ops_done, n, xrping_ops_count,
				    ms);

	return READ_ONCE(c->chain_rc) ?: rc;
}

static int xrping_open_rconn(const struct xrping_params *p,
			     struct xrping_rconn *c,
			     struct xrping_result *res)
{
	struct xrdma_info info;
	int i, rc;

	init_waitqueue_head(&c->wait);
	atomic_set(&c->done, 0);
	atomic_set(&c->failed, 0);
	c->maxkeys = p->count + 2;
	c->rkeys = kvcalloc(c->maxkeys, sizeof(*c->rkeys), GFP_KERNEL);
	if (!c->rkeys)
		return -ENOMEM;
	rc = xrping_dial(p, &xrping_rconn_ops, c, &c->xprt);
	if (rc)
		return rc;
	xrdma_get_info(c->xprt, &info);
	for (i = XRDMA_STEP_CREATE_ID; i <= XRDMA_STEP_ESTABLISHED; i++)
		xrping_stat_add(&res->steps[i], info.step_ns[i]);
	return 0;
}

static int xrping_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* How many keys of those kept appear once only. */
static u64 xrping_distinct(u32 *keys, u32 n)
{
	u64 distinct = 0;
	u32 i;

	sort(keys, n, sizeof(*keys), xrping_cmp_u32, NULL);
	for (i = 0; i < n; i++)
		if ((!i || keys[i] != keys[i - 1]) &&
		    (i + 1 == n || keys[i] != keys[i + 1]))
			distinct++;
	return distinct;
}

static void xrping_close_rconn(struct xrping_rconn *c,
			       struct xrping_result *res)
{
	if (c->xprt) {
		xrdma_get_info(c->xprt, &res->xinfo);
		xrdma_xprt_destroy(c->xprt);
	}
	res->rkeys = c->nkeys;
	if (c->rkeys)
		res->rkeys_distinct = xrping_distinct(c->rkeys,
						      min(c->nkeys,
							  c->maxkeys));
	kvfree(c->rkeys);
}

/* One operation on the whole buffer, waited for; returns its time. */
static int xrping_rdma_once(struct xrping_rconn *c,
			    const struct xrping_params *p,
			    enum xrdma_rdma_op op, void *buf, u64 *ns)
{
	struct xrdma_remote local;
	struct xrdma_mr *mr;
	u32 n = xrping_ops_count(c) + 1;
	u64 start;
	int rc;

	mr = xrdma_mr_register(c->xprt, buf, p->size, false, &local);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	start = ktime_get_ns();
	rc = xrdma_rdma(c->xprt, op, mr, 0, &c->rem, 0, p->size, n);
	if (!rc)
		rc = xrping_wait_ops(c, n, p->opts.timeout_ms);
	*ns = ktime_get_ns() - start;
	if (!rc && atomic_read(&c->failed))
		rc = -EIO;
	/* Released only when the device is done with it, which a
	 * timeout does not say: the teardown then frees it.
	 */
	if (rc != -ETIMEDOUT && rc != -ERESTARTSYS)
		xrdma_mr_release(c->xprt, mr);
	return rc;
}

static int xrping_rdma_pingpong(struct xrping_rconn *c,
				const struct xrping_params *p, u8 *buf,
				u64 *rtt, struct xrping_result *res)
{
	enum xrdma_rdma_op op = p->op == XRPING_OP_READ ? XRDMA_RDMA_READ :
							  XRDMA_RDMA_WRITE;
	u32 seq;
	int rc;

	for (seq = 0; seq < p->count; seq++) {
		if (op == XRDMA_RDMA_WRITE)
			xrping_fill(buf, p->size, seq);
		else
			memset(buf, 0, p->size);
		rc = xrping_rdma_once(c, p, op, buf, &rtt[seq]);
		if (rc)
			return rc;
		if (op == XRDMA_RDMA_WRITE)
			rc = xrping_ctl(c, p, XRPING_CTL_VERIFY, seq, p->size,
					0);
		else if (!xrping_valid(buf, p->size, p->size, seq))
			rc = -EBADMSG;
		if (rc == -EBADMSG)
			res->errors++;
		else if (rc)
			return rc;
		res->messages++;
		/* The next READ finds the next pattern. */
		if (op == XRDMA_RDMA_READ && seq + 1 < p->count) {
			rc = xrping_ctl(c, p, XRPING_CTL_FILL, seq + 1,
					p->size, 0);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* One kind of operation: @window of them posted here, and each next
 * one by the completion of an earlier, so no thread of ours wakes in
 * between, as the floor's one thread wakes once per completion.
 */
static int xrping_rdma_chain(struct xrping_rconn *c,
			     const struct xrping_params *p,
			     const struct xrping_chain *ch)
{
	u32 i;
	int rc;

	atomic_set(&c->posted, 0);
	c->chain = *ch;
	for (i = 0; i < min(p->window, ch->total); i++)
		if (!xrping_chain_next(c, 0))
			break;
	rc = xrping_wait_ops(c, ch->total, p->opts.timeout_ms);
	/* After a failure no completion posts any more. */
	atomic_set(&c->posted, ch->total);
	return rc;
}

/* @count operations (duplex: of each kind), @window in flight. */
static int xrping_rdma_stream(struct xrping_rconn *c,
			      const struct xrping_params *p,
			      struct xrdma_mr *wmr, struct xrdma_mr *rmr)
{
	u32 total = p->count * (wmr && rmr ? 2 : 1), i;
	enum xrdma_rdma_op op;
	struct xrdma_mr *mr;
	int rc;

	if (p->chain && (!wmr || !rmr)) {
		struct xrping_chain ch = {
			.mr = wmr ? wmr : rmr,
			.op = wmr ? XRDMA_RDMA_WRITE : XRDMA_RDMA_READ,
			.size = p->size,
			.total = total,
		};

		return xrping_rdma_chain(c, p, &ch);
	}
	for (i = 0; i < total; i++) {
		if (i >= p->window) {
			rc = xrping_wait_ops(c, i - p->window + 1,
					     p->opts.timeout_ms);
			if (rc)
				return rc;
		}
		mr = wmr && (!rmr || i % 2 == 0) ? wmr : rmr;
		op = mr == wmr ? XRDMA_RDMA_WRITE : XRDMA_RDMA_READ;
		rc = xrdma_rdma(c->xprt, xrping_op_more(op, i, total), mr, 0,
				&c->rem, 0, p->size, i);
		if (rc)
			return rc;
	}
	return xrping_wait_ops(c, total, p->opts.timeout_ms);
}

static int xrping_rdma_bw(struct xrping_rconn *c,
			  const struct xrping_params *p, u8 *wbuf, u8 *rbuf,
			  struct xrping_result *res)
{
	struct xrdma_mr *wmr = NULL, *rmr = NULL;
	struct xrdma_remote local;
	u64 start;
	int rc;

	if (wbuf) {
		xrping_fill(wbuf, p->size, 0);
		wmr = xrdma_mr_register(c->xprt, wbuf, p->size, false, &local);
		if (IS_ERR(wmr))
			return PTR_ERR(wmr);
	}
	if (rbuf) {
		memset(rbuf, 0, p->size);
		rmr = xrdma_mr_register(c->xprt, rbuf, p->size, false, &local);
		if (IS_ERR(rmr)) {
			rc = PTR_ERR(rmr);
			rmr = NULL;
			goto out;
		}
	}
	start = ktime_get_ns();
	rc = xrping_rdma_stream(c, p, wmr, rmr);
	res->elapsed_ns = ktime_get_ns() - start;
out:
	/* After a timeout the device may still use them: teardown frees. */
	if (rc != -ETIMEDOUT && rc != -ERESTARTSYS) {
		if (wmr)
			xrdma_mr_release(c->xprt, wmr);
		if (rmr)
			xrdma_mr_release(c->xprt, rmr);
	}
	res->messages = atomic_read(&c->done);
	res->errors += atomic_read(&c->failed);
	res->bytes = res->messages * p->size;
	return rc;
}

/* The data of a stream, checked once the stream is over. */
static int xrping_rdma_bw_check(struct xrping_rconn *c,
				const struct xrping_params *p, u8 *wbuf,
				u8 *rbuf, struct xrping_result *res)
{
	int rc = 0;

	if (rbuf && !xrping_valid(rbuf, p->size, p->size, 0))
		res->errors++;
	if (wbuf) {
		rc = xrping_ctl(c, p, XRPING_CTL_VERIFY, 0, p->size, 0);
		if (rc == -EBADMSG) {
			res->errors++;
			rc = 0;
		}
	}
	return rc;
}

/* The key advertised first, used after the server registered again. */
static int xrping_rdma_stale(struct xrping_rconn *c,
			     const struct xrping_params *p, u8 *buf,
			     struct xrping_result *res)
{
	struct xrdma_remote old = c->rem, cur;
	u64 ns;
	int rc;

	rc = xrping_ctl(c, p, XRPING_CTL_FILL, 1, p->size, 0);
	if (rc)
		return rc;
	if (c->rem.rkey == old.rkey)
		return -EPROTO;
	xrping_fill(buf, p->size, 0);
	cur = c->rem;
	c->rem = old;
	rc = xrping_rdma_once(c, p, XRDMA_RDMA_WRITE, buf, &ns);
	/* What VERIFY ends is the key the server gave last, not the old
	 * one: siw would invalidate its MR by the old key too.
	 */
	c->rem = cur;
	if (rc == -EIO) {
		res->messages++;	/* refused, as it must be */
		return 0;
	}
	if (rc)
		return rc;
	/* iWARP completes a WRITE once it is sent; the refusal comes back
	 * as a TERMINATE that ends the connection, before the next
	 * request is read.  What must not be is the data landing.
	 */
	rc = xrping_ctl(c, p, XRPING_CTL_VERIFY, 1, p->size, 0);
	if (rc == -EBADMSG)
		res->errors++;	/* the old key still worked */
	else
		res->messages++;
	return 0;
}

static int xrping_rdma_modes(struct xrping_rconn *c,
			     const struct xrping_params *p, u8 *wbuf,
			     u8 *rbuf, u64 *rtt, struct xrping_result *res)
{
	u64 start;
	int rc;

	/* The server's buffer holds the pattern of message 0. */
	rc = xrping_ctl(c, p, XRPING_CTL_EXPOSE, 0, p->size, 0);
	if (rc)
		return rc;
	if (p->mode == XRPING_MODE_STALE)
		return xrping_rdma_stale(c, p, wbuf, res);
	if (p->mode == XRPING_MODE_PINGPONG) {
		start = ktime_get_ns();
		rc = xrping_rdma_pingpong(c, p, wbuf ? wbuf : rbuf, rtt, res);
		res->elapsed_ns = ktime_get_ns() - start;
		res->bytes = res->messages * p->size;
		return rc;
	}
	rc = xrping_rdma_bw(c, p, wbuf, rbuf, res);
	if (!rc)
		rc = xrping_rdma_bw_check(c, p, wbuf, rbuf, res);
	return rc;
}

/**
 * xrping_run_rdma() - run an RDMA WRITE or READ test
 * @p: the parameters, checked by the configfs attributes (op write or
 *	read, one connection)
 * @res: the results, zeroed here
 *
 * Context: process context, may sleep for as long as the test lasts.
 */
void xrping_run_rdma(const struct xrping_params *p, struct xrping_result *res)
{
	bool duplex = p->mode == XRPING_MODE_DUPLEX;
	bool pingpong = p->mode == XRPING_MODE_PINGPONG;
	struct xrping_rconn c = {};
	u8 *wbuf = NULL, *rbuf = NULL;
	u64 *rtt = NULL;

	memset(res, 0, sizeof(*res));
	if (duplex || p->op == XRPING_OP_WRITE)
		wbuf = kvmalloc(p->size, GFP_KERNEL);
	if (duplex || p->op == XRPING_OP_READ)
		rbuf = kvmalloc(p->size, GFP_KERNEL);
	if (pingpong)
		rtt = kvmalloc_array(p->count, sizeof(*rtt), GFP_KERNEL);
	if ((!wbuf && !rbuf) || (duplex && (!wbuf || !rbuf)) ||
	    (pingpong && !rtt)) {
		res->rc = -ENOMEM;
		goto out;
	}
	res->rc = xrping_open_rconn(p, &c, res);
	if (!res->rc)
		res->rc = xrping_rdma_modes(&c, p, wbuf, rbuf, rtt, res);
	if (pingpong && res->messages) {
		res->has_lat = true;
		xrping_latency(rtt, res->messages, res);
	}
	xrping_close_rconn(&c, res);
out:
	kvfree(rtt);
	kvfree(rbuf);
	kvfree(wbuf);
}

static int xrping_send_stream(struct xrping_rconn *c,
			      const struct xrping_params *p, u8 *msg,
			      struct xrping_result *res)
{
	u64 start, got;
	u32 seq;
	int rc;

	rc = xrping_ctl(c, p, XRPING_CTL_SINK, 0, p->size, p->count);
	if (rc)
		return rc;
	start = ktime_get_ns();
	for (seq = 0; seq < p->count; seq++) {
		xrping_fill(msg, p->size, seq);
		rc = xrdma_send(c->xprt, msg, p->size);
		if (rc)
			return rc;
	}
	/* Messages arrive in order: the answer comes after the last. */
	rc = xrping_ctl(c, p, XRPING_CTL_STATS, 0, 0, 0);
	res->elapsed_ns = ktime_get_ns() - start;
	if (rc)
		return rc;
	got = le64_to_cpu(c->reply.count);
	res->messages = got;
	res->errors += le64_to_cpu(c->reply.errors) + (p->count - got);
	res->bytes = got * p->size;
	return 0;
}

/**
 * xrping_run_send_bw() - a one-way stream of Sends
 * @p: the parameters (op send, mode bw, one connection)
 * @res: the results, zeroed here
 *
 * The server validates every message against the pattern of its
 * number; the flow control of the transport keeps at most @opts.depth
 * in flight.
 *
 * Context: process context, may sleep for as long as the test lasts.
 */
void xrping_run_send_bw(const struct xrping_params *p,
			struct xrping_result *res)
{
	struct xrping_rconn c = {};
	u8 *msg;

	memset(res, 0, sizeof(*res));
	msg = kvmalloc(p->size, GFP_KERNEL);
	if (!msg) {
		res->rc = -ENOMEM;
		return;
	}
	res->rc = xrping_open_rconn(p, &c, res);
	if (!res->rc)
		res->rc = xrping_send_stream(&c, p, msg, res);
	xrping_close_rconn(&c, res);
	kvfree(msg);
}
