// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: IB service record resolution (cma_service.c) through a fake SA
 * backend: the ADDRINFO states and events on success and error, the
 * handler's verdict, and destruction while a query is in flight. There
 * is no IB fabric (and 6.1's ib_sa has no service record query), so the
 * fake answers when the test says so.
 */

#include <linux/in.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "cma_test.h"

/**
 * struct fake_sa - the fake backend's one query
 * @cid: the id of the query in flight
 * @done: its callback
 * @ibs: what it asked for
 * @query_ret: what the next query returns
 * @queries: queries asked for
 * @cancels: cancellations asked for
 * @cancel_work: ends the query with -EINTR, as ib_sa does, asynchronously
 */
struct fake_sa {
	struct cma_id *cid;
	cma_service_done_t done;
	struct rdma_ucm_ib_service ibs;
	int query_ret;
	int queries;
	int cancels;
	struct work_struct cancel_work;
};

static struct fake_sa fake;

static int fake_query(struct cma_id *cid, const struct rdma_ucm_ib_service *ibs,
		      cma_service_done_t done)
{
	fake.queries++;
	if (fake.query_ret)
		return fake.query_ret;
	fake.cid = cid;
	fake.done = done;
	fake.ibs = *ibs;
	return 0;
}

static void fake_cancel_work(struct work_struct *work)
{
	fake.done(fake.cid, -EINTR, NULL, 0);
}

static void fake_cancel(struct cma_id *cid)
{
	fake.cancels++;
	queue_work(system_wq, &fake.cancel_work);
}

static const struct cma_sa_ops fake_ops = {
	.query	= fake_query,
	.cancel	= fake_cancel,
};

/* The SA answers: @n records with service IDs 100, 101, ... */
static void fake_answer(struct kunit *test, int status, unsigned int n)
{
	struct rdma_ib_service_rec *recs = NULL;
	unsigned int i;

	if (n) {
		recs = kcalloc(n, sizeof(*recs), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, recs);
		for (i = 0; i < n; i++)
			recs[i].id = 100 + i;
	}
	fake.done(fake.cid, status, recs, n);
}

static int service_init(struct kunit *test)
{
	memset(&fake, 0, sizeof(fake));
	INIT_WORK(&fake.cancel_work, fake_cancel_work);
	cma_set_sa_ops(&fake_ops);
	return 0;
}

static void service_exit(struct kunit *test)
{
	flush_work(&fake.cancel_work);
	cma_set_sa_ops(NULL);
}

static struct rdma_ucm_ib_service service_by_id = {
	.service_id = 0x1234,
	.flags = RDMA_UCM_IB_SERVICE_FLAG_ID,
};

/* An id ADDR_BOUND to rxe0's address in the guest, or the test skips. */
static struct rdma_cm_id *bound_id(struct kunit *test,
				   struct cma_test_consumer *c)
{
	return cma_test_bound_id(test, c, RDMA_PS_TCP, IB_QPT_RC);
}

static void service_bad_input(struct kunit *test)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct rdma_ucm_ib_service ibs = service_by_id;
	struct cma_test_consumer c;
	struct rdma_cm_id *id;

	cma_test_consumer_init(&c);
	id = cma_test_create_id(test, &c);
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_resolve_ib_service(id, NULL));
	ibs.flags = 0;
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_resolve_ib_service(id, &ibs));
	ibs.flags = RDMA_UCM_IB_SERVICE_FLAG_ID | BIT(2);
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_resolve_ib_service(id, &ibs));
	/* IDLE: not bound. */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			rdma_resolve_ib_service(id, &service_by_id));
	KUNIT_EXPECT_EQ(test, RDMA_CM_IDLE, cma_state(to_cma_id(id)));
	/* Bound to a wildcard: no device to ask through. */
	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(id, (struct sockaddr *)&any));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			rdma_resolve_ib_service(id, &service_by_id));
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, cma_state(to_cma_id(id)));
	KUNIT_EXPECT_EQ(test, 0, fake.queries);
	rdma_destroy_id(id);
}

/* Without a backend (Linux 6.1 as it is), and when the backend fails. */
static void service_no_query(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id = bound_id(test, &c);

	cma_set_sa_ops(NULL);
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			rdma_resolve_ib_service(id, &service_by_id));
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, cma_state(to_cma_id(id)));

	cma_set_sa_ops(&fake_ops);
	fake.query_ret = -ENOMEM;
	KUNIT_EXPECT_EQ(test, -ENOMEM,
			rdma_resolve_ib_service(id, &service_by_id));
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, cma_state(to_cma_id(id)));
	KUNIT_EXPECT_EQ(test, 1U, refcount_read(&to_cma_id(id)->refcount));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c.calls));
	rdma_destroy_id(id);
}

static void service_resolved(struct kunit *test)
{
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(7471),
				   .sin_addr.s_addr = htonl(0x0a000001) };
	const struct rdma_ib_service_rec *recs;
	struct cma_test_consumer c;
	struct rdma_cm_id *id = bound_id(test, &c);

	KUNIT_ASSERT_EQ(test, 0, rdma_resolve_ib_service(id, &service_by_id));
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDRINFO_QUERY,
			cma_state(to_cma_id(id)));
	KUNIT_EXPECT_EQ(test, 0x1234ULL, fake.ibs.service_id);
	/* One query at a time. */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			rdma_resolve_ib_service(id, &service_by_id));

	fake_answer(test, 0, 2);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ADDRINFO_RESOLVED, c.event.event);
	KUNIT_EXPECT_EQ(test, 0, c.event.status);
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDRINFO_RESOLVED, c.state);
	KUNIT_EXPECT_STREQ(test, "address info resolved",
			   rdma_event_msg(c.event.event));
	KUNIT_ASSERT_EQ(test, 2, rdma_ib_service_recs(id, &recs));
	KUNIT_EXPECT_EQ(test, 100ULL, recs[0].id);
	KUNIT_EXPECT_EQ(test, 101ULL, recs[1].id);
	KUNIT_EXPECT_EQ(test, 1U, refcount_read(&to_cma_id(id)->refcount));

	/* Address resolution goes on from there. */
	reinit_completion(&c.entered);
	KUNIT_EXPECT_EQ(test, 0, rdma_resolve_addr(id, NULL,
						   (struct sockaddr *)&dst,
						   1000));
	KUNIT_EXPECT_TRUE(test, cma_test_wait(&c.entered));
	KUNIT_EXPECT_NE(test, RDMA_CM_ADDRINFO_RESOLVED,
			cma_state(to_cma_id(id)));
	rdma_destroy_id(id);
}

static void service_error(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id = bound_id(test, &c);
	const struct rdma_ib_service_rec *recs;

	KUNIT_ASSERT_EQ(test, 0, rdma_resolve_ib_service(id, &service_by_id));
	fake_answer(test, -ETIMEDOUT, 0);
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ADDRINFO_ERROR, c.event.event);
	KUNIT_EXPECT_EQ(test, -ETIMEDOUT, c.event.status);
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, c.state);

	/* Another try; the SA knows no such service. */
	KUNIT_ASSERT_EQ(test, 0, rdma_resolve_ib_service(id, &service_by_id));
	fake_answer(test, 0, 0);
	KUNIT_EXPECT_EQ(test, 2, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ADDRINFO_ERROR, c.event.event);
	KUNIT_EXPECT_EQ(test, -ENOENT, c.event.status);
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, cma_state(to_cma_id(id)));
	KUNIT_EXPECT_EQ(test, 0, rdma_ib_service_recs(id, &recs));
	KUNIT_EXPECT_EQ(test, 1U, refcount_read(&to_cma_id(id)->refcount));
	rdma_destroy_id(id);
}

/* The handler asks for destruction: the CM destroys the id. */
static void service_handler_destroys(struct kunit *test)
{
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct rdma_cm_id *id = bound_id(test, &c);

	c.verdict = 1;
	KUNIT_ASSERT_EQ(test, 0, rdma_resolve_ib_service(id, &service_by_id));
	fake_answer(test, 0, 1);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
}

/*
 * Destroyed while the query is in flight: the backend is asked to end
 * it, the destroyer waits for its end, and no event is delivered.
 */
static void service_destroy_in_flight(struct kunit *test)
{
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct rdma_cm_id *id = bound_id(test, &c);

	KUNIT_ASSERT_EQ(test, 0, rdma_resolve_ib_service(id, &service_by_id));
	KUNIT_EXPECT_EQ(test, 2U, refcount_read(&to_cma_id(id)->refcount));
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, 1, fake.cancels);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
}

static struct kunit_case cma_service_cases[] = {
	KUNIT_CASE(service_bad_input),
	KUNIT_CASE(service_no_query),
	KUNIT_CASE(service_resolved),
	KUNIT_CASE(service_error),
	KUNIT_CASE(service_handler_destroys),
	KUNIT_CASE(service_destroy_in_flight),
	{}
};

static struct kunit_suite cma_service_suite = {
	.name = "rdma_cm_service",
	.init = service_init,
	.exit = service_exit,
	.test_cases = cma_service_cases,
};

kunit_test_suite(cma_service_suite);
