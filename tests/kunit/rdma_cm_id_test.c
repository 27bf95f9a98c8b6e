// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: creating and destroying ids (cma_id.c).
 */

#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <net/net_namespace.h>

#include "cma_test.h"

static void cma_id_create_fills_the_id(struct kunit *test)
{
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct rdma_cm_id *id;
	struct cma_id *cid;

	cma_test_consumer_init(&c);
	id = rdma_create_id(&init_net, cma_test_handler, &c, RDMA_PS_UDP,
			    IB_QPT_UD);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, id);
	cid = to_cma_id(id);

	KUNIT_EXPECT_PTR_EQ(test, (void *)&c, id->context);
	KUNIT_EXPECT_TRUE(test, id->event_handler == cma_test_handler);
	KUNIT_EXPECT_EQ(test, RDMA_PS_UDP, id->ps);
	KUNIT_EXPECT_EQ(test, IB_QPT_UD, id->qp_type);
	KUNIT_EXPECT_NULL(test, id->device);
	KUNIT_EXPECT_NULL(test, id->qp);
	KUNIT_EXPECT_PTR_EQ(test, &init_net, id->route.addr.dev_addr.net);
	KUNIT_EXPECT_EQ(test, RDMA_CM_IDLE, cma_state(cid));
	KUNIT_EXPECT_STREQ(test, KBUILD_MODNAME, cid->owner);
	KUNIT_EXPECT_EQ(test, 0, cid->pid);
	KUNIT_EXPECT_EQ(test, live + 1, cma_id_count());

	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c.calls));
}

static void cma_id_holds_its_netns(struct kunit *test)
{
	unsigned int before = refcount_read(&init_net.ns.count);
	struct cma_test_consumer c;
	struct rdma_cm_id *a, *b;

	cma_test_consumer_init(&c);
	a = cma_test_create_id(test, &c);
	KUNIT_EXPECT_EQ(test, before + 1, refcount_read(&init_net.ns.count));
	b = cma_test_create_id(test, &c);
	KUNIT_EXPECT_EQ(test, before + 2, refcount_read(&init_net.ns.count));

	rdma_destroy_id(a);
	KUNIT_EXPECT_EQ(test, before + 1, refcount_read(&init_net.ns.count));
	rdma_destroy_id(b);
	KUNIT_EXPECT_EQ(test, before, refcount_read(&init_net.ns.count));
}

static void cma_id_user_id_belongs_to_the_task(struct kunit *test)
{
	struct net *net = current->nsproxy->net_ns;
	char comm[TASK_COMM_LEN];
	struct cma_test_consumer c;
	struct rdma_cm_id *id;
	struct cma_id *cid;

	cma_test_consumer_init(&c);
	id = rdma_create_user_id(cma_test_handler, &c, RDMA_PS_IB, IB_QPT_UD);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, id);
	cid = to_cma_id(id);

	get_task_comm(comm, current);
	KUNIT_EXPECT_PTR_EQ(test, net, id->route.addr.dev_addr.net);
	KUNIT_EXPECT_EQ(test, task_tgid_vnr(current), cid->pid);
	KUNIT_EXPECT_STREQ(test, comm, cid->owner);
	rdma_destroy_id(id);
}

/* Handles are unique among live ids, so listings can key on them. */
static void cma_id_handles_unique(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *a, *b;

	cma_test_consumer_init(&c);
	a = cma_test_create_id(test, &c);
	b = cma_test_create_id(test, &c);
	KUNIT_EXPECT_NE(test, to_cma_id(a)->handle, to_cma_id(b)->handle);
	rdma_destroy_id(a);
	rdma_destroy_id(b);
}

struct cma_id_args {
	const char *what;
	bool no_net;
	bool no_handler;
	enum rdma_ucm_port_space ps;
	enum ib_qp_type qp_type;
	int err;
};

static const struct cma_id_args cma_id_args_cases[] = {
	{ "TCP RC", false, false, RDMA_PS_TCP, IB_QPT_RC, 0 },
	{ "TCP XRC initiator", false, false, RDMA_PS_TCP, IB_QPT_XRC_INI, 0 },
	{ "UDP UD", false, false, RDMA_PS_UDP, IB_QPT_UD, 0 },
	{ "IPoIB UD", false, false, RDMA_PS_IPOIB, IB_QPT_UD, 0 },
	{ "IB RC", false, false, RDMA_PS_IB, IB_QPT_RC, 0 },
	{ "IB UD", false, false, RDMA_PS_IB, IB_QPT_UD, 0 },
	{ "no netns", true, false, RDMA_PS_TCP, IB_QPT_RC, -EINVAL },
	{ "no handler", false, true, RDMA_PS_TCP, IB_QPT_RC, -EINVAL },
	{ "unknown port space", false, false, 0x0999, IB_QPT_RC, -EINVAL },
	/* 6.1 takes any QP type; where it is used, it may fail */
	{ "TCP UD", false, false, RDMA_PS_TCP, IB_QPT_UD, 0 },
	{ "UDP RC", false, false, RDMA_PS_UDP, IB_QPT_RC, 0 },
	{ "IPoIB RC", false, false, RDMA_PS_IPOIB, IB_QPT_RC, 0 },
	{ "IB GSI", false, false, RDMA_PS_IB, IB_QPT_GSI, 0 },
	{ "IB raw packet", false, false, RDMA_PS_IB, IB_QPT_RAW_PACKET, 0 },
};

static void cma_id_args_desc(const struct cma_id_args *a, char *desc)
{
	strscpy(desc, a->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cma_id_args, cma_id_args_cases, cma_id_args_desc);

static void cma_id_create_checks_arguments(struct kunit *test)
{
	const struct cma_id_args *a = test->param_value;
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct rdma_cm_id *id;

	cma_test_consumer_init(&c);
	id = rdma_create_id(a->no_net ? NULL : &init_net,
			    a->no_handler ? NULL : cma_test_handler, &c,
			    a->ps, a->qp_type);
	if (a->err) {
		KUNIT_EXPECT_EQ(test, a->err, PTR_ERR_OR_ZERO(id));
		KUNIT_EXPECT_EQ(test, live, cma_id_count());
		return;
	}
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, id);
	rdma_destroy_id(id);
}

static struct kunit_case cma_id_cases[] = {
	KUNIT_CASE(cma_id_create_fills_the_id),
	KUNIT_CASE(cma_id_holds_its_netns),
	KUNIT_CASE(cma_id_user_id_belongs_to_the_task),
	KUNIT_CASE(cma_id_handles_unique),
	KUNIT_CASE_PARAM(cma_id_create_checks_arguments, cma_id_args_gen_params),
	{}
};

static struct kunit_suite cma_id_suite = {
	.name = "rdma_cm_id",
	.test_cases = cma_id_cases,
};

kunit_test_suite(cma_id_suite);
