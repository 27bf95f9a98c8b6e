// SPDX-License-Identifier: GPL-2.0
/*
 * cm_hostile: an RDMA CM listener facing a hostile peer.
 *
 *   insmod cm_hostile.ko addr=10.0.0.1 port=7472 [other=fd00::1] [strict=1]
 *
 * The module listens on addr:port through the rdma_cm API and plays a peer
 * that talks to it through the IB CM directly (ib_send_cm_req() and the
 * rest) with private data of its own making: CM headers with an unknown
 * version or IP version, junk where zeros belong, addresses that do not
 * match where the REQ goes, private data of every length, service IDs
 * nobody listens on, duplicate REQs, DREQs for connections that do not
 * exist, and peers that go silent or reject after the REP.  The raw REQs
 * borrow the route of an rdma_cm id resolved to addr:port (path record,
 * source GID attribute, device), so they travel as the CM's own would.
 *
 * Good peers come before, in between and after: a hand-made REQ with a
 * correct header and a normal rdma_cm client must still get through.
 *
 * Requests that could not have come from where their header says (a
 * source with no route, one routed through another netdev, loopback, a
 * destination on another netdev) must be dropped, as in-box does, while
 * an honest one beside them is served (a SIDR REQ, UD's request, too,
 * to a UD listener on port+5); and a request arriving on rxe's
 * netdev must not reach a listener in another network namespace
 * (netns_fd, an open file of insmod's), only one in the netdev's.  With origin_only=1 only those
 * run, with the good clients around them: that is what the in-box CM is
 * run with, as the oracle.
 *
 * Last, an AF_IB listener on the wildcard GID (service ID of port+3 in
 * the TCP port space) gets a REQ without a CM header, as an AF_IB peer
 * sends it, and one with a header: both must reach it with all of their
 * private data, its id's addresses AF_IB ones from the REQ's path. The
 * in-box CM refuses both on RoCE, so this is a strict check.
 *
 * Module init runs everything and returns 0 if every check passed, a
 * negative errno if not: insmod's status is the verdict.  Each case ends
 * with a "result:" line in the kernel log.  With strict=1 the checks the
 * in-box rdma_cm is known to fail count too; without, their outcome is
 * only reported.  "other" is the address of the other IP family on the
 * same device, for the case of a header of the wrong family.
 *
 * The CM header, in front of the consumer's data in a REQ:
 *   byte 0      version, 0
 *   byte 1      IP version in bits 7:4
 *   bytes 2-3   the active side's port
 *   bytes 4-19  source address
 *   bytes 20-35 destination address
 * An IPv4 address is the last 4 bytes of its 16, after 12 zeros.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#define CH_HDR_LEN		36
#define CH_OFF_VERSION		0
#define CH_OFF_IPVER		1
#define CH_OFF_PORT		2
#define CH_OFF_SRC		4
#define CH_OFF_DST		20
#define CH_REQ_MAX		IB_CM_REQ_PRIVATE_DATA_SIZE
#define CH_USER_MAX		(CH_REQ_MAX - CH_HDR_LEN)
#define CH_USER_LEN		8

/* Port spaces, bits 31:16 of a service ID. */
#define CH_PS_TCP		0x0106
#define CH_PS_UDP		0x0111

#define CH_WAIT_MS		15000
#define CH_RESOLVE_MS		5000
/* How long a late duplicate gets to show up. */
#define CH_QUIET_MS		500

/*
 * Timing of the raw REQs: 2 x 64 ms of packet lifetime plus 1 s to
 * answer, 2 retries: a REQ nobody answers fails in about 3.5 s.
 */
#define CH_LIFETIME		14
#define CH_RESPONSE		18
#define CH_RETRIES		2
/*
 * The retransmitted REQ: resent every 130 ms, 15 times, while the
 * listener holds the first copy for CH_HOLD_MS before the CM answers it
 * with an MRA.
 */
#define CH_FAST_LIFETIME	8
#define CH_FAST_RESPONSE	15
#define CH_FAST_RETRIES		15
#define CH_HOLD_MS		400
/* The silent peer: the listener's REP is resent every 256 ms, twice. */
#define CH_SILENT_RESPONSE	16

/* What the listener puts in its REJ and REP private data. */
#define CH_MAGIC		0x686f7374

#define CH_NR_EVENTS		16
#define CH_MAX_FAILED_LENGTHS	3

static char *addr = "10.0.0.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "the listener's IPv4 or IPv6 address (default 10.0.0.1)");

static char *other;
module_param(other, charp, 0444);
MODULE_PARM_DESC(other, "an address of the other IP family on the same device (optional)");

static ushort port = 7472;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "the listener's port; port+1 has a wildcard listener, port+2 none, port+3 an AF_IB one for a while, port+4 those of netns_fd, port+5 a UD one (default 7472)");

static bool strict;
module_param(strict, bool, 0444);
MODULE_PARM_DESC(strict, "also fail where the in-box rdma_cm is known to differ");

static char *foreign;
module_param(foreign, charp, 0444);
MODULE_PARM_DESC(foreign, "an address of addr's family on another netdev of this host (optional)");

static int netns_fd = -1;
module_param(netns_fd, int, 0444);
MODULE_PARM_DESC(netns_fd, "insmod's open file of another network namespace, for listeners on port+4 there and here (optional)");

static bool origin_only;
module_param(origin_only, bool, 0444);
MODULE_PARM_DESC(origin_only, "run only the cases of where a request comes from");

struct ch_marker {
	__be32 magic;
	__be32 nr;
};

enum ch_kind {
	CH_LISTENER = 0x4c49,
	CH_CONN,
	CH_CLIENT,
};

/**
 * enum ch_policy - what a listener does with a CONNECT_REQUEST
 * @CH_REJECT: rdma_reject() with a marker, from the handler
 * @CH_ACCEPT: a QP and rdma_accept(), from the handler
 * @CH_HOLD: sleep CH_HOLD_MS in the handler, then leave it pending
 */
enum ch_policy {
	CH_REJECT,
	CH_ACCEPT,
	CH_HOLD,
};

/* Events seen on an rdma_cm id, and the status each came with. */
struct ch_events {
	unsigned long seen;
	int status[CH_NR_EVENTS];
};

/* A connection the listener accepted or holds. */
struct ch_conn {
	enum ch_kind kind;
	struct list_head node;
	struct rdma_cm_id *id;
	bool has_qp;
	struct ch_events ev;
};

/* What a listener saw of its last CONNECT_REQUEST. */
struct ch_request {
	u8 pdata[CH_USER_MAX];
	u8 pdata_len;
	bool has_pdata;
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
	u32 qp_num;
};

struct ch_listener {
	enum ch_kind kind;
	const char *name;
	struct net *net;
	bool ud;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	/* the rest under ch_lock */
	enum ch_policy policy;
	unsigned int nr_requests;
	struct ch_request last;
	struct list_head conns;
};

/* An active rdma_cm id: a normal client, or the one whose route we use. */
struct ch_client {
	enum ch_kind kind;
	const char *name;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool has_qp;
	struct ch_events ev;
};

/* The hostile peer: an IB CM id of our own and a QP number to offer. */
struct ch_raw {
	const char *name;
	struct ib_cm_id *cm;
	struct ib_qp *qp;
	struct sa_path_rec path;
	/* the rest under ch_lock */
	unsigned long seen;
	int rej_reason;
	struct ch_marker rej;
	int sidr_status;
	struct ch_marker sidr;
	struct ch_marker rep;
	u32 rep_qpn;
};

/* One hand-made REQ. */
struct ch_req {
	u8 pdata[CH_REQ_MAX + 1];
	u8 len;
	__be64 sid;
	enum ib_qp_type qp_type;
	u8 lifetime;
	u8 response;
	u8 local;
	u8 retries;
};

struct ch_ctx {
	struct sockaddr_storage addr;
	struct sockaddr_storage other;
	struct sockaddr_storage foreign;
	struct sockaddr_storage src;
	u16 port;
	bool strict;
	struct ch_listener l;
	struct ch_listener wild;
	struct ch_listener ib;
	struct ch_listener there;
	struct ch_listener here;
	struct ch_listener ud;
	struct ch_client route;
	unsigned int failed;
	unsigned int unroutable;
};

/* Every handler records under ch_lock and wakes ch_wq. */
static DEFINE_SPINLOCK(ch_lock);
static DECLARE_WAIT_QUEUE_HEAD(ch_wq);
/* Fewer messages, for the loop over every length. */
static bool ch_quiet;

#define ch_info(fmt, ...)						\
	do {								\
		if (!READ_ONCE(ch_quiet))				\
			pr_info(fmt, ##__VA_ARGS__);			\
	} while (0)

static const char *const ch_ib_event_names[] = {
	[IB_CM_REQ_ERROR] = "REQ_ERROR",
	[IB_CM_REQ_RECEIVED] = "REQ_RECEIVED",
	[IB_CM_REP_ERROR] = "REP_ERROR",
	[IB_CM_REP_RECEIVED] = "REP_RECEIVED",
	[IB_CM_RTU_RECEIVED] = "RTU_RECEIVED",
	[IB_CM_USER_ESTABLISHED] = "USER_ESTABLISHED",
	[IB_CM_DREQ_ERROR] = "DREQ_ERROR",
	[IB_CM_DREQ_RECEIVED] = "DREQ_RECEIVED",
	[IB_CM_DREP_RECEIVED] = "DREP_RECEIVED",
	[IB_CM_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
	[IB_CM_MRA_RECEIVED] = "MRA_RECEIVED",
	[IB_CM_REJ_RECEIVED] = "REJ_RECEIVED",
	[IB_CM_LAP_ERROR] = "LAP_ERROR",
	[IB_CM_LAP_RECEIVED] = "LAP_RECEIVED",
	[IB_CM_APR_RECEIVED] = "APR_RECEIVED",
	[IB_CM_SIDR_REQ_ERROR] = "SIDR_REQ_ERROR",
	[IB_CM_SIDR_REQ_RECEIVED] = "SIDR_REQ_RECEIVED",
	[IB_CM_SIDR_REP_RECEIVED] = "SIDR_REP_RECEIVED",
};

static const char *ch_ib_event_name(enum ib_cm_event_type type)
{
	if ((unsigned int)type < ARRAY_SIZE(ch_ib_event_names) &&
	    ch_ib_event_names[type])
		return ch_ib_event_names[type];
	return "?";
}

static int ch_expect_ret(const char *what, int got, int want)
{
	if (got != want) {
		pr_err("FAIL: %s returned %d, expected %d\n", what, got, want);
		return -EPROTO;
	}
	pr_info("ok: %s returned %d\n", what, got);
	return 0;
}

static void ch_marker_set(struct ch_marker *m, unsigned int nr)
{
	m->magic = cpu_to_be32(CH_MAGIC);
	m->nr = cpu_to_be32(nr);
}

static bool ch_marked(const struct ch_marker *m)
{
	return m->magic == cpu_to_be32(CH_MAGIC);
}

static __be64 ch_sid(u16 ps, u16 port)
{
	return cpu_to_be64(((u64)ps << 16) | port);
}

static u16 ch_port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static void ch_set_port(struct sockaddr_storage *ss, u16 port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

static bool ch_same_addr(const struct sockaddr_storage *a,
			 const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
	const struct sockaddr_in *b4 = (const struct sockaddr_in *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_port == b4->sin_port &&
		       a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return a6->sin6_port == b6->sin6_port &&
		       !memcmp(&a6->sin6_addr, &b6->sin6_addr,
			       sizeof(a6->sin6_addr));
	return false;
}

static int ch_parse(const char *s, u16 port, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (in4_pton(s, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL)) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return 0;
	}
	if (in6_pton(s, -1, sin6->sin6_addr.s6_addr, -1, NULL)) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return 0;
	}
	pr_err("%s is no IPv4 or IPv6 address\n", s);
	return -EINVAL;
}

static void ch_qp_attr(struct ib_qp_init_attr *attr, struct ib_cq *cq)
{
	memset(attr, 0, sizeof(*attr));
	attr->send_cq = cq;
	attr->recv_cq = cq;
	attr->qp_type = IB_QPT_RC;
	attr->sq_sig_type = IB_SIGNAL_REQ_WR;
	attr->cap.max_send_wr = 2;
	attr->cap.max_recv_wr = 2;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
}

/* Event bookkeeping, shared by every id of the module. */

static void ch_note(struct ch_events *e, const struct rdma_cm_event *ev)
{
	spin_lock(&ch_lock);
	if ((unsigned int)ev->event < CH_NR_EVENTS) {
		e->seen |= BIT(ev->event);
		e->status[ev->event] = ev->status;
	}
	wake_up_all(&ch_wq);
	spin_unlock(&ch_lock);
}

static unsigned long ch_test(const unsigned long *seen, unsigned long mask)
{
	unsigned long got;

	spin_lock(&ch_lock);
	got = *seen & mask;
	spin_unlock(&ch_lock);
	return got;
}

/* Wait for any event of @mask; return the ones seen, 0 if none came. */
static unsigned long ch_wait(const unsigned long *seen, unsigned long mask,
			     unsigned int ms)
{
	wait_event_timeout(ch_wq, ch_test(seen, mask), msecs_to_jiffies(ms));
	return ch_test(seen, mask);
}

static int ch_status(const struct ch_events *e, enum rdma_cm_event_type type)
{
	int status;

	spin_lock(&ch_lock);
	status = e->status[type];
	spin_unlock(&ch_lock);
	return status;
}

/* Wait for one rdma_cm event; fail if another of @mask came instead. */
static int ch_wait_event(const char *who, struct ch_events *e,
			 enum rdma_cm_event_type want, unsigned long mask)
{
	unsigned long got;

	got = ch_wait(&e->seen, mask | BIT(want), CH_WAIT_MS);
	if (got & BIT(want)) {
		ch_info("ok: %s: %s\n", who, rdma_event_msg(want));
		return 0;
	}
	if (got)
		pr_err("FAIL: %s: events %#lx (status %d) instead of %s\n",
		       who, got, ch_status(e, __ffs(got)),
		       rdma_event_msg(want));
	else
		pr_err("FAIL: %s: no %s in %u ms\n", who, rdma_event_msg(want),
		       CH_WAIT_MS);
	return -ETIMEDOUT;
}

/* The listener side. */

static void ch_set_policy(struct ch_listener *l, enum ch_policy policy)
{
	spin_lock(&ch_lock);
	l->policy = policy;
	spin_unlock(&ch_lock);
}

static unsigned int ch_requests(struct ch_ctx *ctx)
{
	unsigned int n;

	spin_lock(&ch_lock);
	n = ctx->l.nr_requests + ctx->wild.nr_requests + ctx->ib.nr_requests +
	    ctx->there.nr_requests + ctx->here.nr_requests +
	    ctx->ud.nr_requests;
	spin_unlock(&ch_lock);
	return n;
}

static void ch_add_conn(struct ch_listener *l, struct ch_conn *conn)
{
	spin_lock(&ch_lock);
	list_add_tail(&conn->node, &l->conns);
	wake_up_all(&ch_wq);
	spin_unlock(&ch_lock);
}

static int ch_refuse(struct ch_listener *l, struct rdma_cm_id *id,
		     unsigned int nr)
{
	struct ch_marker m;
	int ret;

	ch_marker_set(&m, nr);
	ret = rdma_reject(id, &m, sizeof(m), IB_CM_REJ_CONSUMER_DEFINED);
	if (ret)
		pr_err("FAIL: %s: rdma_reject of request #%u: %d\n", l->name,
		       nr, ret);
	/* Either way the CM destroys the id. */
	return 1;
}

static int ch_accept(struct ch_listener *l, struct rdma_cm_id *id,
		     const struct rdma_conn_param *req, unsigned int nr)
{
	struct rdma_conn_param param = {};
	struct ib_qp_init_attr attr;
	struct ch_conn *conn;
	struct ch_marker m;
	int ret;

	if (!l->pd || l->pd->device != id->device) {
		pr_err("FAIL: %s: request #%u on a device we have no PD on\n",
		       l->name, nr);
		return 1;
	}
	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return 1;
	conn->kind = CH_CONN;
	conn->id = id;
	INIT_LIST_HEAD(&conn->node);

	ch_qp_attr(&attr, l->cq);
	ret = rdma_create_qp(id, l->pd, &attr);
	if (ret) {
		pr_err("FAIL: %s: rdma_create_qp for request #%u: %d\n",
		       l->name, nr, ret);
		kfree(conn);
		return 1;
	}
	conn->has_qp = true;

	ch_marker_set(&m, nr);
	param.private_data = &m;
	param.private_data_len = sizeof(m);
	param.responder_resources = min_t(u8, req->initiator_depth, 1);
	param.initiator_depth = min_t(u8, req->responder_resources, 1);
	param.retry_count = 6;
	param.rnr_retry_count = 6;
	id->context = conn;
	ret = rdma_accept(id, &param);
	if (ret) {
		pr_err("FAIL: %s: rdma_accept of request #%u: %d\n", l->name,
		       nr, ret);
		id->context = l;
		rdma_destroy_qp(id);
		kfree(conn);
		return 1;
	}
	ch_info("%s: accepted request #%u with QP %u\n", l->name, nr,
		id->qp->qp_num);
	ch_add_conn(l, conn);
	return 0;
}

static int ch_hold(struct ch_listener *l, struct rdma_cm_id *id,
		   unsigned int nr)
{
	struct ch_conn *conn;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return 1;
	conn->kind = CH_CONN;
	conn->id = id;
	INIT_LIST_HEAD(&conn->node);
	id->context = conn;
	pr_info("%s: holding request #%u for %u ms in the handler\n", l->name,
		nr, CH_HOLD_MS);
	msleep(CH_HOLD_MS);
	ch_add_conn(l, conn);
	return 0;
}

static int ch_request(struct ch_listener *l, struct rdma_cm_id *id,
		      struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *param = &ev->param.conn;
	struct ch_request *last = &l->last;
	enum ch_policy policy;
	unsigned int nr;

	spin_lock(&ch_lock);
	nr = ++l->nr_requests;
	policy = l->policy;
	memset(last, 0, sizeof(*last));
	last->has_pdata = !!param->private_data;
	last->pdata_len = param->private_data_len;
	if (param->private_data)
		memcpy(last->pdata, param->private_data,
		       min_t(size_t, param->private_data_len, CH_USER_MAX));
	memcpy(&last->src, &id->route.addr.src_addr, sizeof(last->src));
	memcpy(&last->dst, &id->route.addr.dst_addr, sizeof(last->dst));
	last->qp_num = param->qp_num;
	spin_unlock(&ch_lock);

	if (last->src.ss_family == AF_IB)
		ch_info("%s: CONNECT_REQUEST #%u to GID %pI6c from GID %pI6c, QP %u, %u bytes of private data\n",
			l->name, nr,
			&((struct sockaddr_ib *)&last->src)->sib_addr,
			&((struct sockaddr_ib *)&last->dst)->sib_addr,
			param->qp_num,
			param->private_data ? param->private_data_len : 0);
	else
		ch_info("%s: CONNECT_REQUEST #%u to %pISpc from %pISpc, QP %u, %u bytes of private data\n",
			l->name, nr, &id->route.addr.src_addr,
			&id->route.addr.dst_addr, param->qp_num,
			param->private_data ? param->private_data_len : 0);

	switch (policy) {
	case CH_ACCEPT:
		return ch_accept(l, id, param, nr);
	case CH_HOLD:
		return ch_hold(l, id, nr);
	default:
		return ch_refuse(l, id, nr);
	}
}

static int ch_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum ch_kind *kind = id->context;
	struct ch_listener *l;
	struct ch_client *cli;
	struct ch_conn *conn;

	switch (*kind) {
	case CH_LISTENER:
		l = id->context;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			return ch_request(l, id, ev);
		pr_info("%s: %s status %d on the listening id\n", l->name,
			rdma_event_msg(ev->event), ev->status);
		return 0;
	case CH_CONN:
		conn = id->context;
		ch_info("accepted id: %s status %d\n",
			rdma_event_msg(ev->event), ev->status);
		ch_note(&conn->ev, ev);
		return 0;
	case CH_CLIENT:
		cli = id->context;
		ch_info("%s: %s status %d\n", cli->name,
			rdma_event_msg(ev->event), ev->status);
		ch_note(&cli->ev, ev);
		return 0;
	}
	pr_err("FAIL: %s on an id with a context not ours\n",
	       rdma_event_msg(ev->event));
	return 0;
}

static bool ch_test_conns(struct ch_listener *l)
{
	bool ret;

	spin_lock(&ch_lock);
	ret = !list_empty(&l->conns);
	spin_unlock(&ch_lock);
	return ret;
}

static struct ch_conn *ch_take(struct ch_listener *l)
{
	struct ch_conn *conn;

	wait_event_timeout(ch_wq, ch_test_conns(l),
			   msecs_to_jiffies(CH_WAIT_MS));
	spin_lock(&ch_lock);
	conn = list_first_entry_or_null(&l->conns, struct ch_conn, node);
	if (conn)
		list_del_init(&conn->node);
	spin_unlock(&ch_lock);
	if (!conn)
		pr_err("FAIL: %s: no connection to take in %u ms\n", l->name,
		       CH_WAIT_MS);
	return conn;
}

static void ch_conn_destroy(struct ch_conn *conn)
{
	if (conn->has_qp)
		rdma_destroy_qp(conn->id);
	rdma_destroy_id(conn->id);
	kfree(conn);
}

static int ch_listen(struct ch_listener *l, const char *name,
		     const struct sockaddr_storage *ss, bool verbs)
{
	struct rdma_cm_id *id;
	int ret;

	l->kind = CH_LISTENER;
	l->name = name;
	l->policy = CH_REJECT;

	id = rdma_create_id(l->net ?: &init_net, ch_cm_handler, l,
			    l->ud ? RDMA_PS_UDP : RDMA_PS_TCP,
			    l->ud ? IB_QPT_UD : IB_QPT_RC);
	if (IS_ERR(id)) {
		pr_err("FAIL: %s: rdma_create_id: %ld\n", name, PTR_ERR(id));
		return PTR_ERR(id);
	}
	l->id = id;
	ret = rdma_bind_addr(id, (struct sockaddr *)ss);
	if (ret) {
		pr_err("FAIL: %s: rdma_bind_addr %pISpc: %d\n", name, ss, ret);
		return ret;
	}
	if (verbs) {
		if (!id->device) {
			pr_err("FAIL: %s: %pISc is on no RDMA device\n", name,
			       ss);
			return -ENODEV;
		}
		l->pd = ib_alloc_pd(id->device, 0);
		if (IS_ERR(l->pd)) {
			ret = PTR_ERR(l->pd);
			l->pd = NULL;
			pr_err("FAIL: %s: ib_alloc_pd: %d\n", name, ret);
			return ret;
		}
		l->cq = ib_alloc_cq(id->device, NULL, 16, 0, IB_POLL_DIRECT);
		if (IS_ERR(l->cq)) {
			ret = PTR_ERR(l->cq);
			l->cq = NULL;
			pr_err("FAIL: %s: ib_alloc_cq: %d\n", name, ret);
			return ret;
		}
	}
	ret = rdma_listen(id, 16);
	if (ret) {
		pr_err("FAIL: %s: rdma_listen %pISpc: %d\n", name, ss, ret);
		return ret;
	}
	pr_info("%s: listening on %pISpc\n", name, ss);
	return 0;
}

static void ch_unlisten(struct ch_listener *l)
{
	struct ch_conn *conn, *tmp;

	/* After this no handler runs for the listener: the list is ours. */
	if (l->id)
		rdma_destroy_id(l->id);
	l->id = NULL;
	list_for_each_entry_safe(conn, tmp, &l->conns, node) {
		list_del(&conn->node);
		ch_conn_destroy(conn);
	}
	if (l->cq)
		ib_free_cq(l->cq);
	l->cq = NULL;
	if (l->pd)
		ib_dealloc_pd(l->pd);
	l->pd = NULL;
}

/* Active rdma_cm ids. */

static int ch_client_start(struct ch_client *c, const char *name,
			   const struct sockaddr_storage *dst)
{
	const unsigned long bad = BIT(RDMA_CM_EVENT_ADDR_ERROR) |
				  BIT(RDMA_CM_EVENT_ROUTE_ERROR);
	struct rdma_cm_id *id;
	int ret;

	c->kind = CH_CLIENT;
	c->name = name;
	id = rdma_create_id(&init_net, ch_cm_handler, c, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		pr_err("FAIL: %s: rdma_create_id: %ld\n", name, PTR_ERR(id));
		return PTR_ERR(id);
	}
	c->id = id;

	ret = rdma_resolve_addr(id, NULL, (const struct sockaddr *)dst,
				CH_RESOLVE_MS);
	if (ret) {
		pr_err("FAIL: %s: rdma_resolve_addr %pISc: %d\n", name, dst,
		       ret);
		return ret;
	}
	ret = ch_wait_event(name, &c->ev, RDMA_CM_EVENT_ADDR_RESOLVED, bad);
	if (ret)
		return ret;
	ret = rdma_resolve_route(id, CH_RESOLVE_MS);
	if (ret) {
		pr_err("FAIL: %s: rdma_resolve_route: %d\n", name, ret);
		return ret;
	}
	ret = ch_wait_event(name, &c->ev, RDMA_CM_EVENT_ROUTE_RESOLVED, bad);
	if (ret)
		return ret;

	c->pd = ib_alloc_pd(id->device, 0);
	if (IS_ERR(c->pd)) {
		ret = PTR_ERR(c->pd);
		c->pd = NULL;
		pr_err("FAIL: %s: ib_alloc_pd: %d\n", name, ret);
		return ret;
	}
	c->cq = ib_alloc_cq(id->device, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(c->cq)) {
		ret = PTR_ERR(c->cq);
		c->cq = NULL;
		pr_err("FAIL: %s: ib_alloc_cq: %d\n", name, ret);
		return ret;
	}
	return 0;
}

static void ch_client_stop(struct ch_client *c)
{
	if (c->has_qp)
		rdma_destroy_qp(c->id);
	c->has_qp = false;
	if (c->id)
		rdma_destroy_id(c->id);
	c->id = NULL;
	if (c->cq)
		ib_free_cq(c->cq);
	c->cq = NULL;
	if (c->pd)
		ib_dealloc_pd(c->pd);
	c->pd = NULL;
}

/*
 * A normal rdma_cm client connects to the listener, which accepts; the
 * client disconnects, the server answers.
 */
static int ch_good_client(struct ch_ctx *ctx, const char *name)
{
	const unsigned long bad = BIT(RDMA_CM_EVENT_REJECTED) |
				  BIT(RDMA_CM_EVENT_UNREACHABLE) |
				  BIT(RDMA_CM_EVENT_CONNECT_ERROR) |
				  BIT(RDMA_CM_EVENT_DISCONNECTED);
	struct rdma_conn_param param = {};
	struct ib_qp_init_attr attr;
	struct ch_conn *conn = NULL;
	struct ch_client *c;
	u8 pdata[CH_USER_LEN];
	int ret;

	pr_info("case %s: a normal rdma_cm client connects\n", name);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ch_set_policy(&ctx->l, CH_ACCEPT);

	ret = ch_client_start(c, name, &ctx->addr);
	if (ret)
		goto out;
	ch_qp_attr(&attr, c->cq);
	ret = rdma_create_qp(c->id, c->pd, &attr);
	if (ret) {
		pr_err("FAIL: %s: rdma_create_qp: %d\n", name, ret);
		goto out;
	}
	c->has_qp = true;

	memset(pdata, 0x3c, sizeof(pdata));
	param.private_data = pdata;
	param.private_data_len = sizeof(pdata);
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 6;
	param.rnr_retry_count = 6;
	ret = rdma_connect(c->id, &param);
	if (ret) {
		pr_err("FAIL: %s: rdma_connect: %d\n", name, ret);
		goto out;
	}
	ret = ch_wait_event(name, &c->ev, RDMA_CM_EVENT_ESTABLISHED, bad);
	if (ret)
		goto out;
	conn = ch_take(&ctx->l);
	if (!conn) {
		ret = -ETIMEDOUT;
		goto out;
	}
	ret = ch_wait_event("its accepted id", &conn->ev,
			    RDMA_CM_EVENT_ESTABLISHED, bad);
	if (ret)
		goto out;

	ret = rdma_disconnect(c->id);
	if (ret) {
		pr_err("FAIL: %s: rdma_disconnect: %d\n", name, ret);
		goto out;
	}
	ret = ch_wait_event("its accepted id", &conn->ev,
			    RDMA_CM_EVENT_DISCONNECTED, 0);
	if (ret)
		goto out;
	ret = rdma_disconnect(conn->id);
	if (ret) {
		pr_err("FAIL: %s: the accepted id's rdma_disconnect: %d\n",
		       name, ret);
		goto out;
	}
	ret = ch_wait_event(name, &c->ev, RDMA_CM_EVENT_DISCONNECTED, 0);
out:
	if (conn)
		ch_conn_destroy(conn);
	ch_client_stop(c);
	kfree(c);
	ch_set_policy(&ctx->l, CH_REJECT);
	pr_info("result: %s: %s\n", name, ret ? "FAIL" : "connected");
	return ret;
}

/* The hostile peer. */

static int ch_raw_handler(struct ib_cm_id *cm, const struct ib_cm_event *ev)
{
	struct ch_raw *r = cm->context;

	spin_lock(&ch_lock);
	r->seen |= BIT(ev->event);
	switch (ev->event) {
	case IB_CM_REJ_RECEIVED:
		r->rej_reason = ev->param.rej_rcvd.reason;
		if (ev->private_data)
			memcpy(&r->rej, ev->private_data, sizeof(r->rej));
		break;
	case IB_CM_REP_RECEIVED:
		r->rep_qpn = ev->param.rep_rcvd.remote_qpn;
		if (ev->private_data)
			memcpy(&r->rep, ev->private_data, sizeof(r->rep));
		break;
	case IB_CM_SIDR_REP_RECEIVED:
		r->sidr_status = ev->param.sidr_rep_rcvd.status;
		if (ev->private_data)
			memcpy(&r->sidr, ev->private_data, sizeof(r->sidr));
		break;
	default:
		break;
	}
	wake_up_all(&ch_wq);
	spin_unlock(&ch_lock);

	if (ev->event == IB_CM_REJ_RECEIVED)
		ch_info("%s: REJ_RECEIVED, reason %d (%s)\n", r->name,
			ev->param.rej_rcvd.reason,
			ibcm_reject_msg(ev->param.rej_rcvd.reason));
	else
		ch_info("%s: %s\n", r->name, ch_ib_event_name(ev->event));
	/* The id is ours to destroy: never let the IB CM do it. */
	return 0;
}

static struct ch_raw *ch_raw_open(struct ch_ctx *ctx, const char *name)
{
	struct ib_qp_init_attr attr;
	struct ch_raw *r;
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->name = name;
	ch_qp_attr(&attr, ctx->route.cq);
	r->qp = ib_create_qp(ctx->route.pd, &attr);
	if (IS_ERR(r->qp)) {
		ret = PTR_ERR(r->qp);
		pr_err("FAIL: %s: ib_create_qp: %d\n", name, ret);
		kfree(r);
		return ERR_PTR(ret);
	}
	r->cm = ib_create_cm_id(ctx->route.id->device, ch_raw_handler, r);
	if (IS_ERR(r->cm)) {
		ret = PTR_ERR(r->cm);
		pr_err("FAIL: %s: ib_create_cm_id: %d\n", name, ret);
		ib_destroy_qp(r->qp);
		kfree(r);
		return ERR_PTR(ret);
	}
	return r;
}

static void ch_raw_close(struct ch_raw *r)
{
	if (IS_ERR_OR_NULL(r))
		return;
	/* Waits for a running handler; sends a REJ if still connecting. */
	ib_destroy_cm_id(r->cm);
	ib_destroy_qp(r->qp);
	kfree(r);
}

static int ch_raw_send(struct ch_ctx *ctx, struct ch_raw *r,
		       const struct ch_req *q)
{
	struct rdma_cm_id *route = ctx->route.id;
	struct ib_cm_req_param p = {};
	int ret;

	r->path = route->route.path_rec[0];
	r->path.packet_life_time = q->lifetime;
	p.primary_path = &r->path;
	p.ppath_sgid_attr = route->route.addr.dev_addr.sgid_attr;
	p.service_id = q->sid;
	p.qp_num = r->qp->qp_num;
	p.qp_type = q->qp_type;
	p.starting_psn = get_random_u32() & 0xffffff;
	p.private_data = q->len ? q->pdata : NULL;
	p.private_data_len = q->len;
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.remote_cm_response_timeout = q->response;
	p.local_cm_response_timeout = q->local;
	p.retry_count = 6;
	p.rnr_retry_count = 6;
	p.max_cm_retries = q->retries;
	ret = ib_send_cm_req(r->cm, &p);
	ch_info("%s: REQ with %u bytes of private data, service ID %#llx, QP %u: %d\n",
		r->name, q->len, be64_to_cpu(q->sid), r->qp->qp_num, ret);
	return ret;
}

enum ch_outcome {
	CH_NO_ANSWER,
	CH_REJ_OTHER,
	CH_REJ_LISTENER,
	CH_REP,
	CH_TIMED_OUT,
};

static const char *const ch_outcome_names[] = {
	[CH_NO_ANSWER] = "no answer",
	[CH_REJ_OTHER] = "REJ, not from the listener",
	[CH_REJ_LISTENER] = "REJ from the listener",
	[CH_REP] = "REP",
	[CH_TIMED_OUT] = "REQ timed out",
};

static enum ch_outcome ch_raw_outcome(struct ch_raw *r)
{
	const unsigned long mask = BIT(IB_CM_REJ_RECEIVED) |
				   BIT(IB_CM_REP_RECEIVED) |
				   BIT(IB_CM_REQ_ERROR);
	enum ch_outcome out = CH_NO_ANSWER;
	unsigned long got;

	got = ch_wait(&r->seen, mask, CH_WAIT_MS);
	spin_lock(&ch_lock);
	if (got & BIT(IB_CM_REP_RECEIVED))
		out = CH_REP;
	else if (got & BIT(IB_CM_REJ_RECEIVED))
		out = ch_marked(&r->rej) ? CH_REJ_LISTENER : CH_REJ_OTHER;
	else if (got & BIT(IB_CM_REQ_ERROR))
		out = CH_TIMED_OUT;
	spin_unlock(&ch_lock);
	return out;
}

static int ch_rej_reason(struct ch_raw *r)
{
	int reason;

	spin_lock(&ch_lock);
	reason = r->rej_reason;
	spin_unlock(&ch_lock);
	return reason;
}

/* A REQ with a good header and @user bytes of data after it. */
static void ch_put_addr(u8 *slot, const struct sockaddr_storage *ss)
{
	memset(slot, 0, 16);
	if (ss->ss_family == AF_INET)
		memcpy(slot + 12, &((const struct sockaddr_in *)ss)->sin_addr,
		       4);
	else
		memcpy(slot, &((const struct sockaddr_in6 *)ss)->sin6_addr,
		       16);
}

static void ch_put_hdr(u8 *buf, const struct sockaddr_storage *src,
		       const struct sockaddr_storage *dst)
{
	__be16 port = htons(ch_port_of(src));

	buf[CH_OFF_VERSION] = 0;
	buf[CH_OFF_IPVER] = (src->ss_family == AF_INET ? 4 : 6) << 4;
	memcpy(buf + CH_OFF_PORT, &port, sizeof(port));
	ch_put_addr(buf + CH_OFF_SRC, src);
	ch_put_addr(buf + CH_OFF_DST, dst);
}

static void ch_req_init(struct ch_ctx *ctx, struct ch_req *q, u8 user)
{
	unsigned int i;

	memset(q, 0, sizeof(*q));
	ch_put_hdr(q->pdata, &ctx->src, &ctx->addr);
	for (i = CH_HDR_LEN; i < sizeof(q->pdata); i++)
		q->pdata[i] = (u8)(0xa5 + 29 * i);
	q->len = CH_HDR_LEN + user;
	q->sid = ch_sid(CH_PS_TCP, ctx->port);
	q->qp_type = IB_QPT_RC;
	q->lifetime = CH_LIFETIME;
	q->response = CH_RESPONSE;
	q->local = CH_RESPONSE;
	q->retries = CH_RETRIES;
}

/* The user data the listener saw must be what followed the header. */
static int ch_check_data(struct ch_listener *l, const char *name,
			 const struct ch_req *q)
{
	unsigned int n = q->len - CH_HDR_LEN, len, i;
	u8 got[CH_USER_MAX];
	bool has;

	spin_lock(&ch_lock);
	has = l->last.has_pdata;
	len = min_t(unsigned int, l->last.pdata_len, CH_USER_MAX);
	memcpy(got, l->last.pdata, sizeof(got));
	spin_unlock(&ch_lock);

	if (!has || len < n) {
		pr_err("FAIL: %s: the listener got %u bytes of private data%s, sent %u\n",
		       name, len, has ? "" : " (NULL)", n);
		return -EPROTO;
	}
	for (i = 0; i < len; i++) {
		u8 want = i < n ? q->pdata[CH_HDR_LEN + i] : 0;

		if (got[i] != want) {
			pr_err("FAIL: %s: byte %u of the listener's private data is %#x, expected %#x\n",
			       name, i, got[i], want);
			return -EPROTO;
		}
	}
	ch_info("ok: %s: the listener got the %u bytes after the header, then %u zeros\n",
		name, n, len - n);
	return 0;
}

/**
 * enum ch_expect - what a hostile REQ should come to
 * @CH_REFUSED: a REJ, and no CONNECT_REQUEST for any listener
 * @CH_REFUSED_STRICT: the same, but only reported without strict=1
 * @CH_DELIVERED: a CONNECT_REQUEST, with the data after the header
 * @CH_REPORT: anything; only reported
 */
enum ch_expect {
	CH_REFUSED,
	CH_REFUSED_STRICT,
	CH_DELIVERED,
	CH_REPORT,
};

static int ch_judge(struct ch_ctx *ctx, const char *name, struct ch_raw *r,
		    enum ch_outcome out, unsigned int n, enum ch_expect expect,
		    int reason)
{
	int got = out == CH_REJ_OTHER || out == CH_REJ_LISTENER ?
		  ch_rej_reason(r) : 0;
	bool ok;

	ch_info("result: %s: %s%s%s%s, %u CONNECT_REQUEST\n", name,
		ch_outcome_names[out], got ? " (" : "",
		got ? ibcm_reject_msg(got) : "", got ? ")" : "", n);

	switch (expect) {
	case CH_DELIVERED:
		ok = out == CH_REJ_LISTENER && n == 1;
		break;
	case CH_REFUSED:
	case CH_REFUSED_STRICT:
		ok = out == CH_REJ_OTHER && !n && (!reason || got == reason);
		break;
	default:
		return 0;
	}
	if (ok)
		return 0;
	if (expect == CH_REFUSED_STRICT && !ctx->strict) {
		pr_info("not strict: %s: refused would be right, the in-box CM gave %s, %u CONNECT_REQUEST\n",
			name, ch_outcome_names[out], n);
		return 0;
	}
	if (READ_ONCE(ch_quiet))
		pr_err("result: %s: %s (reason %d), %u CONNECT_REQUEST\n",
		       name, ch_outcome_names[out], got, n);
	pr_err("FAIL: %s: expected %s\n", name,
	       expect == CH_DELIVERED ?
	       "a CONNECT_REQUEST and the listener's REJ" :
	       reason ? "a REJ for the service ID" :
	       "a REJ and no CONNECT_REQUEST");
	return -EPROTO;
}

/*
 * Send one REQ from a fresh IB CM id and judge what comes back; with a
 * listener @l, a delivered REQ's data after the header is checked too.
 */
static int ch_one(struct ch_ctx *ctx, const char *name, const struct ch_req *q,
		  enum ch_expect expect, int reason, struct ch_listener *l)
{
	enum ch_outcome out;
	unsigned int before;
	struct ch_raw *r;
	int ret;

	r = ch_raw_open(ctx, name);
	if (IS_ERR(r))
		return PTR_ERR(r);
	before = ch_requests(ctx);
	ret = ch_raw_send(ctx, r, q);
	if (ret) {
		pr_err("FAIL: %s: ib_send_cm_req: %d\n", name, ret);
		goto out;
	}
	out = ch_raw_outcome(r);
	ret = ch_judge(ctx, name, r, out, ch_requests(ctx) - before, expect,
		       reason);
	if (!ret && expect == CH_DELIVERED && l)
		ret = ch_check_data(l, name, q);
out:
	ch_raw_close(r);
	return ret;
}

/* The single-REQ cases: a good REQ with one thing wrong. */

static void ch_mut_version(struct ch_ctx *ctx, struct ch_req *q)
{
	q->pdata[CH_OFF_VERSION] = 1;
}

static void ch_mut_ipver5(struct ch_ctx *ctx, struct ch_req *q)
{
	q->pdata[CH_OFF_IPVER] = 5 << 4;
}

static void ch_mut_ipver0(struct ch_ctx *ctx, struct ch_req *q)
{
	q->pdata[CH_OFF_IPVER] = 0;
}

static void ch_mut_src_pad(struct ch_ctx *ctx, struct ch_req *q)
{
	memset(q->pdata + CH_OFF_SRC, 0x5a, 12);
}

static void ch_mut_dst_pad(struct ch_ctx *ctx, struct ch_req *q)
{
	memset(q->pdata + CH_OFF_DST, 0x5a, 12);
}

static void ch_mut_dst_other(struct ch_ctx *ctx, struct ch_req *q)
{
	q->pdata[CH_OFF_DST + 15] ^= 0x08;
}

static void ch_mut_src_other(struct ch_ctx *ctx, struct ch_req *q)
{
	q->pdata[CH_OFF_SRC + 15] ^= 0x4c;
}

static void ch_mut_src_unroutable(struct ch_ctx *ctx, struct ch_req *q)
{
	struct sockaddr_storage src;

	/* Documentation addresses: no route leads there. */
	ch_parse(ctx->addr.ss_family == AF_INET ? "192.0.2.1" : "2001:db8::1",
		 ch_port_of(&ctx->src), &src);
	ch_put_hdr(q->pdata, &src, &ctx->addr);
}

/* A neighbour on the subnet of a netdev the REQ does not arrive on. */
static void ch_mut_src_foreign(struct ch_ctx *ctx, struct ch_req *q)
{
	struct sockaddr_storage src = ctx->foreign;

	ch_set_port(&src, ch_port_of(&ctx->src));
	ch_put_hdr(q->pdata, &src, &ctx->addr);
	q->pdata[CH_OFF_SRC + 15] ^= 0x06;
}

/* An address of this host, but of a netdev the REQ does not arrive on. */
static void ch_mut_dst_foreign(struct ch_ctx *ctx, struct ch_req *q)
{
	ch_put_hdr(q->pdata, &ctx->src, &ctx->foreign);
}

static void ch_mut_src_loopback(struct ch_ctx *ctx, struct ch_req *q)
{
	struct sockaddr_storage src;

	ch_parse(ctx->addr.ss_family == AF_INET ? "127.0.0.1" : "::1",
		 ch_port_of(&ctx->src), &src);
	ch_put_hdr(q->pdata, &src, &ctx->addr);
}

static void ch_mut_mapped(struct ch_ctx *ctx, struct ch_req *q)
{
	/* An IPv6 header with ::ffff:a.b.c.d, whose GID is the same. */
	q->pdata[CH_OFF_IPVER] = 6 << 4;
	memset(q->pdata + CH_OFF_SRC + 10, 0xff, 2);
	memset(q->pdata + CH_OFF_DST + 10, 0xff, 2);
}

static void ch_mut_other_family(struct ch_ctx *ctx, struct ch_req *q)
{
	struct sockaddr_storage src = ctx->other;

	ch_set_port(&src, ch_port_of(&ctx->src));
	ch_put_hdr(q->pdata, &src, &ctx->other);
}

static void ch_mut_sid_port(struct ch_ctx *ctx, struct ch_req *q)
{
	q->sid = ch_sid(CH_PS_TCP, ctx->port + 2);
}

static void ch_mut_sid_udp(struct ch_ctx *ctx, struct ch_req *q)
{
	q->sid = ch_sid(CH_PS_UDP, ctx->port);
}

static void ch_mut_uc(struct ch_ctx *ctx, struct ch_req *q)
{
	q->qp_type = IB_QPT_UC;
}

static void ch_mut_none(struct ch_ctx *ctx, struct ch_req *q)
{
}

/**
 * struct ch_case - one hostile REQ
 * @name: for the log
 * @mutate: what is wrong with it
 * @expect: what it should come to
 * @family: run only when the listener is of this family, if not 0
 * @wild: sent to the wildcard listener's port, not the listener's
 * @needs_other: run only with the other=... parameter
 * @reason: the REJ reason expected, if not 0
 * @origin: a case of where the request comes from (run with origin_only)
 * @needs_foreign: run only with the foreign=... parameter
 * @unroutable: our CM counts it as a request that could not have come
 *	through its netdev
 */
struct ch_case {
	const char *name;
	void (*mutate)(struct ch_ctx *ctx, struct ch_req *q);
	enum ch_expect expect;
	sa_family_t family;
	bool wild;
	bool needs_other;
	int reason;
	bool origin;
	bool needs_foreign;
	bool unroutable;
};

static const struct ch_case ch_cases[] = {
	{ "version 1", ch_mut_version, CH_REFUSED },
	{ "IP version 5", ch_mut_ipver5, CH_REFUSED },
	{ "IP version 0", ch_mut_ipver0, CH_REFUSED },
	{ "IPv4 source with junk in the 12 zero bytes", ch_mut_src_pad,
	  CH_REFUSED_STRICT, AF_INET },
	{ "IPv4 destination with junk in the 12 zero bytes", ch_mut_dst_pad,
	  CH_REFUSED_STRICT, AF_INET },
	{ "destination not the listener's address", ch_mut_dst_other,
	  CH_REFUSED, .origin = true, .unroutable = true },
	{ "IPv6 header with the v4-mapped addresses", ch_mut_mapped,
	  CH_REFUSED, AF_INET, .unroutable = true },
	{ "header of the other family", ch_mut_other_family, CH_REFUSED, 0,
	  false, true, .unroutable = true },
	{ "wildcard listener, good header", ch_mut_none, CH_DELIVERED, 0,
	  true, .origin = true },
	{ "wildcard listener, destination no GID of the device",
	  ch_mut_dst_other, CH_REFUSED, 0, true, .origin = true,
	  .unroutable = true },
	{ "wildcard listener, destination on another netdev",
	  ch_mut_dst_foreign, CH_REFUSED, 0, true, .origin = true,
	  .needs_foreign = true, .unroutable = true },
	{ "wildcard listener, header of the other family", ch_mut_other_family,
	  CH_REFUSED_STRICT, 0, true, true, .unroutable = true },
	/* On the netdev's own subnet: a route leads there, as in-box. */
	{ "source address not the sender's, on the netdev's subnet",
	  ch_mut_src_other, CH_DELIVERED, .origin = true },
	{ "source address unroutable", ch_mut_src_unroutable, CH_REFUSED,
	  .origin = true, .unroutable = true },
	{ "source address routed through another netdev", ch_mut_src_foreign,
	  CH_REFUSED, .origin = true, .needs_foreign = true,
	  .unroutable = true },
	{ "loopback source address", ch_mut_src_loopback, CH_REFUSED,
	  .origin = true, .unroutable = true },
	{ "service ID of a port nobody listens on", ch_mut_sid_port,
	  CH_REFUSED, 0, false, false, IB_CM_REJ_INVALID_SERVICE_ID },
	{ "service ID in the UDP port space", ch_mut_sid_udp, CH_REFUSED, 0,
	  false, false, IB_CM_REJ_INVALID_SERVICE_ID },
	{ "UC REQ to an RC listener", ch_mut_uc, CH_REFUSED },
};

static int ch_run_cases(struct ch_ctx *ctx)
{
	const struct ch_case *c;
	struct ch_req *q;
	unsigned int i;
	int ret;

	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(ch_cases); i++) {
		c = &ch_cases[i];
		if ((c->family && c->family != ctx->addr.ss_family) ||
		    (c->needs_other && ctx->other.ss_family == AF_UNSPEC) ||
		    (c->needs_foreign &&
		     ctx->foreign.ss_family == AF_UNSPEC) ||
		    (origin_only && !c->origin)) {
			pr_info("case %s: skipped here\n", c->name);
			continue;
		}
		ctx->unroutable += c->unroutable;
		pr_info("case %s\n", c->name);
		ch_req_init(ctx, q, CH_USER_LEN);
		if (c->wild)
			q->sid = ch_sid(CH_PS_TCP, ctx->port + 1);
		c->mutate(ctx, q);
		ret = ch_one(ctx, c->name, q, c->expect, c->reason,
			     c->wild ? &ctx->wild : &ctx->l);
		if (ret)
			ctx->failed++;
	}
	kfree(q);
	return 0;
}

/*
 * Private data of every length a REQ can carry, and one more: too short
 * for the header is refused; from the header on, the listener gets what
 * followed it; 93 bytes the IB CM does not send at all.
 */
static int ch_run_lengths(struct ch_ctx *ctx)
{
	unsigned int len, refused = 0, delivered = 0, failed = 0;
	char name[32];
	struct ch_req *q;
	int ret;

	pr_info("case private data of every length, 0 to %u\n", CH_REQ_MAX);
	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	WRITE_ONCE(ch_quiet, true);
	for (len = 0; len <= CH_REQ_MAX; len++) {
		snprintf(name, sizeof(name), "private data of %u bytes", len);
		ch_req_init(ctx, q, CH_USER_MAX);
		q->len = len;
		if (len < CH_HDR_LEN) {
			ret = ch_one(ctx, name, q, CH_REFUSED, 0, &ctx->l);
			refused += !ret;
		} else {
			ret = ch_one(ctx, name, q, CH_DELIVERED, 0, &ctx->l);
			delivered += !ret;
		}
		/*
		 * A header cut short after its IP version decodes with a
		 * destination that is no GID of the device: our CM drops
		 * it for its origin.
		 */
		ctx->unroutable += len > CH_OFF_IPVER && len < CH_HDR_LEN;
		if (ret && ++failed >= CH_MAX_FAILED_LENGTHS) {
			pr_err("FAIL: %u lengths failed, giving up on the rest\n",
			       failed);
			break;
		}
	}
	WRITE_ONCE(ch_quiet, false);
	pr_info("result: lengths 0-%u: %u of %u refused; lengths %u-%u: %u of %u delivered with their data\n",
		CH_HDR_LEN - 1, refused, CH_HDR_LEN, CH_HDR_LEN, CH_REQ_MAX,
		delivered, CH_REQ_MAX + 1 - CH_HDR_LEN);
	ctx->failed += failed;

	/* One byte more than a REQ holds: the IB CM itself says no. */
	ret = -ENOMEM;
	if (failed < CH_MAX_FAILED_LENGTHS) {
		struct ch_raw *r = ch_raw_open(ctx, "93 bytes");

		if (!IS_ERR(r)) {
			ch_req_init(ctx, q, CH_USER_MAX);
			q->len = CH_REQ_MAX + 1;
			ret = ch_expect_ret("ib_send_cm_req with 93 bytes",
					    ch_raw_send(ctx, r, q), -EINVAL);
			ch_raw_close(r);
		}
		if (ret)
			ctx->failed++;
	}
	kfree(q);
	return 0;
}

/*
 * The same IB CM id sends its REQ twice: the second is refused locally,
 * and the listener sees one request.  A DREQ before any answer is refused
 * too, and again after the REJ.
 */
static int ch_dup_same_id(struct ch_ctx *ctx)
{
	const char *name = "duplicate REQ on one IB CM id";
	unsigned int before, n;
	enum ch_outcome out;
	struct ch_raw *r;
	struct ch_req *q;
	int ret;

	pr_info("case %s\n", name);
	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	r = ch_raw_open(ctx, name);
	if (IS_ERR(r)) {
		kfree(q);
		return PTR_ERR(r);
	}
	ch_req_init(ctx, q, CH_USER_LEN);
	before = ch_requests(ctx);
	ret = ch_expect_ret("the first REQ", ch_raw_send(ctx, r, q), 0);
	if (ret)
		goto out;
	ret = ch_expect_ret("the same REQ again", ch_raw_send(ctx, r, q),
			    -EINVAL) ?:
	      ch_expect_ret("a DREQ before any answer",
			    ib_send_cm_dreq(r->cm, NULL, 0), -EINVAL);
	out = ch_raw_outcome(r);
	ret = ch_judge(ctx, name, r, out, ch_requests(ctx) - before,
		       CH_DELIVERED, 0) ?: ret;
	ret = ch_expect_ret("a DREQ after the REJ",
			    ib_send_cm_dreq(r->cm, NULL, 0), -EINVAL) ?: ret;
	msleep(CH_QUIET_MS);
	n = ch_requests(ctx) - before;
	if (n != 1) {
		pr_err("FAIL: %s: %u CONNECT_REQUEST in the end\n", name, n);
		ret = -EPROTO;
	}
out:
	ch_raw_close(r);
	kfree(q);
	return ret;
}

/*
 * Two IB CM ids send the same header (same source port) at once, each
 * with a QP of its own: two requests as far as the IB CM can tell.  The
 * listener must see and answer each.
 */
static int ch_dup_twins(struct ch_ctx *ctx)
{
	const char *name = "two REQs with one header";
	struct ch_raw *r[2] = {};
	enum ch_outcome out[2];
	unsigned int before, i;
	struct ch_req *q;
	int ret = 0;

	pr_info("case %s\n", name);
	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(r); i++) {
		r[i] = ch_raw_open(ctx, i ? "twin 2" : "twin 1");
		if (IS_ERR(r[i])) {
			ret = PTR_ERR(r[i]);
			goto out;
		}
	}
	ch_req_init(ctx, q, CH_USER_LEN);
	before = ch_requests(ctx);
	for (i = 0; i < ARRAY_SIZE(r) && !ret; i++)
		ret = ch_expect_ret("a twin's REQ", ch_raw_send(ctx, r[i], q),
				    0);
	if (ret)
		goto out;
	for (i = 0; i < ARRAY_SIZE(r); i++)
		out[i] = ch_raw_outcome(r[i]);
	msleep(CH_QUIET_MS);
	pr_info("result: %s: %s and %s, %u CONNECT_REQUEST\n", name,
		ch_outcome_names[out[0]], ch_outcome_names[out[1]],
		ch_requests(ctx) - before);
	if (out[0] != CH_REJ_LISTENER || out[1] != CH_REJ_LISTENER ||
	    ch_requests(ctx) - before != 2 || r[0]->rej.nr == r[1]->rej.nr) {
		pr_err("FAIL: %s: expected two requests, each answered\n",
		       name);
		ret = -EPROTO;
	}
out:
	for (i = 0; i < ARRAY_SIZE(r); i++)
		ch_raw_close(r[i]);
	kfree(q);
	return ret;
}

/*
 * A REQ resent every 130 ms while the listener's handler sits on the
 * first copy: the copies that reach the IB CM are duplicates of a request
 * in progress and must not become requests of their own.  The CM answers
 * the held request with an MRA, which stops the resending; the listener
 * then rejects it.
 */
static int ch_dup_resent(struct ch_ctx *ctx)
{
	const char *name = "REQ resent while the listener holds it";
	const unsigned long mask = BIT(IB_CM_MRA_RECEIVED) |
				   BIT(IB_CM_REJ_RECEIVED) |
				   BIT(IB_CM_REP_RECEIVED) |
				   BIT(IB_CM_REQ_ERROR);
	struct ch_conn *conn = NULL;
	unsigned int before, n;
	enum ch_outcome out;
	struct ch_marker m;
	unsigned long got;
	struct ch_raw *r;
	struct ch_req *q;
	int ret;

	pr_info("case %s\n", name);
	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	r = ch_raw_open(ctx, name);
	if (IS_ERR(r)) {
		kfree(q);
		return PTR_ERR(r);
	}
	ch_req_init(ctx, q, CH_USER_LEN);
	q->lifetime = CH_FAST_LIFETIME;
	q->response = CH_FAST_RESPONSE;
	q->retries = CH_FAST_RETRIES;
	ch_set_policy(&ctx->l, CH_HOLD);
	before = ch_requests(ctx);
	ret = ch_expect_ret("the REQ", ch_raw_send(ctx, r, q), 0);
	if (ret)
		goto out;
	got = ch_wait(&r->seen, mask, CH_WAIT_MS);
	if (!(got & BIT(IB_CM_MRA_RECEIVED))) {
		pr_err("FAIL: %s: events %#lx, no MRA\n", name, got);
		ret = -EPROTO;
	}
	conn = ch_take(&ctx->l);
	if (!conn) {
		ret = -ETIMEDOUT;
		goto out;
	}
	msleep(CH_QUIET_MS);
	n = ch_requests(ctx) - before;

	ch_marker_set(&m, n);
	rdma_lock_handler(conn->id);
	ret = ch_expect_ret("rdma_reject of the held request",
			    rdma_reject(conn->id, &m, sizeof(m),
					IB_CM_REJ_CONSUMER_DEFINED), 0) ?: ret;
	rdma_unlock_handler(conn->id);
	out = ch_raw_outcome(r);
	ret = ch_judge(ctx, name, r, out, n, CH_DELIVERED, 0) ?: ret;
out:
	ch_set_policy(&ctx->l, CH_REJECT);
	if (conn)
		ch_conn_destroy(conn);
	ch_raw_close(r);
	kfree(q);
	return ret;
}

/* Calls that need a connection, on an IB CM id that never had one. */
static int ch_no_conn(struct ch_ctx *ctx)
{
	struct ch_raw *r;
	int ret;

	pr_info("case DREQ, DREP and RTU for no connection\n");
	r = ch_raw_open(ctx, "no connection");
	if (IS_ERR(r))
		return PTR_ERR(r);
	ret = ch_expect_ret("ib_send_cm_dreq on a new IB CM id",
			    ib_send_cm_dreq(r->cm, NULL, 0), -EINVAL) ?:
	      ch_expect_ret("ib_send_cm_drep on a new IB CM id",
			    ib_send_cm_drep(r->cm, NULL, 0), -EINVAL) ?:
	      ch_expect_ret("ib_send_cm_rtu on a new IB CM id",
			    ib_send_cm_rtu(r->cm, NULL, 0), -EINVAL);
	ch_raw_close(r);
	pr_info("result: DREQ, DREP and RTU for no connection: %s\n",
		ret ? "FAIL" : "refused locally");
	return ret;
}

/* A good REQ the listener accepts: REP with its marker and QP. */
static int ch_accepted(struct ch_ctx *ctx, const char *name,
		       struct ch_raw *r, const struct ch_req *q,
		       struct ch_conn **connp)
{
	enum ch_outcome out;
	struct ch_conn *conn;
	u32 qpn;
	int ret;

	ret = ch_expect_ret("the REQ", ch_raw_send(ctx, r, q), 0);
	if (ret)
		return ret;
	out = ch_raw_outcome(r);
	if (out != CH_REP) {
		pr_err("FAIL: %s: %s instead of a REP\n", name,
		       ch_outcome_names[out]);
		return -EPROTO;
	}
	conn = ch_take(&ctx->l);
	if (!conn)
		return -ETIMEDOUT;
	*connp = conn;

	spin_lock(&ch_lock);
	qpn = r->rep_qpn;
	ret = ch_marked(&r->rep) ? 0 : -EPROTO;
	spin_unlock(&ch_lock);
	if (ret) {
		pr_err("FAIL: %s: the REP lacks the listener's private data\n",
		       name);
		return ret;
	}
	if (qpn != conn->id->qp->qp_num) {
		pr_err("FAIL: %s: the REP names QP %u, the listener's is %u\n",
		       name, qpn, conn->id->qp->qp_num);
		return -EPROTO;
	}
	pr_info("ok: %s: REP from the listener's QP %u\n", name, qpn);
	return 0;
}

/* After the REP the peer says nothing: the REP times out, UNREACHABLE. */
static int ch_silent_peer(struct ch_ctx *ctx)
{
	const char *name = "no RTU after the REP";
	const unsigned long bad = BIT(RDMA_CM_EVENT_ESTABLISHED) |
				  BIT(RDMA_CM_EVENT_REJECTED) |
				  BIT(RDMA_CM_EVENT_CONNECT_ERROR) |
				  BIT(RDMA_CM_EVENT_DISCONNECTED);
	struct ch_conn *conn = NULL;
	struct ch_raw *r;
	struct ch_req *q;
	int ret;

	pr_info("case %s\n", name);
	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	r = ch_raw_open(ctx, name);
	if (IS_ERR(r)) {
		kfree(q);
		return PTR_ERR(r);
	}
	ch_req_init(ctx, q, CH_USER_LEN);
	q->local = CH_SILENT_RESPONSE;
	ch_set_policy(&ctx->l, CH_ACCEPT);
	ret = ch_accepted(ctx, name, r, q, &conn);
	if (!ret)
		ret = ch_wait_event("the accepted id", &conn->ev,
				    RDMA_CM_EVENT_UNREACHABLE, bad);
	if (!ret)
		pr_info("result: %s: the listener got UNREACHABLE, status %d\n",
			name, ch_status(&conn->ev, RDMA_CM_EVENT_UNREACHABLE));
	ch_set_policy(&ctx->l, CH_REJECT);
	if (conn)
		ch_conn_destroy(conn);
	ch_raw_close(r);
	kfree(q);
	return ret;
}

/* After the REP the peer rejects: the listener gets REJECTED. */
static int ch_peer_rejects(struct ch_ctx *ctx)
{
	const char *name = "REJ after the REP";
	const unsigned long bad = BIT(RDMA_CM_EVENT_ESTABLISHED) |
				  BIT(RDMA_CM_EVENT_UNREACHABLE) |
				  BIT(RDMA_CM_EVENT_CONNECT_ERROR) |
				  BIT(RDMA_CM_EVENT_DISCONNECTED);
	struct ch_conn *conn = NULL;
	struct ch_marker m;
	struct ch_raw *r;
	struct ch_req *q;
	int ret, status;

	pr_info("case %s\n", name);
	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	r = ch_raw_open(ctx, name);
	if (IS_ERR(r)) {
		kfree(q);
		return PTR_ERR(r);
	}
	ch_req_init(ctx, q, CH_USER_LEN);
	ch_set_policy(&ctx->l, CH_ACCEPT);
	ret = ch_accepted(ctx, name, r, q, &conn);
	if (ret)
		goto out;
	ch_marker_set(&m, 0);
	ret = ch_expect_ret("ib_send_cm_rej after the REP",
			    ib_send_cm_rej(r->cm, IB_CM_REJ_CONSUMER_DEFINED,
					   NULL, 0, &m, sizeof(m)), 0) ?:
	      ch_wait_event("the accepted id", &conn->ev,
			    RDMA_CM_EVENT_REJECTED, bad);
	if (ret)
		goto out;
	status = ch_status(&conn->ev, RDMA_CM_EVENT_REJECTED);
	pr_info("result: %s: the listener got REJECTED, status %d\n", name,
		status);
	if (status != IB_CM_REJ_CONSUMER_DEFINED) {
		pr_err("FAIL: %s: REJECTED status %d, expected %d\n", name,
		       status, IB_CM_REJ_CONSUMER_DEFINED);
		ret = -EPROTO;
	}
out:
	ch_set_policy(&ctx->l, CH_REJECT);
	if (conn)
		ch_conn_destroy(conn);
	ch_raw_close(r);
	kfree(q);
	return ret;
}

/*
 * A good hand-made REQ: the listener sees the header's addresses and the
 * data after it, accepts; RTU, then the peer disconnects with a DREQ.
 */
static int ch_good_raw(struct ch_ctx *ctx)
{
	const char *name = "good hand-made REQ";
	const unsigned long bad = BIT(RDMA_CM_EVENT_REJECTED) |
				  BIT(RDMA_CM_EVENT_UNREACHABLE) |
				  BIT(RDMA_CM_EVENT_CONNECT_ERROR);
	struct sockaddr_storage lsrc, ldst;
	struct ch_conn *conn = NULL;
	unsigned long got;
	struct ch_raw *r;
	struct ch_req *q;
	u32 qpn;
	int ret;

	pr_info("case %s\n", name);
	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	r = ch_raw_open(ctx, name);
	if (IS_ERR(r)) {
		kfree(q);
		return PTR_ERR(r);
	}
	ch_req_init(ctx, q, 20);
	ch_set_policy(&ctx->l, CH_ACCEPT);
	ret = ch_accepted(ctx, name, r, q, &conn) ?:
	      ch_check_data(&ctx->l, name, q);
	if (ret)
		goto out;

	spin_lock(&ch_lock);
	lsrc = ctx->l.last.src;
	ldst = ctx->l.last.dst;
	qpn = ctx->l.last.qp_num;
	spin_unlock(&ch_lock);
	if (!ch_same_addr(&lsrc, &ctx->addr) ||
	    !ch_same_addr(&ldst, &ctx->src) || qpn != r->qp->qp_num) {
		pr_err("FAIL: %s: the listener saw %pISpc from %pISpc QP %u, the REQ said %pISpc from %pISpc QP %u\n",
		       name, &lsrc, &ldst, qpn, &ctx->addr, &ctx->src,
		       r->qp->qp_num);
		ret = -EPROTO;
		goto out;
	}
	pr_info("ok: %s: the listener saw the header's addresses and our QP\n",
		name);

	ret = ch_expect_ret("ib_send_cm_rtu", ib_send_cm_rtu(r->cm, NULL, 0),
			    0) ?:
	      ch_wait_event("the accepted id", &conn->ev,
			    RDMA_CM_EVENT_ESTABLISHED, bad) ?:
	      ch_expect_ret("ib_send_cm_dreq", ib_send_cm_dreq(r->cm, NULL, 0),
			    0) ?:
	      ch_expect_ret("ib_send_cm_dreq again",
			    ib_send_cm_dreq(r->cm, NULL, 0), -EINVAL) ?:
	      ch_wait_event("the accepted id", &conn->ev,
			    RDMA_CM_EVENT_DISCONNECTED, bad) ?:
	      ch_expect_ret("the accepted id's rdma_disconnect",
			    rdma_disconnect(conn->id), 0);
	if (ret)
		goto out;
	got = ch_wait(&r->seen, BIT(IB_CM_DREP_RECEIVED) |
		      BIT(IB_CM_DREQ_ERROR), CH_WAIT_MS);
	if (!(got & BIT(IB_CM_DREP_RECEIVED))) {
		pr_err("FAIL: %s: events %#lx, no DREP\n", name, got);
		ret = -EPROTO;
	}
out:
	pr_info("result: %s: %s\n", name,
		ret ? "FAIL" : "connected and disconnected");
	ch_set_policy(&ctx->l, CH_REJECT);
	if (conn)
		ch_conn_destroy(conn);
	ch_raw_close(r);
	kfree(q);
	return ret;
}

/* AF_IB: a listener on the wildcard GID, rejecting every request. */
static int ch_ib_listen(struct ch_ctx *ctx, struct ch_listener *l)
{
	struct sockaddr_ib sib = {
		.sib_family = AF_IB,
		.sib_pkey = htons(0xffff),
		.sib_sid = ch_sid(CH_PS_TCP, ctx->port + 3),
		.sib_sid_mask = cpu_to_be64(~0ULL),
	};
	int ret;

	l->kind = CH_LISTENER;
	l->name = "AF_IB listener";
	l->policy = CH_REJECT;
	l->id = rdma_create_id(&init_net, ch_cm_handler, l, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(l->id)) {
		ret = PTR_ERR(l->id);
		l->id = NULL;
		pr_err("FAIL: %s: rdma_create_id: %d\n", l->name, ret);
		return ret;
	}
	ret = rdma_bind_addr(l->id, (struct sockaddr *)&sib) ?:
	      rdma_listen(l->id, 16);
	if (ret)
		pr_err("FAIL: %s: bind and listen on service ID %#llx: %d\n",
		       l->name, be64_to_cpu(sib.sib_sid), ret);
	return ret;
}

/*
 * What the AF_IB listener saw: all of the REQ's private data, and AF_IB
 * addresses, ours with the service ID asked for.
 */
static int ch_ib_check(struct ch_ctx *ctx, const char *name,
		       const struct ch_req *q, const struct sa_path_rec *path)
{
	struct ch_request *last = kmalloc(sizeof(*last), GFP_KERNEL);
	struct sockaddr_ib *self, *peer;
	int ret = -EPROTO;

	if (!last)
		return -ENOMEM;
	spin_lock(&ch_lock);
	*last = ctx->ib.last;
	spin_unlock(&ch_lock);
	self = (struct sockaddr_ib *)&last->src;
	peer = (struct sockaddr_ib *)&last->dst;

	if (!last->has_pdata || last->pdata_len != CH_REQ_MAX ||
	    memcmp(last->pdata, q->pdata, CH_USER_MAX))
		pr_err("FAIL: %s: the listener got %u bytes of private data, not the REQ's %u\n",
		       name, last->pdata_len, CH_REQ_MAX);
	else if (self->sib_family != AF_IB || peer->sib_family != AF_IB)
		pr_err("FAIL: %s: the listener's id has families %u and %u\n",
		       name, self->sib_family, peer->sib_family);
	else if (self->sib_sid != q->sid ||
		 memcmp(&self->sib_addr, &path->dgid, 16) ||
		 memcmp(&peer->sib_addr, &path->sgid, 16))
		pr_err("FAIL: %s: the listener's id is %pI6c sid %#llx, its peer %pI6c; the REQ went from %pI6 to %pI6 sid %#llx\n",
		       name, &self->sib_addr, be64_to_cpu(self->sib_sid),
		       &peer->sib_addr, path->sgid.raw, path->dgid.raw,
		       be64_to_cpu(q->sid));
	else
		ret = 0;
	if (!ret)
		ch_info("ok: %s: %u bytes of private data, from %pI6c to %pI6c\n",
			name, last->pdata_len, &peer->sib_addr,
			&self->sib_addr);
	kfree(last);
	return ret;
}

/*
 * One REQ to the AF_IB listener: delivered, and seen as it was sent. The
 * in-box CM takes neither kind on RoCE: with it, only report.
 */
static int ch_ib_one(struct ch_ctx *ctx, const char *name, struct ch_req *q)
{
	pr_info("case %s\n", name);
	if (!ctx->strict)
		return ch_one(ctx, name, q, CH_REPORT, 0, NULL);
	return ch_one(ctx, name, q, CH_DELIVERED, 0, NULL) ?:
	       ch_ib_check(ctx, name, q, ctx->route.id->route.path_rec);
}

/*
 * An AF_IB peer's REQ, whose private data is all its own (here the
 * pattern, whose first byte is no header version), and an IP peer's REQ
 * to the same service ID, which an AF_IB listener takes raw, as in-box.
 */
static int ch_af_ib(struct ch_ctx *ctx)
{
	struct ch_req *q;
	int ret;

	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	ret = ch_ib_listen(ctx, &ctx->ib);
	if (ret)
		goto out;

	ch_req_init(ctx, q, CH_USER_MAX);
	memmove(q->pdata, q->pdata + CH_HDR_LEN, CH_USER_MAX);
	memset(q->pdata + CH_USER_MAX, 0x3c, CH_HDR_LEN);
	q->sid = ch_sid(CH_PS_TCP, ctx->port + 3);
	ret = ch_ib_one(ctx, "AF_IB REQ, no header", q);

	ch_req_init(ctx, q, CH_USER_MAX);
	q->sid = ch_sid(CH_PS_TCP, ctx->port + 3);
	ret = ch_ib_one(ctx, "IP REQ to the AF_IB listener", q) ?: ret;
out:
	pr_info("result: AF_IB listener: %s\n",
		ret ? "FAIL" : ctx->strict ? "both delivered" : "reported");
	ch_unlisten(&ctx->ib);
	kfree(q);
	return ret;
}

/*
 * A request arriving on rxe's netdev, in init_net, is for a listener of
 * init_net: one on the same port in another namespace never sees it, with
 * or without one here beside it.
 */
static int ch_netns_cases(struct ch_ctx *ctx, struct ch_req *q)
{
	struct sockaddr_storage any = {}, here;
	unsigned int n;
	int ret;

	any.ss_family = ctx->addr.ss_family;
	ch_set_port(&any, ctx->port + 4);
	ret = ch_listen(&ctx->there, "listener in another namespace", &any,
			false);
	if (ret)
		return ret;
	pr_info("case request to a port only another namespace listens on\n");
	ch_req_init(ctx, q, CH_USER_LEN);
	q->sid = ch_sid(CH_PS_TCP, ctx->port + 4);
	ret = ch_one(ctx, "request to a port only another namespace listens on",
		     q, CH_REFUSED, IB_CM_REJ_CONSUMER_DEFINED, NULL);

	/* On rxe0 only: siw0's wildcard iWARP listen is taken already. */
	pr_info("case the same request, a listener here too\n");
	here = ctx->addr;
	ch_set_port(&here, ctx->port + 4);
	ret = ch_listen(&ctx->here, "listener here", &here, false) ?:
	      ch_one(ctx, "the same request, a listener here too", q,
		     CH_DELIVERED, 0, &ctx->here) ?: ret;
	spin_lock(&ch_lock);
	n = ctx->there.nr_requests;
	spin_unlock(&ch_lock);
	if (n) {
		pr_err("FAIL: the listener in another namespace got %u requests\n",
		       n);
		ret = -EPROTO;
	}
	return ret;
}

static int ch_netns(struct ch_ctx *ctx)
{
	struct ch_req *q;
	struct net *net;
	int ret;

	if (netns_fd < 0) {
		pr_info("case listener in another namespace: skipped, no netns_fd\n");
		return 0;
	}
	/* Module init runs in insmod, whose files these are. */
	net = get_net_ns_by_fd(netns_fd);
	if (IS_ERR(net)) {
		pr_err("FAIL: file %d is no network namespace: %ld\n",
		       netns_fd, PTR_ERR(net));
		return PTR_ERR(net);
	}
	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (net_eq(net, &init_net)) {
		pr_err("FAIL: file %d is init_net\n", netns_fd);
		ret = -EINVAL;
	} else if (!q) {
		ret = -ENOMEM;
	} else {
		ctx->there.net = net;
		ret = ch_netns_cases(ctx, q);
	}
	ch_unlisten(&ctx->here);
	ch_unlisten(&ctx->there);
	ctx->there.net = NULL;
	put_net(net);
	kfree(q);
	pr_info("result: namespaces: %s\n", ret ? "FAIL" : "as they should");
	return ret;
}

/*
 * One SIDR REQ to the UD listener. The listener's answer is a SIDR REP
 * that rejects with its marker; the CM's own, for a request it drops,
 * carries none.
 */
static int ch_sidr_one(struct ch_ctx *ctx, const char *name,
		       const struct ch_req *q, bool deliver)
{
	const unsigned long mask = BIT(IB_CM_SIDR_REP_RECEIVED) |
				   BIT(IB_CM_SIDR_REQ_ERROR);
	struct ib_cm_sidr_req_param p = {};
	unsigned int before, n;
	struct ch_raw *r;
	unsigned long got;
	bool marked;
	int status;
	int ret;

	pr_info("case %s\n", name);
	r = ch_raw_open(ctx, name);
	if (IS_ERR(r))
		return PTR_ERR(r);
	before = ch_requests(ctx);
	r->path = ctx->route.id->route.path_rec[0];
	p.path = &r->path;
	p.sgid_attr = ctx->route.id->route.addr.dev_addr.sgid_attr;
	p.service_id = ch_sid(CH_PS_UDP, ctx->port + 5);
	p.timeout_ms = 1000;
	p.max_cm_retries = CH_RETRIES;
	p.private_data = q->pdata;
	p.private_data_len = q->len;
	ret = ib_send_cm_sidr_req(r->cm, &p);
	if (ret) {
		pr_err("FAIL: %s: ib_send_cm_sidr_req: %d\n", name, ret);
		goto out;
	}
	got = ch_wait(&r->seen, mask, CH_WAIT_MS);
	spin_lock(&ch_lock);
	status = r->sidr_status;
	marked = ch_marked(&r->sidr);
	spin_unlock(&ch_lock);
	n = ch_requests(ctx) - before;
	pr_info("result: %s: %s, status %d%s, %u CONNECT_REQUEST\n", name,
		got & BIT(IB_CM_SIDR_REP_RECEIVED) ? "SIDR REP" :
		got ? "SIDR REQ timed out" : "no answer", status,
		marked ? " from the listener" : "", n);
	if (!(got & BIT(IB_CM_SIDR_REP_RECEIVED)) ||
	    status != IB_SIDR_REJECT || marked != deliver || n != deliver) {
		pr_err("FAIL: %s: expected a SIDR REP that rejects it %s\n",
		       name, deliver ? "from the listener, 1 CONNECT_REQUEST" :
		       "without the listener, 0 CONNECT_REQUEST");
		ret = -EPROTO;
	}
out:
	ch_raw_close(r);
	return ret;
}

/*
 * UD: a SIDR REQ goes through the same check of its origin as a REQ.
 * The listener is on rxe0 only (a wildcard would listen on siw0 too).
 */
static int ch_sidr(struct ch_ctx *ctx)
{
	struct sockaddr_storage ss = ctx->addr;
	struct ch_req *q;
	int ret;

	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	ctx->ud.ud = true;
	ch_set_port(&ss, ctx->port + 5);
	ret = ch_listen(&ctx->ud, "UD listener", &ss, false);
	if (ret)
		goto out;
	ch_req_init(ctx, q, CH_USER_LEN);
	ret = ch_sidr_one(ctx, "SIDR REQ, good header", q, true);
	ch_mut_src_unroutable(ctx, q);
	ctx->unroutable++;
	ret = ch_sidr_one(ctx, "SIDR REQ, source address unroutable", q,
			  false) ?: ret;
out:
	ch_unlisten(&ctx->ud);
	kfree(q);
	return ret;
}

static int ch_setup(struct ch_ctx *ctx)
{
	struct sockaddr_storage any = {};
	int ret;

	any.ss_family = ctx->addr.ss_family;
	ch_set_port(&any, ctx->port + 1);
	ret = ch_listen(&ctx->l, "listener", &ctx->addr, true) ?:
	      ch_listen(&ctx->wild, "wildcard listener", &any, false) ?:
	      ch_client_start(&ctx->route, "route", &ctx->addr);
	if (ret)
		return ret;
	if (!ctx->route.id->route.path_rec ||
	    !ctx->route.id->route.addr.dev_addr.sgid_attr) {
		pr_err("FAIL: the resolved id has no path record or GID\n");
		return -EINVAL;
	}
	memcpy(&ctx->src, &ctx->route.id->route.addr.src_addr,
	       sizeof(ctx->src));
	pr_info("hostile REQs go from %pISpc to %pISpc on %s\n", &ctx->src,
		&ctx->addr, dev_name(&ctx->route.id->device->dev));
	return 0;
}

static void ch_teardown(struct ch_ctx *ctx)
{
	ch_client_stop(&ctx->route);
	ch_unlisten(&ctx->here);
	ch_unlisten(&ctx->there);
	ch_unlisten(&ctx->ud);
	ch_unlisten(&ctx->ib);
	ch_unlisten(&ctx->wild);
	ch_unlisten(&ctx->l);
}

static int ch_run(struct ch_ctx *ctx)
{
	int (*const steps[])(struct ch_ctx *ctx) = {
		ch_run_cases, ch_netns, ch_sidr, ch_run_lengths,
		ch_dup_same_id, ch_dup_twins, ch_dup_resent, ch_no_conn,
		ch_silent_peer, ch_peer_rejects, ch_good_raw, ch_af_ib,
	};
	/* The first three are those of where a request comes from. */
	unsigned int i, n = origin_only ? 3 : ARRAY_SIZE(steps);
	int ret;

	ret = ch_setup(ctx);
	if (ret)
		return ret;
	ret = ch_good_client(ctx, "good client before");
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if (steps[i](ctx))
			ctx->failed++;
	/* For the script, which reads our CM's count of them. */
	pr_info("unroutable requests sent: %u\n", ctx->unroutable);
	if (ch_good_client(ctx, "good client after"))
		ctx->failed++;
	return ctx->failed ? -EPROTO : 0;
}

static int __init ch_init(void)
{
	unsigned long start = jiffies;
	struct ch_ctx *ctx;
	int ret;

	if (port > U16_MAX - 5) {
		pr_err("port=%u leaves no room for port+5\n", port);
		return -EINVAL;
	}
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->port = port;
	ctx->strict = strict;
	INIT_LIST_HEAD(&ctx->l.conns);
	INIT_LIST_HEAD(&ctx->wild.conns);
	INIT_LIST_HEAD(&ctx->ib.conns);
	INIT_LIST_HEAD(&ctx->there.conns);
	INIT_LIST_HEAD(&ctx->here.conns);
	INIT_LIST_HEAD(&ctx->ud.conns);
	ret = ch_parse(addr, port, &ctx->addr);
	if (!ret && other)
		ret = ch_parse(other, port, &ctx->other);
	if (!ret && foreign)
		ret = ch_parse(foreign, port, &ctx->foreign);
	if (!ret && ctx->foreign.ss_family &&
	    ctx->foreign.ss_family != ctx->addr.ss_family) {
		pr_err("foreign=%s is not of addr's family\n", foreign);
		ret = -EINVAL;
	}
	if (!ret) {
		pr_info("start: listener %pISpc%s%s%s\n", &ctx->addr,
			other ? ", other family " : "", other ?: "",
			strict ? ", strict" : "");
		ret = ch_run(ctx);
	}
	ch_teardown(ctx);
	if (ret)
		pr_err("FAIL (%d), %u failed, after %u ms\n", ret, ctx->failed,
		       jiffies_to_msecs(jiffies - start));
	else
		pr_info("PASS in %u ms\n", jiffies_to_msecs(jiffies - start));
	kfree(ctx);
	return ret;
}

static void __exit ch_exit(void)
{
}

module_init(ch_init);
module_exit(ch_exit);

MODULE_DESCRIPTION("An RDMA CM listener against a hostile IB CM peer");
MODULE_LICENSE("GPL");
