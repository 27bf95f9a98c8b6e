// SPDX-License-Identifier: GPL-2.0
/*
 * The connection calls of the API: connect, accept, reject, disconnect,
 * notify. They check the id's state and hand the work to the transport:
 * cma_ib.c for InfiniBand and RoCE, cma_sidr.c for UD over either, and
 * cma_iw.c for iWARP.
 */

#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>

#include "cma_priv.h"
#include "cma_trace.h"

static bool cma_is_ib(struct rdma_cm_id *id)
{
	return id->device && rdma_cap_ib_cm(id->device, id->port_num);
}

static bool cma_is_iw(struct rdma_cm_id *id)
{
	return id->device && rdma_cap_iw_cm(id->device, id->port_num);
}

/* A connection exists, being set up or up, on either transport. */
static bool cma_has_conn(struct cma_id *cid)
{
	return cid->ib || cid->iw;
}

static void cma_set_ece(struct cma_id *cid, const struct rdma_ucm_ece *ece)
{
	cid->ece.vendor_id = ece->vendor_id;
	cid->ece.attr_mod = ece->attr_mod;
}

static bool cma_is_connected_qp(struct rdma_cm_id *id)
{
	return id->qp_type != IB_QPT_UD;
}

/**
 * rdma_connect_locked - start connecting, from the id's own handler
 * @id: the id, in ROUTE_RESOLVED, its handler mutex held (this is for the
 *	ROUTE_RESOLVED handler)
 * @conn_param: connection parameters; on InfiniBand and RoCE the private
 *	data is carried behind the CM's own header, at most 56 bytes; iWARP
 *	carries it as is
 *
 * Without a QP on @id, qp_num and srq come from @conn_param. A UD id
 * (InfiniBand and RoCE only) sends a SIDR REQ, with at most 180 bytes of
 * private data; its ESTABLISHED carries the address handle, the remote QP
 * number and the qkey to send datagrams with.
 *
 * Context: process context, @id's handler mutex held.
 * Return: 0 if the request went out (the answer comes as an event), or
 * -EINVAL (wrong state, NULL @conn_param, private data too long), or the
 * error of the transport, with @id back in ROUTE_RESOLVED.
 */
int rdma_connect_locked(struct rdma_cm_id *id,
			struct rdma_conn_param *conn_param)
{
	struct cma_id *cid = to_cma_id(id);
	int ret;

	lockdep_assert_held(&cid->handler_mutex);
	if (!conn_param)
		return -EINVAL;
	if (!cma_transition(cid, RDMA_CM_ROUTE_RESOLVED, RDMA_CM_CONNECT))
		return -EINVAL;

	if (!id->qp) {
		cid->qp_num = conn_param->qp_num;
		cid->srq = conn_param->srq;
	}

	if (cma_is_ib(id) && !cma_is_connected_qp(id))
		ret = cma_sidr_connect(cid, conn_param);
	else if (cma_is_ib(id))
		ret = cma_ib_connect(cid, conn_param);
	else if (cma_is_iw(id) && cma_is_connected_qp(id))
		ret = cma_iw_connect(cid, conn_param);
	else
		ret = -EINVAL;
	if (ret)
		cma_transition(cid, RDMA_CM_CONNECT, RDMA_CM_ROUTE_RESOLVED);
	return ret;
}

/**
 * rdma_connect - start connecting
 * @id: the id, in ROUTE_RESOLVED
 * @conn_param: as for rdma_connect_locked()
 *
 * Context: process context; takes @id's handler mutex, so not from @id's
 * own handler (use rdma_connect_locked() there).
 * Return: as for rdma_connect_locked().
 */
int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct cma_id *cid = to_cma_id(id);
	int ret;

	mutex_lock(&cid->handler_mutex);
	ret = rdma_connect_locked(id, conn_param);
	mutex_unlock(&cid->handler_mutex);
	return ret;
}

/**
 * rdma_connect_ece - start connecting, with ECE options
 * @id: as for rdma_connect()
 * @conn_param: as for rdma_connect()
 * @ece: enhanced connection establishment options to offer the peer
 *
 * Context: as for rdma_connect().
 * Return: as for rdma_connect().
 */
int rdma_connect_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		     struct rdma_ucm_ece *ece)
{
	cma_set_ece(to_cma_id(id), ece);
	return rdma_connect(id, conn_param);
}

/* UD: answer the SIDR REQ with our QP number and qkey. */
static int cma_accept_ud(struct cma_id *cid,
			 const struct rdma_conn_param *conn_param)
{
	if (!conn_param)
		return cma_sidr_reply(cid, IB_SIDR_SUCCESS, 0, NULL, 0);
	return cma_sidr_reply(cid, IB_SIDR_SUCCESS, conn_param->qkey,
			      conn_param->private_data,
			      conn_param->private_data_len);
}

/**
 * rdma_accept - accept a connection, or complete one
 * @id: on the passive side, the id of a CONNECT_REQUEST; on the active
 *	side, an id without QP that got CONNECT_RESPONSE
 * @conn_param: the passive side's answer (private data at most 196 bytes
 *	on InfiniBand and RoCE); NULL on the active side, to send the RTU
 *	(InfiniBand and RoCE only)
 *
 * The QP, if any, moves to RTR and RTS first. ESTABLISHED follows. If
 * accepting fails in CONNECT, for any reason (private data too long, a
 * second accept after the REP went out), the QP goes to ERR and the peer
 * is rejected, as in-box. A UD id answers the SIDR REQ with its QP number
 * and qkey (@conn_param's qkey must be 0 or the port space's; private
 * data at most 136 bytes), and no event follows on this side.
 *
 * Context: process context, with @id's handler mutex held: from @id's
 * handler, or between rdma_lock_handler() and rdma_unlock_handler().
 * Return: 0, -EINVAL (wrong state, no connection to accept, private data
 * too long), or the error of the QP or the transport.
 */
int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct cma_id *cid = to_cma_id(id);
	int ret;

	lockdep_assert_held(&cid->handler_mutex);
	if (cma_state(cid) != RDMA_CM_CONNECT || !cma_has_conn(cid))
		return -EINVAL;

	if (!id->qp && conn_param) {
		cid->qp_num = conn_param->qp_num;
		cid->srq = conn_param->srq;
	}

	if (!cma_is_connected_qp(id))
		ret = cma_accept_ud(cid, conn_param);
	else if (cid->iw)
		ret = conn_param ? cma_iw_accept(cid, conn_param) : -EINVAL;
	else if (conn_param)
		ret = cma_ib_accept(cid, conn_param);
	else
		ret = cma_ib_complete_connect(cid);
	/*
	 * Whatever made the accept fail once the state allowed it (private
	 * data too long, a REP already sent), the peer is told as in-box
	 * tells it: a consumer that cannot take the connection rejects it.
	 */
	if (ret) {
		cma_qp_to_err(cid);
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	}
	return ret;
}

/**
 * rdma_accept_ece - accept a connection, with ECE options
 * @id: as for rdma_accept()
 * @conn_param: as for rdma_accept()
 * @ece: the options agreed with the peer
 *
 * Context: as for rdma_accept().
 * Return: as for rdma_accept().
 */
int rdma_accept_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		    struct rdma_ucm_ece *ece)
{
	cma_set_ece(to_cma_id(id), ece);
	return rdma_accept(id, conn_param);
}

/**
 * rdma_reject - refuse a connection request, or a reply
 * @id: an id with a connection being set up
 * @private_data: data for the peer, or NULL
 * @private_data_len: its length, at most 148 bytes on InfiniBand and RoCE
 * @reason: the IB CM reject reason; IB_CM_REJ_CONSUMER_DEFINED lets the
 *	peer read @private_data with rdma_consumer_reject_data(). iWARP has
 *	no reasons: its peer always sees -ECONNREFUSED.
 *
 * A UD id answers its SIDR REQ with a SIDR REP of status reject (data up
 * to 136 bytes; @reason is not sent): the peer gets UNREACHABLE.
 * The id keeps its state; the consumer destroys it.
 *
 * Context: process context.
 * Return: 0, -EINVAL if @id has no connection or the data is too long,
 * or the error of the transport.
 */
int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		u8 private_data_len, u8 reason)
{
	struct cma_id *cid = to_cma_id(id);

	if (cid->iw)
		return CMA_CALL(iw_cm_reject(cid->iw, private_data,
					     private_data_len));
	if (cid->ib && !cma_is_connected_qp(id))
		return cma_sidr_reply(cid, IB_SIDR_REJECT, 0, private_data,
				      private_data_len);
	if (!cid->ib || private_data_len > IB_CM_REJ_PRIVATE_DATA_SIZE)
		return -EINVAL;
	trace_cm_send_rej(cid);
	return CMA_CALL(ib_send_cm_rej(cid->ib, reason, NULL, 0, private_data,
				       private_data_len));
}

/**
 * rdma_disconnect - tear a connection down
 * @id: a connected id
 *
 * On InfiniBand and RoCE the QP goes to ERR, flushing its work requests,
 * and the peer gets a DREQ (or, if it sent one first, a DREP);
 * DISCONNECTED follows on both sides, then TIMEWAIT_EXIT. On iWARP the
 * connection is closed gracefully and iw_cm moves the QP.
 *
 * Context: process context.
 * Return: 0, -EINVAL if @id has no connection (0 for an IB CM listener
 * bound to its device, as in-box), or the error of the QP modification.
 */
int rdma_disconnect(struct rdma_cm_id *id)
{
	struct cma_id *cid = to_cma_id(id);
	int ret;

	if (cid->iw)
		return CMA_CALL(iw_cm_disconnect(cid->iw, 0));
	/*
	 * In-box, an IB CM listener tries a DREQ and a DREP on its listen,
	 * both refused, and returns 0; an iWARP one gets iw_cm's -EINVAL.
	 */
	if (cma_dev_listener(cid) &&
	    rdma_cap_ib_cm(id->device, id->port_num))
		return cma_qp_to_err(cid);
	if (!cid->ib)
		return -EINVAL;
	ret = cma_qp_to_err(cid);
	if (ret)
		return ret;
	trace_cm_disconnect(cid);
	/* A DREQ fails if the peer's came first: then answer it. */
	if (!CMA_CALL(ib_send_cm_dreq(cid->ib, NULL, 0)))
		trace_cm_sent_dreq(cid);
	else if (!CMA_CALL(ib_send_cm_drep(cid->ib, NULL, 0)))
		trace_cm_sent_drep(cid);
	return 0;
}

/**
 * rdma_notify - tell the CM about an event on the id's QP
 * @id: a connecting id
 * @event: the QP's asynchronous event; IB_EVENT_COMM_EST completes a
 *	connection whose RTU was lost
 *
 * Context: process context or the QP's event handler.
 * Return: 0 on iWARP, which needs no help, for an id with a connection or
 * a listen on its device (as in-box, whose listener holds its iw_cm id
 * where a connection does); -EINVAL if @id has neither; else the IB CM's
 * error.
 */
int rdma_notify(struct rdma_cm_id *id, enum ib_event_type event)
{
	struct cma_id *cid = to_cma_id(id);

	if (rdma_iw_cm_id(id))
		return 0;
	if (!cid->ib)
		return -EINVAL;
	return CMA_CALL(ib_cm_notify(cid->ib, event));
}

/**
 * rdma_consumer_reject_data - the peer consumer's data in a rejection
 * @id: the id that got the event
 * @ev: a RDMA_CM_EVENT_REJECTED event
 * @data_len: where to store the data's length
 *
 * Context: any; from the REJECTED handler, as the data lives only there.
 * Return: the data, or NULL (with *@data_len 0) if the peer's consumer did
 * not reject (a timeout, a stale connection...).
 */
const void *rdma_consumer_reject_data(struct rdma_cm_id *id,
				      struct rdma_cm_event *ev, u8 *data_len)
{
	bool consumer = cma_is_ib(id) ?
			ev->status == IB_CM_REJ_CONSUMER_DEFINED :
			cma_is_iw(id) && ev->status == -ECONNREFUSED;

	if (ev->event == RDMA_CM_EVENT_REJECTED && consumer) {
		*data_len = ev->param.conn.private_data_len;
		return ev->param.conn.private_data;
	}
	*data_len = 0;
	return NULL;
}
