// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: every API call in every state where it is not legal returns
 * -EINVAL and changes nothing; binding and its port rules.
 */

#include <linux/in.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>

#include "cma_test.h"

/* Drive a fresh id to @state along the machine's own edges. */
static void cma_test_force_state(struct kunit *test, struct cma_id *cid,
				 enum rdma_cm_state state)
{
	static const enum rdma_cm_state path[] = {
		RDMA_CM_IDLE, RDMA_CM_ADDR_BOUND, RDMA_CM_ADDR_QUERY,
		RDMA_CM_ADDR_RESOLVED, RDMA_CM_ROUTE_QUERY,
		RDMA_CM_ROUTE_RESOLVED, RDMA_CM_CONNECT, RDMA_CM_DISCONNECT,
	};
	unsigned int i;

	if (state == RDMA_CM_LISTEN) {
		cma_test_force_state(test, cid, RDMA_CM_ADDR_BOUND);
		KUNIT_ASSERT_TRUE(test, cma_transition(cid, RDMA_CM_ADDR_BOUND,
						       RDMA_CM_LISTEN));
		return;
	}
	if (state == RDMA_CM_DEVICE_REMOVAL) {
		cma_enter(cid, RDMA_CM_DEVICE_REMOVAL);
		return;
	}
	for (i = 1; i < ARRAY_SIZE(path) && path[i - 1] != state; i++)
		KUNIT_ASSERT_TRUE(test, cma_transition(cid, path[i - 1],
						       path[i]));
	KUNIT_ASSERT_EQ(test, state, cma_state(cid));
}

enum cma_test_call {
	CALL_BIND, CALL_RESOLVE_ADDR, CALL_RESOLVE_ROUTE, CALL_LISTEN,
	CALL_CONNECT, CALL_ACCEPT, CALL_REJECT, CALL_DISCONNECT, CALL_NOTIFY,
	CALL_INIT_QP_ATTR, CALL_SET_AFONLY, CALL_NR
};

static const char * const cma_test_call_names[CALL_NR] = {
	"bind_addr", "resolve_addr", "resolve_route", "listen", "connect",
	"accept", "reject", "disconnect", "notify", "init_qp_attr",
	"set_afonly",
};

/* The states a call is legal in, as far as its state check goes. */
static bool cma_test_call_legal(enum cma_test_call call,
				enum rdma_cm_state state)
{
	switch (call) {
	case CALL_BIND:
		return state == RDMA_CM_IDLE;
	case CALL_RESOLVE_ADDR:
	case CALL_LISTEN:
	case CALL_SET_AFONLY:
		return state == RDMA_CM_IDLE || state == RDMA_CM_ADDR_BOUND;
	case CALL_RESOLVE_ROUTE:
		return state == RDMA_CM_ADDR_RESOLVED;
	case CALL_CONNECT:
		return state == RDMA_CM_ROUTE_RESOLVED;
	default:
		/* Need a connection or a device, which these ids lack. */
		return false;
	}
}

static int cma_test_call(struct rdma_cm_id *id, enum cma_test_call call)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(0x0a000001) };
	struct rdma_conn_param param = {};
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	int mask, ret;

	switch (call) {
	case CALL_BIND:
		return rdma_bind_addr(id, (struct sockaddr *)&addr);
	case CALL_RESOLVE_ADDR:
		return rdma_resolve_addr(id, NULL, (struct sockaddr *)&addr,
					 1000);
	case CALL_RESOLVE_ROUTE:
		return rdma_resolve_route(id, 1000);
	case CALL_LISTEN:
		return rdma_listen(id, 1);
	case CALL_CONNECT:
		return rdma_connect(id, &param);
	case CALL_ACCEPT:
		rdma_lock_handler(id);
		ret = rdma_accept(id, &param);
		rdma_unlock_handler(id);
		return ret;
	case CALL_REJECT:
		return rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	case CALL_DISCONNECT:
		return rdma_disconnect(id);
	case CALL_NOTIFY:
		return rdma_notify(id, IB_EVENT_COMM_EST);
	case CALL_INIT_QP_ATTR:
		return rdma_init_qp_attr(id, &attr, &mask);
	case CALL_SET_AFONLY:
		return rdma_set_afonly(id, 1);
	default:
		return 0;
	}
}

static void cma_api_illegal_calls_change_nothing(struct kunit *test)
{
	enum rdma_cm_state state;
	enum cma_test_call call;

	for (state = 0; state < RDMA_CM_DESTROYING; state++) {
		for (call = 0; call < CALL_NR; call++) {
			struct cma_test_consumer c;
			struct rdma_cm_id *id;

			if (cma_test_call_legal(call, state))
				continue;
			cma_test_consumer_init(&c);
			id = cma_test_create_id(test, &c);
			cma_test_force_state(test, to_cma_id(id), state);

			KUNIT_EXPECT_EQ_MSG(test, -EINVAL,
					    cma_test_call(id, call),
					    "%s in %s", cma_test_call_names[call],
					    cma_state_name(state));
			KUNIT_EXPECT_EQ_MSG(test, state,
					    cma_state(to_cma_id(id)),
					    "%s in %s", cma_test_call_names[call],
					    cma_state_name(state));
			rdma_destroy_id(id);
		}
	}
}

static struct sockaddr_in any4(u16 port)
{
	return (struct sockaddr_in){ .sin_family = AF_INET,
				     .sin_port = htons(port) };
}

static void cma_api_bind_wildcard_and_ports(struct kunit *test)
{
	struct sockaddr_in a = any4(0), b = any4(0);
	struct cma_test_consumer c;
	struct rdma_cm_id *x, *y;
	int low, high;
	u16 port;

	cma_test_consumer_init(&c);
	x = cma_test_create_id(test, &c);
	y = cma_test_create_id(test, &c);

	/* Ephemeral: from ip_local_port_range, written back into the id. */
	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(x, (struct sockaddr *)&a));
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, cma_state(to_cma_id(x)));
	port = cma_addr_port((struct sockaddr *)&x->route.addr.src_addr);
	inet_get_local_port_range(&init_net, &low, &high);
	KUNIT_EXPECT_GE(test, port, low);
	KUNIT_EXPECT_LE(test, port, high);
	KUNIT_EXPECT_NULL(test, x->device);

	/* The same wildcard port again: taken, in-box's errno. */
	b = any4(port);
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL,
			rdma_bind_addr(y, (struct sockaddr *)&b));
	KUNIT_EXPECT_EQ(test, RDMA_CM_IDLE, cma_state(to_cma_id(y)));
	rdma_destroy_id(x);

	/* Freed with its id. */
	KUNIT_EXPECT_EQ(test, 0, rdma_bind_addr(y, (struct sockaddr *)&b));
	rdma_destroy_id(y);
}

static void cma_api_reuseaddr_shares_until_listen(struct kunit *test)
{
	struct sockaddr_in a = any4(0);
	struct cma_test_consumer c;
	struct rdma_cm_id *x, *y;

	cma_test_consumer_init(&c);
	x = cma_test_create_id(test, &c);
	y = cma_test_create_id(test, &c);
	KUNIT_ASSERT_EQ(test, 0, rdma_set_reuseaddr(x, 1));
	KUNIT_ASSERT_EQ(test, 0, rdma_set_reuseaddr(y, 1));

	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(x, (struct sockaddr *)&a));
	a = any4(cma_addr_port((struct sockaddr *)&x->route.addr.src_addr));
	KUNIT_EXPECT_EQ(test, 0, rdma_bind_addr(y, (struct sockaddr *)&a));

	/* A listener must be alone on its address (wildcards: in-box's). */
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL, rdma_listen(x, 1));
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, cma_state(to_cma_id(x)));
	/* Reuse cannot be turned off once bound. */
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_set_reuseaddr(x, 0));
	rdma_destroy_id(y);
	KUNIT_EXPECT_EQ(test, 0, rdma_listen(x, 1));
	KUNIT_EXPECT_EQ(test, RDMA_CM_LISTEN, cma_state(to_cma_id(x)));
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_set_reuseaddr(x, 1));
	rdma_destroy_id(x);
}

static void cma_api_afonly_splits_families(struct kunit *test)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = any4(0);
	struct cma_test_consumer c;
	struct rdma_cm_id *x, *y;

	cma_test_consumer_init(&c);
	x = cma_test_create_id(test, &c);
	y = cma_test_create_id(test, &c);
	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(x, (struct sockaddr *)&a4));
	KUNIT_EXPECT_TRUE(test, to_cma_id(x)->afonly);

	a6.sin6_port = htons(cma_addr_port((struct sockaddr *)
					   &x->route.addr.src_addr));
	KUNIT_ASSERT_EQ(test, 0, rdma_set_afonly(y, 1));
	KUNIT_EXPECT_EQ(test, 0, rdma_bind_addr(y, (struct sockaddr *)&a6));
	rdma_destroy_id(x);
	rdma_destroy_id(y);
}

static void cma_api_bad_addresses(struct kunit *test)
{
	struct sockaddr_in6 ll = { .sin6_family = AF_INET6,
				   .sin6_addr.s6_addr = { 0xfe, 0x80, [15] = 1 } };
	struct sockaddr bad = { .sa_family = AF_UNIX };
	struct sockaddr_in dst4 = any4(0);
	struct cma_test_consumer c;
	struct rdma_cm_id *id;

	cma_test_consumer_init(&c);
	id = cma_test_create_id(test, &c);
	KUNIT_EXPECT_EQ(test, -EAFNOSUPPORT, rdma_bind_addr(id, &bad));
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_bind_addr(id, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			rdma_bind_addr(id, (struct sockaddr *)&ll));
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_resolve_route(id, 0));
	KUNIT_EXPECT_EQ(test, RDMA_CM_IDLE, cma_state(to_cma_id(id)));

	/* Source and destination of different families. */
	memset(&ll.sin6_addr, 0, sizeof(ll.sin6_addr));
	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(id, (struct sockaddr *)&ll));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst4,
					  1000));
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, cma_state(to_cma_id(id)));
	rdma_destroy_id(id);
}

static void cma_api_timers_only_for_rc(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *rc, *ud;

	cma_test_consumer_init(&c);
	rc = cma_test_create_id(test, &c);
	ud = rdma_create_id(&init_net, cma_test_handler, &c, RDMA_PS_UDP,
			    IB_QPT_UD);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ud);

	KUNIT_EXPECT_EQ(test, 0, rdma_set_ack_timeout(rc, 14));
	KUNIT_EXPECT_EQ(test, 0, rdma_set_min_rnr_timer(rc, 31));
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_set_min_rnr_timer(rc, 32));
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_set_ack_timeout(ud, 14));
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_set_min_rnr_timer(ud, 1));
	/* 6.1's wire format: the TCP port space's prefix, port 0. */
	KUNIT_EXPECT_EQ(test, cpu_to_be64(0x0000000001060000ULL),
			rdma_get_service_id(rc, (struct sockaddr *)
					    &rc->route.addr.src_addr));
	rdma_destroy_id(rc);
	rdma_destroy_id(ud);
}

/* A loopback destination binds any device and resolves with no neighbour. */
static void cma_api_resolve_loopback(struct kunit *test)
{
	struct sockaddr_in lo = { .sin_family = AF_INET,
				  .sin_port = htons(7471),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in *src;
	struct cma_test_consumer c;
	struct rdma_cm_id *id;
	int ret;

	cma_test_consumer_init(&c);
	id = cma_test_create_id(test, &c);
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&lo, 1000);
	if (ret == -ENODEV) {
		rdma_destroy_id(id);
		kunit_skip(test, "no RDMA device");
	}
	KUNIT_ASSERT_EQ(test, 0, ret);
	KUNIT_EXPECT_TRUE(test, cma_test_wait(&c.entered));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ADDR_RESOLVED, c.event.event);
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_RESOLVED, cma_state(to_cma_id(id)));
	KUNIT_EXPECT_NOT_NULL(test, id->device);

	src = (struct sockaddr_in *)&id->route.addr.src_addr;
	KUNIT_EXPECT_EQ(test, htonl(INADDR_LOOPBACK), src->sin_addr.s_addr);
	KUNIT_EXPECT_NE(test, 0, cma_addr_port((struct sockaddr *)src));
	KUNIT_EXPECT_EQ(test, 7471, cma_addr_port((struct sockaddr *)
						  &id->route.addr.dst_addr));
	rdma_destroy_id(id);
}

/*
 * Nobody answers for 10.0.0.99 on the guest's veth: address resolution
 * times out, ADDR_ERROR comes, and the id is back in ADDR_BOUND, ready to
 * try again.
 */
static void cma_api_resolve_timeout(struct kunit *test)
{
	struct sockaddr_in nobody = { .sin_family = AF_INET,
				      .sin_addr.s_addr = htonl(0x0a000063) };
	struct cma_test_consumer c;
	struct rdma_cm_id *id;
	int ret;

	cma_test_consumer_init(&c);
	id = cma_test_create_id(test, &c);
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&nobody, 200);
	if (ret) {
		rdma_destroy_id(id);
		kunit_skip(test, "no route to 10.0.0.99: %d", ret);
	}
	KUNIT_EXPECT_TRUE(test, cma_test_wait(&c.entered));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ADDR_ERROR, c.event.event);
	KUNIT_EXPECT_NE(test, 0, c.event.status);
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, cma_state(to_cma_id(id)));
	KUNIT_EXPECT_NULL(test, id->device);
	rdma_destroy_id(id);
}

static struct kunit_case cma_api_cases[] = {
	KUNIT_CASE(cma_api_illegal_calls_change_nothing),
	KUNIT_CASE(cma_api_bind_wildcard_and_ports),
	KUNIT_CASE(cma_api_reuseaddr_shares_until_listen),
	KUNIT_CASE(cma_api_afonly_splits_families),
	KUNIT_CASE(cma_api_bad_addresses),
	KUNIT_CASE(cma_api_timers_only_for_rc),
	KUNIT_CASE(cma_api_resolve_loopback),
	KUNIT_CASE(cma_api_resolve_timeout),
	{}
};

static struct kunit_suite cma_api_suite = {
	.name = "rdma_cm_api",
	.test_cases = cma_api_cases,
};

kunit_test_suite(cma_api_suite);
