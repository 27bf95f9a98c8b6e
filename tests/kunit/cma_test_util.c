// SPDX-License-Identifier: GPL-2.0
/*
 * The test consumer shared by the KUnit suites (see cma_test.h).
 */

#include <linux/completion.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/swait.h>
#include <net/net_namespace.h>

#include "cma_test.h"

/* Long enough for a TCG guest under KASAN, short enough to fail a hang. */
#define CMA_TEST_TIMEOUT	(10 * HZ)

/**
 * cma_test_consumer_init - reset a test consumer
 * @c: the consumer; its handler returns 0 and does not block
 */
void cma_test_consumer_init(struct cma_test_consumer *c)
{
	memset(c, 0, sizeof(*c));
	init_completion(&c->entered);
	init_completion(&c->release);
	atomic_set(&c->calls, 0);
}

/* A task standing for a context no handler may run in, or NULL. */
static struct task_struct *cma_test_foreign;

/**
 * cma_test_set_foreign - name a task no handler may run on
 * @task: the task (a fake's stand-in for ib_mad's workqueue), or NULL
 */
void cma_test_set_foreign(struct task_struct *task)
{
	WRITE_ONCE(cma_test_foreign, task);
}

/**
 * cma_test_check_context - is a handler running where handlers may run?
 * @id: the id whose handler is running
 *
 * Every context of Documentation/design.rst's table is a task that may
 * sleep, holding the id's handler mutex: a workqueue worker (the CM's,
 * ib_core's address one, the IB CM's, iw_cm's, ib_sa's multicast one),
 * or the task registering or unregistering a device; never an interrupt,
 * never the task a fake SA answers from in place of ib_mad's workqueue.
 * A breach warns, which fails the run.
 *
 * Return: true if the context is one of them.
 */
bool cma_test_check_context(struct rdma_cm_id *id)
{
	bool ok = in_task() && !irqs_disabled() &&
		  current != READ_ONCE(cma_test_foreign);

	lockdep_assert_held(&to_cma_id(id)->handler_mutex);
	might_sleep();
	WARN(!ok, "rdma_cm handler of id %u in a wrong context (%s)\n",
	     to_cma_id(id)->handle, current->comm);
	return ok;
}

/**
 * cma_test_handler - the event handler of every test id
 * @id: the id; its context is a struct cma_test_consumer
 * @event: the event
 *
 * Context: called by the CM with @id's handler mutex held.
 * Return: the consumer's @verdict.
 */
int cma_test_handler(struct rdma_cm_id *id, struct rdma_cm_event *event)
{
	struct cma_test_consumer *c = id->context;

	if (!cma_test_check_context(id))
		c->wrong_context = true;
	c->event = *event;
	c->state = cma_state(to_cma_id(id));
	atomic_inc(&c->calls);
	complete(&c->entered);
	if (c->block)
		wait_for_completion(&c->release);
	return c->verdict;
}

/* An id for consumer @c, which is left as it is. */
static struct rdma_cm_id *cma_test_id(struct kunit *test,
				      struct cma_test_consumer *c,
				      enum rdma_ucm_port_space ps,
				      enum ib_qp_type qp_type)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, cma_test_handler, c, ps, qp_type);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, id);
	return id;
}

/**
 * cma_test_create_id - create an RC id in init_net for a test consumer
 * @test: the test, failed if the id cannot be created
 * @c: the consumer, stored as the id's context
 *
 * Return: the id, which the test must destroy (or have destroyed).
 */
struct rdma_cm_id *cma_test_create_id(struct kunit *test,
				      struct cma_test_consumer *c)
{
	return cma_test_id(test, c, RDMA_PS_TCP, IB_QPT_RC);
}

/**
 * cma_test_new_id - a fresh consumer and its id in init_net
 * @test: the test, failed if the id cannot be created
 * @c: the consumer, initialised and stored as the id's context
 * @ps: the id's port space
 * @qp_type: its QP type
 *
 * Return: the id, IDLE, which the test must destroy.
 */
struct rdma_cm_id *cma_test_new_id(struct kunit *test,
				   struct cma_test_consumer *c,
				   enum rdma_ucm_port_space ps,
				   enum ib_qp_type qp_type)
{
	cma_test_consumer_init(c);
	return cma_test_id(test, c, ps, qp_type);
}

/**
 * cma_test_bound_id - an id bound to rxe0's address in the guest
 * @test: the test; skipped if no RDMA device has 10.0.0.1
 * @c: the consumer, initialised and stored as the id's context
 * @ps: the id's port space
 * @qp_type: its QP type
 *
 * For the suites that need a real device and port under the id.
 *
 * Return: the id, ADDR_BOUND, which the test must destroy.
 */
struct rdma_cm_id *cma_test_bound_id(struct kunit *test,
				     struct cma_test_consumer *c,
				     enum rdma_ucm_port_space ps,
				     enum ib_qp_type qp_type)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(0x0a000001) };
	struct rdma_cm_id *id = cma_test_new_id(test, c, ps, qp_type);
	int ret;

	ret = rdma_bind_addr(id, (struct sockaddr *)&a);
	if (ret) {
		rdma_destroy_id(id);
		kunit_skip(test, "no RDMA device at 10.0.0.1: %d", ret);
	}
	KUNIT_ASSERT_NOT_NULL(test, id->device);
	return id;
}

/**
 * cma_test_queue - queue an event for an id, failing the test on error
 * @test: the test
 * @id: the id
 * @from: state the id must be in at delivery
 * @to: state to move it to before delivery
 * @type: event type
 * @status: event status
 */
void cma_test_queue(struct kunit *test, struct rdma_cm_id *id,
		    enum rdma_cm_state from, enum rdma_cm_state to,
		    enum rdma_cm_event_type type, int status)
{
	struct rdma_cm_event event = { .event = type, .status = status };

	KUNIT_ASSERT_EQ(test, 0,
			cma_queue_event(to_cma_id(id), from, to, &event));
}

/**
 * cma_test_wait - wait for a completion, but not forever
 * @done: the completion
 *
 * Return: true if @done completed in time.
 */
bool cma_test_wait(struct completion *done)
{
	return wait_for_completion_timeout(done, CMA_TEST_TIMEOUT) != 0;
}

/*
 * A check that something does not happen while a lock or a wait holds it
 * off means nothing until the path under test has reached that lock and
 * sleeps there: a window of fixed length may close, under TCG, before the
 * other thread has even run. These wait for that sign instead, polling a
 * jiffy at a time (the lock and the completion have no hook to wait on).
 */
static bool cma_test_poll(bool (*cond)(void *arg), void *arg)
{
	unsigned long end = jiffies + CMA_TEST_TIMEOUT;

	while (!cond(arg)) {
		if (time_after(jiffies, end))
			return false;
		schedule_timeout_uninterruptible(1);
	}
	return true;
}

static bool cma_test_mutex_waited(void *arg)
{
	struct mutex *lock = arg;

	return !list_empty_careful(&lock->wait_list);
}

/**
 * cma_test_wait_handler_waiter - wait until a task sleeps on @id's
 *	handler mutex
 * @id: the id; its handler mutex is held, by the caller or a handler
 *
 * Context: process context. A caller that holds the mutex sleeps while
 * it waits, so that a contender queues instead of spinning on it.
 * Return: true once a task is queued on the mutex, false after the
 * timeout.
 */
bool cma_test_wait_handler_waiter(struct rdma_cm_id *id)
{
	return cma_test_poll(cma_test_mutex_waited,
			     &to_cma_id(id)->handler_mutex);
}

static bool cma_test_completion_waited(void *arg)
{
	struct completion *done = arg;

	return swait_active(&done->wait);
}

/**
 * cma_test_wait_release_waiter - wait until a destroy of @id waits for
 *	its last reference
 * @id: the id, held alive by a reference the caller controls
 *
 * Return: true once a task sleeps on the id's release, false after the
 * timeout.
 */
bool cma_test_wait_release_waiter(struct rdma_cm_id *id)
{
	return cma_test_poll(cma_test_completion_waited,
			     &to_cma_id(id)->released);
}

MODULE_DESCRIPTION("KUnit tests for rdma_cm");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
