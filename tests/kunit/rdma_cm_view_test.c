// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the listing of ids (cma_view.c): the line made of a snapshot,
 * and the snapshot of a live id.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/string.h>

#include "cma_test.h"

#define LINE_MAX_TEST	384

static void view_ipv4(struct cma_id_view *v)
{
	struct sockaddr_in *src = (struct sockaddr_in *)&v->src;
	struct sockaddr_in *dst = (struct sockaddr_in *)&v->dst;

	memset(v, 0, sizeof(*v));
	v->handle = 7;
	v->state = RDMA_CM_CONNECT;
	src->sin_family = AF_INET;
	src->sin_addr.s_addr = htonl(0x0a000001);
	src->sin_port = htons(7471);
	dst->sin_family = AF_INET;
	dst->sin_addr.s_addr = htonl(0x0a000002);
	dst->sin_port = htons(40000);
	v->ps = RDMA_PS_TCP;
	v->qp_type = IB_QPT_RC;
	v->qp_num = 17;
	strscpy(v->dev, "rxe0", sizeof(v->dev));
	v->port = 1;
	strscpy(v->owner, "cm_e2e", sizeof(v->owner));
	v->age_ms = 1234;
	v->tos = 96;
}

static void cma_view_line_ipv4(struct kunit *test)
{
	char buf[LINE_MAX_TEST];
	struct cma_id_view v;
	int len;

	view_ipv4(&v);
	len = cma_id_view_format(buf, sizeof(buf), &v);
	KUNIT_EXPECT_STREQ(test,
			   "id=7 state=CONNECT src=10.0.0.1:7471 dst=10.0.0.2:40000 ps=TCP qp_type=RC qpn=17 dev=rxe0 port=1 owner=cm_e2e pid=0 age_ms=1234 tos=96\n",
			   buf);
	KUNIT_EXPECT_EQ(test, (int)strlen(buf), len);
}

static void cma_view_line_ipv6(struct kunit *test)
{
	struct sockaddr_in6 *src;
	char buf[LINE_MAX_TEST];
	struct cma_id_view v;

	view_ipv4(&v);
	memset(&v.src, 0, sizeof(v.src));
	src = (struct sockaddr_in6 *)&v.src;
	src->sin6_family = AF_INET6;
	src->sin6_addr.s6_addr[0] = 0xfd;
	src->sin6_addr.s6_addr[15] = 1;
	src->sin6_port = htons(7471);
	memset(&v.dst, 0, sizeof(v.dst));
	v.state = RDMA_CM_LISTEN;
	v.ps = RDMA_PS_UDP;
	v.qp_type = IB_QPT_UD;
	v.pid = 42;
	strscpy(v.owner, "rping", sizeof(v.owner));
	KUNIT_EXPECT_GT(test, cma_id_view_format(buf, sizeof(buf), &v), 0);
	KUNIT_EXPECT_STREQ(test,
			   "id=7 state=LISTEN src=[fd00::1]:7471 dst=- ps=UDP qp_type=UD qpn=17 dev=rxe0 port=1 owner=rping pid=42 age_ms=1234 tos=96\n",
			   buf);
}

/* A new id: nothing bound, nothing named. */
static void cma_view_line_unset(struct kunit *test)
{
	char buf[LINE_MAX_TEST];
	struct cma_id_view v = { .state = RDMA_CM_IDLE, .ps = RDMA_PS_IB,
				 .qp_type = IB_QPT_XRC_TGT };

	KUNIT_EXPECT_GT(test, cma_id_view_format(buf, sizeof(buf), &v), 0);
	KUNIT_EXPECT_STREQ(test,
			   "id=0 state=IDLE src=- dst=- ps=IB qp_type=XRC_TGT qpn=0 dev=- port=0 owner=- pid=0 age_ms=0 tos=0\n",
			   buf);
}

/* A task name may hold blanks and '=': they must not split the field. */
static void cma_view_line_owner_one_field(struct kunit *test)
{
	char buf[LINE_MAX_TEST];
	struct cma_id_view v;

	view_ipv4(&v);
	strscpy(v.owner, "a b=c\td", sizeof(v.owner));
	KUNIT_EXPECT_GT(test, cma_id_view_format(buf, sizeof(buf), &v), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " owner=a_b_c_d pid="));
}

static void cma_view_line_too_long(struct kunit *test)
{
	char buf[LINE_MAX_TEST];
	struct cma_id_view v;
	int len;

	view_ipv4(&v);
	len = cma_id_view_format(buf, sizeof(buf), &v);
	KUNIT_ASSERT_GT(test, len, 0);
	KUNIT_EXPECT_EQ(test, len, cma_id_view_format(buf, len + 1, &v));
	KUNIT_EXPECT_EQ(test, -ENOSPC, cma_id_view_format(buf, len, &v));
}

/* The keys of a line are the header's names, in its order. */
static void cma_view_line_matches_header(struct kunit *test)
{
	char buf[LINE_MAX_TEST], hdr[] = CMA_ID_VIEW_HEADER;
	char *line = buf, *names = hdr + 2, *field, *name, *eq;
	struct cma_id_view v;
	unsigned int n = 0;

	view_ipv4(&v);
	KUNIT_ASSERT_GT(test, cma_id_view_format(buf, sizeof(buf), &v), 0);
	KUNIT_ASSERT_EQ(test, 0, strncmp(hdr, "# ", 2));
	strim(line);
	strim(names);
	while ((field = strsep(&line, " "))) {
		name = strsep(&names, " ");
		KUNIT_ASSERT_NOT_NULL(test, name);
		eq = strchr(field, '=');
		KUNIT_ASSERT_NOT_NULL(test, eq);
		*eq = '\0';
		KUNIT_EXPECT_STREQ(test, name, field);
		n++;
	}
	KUNIT_EXPECT_NULL(test, names);
	KUNIT_EXPECT_EQ(test, 13U, n);
}

/* A live id is found in the table with a reference, and shows as it is. */
static void cma_view_take_live_id(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id;
	struct cma_id_view v;
	unsigned long handle;
	struct cma_id *cid;

	cma_test_consumer_init(&c);
	id = cma_test_create_id(test, &c);
	cid = to_cma_id(id);
	handle = cid->handle;
	KUNIT_ASSERT_PTR_EQ(test, cid, cma_id_next(&handle));
	KUNIT_EXPECT_EQ(test, 2U, refcount_read(&cid->refcount));

	cid->state_since -= msecs_to_jiffies(5000);
	cma_id_view_take(cid, &v);
	KUNIT_EXPECT_EQ(test, cid->handle, v.handle);
	KUNIT_EXPECT_EQ(test, RDMA_CM_IDLE, v.state);
	KUNIT_EXPECT_GE(test, v.age_ms, 5000U);
	KUNIT_EXPECT_STREQ(test, "", v.dev);
	KUNIT_EXPECT_EQ(test, 0U, v.qp_num);
	KUNIT_EXPECT_EQ(test, RDMA_PS_TCP, v.ps);

	/* Writing the state restarts the clock. */
	KUNIT_EXPECT_EQ(test, RDMA_CM_IDLE,
			cma_enter(cid, RDMA_CM_DEVICE_REMOVAL));
	cma_id_view_take(cid, &v);
	KUNIT_EXPECT_EQ(test, RDMA_CM_DEVICE_REMOVAL, v.state);
	KUNIT_EXPECT_LT(test, v.age_ms, 5000U);

	cma_id_put(cid);
	rdma_destroy_id(id);
}

/* Past the last handle there is nothing, and no reference is taken. */
static void cma_view_next_past_end(struct kunit *test)
{
	unsigned long handle = ULONG_MAX;

	KUNIT_EXPECT_NULL(test, cma_id_next(&handle));
}

static struct kunit_case cma_view_cases[] = {
	KUNIT_CASE(cma_view_line_ipv4),
	KUNIT_CASE(cma_view_line_ipv6),
	KUNIT_CASE(cma_view_line_unset),
	KUNIT_CASE(cma_view_line_owner_one_field),
	KUNIT_CASE(cma_view_line_too_long),
	KUNIT_CASE(cma_view_line_matches_header),
	KUNIT_CASE(cma_view_take_live_id),
	KUNIT_CASE(cma_view_next_past_end),
	{}
};

static struct kunit_suite cma_view_suite = {
	.name = "rdma_cm_view",
	.test_cases = cma_view_cases,
};

kunit_test_suite(cma_view_suite);
