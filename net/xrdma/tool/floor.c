// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs floor: what the device does with no transport at all, to
 * compare xrdma with.  One kernel thread connects two bare RC QPs on the
 * same device (its own listener on a port the CM picks, and a client
 * id), reaps both CQs itself (a CQ armed for the next completion, a
 * wake-up, a poll: no work items, no credits, no copies) and runs
 * either
 *
 * - op send: a ping-pong of SENDs of @size, the answer sent as soon as
 *   the request's receive completes; or
 * - op write: a stream of @count RDMA WRITEs of @size into a buffer the
 *   passive side registered once, @window in flight (with a window of
 *   1, each WRITE is timed from post to completion).
 *
 * Buffers are one contiguous allocation each (kmalloc), addressed with
 * the PD's local DMA key; the WRITE target is registered with one
 * REG_MR.  The data is not checked: that is the transport's job, and
 * the floor is what it costs without it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "xrping.h"

#define XRPING_FLOOR_SEND	1
#define XRPING_FLOOR_RECV	2
#define XRPING_FLOOR_WRITE	3
#define XRPING_FLOOR_REG	4

/**
 * struct xrping_fside - one end of the floor's connection
 * @id: its id
 * @pd: its PD
 * @cq: its one CQ, sends and receives, reaped by the run itself
 * @tx: what it sends (or WRITEs)
 * @rx: where it receives (or is written)
 * @tx_sg: @tx mapped
 * @rx_sg: @rx mapped
 * @state: 0 connecting, 1 established, or a negative errno
 */
struct xrping_fside {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	void *tx;
	void *rx;
	struct scatterlist tx_sg;
	struct scatterlist rx_sg;
	int state;
};

/**
 * struct xrping_floor - a floor run
 * @p: its parameters
 * @lid: the listening id
 * @c: the active end
 * @s: the passive end (its id comes with CONNECT_REQUEST)
 * @dev: the device of both
 * @mr: the WRITE target's registration (passive end)
 * @resolved: completed by address and route resolution
 * @resolve_rc: their result
 * @wait: woken when a state changes and by completion events
 * @events: completion events so far
 */
struct xrping_floor {
	const struct xrping_params *p;
	struct rdma_cm_id *lid;
	struct xrping_fside c;
	struct xrping_fside s;
	struct ib_device *dev;
	struct ib_mr *mr;
	struct completion resolved;
	int resolve_rc;
	wait_queue_head_t wait;
	atomic_t events;
};

/* A CQ's completion event: whatever context the driver uses. */
static void xrping_floor_event(struct ib_cq *cq, void *context)
{
	struct xrping_floor *f = context;

	atomic_inc(&f->events);
	wake_up(&f->wait);
}

static void xrping_floor_state(struct xrping_floor *f, struct rdma_cm_id *id,
			       int state)
{
	struct xrping_fside *side = id == f->c.id ? &f->c : &f->s;

	/* An error stays. */
	if (READ_ONCE(side->state) >= 0)
		WRITE_ONCE(side->state, state);
	wake_up(&f->wait);
}

static struct ib_qp_init_attr xrping_floor_qp_attr(struct xrping_floor *f,
						   struct xrping_fside *side)
{
	struct ib_qp_init_attr attr = {
		.send_cq = side->cq,
		.recv_cq = side->cq,
		.cap.max_send_wr = f->p->window + 2,
		.cap.max_recv_wr = 2,
		.cap.max_send_sge = 1,
		.cap.max_recv_sge = 1,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	return attr;
}

static int xrping_floor_post_recv(struct xrping_fside *side, u32 size)
{
	struct ib_sge sge = {
		.addr = sg_dma_address(&side->rx_sg),
		.length = size,
		.lkey = side->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = XRPING_FLOOR_RECV,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(side->id->qp, &wr, NULL);
}

/* CONNECT_REQUEST on the listener: the passive end's QP, its first
 * receive, the accept.  Returns 1 (the CM destroys @id) on failure.
 */
static int xrping_floor_accept(struct xrping_floor *f, struct rdma_cm_id *id,
			       const struct rdma_conn_param *req)
{
	struct ib_qp_init_attr attr;
	struct rdma_conn_param param = {
		.responder_resources = req->initiator_depth,
		.initiator_depth = req->responder_resources,
		.rnr_retry_count = 7,
	};
	int rc;

	if (f->s.id || id->device != f->dev)
		return 1;
	attr = xrping_floor_qp_attr(f, &f->s);
	rc = rdma_create_qp(id, f->s.pd, &attr);
	if (rc)
		return 1;
	f->s.id = id;
	rc = xrping_floor_post_recv(&f->s, f->p->size);
	if (!rc)
		rc = rdma_accept(id, &param);
	if (rc) {
		rdma_destroy_qp(id);
		f->s.id = NULL;
		return 1;
	}
	return 0;
}

/* The handler of all three ids; the CM calls it with the id's handler
 * mutex held, in process context.  Returns 1 only for a new id that
 * must go.
 */
static int xrping_floor_handler(struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	struct xrping_floor *f = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		f->resolve_rc = 0;
		complete(&f->resolved);
		return 0;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		f->resolve_rc = -EHOSTUNREACH;
		complete(&f->resolved);
		return 0;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return xrping_floor_accept(f, id, &ev->param.conn);
	case RDMA_CM_EVENT_ESTABLISHED:
		xrping_floor_state(f, id, 1);
		return 0;
	case RDMA_CM_EVENT_REJECTED:
		xrping_floor_state(f, id, -ECONNREFUSED);
		return 0;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (id != f->lid)
			xrping_floor_state(f, id, -ECONNRESET);
		/* The run notices and destroys every id itself. */
		return 0;
	default:
		return 0;
	}
}

static int xrping_floor_resolve(struct xrping_floor *f,
				struct sockaddr_storage *dst)
{
	unsigned long ms = f->p->opts.timeout_ms;
	int rc;

	rc = rdma_resolve_addr(f->c.id, NULL, (struct sockaddr *)dst, ms);
	if (rc)
		return rc;
	if (!wait_for_completion_timeout(&f->resolved,
					 msecs_to_jiffies(ms) + 1))
		return -ETIMEDOUT;
	if (f->resolve_rc)
		return f->resolve_rc;
	reinit_completion(&f->resolved);
	f->resolve_rc = -ETIMEDOUT;
	rc = rdma_resolve_route(f->c.id, ms);
	if (rc)
		return rc;
	if (!wait_for_completion_timeout(&f->resolved,
					 msecs_to_jiffies(ms) + 1))
		return -ETIMEDOUT;
	return f->resolve_rc;
}

/* The listener on the test's address, on a port the CM picks; @dst
 * gets that address and port.
 */
static int xrping_floor_listen(struct xrping_floor *f, struct net *net,
			       struct sockaddr_storage *dst)
{
	struct rdma_cm_id *id;
	int rc;

	id = rdma_create_id(net, xrping_floor_handler, f, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	f->lid = id;
	*dst = f->p->addr;
	xrping_set_port(dst, 0);
	rc = rdma_bind_addr(id, (struct sockaddr *)dst);
	if (!rc)
		rc = rdma_listen(id, 1);
	if (rc)
		return rc;
	memcpy(dst, &id->route.addr.src_addr, sizeof(*dst));
	return 0;
}

static int xrping_floor_buffers(struct xrping_floor *f,
				struct xrping_fside *side)
{
	struct ib_cq_init_attr cq_attr = { .cqe = f->p->window + 4 };
	u32 size = f->p->size;

	side->pd = ib_alloc_pd(f->dev, 0);
	if (IS_ERR(side->pd)) {
		int rc = PTR_ERR(side->pd);

		side->pd = NULL;
		return rc;
	}
	side->cq = ib_create_cq(f->dev, xrping_floor_event, NULL, f, &cq_attr);
	if (IS_ERR(side->cq)) {
		int rc = PTR_ERR(side->cq);

		side->cq = NULL;
		return rc;
	}
	side->tx = kzalloc(size, GFP_KERNEL | __GFP_NOWARN);
	side->rx = kzalloc(size, GFP_KERNEL | __GFP_NOWARN);
	if (!side->tx || !side->rx)
		return -ENOMEM;
	sg_init_one(&side->tx_sg, side->tx, size);
	if (!ib_dma_map_sg(f->dev, &side->tx_sg, 1, DMA_BIDIRECTIONAL))
		return -ENOMEM;
	sg_init_one(&side->rx_sg, side->rx, size);
	if (!ib_dma_map_sg(f->dev, &side->rx_sg, 1, DMA_BIDIRECTIONAL)) {
		ib_dma_unmap_sg(f->dev, &side->tx_sg, 1, DMA_BIDIRECTIONAL);
		return -ENOMEM;
	}
	return 0;
}

static void xrping_floor_release(struct xrping_floor *f,
				 struct xrping_fside *side)
{
	if (side->id) {
		if (side->id->qp)
			rdma_destroy_qp(side->id);
		rdma_destroy_id(side->id);
	}
	if (side->rx && sg_dma_len(&side->rx_sg))
		ib_dma_unmap_sg(f->dev, &side->rx_sg, 1, DMA_BIDIRECTIONAL);
	if (side->tx && sg_dma_len(&side->tx_sg))
		ib_dma_unmap_sg(f->dev, &side->tx_sg, 1, DMA_BIDIRECTIONAL);
	kfree(side->rx);
	kfree(side->tx);
	if (side->cq)
		ib_destroy_cq(side->cq);
	if (side->pd)
		ib_dealloc_pd(side->pd);
}

static bool xrping_floor_woken(struct xrping_floor *f, int seen)
{
	return atomic_read(&f->events) != seen ||
	       READ_ONCE(f->c.state) < 0 || READ_ONCE(f->s.state) < 0;
}

/* One completion from @side's CQ: poll, and when it is empty arm it
 * and sleep until an event; a broken connection or the test's timeout
 * ends the wait.
 */
static int xrping_floor_poll(struct xrping_floor *f,
			     struct xrping_fside *side, struct ib_wc *wc,
			     unsigned long deadline)
{
	int n, seen;

	for (;;) {
		seen = atomic_read(&f->events);
		n = ib_poll_cq(side->cq, 1, wc);
		if (n > 0)
			return wc->status == IB_WC_SUCCESS ? 0 : -EIO;
		if (n < 0)
			return n;
		if (READ_ONCE(f->c.state) < 0 || READ_ONCE(f->s.state) < 0)
			return -ECONNRESET;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		/* Completions that came before the arm count: poll again. */
		n = ib_req_notify_cq(side->cq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS);
		if (n < 0)
			return n;
		/* In slices, so that the deadline above is checked. */
		if (!n)
			wait_event_timeout(f->wait, xrping_floor_woken(f, seen),
					   HZ / 10 + 1);
	}
}

/* Poll @side until a completion of kind @want arrives. */
static int xrping_floor_wait(struct xrping_floor *f,
			     struct xrping_fside *side, u64 want,
			     unsigned long deadline)
{
	struct ib_wc wc;
	int rc;

	do {
		rc = xrping_floor_poll(f, side, &wc, deadline);
		if (rc)
			return rc;
	} while (wc.wr_id != want);
	return 0;
}

static int xrping_floor_send(struct xrping_fside *side, u32 size)
{
	struct ib_sge sge = {
		.addr = sg_dma_address(&side->tx_sg),
		.length = size,
		.lkey = side->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = XRPING_FLOOR_SEND,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	return ib_post_send(side->id->qp, &wr, NULL);
}

/* One round trip: a SEND each way, each answered on its receive. */
static int xrping_floor_round(struct xrping_floor *f, u32 size,
			      unsigned long deadline)
{
	int rc;

	rc = xrping_floor_send(&f->c, size);
	if (!rc)
		rc = xrping_floor_wait(f, &f->s, XRPING_FLOOR_RECV, deadline);
	if (!rc)
		rc = xrping_floor_post_recv(&f->s, size);
	if (!rc)
		rc = xrping_floor_send(&f->s, size);
	if (!rc)
		rc = xrping_floor_wait(f, &f->c, XRPING_FLOOR_RECV, deadline);
	if (!rc)
		rc = xrping_floor_post_recv(&f->c, size);
	return rc;
}

static int xrping_floor_pingpong(struct xrping_floor *f, u64 *rtt,
				 struct xrping_result *res)
{
	unsigned long deadline;
	u64 start;
	u32 i;
	int rc;

	rc = xrping_floor_post_recv(&f->c, f->p->size);
	for (i = 0; !rc && i < f->p->count; i++) {
		deadline = jiffies + msecs_to_jiffies(f->p->opts.timeout_ms);
		start = ktime_get_ns();
		rc = xrping_floor_round(f, f->p->size, deadline);
		if (rc)
			break;
		rtt[i] = ktime_get_ns() - start;
		res->messages++;
	}
	res->bytes = res->messages * f->p->size * 2;
	return rc;
}

/* The passive end registers its receive buffer as the WRITE target. */
static int xrping_floor_register(struct xrping_floor *f)
{
	unsigned long deadline;
	struct ib_reg_wr reg = {
		.wr.wr_id = XRPING_FLOOR_REG,
		.wr.opcode = IB_WR_REG_MR,
		.wr.send_flags = IB_SEND_SIGNALED,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	u32 pages;
	int rc;

	/* One page more than it spans, as xrdma's pool does, where the
	 * device takes it: rxe 6.1 reads one map pointer past an MR whose
	 * pages fill its maps exactly (256 pages: 1 MiB) when a WRITE
	 * reaches the end; siw maps no more than 256.
	 */
	pages = DIV_ROUND_UP(offset_in_page(f->s.rx) + f->p->size, PAGE_SIZE);
	pages = min(pages + 1, f->dev->attrs.max_fast_reg_page_list_len);
	f->mr = ib_alloc_mr(f->s.pd, IB_MR_TYPE_MEM_REG, pages);
	if (IS_ERR(f->mr)) {
		rc = PTR_ERR(f->mr);
		f->mr = NULL;
		return rc;
	}
	if (ib_map_mr_sg(f->mr, &f->s.rx_sg, 1, NULL, PAGE_SIZE) != 1)
		return -EIO;
	reg.mr = f->mr;
	reg.key = f->mr->rkey;
	rc = ib_post_send(f->s.id->qp, &reg.wr, NULL);
	if (rc)
		return rc;
	deadline = jiffies + msecs_to_jiffies(f->p->opts.timeout_ms);
	return xrping_floor_wait(f, &f->s, XRPING_FLOOR_REG, deadline);
}

static int xrping_floor_write(struct xrping_floor *f, u64 *rtt,
			      struct xrping_result *res)
{
	struct ib_sge sge = {
		.addr = sg_dma_address(&f->c.tx_sg),
		.length = f->p->size,
		.lkey = f->c.pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr.wr_id = XRPING_FLOOR_WRITE,
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
		.wr.opcode = IB_WR_RDMA_WRITE,
		.wr.send_flags = IB_SEND_SIGNALED,
		.remote_addr = f->mr->iova,
		.rkey = f->mr->rkey,
	};
	unsigned long deadline;
	u32 posted = 0;
	u64 start = 0;
	int rc = 0;

	while (!rc && res->messages < f->p->count) {
		deadline = jiffies + msecs_to_jiffies(f->p->opts.timeout_ms);
		if (posted < f->p->count &&
		    posted - res->messages < f->p->window) {
			start = ktime_get_ns();
			rc = ib_post_send(f->c.id->qp, &wr.wr, NULL);
			posted++;
			continue;
		}
		rc = xrping_floor_wait(f, &f->c, XRPING_FLOOR_WRITE, deadline);
		if (rc)
			break;
		/* One in flight: this is its time from post to completion. */
		if (rtt)
			rtt[res->messages] = ktime_get_ns() - start;
		res->messages++;
	}
	res->bytes = res->messages * f->p->size;
	return rc;
}

static int xrping_floor_connect(struct xrping_floor *f)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 7,
		.retry_count = 6,
	};
	struct ib_qp_init_attr attr;
	long left;
	int rc;

	rc = xrping_floor_buffers(f, &f->c);
	if (!rc)
		rc = xrping_floor_buffers(f, &f->s);
	if (rc)
		return rc;
	attr = xrping_floor_qp_attr(f, &f->c);
	rc = rdma_create_qp(f->c.id, f->c.pd, &attr);
	if (!rc)
		rc = rdma_connect(f->c.id, &param);
	if (rc)
		return rc;
	left = wait_event_timeout(f->wait, READ_ONCE(f->c.state) &&
				  READ_ONCE(f->s.state),
				  msecs_to_jiffies(f->p->opts.timeout_ms) + 1);
	if (!left)
		return -ETIMEDOUT;
	if (f->c.state < 0)
		return f->c.state;
	return f->s.state < 0 ? f->s.state : 0;
}

static int xrping_floor_setup(struct xrping_floor *f)
{
	struct net *net = current->nsproxy->net_ns;
	struct sockaddr_storage dst;
	struct rdma_cm_id *id;
	int rc;

	rc = xrping_floor_listen(f, net, &dst);
	if (rc)
		return rc;
	id = rdma_create_id(net, xrping_floor_handler, f, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	f->c.id = id;
	rc = xrping_floor_resolve(f, &dst);
	if (rc)
		return rc;
	f->dev = id->device;
	return xrping_floor_connect(f);
}

static void xrping_floor_teardown(struct xrping_floor *f)
{
	if (f->c.id && f->c.state > 0)
		rdma_disconnect(f->c.id);
	/* The listener first: no new passive id after this. */
	if (f->lid)
		rdma_destroy_id(f->lid);
	/* No WRITE reaches the target once the active QP is gone; the
	 * target's MR goes before its PD.
	 */
	xrping_floor_release(f, &f->c);
	if (f->mr)
		ib_dereg_mr(f->mr);
	xrping_floor_release(f, &f->s);
}

/**
 * xrping_run_floor() - measure the verbs floor
 * @p: the parameters (mode floor; op send or write; one connection)
 * @res: the results, zeroed here
 *
 * Context: process context, may sleep for as long as the run lasts.
 */
void xrping_run_floor(const struct xrping_params *p,
		      struct xrping_result *res)
{
	bool timed = p->op == XRPING_OP_SEND || p->window == 1;
	struct xrping_floor *f;
	u64 *rtt = NULL, start;

	memset(res, 0, sizeof(*res));
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (timed)
		rtt = kvmalloc_array(p->count, sizeof(*rtt), GFP_KERNEL);
	if (!f || (timed && !rtt)) {
		res->rc = -ENOMEM;
		goto out;
	}
	f->p = p;
	init_completion(&f->resolved);
	f->resolve_rc = -ETIMEDOUT;
	init_waitqueue_head(&f->wait);
	atomic_set(&f->events, 0);
	res->rc = xrping_floor_setup(f);
	if (!res->rc && p->op == XRPING_OP_WRITE)
		res->rc = xrping_floor_register(f);
	if (!res->rc) {
		start = ktime_get_ns();
		if (p->op == XRPING_OP_SEND)
			res->rc = xrping_floor_pingpong(f, rtt, res);
		else
			res->rc = xrping_floor_write(f, rtt, res);
		res->elapsed_ns = ktime_get_ns() - start;
	}
	if (timed && res->messages) {
		res->has_lat = true;
		/* The stream's times are post to completion: a round trip. */
		xrping_latency(rtt, res->messages, res);
	}
	xrping_floor_teardown(f);
out:
	kvfree(rtt);
	kfree(f);
}
