// SPDX-License-Identifier: GPL-2.0
/*
 * cm_e2e endpoints: an rdma_cm_id, its CM event log, and the verbs
 * resources (PD, directly polled CQ, RC QP, two buffers) to move one
 * message each way.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/unaligned.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "cm_e2e.h"

#define CME_WR_SEND	0x5e
#define CME_WR_RECV	0x7e
#define CME_CQ_SIZE	16
#define CME_QP_WRS	4
/**
 * struct cme_tag - what a tagged message says of its sender
 * @qpn: its QP number
 * @sport: its id's source port
 * @dport: its id's destination port
 * @saddr: its id's source address, IPv4 mapped to IPv6
 * @daddr: its id's destination address, the same way
 *
 * It follows the connection's number (the first 4 bytes); the rest of
 * the message is the pattern.
 */
struct cme_tag {
	__le32 qpn;
	__be16 sport;
	__be16 dport;
	struct in6_addr saddr;
	struct in6_addr daddr;
} __packed;

#define CME_TAG_AT	4
static_assert(CME_TAG_AT + sizeof(struct cme_tag) <= CME_MSG_LEN);

/* Fewer messages, for the scenarios that make many connections. */
bool cme_quiet;

static const char *const cme_event_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[RDMA_CM_EVENT_ADDR_ERROR] = "ADDR_ERROR",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "ROUTE_ERROR",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "CONNECT_RESPONSE",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "CONNECT_ERROR",
	[RDMA_CM_EVENT_UNREACHABLE] = "UNREACHABLE",
	[RDMA_CM_EVENT_REJECTED] = "REJECTED",
	[RDMA_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
	[RDMA_CM_EVENT_DISCONNECTED] = "DISCONNECTED",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "MULTICAST_JOIN",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "MULTICAST_ERROR",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "ADDR_CHANGE",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
};

/**
 * cme_event_name() - short name of a CM event type
 * @type: the event type
 *
 * Return: the name without the RDMA_CM_EVENT_ prefix, or "?".
 */
const char *cme_event_name(enum rdma_cm_event_type type)
{
	if ((unsigned int)type < ARRAY_SIZE(cme_event_names) &&
	    cme_event_names[type])
		return cme_event_names[type];
	return "?";
}

/**
 * cme_expect() - compare a return value with the expected one
 * @what: the call, for the message
 * @got: what it returned
 * @want: what it should have returned
 *
 * Return: 0 if they match, else -EPROTO after saying so.
 */
int cme_expect(const char *what, int got, int want)
{
	if (got != want) {
		pr_err("FAIL: %s returned %d, expected %d\n", what, got, want);
		return -EPROTO;
	}
	if (!cme_quiet)
		pr_info("ok: %s returned %d\n", what, got);
	return 0;
}

static u8 cme_pattern_byte(size_t i, u8 seed, u32 index)
{
	u8 le[4];

	if (i < sizeof(le)) {
		put_unaligned_le32(index, le);
		return le[i];
	}
	return (u8)(seed + i * 7 + index * 3);
}

/**
 * cme_pattern() - fill a buffer with a message's byte pattern
 * @buf: the buffer
 * @len: its length
 * @seed: which kind of message (CME_SEED_*)
 * @index: the connection's number, also stored little-endian first
 */
void cme_pattern(u8 *buf, size_t len, u8 seed, u32 index)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = cme_pattern_byte(i, seed, index);
}

/**
 * cme_check_pattern() - check that a buffer holds a message's pattern
 * @what: what the buffer is, for the message
 * @buf: the buffer
 * @len: how many bytes to check
 * @seed: which kind of message (CME_SEED_*)
 * @index: the connection's number
 *
 * Return: 0 if all @len bytes match, else -EPROTO after saying where.
 */
int cme_check_pattern(const char *what, const u8 *buf, size_t len, u8 seed,
		      u32 index)
{
	size_t i;
	u8 want;

	for (i = 0; i < len; i++) {
		want = cme_pattern_byte(i, seed, index);
		if (buf[i] != want) {
			pr_err("FAIL: %s: byte %zu is 0x%02x, expected 0x%02x\n",
			       what, i, buf[i], want);
			print_hex_dump(KERN_ERR, "cm_e2e: got: ",
				       DUMP_PREFIX_OFFSET, 16, 1, buf,
				       min_t(size_t, len, 64), false);
			return -EPROTO;
		}
	}
	return 0;
}

/**
 * cme_ep_alloc() - allocate an endpoint without an id
 * @fmt: printf format of its name
 *
 * Return: the endpoint, or NULL when out of memory.
 */
struct cme_ep *cme_ep_alloc(const char *fmt, ...)
{
	struct cme_ep *ep;
	va_list ap;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return NULL;
	ep->kind = CME_KIND_EP;
	va_start(ap, fmt);
	vsnprintf(ep->name, sizeof(ep->name), fmt, ap);
	va_end(ap);
	spin_lock_init(&ep->lock);
	init_waitqueue_head(&ep->wq);
	INIT_LIST_HEAD(&ep->node);
	return ep;
}

/**
 * cme_ep_create_id() - give an endpoint an RC id in the TCP port space
 * @ep: the endpoint
 * @net: the network namespace of the id
 *
 * Return: 0 or the negative errno rdma_create_id() gave.
 */
int cme_ep_create_id(struct cme_ep *ep, struct net *net)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(net, cme_cm_handler, ep, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		pr_err("FAIL: %s: rdma_create_id: %ld\n", ep->name,
		       PTR_ERR(id));
		return PTR_ERR(id);
	}
	ep->id = id;
	return 0;
}

/**
 * cme_ep_record() - log a CM event of an endpoint's id
 * @ep: the endpoint
 * @id: the id the event is for
 * @ev: the event
 * @new_id: for CONNECT_REQUEST, @id is not the listening id
 * @gone: the handler returns non-zero, so the CM destroys @id
 *
 * Called from the id's event handler, which the CM serializes, so there
 * is one writer at a time.  Waiters may free @ep as soon as they see the
 * event, so this is the handler's last access to @ep.
 */
void cme_ep_record(struct cme_ep *ep, struct rdma_cm_id *id,
		   struct rdma_cm_event *ev, bool new_id, bool gone)
{
	const struct rdma_conn_param *conn = &ev->param.conn;
	struct cme_event *e = NULL;
	unsigned int slot;
	const void *p;
	u8 len;

	spin_lock(&ep->lock);
	slot = ep->nr_events;
	spin_unlock(&ep->lock);

	if (slot < CME_MAX_EVENTS) {
		e = &ep->events[slot];
		e->type = ev->event;
		e->status = ev->status;
		e->new_id = new_id;
		e->ece = ev->ece;
		e->iwarp = id->device &&
			   rdma_protocol_iwarp(id->device, id->port_num);
		e->conn = *conn;
		e->conn.private_data = NULL;
		e->pdata_len = conn->private_data_len;
		e->has_pdata = !!conn->private_data;
		if (conn->private_data)
			memcpy(e->pdata, conn->private_data,
			       min_t(size_t, conn->private_data_len,
				     CME_PDATA_MAX));
		if (ev->event == RDMA_CM_EVENT_REJECTED) {
			p = rdma_consumer_reject_data(id, ev, &len);
			e->rej_data = p;
			e->rej_len = len;
			if (p)
				memcpy(e->rej_pdata, p,
				       min_t(size_t, len, CME_REJ_PDATA_MAX));
			e->rej_msg = rdma_reject_msg(id, ev->status);
		}
	}
	if (!cme_quiet)
		pr_info("%s: event %s status %d private data %u bytes%s\n",
			ep->name, cme_event_name(ev->event), ev->status,
			conn->private_data ? conn->private_data_len : 0,
			gone ? ", handler returns 1" : "");

	/* Wake up under the lock: waiters check under it, then may free. */
	spin_lock(&ep->lock);
	ep->nr_events++;
	if (gone)
		ep->id_gone = true;
	wake_up_all(&ep->wq);
	spin_unlock(&ep->lock);
}

/* Sleep in the handler, for a scenario to destroy the id meanwhile. */
static void cme_ep_nap(struct cme_ep *ep)
{
	spin_lock(&ep->lock);
	ep->handler_asleep = true;
	wake_up_all(&ep->wq);
	spin_unlock(&ep->lock);
	msleep(ep->sleep_on_established);
	WRITE_ONCE(ep->handler_awake, true);
}

static int cme_ep_event(struct cme_ep *ep, struct rdma_cm_id *id,
			struct rdma_cm_event *ev)
{
	bool gone = false;

	if (ev->event == RDMA_CM_EVENT_ESTABLISHED && ep->sleep_on_established)
		cme_ep_nap(ep);

	if (READ_ONCE(ep->destroy_on) & BIT(ev->event)) {
		spin_lock(&ep->lock);
		if (!ep->closing) {
			ep->dying = true;
			gone = true;
		}
		spin_unlock(&ep->lock);
	}
	/*
	 * The QP must go before the CM destroys the id. (On iWARP, not
	 * while iw_cm holds it for a live connection: see cm_e2e.h.)
	 */
	if (gone && id->qp)
		rdma_destroy_qp(id);
	if (ep->drive && !gone)
		cme_ep_drive(ep, ev);
	cme_ep_record(ep, id, ev, false, gone);
	return gone ? 1 : 0;
}

/*
 * Where Documentation/design.rst says a handler runs: a task that may
 * sleep, never an interrupt; a workqueue worker (the CM's, ib_core's
 * address one, the IB CM's, iw_cm's), or for DEVICE_REMOVAL the task
 * unregistering the device. A breach warns, which fails the run.
 */
static void cme_check_context(const struct rdma_cm_event *ev)
{
	bool worker = current->flags & PF_WQ_WORKER;

	might_sleep();
	WARN(!in_task() || irqs_disabled() ||
	     (!worker && ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL),
	     "%s handled in a wrong context (%s)\n",
	     cme_event_name(ev->event), current->comm);
}

/**
 * cme_cm_handler() - the rdma_cm event handler of every id of this module
 * @id: the id; for CONNECT_REQUEST a new one, with the listener's context
 * @ev: the event
 *
 * Called under @id's handler mutex, may sleep.
 *
 * Return: non-zero to have the CM destroy @id.
 */
int cme_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum cme_kind *kind = id->context;

	cme_check_context(ev);
	if (!kind) {
		pr_err("FAIL: %s for an id without context\n",
		       cme_event_name(ev->event));
		return 0;
	}
	if (*kind == CME_KIND_LISTENER)
		return cme_listener_event(id->context, id, ev);
	if (*kind == CME_KIND_EP)
		return cme_ep_event(id->context, id, ev);
	/* Not ours: the CM passed another context than the id's. */
	pr_err("FAIL: %s for an id whose context is not ours\n",
	       cme_event_name(ev->event));
	return 0;
}

/**
 * cme_ep_id_gone() - whether the CM destroyed the endpoint's id
 * @ep: the endpoint
 *
 * Return: true after a handler of @ep returned non-zero.
 */
bool cme_ep_id_gone(struct cme_ep *ep)
{
	bool gone;

	spin_lock(&ep->lock);
	gone = ep->id_gone;
	spin_unlock(&ep->lock);
	return gone;
}

/**
 * cme_ep_post_recv() - post the endpoint's receive buffer
 * @ep: the endpoint, with a QP
 *
 * Return: 0 or the negative errno ib_post_recv() gave.
 */
int cme_ep_post_recv(struct cme_ep *ep)
{
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = {};
	struct ib_sge sge;
	int ret;

	sge.addr = ep->recv_dma;
	sge.length = CME_MSG_LEN;
	sge.lkey = ep->pd->local_dma_lkey;
	wr.wr_id = CME_WR_RECV;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = ib_post_recv(ep->id->qp, &wr, &bad);
	if (ret)
		pr_err("FAIL: %s: ib_post_recv: %d\n", ep->name, ret);
	return ret;
}

/* An id's address as IPv6, IPv4 mapped; its port. */
static void cme_tag_addr(const struct sockaddr_storage *ss,
			 struct in6_addr *addr, __be16 *port)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

	if (ss->ss_family == AF_INET6) {
		*addr = sin6->sin6_addr;
		*port = sin6->sin6_port;
	} else {
		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr, addr);
		*port = sin->sin_port;
	}
}

/*
 * The tag @ep sends (QP @qpn, its addresses), or with @mirror the one it
 * expects from its peer (QP @qpn, its addresses swapped).
 */
static void cme_tag_of(struct cme_ep *ep, u32 qpn, bool mirror,
		       struct cme_tag *tag)
{
	const struct rdma_addr *a = &ep->id->route.addr;

	memset(tag, 0, sizeof(*tag));
	tag->qpn = cpu_to_le32(qpn);
	cme_tag_addr(mirror ? &a->dst_addr : &a->src_addr, &tag->saddr,
		     &tag->sport);
	cme_tag_addr(mirror ? &a->src_addr : &a->dst_addr, &tag->daddr,
		     &tag->dport);
}

/**
 * cme_ep_post_send() - send one message of a pattern
 * @ep: the endpoint, with a connected QP
 * @seed: the pattern (CME_SEED_*)
 * @index: the connection's number, part of the pattern
 *
 * A tagged endpoint puts its struct cme_tag after the number.
 *
 * Return: 0 or the negative errno ib_post_send() gave.
 */
int cme_ep_post_send(struct cme_ep *ep, u8 seed, u32 index)
{
	const struct ib_send_wr *bad;
	struct ib_send_wr wr = {};
	struct cme_tag tag;
	struct ib_sge sge;
	int ret;

	ib_dma_sync_single_for_cpu(ep->dma_dev, ep->send_dma, CME_MSG_LEN,
				   DMA_TO_DEVICE);
	cme_pattern(ep->send_buf, CME_MSG_LEN, seed, index);
	if (ep->tagged) {
		cme_tag_of(ep, ep->qp_num, false, &tag);
		memcpy(ep->send_buf + CME_TAG_AT, &tag, sizeof(tag));
	}
	ib_dma_sync_single_for_device(ep->dma_dev, ep->send_dma, CME_MSG_LEN,
				      DMA_TO_DEVICE);
	sge.addr = ep->send_dma;
	sge.length = CME_MSG_LEN;
	sge.lkey = ep->pd->local_dma_lkey;
	wr.wr_id = CME_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	ret = ib_post_send(ep->id->qp, &wr, &bad);
	if (ret)
		pr_err("FAIL: %s: ib_post_send: %d\n", ep->name, ret);
	return ret;
}

/**
 * cme_ep_wait_wc() - poll the CQ until enough work completed
 * @ep: the endpoint
 * @sends: successful send completions to reach, in all
 * @recvs: successful receive completions to reach, in all
 *
 * Return: 0, -EIO on a failed completion, -ETIMEDOUT.
 */
int cme_ep_wait_wc(struct cme_ep *ep, unsigned int sends, unsigned int recvs)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(cme_timeout_ms);
	struct ib_wc wc;
	int n;

	while (ep->nr_send_done < sends || ep->nr_recv_done < recvs) {
		n = ib_poll_cq(ep->cq, 1, &wc);
		if (n < 0) {
			pr_err("FAIL: %s: ib_poll_cq: %d\n", ep->name, n);
			return n;
		}
		if (!n) {
			if (time_after(jiffies, deadline)) {
				pr_err("FAIL: %s: no completion in %u ms (%u/%u sends, %u/%u receives)\n",
				       ep->name, cme_timeout_ms,
				       ep->nr_send_done, sends,
				       ep->nr_recv_done, recvs);
				return -ETIMEDOUT;
			}
			usleep_range(200, 1000);
			continue;
		}
		if (wc.status != IB_WC_SUCCESS) {
			pr_err("FAIL: %s: %s completion: %s\n", ep->name,
			       wc.wr_id == CME_WR_SEND ? "send" : "receive",
			       ib_wc_status_msg(wc.status));
			return -EIO;
		}
		if (wc.wr_id == CME_WR_SEND) {
			ep->nr_send_done++;
		} else {
			ep->nr_recv_done++;
			ep->recv_len = wc.byte_len;
		}
	}
	return 0;
}

/**
 * cme_ep_check_recv() - check the message last received
 * @ep: the endpoint
 * @seed: the pattern it should carry (CME_SEED_*)
 * @index: the connection's number, part of the pattern
 *
 * A tagged endpoint also checks the peer's struct cme_tag: the QP the
 * CM named, and the endpoint's own addresses mirrored.
 *
 * Return: 0 if it is CME_MSG_LEN bytes of the pattern, else -EPROTO.
 */
int cme_ep_check_recv(struct cme_ep *ep, u8 seed, u32 index)
{
	u8 msg[CME_MSG_LEN], want[CME_MSG_LEN];
	struct cme_tag got, exp;
	char what[48];

	if (ep->recv_len != CME_MSG_LEN) {
		pr_err("FAIL: %s: received %u bytes, expected %u\n", ep->name,
		       ep->recv_len, CME_MSG_LEN);
		return -EPROTO;
	}
	ib_dma_sync_single_for_cpu(ep->dma_dev, ep->recv_dma, CME_MSG_LEN,
				   DMA_FROM_DEVICE);
	memcpy(msg, ep->recv_buf, sizeof(msg));
	if (ep->tagged) {
		memcpy(&got, msg + CME_TAG_AT, sizeof(got));
		cme_tag_of(ep, ep->peer_qpn, true, &exp);
		if (memcmp(&got, &exp, sizeof(got))) {
			pr_err("FAIL: %s: the message comes from QP %u, [%pI6c]:%u -> [%pI6c]:%u; the CM said QP %u, [%pI6c]:%u -> [%pI6c]:%u\n",
			       ep->name, le32_to_cpu(got.qpn), &got.saddr,
			       ntohs(got.sport), &got.daddr, ntohs(got.dport),
			       le32_to_cpu(exp.qpn), &exp.saddr,
			       ntohs(exp.sport), &exp.daddr, ntohs(exp.dport));
			return -EPROTO;
		}
		/* The rest is the pattern: put its bytes back there. */
		cme_pattern(want, sizeof(want), seed, index);
		memcpy(msg + CME_TAG_AT, want + CME_TAG_AT, sizeof(got));
	}
	snprintf(what, sizeof(what), "%s: received message", ep->name);
	return cme_check_pattern(what, msg, CME_MSG_LEN, seed, index);
}

static int cme_ep_map(struct cme_ep *ep)
{
	struct ib_device *dev = ep->id->device;

	ep->send_buf = kzalloc(CME_MSG_LEN, GFP_KERNEL);
	ep->recv_buf = kzalloc(CME_MSG_LEN, GFP_KERNEL);
	if (!ep->send_buf || !ep->recv_buf)
		return -ENOMEM;
	ep->dma_dev = dev;
	ep->send_dma = ib_dma_map_single(dev, ep->send_buf, CME_MSG_LEN,
					 DMA_TO_DEVICE);
	if (ib_dma_mapping_error(dev, ep->send_dma))
		return -ENOMEM;
	ep->send_mapped = true;
	ep->recv_dma = ib_dma_map_single(dev, ep->recv_buf, CME_MSG_LEN,
					 DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(dev, ep->recv_dma))
		return -ENOMEM;
	ep->recv_mapped = true;
	return 0;
}

/**
 * cme_ep_setup_qp() - PD, CQ, QP and buffers on the id's device
 * @ep: the endpoint, its id bound to a device
 *
 * Makes an RC QP with rdma_create_qp() and posts one receive.  On
 * failure what was made stays for cme_ep_destroy().
 *
 * Return: 0 or a negative errno.
 */
int cme_ep_setup_qp(struct cme_ep *ep)
{
	struct ib_qp_init_attr attr = {};
	struct ib_device *dev = ep->id->device;
	int ret;

	if (!dev) {
		pr_err("FAIL: %s: the id has no device\n", ep->name);
		return -ENODEV;
	}
	ep->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(ep->pd)) {
		ret = PTR_ERR(ep->pd);
		ep->pd = NULL;
		pr_err("FAIL: %s: ib_alloc_pd: %d\n", ep->name, ret);
		return ret;
	}
	ep->cq = ib_alloc_cq(dev, ep, CME_CQ_SIZE, 0, IB_POLL_DIRECT);
	if (IS_ERR(ep->cq)) {
		ret = PTR_ERR(ep->cq);
		ep->cq = NULL;
		pr_err("FAIL: %s: ib_alloc_cq: %d\n", ep->name, ret);
		return ret;
	}
	ret = cme_ep_map(ep);
	if (ret) {
		pr_err("FAIL: %s: buffers: %d\n", ep->name, ret);
		return ret;
	}
	attr.qp_context = ep;
	attr.send_cq = ep->cq;
	attr.recv_cq = ep->cq;
	attr.cap.max_send_wr = CME_QP_WRS;
	attr.cap.max_recv_wr = CME_QP_WRS;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_ALL_WR;
	attr.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(ep->id, ep->pd, &attr);
	if (ret) {
		/*
		 * Not a failure in itself: a passive id whose peer gave up
		 * has no connection left to take a QP (-EINVAL). The
		 * caller's check says whether one was expected.
		 */
		pr_info("%s: rdma_create_qp: %d\n", ep->name, ret);
		return ret;
	}
	ep->qp_num = ep->id->qp->qp_num;
	return cme_ep_post_recv(ep);
}

/**
 * cme_ep_destroy_qp() - destroy the endpoint's QP, if it has one
 * @ep: the endpoint, its id not yet destroyed
 */
void cme_ep_destroy_qp(struct cme_ep *ep)
{
	if (ep->id && ep->id->qp)
		rdma_destroy_qp(ep->id);
}

/* Wait until a handler that returns non-zero on @ep has finished. */
static void cme_ep_settle(struct cme_ep *ep)
{
	bool busy;

	spin_lock(&ep->lock);
	ep->closing = true;
	busy = ep->dying && !ep->id_gone;
	spin_unlock(&ep->lock);
	if (busy && !wait_event_timeout(ep->wq, cme_ep_id_gone(ep),
					msecs_to_jiffies(cme_timeout_ms)))
		pr_err("FAIL: %s: the handler does not finish\n", ep->name);
}

/**
 * cme_ep_destroy() - destroy an endpoint and everything it has
 * @ep: the endpoint, or NULL
 *
 * QP first, then the id (unless the CM destroyed it), the CQ, the
 * buffers, the PD.  Once rdma_destroy_id() returns no handler runs for
 * the id, so @ep can go.
 */
void cme_ep_destroy(struct cme_ep *ep)
{
	if (!ep)
		return;
	if (ep->id) {
		cme_ep_settle(ep);
		if (!cme_ep_id_gone(ep)) {
			cme_ep_destroy_qp(ep);
			rdma_destroy_id(ep->id);
		}
		ep->id = NULL;
	}
	if (ep->cq)
		ib_free_cq(ep->cq);
	if (ep->send_mapped)
		ib_dma_unmap_single(ep->dma_dev, ep->send_dma, CME_MSG_LEN,
				    DMA_TO_DEVICE);
	if (ep->recv_mapped)
		ib_dma_unmap_single(ep->dma_dev, ep->recv_dma, CME_MSG_LEN,
				    DMA_FROM_DEVICE);
	if (ep->pd)
		ib_dealloc_pd(ep->pd);
	kfree(ep->send_buf);
	kfree(ep->recv_buf);
	kfree(ep);
}

/* The next event after the cursor, NULL if none yet. */
static const struct cme_event *cme_ep_next(struct cme_ep *ep)
{
	const struct cme_event *e = NULL;

	spin_lock(&ep->lock);
	if (ep->cursor < ep->nr_events) {
		if (ep->cursor < CME_MAX_EVENTS)
			e = &ep->events[ep->cursor++];
		else
			e = ERR_PTR(-EOVERFLOW);
	}
	spin_unlock(&ep->lock);
	return e;
}

static bool cme_ep_pending(struct cme_ep *ep)
{
	bool pending;

	spin_lock(&ep->lock);
	pending = ep->cursor < ep->nr_events;
	spin_unlock(&ep->lock);
	return pending;
}

/**
 * cme_ep_wait_past() - wait for an event of one type, allowing others
 * @ep: the endpoint
 * @type: the event awaited
 * @skip: a mask of BIT(event type) for events that may come before it
 *
 * TIMEWAIT_EXIT events on the way are always skipped: when they come is
 * up to the CM.  Any other event not in @skip is a failure.
 *
 * Return: the event, valid as long as @ep, or an ERR_PTR: -EPROTO for
 * another event, -ETIMEDOUT after cme_timeout_ms.
 */
const struct cme_event *cme_ep_wait_past(struct cme_ep *ep,
					 enum rdma_cm_event_type type,
					 unsigned long skip)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(cme_timeout_ms);
	const struct cme_event *e;
	long left;

	skip |= BIT(RDMA_CM_EVENT_TIMEWAIT_EXIT);
	for (;;) {
		e = cme_ep_next(ep);
		if (IS_ERR(e)) {
			pr_err("FAIL: %s: too many events\n", ep->name);
			return e;
		}
		if (e && e->type == type)
			return e;
		if (e && (skip & BIT(e->type)))
			continue;
		if (e) {
			pr_err("FAIL: %s: expected %s, got %s (status %d)\n",
			       ep->name, cme_event_name(type),
			       cme_event_name(e->type), e->status);
			return ERR_PTR(-EPROTO);
		}
		left = deadline - jiffies;
		if (left <= 0) {
			pr_err("FAIL: %s: no %s in %u ms\n", ep->name,
			       cme_event_name(type), cme_timeout_ms);
			return ERR_PTR(-ETIMEDOUT);
		}
		wait_event_timeout(ep->wq, cme_ep_pending(ep), left);
	}
}

/**
 * cme_ep_wait() - wait for the endpoint's next event, which must be @type
 * @ep: the endpoint
 * @type: the event expected next
 *
 * As cme_ep_wait_past() with only TIMEWAIT_EXIT allowed on the way.
 *
 * Return: the event or an ERR_PTR, as cme_ep_wait_past().
 */
const struct cme_event *cme_ep_wait(struct cme_ep *ep,
				    enum rdma_cm_event_type type)
{
	return cme_ep_wait_past(ep, type, 0);
}

/**
 * cme_ep_expect_quiet() - check that no event but TIMEWAIT_EXIT comes
 * @ep: the endpoint
 * @ms: how long to watch
 *
 * An extra check, never a scenario's verdict on its own: after a reject,
 * and on iWARP after a disconnect, no event marks the end of what the CM
 * may still deliver, so a stray event is caught only if it comes within
 * @ms. Every step a scenario depends on waits for its own event.
 *
 * Return: 0, or -EPROTO if another event came.
 */
int cme_ep_expect_quiet(struct cme_ep *ep, unsigned int ms)
{
	const struct cme_event *e;

	msleep(ms);
	while ((e = cme_ep_next(ep))) {
		if (IS_ERR(e))
			return PTR_ERR(e);
		if (e->type == RDMA_CM_EVENT_TIMEWAIT_EXIT)
			continue;
		pr_err("FAIL: %s: unexpected %s (status %d)\n", ep->name,
		       cme_event_name(e->type), e->status);
		return -EPROTO;
	}
	return 0;
}

/**
 * cme_ep_dump() - print the endpoint's event log on one line
 * @ep: the endpoint
 */
void cme_ep_dump(struct cme_ep *ep)
{
	char line[256];
	unsigned int i, n;
	int len = 0;

	spin_lock(&ep->lock);
	n = min_t(unsigned int, ep->nr_events, CME_MAX_EVENTS);
	for (i = 0; i < n; i++)
		len += scnprintf(line + len, sizeof(line) - len, " %s(%d,%u)",
				 cme_event_name(ep->events[i].type),
				 ep->events[i].status,
				 ep->events[i].pdata_len);
	spin_unlock(&ep->lock);
	pr_info("%s: events (status,private_data_len):%s\n", ep->name,
		n ? line : " none");
}
