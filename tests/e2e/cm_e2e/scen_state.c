// SPDX-License-Identifier: GPL-2.0
/*
 * cm_e2e scenarios about the id state machine: destroy_states destroys
 * ids in every state; bad_input makes every call where it is illegal;
 * accept_removed accepts a request whose device went away.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "cm_e2e.h"

/* Index of the connections made here, for messages and patterns. */
#define CME_BAD_INDEX	7
#define CME_REMOVED_INDEX	19

/* How far a client goes before it is destroyed. */
enum cme_stage {
	CME_ST_IDLE,
	CME_ST_BOUND,
	CME_ST_ADDR_QUERY,
	CME_ST_ADDR_RESOLVED,
	CME_ST_ROUTE_QUERY,
	CME_ST_ROUTE_RESOLVED,
};

static const char *const cme_stage_names[] = {
	[CME_ST_IDLE] = "IDLE",
	[CME_ST_BOUND] = "ADDR_BOUND",
	[CME_ST_ADDR_QUERY] = "right after rdma_resolve_addr",
	[CME_ST_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[CME_ST_ROUTE_QUERY] = "right after rdma_resolve_route",
	[CME_ST_ROUTE_RESOLVED] = "ROUTE_RESOLVED (with a QP)",
};

static int cme_destroy_at(const struct cme_params *p, enum cme_stage st)
{
	struct sockaddr_storage src;
	const struct cme_event *e;
	struct cme_ep *ep;
	int ret = 0;

	pr_info("destroy an id in state %s\n", cme_stage_names[st]);
	if (st <= CME_ST_BOUND) {
		ep = cme_ep_alloc("st%u", st);
		if (!ep)
			return -ENOMEM;
		ret = cme_ep_create_id(ep, &init_net);
		if (!ret && st == CME_ST_BOUND) {
			cme_with_port(&src, &p->addr, 0);
			ret = cme_expect("rdma_bind_addr",
					 rdma_bind_addr(ep->id, cme_sa(&src)),
					 0);
		}
		goto out;
	}

	ep = cme_client_start(&init_net, cme_sa(&p->addr), st);
	if (IS_ERR(ep))
		return PTR_ERR(ep);
	if (st == CME_ST_ADDR_RESOLVED) {
		e = cme_ep_wait(ep, RDMA_CM_EVENT_ADDR_RESOLVED);
		ret = PTR_ERR_OR_ZERO(e);
	} else if (st >= CME_ST_ROUTE_QUERY) {
		ret = cme_client_route(ep);
	}
	if (!ret && st == CME_ST_ROUTE_RESOLVED) {
		e = cme_ep_wait(ep, RDMA_CM_EVENT_ROUTE_RESOLVED);
		ret = PTR_ERR_OR_ZERO(e);
		if (!ret)
			ret = cme_ep_setup_qp(ep);
	}
out:
	cme_ep_destroy(ep);
	return ret;
}

/* Both ends of a connection up to ESTABLISHED. */
static int cme_establish(struct cme_listener *l, const struct sockaddr *dst,
			 u32 index, struct cme_ep **cli, struct cme_ep **srv)
{
	int ret;

	ret = cme_start_connect(l, dst, index, cli, srv);
	if (!ret)
		ret = cme_client_established(*cli);
	if (!ret)
		ret = cme_server_established(*srv, *cli);
	return ret;
}

/*
 * The other side was destroyed while connected: @peer must get
 * DISCONNECTED, perhaps after events in @skip (a mask of BIT(type)).
 */
static int cme_peer_disconnected(struct cme_ep *peer, unsigned long skip)
{
	const struct cme_event *e;
	int ret;

	e = cme_ep_wait_past(peer, RDMA_CM_EVENT_DISCONNECTED, skip);
	if (IS_ERR(e))
		return PTR_ERR(e);
	ret = rdma_disconnect(peer->id);
	pr_info("%s: DISCONNECTED status %d; rdma_disconnect then returned %d\n",
		peer->name, e->status, ret);
	return 0;
}

static void cme_dump_both(struct cme_ep *cli, struct cme_ep *srv)
{
	if (cli)
		cme_ep_dump(cli);
	if (srv)
		cme_ep_dump(srv);
}

/* Connect to a listener that holds the request, then give up. */
static int cme_destroy_connecting(struct cme_listener *l,
				  const struct cme_params *p)
{
	struct cme_ep *cli, *srv;
	const struct cme_event *e;
	int ret;

	pr_info("destroy an id right after rdma_connect, REQ outstanding\n");
	cme_listener_set_policy(l, CME_HOLD);
	ret = cme_start_connect(l, cme_sa(&p->addr), 10, &cli, &srv);
	if (ret)
		goto out;
	cme_ep_destroy(cli);
	cli = NULL;
	/* The passive side learns that the request went away. */
	e = cme_ep_wait(srv, RDMA_CM_EVENT_REJECTED);
	if (IS_ERR(e)) {
		ret = PTR_ERR(e);
		goto out;
	}
	pr_info("%s: REJECTED status %d (%s) after the client went away\n",
		srv->name, e->status, e->rej_msg ?: "(null)");
out:
	cme_dump_both(cli, srv);
	cme_ep_destroy(cli);
	cme_ep_destroy(srv);
	return ret;
}

/* Destroy one end of an established connection without disconnecting. */
static int cme_destroy_established(struct cme_listener *l,
				   const struct cme_params *p, bool passive)
{
	struct cme_ep *cli, *srv;
	int ret;

	pr_info("destroy the %s id of an established connection without rdma_disconnect\n",
		passive ? "passive" : "active");
	cme_listener_set_policy(l, CME_ACCEPT);
	ret = cme_establish(l, cme_sa(&p->addr), passive ? 12 : 11, &cli,
			    &srv);
	if (ret)
		goto out;
	if (passive) {
		cme_ep_destroy(srv);
		srv = NULL;
		ret = cme_peer_disconnected(cli, 0);
	} else {
		cme_ep_destroy(cli);
		cli = NULL;
		ret = cme_peer_disconnected(srv, 0);
	}
out:
	cme_dump_both(cli, srv);
	cme_ep_destroy(cli);
	cme_ep_destroy(srv);
	return ret;
}

/* The client's handler returns 1 on ESTABLISHED: the CM destroys it. */
static int cme_destroy_by_handler(struct cme_listener *l,
				  const struct cme_params *p)
{
	struct cme_ep *cli = NULL, *srv = NULL;
	int ret;

	pr_info("the active handler returns 1 on ESTABLISHED\n");
	cme_listener_set_policy(l, CME_ACCEPT);
	cli = cme_client_start(&init_net, cme_sa(&p->addr), 13);
	if (IS_ERR(cli))
		return PTR_ERR(cli);
	cli->destroy_on = BIT(RDMA_CM_EVENT_ESTABLISHED);
	ret = cme_client_route(cli);
	if (!ret)
		ret = cme_client_connect(cli);
	if (ret)
		goto out;
	srv = cme_listener_take(l);
	if (IS_ERR(srv)) {
		ret = PTR_ERR(srv);
		srv = NULL;
		goto out;
	}
	/* No use of cli->id from here: the CM may have destroyed it. */
	ret = cme_server_request(srv, cli);
	if (!ret)
		ret = cme_client_established(cli);
	if (ret)
		goto out;
	if (!cme_ep_id_gone(cli)) {
		pr_err("FAIL: %s: handler did not destroy the id\n", cli->name);
		ret = -EPROTO;
		goto out;
	}
	/*
	 * The destroyed client's DREQ may overtake its RTU (both are MADs,
	 * and the RTU is not retried): the IB CM then ends the server's
	 * connection before it is established, so ESTABLISHED may or may
	 * not come first. The in-box CM behaves the same.
	 */
	ret = cme_peer_disconnected(srv, BIT(RDMA_CM_EVENT_ESTABLISHED));
out:
	cme_dump_both(cli, srv);
	cme_ep_destroy(cli);
	cme_ep_destroy(srv);
	return ret;
}

static int cme_destroy_listening(const struct cme_params *p)
{
	struct sockaddr_storage addr;
	struct cme_listener *l;

	pr_info("destroy a listening id\n");
	cme_with_port(&addr, &p->laddr, cme_port_of(&p->laddr) + 1);
	l = cme_listener_create(&init_net, cme_sa(&addr), CME_ACCEPT,
				"lst");
	if (IS_ERR(l))
		return PTR_ERR(l);
	cme_listener_destroy(l);
	return 0;
}

/**
 * cme_scen_destroy_states() - scenario "destroy_states"
 * @p: parameters: laddr to listen on, addr to connect to
 *
 * rdma_destroy_id() in every state: IDLE, ADDR_BOUND, address query in
 * flight, ADDR_RESOLVED, route query in flight, ROUTE_RESOLVED, REQ
 * outstanding (the passive side must get REJECTED), LISTEN, established
 * (the peer must get DISCONNECTED; both the active and the passive end),
 * and a handler that returns 1 on ESTABLISHED.
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_destroy_states(const struct cme_params *p)
{
	struct cme_listener *l;
	enum cme_stage st;
	int ret = 0;

	for (st = CME_ST_IDLE; st <= CME_ST_ROUTE_RESOLVED && !ret; st++)
		ret = cme_destroy_at(p, st);
	if (ret)
		return ret;
	ret = cme_destroy_listening(p);
	if (ret)
		return ret;

	l = cme_listener_create(&init_net, cme_sa(&p->laddr), CME_HOLD,
				"srv");
	if (IS_ERR(l))
		return PTR_ERR(l);
	ret = cme_destroy_connecting(l, p) ?:
	      cme_destroy_established(l, p, false) ?:
	      cme_destroy_established(l, p, true) ?:
	      cme_destroy_by_handler(l, p) ?:
	      cme_listener_expect_none(l, 0);
	cme_listener_destroy(l);
	return ret;
}

/* rdma_accept() as the contract wants it: under the handler lock. */
static int cme_accept_unlocked(struct rdma_cm_id *id,
			       struct rdma_conn_param *param)
{
	int ret;

	rdma_lock_handler(id);
	ret = rdma_accept(id, param);
	rdma_unlock_handler(id);
	return ret;
}

/* A listener bound to a device whose CM is the IB CM (RoCE, IB). */
static bool cme_listen_has_ib_cm(struct rdma_cm_id *id)
{
	return id->device && rdma_cap_ib_cm(id->device, id->port_num);
}

/* Calls that are illegal on a listening id. */
static int cme_bad_listen(struct cme_listener *l, const struct cme_params *p)
{
	struct rdma_conn_param param;
	struct sockaddr_storage src;
	int ret;

	pr_info("illegal calls on a listening id\n");
	cme_conn_param(&param, NULL, 0);
	cme_with_port(&src, &p->laddr, 0);
	ret = cme_expect("rdma_listen twice", rdma_listen(l->id, 1),
			 -EINVAL) ?:
	      cme_expect("rdma_bind_addr on LISTEN",
			 rdma_bind_addr(l->id, cme_sa(&src)), -EINVAL) ?:
	      cme_expect("rdma_resolve_addr on LISTEN",
			 rdma_resolve_addr(l->id, NULL, cme_sa(&p->addr),
					   CME_RESOLVE_MS), -EINVAL) ?:
	      cme_expect("rdma_resolve_route on LISTEN",
			 rdma_resolve_route(l->id, CME_RESOLVE_MS), -EINVAL) ?:
	      cme_expect("rdma_connect on LISTEN",
			 rdma_connect(l->id, &param), -EINVAL) ?:
	      cme_expect("rdma_accept on LISTEN",
			 cme_accept_unlocked(l->id, &param), -EINVAL) ?:
	      cme_expect("rdma_reject on LISTEN",
			 rdma_reject(l->id, NULL, 0,
				     IB_CM_REJ_CONSUMER_DEFINED), -EINVAL) ?:
	      cme_expect("rdma_set_reuseaddr(1) on LISTEN",
			 rdma_set_reuseaddr(l->id, 1), -EINVAL) ?:
	      cme_expect("rdma_set_afonly on LISTEN",
			 rdma_set_afonly(l->id, 1), -EINVAL);
	if (ret)
		return ret;
	/*
	 * As in-box: a listener bound to a device with the IB CM tries a
	 * DREQ on its listen, ignores the refusal and returns 0; iw_cm
	 * refuses a listen's disconnect, and a wildcard listener has none.
	 */
	return cme_expect("rdma_disconnect on LISTEN", rdma_disconnect(l->id),
			  cme_listen_has_ib_cm(l->id) ? 0 : -EINVAL);
}

/* Calls that are illegal on an id in IDLE, then ADDR_BOUND. */
static int cme_bad_idle_bound(struct cme_ep *ep, const struct cme_params *p)
{
	struct sockaddr_storage src, other = {};
	struct rdma_conn_param param;
	int ret;

	pr_info("illegal calls on an IDLE id\n");
	cme_conn_param(&param, NULL, 0);
	ret = cme_expect("rdma_resolve_route on IDLE",
			 rdma_resolve_route(ep->id, CME_RESOLVE_MS), -EINVAL) ?:
	      cme_expect("rdma_connect on IDLE",
			 rdma_connect(ep->id, &param), -EINVAL) ?:
	      cme_expect("rdma_accept on IDLE",
			 cme_accept_unlocked(ep->id, &param), -EINVAL) ?:
	      cme_expect("rdma_reject on IDLE",
			 rdma_reject(ep->id, NULL, 0,
				     IB_CM_REJ_CONSUMER_DEFINED), -EINVAL) ?:
	      cme_expect("rdma_disconnect on IDLE",
			 rdma_disconnect(ep->id), -EINVAL);
	if (ret)
		return ret;

	/* No such family: the in-box CM says -EAFNOSUPPORT. */
	other.ss_family = AF_UNIX;
	ret = rdma_bind_addr(ep->id, cme_sa(&other));
	if (ret != -EAFNOSUPPORT && ret != -EINVAL) {
		pr_err("FAIL: rdma_bind_addr of an AF_UNIX address returned %d, expected -EAFNOSUPPORT or -EINVAL\n",
		       ret);
		return -EPROTO;
	}
	pr_info("ok: rdma_bind_addr of an AF_UNIX address returned %d\n", ret);

	cme_with_port(&src, &p->addr, 0);
	ret = cme_expect("rdma_bind_addr after all that",
			 rdma_bind_addr(ep->id, cme_sa(&src)), 0);
	if (ret)
		return ret;

	pr_info("illegal calls on an ADDR_BOUND id\n");
	/* A destination of the other family than the bound source. */
	memset(&other, 0, sizeof(other));
	if (p->addr.ss_family == AF_INET6) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&other;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sin->sin_port = htons(cme_port_of(&p->addr));
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&other;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_loopback;
		sin6->sin6_port = htons(cme_port_of(&p->addr));
	}
	ret = cme_expect("rdma_bind_addr twice",
			 rdma_bind_addr(ep->id, cme_sa(&src)), -EINVAL) ?:
	      cme_expect("rdma_resolve_route on ADDR_BOUND",
			 rdma_resolve_route(ep->id, CME_RESOLVE_MS), -EINVAL) ?:
	      cme_expect("rdma_connect on ADDR_BOUND",
			 rdma_connect(ep->id, &param), -EINVAL) ?:
	      cme_expect("rdma_accept on ADDR_BOUND",
			 cme_accept_unlocked(ep->id, &param), -EINVAL) ?:
	      cme_expect("rdma_resolve_addr to the other address family",
			 rdma_resolve_addr(ep->id, NULL, cme_sa(&other),
					   CME_RESOLVE_MS), -EINVAL);
	if (ret)
		return ret;
	return cme_expect("rdma_resolve_addr after all that",
			  rdma_resolve_addr(ep->id, NULL, cme_sa(&p->addr),
					    CME_RESOLVE_MS), 0);
}

/* A PD of another device than the id's must not make a QP. */
static int cme_bad_pd(struct cme_ep *ep, const struct cme_params *p)
{
	struct ib_qp_init_attr attr = {};
	struct sockaddr_storage src;
	struct cme_ep *other;
	struct ib_cq *cq;
	int ret;

	if (!p->has_addr2) {
		pr_info("no addr2: skip rdma_create_qp with another device's PD\n");
		return 0;
	}
	other = cme_ep_alloc("other");
	if (!other)
		return -ENOMEM;
	cme_with_port(&src, &p->addr2, 0);
	ret = cme_ep_create_id(other, &init_net) ?:
	      cme_expect("rdma_bind_addr to addr2",
			 rdma_bind_addr(other->id, cme_sa(&src)), 0);
	if (ret)
		goto out;
	if (other->id->device == ep->id->device) {
		pr_err("FAIL: addr2 %pISc is on the same device as addr\n",
		       &p->addr2);
		ret = -EINVAL;
		goto out;
	}
	other->pd = ib_alloc_pd(other->id->device, 0);
	if (IS_ERR(other->pd)) {
		ret = PTR_ERR(other->pd);
		other->pd = NULL;
		goto out;
	}
	cq = ib_alloc_cq(other->id->device, NULL, 4, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto out;
	}
	other->cq = cq;
	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.cap.max_send_wr = 1;
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_ALL_WR;
	attr.qp_type = IB_QPT_RC;
	ret = cme_expect("rdma_create_qp with a PD of another device",
			 rdma_create_qp(ep->id, other->pd, &attr), -EINVAL);
	if (!ret && ep->id->qp) {
		pr_err("FAIL: the id has a QP after all\n");
		ret = -EPROTO;
	}
out:
	cme_ep_destroy(other);
	return ret;
}

/* Calls that are illegal on ADDR_RESOLVED, then ROUTE_RESOLVED. */
static int cme_bad_resolved(struct cme_ep *ep, const struct cme_params *p)
{
	struct sockaddr_storage src;
	struct rdma_conn_param param;
	const struct cme_event *e;
	int ret;

	e = cme_ep_wait(ep, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	pr_info("illegal calls on an ADDR_RESOLVED id\n");
	cme_conn_param(&param, NULL, 0);
	cme_with_port(&src, &p->addr, 0);
	ret = cme_expect("rdma_connect on ADDR_RESOLVED",
			 rdma_connect(ep->id, &param), -EINVAL) ?:
	      cme_expect("rdma_listen on ADDR_RESOLVED",
			 rdma_listen(ep->id, 1), -EINVAL) ?:
	      cme_expect("rdma_bind_addr on ADDR_RESOLVED",
			 rdma_bind_addr(ep->id, cme_sa(&src)), -EINVAL) ?:
	      cme_expect("rdma_resolve_addr on ADDR_RESOLVED",
			 rdma_resolve_addr(ep->id, NULL, cme_sa(&p->addr),
					   CME_RESOLVE_MS), -EINVAL) ?:
	      cme_expect("rdma_disconnect on ADDR_RESOLVED",
			 rdma_disconnect(ep->id), -EINVAL) ?:
	      cme_expect("rdma_resolve_route with timeout 0",
			 rdma_resolve_route(ep->id, 0), -EINVAL) ?:
	      cme_expect("rdma_resolve_route after all that",
			 rdma_resolve_route(ep->id, CME_RESOLVE_MS), 0);
	if (ret)
		return ret;
	e = cme_ep_wait(ep, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (IS_ERR(e))
		return PTR_ERR(e);

	pr_info("illegal calls on a ROUTE_RESOLVED id\n");
	ret = cme_expect("rdma_resolve_route on ROUTE_RESOLVED",
			 rdma_resolve_route(ep->id, CME_RESOLVE_MS), -EINVAL) ?:
	      cme_expect("rdma_resolve_addr on ROUTE_RESOLVED",
			 rdma_resolve_addr(ep->id, NULL, cme_sa(&p->addr),
					   CME_RESOLVE_MS), -EINVAL) ?:
	      cme_expect("rdma_listen on ROUTE_RESOLVED",
			 rdma_listen(ep->id, 1), -EINVAL) ?:
	      cme_bad_pd(ep, p) ?:
	      cme_ep_setup_qp(ep) ?:
	      cme_expect("rdma_accept on an active id",
			 cme_accept_unlocked(ep->id, &param), -EINVAL);
	return ret;
}

/* Private data one byte too long, then just long enough. */
static int cme_bad_connect(struct cme_ep *ep)
{
	u8 pdata[CME_REQ_PDATA_MAX + 1];
	struct rdma_conn_param param;
	int ret;

	cme_pattern(pdata, sizeof(pdata), CME_SEED_REQ, ep->index);
	cme_conn_param(&param, pdata, CME_REQ_PDATA_MAX + 1);
	ret = cme_expect("rdma_connect with 57 bytes of private data",
			 rdma_connect(ep->id, &param), -EINVAL);
	if (ret)
		return ret;
	cme_conn_param(&param, pdata, CME_REQ_PDATA_MAX);
	ret = cme_expect("rdma_connect with 56 bytes of private data",
			 rdma_connect(ep->id, &param), 0);
	if (ret)
		return ret;
	pr_info("illegal calls on a connecting id\n");
	return cme_expect("rdma_connect twice", rdma_connect(ep->id, &param),
			  -EINVAL) ?:
	       cme_expect("rdma_resolve_route on a connecting id",
			  rdma_resolve_route(ep->id, CME_RESOLVE_MS), -EINVAL);
}

/* The passive side: illegal calls, then an accept that fails. */
static int cme_bad_passive(struct cme_ep *cli, struct cme_ep *srv)
{
	u8 pdata[CME_REP_PDATA_MAX + 1];
	struct rdma_conn_param param;
	const struct cme_event *e, *req;
	int ret;

	ret = cme_server_request(srv, cli);
	if (ret)
		return ret;
	req = &srv->events[0];
	if (req->pdata_len < CME_REQ_PDATA_MAX) {
		pr_err("FAIL: %s: %u bytes of private data, expected %u\n",
		       srv->name, req->pdata_len, CME_REQ_PDATA_MAX);
		return -EPROTO;
	}
	ret = cme_check_pattern("56 bytes of request private data",
				req->pdata, CME_REQ_PDATA_MAX, CME_SEED_REQ,
				cli->index);
	if (ret)
		return ret;
	pr_info("ok: CONNECT_REQUEST carries all 56 bytes (of %u)\n",
		req->pdata_len);

	pr_info("illegal calls on a passive id\n");
	cme_conn_param(&param, NULL, 0);
	cme_pattern(pdata, sizeof(pdata), CME_SEED_REJ, srv->index);
	ret = cme_expect("rdma_connect on a passive id",
			 rdma_connect(srv->id, &param), -EINVAL) ?:
	      cme_expect("rdma_listen on a passive id",
			 rdma_listen(srv->id, 1), -EINVAL) ?:
	      cme_expect("rdma_resolve_route on a passive id",
			 rdma_resolve_route(srv->id, CME_RESOLVE_MS),
			 -EINVAL) ?:
	      cme_expect("rdma_reject with 149 bytes of private data",
			 rdma_reject(srv->id, pdata, CME_REJ_PDATA_MAX + 1,
				     IB_CM_REJ_CONSUMER_DEFINED), -EINVAL) ?:
	      cme_ep_setup_qp(srv);
	if (ret)
		return ret;
	rdma_lock_handler(srv->id);
	ret = cme_accept_locked(srv, req, CME_REP_PDATA_MAX + 1);
	rdma_unlock_handler(srv->id);
	ret = cme_expect("rdma_accept with 197 bytes of private data", ret,
			 -EINVAL);
	if (ret)
		return ret;

	/*
	 * As in-box, an accept that fails once the id is in CONNECT rejects
	 * the request: the client hears REJECTED, a consumer's REJ.
	 */
	e = cme_ep_wait(cli, RDMA_CM_EVENT_REJECTED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	if (e->status != IB_CM_REJ_CONSUMER_DEFINED) {
		pr_err("FAIL: %s: REJECTED status %d after the failed rdma_accept, expected %d\n",
		       cli->name, e->status, IB_CM_REJ_CONSUMER_DEFINED);
		return -EPROTO;
	}
	pr_info("ok: the failed rdma_accept rejected the client\n");
	return 0;
}

/**
 * cme_scen_bad_input() - scenario "bad_input"
 * @p: parameters: laddr, addr, addr2 (optional: another device)
 *
 * Every call in a state where it is illegal returns -EINVAL, and the id
 * goes on as if it had not been made: each series ends with the legal
 * call.  Private data longer than the IB CM carries is -EINVAL; on the
 * passive side that failed accept rejects the client, as in-box.
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_bad_input(const struct cme_params *p)
{
	struct cme_ep *cli = NULL, *srv = NULL;
	struct cme_listener *l;
	int ret;

	l = cme_listener_create(&init_net, cme_sa(&p->laddr), CME_HOLD,
				"srv");
	if (IS_ERR(l))
		return PTR_ERR(l);
	ret = cme_bad_listen(l, p);
	if (ret)
		goto out;

	cli = cme_ep_alloc("cli%u", CME_BAD_INDEX);
	if (!cli) {
		ret = -ENOMEM;
		goto out;
	}
	cli->index = CME_BAD_INDEX;
	ret = cme_ep_create_id(cli, &init_net) ?:
	      cme_bad_idle_bound(cli, p) ?:
	      cme_bad_resolved(cli, p) ?:
	      cme_bad_connect(cli);
	if (ret)
		goto out;
	srv = cme_listener_take(l);
	if (IS_ERR(srv)) {
		ret = PTR_ERR(srv);
		srv = NULL;
		goto out;
	}
	ret = cme_bad_passive(cli, srv) ?:
	      cme_listener_expect_none(l, 0);
out:
	cme_dump_both(cli, srv);
	cme_ep_destroy(cli);
	cme_ep_destroy(srv);
	cme_listener_destroy(l);
	return ret;
}

/**
 * cme_scen_accept_removed() - scenario "accept_removed"
 * @p: parameters: addr, on the device the script removes; laddr, a
 *	wildcard, so that the listening id is not told of the removal
 *
 * A request held unanswered when its device goes: the passive id gets
 * DEVICE_REMOVAL, and rdma_accept() on it then returns -EINVAL, as
 * in-box, which accepts only in CONNECT; the IB CM's id of the request
 * is still there and would send a REP.  The state parameter says
 * "holding" once the request is held; the script then removes the
 * device, whose unregistration waits for these ids to go.
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_accept_removed(const struct cme_params *p)
{
	struct cme_ep *cli = NULL, *srv = NULL;
	struct rdma_conn_param param;
	const struct cme_event *e;
	struct cme_listener *l;
	int ret;

	l = cme_listener_create(&init_net, cme_sa(&p->laddr), CME_HOLD,
				"srv");
	if (IS_ERR(l))
		return PTR_ERR(l);
	ret = cme_start_connect(l, cme_sa(&p->addr), CME_REMOVED_INDEX, &cli,
				&srv);
	if (ret)
		goto out;
	cme_set_state("holding");
	e = cme_ep_wait(srv, RDMA_CM_EVENT_DEVICE_REMOVAL);
	if (IS_ERR(e)) {
		ret = PTR_ERR(e);
		goto out;
	}
	/* No QP: nothing to move, the REP would be the first thing sent. */
	cme_conn_param(&param, NULL, 0);
	param.qp_num = 1;
	ret = cme_expect("rdma_accept after DEVICE_REMOVAL",
			 cme_accept_unlocked(srv->id, &param), -EINVAL);
out:
	cme_dump_both(cli, srv);
	cme_ep_destroy(cli);
	cme_ep_destroy(srv);
	cme_listener_destroy(l);
	return ret;
}
