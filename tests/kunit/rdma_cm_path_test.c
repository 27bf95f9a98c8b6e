// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the route on InfiniBand (cma_path.c): the path record asked of
 * the SA for IPv4 and IPv6, and, through a fake SA backend (there is no
 * IB fabric here), ROUTE_QUERY's end on success, on error, with the
 * handler asking for destruction, and with the id destroyed while the
 * query is in flight. The fake answers from the test's thread, or from a
 * workqueue of its own standing for ib_mad's: the consumer's handler must
 * never run there, but on the CM's workqueue.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/workqueue.h>
#include <rdma/ib_addr.h>

#include "cma_test.h"

/**
 * struct fake_path - the fake backend's one query
 * @cid: the id of the query in flight
 * @rec: what it asked for
 * @mask: the components it asked to match
 * @timeout_ms: how long it gave the SA
 * @query_ret: what the next query returns
 * @queries: queries asked for
 * @cancels: cancellations asked for
 * @cancel_work: ends the query with -EINTR, as ib_sa does, asynchronously
 * @answer_work: answers the query from @mad_wq
 * @mad_wq: where ib_sa would answer: ib_mad's per-port ordered workqueue
 * @answer_status: what @answer_work answers
 */
struct fake_path {
	struct cma_id *cid;
	struct sa_path_rec rec;
	ib_sa_comp_mask mask;
	unsigned long timeout_ms;
	int query_ret;
	int queries;
	int cancels;
	struct work_struct cancel_work;
	struct work_struct answer_work;
	struct workqueue_struct *mad_wq;
	int answer_status;
};

static struct fake_path fake;

static int fake_query(struct cma_id *cid, struct sa_path_rec *rec,
		      ib_sa_comp_mask mask, unsigned long timeout_ms)
{
	fake.queries++;
	if (fake.query_ret)
		return fake.query_ret;
	fake.cid = cid;
	fake.rec = *rec;
	fake.mask = mask;
	fake.timeout_ms = timeout_ms;
	return 0;
}

static void fake_cancel_work(struct work_struct *work)
{
	cma_path_done(fake.cid, -EINTR, NULL);
}

/* The SA's answer, on the stand-in for ib_mad's workqueue. */
static void fake_answer_work(struct work_struct *work)
{
	cma_test_set_foreign(current);
	cma_path_done(fake.cid, fake.answer_status,
		      fake.answer_status ? NULL : &fake.rec);
	cma_test_set_foreign(NULL);
}

static void fake_cancel(struct cma_id *cid)
{
	fake.cancels++;
	queue_work(system_wq, &fake.cancel_work);
}

static const struct cma_path_ops fake_ops = {
	.query	= fake_query,
	.cancel	= fake_cancel,
};

static int path_init(struct kunit *test)
{
	memset(&fake, 0, sizeof(fake));
	INIT_WORK(&fake.cancel_work, fake_cancel_work);
	INIT_WORK(&fake.answer_work, fake_answer_work);
	fake.mad_wq = alloc_ordered_workqueue("cma_test_mad", 0);
	if (!fake.mad_wq)
		return -ENOMEM;
	cma_set_path_ops(&fake_ops);
	return 0;
}

static void path_exit(struct kunit *test)
{
	flush_work(&fake.cancel_work);
	destroy_workqueue(fake.mad_wq);
	cma_set_path_ops(NULL);
	/* Deliveries queued by answers, and destructions they asked for. */
	flush_workqueue(cma_wq);
	cma_id_flush_releases();
}

/* The answer's event is delivered from the CM's workqueue: wait for it. */
static void path_delivered(void)
{
	flush_workqueue(cma_wq);
}

static const union ib_gid sgid = { .raw = { 0xfe, 0x80, [15] = 0x01 } };
static const union ib_gid dgid = { .raw = { 0xfe, 0x80, [15] = 0x02 } };

/*
 * Make a resolved address IPoIB-like: GIDs in the hardware addresses,
 * the P_Key in the broadcast one. The rest (namespace, interface) stays.
 */
static void ib_dev_addr(struct rdma_dev_addr *dev_addr, u16 pkey)
{
	rdma_addr_set_sgid(dev_addr, (union ib_gid *)&sgid);
	rdma_addr_set_dgid(dev_addr, (union ib_gid *)&dgid);
	ib_addr_set_pkey(dev_addr, pkey);
}

/* The TCP port space's service ID prefix, as in-box (RDMA_IB_IP_PS_TCP). */
#define TCP_SERVICE_ID(port)	cpu_to_be64(0x0000000001060000ULL + (port))

static const ib_sa_comp_mask base_mask =
	IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID | IB_SA_PATH_REC_PKEY |
	IB_SA_PATH_REC_NUMB_PATH | IB_SA_PATH_REC_REVERSIBLE |
	IB_SA_PATH_REC_SERVICE_ID;

static void path_request_ipv4(struct kunit *test)
{
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(7471) };
	struct rdma_dev_addr dev_addr = {};
	struct sa_path_rec rec;
	ib_sa_comp_mask mask;

	ib_dev_addr(&dev_addr, 0xffff);
	mask = cma_path_request(&dev_addr, (struct sockaddr *)&dst,
				RDMA_PS_TCP, 0x20, &rec);
	KUNIT_EXPECT_EQ(test, base_mask | IB_SA_PATH_REC_QOS_CLASS, mask);
	KUNIT_EXPECT_EQ(test, SA_PATH_REC_TYPE_IB, rec.rec_type);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&sgid, &rec.sgid, sizeof(sgid)));
	KUNIT_EXPECT_EQ(test, 0, memcmp(&dgid, &rec.dgid, sizeof(dgid)));
	KUNIT_EXPECT_EQ(test, cpu_to_be16(0xffff), rec.pkey);
	KUNIT_EXPECT_EQ(test, 1, rec.numb_path);
	KUNIT_EXPECT_EQ(test, 1, rec.reversible);
	KUNIT_EXPECT_EQ(test, TCP_SERVICE_ID(7471), rec.service_id);
	KUNIT_EXPECT_EQ(test, cpu_to_be16(0x20), rec.qos_class);
	KUNIT_EXPECT_EQ(test, 0, rec.traffic_class);
}

/* IPv6: the traffic class comes from the flow information, not the tos. */
static void path_request_ipv6(struct kunit *test)
{
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6,
				    .sin6_port = htons(18515),
				    .sin6_flowinfo = htonl(0x0ab12345) };
	struct rdma_dev_addr dev_addr = {};
	struct sa_path_rec rec;
	ib_sa_comp_mask mask;

	ib_dev_addr(&dev_addr, 0x8001);
	mask = cma_path_request(&dev_addr, (struct sockaddr *)&dst,
				RDMA_PS_TCP, 0x20, &rec);
	KUNIT_EXPECT_EQ(test, base_mask | IB_SA_PATH_REC_TRAFFIC_CLASS, mask);
	KUNIT_EXPECT_EQ(test, 0xab, rec.traffic_class);
	KUNIT_EXPECT_EQ(test, 0, rec.qos_class);
	KUNIT_EXPECT_EQ(test, cpu_to_be16(0x8001), rec.pkey);
	KUNIT_EXPECT_EQ(test, TCP_SERVICE_ID(18515), rec.service_id);
}

/* Walk an id from ADDR_BOUND or ADDR_RESOLVED to ROUTE_QUERY. */
static void to_route_query(struct kunit *test, struct cma_id *cid,
			   enum rdma_cm_state from)
{
	if (from == RDMA_CM_ADDR_BOUND) {
		KUNIT_ASSERT_TRUE(test, cma_transition(cid, RDMA_CM_ADDR_BOUND,
						       RDMA_CM_ADDR_QUERY));
		KUNIT_ASSERT_TRUE(test, cma_transition(cid, RDMA_CM_ADDR_QUERY,
						       RDMA_CM_ADDR_RESOLVED));
	}
	KUNIT_ASSERT_TRUE(test, cma_transition(cid, RDMA_CM_ADDR_RESOLVED,
					       RDMA_CM_ROUTE_QUERY));
}

/*
 * An id as rdma_resolve_route() leaves it on an InfiniBand port just
 * before the query: bound to rxe0's address in the guest (or the test
 * skips) for a real device and port, its resolved address made
 * IPoIB-like, destination port 7471, in ROUTE_QUERY.
 */
static struct rdma_cm_id *querying_id(struct kunit *test,
				      struct cma_test_consumer *c)
{
	struct rdma_cm_id *id = cma_test_bound_id(test, c, RDMA_PS_TCP,
						  IB_QPT_RC);
	struct sockaddr_in *dst;

	ib_dev_addr(&id->route.addr.dev_addr, 0xffff);
	dst = (struct sockaddr_in *)&id->route.addr.dst_addr;
	*dst = *(struct sockaddr_in *)&id->route.addr.src_addr;
	dst->sin_port = htons(7471);
	to_route_query(test, to_cma_id(id), RDMA_CM_ADDR_BOUND);
	return id;
}

static void path_resolved(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id = querying_id(test, &c);
	struct sa_path_rec answer;

	KUNIT_ASSERT_EQ(test, 0, cma_path_query(to_cma_id(id), 2000));
	KUNIT_EXPECT_EQ(test, 1, fake.queries);
	KUNIT_EXPECT_EQ(test, 2000UL, fake.timeout_ms);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&dgid, &fake.rec.dgid, sizeof(dgid)));
	KUNIT_EXPECT_EQ(test, TCP_SERVICE_ID(7471), fake.rec.service_id);
	KUNIT_EXPECT_EQ(test, 2U, refcount_read(&to_cma_id(id)->refcount));

	answer = fake.rec;
	sa_path_set_slid(&answer, 1);
	sa_path_set_dlid(&answer, 2);
	answer.mtu = IB_MTU_4096;
	cma_path_done(fake.cid, 0, &answer);
	path_delivered();
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ROUTE_RESOLVED, c.event.event);
	KUNIT_EXPECT_EQ(test, 0, c.event.status);
	KUNIT_EXPECT_EQ(test, RDMA_CM_ROUTE_RESOLVED, c.state);
	KUNIT_ASSERT_NOT_NULL(test, id->route.path_rec);
	KUNIT_EXPECT_EQ(test, 1U, id->route.num_pri_alt_paths);
	KUNIT_EXPECT_EQ(test, cpu_to_be32(2),
			sa_path_get_dlid(id->route.path_rec));
	KUNIT_EXPECT_EQ(test, IB_MTU_4096, id->route.path_rec->mtu);
	KUNIT_EXPECT_EQ(test, 1U, refcount_read(&to_cma_id(id)->refcount));
	rdma_destroy_id(id);
}

static void path_error(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id = querying_id(test, &c);

	KUNIT_ASSERT_EQ(test, 0, cma_path_query(to_cma_id(id), 1000));
	cma_path_done(fake.cid, -ETIMEDOUT, NULL);
	path_delivered();
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ROUTE_ERROR, c.event.event);
	KUNIT_EXPECT_EQ(test, -ETIMEDOUT, c.event.status);
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_RESOLVED, c.state);
	KUNIT_EXPECT_NULL(test, id->route.path_rec);
	KUNIT_EXPECT_EQ(test, 1U, refcount_read(&to_cma_id(id)->refcount));

	/* The backend refuses the query: no event, no reference kept. */
	to_route_query(test, to_cma_id(id), RDMA_CM_ADDR_RESOLVED);
	fake.query_ret = -ENOMEM;
	KUNIT_EXPECT_EQ(test, -ENOMEM, cma_path_query(to_cma_id(id), 1000));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, 1U, refcount_read(&to_cma_id(id)->refcount));
	rdma_destroy_id(id);
}

/* The handler asks for destruction: the CM destroys the id. */
static void path_handler_destroys(struct kunit *test)
{
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct rdma_cm_id *id = querying_id(test, &c);

	c.verdict = 1;
	KUNIT_ASSERT_EQ(test, 0, cma_path_query(to_cma_id(id), 1000));
	cma_path_done(fake.cid, 0, &fake.rec);
	path_delivered();
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	/* Destroyed from another workqueue: wait for it. */
	cma_id_flush_releases();
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
}

/*
 * Destroyed while the query is in flight: the backend is asked to end
 * it, the destroyer waits for its end, and no event is delivered.
 */
static void path_destroy_in_flight(struct kunit *test)
{
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct rdma_cm_id *id = querying_id(test, &c);

	KUNIT_ASSERT_EQ(test, 0, cma_path_query(to_cma_id(id), 1000));
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, 1, fake.cancels);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
}

/*
 * ib_sa answers on ib_mad's per-port workqueue: a handler run there
 * would stall every MAD of the port, and one destroying another id of
 * the port would wait for itself. The answer is handed to the CM's
 * workqueue, and the handler runs there, once the answer has returned.
 */
static void path_answer_context(struct kunit *test)
{
	static const int answers[] = { 0, -ETIMEDOUT };
	struct cma_test_consumer c;
	struct rdma_cm_id *id = querying_id(test, &c);
	struct cma_id *cid = to_cma_id(id);
	int i;

	for (i = 0; i < ARRAY_SIZE(answers); i++) {
		if (i)
			to_route_query(test, cid, RDMA_CM_ADDR_RESOLVED);
		KUNIT_ASSERT_EQ(test, 0, cma_path_query(cid, 1000));
		fake.answer_status = answers[i];
		queue_work(fake.mad_wq, &fake.answer_work);
		flush_workqueue(fake.mad_wq);
		path_delivered();
		KUNIT_EXPECT_EQ(test, i + 1, atomic_read(&c.calls));
		KUNIT_EXPECT_FALSE(test, c.wrong_context);
		KUNIT_EXPECT_EQ(test, answers[i], c.event.status);
		KUNIT_EXPECT_EQ(test, answers[i] ? RDMA_CM_EVENT_ROUTE_ERROR :
				RDMA_CM_EVENT_ROUTE_RESOLVED, c.event.event);
		/* Back to ADDR_RESOLVED, as a failed connect would go. */
		if (!answers[i])
			KUNIT_ASSERT_TRUE(test,
					  cma_transition(cid,
							 RDMA_CM_ROUTE_RESOLVED,
							 RDMA_CM_ADDR_RESOLVED));
	}
	KUNIT_EXPECT_EQ(test, 1U, refcount_read(&cid->refcount));
	rdma_destroy_id(id);
}

static struct kunit_case cma_path_cases[] = {
	KUNIT_CASE(path_request_ipv4),
	KUNIT_CASE(path_request_ipv6),
	KUNIT_CASE(path_resolved),
	KUNIT_CASE(path_error),
	KUNIT_CASE(path_handler_destroys),
	KUNIT_CASE(path_destroy_in_flight),
	KUNIT_CASE(path_answer_context),
	{}
};

static struct kunit_suite cma_path_suite = {
	.name = "rdma_cm_path",
	.init = path_init,
	.exit = path_exit,
	.test_cases = cma_path_cases,
};

kunit_test_suite(cma_path_suite);
