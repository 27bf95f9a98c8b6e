/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A consumer for the KUnit suites: an event handler that records what it
 * was given and can be told to block or to ask for its id's destruction.
 */
#ifndef _CMA_TEST_H
#define _CMA_TEST_H

#include <kunit/test.h>

#include "cma_priv.h"

/**
 * struct cma_test_consumer - what the test handler saw, and how it behaves
 * @entered: completed each time the handler starts
 * @release: a blocking handler waits for it before returning
 * @calls: how many events the handler got
 * @event: the last event
 * @state: the id's state as the handler saw it
 * @wrong_context: the handler ran where no handler may (see
 *	cma_test_check_context())
 * @block: wait for @release before returning
 * @verdict: what the handler returns
 */
struct cma_test_consumer {
	struct completion entered;
	struct completion release;
	atomic_t calls;
	struct rdma_cm_event event;
	enum rdma_cm_state state;
	bool wrong_context;
	bool block;
	int verdict;
};

void cma_test_consumer_init(struct cma_test_consumer *c);
void cma_test_set_foreign(struct task_struct *task);
bool cma_test_check_context(struct rdma_cm_id *id);
int cma_test_handler(struct rdma_cm_id *id, struct rdma_cm_event *event);
struct rdma_cm_id *cma_test_create_id(struct kunit *test,
				      struct cma_test_consumer *c);
struct rdma_cm_id *cma_test_new_id(struct kunit *test,
				   struct cma_test_consumer *c,
				   enum rdma_ucm_port_space ps,
				   enum ib_qp_type qp_type);
struct rdma_cm_id *cma_test_bound_id(struct kunit *test,
				     struct cma_test_consumer *c,
				     enum rdma_ucm_port_space ps,
				     enum ib_qp_type qp_type);
void cma_test_queue(struct kunit *test, struct rdma_cm_id *id,
		    enum rdma_cm_state from, enum rdma_cm_state to,
		    enum rdma_cm_event_type type, int status);
bool cma_test_wait(struct completion *done);
bool cma_test_wait_handler_waiter(struct rdma_cm_id *id);
bool cma_test_wait_release_waiter(struct rdma_cm_id *id);

/* The fake InfiniBand device (cma_test_ibdev.c). */
#define IBDEV_SUBNET_LOCAL	0xfe80000000000000ULL
#define IBDEV_SUBNET_SITE	0xfec0000000010000ULL
#define IBDEV_GUID		0x0002c90300000001ULL
#define IBDEV_PKEY_DEFAULT	0xffff
#define IBDEV_PKEY_LIMITED	0x8001

struct ib_addr;
void cma_test_set_gid(struct ib_addr *addr, u64 subnet, u64 guid);
struct ib_device *cma_test_ibdev_add(void);
void cma_test_ibdev_remove(struct ib_device *device);
struct ib_device *cma_test_iwdev_add(void (*listen)(void));

#endif /* _CMA_TEST_H */
