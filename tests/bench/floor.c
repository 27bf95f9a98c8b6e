// SPDX-License-Identifier: GPL-2.0
/*
 * cm_bench's floor: the same connections made directly with the IB CM,
 * no rdma_cm in the way: REQ, REP, RTU and the QP transitions a CM must
 * make (INIT before the REQ, RTR and RTS on each side, ERR on
 * disconnect), one SEND, DREQ and DREP.  The path record and GID come
 * from one id resolved through the rdma_cm before the clock starts, so
 * address and route resolution are not part of the floor: compare its
 * steps with the rdma_cm's create_qp .. destroy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/random.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "cm_bench.h"

/* A service ID of our own, away from the rdma_cm's port spaces. */
#define CMB_FLOOR_SID_BASE	0x0000000001000000ULL
#define CMB_FLOOR_RESOLVE_MS	5000
#define CMB_FLOOR_RESP_RES	1
#define CMB_FLOOR_RETRY		7
/* 4.096 us * 2^20: about 4 s before the IB CM retries a message. */
#define CMB_FLOOR_CM_TIMEOUT	20
#define CMB_FLOOR_CM_RETRIES	15

static int cmb_floor_qp_to(struct ib_cm_id *cm, struct ib_qp *qp,
			   enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(cm, &attr, &mask);
	if (ret)
		return ret;
	return ib_modify_qp(qp, &attr, mask);
}

/*
 * The server's RTR before its REP: the IB CM learns the PSN the server
 * receives from only when the REP is sent, so give it here, as the
 * rdma_cm does.
 */
static int cmb_floor_rtr(struct ib_cm_id *cm, struct ib_qp *qp, u32 psn)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTR };
	int mask, ret;

	ret = ib_cm_init_qp_attr(cm, &attr, &mask);
	if (ret)
		return ret;
	attr.rq_psn = psn;
	return ib_modify_qp(qp, &attr, mask);
}

static int cmb_floor_qp_err(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

static void cmb_floor_fail(struct cmb_conn *c, const char *what, int ret)
{
	pr_err("floor connection %u: %s: %d\n", c->index, what, ret);
	cmb_fail(c->run, ret ?: -EPROTO);
}

/*
 * A REQ for the listener: the server's QP through INIT, RTR and RTS,
 * its receive posted, then the REP.  Non-zero makes the IB CM destroy
 * the new id.
 */
static int cmb_floor_req(struct cmb_run *run, struct ib_cm_id *cm,
			 const struct ib_cm_event *ev)
{
	struct ib_cm_rep_param rep = {};
	struct ib_qp_init_attr attr;
	struct cmb_conn *c;
	unsigned long flags;
	struct ib_qp *qp;
	__le32 index;
	int ret;

	memcpy(&index, ev->private_data, sizeof(index));
	if (le32_to_cpu(index) >= run->n) {
		cmb_fail(run, -EPROTO);
		return 1;
	}
	c = &run->conns[le32_to_cpu(index)];
	cmb_qp_attr(run, &attr);
	/* Timed as the rdma_cm's: QP and INIT; then RTR, RTS and REP. */
	c->start[CMB_SRV_QP] = ktime_get();
	qp = ib_create_qp(run->pd, &attr);
	if (IS_ERR(qp)) {
		cmb_floor_fail(c, "server ib_create_qp", PTR_ERR(qp));
		return 1;
	}
	ret = cmb_floor_qp_to(cm, qp, IB_QPS_INIT);
	c->end[CMB_SRV_QP] = ktime_get();
	rep.starting_psn = get_random_u32() & 0xffffff;
	ret = ret ?: cmb_post_recv(c, qp);
	c->start[CMB_SRV_ACCEPT] = ktime_get();
	ret = ret ?: cmb_floor_rtr(cm, qp, rep.starting_psn) ?:
	      cmb_floor_qp_to(cm, qp, IB_QPS_RTS);
	if (ret)
		goto destroy_qp;
	spin_lock_irqsave(&run->lock, flags);
	c->scm = cm;
	c->sqp = qp;
	spin_unlock_irqrestore(&run->lock, flags);
	cm->context = c;
	rep.qp_num = qp->qp_num;
	rep.responder_resources = ev->param.req_rcvd.responder_resources;
	rep.initiator_depth = ev->param.req_rcvd.initiator_depth;
	rep.rnr_retry_count = CMB_FLOOR_RETRY;
	rep.flow_control = 1;
	ret = ib_send_cm_rep(cm, &rep);
	c->end[CMB_SRV_ACCEPT] = ktime_get();
	if (!ret)
		return 0;
	spin_lock_irqsave(&run->lock, flags);
	c->scm = NULL;
	c->sqp = NULL;
	spin_unlock_irqrestore(&run->lock, flags);
destroy_qp:
	WRITE_ONCE(run->stopping, true);
	ib_destroy_qp(qp);
	cmb_floor_fail(c, "accepting", ret);
	return 1;
}

static int cmb_floor_client(struct cmb_conn *c, const struct ib_cm_event *ev)
{
	int ret;

	switch (ev->event) {
	case IB_CM_REP_RECEIVED:
		ret = cmb_floor_qp_to(c->cm, c->cqp, IB_QPS_RTR) ?:
		      cmb_floor_qp_to(c->cm, c->cqp, IB_QPS_RTS) ?:
		      ib_send_cm_rtu(c->cm, NULL, 0);
		if (ret)
			cmb_floor_fail(c, "client RTR, RTS, RTU", ret);
		else
			cmb_mark(c, CMB_ESTAB);
		return 0;
	case IB_CM_DREP_RECEIVED:
		cmb_mark(c, CMB_DISC);
		return 0;
	case IB_CM_TIMEWAIT_EXIT:
		return 0;
	default:
		cmb_floor_fail(c, "client event", -(int)ev->event);
		return 0;
	}
}

static int cmb_floor_server(struct cmb_conn *c, struct ib_cm_id *cm,
			    const struct ib_cm_event *ev)
{
	int ret;

	switch (ev->event) {
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		c->accepted = ktime_get();
		cmb_mark(c, CMB_ESTAB);
		return 0;
	case IB_CM_DREQ_RECEIVED:
		ret = cmb_floor_qp_err(c->sqp) ?: ib_send_cm_drep(cm, NULL, 0);
		if (ret)
			cmb_floor_fail(c, "server ERR, DREP", ret);
		else
			cmb_mark(c, CMB_DISC);
		return 0;
	case IB_CM_TIMEWAIT_EXIT:
		return 0;
	default:
		cmb_floor_fail(c, "server event", -(int)ev->event);
		return 0;
	}
}

/* The IB CM handler of every floor id; process context. */
static int cmb_floor_handler(struct ib_cm_id *cm, const struct ib_cm_event *ev)
{
	enum cmb_kind *kind = cm->context;
	struct cmb_conn *c;

	if (*kind == CMB_KIND_RUN) {
		struct cmb_run *run = cm->context;

		if (ev->event == IB_CM_REQ_RECEIVED)
			return cmb_floor_req(run, cm, ev);
		return 0;
	}
	c = cm->context;
	if (cm == c->cm)
		return cmb_floor_client(c, ev);
	return cmb_floor_server(c, cm, ev);
}

static int cmb_floor_route_handler(struct rdma_cm_id *id,
				   struct rdma_cm_event *ev)
{
	struct cmb_run *run = id->context;

	if (ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED) {
		if (atomic_dec_and_test(&run->pending))
			wake_up_all(&run->wq);
	} else if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED) {
		if (rdma_resolve_route(id, CMB_FLOOR_RESOLVE_MS))
			cmb_fail(run, -ENETUNREACH);
	} else {
		cmb_fail(run, ev->status ?: -ENETUNREACH);
	}
	return 0;
}

static __be64 cmb_floor_sid(const struct cmb_run *run)
{
	return cpu_to_be64(CMB_FLOOR_SID_BASE +
			   be16_to_cpu(((struct sockaddr_in *)&run->addr)->sin_port));
}

/**
 * cmb_floor_setup() - make a run one of the floor: a resolved route and
 *	an IB CM listener
 * @run: a run from cmb_run_alloc(), on an IB CM (RoCE) device
 *
 * Context: process.
 * Return: 0, or a negative errno; cmb_run_free() undoes either way.
 */
int cmb_floor_setup(struct cmb_run *run)
{
	struct rdma_cm_id *id;
	struct ib_cm_id *cm;
	int ret;

	if (!rdma_protocol_ib(run->listen->device, run->listen->port_num) &&
	    !rdma_protocol_roce(run->listen->device, run->listen->port_num))
		return -EOPNOTSUPP;
	id = rdma_create_id(&init_net, cmb_floor_route_handler, run,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	run->route = id;
	atomic_set(&run->pending, 1);
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&run->addr,
				CMB_FLOOR_RESOLVE_MS) ?: cmb_run_wait(run);
	if (ret)
		return ret;
	if (!id->route.path_rec || !id->route.addr.dev_addr.sgid_attr)
		return -EINVAL;
	cm = ib_create_cm_id(run->listen->device, cmb_floor_handler, run);
	if (IS_ERR(cm))
		return PTR_ERR(cm);
	ret = ib_cm_listen(cm, cmb_floor_sid(run));
	if (ret) {
		ib_destroy_cm_id(cm);
		return ret;
	}
	run->floor = cm;
	run->ops = cmb_floor_steps;
	return 0;
}

static int cmb_floor_create(struct cmb_conn *c)
{
	struct ib_cm_id *cm;

	cm = ib_create_cm_id(c->run->pd->device, cmb_floor_handler, c);
	if (IS_ERR(cm))
		return PTR_ERR(cm);
	c->cm = cm;
	return 0;
}

static int cmb_floor_qp(struct cmb_conn *c)
{
	struct rdma_cm_id *route = c->run->route;
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = route->port_num,
		.qp_access_flags = IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_qp_init_attr init;
	struct ib_qp *qp;
	int ret;

	cmb_qp_attr(c->run, &init);
	qp = ib_create_qp(c->run->pd, &init);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret) {
		ib_destroy_qp(qp);
		return ret;
	}
	c->cqp = qp;
	return 0;
}

static int cmb_floor_connect(struct cmb_conn *c)
{
	struct rdma_cm_id *route = c->run->route;
	struct ib_cm_req_param p = {};
	__le32 index = cpu_to_le32(c->index);

	p.primary_path = &route->route.path_rec[0];
	p.ppath_sgid_attr = route->route.addr.dev_addr.sgid_attr;
	p.service_id = cmb_floor_sid(c->run);
	p.qp_num = c->cqp->qp_num;
	p.qp_type = IB_QPT_RC;
	p.starting_psn = get_random_u32() & 0xffffff;
	p.private_data = &index;
	p.private_data_len = sizeof(index);
	p.responder_resources = CMB_FLOOR_RESP_RES;
	p.initiator_depth = CMB_FLOOR_RESP_RES;
	p.remote_cm_response_timeout = CMB_FLOOR_CM_TIMEOUT;
	p.local_cm_response_timeout = CMB_FLOOR_CM_TIMEOUT;
	p.retry_count = CMB_FLOOR_RETRY;
	p.rnr_retry_count = CMB_FLOOR_RETRY;
	p.max_cm_retries = CMB_FLOOR_CM_RETRIES;
	p.flow_control = 1;
	return ib_send_cm_req(c->cm, &p);
}

static int cmb_floor_send(struct cmb_conn *c)
{
	return cmb_post_send(c, c->cqp);
}

static int cmb_floor_disconnect(struct cmb_conn *c)
{
	return cmb_floor_qp_err(c->cqp) ?: ib_send_cm_dreq(c->cm, NULL, 0);
}

/* The server's ids and QPs, taken under the lock. */
static void cmb_floor_destroy_server(struct cmb_conn *c)
{
	struct cmb_run *run = c->run;
	struct ib_cm_id *scm;
	unsigned long flags;
	struct ib_qp *sqp;

	spin_lock_irqsave(&run->lock, flags);
	scm = c->scm;
	sqp = c->sqp;
	c->scm = NULL;
	c->sqp = NULL;
	spin_unlock_irqrestore(&run->lock, flags);
	if (scm)
		ib_destroy_cm_id(scm);
	if (sqp)
		ib_destroy_qp(sqp);
}

static int cmb_floor_destroy(struct cmb_conn *c)
{
	if (c->cm) {
		ib_destroy_cm_id(c->cm);
		c->cm = NULL;
	}
	if (c->cqp) {
		ib_destroy_qp(c->cqp);
		c->cqp = NULL;
	}
	cmb_floor_destroy_server(c);
	return 0;
}

/* The floor's steps; no address or route step. */
const struct cmb_step_ops cmb_floor_steps[CMB_NR_STEPS] = {
	[CMB_CREATE] = { cmb_floor_create, 0 },
	[CMB_QP] = { cmb_floor_qp, 0 },
	[CMB_CONNECT] = { cmb_floor_connect, 0 },
	[CMB_ESTAB] = { NULL, 2 },
	[CMB_DATA] = { cmb_floor_send, 2 },
	[CMB_DISC] = { cmb_floor_disconnect, 2 },
	[CMB_DESTROY] = { cmb_floor_destroy, 0 },
};

/**
 * cmb_floor_free() - destroy what a floor run still has
 * @run: the run, floor or not
 *
 * Clients first, then the listener (after which no REQ handler runs),
 * then the server ends, then the route.
 *
 * Context: process.
 */
void cmb_floor_free(struct cmb_run *run)
{
	u32 i;

	for (i = 0; i < run->n; i++)
		cmb_floor_destroy(&run->conns[i]);
	if (run->floor) {
		ib_destroy_cm_id(run->floor);
		run->floor = NULL;
	}
	for (i = 0; i < run->n; i++)
		cmb_floor_destroy_server(&run->conns[i]);
	if (run->route) {
		rdma_destroy_id(run->route);
		run->route = NULL;
	}
}
