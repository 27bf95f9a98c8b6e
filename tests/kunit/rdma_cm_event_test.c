// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: event delivery under the handler mutex, destruction racing it,
 * the event and reject-reason names (cma_event.c, cma_id.c, cma_msg.c),
 * and the events of a failed iWARP connect (cma_iw.c).
 */

#include <linux/in.h>
#include <linux/kthread.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "cma_test.h"

static void cma_event_delivered_with_transition(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id;

	cma_test_consumer_init(&c);
	id = cma_test_create_id(test, &c);
	KUNIT_ASSERT_TRUE(test, cma_transition(to_cma_id(id), RDMA_CM_IDLE,
					       RDMA_CM_ADDR_BOUND));

	cma_test_queue(test, id, RDMA_CM_ADDR_BOUND, RDMA_CM_ADDR_QUERY,
		       RDMA_CM_EVENT_ADDR_ERROR, -ETIMEDOUT);
	KUNIT_EXPECT_TRUE(test, cma_test_wait(&c.entered));
	flush_workqueue(cma_wq);

	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ADDR_ERROR, c.event.event);
	KUNIT_EXPECT_EQ(test, -ETIMEDOUT, c.event.status);
	/* The state changed before the handler ran, not after. */
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_QUERY, c.state);
	rdma_destroy_id(id);
}

static void cma_event_stale_is_dropped(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id;

	cma_test_consumer_init(&c);
	id = cma_test_create_id(test, &c);

	/* Queued for a state the id is not in: never delivered. */
	cma_test_queue(test, id, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_RESOLVED,
		       RDMA_CM_EVENT_ADDR_RESOLVED, 0);
	flush_workqueue(cma_wq);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, RDMA_CM_IDLE, cma_state(to_cma_id(id)));

	/* Queued with no state change: delivered while the state holds. */
	cma_test_queue(test, id, RDMA_CM_IDLE, RDMA_CM_IDLE,
		       RDMA_CM_EVENT_ADDR_CHANGE, 0);
	flush_workqueue(cma_wq);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	rdma_destroy_id(id);
}

static void cma_event_nonzero_verdict_destroys(struct kunit *test)
{
	unsigned int netns_refs = refcount_read(&init_net.ns.count);
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct rdma_cm_id *id;

	cma_test_consumer_init(&c);
	c.verdict = 1;
	id = cma_test_create_id(test, &c);

	cma_test_queue(test, id, RDMA_CM_IDLE, RDMA_CM_IDLE,
		       RDMA_CM_EVENT_DEVICE_REMOVAL, 0);
	flush_workqueue(cma_wq);
	cma_id_flush_releases();

	/* The CM destroyed the id; the test must not touch it again. */
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
	KUNIT_EXPECT_EQ(test, netns_refs, refcount_read(&init_net.ns.count));
}

/* Holds the ordered cma_wq still until the test opens it. */
struct cma_test_gate {
	struct work_struct work;
	struct completion open;
};

static void cma_test_gate_fn(struct work_struct *work)
{
	struct cma_test_gate *g = container_of(work, struct cma_test_gate,
					       work);

	cma_test_wait(&g->open);
}

/*
 * Two events queued for one id, the first one's handler asking for the
 * id's destruction: the second still holds a reference, queued behind
 * the first on the ordered workqueue. The destruction must not wait for
 * it there (a deadlock), and it must not be delivered.
 *
 * The gate keeps the first event from running before the second is
 * queued: once it has run, the id may be gone, and queueing needs a live
 * id.
 */
static void cma_event_verdict_with_more_queued(struct kunit *test)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_ADDR_CHANGE };
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct cma_test_gate gate;
	struct rdma_cm_id *id;

	cma_test_consumer_init(&c);
	c.verdict = 1;
	id = cma_test_create_id(test, &c);

	INIT_WORK_ONSTACK(&gate.work, cma_test_gate_fn);
	init_completion(&gate.open);
	queue_work(cma_wq, &gate.work);
	/* No assertion may leave the gate shut on a stack that is gone. */
	KUNIT_EXPECT_EQ(test, 0, cma_queue_event(to_cma_id(id), RDMA_CM_IDLE,
						 RDMA_CM_IDLE, &event));
	KUNIT_EXPECT_EQ(test, 0, cma_queue_event(to_cma_id(id), RDMA_CM_IDLE,
						 RDMA_CM_IDLE, &event));
	complete(&gate.open);
	flush_workqueue(cma_wq);
	destroy_work_on_stack(&gate.work);
	cma_id_flush_releases();

	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
}

static void cma_event_lock_handler_holds_delivery(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id;

	cma_test_consumer_init(&c);
	id = cma_test_create_id(test, &c);

	rdma_lock_handler(id);
	cma_test_queue(test, id, RDMA_CM_IDLE, RDMA_CM_IDLE,
		       RDMA_CM_EVENT_ADDR_CHANGE, 0);
	/* The delivery has reached the handler mutex, and waits there. */
	KUNIT_EXPECT_TRUE(test, cma_test_wait_handler_waiter(id));
	KUNIT_EXPECT_FALSE(test, completion_done(&c.entered));
	rdma_unlock_handler(id);

	KUNIT_EXPECT_TRUE(test, cma_test_wait(&c.entered));
	rdma_destroy_id(id);
}

struct cma_test_destroyer {
	struct rdma_cm_id *id;
	struct completion done;
};

static int cma_test_destroy_fn(void *arg)
{
	struct cma_test_destroyer *d = arg;

	rdma_destroy_id(d->id);
	complete(&d->done);
	return 0;
}

/*
 * Destroy @id from another thread. The caller must wait for d->done
 * before @d goes out of scope, whatever the test's outcome.
 */
static void cma_test_destroy_async(struct kunit *test,
				   struct cma_test_destroyer *d,
				   struct rdma_cm_id *id)
{
	struct task_struct *t;

	d->id = id;
	init_completion(&d->done);
	t = kthread_run(cma_test_destroy_fn, d, "cma_test_destroy");
	if (IS_ERR(t)) {
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(t));
		cma_test_destroy_fn(d);
	}
}

static void cma_event_destroy_waits_for_sleeping_handler(struct kunit *test)
{
	unsigned long live = cma_id_count();
	struct cma_test_destroyer d;
	struct cma_test_consumer c;
	struct rdma_cm_id *id;

	cma_test_consumer_init(&c);
	c.block = true;
	id = cma_test_create_id(test, &c);

	cma_test_queue(test, id, RDMA_CM_IDLE, RDMA_CM_IDLE,
		       RDMA_CM_EVENT_ADDR_CHANGE, 0);
	KUNIT_EXPECT_TRUE(test, cma_test_wait(&c.entered));

	cma_test_destroy_async(test, &d, id);
	/* The destroy has reached the mutex the handler holds. */
	KUNIT_EXPECT_TRUE(test, cma_test_wait_handler_waiter(id));
	KUNIT_EXPECT_FALSE(test, completion_done(&d.done));
	KUNIT_EXPECT_EQ(test, live + 1, cma_id_count());

	complete(&c.release);
	wait_for_completion(&d.done);
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
}

/*
 * An event queued for an id that is destroyed before the work runs: the
 * destroy waits for the work's reference, and the event is never
 * delivered. A blocking handler on another id holds the ordered
 * workqueue so the work is certain to still be queued.
 */
static void cma_event_destroy_waits_for_queued_work(struct kunit *test)
{
	struct cma_test_consumer blocker, victim;
	struct rdma_cm_id *blocker_id, *victim_id;
	unsigned long live = cma_id_count();
	struct cma_test_destroyer d;

	cma_test_consumer_init(&blocker);
	cma_test_consumer_init(&victim);
	blocker.block = true;
	blocker_id = cma_test_create_id(test, &blocker);
	victim_id = cma_test_create_id(test, &victim);

	cma_test_queue(test, blocker_id, RDMA_CM_IDLE, RDMA_CM_IDLE,
		       RDMA_CM_EVENT_ADDR_CHANGE, 0);
	KUNIT_EXPECT_TRUE(test, cma_test_wait(&blocker.entered));
	cma_test_queue(test, victim_id, RDMA_CM_IDLE, RDMA_CM_IDLE,
		       RDMA_CM_EVENT_ADDR_CHANGE, 0);

	cma_test_destroy_async(test, &d, victim_id);
	/*
	 * The destroy waits for the queued work's reference. The id lives
	 * until the blocker lets that work run, so it may be looked at.
	 */
	KUNIT_EXPECT_TRUE(test, cma_test_wait_release_waiter(victim_id));
	KUNIT_EXPECT_FALSE(test, completion_done(&d.done));

	complete(&blocker.release);
	wait_for_completion(&d.done);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&victim.calls));
	rdma_destroy_id(blocker_id);
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
}

static void cma_event_msg_names_every_event(struct kunit *test)
{
	enum rdma_cm_event_type a, b;

	KUNIT_EXPECT_STREQ(test, "established",
			   rdma_event_msg(RDMA_CM_EVENT_ESTABLISHED));
	for (a = 0; a <= RDMA_CM_EVENT_ADDRINFO_ERROR; a++) {
		KUNIT_EXPECT_STRNEQ(test, "unrecognized event",
				    rdma_event_msg(a));
		for (b = a + 1; b <= RDMA_CM_EVENT_ADDRINFO_ERROR; b++)
			KUNIT_EXPECT_STRNEQ(test, rdma_event_msg(a),
					    rdma_event_msg(b));
	}
	KUNIT_EXPECT_STREQ(test, "unrecognized event",
			   rdma_event_msg(RDMA_CM_EVENT_ADDRINFO_ERROR + 1));
	KUNIT_EXPECT_STREQ(test, "unrecognized event", rdma_event_msg(-1));
}

/*
 * A device with one port of the given protocol, enough for the checks.
 * rdma_reject_msg() is declared __attribute_const__, so the compiler may
 * reuse a result for the same arguments: each case gets its own id.
 */
static struct ib_device *cma_test_fake_device(struct kunit *test,
					      u32 core_cap_flags)
{
	struct ib_device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	dev->phys_port_cnt = 1;
	dev->port_data = kunit_kcalloc(test, 2, sizeof(*dev->port_data),
				       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev->port_data);
	dev->port_data[1].immutable.core_cap_flags = core_cap_flags;
	return dev;
}

static struct rdma_cm_id *cma_test_fake_id(struct kunit *test, u32 flags)
{
	struct rdma_cm_id *id = kunit_kzalloc(test, sizeof(*id), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, id);
	id->port_num = 1;
	if (flags)
		id->device = cma_test_fake_device(test, flags);
	return id;
}

static void cma_event_reject_msg_follows_transport(struct kunit *test)
{
	struct rdma_cm_id *none = cma_test_fake_id(test, 0);
	struct rdma_cm_id *roce = cma_test_fake_id(test,
					RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP);
	struct rdma_cm_id *ib = cma_test_fake_id(test, RDMA_CORE_PORT_IBA_IB);
	struct rdma_cm_id *iwarp = cma_test_fake_id(test, RDMA_CORE_PORT_IWARP);

	KUNIT_EXPECT_STREQ(test, "unrecognized transport",
			   rdma_reject_msg(none, IB_CM_REJ_CONSUMER_DEFINED));
	KUNIT_EXPECT_STREQ(test, "consumer defined",
			   rdma_reject_msg(roce, IB_CM_REJ_CONSUMER_DEFINED));
	KUNIT_EXPECT_STREQ(test, "timeout",
			   rdma_reject_msg(roce, IB_CM_REJ_TIMEOUT));
	KUNIT_EXPECT_STREQ(test, "consumer defined",
			   rdma_reject_msg(ib, IB_CM_REJ_CONSUMER_DEFINED));
	KUNIT_EXPECT_STREQ(test, "refused by remote application",
			   rdma_reject_msg(iwarp, -ECONNREFUSED));
}

/*
 * An iWARP connect that iw_cm reports failed: the event its consumer
 * gets for each status, as the in-box cma_iw_handler() maps them (a
 * refusal or a reset by the peer is REJECTED, a timeout UNREACHABLE,
 * any other error CONNECT_ERROR), with the status passed on. iw_cm is
 * played by the test: the reply goes straight to the CM's callback,
 * with the id connecting.
 */
static void cma_event_iw_connect_reply_status(struct kunit *test)
{
	static const struct {
		int status;
		enum rdma_cm_event_type event;
	} replies[] = {
		{ -ECONNREFUSED, RDMA_CM_EVENT_REJECTED },
		{ -ECONNRESET, RDMA_CM_EVENT_REJECTED },
		{ -ETIMEDOUT, RDMA_CM_EVENT_UNREACHABLE },
		{ -EHOSTUNREACH, RDMA_CM_EVENT_CONNECT_ERROR },
	};
	static const enum rdma_cm_state to_connect[] = {
		RDMA_CM_IDLE, RDMA_CM_ADDR_BOUND, RDMA_CM_ADDR_QUERY,
		RDMA_CM_ADDR_RESOLVED, RDMA_CM_ROUTE_QUERY,
		RDMA_CM_ROUTE_RESOLVED, RDMA_CM_CONNECT,
	};
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(replies); i++) {
		struct iw_cm_event ev = {
			.event = IW_CM_EVENT_CONNECT_REPLY,
			.status = replies[i].status,
		};
		struct sockaddr_in *local = (struct sockaddr_in *)&ev.local_addr;
		struct sockaddr_in *remote =
			(struct sockaddr_in *)&ev.remote_addr;
		struct cma_test_consumer c;
		struct iw_cm_id iw = {};
		struct rdma_cm_id *id;

		local->sin_family = AF_INET;
		local->sin_addr.s_addr = htonl(0x0a000001);
		remote->sin_family = AF_INET;
		remote->sin_addr.s_addr = htonl(0x0a000002);
		cma_test_consumer_init(&c);
		id = cma_test_create_id(test, &c);
		for (j = 1; j < ARRAY_SIZE(to_connect); j++)
			KUNIT_ASSERT_TRUE(test,
					  cma_transition(to_cma_id(id),
							 to_connect[j - 1],
							 to_connect[j]));
		iw.context = to_cma_id(id);

		KUNIT_EXPECT_EQ(test, 0, cma_iw_handler(&iw, &ev));
		KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
		KUNIT_EXPECT_EQ_MSG(test, replies[i].event, c.event.event,
				    "status %d", replies[i].status);
		KUNIT_EXPECT_EQ(test, replies[i].status, c.event.status);
		rdma_destroy_id(id);
	}
}

static struct kunit_case cma_event_cases[] = {
	KUNIT_CASE(cma_event_delivered_with_transition),
	KUNIT_CASE(cma_event_stale_is_dropped),
	KUNIT_CASE(cma_event_nonzero_verdict_destroys),
	KUNIT_CASE(cma_event_verdict_with_more_queued),
	KUNIT_CASE(cma_event_lock_handler_holds_delivery),
	KUNIT_CASE(cma_event_destroy_waits_for_sleeping_handler),
	KUNIT_CASE(cma_event_destroy_waits_for_queued_work),
	KUNIT_CASE(cma_event_msg_names_every_event),
	KUNIT_CASE(cma_event_reject_msg_follows_transport),
	KUNIT_CASE(cma_event_iw_connect_reply_status),
	{}
};

static struct kunit_suite cma_event_suite = {
	.name = "rdma_cm_event",
	.test_cases = cma_event_cases,
};

kunit_test_suite(cma_event_suite);
