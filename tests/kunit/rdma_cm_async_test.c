// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what runs beside the consumer. Address resolution issued again
 * while the first request's callback is still delivering its error
 * (cma_resolve.c).
 *
 * The resolution needs rxe0's address in the guest (10.0.0.1/24) and an
 * address on its subnet that nobody answers ARP for.
 */

#include <linux/in.h>
#include <linux/workqueue.h>

#include "cma_test.h"

/* On veth0's subnet, answered by no one: resolution times out. */
static const struct sockaddr_in nobody = {
	.sin_family = AF_INET,
	.sin_addr.s_addr = htonl(0x0a00004d),
};

/**
 * struct reissue - rdma_resolve_addr() issued again, from a work item
 * @work: issues it
 * @id: the id
 * @done: completed when the call returned
 * @ret: what it returned
 * @refs: the id's references just after it returned
 */
struct reissue {
	struct work_struct work;
	struct rdma_cm_id *id;
	struct completion done;
	int ret;
	unsigned int refs;
};

static void reissue_work(struct work_struct *work)
{
	struct reissue *r = container_of(work, struct reissue, work);

	r->ret = rdma_resolve_addr(r->id, NULL, (struct sockaddr *)&nobody,
				   60000);
	r->refs = refcount_read(&to_cma_id(r->id)->refcount);
	complete(&r->done);
}

/*
 * ADDR_ERROR puts the id back in ADDR_BOUND before its handler runs, so
 * the consumer may resolve again while ib_core still holds the first
 * request, its callback not returned. As in-box, the new call cancels
 * that request, which waits for the callback: when it returns, the id
 * has the consumer's reference and the new request's, not the first
 * one's. Destruction then cancels the new request; nothing calls back.
 */
static void resolve_reissue(struct kunit *test)
{
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct rdma_cm_id *id = cma_test_bound_id(test, &c, RDMA_PS_TCP,
						  IB_QPT_RC);
	struct reissue r = { .id = id };

	INIT_WORK(&r.work, reissue_work);
	init_completion(&r.done);
	c.block = true;
	KUNIT_ASSERT_EQ(test, 0, rdma_resolve_addr(id, NULL,
						   (struct sockaddr *)&nobody,
						   100));
	KUNIT_ASSERT_TRUE(test, cma_test_wait(&c.entered));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ADDR_ERROR, c.event.event);
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, c.state);

	queue_work(system_unbound_wq, &r.work);
	/*
	 * Give a call that does not wait for the callback the time to
	 * return while the handler still blocks: one that waits cannot.
	 */
	wait_for_completion_timeout(&r.done, HZ);
	c.block = false;
	complete(&c.release);
	KUNIT_ASSERT_TRUE(test, cma_test_wait(&r.done));
	KUNIT_EXPECT_EQ(test, 0, r.ret);
	KUNIT_EXPECT_EQ(test, 2U, r.refs);

	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
}

static struct kunit_case cma_async_cases[] = {
	KUNIT_CASE(resolve_reissue),
	{}
};

static struct kunit_suite cma_async_suite = {
	.name = "rdma_cm_async",
	.test_cases = cma_async_cases,
};

kunit_test_suite(cma_async_suite);
