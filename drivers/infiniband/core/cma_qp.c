// SPDX-License-Identifier: GPL-2.0
/*
 * The QP that goes with an id. The CM moves it through its states: INIT
 * at creation (UD straight on to RTS), RTR and RTS when the connection
 * is accepted or the reply arrives, ERR when it is rejected or torn down.
 * The attributes come from the IB CM or iWARP CM once a connection
 * exists, and from the id's own binding before.
 */

#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "cma_priv.h"
#include "cma_trace.h"

/* The attributes of INIT for an id with no connection yet, or for UD. */
static int cma_ib_init_attr(struct cma_id *cid, struct ib_qp_attr *attr,
			    int *mask)
{
	struct rdma_cm_id *id = &cid->id;
	u16 pkey = rdma_cap_eth_ah(id->device, id->port_num) ?
		   0xffff : ib_addr_get_pkey(&id->route.addr.dev_addr);
	int ret;

	ret = ib_find_cached_pkey(id->device, id->port_num, pkey,
				  &attr->pkey_index);
	if (ret)
		return ret;

	attr->port_num = id->port_num;
	*mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	if (id->qp_type == IB_QPT_UD) {
		ret = cma_set_qkey(cid, 0);
		if (ret)
			return ret;
		attr->qkey = READ_ONCE(cid->qkey);
		*mask |= IB_QP_QKEY;
	} else {
		attr->qp_access_flags = 0;
		*mask |= IB_QP_ACCESS_FLAGS;
	}
	return 0;
}

/**
 * rdma_init_qp_attr - the attributes to move an id's QP to a state
 * @id: the id, bound to a device
 * @qp_attr: in: qp_state, the state wanted; out: the attributes
 * @qp_attr_mask: out: which attributes are set
 *
 * Before a connection exists, and always for UD, only the attributes of
 * INIT are known. The ACK timeout and minimal RNR timer the consumer set
 * override the connection's.
 *
 * Context: process context.
 * Return: 0, -EINVAL if @id has no device, or the error of the IB CM or
 * iWARP CM.
 */
int rdma_init_qp_attr(struct rdma_cm_id *id, struct ib_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	struct cma_id *cid = to_cma_id(id);
	int ret;

	if (!id->device)
		return -EINVAL;
	/*
	 * In-box, a listener bound to its device asks the CM about its
	 * listen, which has no QP attributes; a UD id is answered by the
	 * CM itself.
	 */
	if (cma_dev_listener(cid) &&
	    (!rdma_cap_ib_cm(id->device, id->port_num) ||
	     id->qp_type != IB_QPT_UD))
		return -EINVAL;

	if (rdma_cap_ib_cm(id->device, id->port_num)) {
		if (!cid->ib || id->qp_type == IB_QPT_UD)
			ret = cma_ib_init_attr(cid, qp_attr, qp_attr_mask);
		else
			ret = CMA_CALL(ib_cm_init_qp_attr(cid->ib, qp_attr,
							  qp_attr_mask));
		if (qp_attr->qp_state == IB_QPS_RTR)
			qp_attr->rq_psn = cid->seq_num;
	} else if (rdma_cap_iw_cm(id->device, id->port_num)) {
		ret = cma_iw_init_qp_attr(cid, qp_attr, qp_attr_mask);
	} else {
		return -EINVAL;
	}
	if (ret)
		return ret;

	if ((*qp_attr_mask & IB_QP_TIMEOUT) && cid->timeout_set)
		qp_attr->timeout = cid->timeout;
	if ((*qp_attr_mask & IB_QP_MIN_RNR_TIMER) && cid->min_rnr_timer_set)
		qp_attr->min_rnr_timer = cid->min_rnr_timer;
	return 0;
}

static int cma_modify_qp(struct cma_id *cid, struct ib_qp *qp,
			 enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = rdma_init_qp_attr(&cid->id, &attr, &mask);
	if (ret)
		return ret;
	return CMA_CALL(ib_modify_qp(qp, &attr, mask));
}

/* UD needs no peer: straight to RTS. */
static int cma_qp_ready_ud(struct cma_id *cid, struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTR };
	int ret;

	ret = cma_modify_qp(cid, qp, IB_QPS_INIT);
	if (ret)
		return ret;
	ret = CMA_CALL(ib_modify_qp(qp, &attr, IB_QP_STATE));
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return CMA_CALL(ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN));
}

/**
 * rdma_create_qp - create the QP of an id and move it to INIT
 * @id: the id, bound to a device
 * @pd: protection domain, of @id's device
 * @qp_init_attr: as for ib_create_qp(); its port is set to @id's
 *
 * The CM then moves the QP through its states as the connection is made
 * and torn down; a UD QP is ready to send at once.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL if @pd is of another device than @id (or @id has
 * none) or @id already has a QP, or the error of creating or modifying
 * the QP (which is then destroyed).
 */
int rdma_create_qp(struct rdma_cm_id *id, struct ib_pd *pd,
		   struct ib_qp_init_attr *qp_init_attr)
{
	struct cma_id *cid = to_cma_id(id);
	struct ib_qp *qp;
	int ret;

	if (!id->device || !pd || id->device != pd->device)
		return -EINVAL;

	mutex_lock(&cid->qp_mutex);
	ret = -EINVAL;
	if (id->qp)
		goto out;

	qp_init_attr->port_num = id->port_num;
	qp = CMA_CALL_PTR(ib_create_qp(pd, qp_init_attr));
	ret = PTR_ERR_OR_ZERO(qp);
	if (ret)
		goto out;

	if (id->qp_type == IB_QPT_UD)
		ret = cma_qp_ready_ud(cid, qp);
	else
		ret = cma_modify_qp(cid, qp, IB_QPS_INIT);
	if (ret) {
		ib_destroy_qp(qp);
		goto out;
	}

	id->qp = qp;
	cid->qp_num = qp->qp_num;
	cid->srq = !!qp->srq;
out:
	trace_cm_qp_create(cid, pd, qp_init_attr, ret);
	mutex_unlock(&cid->qp_mutex);
	return ret;
}

/**
 * rdma_destroy_qp - destroy the QP of an id
 * @id: the id; nothing happens if it has no QP
 *
 * Context: process context; may sleep.
 */
void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct cma_id *cid = to_cma_id(id);

	trace_cm_qp_destroy(cid);
	mutex_lock(&cid->qp_mutex);
	if (id->qp)
		ib_destroy_qp(id->qp);
	id->qp = NULL;
	mutex_unlock(&cid->qp_mutex);
}

/**
 * cma_qp_to_rtr - move an id's QP to RTR, if it has one
 * @cid: the id, whose connection exists
 * @param: the consumer's parameters, for the responder resources, or NULL
 *	to keep the connection's
 *
 * INIT is refreshed first: the connection may have changed its attributes.
 *
 * Context: process context; takes @cid->qp_mutex.
 * Return: 0 or the error of the modification.
 */
int cma_qp_to_rtr(struct cma_id *cid, const struct rdma_conn_param *param)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTR };
	int mask, ret = 0;

	mutex_lock(&cid->qp_mutex);
	if (!cid->id.qp)
		goto out;
	ret = cma_modify_qp(cid, cid->id.qp, IB_QPS_INIT);
	if (ret)
		goto out;
	ret = rdma_init_qp_attr(&cid->id, &attr, &mask);
	if (ret)
		goto out;
	if (param)
		attr.max_dest_rd_atomic = param->responder_resources;
	ret = CMA_CALL(ib_modify_qp(cid->id.qp, &attr, mask));
out:
	mutex_unlock(&cid->qp_mutex);
	return ret;
}

/**
 * cma_qp_to_rts - move an id's QP to RTS, if it has one
 * @cid: the id, whose QP is in RTR
 * @param: the consumer's parameters, for the initiator depth, or NULL
 *
 * Context: process context; takes @cid->qp_mutex.
 * Return: 0 or the error of the modification.
 */
int cma_qp_to_rts(struct cma_id *cid, const struct rdma_conn_param *param)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTS };
	int mask, ret = 0;

	mutex_lock(&cid->qp_mutex);
	if (!cid->id.qp)
		goto out;
	ret = rdma_init_qp_attr(&cid->id, &attr, &mask);
	if (ret)
		goto out;
	if (param)
		attr.max_rd_atomic = param->initiator_depth;
	ret = CMA_CALL(ib_modify_qp(cid->id.qp, &attr, mask));
out:
	mutex_unlock(&cid->qp_mutex);
	return ret;
}

/**
 * cma_qp_to_err - move an id's QP to ERR, if it has one, flushing it
 * @cid: the id
 *
 * Context: process context; takes @cid->qp_mutex.
 * Return: 0 or the error of the modification.
 */
int cma_qp_to_err(struct cma_id *cid)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret = 0;

	mutex_lock(&cid->qp_mutex);
	if (cid->id.qp)
		ret = CMA_CALL(ib_modify_qp(cid->id.qp, &attr, IB_QP_STATE));
	mutex_unlock(&cid->qp_mutex);
	return ret;
}

/**
 * rdma_set_ack_timeout - set the local ACK timeout of an id's QP
 * @id: an RC or XRC initiator id, before it connects or accepts (the
 *	timer is the sender's: an XRC target sends no requests)
 * @timeout: 4.096 us * 2^@timeout; on RoCE it also sets the route's
 *	packet life time
 *
 * Written under the QP mutex, as the CM's own QP modifications read it.
 *
 * Context: process context; takes @id's QP mutex.
 * Return: 0, or -EINVAL for another QP type.
 */
int rdma_set_ack_timeout(struct rdma_cm_id *id, u8 timeout)
{
	struct cma_id *cid = to_cma_id(id);

	if (id->qp_type != IB_QPT_RC && id->qp_type != IB_QPT_XRC_INI)
		return -EINVAL;
	mutex_lock(&cid->qp_mutex);
	cid->timeout = timeout;
	cid->timeout_set = true;
	mutex_unlock(&cid->qp_mutex);
	return 0;
}

/**
 * rdma_set_min_rnr_timer - set the minimal RNR NAK timer of an id's QP
 * @id: an RC or XRC target id, before it connects or accepts (the timer
 *	is the responder's: an XRC initiator receives nothing)
 * @min_rnr_timer: the IB encoded timer, 0 to 31
 *
 * Context: process context; takes @id's QP mutex.
 * Return: 0, or -EINVAL for another QP type or a value above 31.
 */
int rdma_set_min_rnr_timer(struct rdma_cm_id *id, u8 min_rnr_timer)
{
	struct cma_id *cid = to_cma_id(id);

	if ((id->qp_type != IB_QPT_RC && id->qp_type != IB_QPT_XRC_TGT) ||
	    min_rnr_timer > 31)
		return -EINVAL;
	mutex_lock(&cid->qp_mutex);
	cid->min_rnr_timer = min_rnr_timer;
	cid->min_rnr_timer_set = true;
	mutex_unlock(&cid->qp_mutex);
	return 0;
}
