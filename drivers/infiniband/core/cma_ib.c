// SPDX-License-Identifier: GPL-2.0
/*
 * Connections over the IB CM (InfiniBand and RoCE): the active side's REQ,
 * the passive side's handling of a REQ (and of a SIDR REQ, the UD
 * request, whose other half is in cma_sidr.c), REP and RTU, REJ, DREQ and
 * DREP, and the translation of IB CM events into CM events.
 *
 * IB CM callbacks run in process context, from the IB CM's workqueue; a
 * callback that returns non-zero has the IB CM destroy its ib_cm_id.
 */

#include <linux/netdevice.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>

#include "cma_priv.h"
#include "cma_trace.h"

/* The in-box CM's response timeout (4.096 us * 2^20) and retries. */
#define CMA_CM_RESPONSE_TIMEOUT	20
#define CMA_MAX_CM_RETRIES	15
/* How long a peer should wait while the consumer decides on a REQ. */
#define CMA_CM_MRA_SETTING	(IB_CM_MRA_FLAG_DELAY | 24)

static int cma_ib_handler(struct ib_cm_id *ib, const struct ib_cm_event *ev);

/*
 * Ask the peer to wait longer for our answer: the consumer has yet to
 * give it (for rdma_ucm's ids, user space, which can take a while).
 */
static int cma_ib_send_mra(struct cma_id *cid)
{
	trace_cm_send_mra(cid);
	return CMA_CALL(ib_send_cm_mra(cid->ib, CMA_CM_MRA_SETTING, NULL, 0));
}

/**
 * cma_ib_req_paths - the paths a REQ offers, from the route
 * @req: the REQ's parameters
 * @route: the active id's route: its primary path, the alternate one if
 *	num_pri_alt_paths is 2, and the inbound and outbound paths of the
 *	primary the SA gave (NULL when none)
 *
 * Context: any.
 */
void cma_ib_req_paths(struct ib_cm_req_param *req, struct rdma_route *route)
{
	req->primary_path = &route->path_rec[0];
	req->primary_path_inbound = route->path_rec_inbound;
	req->primary_path_outbound = route->path_rec_outbound;
	if (route->num_pri_alt_paths == 2)
		req->alternate_path = &route->path_rec[1];
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_req_paths);

/**
 * cma_ib_connect - send a REQ for an id
 * @cid: the id, in CONNECT, its route resolved
 * @param: the consumer's connection parameters
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL if the private data does not fit behind the CM
 * header, or the error of the IB CM (with nothing left behind).
 */
int cma_ib_connect(struct cma_id *cid, const struct rdma_conn_param *param)
{
	struct rdma_route *route = &cid->id.route;
	struct ib_cm_req_param req = {};
	struct ib_cm_id *ib;
	void *pdata;
	int ret;

	pdata = cma_hdr_with_data(cid, param, IB_CM_REQ_PRIVATE_DATA_SIZE,
				  &req.private_data_len);
	if (IS_ERR(pdata))
		return PTR_ERR(pdata);

	ib = CMA_CALL_PTR(ib_create_cm_id(cid->id.device, cma_ib_handler,
					  cid));
	ret = PTR_ERR_OR_ZERO(ib);
	if (ret)
		goto out;

	req.private_data = pdata;
	cma_ib_req_paths(&req, route);
	req.ppath_sgid_attr = route->addr.dev_addr.sgid_attr;
	req.service_id = cma_addr_service_id(cid->id.ps, cma_dst_addr(cid));
	req.qp_num = cid->qp_num;
	req.qp_type = cid->id.qp_type;
	req.starting_psn = cid->seq_num;
	req.responder_resources = param->responder_resources;
	req.initiator_depth = param->initiator_depth;
	req.flow_control = param->flow_control;
	req.retry_count = min_t(u8, 7, param->retry_count);
	req.rnr_retry_count = min_t(u8, 7, param->rnr_retry_count);
	req.remote_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT;
	req.local_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT;
	req.max_cm_retries = CMA_MAX_CM_RETRIES;
	req.srq = cid->srq;
	req.ece.vendor_id = cid->ece.vendor_id;
	req.ece.attr_mod = cid->ece.attr_mod;

	/* Set before sending: the reply may come before we return. */
	cid->ib = ib;
	trace_cm_send_req(cid);
	ret = CMA_CALL(ib_send_cm_req(ib, &req));
	if (ret) {
		cid->ib = NULL;
		ib_destroy_cm_id(ib);
	}
out:
	kfree(pdata);
	return ret;
}

/* The consumer could not take the connection it asked for: say so. */
static void cma_ib_reject_locally(struct cma_id *cid)
{
	cma_qp_to_err(cid);
	trace_cm_send_rej(cid);
	CMA_CALL(ib_send_cm_rej(cid->ib, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				NULL, 0));
}

/**
 * cma_ib_complete_connect - finish the active side once the REP is in
 * @cid: the id, whose REP arrived
 *
 * Moves the QP to RTR and RTS and sends the RTU; on failure the QP goes
 * to ERR and the peer gets a REJ.
 *
 * Context: process context, @cid's handler mutex held.
 * Return: 0 or the error.
 */
int cma_ib_complete_connect(struct cma_id *cid)
{
	int ret;

	lockdep_assert_held(&cid->handler_mutex);
	ret = cma_qp_to_rtr(cid, NULL);
	if (!ret)
		ret = cma_qp_to_rts(cid, NULL);
	if (!ret) {
		trace_cm_send_rtu(cid);
		ret = CMA_CALL(ib_send_cm_rtu(cid->ib, NULL, 0));
	}
	if (ret)
		cma_ib_reject_locally(cid);
	return ret;
}

/**
 * cma_ib_accept - answer a REQ with a REP
 * @cid: the passive id, in CONNECT
 * @param: the consumer's parameters
 *
 * Context: process context, @cid's handler mutex held.
 * Return: 0, -EINVAL if the private data is too long, or the error of the
 * QP modification or the IB CM.
 */
int cma_ib_accept(struct cma_id *cid, const struct rdma_conn_param *param)
{
	struct ib_cm_rep_param rep = {};
	int ret;

	lockdep_assert_held(&cid->handler_mutex);
	if (param->private_data_len > IB_CM_REP_PRIVATE_DATA_SIZE)
		return -EINVAL;

	ret = cma_qp_to_rtr(cid, param);
	if (!ret)
		ret = cma_qp_to_rts(cid, param);
	if (ret)
		return ret;

	rep.qp_num = cid->qp_num;
	rep.starting_psn = cid->seq_num;
	rep.private_data = param->private_data;
	rep.private_data_len = param->private_data_len;
	rep.responder_resources = param->responder_resources;
	rep.initiator_depth = param->initiator_depth;
	rep.flow_control = param->flow_control;
	rep.rnr_retry_count = min_t(u8, 7, param->rnr_retry_count);
	rep.srq = cid->srq;
	rep.ece.vendor_id = cid->ece.vendor_id;
	rep.ece.attr_mod = cid->ece.attr_mod;
	trace_cm_send_rep(cid);
	ret = CMA_CALL(ib_send_cm_rep(cid->ib, &rep));
	if (!ret)
		cid->rep_sent = true;
	return ret;
}

static void cma_rep_event(struct rdma_cm_event *event,
			  const struct ib_cm_event *ev)
{
	const struct ib_cm_rep_event_param *rep = &ev->param.rep_rcvd;

	event->param.conn.private_data = ev->private_data;
	event->param.conn.private_data_len = IB_CM_REP_PRIVATE_DATA_SIZE;
	event->param.conn.responder_resources = rep->responder_resources;
	event->param.conn.initiator_depth = rep->initiator_depth;
	event->param.conn.flow_control = rep->flow_control;
	event->param.conn.rnr_retry_count = rep->rnr_retry_count;
	event->param.conn.srq = rep->srq;
	event->param.conn.qp_num = rep->remote_qpn;
	event->ece.vendor_id = rep->ece.vendor_id;
	event->ece.attr_mod = rep->ece.attr_mod;
}

/*
 * The CM event for an IB CM event on a connection, or false if there is
 * none to deliver. Runs under the handler mutex.
 */
static bool cma_ib_event(struct cma_id *cid, const struct ib_cm_event *ev,
			 struct rdma_cm_event *event)
{
	switch (ev->event) {
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
		event->event = RDMA_CM_EVENT_UNREACHABLE;
		event->status = -ETIMEDOUT;
		return true;
	case IB_CM_REP_RECEIVED:
		/*
		 * As in-box, on every REP: an id without a QP of ours
		 * answers with the RTU only once its consumer accepts.
		 */
		if (cid->id.qp_type != IB_QPT_UD)
			cma_ib_send_mra(cid);
		if (cid->id.qp) {
			event->status = cma_ib_complete_connect(cid);
			event->event = event->status ?
				       RDMA_CM_EVENT_CONNECT_ERROR :
				       RDMA_CM_EVENT_ESTABLISHED;
		} else {
			event->event = RDMA_CM_EVENT_CONNECT_RESPONSE;
		}
		cma_rep_event(event, ev);
		return true;
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		event->event = RDMA_CM_EVENT_ESTABLISHED;
		return true;
	case IB_CM_DREQ_ERROR:
		event->status = -ETIMEDOUT;
		fallthrough;
	case IB_CM_DREQ_RECEIVED:
	case IB_CM_DREP_RECEIVED:
		event->event = RDMA_CM_EVENT_DISCONNECTED;
		return cma_transition(cid, RDMA_CM_CONNECT, RDMA_CM_DISCONNECT);
	case IB_CM_TIMEWAIT_EXIT:
		event->event = RDMA_CM_EVENT_TIMEWAIT_EXIT;
		return true;
	case IB_CM_REJ_RECEIVED:
		cma_qp_to_err(cid);
		event->event = RDMA_CM_EVENT_REJECTED;
		event->status = ev->param.rej_rcvd.reason;
		event->param.conn.private_data = ev->private_data;
		event->param.conn.private_data_len = IB_CM_REJ_PRIVATE_DATA_SIZE;
		return true;
	default:
		/* MRA only stretches the peer's timeout. */
		return false;
	}
}

/* Which state an IB CM event may arrive in. */
static bool cma_ib_event_expected(struct cma_id *cid,
				  const struct ib_cm_event *ev)
{
	enum rdma_cm_state state = cma_state(cid);

	if (ev->event == IB_CM_TIMEWAIT_EXIT)
		return state == RDMA_CM_DISCONNECT;
	return state == RDMA_CM_CONNECT;
}

/* The IB CM's callback for an established or connecting id. */
static int cma_ib_handler(struct ib_cm_id *ib, const struct ib_cm_event *ev)
{
	struct cma_id *cid = ib->context;
	struct rdma_cm_event event = {};

	mutex_lock(&cid->handler_mutex);
	if (!cma_ib_event_expected(cid, ev) || !cma_ib_event(cid, ev, &event)) {
		mutex_unlock(&cid->handler_mutex);
		return 0;
	}
	return cma_deliver_unlock(cid, &event);
}

/**
 * struct cma_req - what a REQ or SIDR REQ says, decoded
 * @net: the namespace it arrived in, a reference
 * @sid: its service ID
 * @ps: port space of its service ID
 * @port: port of its service ID
 * @src: the active side's address and port, from the CM header (or, for
 *	AF_IB, from the path)
 * @dst: the address connected to, with @port
 * @device_port: the device port it arrived on
 * @sgid_attr: the GID it was sent to (RoCE), or NULL
 * @path: its path (REQ only; NULL for a SIDR REQ)
 * @alt_path: its alternate path, or NULL
 * @qp_type: RC or UC for a REQ, UD for a SIDR REQ
 */
struct cma_req {
	struct net *net;
	__be64 sid;
	enum rdma_ucm_port_space ps;
	u16 port;
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
	u32 device_port;
	const struct ib_gid_attr *sgid_attr;
	const struct sa_path_rec *path;
	const struct sa_path_rec *alt_path;
	enum ib_qp_type qp_type;
};

/*
 * On RoCE a GID is an IP address: the header's destination must be the
 * one the request was sent to, or the header lies about where it goes.
 */
static bool cma_req_addressed_to(const struct ib_gid_attr *attr,
				 struct sockaddr *dst)
{
	union ib_gid gid;

	/* An AF_IB address comes from the path, which ib_cm matched. */
	if (!attr || !rdma_protocol_roce(attr->device, attr->port_num) ||
	    dst->sa_family == AF_IB)
		return true;
	rdma_ip2gid(dst, &gid);
	return !memcmp(&gid, &attr->gid, sizeof(gid));
}

/*
 * The namespace of the netdev a request arrived on, a reference in
 * @req->net, once an IP request passed the check of its origin
 * (-EHOSTUNREACH if not, as in-box). The netdev is read and checked, and
 * its namespace taken, in one RCU section, so that it cannot have moved
 * to another namespace in between.
 */
static int cma_req_net(struct cma_req *req)
{
	const struct sockaddr *dst = (const struct sockaddr *)&req->dst;
	const struct sockaddr *src = (const struct sockaddr *)&req->src;
	struct net_device *ndev;
	int ret = 0;

	if (!req->sgid_attr)
		return -ENODEV;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(req->sgid_attr);
	if (IS_ERR(ndev))
		ret = -ENODEV;
	else if (dst->sa_family != AF_IB && !cma_req_routable(ndev, src, dst))
		ret = -EHOSTUNREACH;
	else
		req->net = get_net(dev_net(ndev));
	rcu_read_unlock();
	return ret;
}

/* Where a request arrived and what it asks for, by kind of request. */
static int cma_req_origin(struct cma_req *req, const struct ib_cm_event *ev,
			  __be64 *sid)
{
	const struct ib_cm_req_event_param *rq = &ev->param.req_rcvd;
	const struct ib_cm_sidr_req_event_param *sidr = &ev->param.sidr_req_rcvd;

	switch (ev->event) {
	case IB_CM_REQ_RECEIVED:
		*sid = rq->primary_path->service_id;
		req->device_port = rq->port;
		req->sgid_attr = rq->ppath_sgid_attr;
		req->path = rq->primary_path;
		req->alt_path = rq->alternate_path;
		req->qp_type = rq->qp_type;
		return 0;
	case IB_CM_SIDR_REQ_RECEIVED:
		*sid = sidr->service_id;
		req->device_port = sidr->port;
		req->sgid_attr = sidr->sgid_attr;
		req->qp_type = IB_QPT_UD;
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * cma_ib_req_addrs - the addresses of a request from an AF_IB consumer
 * @path: the request's path as the passive side sees it (its source GID
 *	ours), or NULL for a SIDR REQ
 * @sid: the service ID asked for
 * @src: the peer's address: its GID, P_Key and flow information
 * @dst: ours: the path's source GID, P_Key and flow information, and @sid
 *	with a full mask; for a SIDR REQ only @sid
 *
 * Such a request has no CM header: the addresses come from the path.
 *
 * Context: any.
 */
void cma_ib_req_addrs(const struct sa_path_rec *path, __be64 sid,
		      struct sockaddr_storage *src,
		      struct sockaddr_storage *dst)
{
	struct sockaddr_ib *peer = (struct sockaddr_ib *)src;
	struct sockaddr_ib *self = (struct sockaddr_ib *)dst;

	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	peer->sib_family = AF_IB;
	self->sib_family = AF_IB;
	self->sib_sid = sid;
	self->sib_sid_mask = cpu_to_be64(~0ULL);
	if (!path)
		return;
	peer->sib_pkey = path->pkey;
	self->sib_pkey = path->pkey;
	peer->sib_flowinfo = path->flow_label;
	self->sib_flowinfo = path->flow_label;
	memcpy(&peer->sib_addr, &path->dgid, sizeof(peer->sib_addr));
	memcpy(&self->sib_addr, &path->sgid, sizeof(self->sib_addr));
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_req_addrs);

/*
 * A request's addresses as AF_IB ones, from its path. A SIDR REQ has no
 * path: ours is the GID and P_Key it arrived on.
 */
static void cma_req_as_ib(struct cma_req *req, const struct ib_cm_event *ev)
{
	struct sockaddr_ib *self = (struct sockaddr_ib *)&req->dst;

	cma_ib_req_addrs(req->path, req->sid, &req->src, &req->dst);
	if (req->path)
		return;
	self->sib_pkey = cpu_to_be16(ev->param.sidr_req_rcvd.pkey);
	if (req->sgid_attr)
		memcpy(&self->sib_addr, &req->sgid_attr->gid,
		       sizeof(self->sib_addr));
}

/*
 * What a request says. Its addresses come from its CM header or, as
 * in-box, when the header does not parse, there is none: the request is
 * an AF_IB one. -EHOSTUNREACH if the header's addresses could not be
 * those of a request that arrived where this one did.
 */
static int cma_req_decode(struct cma_req *req, const struct ib_cm_event *ev)
{
	int ret;

	ret = cma_req_origin(req, ev, &req->sid);
	if (ret)
		return ret;
	ret = cma_service_id_split(req->sid, &req->ps, &req->port);
	if (ret)
		return ret;
	if (cma_hdr_decode(ev->private_data, &req->src, &req->dst))
		cma_req_as_ib(req, ev);
	if (!cma_req_addressed_to(req->sgid_attr, (struct sockaddr *)&req->dst))
		return -EHOSTUNREACH;
	cma_addr_set_port((struct sockaddr *)&req->dst, req->port);
	ret = cma_req_net(req);
	/* InfiniBand has no netdev to say: AF_IB lives in init_net. */
	if (ret == -ENODEV && req->dst.ss_family == AF_IB) {
		req->net = get_net(&init_net);
		ret = 0;
	}
	return ret;
}

/* What address resolution would have found about our side's netdev. */
static void cma_copy_l2(struct rdma_dev_addr *dev_addr,
			const struct net_device *ndev)
{
	dev_addr->dev_type = ndev->type;
	memcpy(dev_addr->src_dev_addr, ndev->dev_addr, ndev->addr_len);
	memcpy(dev_addr->broadcast, ndev->broadcast, ndev->addr_len);
	dev_addr->bound_dev_if = ndev->ifindex;
}

/**
 * cma_req_route - a REQ's paths, for the passive id's route
 * @route: the passive id's route, without paths yet
 * @primary: the REQ's primary path, or NULL (a SIDR REQ has none)
 * @alt: its alternate path, or NULL
 *
 * As in-box, the route gets both: path_rec[0] the primary, path_rec[1]
 * the alternate when there is one (num_pri_alt_paths says which).
 *
 * Context: process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
int cma_req_route(struct rdma_route *route, const struct sa_path_rec *primary,
		  const struct sa_path_rec *alt)
{
	int n = alt ? 2 : 1;

	if (!primary)
		return 0;
	route->path_rec = CMA_ALLOC(kmalloc_array(n, sizeof(*primary),
						  GFP_KERNEL));
	if (!route->path_rec)
		return -ENOMEM;
	route->path_rec[0] = *primary;
	if (alt)
		route->path_rec[1] = *alt;
	route->num_pri_alt_paths = n;
	rdma_addr_set_dgid(&route->addr.dev_addr, &route->path_rec->dgid);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_req_route);

/*
 * An AF_IB request's id: our GID and P_Key are those of its address. On
 * InfiniBand, where no netdev said otherwise, the device type too.
 */
static void cma_ib_child_dev_addr(struct rdma_dev_addr *dev_addr,
				  const struct sockaddr_ib *self)
{
	if (!dev_addr->dev_type)
		dev_addr->dev_type = ARPHRD_INFINIBAND;
	rdma_addr_set_sgid(dev_addr, (union ib_gid *)&self->sib_addr);
	ib_addr_set_pkey(dev_addr, ntohs(self->sib_pkey));
}

/*
 * The passive id of a request, born in CONNECT, bound like its request.
 * Called under the listener's handler mutex.
 */
static struct cma_id *cma_req_child(struct cma_id *listener,
				    const struct cma_req *req,
				    struct ib_cm_id *ib)
{
	struct rdma_route *route;
	struct net_device *ndev;
	struct cma_id *cid;
	int ret;

	lockdep_assert_held(&listener->handler_mutex);

	cid = cma_id_alloc(req->net, listener->id.event_handler,
			   listener->id.context, listener->id.ps, req->qp_type,
			   RDMA_CM_CONNECT, listener->owner);
	if (IS_ERR(cid))
		return cid;

	route = &cid->id.route;
	memcpy(&route->addr.src_addr, &req->dst, sizeof(req->dst));
	memcpy(&route->addr.dst_addr, &req->src, sizeof(req->src));
	if (req->sgid_attr) {
		rcu_read_lock();
		ndev = rdma_read_gid_attr_ndev_rcu(req->sgid_attr);
		if (!IS_ERR(ndev))
			cma_copy_l2(&route->addr.dev_addr, ndev);
		rcu_read_unlock();
	}
	if (req->dst.ss_family == AF_IB)
		cma_ib_child_dev_addr(&route->addr.dev_addr,
				      (const struct sockaddr_ib *)&req->dst);
	ret = cma_req_route(route, req->path, req->alt_path);
	if (!ret)
		ret = cma_attach_dev(cid, ib->device, req->device_port,
				     req->sgid_attr);
	if (ret)
		goto err;
	return cid;
err:
	cma_destroy_child(cid);
	return ERR_PTR(ret);
}

static void cma_req_event(struct rdma_cm_event *event,
			  const struct ib_cm_event *ev, u8 offset)
{
	const struct ib_cm_req_event_param *rq = &ev->param.req_rcvd;

	event->event = RDMA_CM_EVENT_CONNECT_REQUEST;
	event->param.conn.private_data = ev->private_data + offset;
	event->param.conn.private_data_len =
		IB_CM_REQ_PRIVATE_DATA_SIZE - offset;
	event->param.conn.responder_resources = rq->responder_resources;
	event->param.conn.initiator_depth = rq->initiator_depth;
	event->param.conn.flow_control = rq->flow_control;
	event->param.conn.retry_count = rq->retry_count;
	event->param.conn.rnr_retry_count = rq->rnr_retry_count;
	event->param.conn.srq = rq->srq;
	event->param.conn.qp_num = rq->remote_qpn;
	event->ece.vendor_id = rq->ece.vendor_id;
	event->ece.attr_mod = rq->ece.attr_mod;
}

/*
 * Hand a new connection to the listener's consumer, as the CONNECT_REQUEST
 * of a new id, under the listener's handler mutex and then the child's.
 * Returns what the IB CM should do with @ib: 0 to keep it, non-zero to
 * destroy it (-ENOMEM silently, so the peer retries; otherwise with a
 * REJ).
 */
static int cma_req_deliver(struct cma_id *listener, const struct cma_req *req,
			   struct ib_cm_id *ib, const struct ib_cm_event *ev)
{
	struct rdma_cm_event event = {};
	struct cma_id *child;
	int ret;

	mutex_lock(&listener->handler_mutex);
	if (cma_state(listener) != RDMA_CM_LISTEN) {
		ret = -ECONNABORTED;
		goto out;
	}
	child = cma_req_child(listener, req, ib);
	if (IS_ERR(child)) {
		ret = PTR_ERR(child);
		goto out;
	}

	mutex_lock_nested(&child->handler_mutex, SINGLE_DEPTH_NESTING);
	child->ib = ib;
	ib->context = child;
	/* Nothing follows a SIDR REQ on the passive side: it ignores all. */
	ib->cm_handler = cma_ib_handler;

	if (req->qp_type == IB_QPT_UD)
		cma_sidr_req_event(&event, ev, cma_hdr_len(cma_src_addr(child)));
	else
		cma_req_event(&event, ev, cma_hdr_len(cma_src_addr(child)));
	ret = cma_deliver(child, &event);
	if (ret) {
		child->ib = NULL;
		mutex_unlock(&listener->handler_mutex);
		cma_destroy_handler_unlock(child);
		return ret;
	}
	/* Not accepted yet: ask the peer to give the consumer time. */
	if (req->qp_type != IB_QPT_UD && !child->rep_sent &&
	    cma_state(child) == RDMA_CM_CONNECT)
		cma_ib_send_mra(child);
	mutex_unlock(&child->handler_mutex);
out:
	mutex_unlock(&listener->handler_mutex);
	return ret;
}

/* The IB CM's callback for a REQ or a SIDR REQ on one of our listens. */
static int cma_ib_req_handler(struct ib_cm_id *ib,
			      const struct ib_cm_event *ev)
{
	struct cma_req req = {};
	struct cma_id *listener;
	int ret;

	ret = cma_req_decode(&req, ev);
	if (ret == -EHOSTUNREACH)
		cma_device_count_unroutable(ib->device, req.device_port);
	if (ret)
		goto out;

	listener = cma_find_listener(req.net, req.ps, req.port,
				     (struct sockaddr *)&req.dst, ib->device);
	if (!listener) {
		ret = -EINVAL;
		goto out;
	}
	trace_cm_req_handler(listener, ev->event);
	/* As in-box, an AF_IB listener sees IP requests raw, header and all. */
	if (cma_src_addr(listener)->sa_family == AF_IB &&
	    req.dst.ss_family != AF_IB)
		cma_req_as_ib(&req, ev);
	if (listener->id.qp_type != req.qp_type)
		ret = -EINVAL;
	else
		ret = cma_req_deliver(listener, &req, ib, ev);
	cma_id_put(listener);
out:
	if (req.net)
		put_net(req.net);
	return ret;
}

/**
 * cma_ib_listen - listen for REQs to an id's service ID on a device
 * @cid: the listener, bound to its port
 * @device: the device
 * @cm_id: where to store the IB CM listen
 *
 * Context: process context, cma_lock held.
 * Return: 0 or the error of ib_cm_insert_listen().
 */
int cma_ib_listen(struct cma_id *cid, struct ib_device *device,
		  struct ib_cm_id **cm_id)
{
	struct ib_cm_id *ib;
	__be64 sid;

	lockdep_assert_held(&cma_lock);
	sid = cma_addr_service_id(cid->id.ps, cma_src_addr(cid));
	ib = CMA_CALL_PTR(ib_cm_insert_listen(device, cma_ib_req_handler, sid));
	if (IS_ERR(ib))
		return PTR_ERR(ib);
	*cm_id = ib;
	return 0;
}
