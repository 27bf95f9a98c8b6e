// SPDX-License-Identifier: GPL-2.0
/*
 * Connections over the iWARP CM: listen, connect, accept, reject and
 * disconnect through iw_cm, and the translation of its events. iWARP
 * carries the consumer's private data as is, with its real length, and
 * connections are always RC in the TCP port space.
 *
 * iw_cm callbacks run in process context, from iw_cm's workqueue; a
 * callback that returns non-zero has iw_cm destroy its iw_cm_id.
 */

#include <rdma/iw_cm.h>

#include "cma_priv.h"
#include "cma_trace.h"

static void cma_iw_set_tos(struct cma_id *cid, struct iw_cm_id *iw)
{
	/* Written under the QP mutex: read the pair as one. */
	mutex_lock(&cid->qp_mutex);
	iw->tos = cid->tos;
	iw->tos_set = cid->tos_set;
	mutex_unlock(&cid->qp_mutex);
}

static void cma_iw_param(struct iw_cm_conn_param *iwp, struct cma_id *cid,
			 const struct rdma_conn_param *param)
{
	memset(iwp, 0, sizeof(*iwp));
	iwp->ord = param->initiator_depth;
	iwp->ird = param->responder_resources;
	iwp->private_data = param->private_data;
	iwp->private_data_len = param->private_data_len;
	iwp->qpn = cid->id.qp ? cid->qp_num : param->qp_num;
}

/**
 * cma_iw_connect - connect over iWARP
 * @cid: the id, in CONNECT, its route resolved
 * @param: the consumer's connection parameters
 *
 * The QP goes to RTR first; iw_cm takes it to RTS once the connection is
 * up.
 *
 * Context: process context; may sleep.
 * Return: 0, or the error of the QP or iw_cm, with nothing left behind.
 */
int cma_iw_connect(struct cma_id *cid, const struct rdma_conn_param *param)
{
	struct iw_cm_conn_param iwp;
	struct iw_cm_id *iw;
	int ret;

	iw = CMA_CALL_PTR(iw_create_cm_id(cid->id.device, cma_iw_handler,
					  cid));
	if (IS_ERR(iw))
		return PTR_ERR(iw);

	cma_iw_set_tos(cid, iw);
	memcpy(&iw->local_addr, cma_src_addr(cid),
	       cma_addr_size(cma_src_addr(cid)));
	memcpy(&iw->remote_addr, cma_dst_addr(cid),
	       cma_addr_size(cma_dst_addr(cid)));

	cid->iw = iw;
	ret = cma_qp_to_rtr(cid, param);
	if (!ret) {
		cma_iw_param(&iwp, cid, param);
		ret = CMA_CALL(iw_cm_connect(iw, &iwp));
	}
	if (ret) {
		cid->iw = NULL;
		iw_destroy_cm_id(iw);
	}
	return ret;
}

/**
 * cma_iw_accept - accept an iWARP connection request
 * @cid: the passive id, in CONNECT
 * @param: the consumer's parameters
 *
 * Context: process context, @cid's handler mutex held.
 * Return: 0, or the error of the QP or iw_cm.
 */
int cma_iw_accept(struct cma_id *cid, const struct rdma_conn_param *param)
{
	struct iw_cm_conn_param iwp;
	int ret;

	lockdep_assert_held(&cid->handler_mutex);
	ret = cma_qp_to_rtr(cid, param);
	if (ret)
		return ret;
	cma_iw_param(&iwp, cid, param);
	return CMA_CALL(iw_cm_accept(cid->iw, &iwp));
}

/* The CM event of an iw_cm event on a connection, or false for none. */
static bool cma_iw_event(struct cma_id *cid, const struct iw_cm_event *ev,
			 struct rdma_cm_event *event)
{
	switch (ev->event) {
	case IW_CM_EVENT_CLOSE:
		event->event = RDMA_CM_EVENT_DISCONNECTED;
		break;
	case IW_CM_EVENT_CONNECT_REPLY:
		/* The connection may have got other addresses (mapping). */
		memcpy(cma_src_addr(cid), &ev->local_addr,
		       cma_addr_size((struct sockaddr *)&ev->local_addr));
		memcpy(cma_dst_addr(cid), &ev->remote_addr,
		       cma_addr_size((struct sockaddr *)&ev->remote_addr));
		switch (ev->status) {
		case 0:
			event->event = RDMA_CM_EVENT_ESTABLISHED;
			break;
		case -ECONNRESET:
		case -ECONNREFUSED:
			event->event = RDMA_CM_EVENT_REJECTED;
			break;
		case -ETIMEDOUT:
			event->event = RDMA_CM_EVENT_UNREACHABLE;
			break;
		default:
			event->event = RDMA_CM_EVENT_CONNECT_ERROR;
			break;
		}
		break;
	case IW_CM_EVENT_ESTABLISHED:
		event->event = RDMA_CM_EVENT_ESTABLISHED;
		break;
	default:
		return false;
	}
	event->status = ev->status;
	event->param.conn.initiator_depth = ev->ird;
	event->param.conn.responder_resources = ev->ord;
	event->param.conn.private_data = ev->private_data;
	event->param.conn.private_data_len = ev->private_data_len;
	return true;
}

/**
 * cma_iw_handler - iw_cm's callback for a connecting or connected id
 * @iw: the iw_cm id, whose context is our id
 * @ev: the event
 *
 * Context: iw_cm's workqueue.
 * Return: non-zero when the consumer had the id destroyed.
 */
int cma_iw_handler(struct iw_cm_id *iw, struct iw_cm_event *ev)
{
	struct cma_id *cid = iw->context;
	struct rdma_cm_event event = {};

	mutex_lock(&cid->handler_mutex);
	if (cma_state(cid) != RDMA_CM_CONNECT || !cma_iw_event(cid, ev, &event)) {
		mutex_unlock(&cid->handler_mutex);
		return 0;
	}
	return cma_deliver_unlock(cid, &event);
}
EXPORT_SYMBOL_IF_KUNIT(cma_iw_handler);

/*
 * The passive id of an iWARP connection request, born in CONNECT.
 * Called under the listener's handler mutex.
 */
static struct cma_id *cma_iw_child(struct cma_id *listener,
				   const struct iw_cm_event *ev)
{
	struct rdma_dev_addr *dev_addr;
	struct cma_id *cid;
	int ret;

	lockdep_assert_held(&listener->handler_mutex);

	cid = cma_id_alloc(cma_id_net(listener), listener->id.event_handler,
			   listener->id.context, RDMA_PS_TCP, IB_QPT_RC,
			   RDMA_CM_CONNECT, listener->owner);
	if (IS_ERR(cid))
		return cid;

	memcpy(cma_src_addr(cid), &ev->local_addr,
	       cma_addr_size((struct sockaddr *)&ev->local_addr));
	memcpy(cma_dst_addr(cid), &ev->remote_addr,
	       cma_addr_size((struct sockaddr *)&ev->remote_addr));
	dev_addr = &cid->id.route.addr.dev_addr;
	ret = rdma_translate_ip(cma_src_addr(cid), dev_addr);
	if (!ret)
		ret = cma_acquire_dev(cid);
	if (ret) {
		cma_destroy_child(cid);
		return ERR_PTR(ret);
	}
	return cid;
}

/* iw_cm's callback for a connection request on one of our listens. */
static int cma_iw_req_handler(struct iw_cm_id *iw, struct iw_cm_event *ev)
{
	struct rdma_cm_event event = {
		.event = RDMA_CM_EVENT_CONNECT_REQUEST,
		.param.conn.private_data = ev->private_data,
		.param.conn.private_data_len = ev->private_data_len,
		.param.conn.initiator_depth = ev->ird,
		.param.conn.responder_resources = ev->ord,
	};
	struct cma_id *listener = iw->context, *child;
	int ret = -ECONNABORTED;

	mutex_lock(&listener->handler_mutex);
	if (cma_state(listener) != RDMA_CM_LISTEN)
		goto out;
	child = cma_iw_child(listener, ev);
	if (IS_ERR(child)) {
		ret = PTR_ERR(child);
		goto out;
	}

	mutex_lock_nested(&child->handler_mutex, SINGLE_DEPTH_NESTING);
	child->iw = iw;
	iw->context = child;
	iw->cm_handler = cma_iw_handler;
	ret = cma_deliver_unlock(child, &event);
out:
	mutex_unlock(&listener->handler_mutex);
	return ret;
}

/**
 * cma_iw_listen - listen for iWARP connection requests on a device
 * @cid: the listener, bound to its address and port
 * @device: the device
 * @cm_id: where to store the iw_cm listen
 *
 * Context: process context; may sleep. Not under cma_lock: the provider's
 * listen may take rtnl, which comes first.
 * Return: 0 or the error of iw_cm.
 */
int cma_iw_listen(struct cma_id *cid, struct ib_device *device,
		  struct iw_cm_id **cm_id)
{
	struct iw_cm_id *iw;
	int ret;

	lockdep_assert_not_held(&cma_lock);
	iw = CMA_CALL_PTR(iw_create_cm_id(device, cma_iw_req_handler, cid));
	if (IS_ERR(iw))
		return PTR_ERR(iw);

	cma_iw_set_tos(cid, iw);
	iw->afonly = cid->afonly;
	memcpy(&iw->local_addr, cma_src_addr(cid),
	       cma_addr_size(cma_src_addr(cid)));
	ret = CMA_CALL(iw_cm_listen(iw, cid->backlog));
	if (ret) {
		iw_destroy_cm_id(iw);
		return ret;
	}
	*cm_id = iw;
	return 0;
}

/**
 * cma_iw_init_qp_attr - the QP attributes of an iWARP connection
 * @cid: the id
 * @attr: in: the state wanted; out: its attributes
 * @mask: out: which are set
 *
 * Context: process context.
 * Return: 0 or the error of iw_cm.
 */
int cma_iw_init_qp_attr(struct cma_id *cid, struct ib_qp_attr *attr,
			int *mask)
{
	int ret = 0;

	if (cid->iw) {
		ret = CMA_CALL(iw_cm_init_qp_attr(cid->iw, attr, mask));
	} else {
		attr->qp_access_flags = 0;
		*mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
	}
	attr->port_num = cid->id.port_num;
	*mask |= IB_QP_PORT;
	return ret;
}

/**
 * rdma_iw_cm_id - the iw_cm id behind an rdma_cm id
 * @id: the id
 *
 * Context: any; the answer holds while @id's connection, or its listen,
 * does.
 * Return: the iw_cm id of @id's iWARP connection; for a listener bound to
 * an iWARP device, its listen there; else NULL (a wildcard listener
 * listens on every device: it has no one iw_cm id).
 */
struct iw_cm_id *rdma_iw_cm_id(struct rdma_cm_id *id)
{
	struct cma_id *cid = to_cma_id(id);

	return cid->iw ?: READ_ONCE(cid->listen_iw);
}
