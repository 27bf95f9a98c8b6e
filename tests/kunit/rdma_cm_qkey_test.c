// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the qkey of a UD id (cma_set_qkey()): the port space's default,
 * a qkey chosen first and kept for good, the IPoIB broadcast group's qkey
 * for RDMA_PS_IPOIB on InfiniBand (through a fake of the SA's cache, on
 * the fake InfiniBand device), and the qkey a UD QP is given.
 */

#include <linux/if_infiniband.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>

#include "cma_test.h"

#define UDP_QKEY	0x01234567
#define IPOIB_QKEY	0x00000b1b

static struct ib_device *fake_ibdev;

/* The SA's cache of groups, faked: one group, or an error. */
static struct {
	union ib_gid mgid;
	int lookups;
	int ret;
} fake_sa;

static int fake_member(struct cma_id *cid, union ib_gid *mgid,
		       struct ib_sa_mcmember_rec *rec)
{
	fake_sa.lookups++;
	fake_sa.mgid = *mgid;
	if (fake_sa.ret)
		return fake_sa.ret;
	memset(rec, 0, sizeof(*rec));
	rec->mgid = *mgid;
	rec->qkey = cpu_to_be32(IPOIB_QKEY);
	return 0;
}

static const struct cma_mc_sa_ops fake_ops = {
	.member	= fake_member,
};

static int qkey_suite_init(struct kunit_suite *suite)
{
	fake_ibdev = cma_test_ibdev_add();
	return PTR_ERR_OR_ZERO(fake_ibdev);
}

static void qkey_suite_exit(struct kunit_suite *suite)
{
	cma_test_ibdev_remove(fake_ibdev);
}

static int qkey_init(struct kunit *test)
{
	memset(&fake_sa, 0, sizeof(fake_sa));
	cma_set_mc_sa_ops(&fake_ops);
	return 0;
}

static void qkey_exit(struct kunit *test)
{
	cma_set_mc_sa_ops(NULL);
}

/* An IPoIB broadcast address: QPN, then ff12:401b:<P_Key>::ffff:ffff. */
static const unsigned char broadcast[INFINIBAND_ALEN] = {
	0x00, 0xff, 0xff, 0xff, 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff,
	[16] = 0xff, 0xff, 0xff, 0xff,
};

/*
 * A UD id on the fake InfiniBand port, as an IPoIB address would bind it:
 * its first GID, the default P_Key and the broadcast address.
 */
static struct rdma_cm_id *ib_ud_id(struct kunit *test,
				   struct cma_test_consumer *c,
				   enum rdma_ucm_port_space ps)
{
	struct rdma_dev_addr *dev_addr;
	const struct ib_gid_attr *attr;
	struct rdma_cm_id *id = cma_test_new_id(test, c, ps, IB_QPT_UD);
	int ret;

	dev_addr = &id->route.addr.dev_addr;
	dev_addr->dev_type = ARPHRD_INFINIBAND;
	memcpy(dev_addr->broadcast, broadcast, sizeof(broadcast));

	attr = rdma_get_gid_attr(fake_ibdev, 1, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, attr);
	ret = cma_attach_dev(to_cma_id(id), fake_ibdev, 1, attr);
	rdma_put_gid_attr(attr);
	KUNIT_ASSERT_EQ(test, 0, ret);
	return id;
}

/* Without a choice, the port space's; then no other. */
static void qkey_default_then_fixed(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id = cma_test_new_id(test, &c, RDMA_PS_UDP,
						IB_QPT_UD);
	struct cma_id *cid = to_cma_id(id);

	KUNIT_EXPECT_EQ(test, 0U, cid->qkey);
	KUNIT_EXPECT_EQ(test, 0, cma_set_qkey(cid, 0));
	KUNIT_EXPECT_EQ(test, UDP_QKEY, cid->qkey);
	KUNIT_EXPECT_EQ(test, 0, cma_set_qkey(cid, UDP_QKEY));
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_set_qkey(cid, 0x5eed5eed));
	KUNIT_EXPECT_EQ(test, UDP_QKEY, cid->qkey);
	rdma_destroy_id(id);
}

/* A qkey chosen first (an accept's, a peer's) is the id's for good. */
static void qkey_chosen_first(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id = cma_test_new_id(test, &c, RDMA_PS_IB,
						IB_QPT_UD);
	struct cma_id *cid = to_cma_id(id);

	KUNIT_EXPECT_EQ(test, 0, cma_set_qkey(cid, 0x5eed5eed));
	KUNIT_EXPECT_EQ(test, 0, cma_set_qkey(cid, 0));
	KUNIT_EXPECT_EQ(test, 0x5eed5eedU, cid->qkey);
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_set_qkey(cid, UDP_QKEY));
	rdma_destroy_id(id);
}

/*
 * RDMA_PS_IPOIB on InfiniBand: the broadcast group's qkey, looked up by
 * the MGID in the broadcast address; and the UD QP is given it.
 */
static void qkey_ipoib_broadcast_group(struct kunit *test)
{
	struct cma_test_consumer c;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	struct rdma_cm_id *id = ib_ud_id(test, &c, RDMA_PS_IPOIB);
	int mask = 0;

	KUNIT_EXPECT_EQ(test, 0, cma_set_qkey(to_cma_id(id), 0));
	KUNIT_EXPECT_EQ(test, 1, fake_sa.lookups);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&fake_sa.mgid, broadcast + 4, 16));
	KUNIT_EXPECT_EQ(test, IPOIB_QKEY, to_cma_id(id)->qkey);

	KUNIT_ASSERT_EQ(test, 0, rdma_init_qp_attr(id, &attr, &mask));
	KUNIT_EXPECT_TRUE(test, mask & IB_QP_QKEY);
	KUNIT_EXPECT_EQ(test, IPOIB_QKEY, attr.qkey);
	KUNIT_EXPECT_EQ(test, 1, fake_sa.lookups);
	rdma_destroy_id(id);
}

/* The port is no member of the group: no qkey, and no QP attributes. */
static void qkey_ipoib_no_group(struct kunit *test)
{
	struct cma_test_consumer c;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	struct rdma_cm_id *id = ib_ud_id(test, &c, RDMA_PS_IPOIB);
	int mask = 0;

	fake_sa.ret = -EINVAL;
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_set_qkey(to_cma_id(id), 0));
	KUNIT_EXPECT_EQ(test, 0U, to_cma_id(id)->qkey);
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_init_qp_attr(id, &attr, &mask));
	rdma_destroy_id(id);
}

/* A UDP id's QP gets the qkey the id has, the one chosen first. */
static void qkey_of_the_qp(struct kunit *test)
{
	struct cma_test_consumer c;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	struct rdma_cm_id *id = ib_ud_id(test, &c, RDMA_PS_UDP);
	int mask = 0;

	KUNIT_EXPECT_EQ(test, 0, cma_set_qkey(to_cma_id(id), 0x5eed5eed));
	KUNIT_ASSERT_EQ(test, 0, rdma_init_qp_attr(id, &attr, &mask));
	KUNIT_EXPECT_EQ(test, 0x5eed5eedU, attr.qkey);
	KUNIT_EXPECT_EQ(test, 0, fake_sa.lookups);
	rdma_destroy_id(id);
}

static struct kunit_case cma_qkey_cases[] = {
	KUNIT_CASE(qkey_default_then_fixed),
	KUNIT_CASE(qkey_chosen_first),
	KUNIT_CASE(qkey_ipoib_broadcast_group),
	KUNIT_CASE(qkey_ipoib_no_group),
	KUNIT_CASE(qkey_of_the_qp),
	{}
};

static struct kunit_suite cma_qkey_suite = {
	.name = "rdma_cm_qkey",
	.suite_init = qkey_suite_init,
	.suite_exit = qkey_suite_exit,
	.init = qkey_init,
	.exit = qkey_exit,
	.test_cases = cma_qkey_cases,
};

kunit_test_suite(cma_qkey_suite);
