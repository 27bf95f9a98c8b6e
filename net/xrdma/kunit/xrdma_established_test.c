// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_established: what a sender sees of a connection coming up.  The
 * CM event handler is called with ESTABLISHED as the CM would call it;
 * the transport and its connection are built by hand, on a device that
 * has SEND_WITH_INV and immediate data, and the peer's private data
 * asks for less than the local inline size.
 */
#include <rdma/rdma_cm.h>

#include "xrdma.h"
#include "xrdma_kunit.h"

/* The local inline size, with header room, and the peer's. */
#define EST_TEST_LOCAL	(4096 + XRDMA_HDR_MAX)
#define EST_TEST_PEER	(XRDMA_MIN_INLINE + XRDMA_HDR_MAX)

/**
 * struct est_test - a transport with a connection coming up
 * @xprt: the transport
 * @ep: its connection, whose owner's reference is the only one
 * @id: the connection's id
 * @qp: its QP
 * @dev: its device
 * @port: the device's ports, 1 being the id's
 * @pd: the peer's private data
 * @ev: ESTABLISHED, with @pd
 * @disconnects: runs of the transport's disconnect work
 */
struct est_test {
	struct xrdma_xprt xprt;
	struct xrdma_ep ep;
	struct rdma_cm_id id;
	struct ib_qp qp;
	struct ib_device dev;
	struct ib_port_data port[2];
	struct xrdma_cm_private pd;
	struct rdma_cm_event ev;
	unsigned int disconnects;
};

static void est_test_disconnect(struct work_struct *work)
{
	struct est_test *t = container_of(work, struct est_test,
					  xprt.disconnect_work);

	t->disconnects++;
}

static struct est_test *est_test_make(struct kunit *test, bool passive)
{
	struct est_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	mutex_init(&t->xprt.mutex);
	spin_lock_init(&t->xprt.send_lock);
	init_waitqueue_head(&t->xprt.send_wait);
	INIT_WORK(&t->xprt.disconnect_work, est_test_disconnect);
	t->dev.attrs.device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	t->port[1].immutable.core_cap_flags = RDMA_CORE_CAP_PROT_ROCE;
	t->dev.port_data = t->port;
	t->id.device = &t->dev;
	t->id.port_num = 1;
	t->id.qp = &t->qp;
	t->id.context = &t->ep;
	kref_init(&t->ep.ref);
	spin_lock_init(&t->ep.lock);
	init_completion(&t->ep.done);
	init_waitqueue_head(&t->ep.wait);
	t->ep.id = &t->id;
	t->ep.xprt = &t->xprt;
	t->ep.passive = passive;
	t->ep.inline_send = EST_TEST_LOCAL;
	t->ep.inline_recv = EST_TEST_LOCAL;
	t->xprt.ep = &t->ep;
	t->pd.magic = cpu_to_be32(XRDMA_CM_MAGIC);
	t->pd.version = XRDMA_CM_VERSION;
	t->pd.flags = XRDMA_CM_F_REMOTE_INV | XRDMA_CM_F_IMM_HDR |
		      XRDMA_CM_F_LAND;
	t->pd.inline_send = cpu_to_be32(EST_TEST_PEER);
	t->pd.inline_recv = cpu_to_be32(EST_TEST_PEER);
	t->ev.event = RDMA_CM_EVENT_ESTABLISHED;
	t->ev.param.conn.private_data = &t->pd;
	t->ev.param.conn.private_data_len = sizeof(t->pd);
	return t;
}

/* What a sender finds under the send lock: whether it may post, and
 * the inline size it would post with.
 */
static int est_test_sender(struct est_test *t, u32 *inline_send)
{
	struct xrdma_ep *ep;
	int rc;

	spin_lock(&t->xprt.send_lock);
	rc = xrdma_ep_live(&t->xprt, &ep);
	*inline_send = t->ep.inline_send;
	spin_unlock(&t->xprt.send_lock);
	return rc;
}

static int est_test_publish(struct est_test *t)
{
	int rc;

	mutex_lock(&t->xprt.mutex);
	rc = xrdma_ep_publish(&t->xprt, &t->ep);
	mutex_unlock(&t->xprt.mutex);
	return rc;
}

/* ESTABLISHED alone does not make an active connection live: a sender
 * coming in then would have used the local inline size, four times the
 * peer's.  The connecting thread's publication does, with the peer's
 * size and flags, in the hold of the send lock senders take.
 */
static void established_live_with_peer_sizes(struct kunit *test)
{
	struct est_test *t = est_test_make(test, false);
	u32 inline_send;

	KUNIT_EXPECT_EQ(test, xrdma_cm_event_handler(&t->id, &t->ev), 0);
	KUNIT_EXPECT_EQ(test, kref_read(&t->ep.ref), 2U);
	KUNIT_EXPECT_TRUE(test, t->ep.was_connected);
	KUNIT_EXPECT_EQ(test, est_test_sender(t, &inline_send), -EAGAIN);

	KUNIT_EXPECT_EQ(test, est_test_publish(t), 0);
	KUNIT_EXPECT_EQ(test, est_test_sender(t, &inline_send), 0);
	KUNIT_EXPECT_EQ(test, inline_send, (u32)EST_TEST_PEER);
	KUNIT_EXPECT_TRUE(test, t->ep.remote_inv);
	KUNIT_EXPECT_TRUE(test, t->ep.imm_hdr);
	KUNIT_EXPECT_TRUE(test, t->ep.land);
}

/* A DISCONNECTED between ESTABLISHED and the publication drops the
 * ESTABLISHED reference and forces no disconnect: the publication
 * fails, and the connecting thread tears the connection down itself.
 */
static void established_lost_before_publish(struct kunit *test)
{
	struct est_test *t = est_test_make(test, false);
	struct rdma_cm_event lost = { .event = RDMA_CM_EVENT_DISCONNECTED };
	u32 inline_send;

	KUNIT_EXPECT_EQ(test, xrdma_cm_event_handler(&t->id, &t->ev), 0);
	KUNIT_EXPECT_EQ(test, xrdma_cm_event_handler(&t->id, &lost), 0);
	KUNIT_EXPECT_EQ(test, kref_read(&t->ep.ref), 1U);
	KUNIT_EXPECT_EQ(test, est_test_publish(t), -ECONNABORTED);
	KUNIT_EXPECT_EQ(test, est_test_sender(t, &inline_send), -ENOTCONN);
	KUNIT_EXPECT_FALSE(test, test_bit(0, &t->ep.flushed));
	flush_work(&t->xprt.disconnect_work);
	KUNIT_EXPECT_EQ(test, t->disconnects, 0U);
}

/* An accepted connection took the peer's sizes from the connect request
 * before it accepted: ESTABLISHED makes it live at once.
 */
static void established_passive_live_at_once(struct kunit *test)
{
	struct est_test *t = est_test_make(test, true);
	u32 inline_send;

	xrdma_ep_update_private(&t->ep, &t->ev.param.conn);
	KUNIT_EXPECT_EQ(test, xrdma_cm_event_handler(&t->id, &t->ev), 0);
	KUNIT_EXPECT_EQ(test, est_test_sender(t, &inline_send), 0);
	KUNIT_EXPECT_EQ(test, inline_send, (u32)EST_TEST_PEER);
}

static struct kunit_case established_cases[] = {
	KUNIT_CASE(established_live_with_peer_sizes),
	KUNIT_CASE(established_lost_before_publish),
	KUNIT_CASE(established_passive_live_at_once),
	{}
};

struct kunit_suite xrdma_established_suite = {
	.name = "xrdma_established",
	.test_cases = established_cases,
};
