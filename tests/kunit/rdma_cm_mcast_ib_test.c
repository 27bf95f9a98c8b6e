// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: multicast on InfiniBand (cma_mcast.c): the MGID of an IP group
 * and the member record asked of the SA, and, through a fake SA (there
 * is no IB fabric here), the join's answers as events, a later error,
 * a group with the wrong qkey, leaving, and destruction with groups.
 * The ids are bound to rxe0's address in the guest for a real device
 * and port; the join itself is what rdma_join_multicast() does on an
 * InfiniBand port.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <linux/if_infiniband.h>
#include <rdma/ib_addr.h>

#include "cma_test.h"

/**
 * struct fake_mc - the fake SA's joins
 * @m: the last join made, NULL once left
 * @rec: what it asked for
 * @mask: and which components
 * @join_ret: an error for the next join to fail with, or 0
 * @answer_in_join: answer from inside the join, with this error, before
 *	it returns (ib_sa can answer on another CPU before its join returns)
 * @listed_in_join: the id had a group on its list when it was answered
 *	from inside the join
 * @joins: joins asked for
 * @leaves: joins left
 */
struct fake_mc {
	struct ib_sa_multicast *m;
	struct ib_sa_mcmember_rec rec;
	ib_sa_comp_mask mask;
	int join_ret;
	int answer_in_join;
	bool listed_in_join;
	int joins;
	int leaves;
};

static struct fake_mc fake;

static struct ib_sa_multicast *
fake_join(struct cma_id *cid, struct ib_sa_mcmember_rec *rec,
	  ib_sa_comp_mask mask,
	  int (*answer)(int status, struct ib_sa_multicast *m), void *context)
{
	struct ib_sa_multicast *m;

	fake.joins++;
	if (fake.join_ret)
		return ERR_PTR(fake.join_ret);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->rec = *rec;
	m->comp_mask = mask;
	m->callback = answer;
	m->context = context;
	fake.m = m;
	fake.rec = *rec;
	fake.mask = mask;
	if (fake.answer_in_join) {
		fake.listed_in_join = !list_empty(&cid->mcs);
		answer(fake.answer_in_join, m);
	}
	return m;
}

static void fake_leave(struct ib_sa_multicast *m)
{
	fake.leaves++;
	if (fake.m == m)
		fake.m = NULL;
	kfree(m);
}

static const struct cma_mc_sa_ops fake_ops = {
	.join	= fake_join,
	.leave	= fake_leave,
};

static int mcast_ib_init(struct kunit *test)
{
	memset(&fake, 0, sizeof(fake));
	cma_set_mc_sa_ops(&fake_ops);
	return 0;
}

static void mcast_ib_exit(struct kunit *test)
{
	cma_set_mc_sa_ops(NULL);
}

/* An IPoIB broadcast address: QPN, then ff12:401b:<P_Key>::ffff:ffff. */
static const unsigned char broadcast[INFINIBAND_ALEN] = {
	0x00, 0xff, 0xff, 0xff, 0xff, 0x12, 0x40, 0x1b, 0x80, 0x01,
	[16] = 0xff, 0xff, 0xff, 0xff,
};

static void mcast_ib_mgid(struct kunit *test)
{
	struct sockaddr_in g4 = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(0xef010203) };
	struct sockaddr_in6 g6 = { .sin6_family = AF_INET6 };
	/* IPoIB keeps the low 28 bits of an IPv4 group. */
	static const u8 ipoib4[16] = { 0xff, 0x12, 0x40, 0x1b, 0x80, 0x01,
				       [12] = 0x0f, 0x01, 0x02, 0x03 };
	static const u8 cm4[16] = { 0xff, 0x12, 0x40, 0x01, 0x80, 0x01,
				    [12] = 0x0f, 0x01, 0x02, 0x03 };
	static const u8 cm6[16] = { 0xff, 0x12, 0x60, 0x01, 0x80, 0x01,
				    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
				    0x00, 0x01, 0x02, 0x03 };
	static const u8 sa6[16] = { 0xff, 0x15, 0xa0, 0x1b, [15] = 0x07 };
	union ib_gid mgid;

	/* IPoIB's own mapping for the IPoIB port space ... */
	cma_mc_ib_mgid((struct sockaddr *)&g4, broadcast, RDMA_PS_IPOIB, &mgid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(ipoib4, mgid.raw, 16));
	/* ... the rdma_cm's signature for UDP, so not the IPoIB group. */
	cma_mc_ib_mgid((struct sockaddr *)&g4, broadcast, RDMA_PS_UDP, &mgid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(cm4, mgid.raw, 16));

	g6.sin6_addr.s6_addr[0] = 0xff;
	g6.sin6_addr.s6_addr[1] = 0x0e;
	g6.sin6_addr.s6_addr[13] = 0x01;
	g6.sin6_addr.s6_addr[14] = 0x02;
	g6.sin6_addr.s6_addr[15] = 0x03;
	cma_mc_ib_mgid((struct sockaddr *)&g6, broadcast, RDMA_PS_UDP, &mgid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(cm6, mgid.raw, 16));

	/* An SA-assigned MGID given as an IPv6 group is taken as it is. */
	memcpy(g6.sin6_addr.s6_addr, sa6, 16);
	cma_mc_ib_mgid((struct sockaddr *)&g6, broadcast, RDMA_PS_UDP, &mgid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(sa6, mgid.raw, 16));
}

static const union ib_gid port_gid = { .raw = { 0xfe, 0x80, [15] = 0x09 } };

/* An IPoIB-like resolved address: port GID, P_Key 0x8001, broadcast. */
static void ib_dev_addr(struct rdma_dev_addr *dev_addr)
{
	memcpy(dev_addr->broadcast, broadcast, sizeof(broadcast));
	rdma_addr_set_sgid(dev_addr, (union ib_gid *)&port_gid);
}

static void mcast_ib_request(struct kunit *test)
{
	struct sockaddr_in g4 = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(0xef010203) };
	struct rdma_dev_addr dev_addr = {};
	struct ib_sa_mcmember_rec rec;
	union ib_gid mgid;
	ib_sa_comp_mask mask;

	ib_dev_addr(&dev_addr);
	mask = cma_mc_ib_request(&dev_addr, (struct sockaddr *)&g4,
				 RDMA_PS_UDP, BIT(SENDONLY_FULLMEMBER_JOIN),
				 0x01234567, &rec);
	cma_mc_ib_mgid((struct sockaddr *)&g4, broadcast, RDMA_PS_UDP, &mgid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&mgid, &rec.mgid, sizeof(mgid)));
	KUNIT_EXPECT_EQ(test, 0, memcmp(&port_gid, &rec.port_gid,
					sizeof(port_gid)));
	KUNIT_EXPECT_EQ(test, cpu_to_be32(0x01234567), rec.qkey);
	KUNIT_EXPECT_EQ(test, cpu_to_be16(0x8001), rec.pkey);
	KUNIT_EXPECT_EQ(test, BIT(SENDONLY_FULLMEMBER_JOIN), rec.join_state);
	KUNIT_EXPECT_EQ(test, IB_SA_MCMEMBER_REC_MGID |
			IB_SA_MCMEMBER_REC_PORT_GID | IB_SA_MCMEMBER_REC_PKEY |
			IB_SA_MCMEMBER_REC_JOIN_STATE |
			IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_SL |
			IB_SA_MCMEMBER_REC_FLOW_LABEL |
			IB_SA_MCMEMBER_REC_TRAFFIC_CLASS, mask);
}

static struct sockaddr_in group = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(0xef010203) };

/* A UDP id bound to rxe0's address in the guest, or the test skips. */
static struct rdma_cm_id *udp_id(struct kunit *test,
				 struct cma_test_consumer *c)
{
	return cma_test_bound_id(test, c, RDMA_PS_UDP, IB_QPT_UD);
}

/* The SA answers the last join with @status and its record, qkey @qkey. */
static void fake_answer(int status, u32 qkey)
{
	fake.m->rec.qkey = cpu_to_be32(qkey);
	fake.m->callback(status, fake.m);
}

static void mcast_ib_error_answers(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id = udp_id(test, &c);
	int ctx;

	KUNIT_ASSERT_EQ(test, 0, cma_mc_join_ib(id, (struct sockaddr *)&group,
						BIT(FULLMEMBER_JOIN), &ctx));
	KUNIT_EXPECT_EQ(test, 1, fake.joins);
	KUNIT_EXPECT_EQ(test, BIT(FULLMEMBER_JOIN), fake.rec.join_state);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c.calls));

	/* The SA refuses. */
	fake_answer(-ETIMEDOUT, 0x01234567);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_MULTICAST_ERROR, c.event.event);
	KUNIT_EXPECT_EQ(test, -ETIMEDOUT, c.event.status);
	KUNIT_EXPECT_PTR_EQ(test, (void *)&ctx, c.event.param.ud.private_data);

	/* A group with another qkey than the port space's is refused too. */
	fake_answer(0, 0x1234);
	KUNIT_EXPECT_EQ(test, 2, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_MULTICAST_ERROR, c.event.event);
	KUNIT_EXPECT_EQ(test, -EINVAL, c.event.status);

	rdma_leave_multicast(id, (struct sockaddr *)&group);
	KUNIT_EXPECT_EQ(test, 1, fake.leaves);
	KUNIT_EXPECT_NULL(test, fake.m);
	/* Left: leaving again finds nothing. */
	rdma_leave_multicast(id, (struct sockaddr *)&group);
	KUNIT_EXPECT_EQ(test, 1, fake.leaves);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, 1, fake.leaves);
}

/* A join the SA refuses at once fails the call and keeps nothing. */
static void mcast_ib_join_fails(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id = udp_id(test, &c);

	fake.join_ret = -ENOMEM;
	KUNIT_EXPECT_EQ(test, -ENOMEM,
			cma_mc_join_ib(id, (struct sockaddr *)&group,
				       BIT(FULLMEMBER_JOIN), NULL));
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, 0, fake.leaves);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c.calls));
}

/* Destroyed with a group: the join is left, no event comes after. */
static void mcast_ib_destroy_joined(struct kunit *test)
{
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct rdma_cm_id *id = udp_id(test, &c);
	struct ib_sa_multicast *m;

	KUNIT_ASSERT_EQ(test, 0, cma_mc_join_ib(id, (struct sockaddr *)&group,
						BIT(FULLMEMBER_JOIN), NULL));
	m = fake.m;
	KUNIT_ASSERT_NOT_NULL(test, m);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, 1, fake.leaves);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
}

/* The handler asks for destruction on an error: the CM destroys the id. */
static void mcast_ib_handler_destroys(struct kunit *test)
{
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct rdma_cm_id *id = udp_id(test, &c);

	c.verdict = 1;
	KUNIT_ASSERT_EQ(test, 0, cma_mc_join_ib(id, (struct sockaddr *)&group,
						BIT(FULLMEMBER_JOIN), NULL));
	fake_answer(-ENETRESET, 0x01234567);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	/* Destroyed from another workqueue: wait for it. */
	cma_id_flush_releases();
	KUNIT_EXPECT_EQ(test, 1, fake.leaves);
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
}

/*
 * The SA answers before its join returns: the group is already on the
 * id's list, so the answer and leaving it find it.
 */
static void mcast_ib_answer_in_join(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id = udp_id(test, &c);
	int ctx;

	fake.answer_in_join = -ENETUNREACH;
	KUNIT_ASSERT_EQ(test, 0, cma_mc_join_ib(id, (struct sockaddr *)&group,
						BIT(FULLMEMBER_JOIN), &ctx));
	KUNIT_EXPECT_TRUE(test, fake.listed_in_join);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_MULTICAST_ERROR, c.event.event);
	KUNIT_EXPECT_EQ(test, -ENETUNREACH, c.event.status);
	KUNIT_EXPECT_PTR_EQ(test, (void *)&ctx, c.event.param.ud.private_data);
	rdma_leave_multicast(id, (struct sockaddr *)&group);
	KUNIT_EXPECT_EQ(test, 1, fake.leaves);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, 1, fake.leaves);
}

/*
 * The handler of an answer that comes before the join returns asks for
 * the id's destruction: the join is left once, and the id is freed only
 * after rdma_join_multicast() is done with it.
 */
static void mcast_ib_answer_in_join_destroys(struct kunit *test)
{
	unsigned long live = cma_id_count();
	struct cma_test_consumer c;
	struct rdma_cm_id *id = udp_id(test, &c);

	c.verdict = 1;
	fake.answer_in_join = -ENETUNREACH;
	KUNIT_EXPECT_EQ(test, 0, cma_mc_join_ib(id, (struct sockaddr *)&group,
						BIT(FULLMEMBER_JOIN), NULL));
	KUNIT_EXPECT_TRUE(test, fake.listed_in_join);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&c.calls));
	cma_id_flush_releases();
	KUNIT_EXPECT_EQ(test, 1, fake.leaves);
	KUNIT_EXPECT_NULL(test, fake.m);
	KUNIT_EXPECT_EQ(test, live, cma_id_count());
}

static struct kunit_case cma_mcast_ib_cases[] = {
	KUNIT_CASE(mcast_ib_mgid),
	KUNIT_CASE(mcast_ib_request),
	KUNIT_CASE(mcast_ib_error_answers),
	KUNIT_CASE(mcast_ib_join_fails),
	KUNIT_CASE(mcast_ib_destroy_joined),
	KUNIT_CASE(mcast_ib_handler_destroys),
	KUNIT_CASE(mcast_ib_answer_in_join),
	KUNIT_CASE(mcast_ib_answer_in_join_destroys),
	{}
};

static struct kunit_suite cma_mcast_ib_suite = {
	.name = "rdma_cm_mcast_ib",
	.init = mcast_ib_init,
	.exit = mcast_ib_exit,
	.test_cases = cma_mcast_ib_cases,
};

kunit_test_suite(cma_mcast_ib_suite);
