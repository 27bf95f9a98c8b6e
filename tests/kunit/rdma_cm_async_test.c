// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what runs beside the consumer. Address resolution issued again
 * while the first request's callback is still delivering its error, and
 * destruction while a resolution is in flight (cma_resolve.c); listens
 * on an iWARP device, made outside cma_lock since a provider's listen
 * may take rtnl, which the netdev notifier holds while it takes cma_lock
 * (cma_listen.c).
 *
 * The resolution needs rxe0's address in the guest (10.0.0.1/24) and an
 * address on its subnet that nobody answers ARP for; the listens a fake
 * iWARP device (cma_test_ibdev.c).
 */

#include <linux/in.h>
#include <linux/rtnetlink.h>
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
	bool early;

	INIT_WORK_ONSTACK(&r.work, reissue_work);
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
	early = wait_for_completion_timeout(&r.done, HZ);
	c.block = false;
	complete(&c.release);
	KUNIT_EXPECT_FALSE(test, early);
	if (!early)
		KUNIT_EXPECT_TRUE(test, cma_test_wait(&r.done));
	flush_work(&r.work);
	destroy_work_on_stack(&r.work);
	KUNIT_EXPECT_EQ(test, 0, r.ret);
	KUNIT_EXPECT_EQ(test, 2U, r.refs);

	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
}

/**
 * struct destroyer - rdma_destroy_id() called from a work item
 * @work: calls it
 * @id: the id
 * @done: completed when the call returned
 */
struct destroyer {
	struct work_struct work;
	struct rdma_cm_id *id;
	struct completion done;
};

static void destroyer_work(struct work_struct *work)
{
	struct destroyer *d = container_of(work, struct destroyer, work);

	rdma_destroy_id(d->id);
	complete(&d->done);
}

/*
 * Destruction cancels a resolution in flight, as in-box: it does not
 * wait for the resolution's end. The resolution has a minute before it
 * times out, and nobody answers, so its callback cannot run for that
 * long; a destroy back within the test's wait came back before it, and
 * the handler never ran.
 */
static void destroy_cancels_resolution(struct kunit *test)
{
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct rdma_cm_id *id = cma_test_bound_id(test, &c, RDMA_PS_TCP,
						  IB_QPT_RC);
	struct destroyer d = { .id = id };
	bool back;

	INIT_WORK_ONSTACK(&d.work, destroyer_work);
	init_completion(&d.done);
	KUNIT_ASSERT_EQ(test, 0, rdma_resolve_addr(id, NULL,
						   (struct sockaddr *)&nobody,
						   60000));
	KUNIT_EXPECT_TRUE(test, READ_ONCE(to_cma_id(id)->addr_query_pending));
	queue_work(system_unbound_wq, &d.work);
	back = cma_test_wait(&d.done);
	KUNIT_EXPECT_TRUE_MSG(test, back,
			      "rdma_destroy_id() waited for the resolution");
	/* Either way the destroy ends, at the latest with the resolution. */
	flush_work(&d.work);
	destroy_work_on_stack(&d.work);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
}

/**
 * struct iw_listens - what the fake iWARP device's listens saw
 * @made: listens made
 * @under_cma_lock: of which with cma_lock held
 * @take_rtnl: take rtnl in the listen, as irdma's does
 */
struct iw_listens {
	int made;
	int under_cma_lock;
	bool take_rtnl;
};

static struct iw_listens iw;

static void iw_listen_hook(void)
{
	iw.made++;
	if (IS_ENABLED(CONFIG_LOCKDEP) && lockdep_is_held(&cma_lock))
		iw.under_cma_lock++;
	if (iw.take_rtnl) {
		rtnl_lock();
		rtnl_unlock();
	}
}

/* A wildcard listener listens on the iWARP device without cma_lock. */
static void iw_listen_wildcard(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id;
	struct ib_device *dev;

	memset(&iw, 0, sizeof(iw));
	iw.take_rtnl = true;
	dev = cma_test_iwdev_add(iw_listen_hook);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	id = cma_test_new_id(test, &c, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, 0, rdma_listen(id, 1));
	KUNIT_EXPECT_EQ(test, 1, iw.made);
	KUNIT_EXPECT_EQ(test, 0, iw.under_cma_lock);
	rdma_destroy_id(id);
	cma_test_ibdev_remove(dev);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c.calls));
}

/* A device added after the wildcard listener: the same. */
static void iw_listen_later_device(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id;
	struct ib_device *dev;

	memset(&iw, 0, sizeof(iw));
	id = cma_test_new_id(test, &c, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, 0, rdma_listen(id, 1));
	dev = cma_test_iwdev_add(iw_listen_hook);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_EXPECT_EQ(test, 1, iw.made);
	KUNIT_EXPECT_EQ(test, 0, iw.under_cma_lock);
	cma_test_ibdev_remove(dev);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c.calls));
}

static struct kunit_case cma_async_cases[] = {
	KUNIT_CASE(resolve_reissue),
	KUNIT_CASE(destroy_cancels_resolution),
	KUNIT_CASE(iw_listen_wildcard),
	KUNIT_CASE(iw_listen_later_device),
	{}
};

static struct kunit_suite cma_async_suite = {
	.name = "rdma_cm_async",
	.test_cases = cma_async_cases,
};

kunit_test_suite(cma_async_suite);
