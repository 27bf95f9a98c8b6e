// SPDX-License-Identifier: GPL-2.0
/*
 * cm_ext: end-to-end tests of what this connection manager offers beyond
 * the 6.1 API (<rdma/rdma_cm_ext.h>), so it loads only on our rdma_cm.
 * cm_e2e stays 6.1-only, to run on the in-box CM too.
 *
 *   insmod cm_ext.ko addr_ib=10.0.0.1 addr_iw=10.0.0.2 port=7480
 *
 * addr_ib is an address of an InfiniBand/RoCE device (rxe), addr_iw one
 * of an iWARP device (siw). Module init runs every check and fails with
 * -EPROTO if one failed; each logs "check NAME: PASS" or "FAIL".
 *
 * Checks of rdma_restrict_node_type(): its arguments and -EALREADY; bind
 * and address resolution honour it; a wildcard listener restricted to a
 * node type listens on the devices of that type only (a connection to
 * the other device's address is refused, to its own reaches the
 * listener).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ext.h>

#define CMX_TIMEOUT_MS	10000
#define CMX_RESOLVE_MS	5000

static char *addr_ib = "10.0.0.1";
module_param(addr_ib, charp, 0444);
MODULE_PARM_DESC(addr_ib, "an IPv4 address of an InfiniBand or RoCE device");

static char *addr_iw = "10.0.0.2";
module_param(addr_iw, charp, 0444);
MODULE_PARM_DESC(addr_iw, "an IPv4 address of an iWARP device");

static ushort port = 7480;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "first of the two ports the listen checks use");

/**
 * struct cmx_ep - an id, what happened to it, and its verbs resources
 * @id: the id
 * @lock: protects @last, @status, @nr_events and @nr_requests
 * @wq: woken on every event
 * @last: the last event
 * @status: its status
 * @nr_events: events seen
 * @nr_requests: for a listener, CONNECT_REQUESTs seen (each refused)
 * @pd: protection domain of @qp
 * @cq: completion queue of @qp
 */
struct cmx_ep {
	struct rdma_cm_id *id;
	spinlock_t lock;	/* protects the event record */
	wait_queue_head_t wq;
	enum rdma_cm_event_type last;
	int status;
	unsigned int nr_events;
	unsigned int nr_requests;
	struct ib_pd *pd;
	struct ib_cq *cq;
};

static struct sockaddr_in cmx_ib, cmx_iw;

/* Requests are refused by returning 1: the CM destroys the new id. */
static int cmx_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cmx_ep *ep = id->context;
	bool request = ev->event == RDMA_CM_EVENT_CONNECT_REQUEST;

	spin_lock(&ep->lock);
	if (request)
		ep->nr_requests++;
	ep->last = ev->event;
	ep->status = ev->status;
	ep->nr_events++;
	spin_unlock(&ep->lock);
	wake_up(&ep->wq);
	return request;
}

static struct cmx_ep *cmx_ep_create(void)
{
	struct cmx_ep *ep;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return NULL;
	spin_lock_init(&ep->lock);
	init_waitqueue_head(&ep->wq);
	ep->id = rdma_create_id(&init_net, cmx_handler, ep, RDMA_PS_TCP,
				IB_QPT_RC);
	if (IS_ERR(ep->id)) {
		kfree(ep);
		return NULL;
	}
	return ep;
}

static void cmx_ep_destroy(struct cmx_ep *ep)
{
	if (!ep)
		return;
	if (ep->id->qp)
		rdma_destroy_qp(ep->id);
	rdma_destroy_id(ep->id);
	if (ep->cq)
		ib_free_cq(ep->cq);
	if (ep->pd)
		ib_dealloc_pd(ep->pd);
	kfree(ep);
}

static bool cmx_ep_has(struct cmx_ep *ep, unsigned int n)
{
	bool has;

	spin_lock(&ep->lock);
	has = ep->nr_events >= n;
	spin_unlock(&ep->lock);
	return has;
}

static unsigned int cmx_requests(struct cmx_ep *ep)
{
	unsigned int n;

	spin_lock(&ep->lock);
	n = ep->nr_requests;
	spin_unlock(&ep->lock);
	return n;
}

/* Wait for event number @n; return its type, or -ETIMEDOUT. */
static int cmx_wait(struct cmx_ep *ep, unsigned int n)
{
	if (!wait_event_timeout(ep->wq, cmx_ep_has(ep, n),
				msecs_to_jiffies(CMX_TIMEOUT_MS)))
		return -ETIMEDOUT;
	return ep->last;
}

static int cmx_expect(const char *what, int got, int want)
{
	if (got == want)
		return 0;
	pr_err("FAIL: %s: %d, want %d\n", what, got, want);
	return -EPROTO;
}

static struct sockaddr *cmx_sa(struct sockaddr_in *sin, u16 p)
{
	sin->sin_port = htons(p);
	return (struct sockaddr *)sin;
}

static int cmx_check_args(void)
{
	static const int bad[] = { 0, RDMA_NODE_IB_SWITCH, RDMA_NODE_IB_ROUTER,
				   RDMA_NODE_USNIC, RDMA_NODE_USNIC_UDP, 200 };
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct cmx_ep *ep = cmx_ep_create();
	unsigned int i;
	int ret = 0;

	if (!ep)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ret = ret ?: cmx_expect("restrict to a bad type",
					rdma_restrict_node_type(ep->id, bad[i]),
					-EINVAL);
	ret = ret ?:
	      cmx_expect("restrict to IB_CA",
			 rdma_restrict_node_type(ep->id, RDMA_NODE_IB_CA), 0) ?:
	      cmx_expect("restrict to RNIC",
			 rdma_restrict_node_type(ep->id, RDMA_NODE_RNIC), 0) ?:
	      cmx_expect("lift the restriction",
			 rdma_restrict_node_type(ep->id, RDMA_NODE_UNSPECIFIED),
			 0) ?:
	      /* A wildcard bind binds no device: still free to choose. */
	      cmx_expect("wildcard bind",
			 rdma_bind_addr(ep->id, cmx_sa(&any, 0)), 0) ?:
	      cmx_expect("restrict after a wildcard bind",
			 rdma_restrict_node_type(ep->id, RDMA_NODE_RNIC), 0);
	cmx_ep_destroy(ep);
	return ret;
}

/* Bound to a device: too late to restrict. */
static int cmx_check_already(void)
{
	struct cmx_ep *ep = cmx_ep_create();
	int ret;

	if (!ep)
		return -ENOMEM;
	ret = cmx_expect("bind to addr_ib",
			 rdma_bind_addr(ep->id, cmx_sa(&cmx_ib, 0)), 0) ?:
	      cmx_expect("restrict once bound to a device",
			 rdma_restrict_node_type(ep->id, RDMA_NODE_IB_CA),
			 -EALREADY);
	cmx_ep_destroy(ep);
	return ret;
}

/* A restricted id binds only to addresses of devices of its type. */
static int cmx_check_bind(u8 type, struct sockaddr_in *no,
			  struct sockaddr_in *yes)
{
	struct cmx_ep *ep = cmx_ep_create();
	int ret;

	if (!ep)
		return -ENOMEM;
	ret = cmx_expect("restrict", rdma_restrict_node_type(ep->id, type), 0) ?:
	      cmx_expect("bind to the other device's address",
			 rdma_bind_addr(ep->id, cmx_sa(no, 0)),
			 -ENODEV) ?:
	      cmx_expect("bind to an address of a device of the type",
			 rdma_bind_addr(ep->id, cmx_sa(yes, 0)), 0) ?:
	      cmx_expect("node type of the bound device",
			 ep->id->device->node_type, type);
	cmx_ep_destroy(ep);
	return ret;
}

/* Address resolution to @dst for an id restricted to @type. */
static int cmx_check_resolve(u8 type, struct sockaddr_in *dst, bool ok)
{
	struct cmx_ep *ep = cmx_ep_create();
	int ret;

	if (!ep)
		return -ENOMEM;
	ret = cmx_expect("restrict", rdma_restrict_node_type(ep->id, type), 0) ?:
	      cmx_expect("rdma_resolve_addr",
			 rdma_resolve_addr(ep->id, NULL, cmx_sa(dst, port),
					   CMX_RESOLVE_MS), 0) ?:
	      cmx_expect("address resolution's event", cmx_wait(ep, 1),
			 ok ? RDMA_CM_EVENT_ADDR_RESOLVED :
			      RDMA_CM_EVENT_ADDR_ERROR);
	if (!ret && ok)
		ret = cmx_expect("node type of the device",
				 ep->id->device->node_type, type);
	cmx_ep_destroy(ep);
	return ret;
}

/* iWARP connects only with a QP. */
static int cmx_ep_qp(struct cmx_ep *ep)
{
	struct ib_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	ep->pd = ib_alloc_pd(ep->id->device, 0);
	if (IS_ERR(ep->pd)) {
		int ret = PTR_ERR(ep->pd);

		ep->pd = NULL;
		return ret;
	}
	ep->cq = ib_alloc_cq(ep->id->device, NULL, 2, 0, IB_POLL_DIRECT);
	if (IS_ERR(ep->cq)) {
		int ret = PTR_ERR(ep->cq);

		ep->cq = NULL;
		return ret;
	}
	attr.send_cq = ep->cq;
	attr.recv_cq = ep->cq;
	return rdma_create_qp(ep->id, ep->pd, &attr);
}

/*
 * An unrestricted client connects to @dst; the listener there refuses
 * every request. Return 0 once the client was refused.
 */
static int cmx_connect(struct sockaddr_in *dst, u16 p)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1,
					 .retry_count = 1, .qp_num = 1 };
	struct cmx_ep *ep = cmx_ep_create();
	int ret, ev;

	if (!ep)
		return -ENOMEM;
	ret = cmx_expect("rdma_resolve_addr",
			 rdma_resolve_addr(ep->id, NULL, cmx_sa(dst, p),
					   CMX_RESOLVE_MS), 0) ?:
	      cmx_expect("ADDR_RESOLVED", cmx_wait(ep, 1),
			 RDMA_CM_EVENT_ADDR_RESOLVED) ?:
	      cmx_expect("rdma_resolve_route",
			 rdma_resolve_route(ep->id, CMX_RESOLVE_MS), 0) ?:
	      cmx_expect("ROUTE_RESOLVED", cmx_wait(ep, 2),
			 RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (!ret && rdma_protocol_iwarp(ep->id->device, ep->id->port_num))
		ret = cmx_expect("QP", cmx_ep_qp(ep), 0);
	if (!ret) {
		ret = rdma_connect(ep->id, &param);
		/* siw learns at once that no one listens. */
		if (ret == -ECONNREFUSED) {
			cmx_ep_destroy(ep);
			return 0;
		}
		ret = cmx_expect("rdma_connect", ret, 0);
	}
	if (!ret) {
		ev = cmx_wait(ep, 3);
		if (ev != RDMA_CM_EVENT_REJECTED &&
		    ev != RDMA_CM_EVENT_CONNECT_ERROR &&
		    ev != RDMA_CM_EVENT_UNREACHABLE) {
			pr_err("FAIL: connecting to %pISp: event %d (%s), want a refusal\n",
			       dst, ev, ev < 0 ? "none" : rdma_event_msg(ev));
			ret = -EPROTO;
		}
	}
	cmx_ep_destroy(ep);
	return ret;
}

/*
 * A wildcard listener restricted to @type on port @p: a connection to
 * @other (a device of the other type) never reaches it, one to @own does.
 */
static int cmx_check_listen(u8 type, u16 p, struct sockaddr_in *other,
			    struct sockaddr_in *own)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct cmx_ep *l = cmx_ep_create();
	int ret;

	if (!l)
		return -ENOMEM;
	ret = cmx_expect("restrict", rdma_restrict_node_type(l->id, type), 0) ?:
	      cmx_expect("bind the wildcard",
			 rdma_bind_addr(l->id, cmx_sa(&any, p)), 0) ?:
	      cmx_expect("rdma_listen", rdma_listen(l->id, 4), 0) ?:
	      cmx_connect(other, p) ?:
	      cmx_expect("requests after connecting to the other device",
			 cmx_requests(l), 0) ?:
	      cmx_connect(own, p) ?:
	      cmx_expect("requests after connecting to a device of the type",
			 cmx_requests(l), 1);
	cmx_ep_destroy(l);
	return ret;
}

static int cmx_parse(const char *s, struct sockaddr_in *sin)
{
	sin->sin_family = AF_INET;
	if (in4_pton(s, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL))
		return 0;
	pr_err("%s is no IPv4 address\n", s);
	return -EINVAL;
}

static unsigned int cmx_failed;

static void cmx_check(const char *name, int ret)
{
	if (ret) {
		cmx_failed++;
		pr_err("check %s: FAIL (%d)\n", name, ret);
	} else {
		pr_info("check %s: PASS\n", name);
	}
}

static int __init cmx_init(void)
{
	if (cmx_parse(addr_ib, &cmx_ib) || cmx_parse(addr_iw, &cmx_iw))
		return -EINVAL;

	cmx_check("restrict_args", cmx_check_args());
	cmx_check("restrict_already", cmx_check_already());
	cmx_check("restrict_bind_rnic",
		  cmx_check_bind(RDMA_NODE_RNIC, &cmx_ib, &cmx_iw));
	cmx_check("restrict_bind_ib_ca",
		  cmx_check_bind(RDMA_NODE_IB_CA, &cmx_iw, &cmx_ib));
	cmx_check("restrict_resolve_rnic_to_ib",
		  cmx_check_resolve(RDMA_NODE_RNIC, &cmx_ib, false));
	cmx_check("restrict_resolve_ib_ca_to_iw",
		  cmx_check_resolve(RDMA_NODE_IB_CA, &cmx_iw, false));
	cmx_check("restrict_resolve_rnic_to_iw",
		  cmx_check_resolve(RDMA_NODE_RNIC, &cmx_iw, true));
	cmx_check("restrict_resolve_ib_ca_to_ib",
		  cmx_check_resolve(RDMA_NODE_IB_CA, &cmx_ib, true));
	cmx_check("restrict_listen_rnic",
		  cmx_check_listen(RDMA_NODE_RNIC, port, &cmx_ib, &cmx_iw));
	cmx_check("restrict_listen_ib_ca",
		  cmx_check_listen(RDMA_NODE_IB_CA, port + 1, &cmx_iw,
				   &cmx_ib));
	if (cmx_failed) {
		pr_err("FAIL: %u checks failed\n", cmx_failed);
		return -EPROTO;
	}
	pr_info("all checks passed\n");
	return 0;
}

static void __exit cmx_exit(void)
{
}

module_init(cmx_init);
module_exit(cmx_exit);

MODULE_DESCRIPTION("End-to-end tests of the RDMA CM's extensions to the 6.1 API");
MODULE_LICENSE("GPL");
