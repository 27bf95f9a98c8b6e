// SPDX-License-Identifier: GPL-2.0
/*
 * Unreliable datagram "connections" over the IB CM (InfiniBand and RoCE):
 * service ID resolution (SIDR). The active side sends a SIDR REQ, with the
 * CM header and the consumer's data, to the service ID of the port space
 * and port; the passive side's consumer sees CONNECT_REQUEST on a new id
 * and answers with rdma_accept() (a SIDR REP carrying its QP number and
 * qkey) or rdma_reject(). The active side then gets ESTABLISHED with what
 * it needs to send datagrams: an address handle, the remote QP number and
 * the qkey, or UNREACHABLE.
 *
 * The passive side's SIDR REQ arrives on the listen of cma_ib.c, which
 * builds the new id; this file has the rest. IB CM callbacks run in
 * process context, from the IB CM's workqueue.
 */

#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm_ib.h>

#include "cma_priv.h"
#include "cma_trace.h"

/* The in-box CM's SIDR timeout: 4.096 us * 2^20, about 4 s, and retries. */
#define CMA_SIDR_TIMEOUT_MS	(1 << (20 - 8))
#define CMA_SIDR_MAX_RETRIES	15

/*
 * The qkey a UD id uses when nobody chose one: the in-box CM's well-known
 * one for the UDP and IB port spaces, and for RDMA_PS_IPOIB on InfiniBand
 * the IPoIB broadcast group's. On RoCE, where the SA knows no IPoIB
 * group, RDMA_PS_IPOIB takes the well-known one too (in-box fails).
 */
static int cma_default_qkey(struct cma_id *cid, u32 *qkey)
{
	struct rdma_cm_id *id = &cid->id;

	if (id->ps == RDMA_PS_IPOIB && id->device &&
	    rdma_protocol_ib(id->device, id->port_num))
		return cma_mc_ib_broadcast_qkey(cid, qkey);
	*qkey = RDMA_UDP_QKEY;
	return 0;
}

/**
 * cma_set_qkey - settle the qkey of a UD id, once
 * @cid: the id, bound to a device
 * @qkey: the qkey asked for (by the consumer's accept, the peer's SIDR
 *	REP or a group the id joined), or 0 for the id's own: the one it has,
 *	else the default of its port space
 *
 * The first qkey an id gets is its qkey for good, as in-box: its QP's,
 * the one its SIDR REP and its events carry.
 *
 * Context: process context; any lock (the qkey is set by cmpxchg()).
 * Return: 0 with the id's qkey set, -EINVAL if the id has another one, or
 * the error of the IPoIB broadcast group's lookup.
 */
int cma_set_qkey(struct cma_id *cid, u32 qkey)
{
	u32 cur = READ_ONCE(cid->qkey);
	int ret;

	if (cur)
		return qkey && qkey != cur ? -EINVAL : 0;
	if (!qkey) {
		ret = cma_default_qkey(cid, &qkey);
		if (ret)
			return ret;
	}
	cur = cmpxchg(&cid->qkey, 0, qkey);
	return cur && cur != qkey ? -EINVAL : 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_set_qkey);

/* ESTABLISHED from a successful SIDR REP, or why not. */
/* The address handle to the SIDR REP's sender, from the resolved path. */
static int cma_sidr_ah(struct rdma_cm_id *id,
		       const struct ib_cm_sidr_rep_event_param *rep,
		       struct rdma_ah_attr *ah)
{
	return CMA_CALL(ib_init_ah_attr_from_path(id->device, id->port_num,
						  id->route.path_rec, ah,
						  rep->sgid_attr));
}

static void cma_sidr_rep_event(struct cma_id *cid, const struct ib_cm_event *ev,
			       struct rdma_cm_event *event)
{
	const struct ib_cm_sidr_rep_event_param *rep = &ev->param.sidr_rep_rcvd;
	struct rdma_cm_id *id = &cid->id;
	int ret;

	event->param.ud.private_data = ev->private_data;
	event->param.ud.private_data_len = IB_CM_SIDR_REP_PRIVATE_DATA_SIZE;
	if (rep->status != IB_SIDR_SUCCESS) {
		event->event = RDMA_CM_EVENT_UNREACHABLE;
		event->status = rep->status;
		return;
	}
	ret = cma_set_qkey(cid, rep->qkey);
	if (!ret)
		ret = cma_sidr_ah(id, rep, &event->param.ud.ah_attr);
	if (ret) {
		event->event = RDMA_CM_EVENT_ADDR_ERROR;
		event->status = ret;
		return;
	}
	event->event = RDMA_CM_EVENT_ESTABLISHED;
	event->param.ud.qp_num = rep->qpn;
	event->param.ud.qkey = READ_ONCE(cid->qkey);
}

/* The IB CM's callback for an active UD id: the answer to its SIDR REQ. */
static int cma_sidr_handler(struct ib_cm_id *ib, const struct ib_cm_event *ev)
{
	struct cma_id *cid = ib->context;
	struct rdma_cm_event event = {};
	int ret;

	mutex_lock(&cid->handler_mutex);
	if (cma_state(cid) != RDMA_CM_CONNECT)
		goto ignore;
	switch (ev->event) {
	case IB_CM_SIDR_REQ_ERROR:
		event.event = RDMA_CM_EVENT_UNREACHABLE;
		event.status = -ETIMEDOUT;
		break;
	case IB_CM_SIDR_REP_RECEIVED:
		cma_sidr_rep_event(cid, ev, &event);
		break;
	default:
		goto ignore;
	}
	ret = cma_deliver_unlock(cid, &event);
	/* The handler had its chance to copy the address handle. */
	rdma_destroy_ah_attr(&event.param.ud.ah_attr);
	return ret;
ignore:
	mutex_unlock(&cid->handler_mutex);
	return 0;
}

/**
 * cma_sidr_connect - send a SIDR REQ for a UD id
 * @cid: the id, in CONNECT, its route resolved
 * @param: the consumer's parameters: only the private data counts
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL if the private data does not fit behind the CM
 * header, or the error of the IB CM (with nothing left behind).
 */
int cma_sidr_connect(struct cma_id *cid, const struct rdma_conn_param *param)
{
	struct ib_cm_sidr_req_param req = {};
	struct ib_cm_id *ib;
	void *pdata;
	int ret;

	pdata = cma_hdr_with_data(cid, param, IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE,
				  &req.private_data_len);
	if (IS_ERR(pdata))
		return PTR_ERR(pdata);

	ib = CMA_CALL_PTR(ib_create_cm_id(cid->id.device, cma_sidr_handler,
					  cid));
	ret = PTR_ERR_OR_ZERO(ib);
	if (ret)
		goto out;

	req.private_data = pdata;
	req.path = &cid->id.route.path_rec[0];
	req.sgid_attr = cid->id.route.addr.dev_addr.sgid_attr;
	req.service_id = cma_addr_service_id(cid->id.ps, cma_dst_addr(cid));
	req.timeout_ms = CMA_SIDR_TIMEOUT_MS;
	req.max_cm_retries = CMA_SIDR_MAX_RETRIES;

	/* Set before sending: the reply may come before we return. */
	cid->ib = ib;
	trace_cm_send_sidr_req(cid);
	ret = CMA_CALL(ib_send_cm_sidr_req(ib, &req));
	if (ret) {
		cid->ib = NULL;
		ib_destroy_cm_id(ib);
	}
out:
	kfree(pdata);
	return ret;
}

/**
 * cma_sidr_reply - answer a SIDR REQ
 * @cid: the passive UD id of the request, in CONNECT
 * @status: IB_SIDR_SUCCESS to accept, IB_SIDR_REJECT to refuse
 * @qkey: the qkey the consumer wants, 0 for the id's own (see
 *	cma_set_qkey()); accepting with another qkey than the one the id
 *	already has fails
 * @pdata: data for the peer, or NULL
 * @len: its length, at most IB_CM_SIDR_REP_PRIVATE_DATA_SIZE
 *
 * Context: process context.
 * Return: 0, -EINVAL (no request to answer, data too long, wrong qkey),
 * or the IB CM's error.
 */
int cma_sidr_reply(struct cma_id *cid, enum ib_cm_sidr_status status,
		   u32 qkey, const void *pdata, u8 len)
{
	struct ib_cm_sidr_rep_param rep = {};
	int ret;

	if (!cid->ib || len > IB_CM_SIDR_REP_PRIVATE_DATA_SIZE)
		return -EINVAL;
	if (status == IB_SIDR_SUCCESS) {
		ret = cma_set_qkey(cid, qkey);
		if (ret)
			return ret;
		rep.qp_num = cid->qp_num;
		rep.qkey = READ_ONCE(cid->qkey);
	}
	rep.status = status;
	rep.private_data = pdata;
	rep.private_data_len = len;
	rep.ece.vendor_id = cid->ece.vendor_id;
	rep.ece.attr_mod = cid->ece.attr_mod;
	trace_cm_send_sidr_rep(cid);
	return CMA_CALL(ib_send_cm_sidr_rep(cid->ib, &rep));
}

/**
 * cma_sidr_req_event - the CONNECT_REQUEST of a SIDR REQ
 * @event: the event to fill
 * @ev: the IB CM's SIDR_REQ_RECEIVED
 * @offset: the length of the CM header in front of the consumer's data
 *	(see cma_hdr_len())
 *
 * Context: any.
 */
void cma_sidr_req_event(struct rdma_cm_event *event,
			const struct ib_cm_event *ev, u8 offset)
{
	event->event = RDMA_CM_EVENT_CONNECT_REQUEST;
	event->param.ud.private_data = ev->private_data + offset;
	event->param.ud.private_data_len =
		IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE - offset;
}
