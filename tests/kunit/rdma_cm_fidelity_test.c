// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: behaviour of the in-box 6.1 CM that a consumer can see, each
 * piece read from its cma.c and checked here against ours.
 */

#include <linux/delay.h>
#include <linux/in.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_user_sa.h>

#include "cma_test.h"

static struct sockaddr_in fid_addr4(u32 addr, u16 port)
{
	return (struct sockaddr_in){ .sin_family = AF_INET,
				     .sin_port = htons(port),
				     .sin_addr.s_addr = htonl(addr) };
}

/* An id as far as the CM header cares: its addresses. */
static struct cma_id *fid_hdr_id(struct kunit *test)
{
	struct cma_id *cid = kunit_kzalloc(test, sizeof(*cid), GFP_KERNEL);
	struct sockaddr_in src = fid_addr4(0x0a000001, 5000);
	struct sockaddr_in dst = fid_addr4(0x0a000002, 7471);

	KUNIT_ASSERT_NOT_NULL(test, cid);
	memcpy(cma_src_addr(cid), &src, sizeof(src));
	memcpy(cma_dst_addr(cid), &dst, sizeof(dst));
	return cid;
}

static bool fid_all_zero(const u8 *p, size_t n)
{
	return !memchr_inv(p, 0, n);
}

/*
 * NULL private data with a length: the REQ carries the header and that
 * many zeros, as in-box (which copies only data it was given).
 */
static void fid_hdr_null_private_data(struct kunit *test)
{
	struct rdma_conn_param param = { .private_data_len = 10 };
	struct sockaddr_storage src, dst;
	struct cma_id *cid = fid_hdr_id(test);
	u8 *buf;
	u8 len;

	buf = cma_hdr_with_data(cid, &param, IB_CM_REQ_PRIVATE_DATA_SIZE,
				&len);
	KUNIT_ASSERT_FALSE(test, IS_ERR(buf));
	KUNIT_EXPECT_EQ(test, CMA_HDR_SIZE + 10, len);
	KUNIT_EXPECT_EQ(test, 0, cma_hdr_decode(buf, &src, &dst));
	KUNIT_EXPECT_TRUE(test, fid_all_zero(buf + CMA_HDR_SIZE, 10));
	kfree(buf);

	/* Still bounded by what fits behind the header. */
	param.private_data_len = IB_CM_REQ_PRIVATE_DATA_SIZE - CMA_HDR_SIZE + 1;
	buf = cma_hdr_with_data(cid, &param, IB_CM_REQ_PRIVATE_DATA_SIZE,
				&len);
	KUNIT_EXPECT_EQ(test, -EINVAL, PTR_ERR_OR_ZERO(buf));
}

static struct kunit_case fid_hdr_cases[] = {
	KUNIT_CASE(fid_hdr_null_private_data),
	{}
};

/* Last: before its fix, this one oopses. */
static struct kunit_suite fid_hdr_suite = {
	.name = "rdma_cm_fidelity_hdr",
	.test_cases = fid_hdr_cases,
};

kunit_test_suite(fid_hdr_suite);
