// SPDX-License-Identifier: GPL-2.0
/*
 * cm_kdiff - the differential harness's scenarios from the kernel API.
 *
 *   insmod cm_kdiff.ko rxe4=A rxe6=A siw4=A siw6=A [only=PREFIX,...]
 *   cat /sys/kernel/debug/cm_kdiff/record
 *   rmmod cm_kdiff
 *
 * Module init runs every scenario through the 6.1 rdma_cm API only
 * (include/rdma/rdma_cm.h), so the same module runs on the in-box
 * rdma_cm and on ours, and keeps the record in the debugfs file above,
 * in cm_diff's format: "== NAME" opens a scenario, each indented line
 * under it is a call's result (0 or the errno's name) or an event (type,
 * status, private data, the connection or UD parameters, the id's
 * addresses after the events that set them). tests/diff/compare reads it
 * as it reads cm_diff's. Ephemeral ports print as "eph", the scenario's
 * own as p0 .. p3, QP numbers as "peer" when they are the peer QP's.
 *
 * What only a kernel caller can do is the point: rdma_create_qp and
 * the QP it leaves (read back with ib_query_qp), rdma_accept under
 * rdma_lock_handler and from the CONNECT_REQUEST handler,
 * rdma_connect_locked from the ROUTE_RESOLVED handler, the reject
 * helpers on a REJECTED event, rdma_read_gids, rdma_event_msg, and a
 * handler that returns non-zero so that the CM destroys its id (the
 * peer's event records what the wire saw; our CM's listing of ids,
 * empty at the harness's end, that the id is gone).
 *
 * Every id has its own queue of events, filled by the handler and read
 * by the scenario in a fixed order, so the record does not depend on
 * which id heard first. Waits are on those queues, with timeouts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

/* Every scenario gets its own ports: PORT_BASE + 4 * its number + 0..3. */
#define PORT_BASE	12000	/* below the ephemeral range, 32768 up */
#define PORT_END	19999
#define EV_MS		5000	/* an event that should come */
#define QUIET_MS	300	/* an event that should not come */
#define RESOLVE_MS	2000
#define FAKE_QPN	0x1234	/* connect without a QP: RoCE only */
/* Accept so: the IB CM drops a REP whose QPN and CA another id has. */
#define FAKE_QPN_ACC	0x1235
#define PDATA_SEED	0x40
#define PDATA_MAX	256
#define REC_SIZE	(4 << 20)

static char *rxe4, *rxe6, *siw4, *siw6, *only;
static char *rxe_dev = "rxe0", *siw_dev = "siw0";
module_param(rxe4, charp, 0444);
MODULE_PARM_DESC(rxe4, "rxe's IPv4 address");
module_param(rxe6, charp, 0444);
MODULE_PARM_DESC(rxe6, "rxe's IPv6 address");
module_param(siw4, charp, 0444);
MODULE_PARM_DESC(siw4, "siw's IPv4 address");
module_param(siw6, charp, 0444);
MODULE_PARM_DESC(siw6, "siw's IPv6 address");
module_param(rxe_dev, charp, 0444);
MODULE_PARM_DESC(rxe_dev, "the RoCE device (rxe0)");
module_param(siw_dev, charp, 0444);
MODULE_PARM_DESC(siw_dev, "the iWARP device (siw0)");
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "run only the scenarios starting so (comma list)");
static bool inbox;
module_param(inbox, bool, 0444);
MODULE_PARM_DESC(inbox, "the CM under test is the in-box one (its bugs spared)");

enum dev { RXE, SIW, NDEVS };
enum fam { V4, V6, NFAMS };

static const char *const dev_name_[NDEVS] = { "rxe", "siw" };
static const char *const fam_name[NFAMS] = { "4", "6" };
static const char *dev_addr[NDEVS][NFAMS];
static struct ib_device *dev_ib[NDEVS];

static char *record;
static size_t rec_len;
static struct debugfs_blob_wrapper blob;
static struct dentry *dir;
static unsigned int nr_scen;
static unsigned short port0;

/* ---- the record ------------------------------------------------------ */

static __printf(1, 0) void rec_va(const char *fmt, va_list ap)
{
	if (rec_len < REC_SIZE)
		rec_len += vscnprintf(record + rec_len, REC_SIZE - rec_len,
				      fmt, ap);
}

static __printf(1, 2) void rec_raw(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rec_va(fmt, ap);
	va_end(ap);
}

/* One indented line of the record. */
static __printf(1, 2) void rec(const char *fmt, ...)
{
	va_list ap;

	rec_raw("  ");
	va_start(ap, fmt);
	rec_va(fmt, ap);
	va_end(ap);
	rec_raw("\n");
}

static const char *err_name(int err, char *buf)
{
	static const struct { int e; const char *n; } names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EIO, "EIO" },
		{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" },
		{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },
		{ EEXIST, "EEXIST" }, { ENODEV, "ENODEV" },
		{ EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" },
		{ ERANGE, "ERANGE" },
		{ ENODATA, "ENODATA" }, { EPROTONOSUPPORT, "EPROTONOSUPPORT" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { EAFNOSUPPORT, "EAFNOSUPPORT" },
		{ EADDRINUSE, "EADDRINUSE" },
		{ EADDRNOTAVAIL, "EADDRNOTAVAIL" },
		{ ENETDOWN, "ENETDOWN" }, { ENETUNREACH, "ENETUNREACH" },
		{ ECONNABORTED, "ECONNABORTED" },
		{ ECONNRESET, "ECONNRESET" }, { EISCONN, "EISCONN" },
		{ ENOTCONN, "ENOTCONN" }, { ETIMEDOUT, "ETIMEDOUT" },
		{ ECONNREFUSED, "ECONNREFUSED" },
		{ EHOSTUNREACH, "EHOSTUNREACH" }, { EALREADY, "EALREADY" },
		{ EINPROGRESS, "EINPROGRESS" }, { ENOTSUPP, "ENOTSUPP" },
		{ EAGAIN, "EAGAIN" }, { E2BIG, "E2BIG" },
	};
	unsigned int i;

	if (!err)
		return "0";
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].e == -err)
			return names[i].n;
	snprintf(buf, 16, "E%d", -err);
	return buf;
}

/* Record a call's outcome; returns it. */
static int call(const char *who, const char *what, int ret)
{
	char buf[16];

	rec("%s %s = %s", who, what, err_name(ret, buf));
	return ret;
}

static const char *port_str(unsigned short port, char *buf)
{
	if (!port)
		return "0";
	if (port >= PORT_BASE && port <= PORT_END)
		snprintf(buf, 16, "p%u", port - port0);
	else if (port < 1024)
		snprintf(buf, 16, "%u", port);
	else
		return "eph";
	return buf;
}

static void addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char p[16];

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		snprintf(buf, len, "%pI4:%s", &in->sin_addr,
			 port_str(ntohs(in->sin_port), p));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		snprintf(buf, len, "[%pI6c]:%s", &in6->sin6_addr,
			 port_str(ntohs(in6->sin6_port), p));
	} else if (sa->sa_family == AF_UNSPEC) {
		snprintf(buf, len, "none");
	} else {
		snprintf(buf, len, "family%u", sa->sa_family);
	}
}

static void hex(char *buf, const u8 *p, unsigned int len)
{
	unsigned int i, nz = len;

	/* Trailing zeros (IB's fixed-size padding) are only counted. */
	while (nz && !p[nz - 1])
		nz--;
	for (i = 0; i < nz; i++)
		sprintf(buf + 2 * i, "%02x", p[i]);
	sprintf(buf + 2 * nz, "+%uz", len - nz);
}

static void fill(u8 *p, unsigned int len, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 7) | 1;	/* no zero */
}

/* librdmacm's names of the events, as cm_diff prints them. */
static const char *ev_name(int type)
{
	static const char *const names[] = {
		"RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ADDR_ERROR",
		"RDMA_CM_EVENT_ROUTE_RESOLVED", "RDMA_CM_EVENT_ROUTE_ERROR",
		"RDMA_CM_EVENT_CONNECT_REQUEST",
		"RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR", "RDMA_CM_EVENT_UNREACHABLE",
		"RDMA_CM_EVENT_REJECTED", "RDMA_CM_EVENT_ESTABLISHED",
		"RDMA_CM_EVENT_DISCONNECTED", "RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN",
		"RDMA_CM_EVENT_MULTICAST_ERROR",
		"RDMA_CM_EVENT_ADDR_CHANGE", "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if (type >= 0 && type < ARRAY_SIZE(names))
		return names[type];
	return "UNKNOWN EVENT";
}

/* ---- endpoints and their events --------------------------------------- */

struct kep;

/* One event as the handler saw it, kept until the scenario reads it. */
struct kev {
	struct list_head list;
	int type;
	int status;
	int pdata_len;			/* -1: no private data */
	u8 pdata[PDATA_MAX];
	bool ud;
	struct rdma_conn_param conn;	/* private_data cleared */
	u32 ud_qpn, ud_qkey;
	bool ah_global;
	union ib_gid dgid;
	u8 hop, tclass, sl;
	bool flow;
	u16 dlid;
	u32 ah_port;
	struct kep *child;		/* a CONNECT_REQUEST's new id */
	const char *hcall;		/* a call the handler made */
	int hret;
	char rej[200];			/* the reject helpers' answers */
};

/* What the handler does besides queueing the event. */
enum hmode { H_NONE, H_ACCEPT, H_CONNECT_LOCKED, H_FAIL };

struct kep {
	struct list_head all;		/* the scenario's endpoints */
	char name[8];
	struct rdma_cm_id *id;
	spinlock_t lock;		/* guards evq */
	struct list_head evq;
	wait_queue_head_t wq;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u32 peer_qpn;
	enum hmode mode;
	int fail_on;			/* H_FAIL: on this event type */
	bool gone;			/* the CM destroyed the id */
	struct kep *parent;
};

static LIST_HEAD(eps);
static DEFINE_SPINLOCK(eps_lock);

static struct kep *kep_alloc(const char *name)
{
	struct kep *e = kzalloc(sizeof(*e), GFP_KERNEL);

	if (!e)
		return NULL;
	strscpy(e->name, name, sizeof(e->name));
	spin_lock_init(&e->lock);
	INIT_LIST_HEAD(&e->evq);
	init_waitqueue_head(&e->wq);
	spin_lock(&eps_lock);
	list_add_tail(&e->all, &eps);
	spin_unlock(&eps_lock);
	return e;
}

static int kep_qp_on(struct kep *e, struct ib_device *dev);

static void conn_param(struct rdma_conn_param *p, struct kep *e, u8 *pd,
		       unsigned int len, bool active)
{
	memset(p, 0, sizeof(*p));
	fill(pd, PDATA_MAX, PDATA_SEED);
	p->private_data = len ? pd : NULL;
	p->private_data_len = len;
	p->responder_resources = active ? 2 : 1;
	p->initiator_depth = active ? 3 : 2;
	p->retry_count = active ? 6 : 0;
	p->rnr_retry_count = active ? 5 : 4;
	p->qp_num = active ? FAKE_QPN : FAKE_QPN_ACC;
}

/* The handler of a new connection's id: a new endpoint of the listener. */
static struct kep *adopt(struct kep *l, struct rdma_cm_id *id)
{
	struct kep *s = kep_alloc("S");

	if (!s)
		return NULL;
	s->id = id;
	s->parent = l;
	id->context = s;
	return s;
}

static void ev_copy(struct kev *k, struct rdma_cm_id *id,
		    struct rdma_cm_event *ev)
{
	const void *pd;
	unsigned int len;

	k->type = ev->event;
	k->status = ev->status;
	k->ud = ev->event == RDMA_CM_EVENT_MULTICAST_JOIN ||
		(id->qp_type == IB_QPT_UD &&
		 (ev->event == RDMA_CM_EVENT_ESTABLISHED ||
		  ev->event == RDMA_CM_EVENT_CONNECT_REQUEST));
	if (k->ud) {
		const struct rdma_ah_attr *ah = &ev->param.ud.ah_attr;

		pd = ev->param.ud.private_data;
		len = ev->param.ud.private_data_len;
		k->ud_qpn = ev->param.ud.qp_num;
		k->ud_qkey = ev->param.ud.qkey;
		k->ah_global = rdma_ah_get_ah_flags(ah) & IB_AH_GRH;
		if (k->ah_global) {
			const struct ib_global_route *g = rdma_ah_read_grh(ah);

			k->dgid = g->dgid;
			k->hop = g->hop_limit;
			k->tclass = g->traffic_class;
			k->flow = g->flow_label;
		}
		k->dlid = rdma_ah_get_dlid(ah);
		k->sl = rdma_ah_get_sl(ah);
		k->ah_port = rdma_ah_get_port_num(ah);
	} else {
		pd = ev->param.conn.private_data;
		len = ev->param.conn.private_data_len;
		k->conn = ev->param.conn;
		k->conn.private_data = NULL;
	}
	k->pdata_len = pd ? min_t(unsigned int, len, PDATA_MAX) : -1;
	if (pd)
		memcpy(k->pdata, pd, k->pdata_len);
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		u8 clen = 0;
		const u8 *cdata = rdma_consumer_reject_data(id, ev, &clen);
		char h[2 * PDATA_MAX + 16] = "-";

		if (cdata)
			hex(h, cdata, clen);
		snprintf(k->rej, sizeof(k->rej),
			 "reject_msg \"%s\" consumer_data=%s",
			 rdma_reject_msg(id, ev->status), h);
	}
}

static int on_event(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kep *e = id->context;
	struct rdma_conn_param p;
	u8 pd[PDATA_MAX];
	struct kev *k;
	int ret = 0;

	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return 0;
	ev_copy(k, id, ev);
	if (e->mode == H_FAIL && e->fail_on == ev->event) {
		/* The CM destroys the id, a new connection's or this one. */
		ret = -ECONNABORTED;
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
			e->gone = true;
	} else if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		k->child = adopt(e, id);
		if (k->child && e->mode == H_ACCEPT) {
			/* The handler holds the handler lock already. */
			kep_qp_on(k->child, id->device);
			conn_param(&p, k->child, pd, 8, false);
			k->hcall = "accept in handler";
			k->hret = rdma_accept(id, &p);
		}
	} else if (ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED &&
		   e->mode == H_CONNECT_LOCKED) {
		conn_param(&p, e, pd, 8, true);
		k->hcall = "connect_locked in handler";
		k->hret = rdma_connect_locked(id, &p);
	}
	spin_lock(&e->lock);
	list_add_tail(&k->list, &e->evq);
	spin_unlock(&e->lock);
	wake_up(&e->wq);
	return ret;
}

static struct kev *pop(struct kep *e)
{
	struct kev *k;

	spin_lock(&e->lock);
	k = list_first_entry_or_null(&e->evq, struct kev, list);
	if (k)
		list_del(&k->list);
	spin_unlock(&e->lock);
	return k;
}

static bool has_ev(struct kep *e)
{
	bool ret;

	spin_lock(&e->lock);
	ret = !list_empty(&e->evq);
	spin_unlock(&e->lock);
	return ret;
}

/* The id's addresses, port space and device, as a consumer reads them. */
static void rec_id(const char *name, struct rdma_cm_id *id)
{
	char src[80], dst[80];

	addr_str((struct sockaddr *)&id->route.addr.src_addr, src,
		 sizeof(src));
	addr_str((struct sockaddr *)&id->route.addr.dst_addr, dst,
		 sizeof(dst));
	rec("%s id src=%s dst=%s ps=0x%x qpt=%d dev=%s port=%u", name, src,
	    dst, id->ps, id->qp_type,
	    id->device ? dev_name(&id->device->dev) : "none", id->port_num);
}

static void qpn_str(const struct kep *e, u32 qpn, char *buf)
{
	if (e->peer_qpn && qpn == e->peer_qpn)
		snprintf(buf, 16, "peer");
	else if (qpn == FAKE_QPN || qpn == FAKE_QPN_ACC || !qpn ||
		 qpn == 0xffffff)
		snprintf(buf, 16, "0x%x", qpn);
	else
		snprintf(buf, 16, "other");
}

static void rec_kev(struct kep *e, struct kev *k)
{
	char pd[2 * PDATA_MAX + 16] = "-";
	char q[16], buf[16];

	if (k->pdata_len >= 0)
		hex(pd, k->pdata, k->pdata_len);
	rec("%s ev %s status=%d pdata=%s", e->name, ev_name(k->type),
	    k->status, pd);
	if (k->ud) {
		qpn_str(e, k->ud_qpn, q);
		rec("%s   ud qpn=%s qkey=0x%x dlid=%u sl=%u port=%u", e->name,
		    q, k->ud_qkey, k->dlid, k->sl, k->ah_port);
		rec("%s   ah global=%u dgid=%pI6c hop=%u tclass=%u flow=%s",
		    e->name, k->ah_global, k->dgid.raw, k->hop, k->tclass,
		    k->flow ? "set" : "0");
	} else if (k->type == RDMA_CM_EVENT_CONNECT_REQUEST ||
		   k->type == RDMA_CM_EVENT_CONNECT_RESPONSE ||
		   k->type == RDMA_CM_EVENT_ESTABLISHED) {
		const struct rdma_conn_param *c = &k->conn;

		qpn_str(e, c->qp_num, q);
		rec("%s   conn resp=%u init=%u flow=%u retry=%u rnr=%u srq=%u qpn=%s",
		    e->name, c->responder_resources, c->initiator_depth,
		    c->flow_control, c->retry_count, c->rnr_retry_count,
		    c->srq, q);
	}
	if (k->rej[0])
		rec("%s   %s", e->name, k->rej);
	if (k->type == RDMA_CM_EVENT_CONNECT_REQUEST && k->child)
		rec_id("L+", k->child->id);
	else if (!e->gone && (k->type == RDMA_CM_EVENT_ADDR_RESOLVED ||
			      k->type == RDMA_CM_EVENT_ROUTE_RESOLVED ||
			      k->type == RDMA_CM_EVENT_ESTABLISHED))
		rec_id(e->name, e->id);
	if (k->hcall)
		rec("%s %s = %s", e->name, k->hcall, err_name(k->hret, buf));
}

/*
 * The next event on @e within @ms, recorded; "none" if there is none.
 * A CONNECT_REQUEST's new endpoint is given back in @child. Returns the
 * event type or -1.
 */
static int wait_ev(struct kep *e, int ms, struct kep **child)
{
	struct kev *k;
	int type;

	if (child)
		*child = NULL;
	if (!e)
		return -1;
	wait_event_timeout(e->wq, has_ev(e), msecs_to_jiffies(ms));
	k = pop(e);
	if (!k) {
		rec("%s ev none", e->name);
		return -1;
	}
	rec_kev(e, k);
	type = k->type;
	if (child)
		*child = k->child;
	kfree(k);
	return type;
}

static struct kep *kep_new(const char *name, enum rdma_ucm_port_space ps,
			   enum ib_qp_type qpt)
{
	struct kep *e = kep_alloc(name);
	struct rdma_cm_id *id;

	if (!e)
		return NULL;
	id = rdma_create_id(&init_net, on_event, e, ps, qpt);
	if (IS_ERR(id)) {
		call(name, "create_id", PTR_ERR(id));
		return NULL;
	}
	e->id = id;
	return e;
}

/* A QP on @dev for @e's id; @dev need not be the id's. */
static int kep_qp_on(struct kep *e, struct ib_device *dev)
{
	struct ib_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = e->id->qp_type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
	};
	int ret;

	if (!e->pd) {
		e->pd = ib_alloc_pd(dev, 0);
		if (IS_ERR(e->pd)) {
			ret = PTR_ERR(e->pd);
			e->pd = NULL;
			return ret;
		}
		e->cq = ib_alloc_cq(dev, NULL, 8, 0, IB_POLL_DIRECT);
		if (IS_ERR(e->cq)) {
			ret = PTR_ERR(e->cq);
			e->cq = NULL;
			return ret;
		}
	}
	attr.send_cq = e->cq;
	attr.recv_cq = e->cq;
	ret = rdma_create_qp(e->id, e->pd, &attr);
	if (!ret)
		e->qp = e->id->qp;
	return ret;
}

static int kep_qp(struct kep *e)
{
	if (!e || !e->id->device) {
		rec("%s create_qp not issued: no device", e ? e->name : "?");
		return -ENODEV;
	}
	return call(e->name, "create_qp", kep_qp_on(e, e->id->device));
}

static void kep_free(struct kep *e)
{
	struct kev *k;

	if (e->id && !e->gone) {
		if (e->qp)
			rdma_destroy_qp(e->id);
		rdma_destroy_id(e->id);
	} else if (e->qp) {
		ib_destroy_qp(e->qp);
	}
	if (e->cq)
		ib_free_cq(e->cq);
	if (e->pd)
		ib_dealloc_pd(e->pd);
	while ((k = pop(e)))
		kfree(k);
	kfree(e);
}

/* Every endpoint of the scenario, the newest first. */
static void free_all(void)
{
	struct kep *e;

	for (;;) {
		e = NULL;
		spin_lock(&eps_lock);
		if (!list_empty(&eps)) {
			e = list_last_entry(&eps, struct kep, all);
			list_del(&e->all);
		}
		spin_unlock(&eps_lock);
		if (!e)
			return;
		kep_free(e);
	}
}

/* ---- scenarios ------------------------------------------------------- */

/* @name starts with one of the comma-separated prefixes of only=. */
static bool selected(const char *name)
{
	const char *p = only, *end;

	if (!only || !*only)
		return true;
	for (; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ',');
		if (end > p && !strncmp(name, p, end - p))
			return true;
	}
	return false;
}

static __printf(1, 2) bool scen(const char *fmt, ...)
{
	char name[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (!selected(name))
		return false;
	port0 = PORT_BASE + 4 * (nr_scen % 2000);
	nr_scen++;
	rec_raw("== %s\n", name);
	return true;
}

static void done(void)
{
	free_all();
}

static int mkaddr(struct sockaddr_storage *ss, const char *text,
		  unsigned short port)
{
	struct sockaddr_in *in = (void *)ss;
	struct sockaddr_in6 *in6 = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	if (!strcmp(text, "any4"))
		text = "0.0.0.0";
	else if (!strcmp(text, "any6"))
		text = "::";
	if (in4_pton(text, -1, (u8 *)&in->sin_addr, -1, NULL)) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		return 0;
	}
	if (in6_pton(text, -1, in6->sin6_addr.s6_addr, -1, NULL)) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		return 0;
	}
	return -EINVAL;
}

static int bind_to(struct kep *e, const char *addr, unsigned short port)
{
	struct sockaddr_storage ss;
	char what[96];

	mkaddr(&ss, addr, port);
	snprintf(what, sizeof(what), "bind(%s,%s)", addr, port ? "p" : "0");
	return call(e->name, what, rdma_bind_addr(e->id, (void *)&ss));
}

static int resolve(struct kep *e, const char *dst, unsigned short port)
{
	struct sockaddr_storage d;
	char what[96];

	mkaddr(&d, dst, port);
	snprintf(what, sizeof(what), "resolve_addr(-,%s,%d)", dst,
		 RESOLVE_MS);
	return call(e->name, what, rdma_resolve_addr(e->id, NULL,
						     (void *)&d, RESOLVE_MS));
}

/* Resolve address and route to @dst:@port; true when both resolved. */
static bool reach(struct kep *e, const char *dst, unsigned short port)
{
	if (resolve(e, dst, port) ||
	    wait_ev(e, EV_MS, NULL) != RDMA_CM_EVENT_ADDR_RESOLVED)
		return false;
	if (call(e->name, "resolve_route",
		 rdma_resolve_route(e->id, RESOLVE_MS)) ||
	    wait_ev(e, EV_MS, NULL) != RDMA_CM_EVENT_ROUTE_RESOLVED)
		return false;
	return true;
}

static struct kep *listener(const char *addr, unsigned short port)
{
	struct kep *l = kep_new("L", RDMA_PS_TCP, IB_QPT_RC);

	if (!l || bind_to(l, addr, port) ||
	    call(l->name, "listen", rdma_listen(l->id, 2)))
		return NULL;
	return l;
}

static int connect_len(struct kep *c, unsigned int len)
{
	struct rdma_conn_param p;
	u8 pd[PDATA_MAX];
	char what[32];

	conn_param(&p, c, pd, len, true);
	snprintf(what, sizeof(what), "connect(pdata %u)", len);
	return call(c->name, what, rdma_connect(c->id, &p));
}

/* rdma_accept wants the handler lock held: a kernel caller's duty. */
static int accept_len(struct kep *s, unsigned int len)
{
	struct rdma_conn_param p;
	u8 pd[PDATA_MAX];
	char what[32];
	int ret;

	conn_param(&p, s, pd, len, false);
	snprintf(what, sizeof(what), "accept(pdata %u)", len);
	rdma_lock_handler(s->id);
	ret = rdma_accept(s->id, &p);
	rdma_unlock_handler(s->id);
	return call(s->name, what, ret);
}

static int reject_len(struct kep *s, unsigned int len)
{
	u8 pd[PDATA_MAX];
	char what[32];

	fill(pd, sizeof(pd), PDATA_SEED + 1);
	snprintf(what, sizeof(what), "reject(pdata %u)", len);
	return call(s->name, what, rdma_reject(s->id, len ? pd : NULL, len,
					       IB_CM_REJ_CONSUMER_DEFINED));
}

static void rec_qp(struct kep *e)
{
	struct ib_qp_init_attr ia = {};
	struct ib_qp_attr a = {};
	int ret;

	if (!e || !e->qp)
		return;
	ret = ib_query_qp(e->qp, &a, IB_QP_STATE | IB_QP_ACCESS_FLAGS |
			  IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_PATH_MTU |
			  IB_QP_TIMEOUT | IB_QP_MIN_RNR_TIMER |
			  IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			  IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC,
			  &ia);
	if (call(e->name, "query_qp", ret))
		return;
	rec("%s   qp state=%d access=0x%x pkey=%u port=%u mtu=%d", e->name,
	    a.qp_state, a.qp_access_flags, a.pkey_index, a.port_num,
	    a.path_mtu);
	rec("%s   qp timeout=%u min_rnr=%u retry=%u rnr_retry=%u rd=%u dest_rd=%u",
	    e->name, a.timeout, a.min_rnr_timer, a.retry_cnt, a.rnr_retry,
	    a.max_rd_atomic, a.max_dest_rd_atomic);
}

static void rec_gids(struct kep *e)
{
	union ib_gid s = {}, d = {};

	rdma_read_gids(e->id, &s, &d);
	rec("%s read_gids sgid=%pI6c dgid=%pI6c", e->name, s.raw, d.raw);
}

/* ---- the API x state matrix ------------------------------------------ */

enum mstate { M_IDLE, M_BOUND, M_BOUND_ANY, M_ADDR, M_ROUTE, M_LISTEN,
	      NMSTATES };
static const char *const mstate_name[NMSTATES] = {
	"idle", "bound", "bound_any", "addr", "route", "listen",
};

enum mcall { C_BIND, C_BIND_ANY, C_RESOLVE, C_RESOLVE_ROUTE, C_LISTEN,
	     C_CONNECT, C_ACCEPT, C_REJECT, C_DISCONNECT, C_JOIN, C_LEAVE,
	     C_TOS, C_SERVICE_TYPE, C_REUSE, C_AFONLY, C_ACK_TIMEOUT,
	     C_MIN_RNR, C_INIT_QP_ATTR, C_NOTIFY, C_CREATE_QP, NMCALLS };
static const char *const mcall_name[NMCALLS] = {
	"bind", "bind_any", "resolve_addr", "resolve_route", "listen",
	"connect", "accept", "reject", "disconnect", "join", "leave", "tos",
	"service_type", "reuseaddr", "afonly", "ack_timeout",
	"min_rnr_timer", "init_qp_attr", "notify", "create_qp",
};

static bool to_state(struct kep *e, enum mstate st, enum dev d, enum fam f)
{
	const char *any = f == V4 ? "any4" : "any6";

	switch (st) {
	case M_IDLE:
		return true;
	case M_BOUND:
		return !bind_to(e, dev_addr[d][f], port0);
	case M_BOUND_ANY:
		return !bind_to(e, any, port0);
	case M_ADDR:
		return !resolve(e, dev_addr[d][f], port0 + 1) &&
		       wait_ev(e, EV_MS, NULL) == RDMA_CM_EVENT_ADDR_RESOLVED;
	case M_ROUTE:
		return reach(e, dev_addr[d][f], port0 + 1);
	case M_LISTEN:
		return !bind_to(e, dev_addr[d][f], port0) &&
		       !call(e->name, "listen", rdma_listen(e->id, 2));
	default:
		return false;
	}
}

static void mc_addr(struct sockaddr_storage *g, enum fam f)
{
	mkaddr(g, f == V4 ? "239.1.1.7" : "ff0e::107", 0);
}

/* Do @c on @e; true when an event may follow (it succeeded, async). */
static bool do_call(struct kep *e, enum mcall c, enum dev d, enum fam f)
{
	const char *any = f == V4 ? "any4" : "any6";
	struct sockaddr_storage g;
	struct ib_qp_attr qa;
	int mask, ret;

	/*
	 * The in-box rdma_init_qp_attr reads the id's device before any
	 * check (rdma_ucm refuses it earlier): not asked without one.
	 */
	if (!e->id->device && c == C_INIT_QP_ATTR) {
		rec("%s %s not issued: no device", e->name, mcall_name[c]);
		return false;
	}
	switch (c) {
	case C_BIND:
		return bind_to(e, dev_addr[d][f], port0 + 2), false;
	case C_BIND_ANY:
		return bind_to(e, any, 0), false;
	case C_RESOLVE:
		return !resolve(e, dev_addr[d][f], port0 + 1);
	case C_RESOLVE_ROUTE:
		return !call(e->name, "resolve_route",
			     rdma_resolve_route(e->id, RESOLVE_MS));
	case C_LISTEN:
		return call(e->name, "listen", rdma_listen(e->id, 1)), false;
	case C_CONNECT:
		return !connect_len(e, 0);
	case C_ACCEPT:
		return !accept_len(e, 0);
	case C_REJECT:
		return reject_len(e, 0), false;
	case C_DISCONNECT:
		return !call(e->name, "disconnect", rdma_disconnect(e->id));
	case C_JOIN:
		mc_addr(&g, f);
		return !call(e->name, "join", rdma_join_multicast(e->id,
				(void *)&g, BIT(FULLMEMBER_JOIN), e));
	case C_LEAVE:
		mc_addr(&g, f);
		rdma_leave_multicast(e->id, (void *)&g);
		rec("%s leave = void", e->name);
		return false;
	case C_TOS:
		rdma_set_service_type(e->id, 32);
		rec("%s set_service_type(32) = void", e->name);
		return false;
	case C_SERVICE_TYPE:
		/* A route resolved after it carries its SL. */
		rdma_set_service_type(e->id, 0);
		rec("%s set_service_type(0) = void", e->name);
		if (e->id->device)
			return !call(e->name, "resolve_route",
				     rdma_resolve_route(e->id, RESOLVE_MS));
		return false;
	case C_REUSE:
		call(e->name, "set_reuseaddr(1)", rdma_set_reuseaddr(e->id, 1));
		return false;
	case C_AFONLY:
		call(e->name, "set_afonly(1)", rdma_set_afonly(e->id, 1));
		return false;
	case C_ACK_TIMEOUT:
		call(e->name, "set_ack_timeout(14)",
		     rdma_set_ack_timeout(e->id, 14));
		return false;
	case C_MIN_RNR:
		call(e->name, "set_min_rnr_timer(12)",
		     rdma_set_min_rnr_timer(e->id, 12));
		return false;
	case C_INIT_QP_ATTR:
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IB_QPS_INIT;
		ret = rdma_init_qp_attr(e->id, &qa, &mask);
		call(e->name, "init_qp_attr(INIT)", ret);
		if (!ret)
			rec("%s   qp_attr mask=0x%x pkey=%u port=%u access=0x%x",
			    e->name, mask, qa.pkey_index, qa.port_num,
			    qa.qp_access_flags);
		return false;
	case C_NOTIFY:
		call(e->name, "notify", rdma_notify(e->id, IB_EVENT_COMM_EST));
		return false;
	case C_CREATE_QP:
		/* Without a device of its own, on the device of the matrix. */
		ret = call(e->name, "create_qp",
			   kep_qp_on(e, e->id->device ?: dev_ib[d]));
		if (!ret) {
			rec_qp(e);
			rdma_destroy_qp(e->id);
			e->qp = NULL;
			rec("%s destroy_qp = void", e->name);
		}
		return false;
	default:
		return false;
	}
}

static void matrix_one(enum dev d, enum fam f, enum mstate st, enum mcall c)
{
	struct kep *e;

	if (!scen("kapi/matrix/%s%s/%s/%s", dev_name_[d], fam_name[f],
		  mstate_name[st], mcall_name[c]))
		return;
	e = kep_new("A", RDMA_PS_TCP, IB_QPT_RC);
	/* A disconnect of no connection is answered by no peer. */
	if (e && to_state(e, st, d, f) && do_call(e, c, d, f))
		wait_ev(e, c == C_DISCONNECT ? QUIET_MS : EV_MS, NULL);
	done();
}

static void fam_matrix(void)
{
	enum mstate st;
	enum mcall c;
	enum dev d;
	enum fam f;

	for (d = 0; d < NDEVS; d++)
		for (f = 0; f < NFAMS; f++)
			for (st = 0; st < NMSTATES; st++)
				for (c = 0; c < NMCALLS; c++)
					matrix_one(d, f, st, c);
}

/* ---- connections ----------------------------------------------------- */

/*
 * A client of @l with a QP (iWARP needs one, and a kernel consumer has
 * one), its request heard: the client, and the server's new endpoint in
 * @sp, with a QP too unless the listener's handler made one.
 */
static struct kep *start_conn(struct kep *l, enum dev d, enum fam f,
			      struct kep **sp)
{
	struct kep *c = kep_new("C", RDMA_PS_TCP, IB_QPT_RC);

	*sp = NULL;
	if (!c || !reach(c, dev_addr[d][f], port0) || kep_qp(c))
		return c;
	if (connect_len(c, 8) ||
	    wait_ev(l, EV_MS, sp) != RDMA_CM_EVENT_CONNECT_REQUEST || !*sp)
		return c;
	if (!(*sp)->qp)
		kep_qp(*sp);
	return c;
}

/* Both sides established; each told the other's QP number. */
static bool established(struct kep *c, struct kep *s)
{
	c->peer_qpn = s->qp ? s->qp->qp_num : 0;
	s->peer_qpn = c->qp ? c->qp->qp_num : 0;
	return wait_ev(c, EV_MS, NULL) == RDMA_CM_EVENT_ESTABLISHED &&
	       wait_ev(s, EV_MS, NULL) == RDMA_CM_EVENT_ESTABLISHED;
}

/* The QPs a connection leaves, the GIDs, then a disconnect. */
static void conn_qp(enum dev d, enum fam f, bool options)
{
	struct kep *l, *c, *s;

	if (!scen("kapi/conn/%s%s/qp-%s", dev_name_[d], fam_name[f],
		  options ? "options" : "default"))
		return;
	l = listener(dev_addr[d][f], port0);
	if (!l)
		goto out;
	c = kep_new("C", RDMA_PS_TCP, IB_QPT_RC);
	if (!c || !reach(c, dev_addr[d][f], port0))
		goto out;
	if (options) {
		call("C", "set_ack_timeout(10)", rdma_set_ack_timeout(c->id, 10));
		call("C", "set_min_rnr_timer(20)",
		     rdma_set_min_rnr_timer(c->id, 20));
	}
	if (kep_qp(c))
		goto out;
	rec_qp(c);
	if (connect_len(c, 8) ||
	    wait_ev(l, EV_MS, &s) != RDMA_CM_EVENT_CONNECT_REQUEST || !s)
		goto out;
	if (options) {
		call("S", "set_ack_timeout(18)", rdma_set_ack_timeout(s->id, 18));
		call("S", "set_min_rnr_timer(6)",
		     rdma_set_min_rnr_timer(s->id, 6));
	}
	if (kep_qp(s))
		goto out;
	rec_qp(s);
	if (accept_len(s, 8) || !established(c, s))
		goto out;
	rec_qp(c);
	rec_qp(s);
	rec_gids(c);
	rec_gids(s);
	/* The DREQ's DREP goes out when the server disconnects too. */
	if (call("C", "disconnect", rdma_disconnect(c->id)))
		goto out;
	wait_ev(s, EV_MS, NULL);
	call("S", "disconnect", rdma_disconnect(s->id));
	wait_ev(c, EV_MS, NULL);
	rec_qp(c);
	rec_qp(s);
out:
	done();
}

/* rdma_accept from the CONNECT_REQUEST handler, under its lock. */
static void conn_accept_in_handler(enum dev d, enum fam f)
{
	struct kep *l, *c, *s;

	if (!scen("kapi/conn/%s%s/accept-in-handler", dev_name_[d],
		  fam_name[f]))
		return;
	l = listener(dev_addr[d][f], port0);
	if (!l)
		goto out;
	l->mode = H_ACCEPT;
	c = start_conn(l, d, f, &s);
	if (s && established(c, s))
		rec_qp(s);
out:
	done();
}

/* rdma_connect_locked from the ROUTE_RESOLVED handler. */
static void conn_connect_locked(enum dev d, enum fam f)
{
	struct kep *l, *c, *s;

	if (!scen("kapi/conn/%s%s/connect-locked", dev_name_[d],
		  fam_name[f]))
		return;
	l = listener(dev_addr[d][f], port0);
	if (!l)
		goto out;
	c = kep_new("C", RDMA_PS_TCP, IB_QPT_RC);
	if (!c || resolve(c, dev_addr[d][f], port0) ||
	    wait_ev(c, EV_MS, NULL) != RDMA_CM_EVENT_ADDR_RESOLVED ||
	    kep_qp(c))
		goto out;
	c->mode = H_CONNECT_LOCKED;
	if (call("C", "resolve_route", rdma_resolve_route(c->id, RESOLVE_MS)) ||
	    wait_ev(c, EV_MS, NULL) != RDMA_CM_EVENT_ROUTE_RESOLVED ||
	    wait_ev(l, EV_MS, &s) != RDMA_CM_EVENT_CONNECT_REQUEST || !s ||
	    kep_qp(s) || accept_len(s, 0))
		goto out;
	established(c, s);
out:
	done();
}

/* A consumer's reject with private data: the helpers on REJECTED. */
static void conn_reject(enum dev d, enum fam f, unsigned int len)
{
	struct kep *l, *c, *s;

	if (!scen("kapi/conn/%s%s/reject-%u", dev_name_[d], fam_name[f], len))
		return;
	l = listener(dev_addr[d][f], port0);
	if (!l)
		goto out;
	c = start_conn(l, d, f, &s);
	if (s && !reject_len(s, len))
		wait_ev(c, EV_MS, NULL);
out:
	done();
}

/* No listener: the CM's or the wire's reject, through the helpers. */
static void conn_no_listener(enum dev d, enum fam f)
{
	struct kep *c;

	if (!scen("kapi/conn/%s%s/no-listener", dev_name_[d], fam_name[f]))
		return;
	c = kep_new("C", RDMA_PS_TCP, IB_QPT_RC);
	if (c && reach(c, dev_addr[d][f], port0 + 1) && !kep_qp(c) &&
	    !connect_len(c, 8))
		wait_ev(c, EV_MS, NULL);
	done();
}

/*
 * The listener's handler returns non-zero for a request: the CM must
 * destroy the new id and refuse the client. That the id is gone shows
 * in our CM's listing of ids, which the harness finds empty at its end
 * (expect_no_ids): ours does not put its ids in ib_core's restrack.
 */
static void conn_req_handler_fails(enum dev d, enum fam f)
{
	struct kep *l, *c, *s;

	if (!scen("kapi/conn/%s%s/req-handler-fails", dev_name_[d],
		  fam_name[f]))
		return;
	l = listener(dev_addr[d][f], port0);
	if (!l)
		goto out;
	l->mode = H_FAIL;
	l->fail_on = RDMA_CM_EVENT_CONNECT_REQUEST;
	c = start_conn(l, d, f, &s);
	wait_ev(c, EV_MS, NULL);
out:
	done();
}

/*
 * The client's handler returns non-zero for the REP (RoCE, no QP: a
 * CONNECT_RESPONSE): the CM must destroy the client's id, whose REJ
 * tells the server; the id's end shows as the request's does.
 */
static void conn_active_handler_fails(enum dev d, enum fam f)
{
	struct kep *l, *c, *s;

	if (!scen("kapi/conn/%s%s/rep-handler-fails", dev_name_[d],
		  fam_name[f]))
		return;
	l = listener(dev_addr[d][f], port0);
	if (!l)
		goto out;
	c = kep_new("C", RDMA_PS_TCP, IB_QPT_RC);
	if (!c || !reach(c, dev_addr[d][f], port0))
		goto out;
	c->mode = H_FAIL;
	c->fail_on = RDMA_CM_EVENT_CONNECT_RESPONSE;
	if (connect_len(c, 8) ||
	    wait_ev(l, EV_MS, &s) != RDMA_CM_EVENT_CONNECT_REQUEST || !s ||
	    accept_len(s, 8) ||
	    wait_ev(c, EV_MS, NULL) != RDMA_CM_EVENT_CONNECT_RESPONSE)
		goto out;
	wait_ev(s, EV_MS, NULL);
out:
	done();
}

/* The server disconnects; then the calls on the disconnected ids. */
static void conn_server_disconnect(enum dev d, enum fam f)
{
	struct kep *l, *c, *s;

	if (!scen("kapi/conn/%s%s/server-disconnect", dev_name_[d],
		  fam_name[f]))
		return;
	l = listener(dev_addr[d][f], port0);
	if (!l)
		goto out;
	c = start_conn(l, d, f, &s);
	if (!s || accept_len(s, 0) || !established(c, s) ||
	    call("S", "disconnect", rdma_disconnect(s->id)))
		goto out;
	wait_ev(c, EV_MS, NULL);
	call("C", "disconnect", rdma_disconnect(c->id));
	wait_ev(s, EV_MS, NULL);
	call("S", "disconnect", rdma_disconnect(s->id));
	call("S", "notify", rdma_notify(s->id, IB_EVENT_COMM_EST));
	rec_gids(s);
out:
	done();
}

/*
 * A resolution's handler returns non-zero (ADDR_RESOLVED or
 * ROUTE_RESOLVED): the CM must destroy the id; nothing follows on the
 * wire, so only our listing of ids, empty at the harness's end, shows it.
 */
static void conn_resolve_handler_fails(enum dev d, enum fam f, bool route)
{
	struct kep *c;

	if (!scen("kapi/conn/%s%s/%s-handler-fails", dev_name_[d],
		  fam_name[f], route ? "route" : "addr"))
		return;
	/*
	 * 6.1's rdma_resolve_route() on RoCE queues the event's work, then
	 * adds the id to its tree of ids: a handler that fails destroys and
	 * frees the id in between when the work runs first (KASAN:
	 * use-after-free in rdma_resolve_route). In-box is spared it.
	 */
	if (inbox && route && d == RXE) {
		rec("C spared: in-box frees the id under rdma_resolve_route");
		goto out;
	}
	c = kep_new("C", RDMA_PS_TCP, IB_QPT_RC);
	if (!c)
		goto out;
	c->mode = H_FAIL;
	c->fail_on = route ? RDMA_CM_EVENT_ROUTE_RESOLVED :
			     RDMA_CM_EVENT_ADDR_RESOLVED;
	if (route)
		reach(c, dev_addr[d][f], port0);
	else if (!resolve(c, dev_addr[d][f], port0))
		wait_ev(c, EV_MS, NULL);
out:
	done();
}

/* The calls of a connection's matrix, on an established id. */
enum ccall { CC_BIND, CC_LISTEN, CC_CONNECT, CC_ACCEPT, CC_REJECT,
	     CC_NOTIFY, CC_RTR, CC_RTS, CC_ACK_TIMEOUT, CC_MIN_RNR, NCCALLS };
static const char *const ccall_name[NCCALLS] = {
	"bind", "listen", "connect", "accept", "reject", "notify",
	"init_qp_attr_rtr", "init_qp_attr_rts", "ack_timeout",
	"min_rnr_timer",
};

static void init_attr(struct kep *e, enum ib_qp_state state)
{
	struct ib_qp_attr qa = { .qp_state = state };
	int mask = 0, ret;

	ret = rdma_init_qp_attr(e->id, &qa, &mask);
	call(e->name, state == IB_QPS_RTR ? "init_qp_attr(RTR)" :
	     "init_qp_attr(RTS)", ret);
	if (ret)
		return;
	rec("%s   qp_attr mask=0x%x mtu=%d rd=%u dest_rd=%u timeout=%u min_rnr=%u",
	    e->name, mask, qa.path_mtu, qa.max_rd_atomic,
	    qa.max_dest_rd_atomic, qa.timeout, qa.min_rnr_timer);
	rec("%s   qp_attr retry=%u rnr_retry=%u pkey=%u port=%u access=0x%x",
	    e->name, qa.retry_cnt, qa.rnr_retry, qa.pkey_index, qa.port_num,
	    qa.qp_access_flags);
}

static void conn_matrix_one(enum dev d, enum fam f, bool passive,
			    enum ccall cc)
{
	struct kep *l, *c, *s, *t;

	if (!scen("kapi/connmatrix/%s%s/established_%s/%s", dev_name_[d],
		  fam_name[f], passive ? "passive" : "active", ccall_name[cc]))
		return;
	l = listener(dev_addr[d][f], port0);
	if (!l)
		goto out;
	c = start_conn(l, d, f, &s);
	if (!s || accept_len(s, 0) || !established(c, s))
		goto out;
	t = passive ? s : c;
	switch (cc) {
	case CC_BIND:
		bind_to(t, dev_addr[d][f], port0 + 2);
		break;
	case CC_LISTEN:
		call(t->name, "listen", rdma_listen(t->id, 1));
		break;
	case CC_CONNECT:
		connect_len(t, 0);
		break;
	case CC_ACCEPT:
		accept_len(t, 0);
		break;
	case CC_REJECT:
		reject_len(t, 0);
		break;
	case CC_NOTIFY:
		call(t->name, "notify", rdma_notify(t->id, IB_EVENT_COMM_EST));
		break;
	case CC_RTR:
		init_attr(t, IB_QPS_RTR);
		break;
	case CC_RTS:
		init_attr(t, IB_QPS_RTS);
		break;
	case CC_ACK_TIMEOUT:
		call(t->name, "set_ack_timeout(14)",
		     rdma_set_ack_timeout(t->id, 14));
		rec_qp(t);
		break;
	case CC_MIN_RNR:
		call(t->name, "set_min_rnr_timer(12)",
		     rdma_set_min_rnr_timer(t->id, 12));
		rec_qp(t);
		break;
	default:
		break;
	}
out:
	done();
}

static void fam_conn_matrix(void)
{
	enum ccall cc;
	enum dev d;
	enum fam f;
	int side;

	for (d = 0; d < NDEVS; d++)
		for (f = 0; f < NFAMS; f++)
			for (side = 0; side < 2; side++)
				for (cc = 0; cc < NCCALLS; cc++)
					conn_matrix_one(d, f, side, cc);
}

static void fam_conn(void)
{
	enum dev d;
	enum fam f;

	for (d = 0; d < NDEVS; d++) {
		for (f = 0; f < NFAMS; f++) {
			conn_qp(d, f, false);
			conn_qp(d, f, true);
			conn_accept_in_handler(d, f);
			conn_connect_locked(d, f);
			conn_reject(d, f, 0);
			conn_reject(d, f, 5);
			conn_no_listener(d, f);
			conn_req_handler_fails(d, f);
			conn_resolve_handler_fails(d, f, false);
			conn_resolve_handler_fails(d, f, true);
			if (d == RXE)
				conn_active_handler_fails(d, f);
			conn_server_disconnect(d, f);
		}
	}
}

/* ---- multicast --------------------------------------------------------- */

/*
 * A UD id of the UDP port space joins a group from a bound or a resolved
 * id, leaves, joins again and is destroyed joined. RoCE over IPv4 only:
 * in-box refuses IPv6 groups on RoCEv2 and every join on iWARP, which
 * the user-space scenarios already compare.
 */
static void mcast_one(enum dev d, enum fam f, bool resolved)
{
	struct sockaddr_storage g;
	struct kep *m;

	if (!scen("kapi/mcast/%s%s/%s", dev_name_[d], fam_name[f],
		  resolved ? "resolved" : "bound"))
		return;
	m = kep_new("M", RDMA_PS_UDP, IB_QPT_UD);
	if (!m)
		goto out;
	if (!resolved && bind_to(m, dev_addr[d][f], port0))
		goto out;
	if (resolved && (resolve(m, dev_addr[d][f], port0) ||
			 wait_ev(m, EV_MS, NULL) != RDMA_CM_EVENT_ADDR_RESOLVED))
		goto out;
	mc_addr(&g, f);
	if (call("M", "join", rdma_join_multicast(m->id, (void *)&g,
						  BIT(FULLMEMBER_JOIN), m)))
		goto out;
	wait_ev(m, EV_MS, NULL);
	rdma_leave_multicast(m->id, (void *)&g);
	rec("M leave = void");
	if (!call("M", "join", rdma_join_multicast(m->id, (void *)&g,
						   BIT(FULLMEMBER_JOIN), m)))
		wait_ev(m, EV_MS, NULL);
out:
	done();
}

static void fam_mcast(void)
{
	mcast_one(RXE, V4, false);
	mcast_one(RXE, V4, true);
}

/* ---- the message helpers ---------------------------------------------- */

static void fam_msg(void)
{
	static const int iw_reasons[] = {
		0, -ECONNREFUSED, -ECONNRESET, -ETIMEDOUT, -EINVAL, 28,
	};
	unsigned int j;
	struct kep *e;
	enum dev d;
	int i;

	if (scen("kapi/msg/event_msg")) {
		/* 6.1's events, and values beyond its enum */
		for (i = -1; i <= RDMA_CM_EVENT_TIMEWAIT_EXIT; i++)
			rec("event_msg(%d) = \"%s\"", i, rdma_event_msg(i));
		rec("event_msg(100) = \"%s\"", rdma_event_msg(100));
		done();
	}
	for (d = 0; d < NDEVS; d++) {
		if (!scen("kapi/msg/%s/reject_msg", dev_name_[d]))
			continue;
		e = kep_new("A", RDMA_PS_TCP, IB_QPT_RC);
		if (e && !bind_to(e, dev_addr[d][V4], port0)) {
			if (d == RXE)
				for (i = 0; i <= 36; i++)
					rec("reject_msg(%d) = \"%s\"", i,
					    rdma_reject_msg(e->id, i));
			else
				for (j = 0; j < ARRAY_SIZE(iw_reasons); j++)
					rec("reject_msg(%d) = \"%s\"",
					    iw_reasons[j],
					    rdma_reject_msg(e->id,
							    iw_reasons[j]));
		}
		done();
	}
}

/*
 * Port spaces with QP types that do not go together: the in-box CM takes
 * any QP type at create, and the id fails, or not, where the type is used.
 */
static void fam_create(void)
{
	static const struct {
		const char *name;
		enum rdma_ucm_port_space ps;
		enum ib_qp_type qpt;
	} cases[] = {
		{ "tcp-ud", RDMA_PS_TCP, IB_QPT_UD },
		{ "udp-rc", RDMA_PS_UDP, IB_QPT_RC },
		{ "ipoib-rc", RDMA_PS_IPOIB, IB_QPT_RC },
		{ "ib-gsi", RDMA_PS_IB, IB_QPT_GSI },
		{ "ib-raw", RDMA_PS_IB, IB_QPT_RAW_PACKET },
		{ "ib-uc", RDMA_PS_IB, IB_QPT_UC },
		{ "unknown-ps", 0x0999, IB_QPT_RC },
	};
	unsigned int i;
	struct kep *c;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (!scen("kapi/create/%s", cases[i].name))
			continue;
		c = kep_new("C", cases[i].ps, cases[i].qpt);
		if (c && reach(c, dev_addr[RXE][V4], port0 + 1) &&
		    !connect_len(c, 8))
			wait_ev(c, EV_MS, NULL);
		done();
	}
}

/* ---- the module ---------------------------------------------------- */

static int __init cm_kdiff_init(void)
{
	const char *names[NDEVS] = { rxe_dev, siw_dev };
	enum dev d;

	dev_addr[RXE][V4] = rxe4;
	dev_addr[RXE][V6] = rxe6;
	dev_addr[SIW][V4] = siw4;
	dev_addr[SIW][V6] = siw6;
	if (!rxe4 || !rxe6 || !siw4 || !siw6) {
		pr_err("rxe4=, rxe6=, siw4= and siw6= are needed\n");
		return -EINVAL;
	}
	for (d = 0; d < NDEVS; d++) {
		dev_ib[d] = ib_device_get_by_name(names[d], RDMA_DRIVER_UNKNOWN);
		if (!dev_ib[d]) {
			pr_err("no device %s\n", names[d]);
			goto put;
		}
	}
	record = vzalloc(REC_SIZE);
	if (!record)
		goto put;

	fam_msg();
	fam_create();
	fam_matrix();
	fam_conn();
	fam_conn_matrix();
	fam_mcast();

	blob.data = record;
	blob.size = rec_len;
	dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_blob("record", 0444, dir, &blob);
	for (d = 0; d < NDEVS; d++)
		ib_device_put(dev_ib[d]);
	pr_info("%u scenarios\n", nr_scen);
	return 0;
put:
	while (d-- > 0)
		ib_device_put(dev_ib[d]);
	return -ENODEV;
}

static void __exit cm_kdiff_exit(void)
{
	debugfs_remove(dir);
	vfree(record);
}

module_init(cm_kdiff_init);
module_exit(cm_kdiff_exit);
MODULE_DESCRIPTION("The differential harness's scenarios from the kernel API");
MODULE_LICENSE("GPL");
