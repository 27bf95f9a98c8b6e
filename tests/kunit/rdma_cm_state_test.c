// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the id state machine (cma_state.c).
 */

#include <net/net_namespace.h>

#include "cma_test.h"

#define EDGE(a, b) { RDMA_CM_##a, RDMA_CM_##b }

/*
 * The state machine of Documentation/design.rst, spelled out edge by
 * edge. Every pair not listed here must be refused. This holds the
 * transition table to its document; what a consumer sees of it, every
 * call in every state, is held to the in-box module's answers by the
 * differential harness (tests/diff, the matrix scenarios).
 */
static const struct {
	enum rdma_cm_state from, to;
} expected_edges[] = {
	EDGE(IDLE, ADDR_BOUND),
	EDGE(ADDR_BOUND, IDLE),
	EDGE(ADDR_BOUND, ADDR_QUERY),
	EDGE(ADDR_BOUND, LISTEN),
	EDGE(ADDR_QUERY, ADDR_BOUND),
	EDGE(ADDR_QUERY, ADDR_RESOLVED),
	EDGE(ADDR_RESOLVED, ADDR_BOUND),
	EDGE(ADDR_RESOLVED, ROUTE_QUERY),
	EDGE(ADDR_RESOLVED, ROUTE_RESOLVED),
	EDGE(ROUTE_QUERY, ADDR_RESOLVED),
	EDGE(ROUTE_QUERY, ROUTE_RESOLVED),
	EDGE(ROUTE_RESOLVED, ADDR_RESOLVED),
	EDGE(ROUTE_RESOLVED, CONNECT),
	EDGE(CONNECT, ROUTE_RESOLVED),
	EDGE(CONNECT, DISCONNECT),
	EDGE(LISTEN, ADDR_BOUND),
	EDGE(DEVICE_REMOVAL, DESTROYING),
	EDGE(ADDR_BOUND, ADDRINFO_QUERY),
	EDGE(ADDRINFO_QUERY, ADDR_BOUND),
	EDGE(ADDRINFO_QUERY, ADDRINFO_RESOLVED),
	EDGE(ADDRINFO_RESOLVED, ADDR_QUERY),
};

static bool expected(enum rdma_cm_state from, enum rdma_cm_state to)
{
	unsigned int i;

	/* Any live state may end in removal or destruction. */
	if (from != RDMA_CM_DESTROYING && from != RDMA_CM_DEVICE_REMOVAL &&
	    (to == RDMA_CM_DEVICE_REMOVAL || to == RDMA_CM_DESTROYING))
		return true;
	for (i = 0; i < ARRAY_SIZE(expected_edges); i++)
		if (expected_edges[i].from == from &&
		    expected_edges[i].to == to)
			return true;
	return false;
}

static void cma_state_table_is_exactly_the_machine(struct kunit *test)
{
	enum rdma_cm_state from, to;

	for (from = 0; from < RDMA_CM_NR_STATES; from++)
		for (to = 0; to < RDMA_CM_NR_STATES; to++)
			KUNIT_EXPECT_EQ_MSG(test, expected(from, to),
					    cma_state_allows(from, to),
					    "%s -> %s", cma_state_name(from),
					    cma_state_name(to));
}

static void cma_state_destroying_is_terminal(struct kunit *test)
{
	enum rdma_cm_state to;

	for (to = 0; to < RDMA_CM_NR_STATES; to++)
		KUNIT_EXPECT_FALSE(test,
				   cma_state_allows(RDMA_CM_DESTROYING, to));
}

static void cma_state_out_of_range_refused(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, cma_state_allows(RDMA_CM_NR_STATES,
						  RDMA_CM_DESTROYING));
	KUNIT_EXPECT_FALSE(test, cma_state_allows(RDMA_CM_IDLE,
						  RDMA_CM_NR_STATES));
	KUNIT_EXPECT_FALSE(test, cma_state_allows(-1, RDMA_CM_IDLE));
	KUNIT_EXPECT_STREQ(test, "UNKNOWN",
			   cma_state_name(RDMA_CM_NR_STATES));
}

static void cma_state_names_distinct(struct kunit *test)
{
	enum rdma_cm_state a, b;

	KUNIT_EXPECT_STREQ(test, "IDLE", cma_state_name(RDMA_CM_IDLE));
	KUNIT_EXPECT_STREQ(test, "DESTROYING",
			   cma_state_name(RDMA_CM_DESTROYING));
	for (a = 0; a < RDMA_CM_NR_STATES; a++)
		for (b = a + 1; b < RDMA_CM_NR_STATES; b++)
			KUNIT_EXPECT_STRNEQ(test, cma_state_name(a),
					    cma_state_name(b));
}

/* The numbers are ABI: user space reads them. */
static void cma_state_numbers_are_the_inbox_ones(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 0, RDMA_CM_IDLE);
	KUNIT_EXPECT_EQ(test, 5, RDMA_CM_CONNECT);
	KUNIT_EXPECT_EQ(test, 7, RDMA_CM_ADDR_BOUND);
	KUNIT_EXPECT_EQ(test, 8, RDMA_CM_LISTEN);
	KUNIT_EXPECT_EQ(test, 10, RDMA_CM_DESTROYING);
	/* Newer kernels append these. */
	KUNIT_EXPECT_EQ(test, 11, RDMA_CM_ADDRINFO_QUERY);
	KUNIT_EXPECT_EQ(test, 12, RDMA_CM_ADDRINFO_RESOLVED);
	KUNIT_EXPECT_EQ(test, 16, RDMA_CM_EVENT_ADDRINFO_RESOLVED);
	KUNIT_EXPECT_EQ(test, 17, RDMA_CM_EVENT_ADDRINFO_ERROR);
}

static void cma_transition_compares_then_exchanges(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id;
	struct cma_id *cid;

	cma_test_consumer_init(&c);
	id = cma_test_create_id(test, &c);
	cid = to_cma_id(id);

	/* Wrong starting state: refused, nothing changes. */
	KUNIT_EXPECT_FALSE(test, cma_transition(cid, RDMA_CM_ADDR_BOUND,
						RDMA_CM_LISTEN));
	KUNIT_EXPECT_EQ(test, RDMA_CM_IDLE, cma_state(cid));

	KUNIT_EXPECT_TRUE(test, cma_transition(cid, RDMA_CM_IDLE,
					       RDMA_CM_ADDR_BOUND));
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, cma_state(cid));

	/* A second caller racing from the same state loses. */
	KUNIT_EXPECT_FALSE(test, cma_transition(cid, RDMA_CM_IDLE,
						RDMA_CM_ADDR_BOUND));
	rdma_destroy_id(id);
}

static void cma_enter_respects_terminal_states(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id;
	struct cma_id *cid;

	cma_test_consumer_init(&c);
	id = cma_test_create_id(test, &c);
	cid = to_cma_id(id);

	KUNIT_EXPECT_EQ(test, RDMA_CM_IDLE,
			cma_enter(cid, RDMA_CM_DEVICE_REMOVAL));
	KUNIT_EXPECT_EQ(test, RDMA_CM_DEVICE_REMOVAL, cma_state(cid));
	/* No way back to a live state... */
	KUNIT_EXPECT_EQ(test, RDMA_CM_DEVICE_REMOVAL,
			cma_enter(cid, RDMA_CM_IDLE));
	KUNIT_EXPECT_EQ(test, RDMA_CM_DEVICE_REMOVAL, cma_state(cid));
	/* ...only on to destruction, which rdma_destroy_id() does. */
	rdma_destroy_id(id);
}

static struct kunit_case cma_state_cases[] = {
	KUNIT_CASE(cma_state_table_is_exactly_the_machine),
	KUNIT_CASE(cma_state_destroying_is_terminal),
	KUNIT_CASE(cma_state_out_of_range_refused),
	KUNIT_CASE(cma_state_names_distinct),
	KUNIT_CASE(cma_state_numbers_are_the_inbox_ones),
	KUNIT_CASE(cma_transition_compares_then_exchanges),
	KUNIT_CASE(cma_enter_respects_terminal_states),
	{}
};

static struct kunit_suite cma_state_suite = {
	.name = "rdma_cm_state",
	.test_cases = cma_state_cases,
};

kunit_test_suite(cma_state_suite);
