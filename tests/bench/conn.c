// SPDX-License-Identifier: GPL-2.0
/*
 * cm_bench connections: the CM event handlers of both ends, QPs, the one
 * SEND each connection carries, and teardown.  Every handler records
 * the time its event arrived and counts down what the run waits for.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "cm_bench.h"

/* Work requests per QP: one SEND or one receive, and a spare. */
#define CMB_QP_WRS		2
#define CMB_RESP_RES		1
#define CMB_INIT_DEPTH		1
#define CMB_RETRY		7
#define CMB_RNR_RETRY		7

/**
 * cmb_fail() - stop a run on its first error
 * @run: the run
 * @status: a negative errno
 *
 * Context: any, CQ callbacks (softirq) included.
 */
void cmb_fail(struct cmb_run *run, int status)
{
	unsigned long flags;

	spin_lock_irqsave(&run->lock, flags);
	if (!run->status)
		run->status = status;
	spin_unlock_irqrestore(&run->lock, flags);
	wake_up_all(&run->wq);
}

/**
 * cmb_mark() - one side of a step is done for a connection
 * @c: the connection
 * @step: the step
 *
 * Moves the step's end and counts down what the run waits for.
 *
 * Context: any, CQ callbacks (softirq) included.
 */
void cmb_mark(struct cmb_conn *c, enum cmb_step step)
{
	struct cmb_run *run = c->run;
	ktime_t now = ktime_get();
	unsigned long flags;

	spin_lock_irqsave(&run->lock, flags);
	if (ktime_after(now, c->end[step]))
		c->end[step] = now;
	spin_unlock_irqrestore(&run->lock, flags);
	if (atomic_dec_and_test(&run->pending))
		wake_up_all(&run->wq);
}

/**
 * cmb_qp_attr() - the attributes of every QP of a run
 * @run: the run, with its CQ
 * @attr: filled in
 */
void cmb_qp_attr(struct cmb_run *run, struct ib_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->send_cq = run->cq;
	attr->recv_cq = run->cq;
	attr->cap.max_send_wr = CMB_QP_WRS;
	attr->cap.max_recv_wr = CMB_QP_WRS;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->sq_sig_type = IB_SIGNAL_REQ_WR;
	attr->qp_type = IB_QPT_RC;
}

static void cmb_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cmb_conn *c = container_of(wc->wr_cqe, struct cmb_conn,
					  send_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		if (!READ_ONCE(c->run->stopping))
			pr_err("connection %u: SEND completed with %s\n",
			       c->index, ib_wc_status_msg(wc->status));
		cmb_fail(c->run, -EIO);
		return;
	}
	cmb_mark(c, CMB_DATA);
}

static void cmb_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cmb_conn *c = container_of(wc->wr_cqe, struct cmb_conn,
					  recv_cqe);
	struct cmb_run *run = c->run;
	u64 at = run->rdma + (u64)c->index * CMB_MSG_LEN;
	__le32 got;

	if (wc->status != IB_WC_SUCCESS) {
		/* The server's receive is flushed when a run stops early. */
		if (!READ_ONCE(run->stopping)) {
			pr_err("connection %u: receive completed with %s\n",
			       c->index, ib_wc_status_msg(wc->status));
			cmb_fail(run, -EIO);
		}
		return;
	}
	ib_dma_sync_single_for_cpu(run->pd->device, at, CMB_MSG_LEN,
				   DMA_FROM_DEVICE);
	memcpy(&got, run->rbuf + (size_t)c->index * CMB_MSG_LEN, sizeof(got));
	if (wc->byte_len != CMB_MSG_LEN || le32_to_cpu(got) != c->index) {
		pr_err("connection %u: received %u bytes for connection %u\n",
		       c->index, wc->byte_len, le32_to_cpu(got));
		cmb_fail(run, -EPROTO);
		return;
	}
	cmb_mark(c, CMB_DATA);
}

/**
 * cmb_post_recv() - post the server's one receive of a connection
 * @c: the connection
 * @qp: the server's QP
 *
 * Context: any.
 * Return: what ib_post_recv() returned.
 */
int cmb_post_recv(struct cmb_conn *c, struct ib_qp *qp)
{
	struct cmb_run *run = c->run;
	struct ib_sge sge = {
		.addr = run->rdma + (u64)c->index * CMB_MSG_LEN,
		.length = CMB_MSG_LEN,
		.lkey = run->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &c->recv_cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	c->recv_cqe.done = cmb_recv_done;
	return ib_post_recv(qp, &wr, NULL);
}

/*
 * A CONNECT_REQUEST: find the connection by the number the client sent,
 * give the new id a QP with a receive posted, accept.  Called with the
 * new id's handler lock held, which rdma_accept() wants.  Non-zero makes
 * the CM destroy the new id.
 */
static int cmb_on_request(struct cmb_run *run, struct rdma_cm_id *id,
			  const struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *req = &ev->param.conn;
	struct rdma_conn_param param = {};
	struct ib_qp_init_attr attr;
	struct cmb_conn *c;
	unsigned long flags;
	__le32 index;
	int ret;

	if (!req->private_data || req->private_data_len < sizeof(index))
		goto refuse;
	memcpy(&index, req->private_data, sizeof(index));
	if (le32_to_cpu(index) >= run->n)
		goto refuse;
	c = &run->conns[le32_to_cpu(index)];
	cmb_qp_attr(run, &attr);
	c->start[CMB_SRV_QP] = ktime_get();
	ret = rdma_create_qp(id, run->pd, &attr);
	c->end[CMB_SRV_QP] = ktime_get();
	if (ret)
		goto fail;
	ret = cmb_post_recv(c, id->qp);
	if (ret)
		goto destroy_qp;
	spin_lock_irqsave(&run->lock, flags);
	if (c->sid) {
		spin_unlock_irqrestore(&run->lock, flags);
		goto duplicate;
	}
	c->sid = id;
	spin_unlock_irqrestore(&run->lock, flags);
	id->context = c;
	param.responder_resources = req->responder_resources;
	param.initiator_depth = req->initiator_depth;
	param.rnr_retry_count = CMB_RNR_RETRY;
	c->start[CMB_SRV_ACCEPT] = ktime_get();
	ret = rdma_accept(id, &param);
	c->end[CMB_SRV_ACCEPT] = ktime_get();
	if (!ret)
		return 0;
	spin_lock_irqsave(&run->lock, flags);
	c->sid = NULL;
	spin_unlock_irqrestore(&run->lock, flags);
	goto destroy_qp;

duplicate:
	ret = -EEXIST;
destroy_qp:
	WRITE_ONCE(run->stopping, true);
	rdma_destroy_qp(id);
fail:
	pr_err("connection %u: accepting failed: %d\n", le32_to_cpu(index),
	       ret);
	cmb_fail(run, ret);
	return 1;
refuse:
	pr_err("a connect request without a connection number\n");
	cmb_fail(run, -EPROTO);
	return 1;
}

static int cmb_on_error(struct cmb_conn *c, const struct rdma_cm_event *ev,
			bool server)
{
	pr_err("connection %u: %s end got %s (status %d)\n", c->index,
	       server ? "server" : "client", rdma_event_msg(ev->event),
	       ev->status);
	cmb_fail(c->run, ev->status ?: -ECONNABORTED);
	return 0;
}

static int cmb_server_event(struct cmb_conn *c, struct rdma_cm_id *id,
			    const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		c->accepted = ktime_get();
		cmb_mark(c, CMB_ESTAB);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		/* Answer the client's disconnect request at once. */
		rdma_disconnect(id);
		cmb_mark(c, CMB_DISC);
		return 0;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return 0;
	default:
		return cmb_on_error(c, ev, true);
	}
}

static int cmb_client_event(struct cmb_conn *c, const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		cmb_mark(c, CMB_ADDR);
		return 0;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		cmb_mark(c, CMB_ROUTE);
		return 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		cmb_mark(c, CMB_ESTAB);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		cmb_mark(c, CMB_DISC);
		return 0;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return 0;
	default:
		return cmb_on_error(c, ev, false);
	}
}

/*
 * The one CM event handler of the module.  Called with @id's handler
 * lock held, in process context.  The ids are ours to destroy: it
 * returns non-zero only for a new server id it did not take.
 */
static int cmb_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum cmb_kind *kind = id->context;
	struct cmb_conn *c;

	if (*kind == CMB_KIND_RUN) {
		struct cmb_run *run = id->context;

		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			return cmb_on_request(run, id, ev);
		pr_err("listener got %s (status %d)\n",
		       rdma_event_msg(ev->event), ev->status);
		cmb_fail(run, ev->status ?: -ENODEV);
		return 0;
	}
	c = id->context;
	if (id == c->id)
		return cmb_client_event(c, ev);
	return cmb_server_event(c, id, ev);
}

/**
 * cmb_listen() - create, bind and listen the run's listener
 * @run: the run, with its address set
 *
 * Context: process; the caller owns @run.
 * Return: 0, or a negative errno with no listener left.
 */
int cmb_listen(struct cmb_run *run)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, cmb_cm_handler, run, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id, (struct sockaddr *)&run->addr);
	if (!ret && !id->device)
		ret = -ENODEV;
	if (!ret)
		ret = rdma_listen(id, 1024);
	if (ret) {
		pr_err("listening on %pISpc: %d\n", &run->addr, ret);
		rdma_destroy_id(id);
		return ret;
	}
	run->listen = id;
	return 0;
}

/**
 * cmb_client_id() - create a connection's client id
 * @c: the connection
 *
 * Context: process.
 * Return: 0 or what rdma_create_id() returned.
 */
int cmb_client_id(struct cmb_conn *c)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, cmb_cm_handler, c, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	c->id = id;
	return 0;
}

/**
 * cmb_client_qp() - give a connection's client id its QP
 * @c: the connection, its route resolved
 *
 * Context: process.
 * Return: 0 or what rdma_create_qp() returned.
 */
int cmb_client_qp(struct cmb_conn *c)
{
	struct ib_qp_init_attr attr;
	int ret;

	cmb_qp_attr(c->run, &attr);
	ret = rdma_create_qp(c->id, c->run->pd, &attr);
	if (!ret)
		c->qp = true;
	return ret;
}

/**
 * cmb_connect() - send a connection's connect request
 * @c: the connection, with its QP
 *
 * The private data is the connection's number, how the server finds it.
 *
 * Context: process.
 * Return: what rdma_connect() returned.
 */
int cmb_connect(struct cmb_conn *c)
{
	struct rdma_conn_param param = {};
	__le32 index = cpu_to_le32(c->index);

	param.private_data = &index;
	param.private_data_len = sizeof(index);
	param.responder_resources = CMB_RESP_RES;
	param.initiator_depth = CMB_INIT_DEPTH;
	param.retry_count = CMB_RETRY;
	param.rnr_retry_count = CMB_RNR_RETRY;
	return rdma_connect(c->id, &param);
}

/**
 * cmb_post_send() - post a connection's one SEND, client to server
 * @c: the connection, established
 * @qp: the client's QP
 *
 * Context: process.
 * Return: what ib_post_send() returned.
 */
int cmb_post_send(struct cmb_conn *c, struct ib_qp *qp)
{
	struct cmb_run *run = c->run;
	size_t off = (size_t)c->index * CMB_MSG_LEN;
	struct ib_sge sge = {
		.addr = run->sdma + off,
		.length = CMB_MSG_LEN,
		.lkey = run->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &c->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	__le32 index = cpu_to_le32(c->index);

	memcpy(run->sbuf + off, &index, sizeof(index));
	ib_dma_sync_single_for_device(run->pd->device, sge.addr, CMB_MSG_LEN,
				      DMA_TO_DEVICE);
	c->send_cqe.done = cmb_send_done;
	return ib_post_send(qp, &wr, NULL);
}

/**
 * cmb_send() - post a connection's one SEND on its rdma_cm QP
 * @c: the connection, established
 *
 * Context: process.
 * Return: what ib_post_send() returned.
 */
int cmb_send(struct cmb_conn *c)
{
	return cmb_post_send(c, c->id->qp);
}

/**
 * cmb_destroy_conn() - destroy both ends of a connection
 * @c: the connection
 *
 * The client id goes first: once it is gone no request of @c is in
 * flight, and a server id, if the listener made one, is ours.
 *
 * Context: process; no CM handler of the run may be running on the
 * caller's stack.
 */
void cmb_destroy_conn(struct cmb_conn *c)
{
	struct cmb_run *run = c->run;
	struct rdma_cm_id *sid;
	unsigned long flags;

	if (c->id) {
		if (c->qp)
			rdma_destroy_qp(c->id);
		rdma_destroy_id(c->id);
		c->id = NULL;
		c->qp = false;
	}
	spin_lock_irqsave(&run->lock, flags);
	sid = c->sid;
	c->sid = NULL;
	spin_unlock_irqrestore(&run->lock, flags);
	if (sid) {
		rdma_destroy_qp(sid);
		rdma_destroy_id(sid);
	}
}
