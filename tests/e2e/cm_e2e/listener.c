// SPDX-License-Identifier: GPL-2.0
/*
 * cm_e2e connections: the passive side (a listener whose handler turns
 * each CONNECT_REQUEST into an endpoint), the active side step by step,
 * and the checks both ends of one connection share.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/unaligned.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "cm_e2e.h"

#define CME_BACKLOG	64

/**
 * cme_conn_param() - the active side's connection parameters
 * @param: filled in
 * @pdata: private data
 * @len: its length
 */
void cme_conn_param(struct rdma_conn_param *param, const void *pdata, u8 len)
{
	memset(param, 0, sizeof(*param));
	param->private_data = pdata;
	param->private_data_len = len;
	param->responder_resources = CME_RESP_RES;
	param->initiator_depth = CME_INIT_DEPTH;
	param->flow_control = 1;
	param->retry_count = CME_RETRY;
	param->rnr_retry_count = CME_RNR_RETRY;
}

/**
 * cme_accept_locked() - accept a connection request
 * @ep: the passive endpoint, with a QP, its handler lock held
 * @req: its CONNECT_REQUEST event
 * @len: length of the private data: the CME_SEED_REP pattern
 *
 * Mirrors the request's resources, as ULPs do.
 *
 * Return: what rdma_accept() returned.
 */
int cme_accept_locked(struct cme_ep *ep, const struct cme_event *req, u8 len)
{
	u8 pdata[CME_REP_PDATA_MAX + 1];
	struct rdma_conn_param param = {};

	len = min_t(u8, len, sizeof(pdata));
	cme_pattern(pdata, len, CME_SEED_REP, ep->index);
	param.private_data = pdata;
	param.private_data_len = len;
	param.responder_resources = req->conn.responder_resources;
	param.initiator_depth = req->conn.initiator_depth;
	param.flow_control = 1;
	param.rnr_retry_count = CME_SRV_RNR_RETRY;
	return rdma_accept(ep->id, &param);
}

/* What the policy says, from the CONNECT_REQUEST handler; 1 destroys. */
static int cme_listener_answer(struct cme_listener *l, struct cme_ep *ep,
			       const struct cme_event *req)
{
	u8 pdata[CME_REJ_PDATA_MAX];
	u8 len;
	int ret;

	switch (READ_ONCE(l->policy)) {
	case CME_ACCEPT:
		ret = cme_ep_setup_qp(ep);
		if (!ret)
			ret = cme_accept_locked(ep, req, l->reply_len);
		if (ret) {
			/* A failure if the scenario expected a connection. */
			pr_info("%s: accepting: %d\n", ep->name, ret);
			ep->handler_error = ret;
			cme_ep_destroy_qp(ep);
			return 1;
		}
		return 0;
	case CME_REJECT:
		len = min_t(u8, l->reply_len, sizeof(pdata));
		cme_pattern(pdata, len, CME_SEED_REJ, ep->index);
		ret = rdma_reject(ep->id, pdata, len, l->reject_reason);
		if (ret) {
			pr_err("FAIL: %s: rdma_reject: %d\n", ep->name, ret);
			ep->handler_error = ret;
		}
		return 1;
	default:
		return 0;
	}
}

static int cme_listener_request(struct cme_listener *l, struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	const struct cme_event *req;
	struct cme_ep *ep;
	unsigned int n;
	int ret;

	spin_lock(&l->lock);
	n = l->nr_requests++;
	spin_unlock(&l->lock);

	ep = cme_ep_alloc("%s.%u", l->name, n);
	if (!ep) {
		pr_err("FAIL: %s: out of memory for a connection\n", l->name);
		return 1;
	}
	ep->id = id;
	id->context = ep;
	if (ev->param.conn.private_data &&
	    ev->param.conn.private_data_len >= sizeof(u32))
		ep->index = get_unaligned_le32(ev->param.conn.private_data);
	cme_ep_record(ep, id, ev, true, false);
	req = &ep->events[0];

	ret = cme_listener_answer(l, ep, req);
	if (ret) {
		/* Nobody else sees @ep yet: mark it without the dance. */
		spin_lock(&ep->lock);
		ep->dying = true;
		ep->id_gone = true;
		spin_unlock(&ep->lock);
	}

	/* The scenario may destroy @ep once it sees it. */
	spin_lock(&l->lock);
	list_add_tail(&ep->node, &l->conns);
	l->nr_added++;
	wake_up_all(&l->wq);
	spin_unlock(&l->lock);
	return ret;
}

/**
 * cme_listener_event() - the event handler of a listener's ids
 * @l: the listener
 * @id: the listening id, or for CONNECT_REQUEST a new id
 * @ev: the event
 *
 * Return: non-zero to have the CM destroy @id.
 */
int cme_listener_event(struct cme_listener *l, struct rdma_cm_id *id,
		       struct rdma_cm_event *ev)
{
	/* A request comes on a new id, never on the listening one. */
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && id != l->id)
		return cme_listener_request(l, id, ev);

	pr_err("FAIL: %s: unexpected %s (status %d) on the listening id\n",
	       l->name, cme_event_name(ev->event), ev->status);
	spin_lock(&l->lock);
	l->nr_other++;
	spin_unlock(&l->lock);
	return 0;
}

/**
 * cme_listener_create() - bind and listen
 * @net: network namespace
 * @addr: address and port to listen on
 * @policy: what to do with connection requests
 * @name: for messages
 *
 * Return: the listener or an ERR_PTR.
 */
struct cme_listener *cme_listener_create(struct net *net,
					 const struct sockaddr *addr,
					 enum cme_policy policy,
					 const char *name)
{
	struct sockaddr_storage ss;
	struct cme_listener *l;
	int ret;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return ERR_PTR(-ENOMEM);
	l->kind = CME_KIND_LISTENER;
	strscpy(l->name, name, sizeof(l->name));
	l->policy = policy;
	l->reply_len = CME_PDATA_LEN;
	l->reject_reason = IB_CM_REJ_CONSUMER_DEFINED;
	spin_lock_init(&l->lock);
	init_waitqueue_head(&l->wq);
	INIT_LIST_HEAD(&l->conns);

	l->id = rdma_create_id(net, cme_cm_handler, l, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(l->id)) {
		ret = PTR_ERR(l->id);
		pr_err("FAIL: %s: rdma_create_id: %d\n", name, ret);
		kfree(l);
		return ERR_PTR(ret);
	}
	memcpy(&ss, addr, addr->sa_family == AF_INET6 ?
	       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	ret = rdma_bind_addr(l->id, (struct sockaddr *)&ss);
	if (ret) {
		pr_err("FAIL: %s: rdma_bind_addr %pISpc: %d\n", name, addr,
		       ret);
		goto err;
	}
	ret = rdma_listen(l->id, CME_BACKLOG);
	if (ret) {
		pr_err("FAIL: %s: rdma_listen %pISpc: %d\n", name, addr, ret);
		goto err;
	}
	pr_info("%s: listening on %pISpc\n", name, addr);
	return l;
err:
	rdma_destroy_id(l->id);
	kfree(l);
	return ERR_PTR(ret);
}

/**
 * cme_listener_set_policy() - change what the listener does with requests
 * @l: the listener
 * @policy: for the requests from now on
 */
void cme_listener_set_policy(struct cme_listener *l, enum cme_policy policy)
{
	WRITE_ONCE(l->policy, policy);
}

/* Take the oldest connection, or the oldest with @index unless @any. */
static struct cme_ep *cme_listener_remove(struct cme_listener *l, bool any,
					  u32 index)
{
	struct cme_ep *ep, *found = NULL;

	spin_lock(&l->lock);
	list_for_each_entry(ep, &l->conns, node) {
		if (any || ep->index == index) {
			list_del_init(&ep->node);
			found = ep;
			break;
		}
	}
	spin_unlock(&l->lock);
	return found;
}

static struct cme_ep *cme_listener_pop(struct cme_listener *l)
{
	return cme_listener_remove(l, true, 0);
}

static bool cme_listener_has_conn(struct cme_listener *l)
{
	bool ret;

	spin_lock(&l->lock);
	ret = !list_empty(&l->conns);
	spin_unlock(&l->lock);
	return ret;
}

static unsigned int cme_listener_added(struct cme_listener *l)
{
	unsigned int added;

	spin_lock(&l->lock);
	added = l->nr_added;
	spin_unlock(&l->lock);
	return added;
}

/* Sleeps this long at most, to stay clear of the hung task detector. */
#define CME_NAP_MS	10000

/* Take as cme_listener_remove() does, waiting up to @ms for a match. */
static struct cme_ep *cme_listener_take_if(struct cme_listener *l, bool any,
					   u32 index, unsigned int ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ms);
	unsigned int seen;
	struct cme_ep *ep;
	long left;

	for (;;) {
		seen = cme_listener_added(l);
		ep = cme_listener_remove(l, any, index);
		if (ep)
			return ep;
		left = deadline - jiffies;
		if (left <= 0)
			return ERR_PTR(-ETIMEDOUT);
		wait_event_timeout(l->wq, cme_listener_added(l) != seen,
				   min_t(long, left,
					 msecs_to_jiffies(CME_NAP_MS)));
	}
}

/**
 * cme_listener_take_wait() - the oldest connection not taken yet
 * @l: the listener
 * @ms: how long to wait for one
 *
 * The caller owns the endpoint.
 *
 * Return: the passive endpoint, or an ERR_PTR (-ETIMEDOUT).
 */
struct cme_ep *cme_listener_take_wait(struct cme_listener *l, unsigned int ms)
{
	struct cme_ep *ep = cme_listener_take_if(l, true, 0, ms);

	if (IS_ERR(ep))
		pr_err("FAIL: %s: no CONNECT_REQUEST in %u ms\n", l->name, ms);
	return ep;
}

/**
 * cme_listener_take_index() - the connection a given client made
 * @l: the listener
 * @index: the number the client sent in its private data
 * @ms: how long to wait for it; 0 to look only
 *
 * The caller owns the endpoint.
 *
 * Return: the passive endpoint, or ERR_PTR(-ETIMEDOUT) (not an error
 * in itself: the caller says whether it expected one).
 */
struct cme_ep *cme_listener_take_index(struct cme_listener *l, u32 index,
				       unsigned int ms)
{
	return cme_listener_take_if(l, false, index, ms);
}

/**
 * cme_listener_take() - the oldest connection the scenario has not taken
 * @l: the listener
 *
 * Waits up to cme_timeout_ms.  The caller owns the endpoint.
 *
 * Return: the passive endpoint, or an ERR_PTR (-ETIMEDOUT).
 */
struct cme_ep *cme_listener_take(struct cme_listener *l)
{
	return cme_listener_take_wait(l, cme_timeout_ms);
}

/**
 * cme_listener_expect_none() - check that no request or event comes
 * @l: the listener
 * @ms: how long to watch
 *
 * Return: 0, or -EPROTO.
 */
int cme_listener_expect_none(struct cme_listener *l, unsigned int ms)
{
	unsigned int other;

	if (wait_event_timeout(l->wq, cme_listener_has_conn(l),
			       msecs_to_jiffies(ms))) {
		pr_err("FAIL: %s: unexpected CONNECT_REQUEST\n", l->name);
		return -EPROTO;
	}
	spin_lock(&l->lock);
	other = l->nr_other;
	spin_unlock(&l->lock);
	if (other) {
		pr_err("FAIL: %s: %u unexpected events\n", l->name, other);
		return -EPROTO;
	}
	return 0;
}

/**
 * cme_listener_destroy() - destroy the listening id, then what it left
 * @l: the listener, or an ERR_PTR or NULL
 *
 * No handler runs once rdma_destroy_id() returned, so the connections
 * the scenario did not take can go after it.
 */
void cme_listener_destroy(struct cme_listener *l)
{
	struct cme_ep *ep;

	if (IS_ERR_OR_NULL(l))
		return;
	rdma_destroy_id(l->id);
	while ((ep = cme_listener_pop(l)))
		cme_ep_destroy(ep);
	kfree(l);
}

/**
 * cme_client_start() - new active endpoint, resolving its address
 * @net: network namespace
 * @dst: where to connect, with the port
 * @index: the connection's number, sent in the private data
 *
 * Return: the endpoint (ADDR_RESOLVED or ADDR_ERROR to come), or an
 * ERR_PTR.
 */
struct cme_ep *cme_client_start(struct net *net, const struct sockaddr *dst,
				u32 index)
{
	struct cme_ep *ep;
	int ret;

	ep = cme_ep_alloc("cli%u", index);
	if (!ep)
		return ERR_PTR(-ENOMEM);
	ep->index = index;
	ret = cme_ep_create_id(ep, net);
	if (ret)
		goto err;
	ret = rdma_resolve_addr(ep->id, NULL, dst, CME_RESOLVE_MS);
	if (ret) {
		pr_err("FAIL: %s: rdma_resolve_addr %pISpc: %d\n", ep->name,
		       dst, ret);
		goto err;
	}
	return ep;
err:
	cme_ep_destroy(ep);
	return ERR_PTR(ret);
}

/**
 * cme_client_route() - after ADDR_RESOLVED, resolve the route
 * @ep: the active endpoint
 *
 * Return: 0 or a negative errno.
 */
int cme_client_route(struct cme_ep *ep)
{
	const struct cme_event *e;
	int ret;

	e = cme_ep_wait(ep, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	if (e->status) {
		pr_err("FAIL: %s: ADDR_RESOLVED status %d\n", ep->name,
		       e->status);
		return -EPROTO;
	}
	ret = rdma_resolve_route(ep->id, CME_RESOLVE_MS);
	if (ret)
		pr_err("FAIL: %s: rdma_resolve_route: %d\n", ep->name, ret);
	return ret;
}

/**
 * cme_client_connect() - after ROUTE_RESOLVED, make the QP and connect
 * @ep: the active endpoint
 *
 * Sends CME_PDATA_LEN bytes of the CME_SEED_REQ pattern.
 *
 * Return: 0 or a negative errno.
 */
int cme_client_connect(struct cme_ep *ep)
{
	struct rdma_conn_param param;
	const struct cme_event *e;
	u8 pdata[CME_PDATA_LEN];
	int ret;

	e = cme_ep_wait(ep, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	if (e->status) {
		pr_err("FAIL: %s: ROUTE_RESOLVED status %d\n", ep->name,
		       e->status);
		return -EPROTO;
	}
	ret = cme_ep_setup_qp(ep);
	if (ret)
		return ret;
	cme_pattern(pdata, sizeof(pdata), CME_SEED_REQ, ep->index);
	cme_conn_param(&param, pdata, sizeof(pdata));
	ret = rdma_connect(ep->id, &param);
	if (ret)
		pr_err("FAIL: %s: rdma_connect: %d\n", ep->name, ret);
	return ret;
}

/**
 * cme_client_established() - wait for ESTABLISHED and check what it says
 * @ep: the active endpoint
 *
 * The server's private data and its mirror of our resources.
 *
 * Return: 0 or a negative errno.
 */
int cme_client_established(struct cme_ep *ep)
{
	u8 resp, init, fc, rnr;
	const struct cme_event *e;
	char what[48];
	bool iw;

	e = cme_ep_wait(ep, RDMA_CM_EVENT_ESTABLISHED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	if (e->status) {
		pr_err("FAIL: %s: ESTABLISHED status %d\n", ep->name,
		       e->status);
		return -EPROTO;
	}
	ep->peer_qpn = e->conn.qp_num;
	if (!e->has_pdata || e->pdata_len < CME_PDATA_LEN) {
		pr_err("FAIL: %s: ESTABLISHED with %u bytes of private data, expected at least %u\n",
		       ep->name, e->has_pdata ? e->pdata_len : 0,
		       CME_PDATA_LEN);
		return -EPROTO;
	}
	snprintf(what, sizeof(what), "%s: accept private data", ep->name);
	if (cme_check_pattern(what, e->pdata, CME_PDATA_LEN, CME_SEED_REP,
			      ep->index))
		return -EPROTO;
	/* The IB CM mirrors the server's values; iw_cm gives back ours. */
	iw = e->iwarp;
	resp = iw ? CME_INIT_DEPTH : CME_RESP_RES;
	init = iw ? CME_RESP_RES : CME_INIT_DEPTH;
	fc = !iw;
	rnr = iw ? 0 : CME_SRV_RNR_RETRY;
	if (e->conn.responder_resources != resp ||
	    e->conn.initiator_depth != init || e->conn.flow_control != fc ||
	    e->conn.rnr_retry_count != rnr || e->conn.srq) {
		pr_err("FAIL: %s: ESTABLISHED conn: responder_resources %u initiator_depth %u flow_control %u rnr_retry_count %u srq %u, expected %u %u %u %u 0\n",
		       ep->name, e->conn.responder_resources,
		       e->conn.initiator_depth, e->conn.flow_control,
		       e->conn.rnr_retry_count, e->conn.srq, resp, init, fc,
		       rnr);
		return -EPROTO;
	}
	return 0;
}

/* The first recorded event of a type, NULL if none. */
static const struct cme_event *cme_ep_find(struct cme_ep *ep,
					   enum rdma_cm_event_type type)
{
	const struct cme_event *e = NULL;
	unsigned int i;

	spin_lock(&ep->lock);
	for (i = 0; i < min_t(unsigned int, ep->nr_events, CME_MAX_EVENTS);
	     i++) {
		if (ep->events[i].type == type) {
			e = &ep->events[i];
			break;
		}
	}
	spin_unlock(&ep->lock);
	return e;
}

/**
 * cme_check_request() - check the CONNECT_REQUEST of a passive endpoint
 * @srv: the passive endpoint
 * @index: the number of the client's connection
 * @qp_num: the client's QP number, or 0 if not known here
 *
 * It must be the first event, on a new id, with the client's private
 * data, parameters (mirrored: the passive side's view) and QP number.
 * The QP number it names becomes @srv's peer_qpn.
 *
 * Return: 0 or a negative errno.
 */
int cme_check_request(struct cme_ep *srv, u32 index, u32 qp_num)
{
	u8 fc, retry, rnr;
	const struct cme_event *e;
	char what[48];
	bool iw;

	e = cme_ep_wait(srv, RDMA_CM_EVENT_CONNECT_REQUEST);
	if (IS_ERR(e))
		return PTR_ERR(e);

	if (!e->new_id) {
		pr_err("FAIL: %s: CONNECT_REQUEST on the listening id\n",
		       srv->name);
		return -EPROTO;
	}
	if (e->status) {
		pr_err("FAIL: %s: CONNECT_REQUEST status %d\n", srv->name,
		       e->status);
		return -EPROTO;
	}
	if (!e->has_pdata || e->pdata_len < CME_PDATA_LEN) {
		pr_err("FAIL: %s: CONNECT_REQUEST with %u bytes of private data, expected at least %u\n",
		       srv->name, e->has_pdata ? e->pdata_len : 0,
		       CME_PDATA_LEN);
		return -EPROTO;
	}
	snprintf(what, sizeof(what), "%s: request private data", srv->name);
	if (cme_check_pattern(what, e->pdata, CME_PDATA_LEN, CME_SEED_REQ,
			      index))
		return -EPROTO;
	srv->peer_qpn = e->conn.qp_num;
	/* The passive side sees the active side's resources mirrored. */
	iw = e->iwarp;
	fc = !iw;
	retry = iw ? 0 : CME_RETRY;
	rnr = iw ? 0 : CME_RNR_RETRY;
	if (iw)
		qp_num = 0;	/* iw_cm does not carry it */
	if (e->conn.responder_resources != CME_INIT_DEPTH ||
	    e->conn.initiator_depth != CME_RESP_RES ||
	    e->conn.flow_control != fc || e->conn.retry_count != retry ||
	    e->conn.rnr_retry_count != rnr || e->conn.srq ||
	    (qp_num && e->conn.qp_num != qp_num)) {
		pr_err("FAIL: %s: CONNECT_REQUEST conn: responder_resources %u initiator_depth %u flow_control %u retry_count %u rnr_retry_count %u srq %u qp_num %u, expected %u %u %u %u %u 0 %u\n",
		       srv->name, e->conn.responder_resources,
		       e->conn.initiator_depth, e->conn.flow_control,
		       e->conn.retry_count, e->conn.rnr_retry_count,
		       e->conn.srq, e->conn.qp_num, CME_INIT_DEPTH,
		       CME_RESP_RES, fc, retry, rnr, qp_num);
		return -EPROTO;
	}
	return 0;
}

/**
 * cme_server_request() - check the CONNECT_REQUEST of a passive endpoint
 * @srv: the passive endpoint
 * @cli: the active endpoint that connected, with its QP
 *
 * cme_check_request() with @cli's index and QP number.
 *
 * Return: 0 or a negative errno.
 */
int cme_server_request(struct cme_ep *srv, const struct cme_ep *cli)
{
	return cme_check_request(srv, cli->index, cli->qp_num);
}

/**
 * cme_server_established() - check that an accepted request got through
 * @srv: the passive endpoint, its CONNECT_REQUEST checked and accepted
 * @cli: the active endpoint, already ESTABLISHED
 *
 * The server gets ESTABLISHED; the client's ESTABLISHED named the
 * server's QP.
 *
 * Return: 0 or a negative errno.
 */
int cme_server_established(struct cme_ep *srv, struct cme_ep *cli)
{
	const struct cme_event *e;

	if (srv->handler_error || cme_ep_id_gone(srv) || !srv->qp_num) {
		pr_err("FAIL: %s: accepting failed (%d)\n", srv->name,
		       srv->handler_error);
		return -EPROTO;
	}
	e = cme_ep_wait(srv, RDMA_CM_EVENT_ESTABLISHED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	if (e->status) {
		pr_err("FAIL: %s: ESTABLISHED status %d\n", srv->name,
		       e->status);
		return -EPROTO;
	}
	/* The IB CM names the peer's QP; iw_cm does not. */
	e = cme_ep_find(cli, RDMA_CM_EVENT_ESTABLISHED);
	if (e && !e->iwarp && e->conn.qp_num != srv->qp_num) {
		pr_err("FAIL: %s: ESTABLISHED names QP %u, the server's is %u\n",
		       cli->name, e->conn.qp_num, srv->qp_num);
		return -EPROTO;
	}
	return 0;
}

/**
 * cme_server_accepted() - check the passive end of a new connection
 * @srv: the passive endpoint, accepted by the listener's handler
 * @cli: the active endpoint, already ESTABLISHED
 *
 * cme_server_request(), then cme_server_established().
 *
 * Return: 0 or a negative errno.
 */
int cme_server_accepted(struct cme_ep *srv, struct cme_ep *cli)
{
	return cme_server_request(srv, cli) ?:
	       cme_server_established(srv, cli);
}

/**
 * cme_start_connect() - a client up to rdma_connect(), and the server's end
 * @l: the listener
 * @dst: where the client connects
 * @index: the connection's number
 * @clip: set to the active endpoint, or NULL
 * @srvp: set to the passive endpoint, or NULL
 *
 * Ends once the passive endpoint's CONNECT_REQUEST has been checked.
 * The caller destroys both endpoints, whatever the result.
 *
 * Return: 0 or a negative errno.
 */
int cme_start_connect(struct cme_listener *l, const struct sockaddr *dst,
		      u32 index, struct cme_ep **clip, struct cme_ep **srvp)
{
	struct cme_ep *cli, *srv;
	int ret;

	*clip = NULL;
	*srvp = NULL;
	cli = cme_client_start(&init_net, dst, index);
	if (IS_ERR(cli))
		return PTR_ERR(cli);
	*clip = cli;
	ret = cme_client_route(cli);
	if (!ret)
		ret = cme_client_connect(cli);
	if (ret)
		return ret;
	srv = cme_listener_take(l);
	if (IS_ERR(srv))
		return PTR_ERR(srv);
	*srvp = srv;
	return cme_server_request(srv, cli);
}

/**
 * cme_exchange() - one SEND each way, data checked at both ends
 * @cli: the active endpoint, connected
 * @srv: the passive endpoint, connected
 *
 * Return: 0 or a negative errno.
 */
int cme_exchange(struct cme_ep *cli, struct cme_ep *srv)
{
	unsigned int cli_sends = cli->nr_send_done + 1;
	unsigned int cli_recvs = cli->nr_recv_done + 1;
	unsigned int srv_sends = srv->nr_send_done + 1;
	unsigned int srv_recvs = srv->nr_recv_done + 1;
	int ret;

	ret = cme_ep_post_send(cli, CME_SEED_CLI_MSG, cli->index);
	if (ret)
		return ret;
	ret = cme_ep_post_send(srv, CME_SEED_SRV_MSG, srv->index);
	if (ret)
		return ret;
	ret = cme_ep_wait_wc(cli, cli_sends, cli_recvs);
	if (ret)
		return ret;
	ret = cme_ep_wait_wc(srv, srv_sends, srv_recvs);
	if (ret)
		return ret;
	ret = cme_ep_check_recv(cli, CME_SEED_SRV_MSG, cli->index);
	if (ret)
		return ret;
	return cme_ep_check_recv(srv, CME_SEED_CLI_MSG, cli->index);
}

/**
 * cme_disconnect() - disconnect from one end, answer from the other
 * @first: the end that disconnects
 * @second: the end that gets DISCONNECTED first and answers with
 *	rdma_disconnect(), as ULPs do
 *
 * Both must get DISCONNECTED with status 0.
 *
 * Return: 0 or a negative errno.
 */
int cme_disconnect(struct cme_ep *first, struct cme_ep *second)
{
	const struct cme_event *e;
	int ret;

	ret = rdma_disconnect(first->id);
	if (ret) {
		pr_err("FAIL: %s: rdma_disconnect: %d\n", first->name, ret);
		return ret;
	}
	e = cme_ep_wait(second, RDMA_CM_EVENT_DISCONNECTED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	if (e->status) {
		pr_err("FAIL: %s: DISCONNECTED status %d\n", second->name,
		       e->status);
		return -EPROTO;
	}
	ret = rdma_disconnect(second->id);
	if (ret) {
		pr_err("FAIL: %s: rdma_disconnect after DISCONNECTED: %d\n",
		       second->name, ret);
		return ret;
	}
	e = cme_ep_wait(first, RDMA_CM_EVENT_DISCONNECTED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	if (e->status) {
		pr_err("FAIL: %s: DISCONNECTED status %d\n", first->name,
		       e->status);
		return -EPROTO;
	}
	return 0;
}
