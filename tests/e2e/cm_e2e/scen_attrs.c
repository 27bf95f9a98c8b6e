// SPDX-License-Identifier: GPL-2.0
/*
 * cm_e2e: what the calls that tune a connection do to it, read back from
 * where it counts.
 *
 * "qp_attrs" (RoCE) sets a type of service, an ACK timeout and a minimum
 * RNR timer on both ends and ECE values both ways, then reads the QPs
 * back with ib_query_qp() (timeout, min_rnr_timer, traffic class of the
 * address vector), the ECE values from CONNECT_REQUEST and ESTABLISHED,
 * and each end's GIDs with rdma_read_gids().  "set_ib_path" (RoCE) gives
 * the client a path record of its own instead of resolving a route; the
 * QP must carry its MTU and traffic class.  "notify" (RoCE) has a client
 * without a QP that never confirms the REP, so no RTU comes: only
 * rdma_notify(IB_EVENT_COMM_EST) on the server can establish it.
 * "connect_locked" has the client's handler drive the connection
 * itself, rdma_resolve_route() and rdma_connect_locked() from its
 * ADDR_RESOLVED and ROUTE_RESOLVED.  "iw_cm_id" checks rdma_iw_cm_id():
 * the iw_cm id of both ends of a connection and of the listener (bound
 * to the device) on iWARP, with their addresses, and none on RoCE.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/minmax.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "cm_e2e.h"

/* What qp_attrs sets: distinct values on each end, none a default. */
#define CME_TOS			0x68
#define CME_CLI_ACK_TIMEOUT	20
#define CME_SRV_ACK_TIMEOUT	19
#define CME_CLI_MIN_RNR		12
#define CME_SRV_MIN_RNR		14
#define CME_REQ_VENDOR_ID	0x5a5a5a
#define CME_REQ_ATTR_MOD	0x12345678
#define CME_REP_VENDOR_ID	0x3c3c3c
#define CME_REP_ATTR_MOD	0x9abcdef0

/* What set_ib_path's record says, where the route would say otherwise. */
#define CME_PATH_TCLASS		0x28
#define CME_PATH_MTU		IB_MTU_512

/* A QP number for the client without a QP in "notify". */
#define CME_NOTIFY_QPN		0x1234

/* How long a handshake step may take before its absence is a failure. */
#define CME_STEP_MS		5000

/* The id's device is iWARP's (it has a device). */
static bool cme_is_iwarp(struct rdma_cm_id *id)
{
	return id->device && rdma_protocol_iwarp(id->device, id->port_num);
}

/*
 * The server takes the request (held by the listener), makes its QP and
 * accepts with rdma_accept_ece() under the handler lock, as ULPs accept
 * after their handler returned.
 */
static int cme_accept_ece(struct cme_ep *srv, const struct cme_event *req,
			  struct rdma_ucm_ece *ece)
{
	u8 pdata[CME_PDATA_LEN];
	struct rdma_conn_param param = {};
	int ret;

	cme_pattern(pdata, sizeof(pdata), CME_SEED_REP, srv->index);
	param.private_data = pdata;
	param.private_data_len = sizeof(pdata);
	param.responder_resources = req->conn.responder_resources;
	param.initiator_depth = req->conn.initiator_depth;
	param.flow_control = 1;
	param.rnr_retry_count = CME_SRV_RNR_RETRY;
	rdma_lock_handler(srv->id);
	ret = rdma_accept_ece(srv->id, &param, ece);
	rdma_unlock_handler(srv->id);
	if (ret)
		pr_err("FAIL: %s: rdma_accept_ece: %d\n", srv->name, ret);
	return ret;
}

/* The client's route after ADDR_RESOLVED, with tos, ACK and RNR timers. */
static int cme_attrs_route(struct cme_ep *cli)
{
	const struct cme_event *e;
	int ret;

	e = cme_ep_wait(cli, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	if (e->status)
		return cme_expect("ADDR_RESOLVED status", e->status, 0);
	/* Before the route: the ACK timeout sets its packet life time. */
	rdma_set_service_type(cli->id, CME_TOS);
	ret = cme_expect("client rdma_set_ack_timeout",
			 rdma_set_ack_timeout(cli->id, CME_CLI_ACK_TIMEOUT),
			 0) ?:
	      cme_expect("client rdma_set_min_rnr_timer",
			 rdma_set_min_rnr_timer(cli->id, CME_CLI_MIN_RNR), 0);
	if (ret)
		return ret;
	ret = rdma_resolve_route(cli->id, CME_RESOLVE_MS);
	if (ret)
		pr_err("FAIL: %s: rdma_resolve_route: %d\n", cli->name, ret);
	return ret;
}

/* The client's QP and rdma_connect_ece() after ROUTE_RESOLVED. */
static int cme_attrs_connect(struct cme_ep *cli)
{
	struct rdma_ucm_ece ece = {
		.vendor_id = CME_REQ_VENDOR_ID,
		.attr_mod = CME_REQ_ATTR_MOD,
	};
	struct rdma_conn_param param;
	const struct cme_event *e;
	u8 pdata[CME_PDATA_LEN];
	int ret;

	e = cme_ep_wait(cli, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	if (e->status)
		return cme_expect("ROUTE_RESOLVED status", e->status, 0);
	ret = cme_ep_setup_qp(cli);
	if (ret)
		return ret;
	cme_pattern(pdata, sizeof(pdata), CME_SEED_REQ, cli->index);
	cme_conn_param(&param, pdata, sizeof(pdata));
	ret = rdma_connect_ece(cli->id, &param, &ece);
	if (ret)
		pr_err("FAIL: %s: rdma_connect_ece: %d\n", cli->name, ret);
	return ret;
}

/* An event's ECE values are the ones sent. */
static int cme_check_ece(const char *what, const struct cme_event *e,
			 u32 vendor_id, u32 attr_mod)
{
	if (e->ece.vendor_id == vendor_id && e->ece.attr_mod == attr_mod)
		return 0;
	pr_err("FAIL: %s: ECE vendor_id %#x attr_mod %#x, sent %#x %#x\n",
	       what, e->ece.vendor_id, e->ece.attr_mod, vendor_id, attr_mod);
	return -EPROTO;
}

/* The QP's attributes as the device has them. */
static int cme_query_qp(struct cme_ep *ep, struct ib_qp_attr *attr)
{
	struct ib_qp_init_attr init;
	int ret;

	ret = ib_query_qp(ep->id->qp, attr, IB_QP_STATE | IB_QP_AV |
			  IB_QP_PATH_MTU | IB_QP_TIMEOUT |
			  IB_QP_MIN_RNR_TIMER, &init);
	if (ret)
		pr_err("FAIL: %s: ib_query_qp: %d\n", ep->name, ret);
	return ret;
}

/* The QP of @ep, connected, has the timers and traffic class asked for. */
static int cme_check_qp(struct cme_ep *ep, u8 timeout, u8 min_rnr, u8 tclass)
{
	struct ib_qp_attr attr = {};
	const struct ib_global_route *grh;
	int ret;

	ret = cme_query_qp(ep, &attr);
	if (ret)
		return ret;
	grh = rdma_ah_read_grh(&attr.ah_attr);
	pr_info("%s: QP %u: state %d timeout %u min_rnr_timer %u traffic_class %#x path_mtu %d\n",
		ep->name, ep->qp_num, attr.qp_state, attr.timeout,
		attr.min_rnr_timer, grh->traffic_class, attr.path_mtu);
	if (attr.qp_state != IB_QPS_RTS || attr.timeout != timeout ||
	    attr.min_rnr_timer != min_rnr || grh->traffic_class != tclass) {
		pr_err("FAIL: %s: QP state %d timeout %u min_rnr_timer %u traffic_class %#x, expected %d %u %u %#x\n",
		       ep->name, attr.qp_state, attr.timeout,
		       attr.min_rnr_timer, grh->traffic_class, IB_QPS_RTS,
		       timeout, min_rnr, tclass);
		return -EPROTO;
	}
	return 0;
}

/* The GID RoCE gives an address: IPv4-mapped, or the IPv6 address. */
static void cme_gid_of(const struct sockaddr *sa, union ib_gid *gid)
{
	rdma_ip2gid((struct sockaddr *)sa, gid);
}

/*
 * rdma_read_gids(): each end's source GID is its own address's, its
 * destination GID its peer's.
 */
static int cme_check_gids(struct cme_ep *ep)
{
	union ib_gid sgid, dgid, want_s, want_d;

	rdma_read_gids(ep->id, &sgid, &dgid);
	cme_gid_of(cme_sa(&ep->id->route.addr.src_addr), &want_s);
	cme_gid_of(cme_sa(&ep->id->route.addr.dst_addr), &want_d);
	if (memcmp(&sgid, &want_s, sizeof(sgid)) ||
	    memcmp(&dgid, &want_d, sizeof(dgid))) {
		pr_err("FAIL: %s: rdma_read_gids: %pI6 -> %pI6, expected %pI6 -> %pI6\n",
		       ep->name, sgid.raw, dgid.raw, want_s.raw, want_d.raw);
		return -EPROTO;
	}
	pr_info("%s: rdma_read_gids: %pI6 -> %pI6\n", ep->name, sgid.raw,
		dgid.raw);
	return 0;
}

/* qp_attrs, with the listener's held request in @srv. */
static int cme_attrs_server(struct cme_ep *srv, struct cme_ep *cli)
{
	struct rdma_ucm_ece ece = {
		.vendor_id = CME_REP_VENDOR_ID,
		.attr_mod = CME_REP_ATTR_MOD,
	};
	const struct cme_event *e;
	int ret;

	ret = cme_server_request(srv, cli);
	if (ret)
		return ret;
	ret = cme_check_ece("CONNECT_REQUEST", &srv->events[0],
			    CME_REQ_VENDOR_ID, CME_REQ_ATTR_MOD);
	if (ret)
		return ret;
	ret = cme_ep_setup_qp(srv);
	if (ret)
		return ret;
	ret = cme_expect("server rdma_set_ack_timeout",
			 rdma_set_ack_timeout(srv->id, CME_SRV_ACK_TIMEOUT),
			 0) ?:
	      cme_expect("server rdma_set_min_rnr_timer",
			 rdma_set_min_rnr_timer(srv->id, CME_SRV_MIN_RNR), 0) ?:
	      cme_accept_ece(srv, &srv->events[0], &ece) ?:
	      cme_client_established(cli) ?:
	      cme_server_established(srv, cli);
	if (ret)
		return ret;
	e = &cli->events[cli->cursor - 1];
	return cme_check_ece("ESTABLISHED", e, CME_REP_VENDOR_ID,
			     CME_REP_ATTR_MOD);
}

/**
 * struct cme_pair - a scenario of one client and one server
 * @policy: what the listener does with the request
 * @start: starts the client; NULL for cme_client_start()
 * @client: the client's part until the server's request must be there
 * @both: the rest, with the server taken from the listener
 */
struct cme_pair {
	enum cme_policy policy;
	struct cme_ep *(*start)(const struct cme_params *p);
	int (*client)(struct cme_ep *cli);
	int (*both)(struct cme_listener *l, struct cme_ep *cli,
		    struct cme_ep *srv);
};

/*
 * Listen on p->laddr, start a client to p->addr and run @s's parts; both
 * ends are dumped on a failure, and everything is destroyed.
 */
static int cme_pair_run(const struct cme_params *p, const struct cme_pair *s)
{
	struct cme_ep *cli, *srv = NULL;
	struct cme_listener *l;
	int ret;

	l = cme_listener_create(&init_net, cme_sa(&p->laddr), s->policy,
				"srv");
	if (IS_ERR(l))
		return PTR_ERR(l);
	cli = s->start ? s->start(p) :
			 cme_client_start(&init_net, cme_sa(&p->addr), 0);
	if (IS_ERR(cli)) {
		cme_listener_destroy(l);
		return PTR_ERR(cli);
	}
	ret = s->client(cli);
	if (!ret) {
		srv = cme_listener_take(l);
		if (IS_ERR(srv)) {
			ret = PTR_ERR(srv);
			srv = NULL;
		}
	}
	if (!ret)
		ret = s->both(l, cli, srv);
	if (ret) {
		cme_ep_dump(cli);
		if (srv)
			cme_ep_dump(srv);
	}
	cme_ep_destroy(cli);
	cme_ep_destroy(srv);
	cme_listener_destroy(l);
	return ret;
}

static int cme_qp_attrs_client(struct cme_ep *cli)
{
	return cme_attrs_route(cli) ?: cme_attrs_connect(cli);
}

static int cme_qp_attrs_both(struct cme_listener *l, struct cme_ep *cli,
			     struct cme_ep *srv)
{
	return cme_attrs_server(srv, cli) ?:
	       cme_check_qp(cli, CME_CLI_ACK_TIMEOUT, CME_CLI_MIN_RNR,
			    CME_TOS) ?:
	       cme_check_qp(srv, CME_SRV_ACK_TIMEOUT, CME_SRV_MIN_RNR,
			    CME_TOS) ?:
	       cme_check_gids(cli) ?: cme_check_gids(srv) ?:
	       cme_exchange(cli, srv) ?: cme_disconnect(cli, srv);
}

static const struct cme_pair cme_qp_attrs = {
	.policy	= CME_HOLD,
	.client	= cme_qp_attrs_client,
	.both	= cme_qp_attrs_both,
};

/**
 * cme_scen_qp_attrs() - scenario "qp_attrs"
 * @p: parameters: laddr to listen on, addr to connect to (RoCE)
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_qp_attrs(const struct cme_params *p)
{
	return cme_pair_run(p, &cme_qp_attrs);
}

/* The path record the route would give, with a smaller MTU and a tclass. */
static void cme_own_path(struct rdma_cm_id *id, struct sa_path_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	cme_gid_of(cme_sa(&id->route.addr.src_addr), &rec->sgid);
	cme_gid_of(cme_sa(&id->route.addr.dst_addr), &rec->dgid);
	rec->hop_limit = 64;
	rec->reversible = 1;
	rec->pkey = cpu_to_be16(0xffff);
	rec->mtu_selector = IB_SA_EQ;
	rec->mtu = CME_PATH_MTU;
	rec->rate_selector = IB_SA_EQ;
	rec->rate = IB_RATE_PORT_CURRENT;
	rec->packet_life_time_selector = IB_SA_EQ;
	rec->packet_life_time = 18;
	rec->traffic_class = CME_PATH_TCLASS;
	rec->rec_type = SA_PATH_REC_TYPE_ROCE_V2;
}

/* The client's QP carries the path's MTU and traffic class. */
static int cme_check_path_qp(struct cme_ep *cli)
{
	struct ib_qp_attr attr = {};
	u8 tclass;
	int ret;

	ret = cme_query_qp(cli, &attr);
	if (ret)
		return ret;
	tclass = rdma_ah_read_grh(&attr.ah_attr)->traffic_class;
	if (attr.path_mtu != CME_PATH_MTU || tclass != CME_PATH_TCLASS) {
		pr_err("FAIL: %s: QP path_mtu %d traffic_class %#x, the path set says %d %#x\n",
		       cli->name, attr.path_mtu, tclass, CME_PATH_MTU,
		       CME_PATH_TCLASS);
		return -EPROTO;
	}
	pr_info("%s: QP path_mtu %d traffic_class %#x, as the path set\n",
		cli->name, attr.path_mtu, tclass);
	return 0;
}

/* set_ib_path's client: a path of its own, then the QP and connect. */
static int cme_path_client(struct cme_ep *cli)
{
	struct rdma_conn_param param;
	struct sa_path_rec rec;
	const struct cme_event *e;
	u8 pdata[CME_PDATA_LEN];
	int ret;

	e = cme_ep_wait(cli, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	if (e->status)
		return cme_expect("ADDR_RESOLVED status", e->status, 0);
	cme_own_path(cli->id, &rec);
	ret = cme_expect("rdma_set_ib_path", rdma_set_ib_path(cli->id, &rec),
			 0);
	if (ret)
		return ret;
	if (cli->id->route.num_pri_alt_paths != 1 || !cli->id->route.path_rec ||
	    cli->id->route.path_rec->traffic_class != CME_PATH_TCLASS) {
		pr_err("FAIL: %s: the route does not hold the path set\n",
		       cli->name);
		return -EPROTO;
	}
	ret = cme_ep_setup_qp(cli);
	if (ret)
		return ret;
	cme_pattern(pdata, sizeof(pdata), CME_SEED_REQ, cli->index);
	cme_conn_param(&param, pdata, sizeof(pdata));
	ret = rdma_connect(cli->id, &param);
	if (ret)
		pr_err("FAIL: %s: rdma_connect: %d\n", cli->name, ret);
	return ret;
}

static int cme_set_ib_path_both(struct cme_listener *l, struct cme_ep *cli,
				struct cme_ep *srv)
{
	return cme_client_established(cli) ?: cme_server_accepted(srv, cli) ?:
	       cme_check_path_qp(cli) ?: cme_exchange(cli, srv) ?:
	       cme_disconnect(cli, srv);
}

static const struct cme_pair cme_set_ib_path = {
	.policy	= CME_ACCEPT,
	.client	= cme_path_client,
	.both	= cme_set_ib_path_both,
};

/**
 * cme_scen_set_ib_path() - scenario "set_ib_path"
 * @p: parameters: laddr to listen on, addr to connect to (RoCE)
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_set_ib_path(const struct cme_params *p)
{
	return cme_pair_run(p, &cme_set_ib_path);
}

/*
 * notify's client: no QP, so its CM stops at CONNECT_RESPONSE and sends
 * no RTU until someone accepts it, which nobody does.
 */
static int cme_notify_client(struct cme_ep *cli)
{
	struct rdma_conn_param param;
	const struct cme_event *e;
	u8 pdata[CME_PDATA_LEN];
	int ret;

	ret = cme_client_route(cli);
	if (ret)
		return ret;
	e = cme_ep_wait(cli, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	cme_pattern(pdata, sizeof(pdata), CME_SEED_REQ, cli->index);
	cme_conn_param(&param, pdata, sizeof(pdata));
	param.qp_num = CME_NOTIFY_QPN;
	ret = rdma_connect(cli->id, &param);
	if (ret)
		pr_err("FAIL: %s: rdma_connect without a QP: %d\n", cli->name,
		       ret);
	return ret;
}

/* notify's server, once the client has the REP and will send no RTU. */
static int cme_notify_server(struct cme_ep *srv, struct cme_ep *cli)
{
	const struct cme_event *e;
	int ret;

	e = cme_ep_wait(cli, RDMA_CM_EVENT_CONNECT_RESPONSE);
	if (IS_ERR(e))
		return PTR_ERR(e);
	/* The REP arrived; without an RTU the server cannot be there yet. */
	ret = cme_ep_expect_quiet(srv, 0);
	if (ret)
		return ret;
	ret = rdma_notify(srv->id, IB_EVENT_COMM_EST);
	if (ret)
		return cme_expect("rdma_notify(IB_EVENT_COMM_EST)", ret, 0);
	e = cme_ep_wait(srv, RDMA_CM_EVENT_ESTABLISHED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	pr_info("%s: ESTABLISHED by rdma_notify, no RTU sent\n", srv->name);
	return cme_expect("ESTABLISHED status", e->status, 0);
}

/* notify's server accepts, with the client's request in hand. */
static int cme_notify_both(struct cme_listener *l, struct cme_ep *cli,
			   struct cme_ep *srv)
{
	int ret;

	ret = cme_check_request(srv, cli->index, CME_NOTIFY_QPN) ?:
	      cme_ep_setup_qp(srv);
	if (ret)
		return ret;
	rdma_lock_handler(srv->id);
	ret = cme_accept_locked(srv, &srv->events[0], CME_PDATA_LEN);
	rdma_unlock_handler(srv->id);
	return cme_expect("rdma_accept", ret, 0) ?:
	       cme_notify_server(srv, cli);
}

static const struct cme_pair cme_notify = {
	.policy	= CME_HOLD,
	.client	= cme_notify_client,
	.both	= cme_notify_both,
};

/**
 * cme_scen_notify() - scenario "notify"
 * @p: parameters: laddr to listen on, addr to connect to (RoCE)
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_notify(const struct cme_params *p)
{
	return cme_pair_run(p, &cme_notify);
}

/* connect_locked's handler work on ROUTE_RESOLVED: QP, then connect. */
static int cme_drive_connect(struct cme_ep *ep)
{
	struct rdma_conn_param param;
	u8 pdata[CME_PDATA_LEN];
	int ret;

	ret = cme_ep_setup_qp(ep);
	if (ret)
		return ret;
	cme_pattern(pdata, sizeof(pdata), CME_SEED_REQ, ep->index);
	cme_conn_param(&param, pdata, sizeof(pdata));
	ret = rdma_connect_locked(ep->id, &param);
	if (ret)
		pr_err("FAIL: %s: rdma_connect_locked: %d\n", ep->name, ret);
	return ret;
}

/**
 * cme_ep_drive() - the handler's own steps for an endpoint that drives
 *	its connection from its handler (@ep->drive)
 * @ep: the endpoint
 * @ev: the event the handler got
 *
 * ADDR_RESOLVED resolves the route, ROUTE_RESOLVED makes the QP and
 * connects with rdma_connect_locked(), under the handler lock the CM
 * holds.  The first error is kept in @ep->handler_error.
 */
void cme_ep_drive(struct cme_ep *ep, const struct rdma_cm_event *ev)
{
	int ret = 0;

	if (ev->status)
		return;
	if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED) {
		ret = rdma_resolve_route(ep->id, CME_RESOLVE_MS);
		if (ret)
			pr_err("FAIL: %s: rdma_resolve_route from the handler: %d\n",
			       ep->name, ret);
	} else if (ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED) {
		ret = cme_drive_connect(ep);
	}
	if (ret && !ep->handler_error)
		ep->handler_error = ret;
}

/* A step the handler took: its event came, with status 0. */
static int cme_drive_wait(struct cme_ep *ep, enum rdma_cm_event_type type)
{
	const struct cme_event *e = cme_ep_wait(ep, type);

	if (IS_ERR(e))
		return PTR_ERR(e);
	return cme_expect(cme_event_name(type), e->status, 0);
}

/* connect_locked's client: an id whose handler drives it on its own. */
static struct cme_ep *cme_drive_start(const struct cme_params *p)
{
	struct cme_ep *cli = cme_ep_alloc("cli0");
	int ret;

	if (!cli)
		return ERR_PTR(-ENOMEM);
	cli->drive = true;
	ret = cme_ep_create_id(cli, &init_net);
	if (!ret)
		ret = rdma_resolve_addr(cli->id, NULL, cme_sa(&p->addr),
					CME_RESOLVE_MS);
	if (ret) {
		cme_ep_destroy(cli);
		return ERR_PTR(ret);
	}
	return cli;
}

static int cme_drive_client(struct cme_ep *cli)
{
	int ret;

	ret = cme_drive_wait(cli, RDMA_CM_EVENT_ADDR_RESOLVED) ?:
	      cme_drive_wait(cli, RDMA_CM_EVENT_ROUTE_RESOLVED) ?:
	      cme_client_established(cli);
	return cli->handler_error ?: ret;
}

static int cme_drive_both(struct cme_listener *l, struct cme_ep *cli,
			  struct cme_ep *srv)
{
	int ret;

	ret = cme_server_accepted(srv, cli) ?: cme_exchange(cli, srv) ?:
	      cme_disconnect(cli, srv);
	if (!ret)
		pr_info("%s: connected from its own handler\n", cli->name);
	return ret;
}

static const struct cme_pair cme_connect_locked = {
	.policy	= CME_ACCEPT,
	.start	= cme_drive_start,
	.client	= cme_drive_client,
	.both	= cme_drive_both,
};

/**
 * cme_scen_connect_locked() - scenario "connect_locked"
 * @p: parameters: laddr to listen on, addr to connect to
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_connect_locked(const struct cme_params *p)
{
	return cme_pair_run(p, &cme_connect_locked);
}

/* Two addresses and ports are the same. */
static bool cme_same(const struct sockaddr_storage *a,
		     const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6)
		return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr) &&
		       a6->sin6_port == b6->sin6_port;
	return a4->sin_addr.s_addr == b4->sin_addr.s_addr &&
	       a4->sin_port == b4->sin_port;
}

/*
 * rdma_iw_cm_id() of a connected @id: on iWARP an iw_cm id whose local
 * and remote addresses are the id's source and destination; elsewhere
 * none.
 */
static int cme_check_iw(const char *name, struct rdma_cm_id *id)
{
	struct iw_cm_id *iw = rdma_iw_cm_id(id);

	if (!cme_is_iwarp(id)) {
		if (!iw)
			return 0;
		pr_err("FAIL: %s: rdma_iw_cm_id on RoCE: not NULL\n", name);
		return -EPROTO;
	}
	if (!iw) {
		pr_err("FAIL: %s: rdma_iw_cm_id on iWARP: NULL\n", name);
		return -EPROTO;
	}
	if (!cme_same(&iw->local_addr, &id->route.addr.src_addr) ||
	    !cme_same(&iw->remote_addr, &id->route.addr.dst_addr)) {
		pr_err("FAIL: %s: iw_cm id %pISpc -> %pISpc, the id %pISpc -> %pISpc\n",
		       name, &iw->local_addr, &iw->remote_addr,
		       &id->route.addr.src_addr, &id->route.addr.dst_addr);
		return -EPROTO;
	}
	pr_info("%s: iw_cm id %pISpc -> %pISpc\n", name, &iw->local_addr,
		&iw->remote_addr);
	return 0;
}

/*
 * rdma_iw_cm_id() of a listener bound to one device, as in-box: on iWARP
 * its listen there, on the listener's address; elsewhere none.
 */
static int cme_check_iw_listener(struct rdma_cm_id *id)
{
	struct iw_cm_id *iw = rdma_iw_cm_id(id);

	if (!cme_is_iwarp(id)) {
		if (!iw)
			return 0;
		pr_err("FAIL: listener: rdma_iw_cm_id on RoCE: not NULL\n");
		return -EPROTO;
	}
	if (!iw) {
		pr_err("FAIL: listener: rdma_iw_cm_id on iWARP: NULL\n");
		return -EPROTO;
	}
	if (!cme_same(&iw->local_addr, &id->route.addr.src_addr)) {
		pr_err("FAIL: listener: iw_cm id on %pISpc, the id on %pISpc\n",
		       &iw->local_addr, &id->route.addr.src_addr);
		return -EPROTO;
	}
	pr_info("listener: iw_cm id on %pISpc\n", &iw->local_addr);
	return 0;
}

static int cme_iw_cm_id_client(struct cme_ep *cli)
{
	return cme_client_route(cli) ?: cme_client_connect(cli) ?:
	       cme_client_established(cli);
}

static int cme_iw_cm_id_both(struct cme_listener *l, struct cme_ep *cli,
			     struct cme_ep *srv)
{
	int ret;

	ret = cme_server_accepted(srv, cli);
	if (ret)
		return ret;
	return cme_check_iw_listener(l->id) ?:
	       cme_check_iw(cli->name, cli->id) ?:
	       cme_check_iw(srv->name, srv->id) ?:
	       cme_exchange(cli, srv) ?: cme_disconnect(cli, srv);
}

static const struct cme_pair cme_iw_cm_id = {
	.policy	= CME_ACCEPT,
	.client	= cme_iw_cm_id_client,
	.both	= cme_iw_cm_id_both,
};

/**
 * cme_scen_iw_cm_id() - scenario "iw_cm_id"
 * @p: parameters: laddr to listen on, addr to connect to (iWARP: the
 *	iw_cm ids; RoCE: none)
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_iw_cm_id(const struct cme_params *p)
{
	return cme_pair_run(p, &cme_iw_cm_id);
}
