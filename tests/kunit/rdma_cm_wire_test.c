// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what goes on the wire (cma_hdr.c) and the address helpers it
 * stands on (cma_addr.c).
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>

#include "cma_test.h"

static struct sockaddr_in v4(const char *ip, u16 port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };

	in4_pton(ip, -1, (u8 *)&a.sin_addr, -1, NULL);
	return a;
}

static struct sockaddr_in6 v6(const char *ip, u16 port, u32 scope)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6,
				  .sin6_port = htons(port),
				  .sin6_scope_id = scope };

	in6_pton(ip, -1, a.sin6_addr.s6_addr, -1, NULL);
	return a;
}

#define SA(x) ((struct sockaddr *)&(x))

/* The bytes the in-box CM puts in front of an IPv4 REQ's private data. */
static void cma_hdr_ipv4_bytes(struct kunit *test)
{
	static const u8 want[CMA_HDR_SIZE] = {
		0x00, 0x40, 0x4e, 0x20,			/* v0, IPv4, 20000 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 1,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 2,
	};
	struct sockaddr_in src = v4("10.0.0.1", 20000), dst = v4("10.0.0.2", 7471);
	u8 buf[CMA_HDR_SIZE];

	memset(buf, 0xff, sizeof(buf));
	KUNIT_ASSERT_EQ(test, 0, cma_hdr_encode(buf, SA(src), SA(dst)));
	KUNIT_EXPECT_EQ(test, 0, memcmp(want, buf, sizeof(want)));
}

static void cma_hdr_round_trip(struct kunit *test)
{
	struct sockaddr_in6 src = v6("fd00::1", 40000, 0), dst = v6("fd00::2", 0, 0);
	struct sockaddr_storage got_src, got_dst;
	u8 buf[CMA_HDR_SIZE];

	KUNIT_ASSERT_EQ(test, 0, cma_hdr_encode(buf, SA(src), SA(dst)));
	KUNIT_EXPECT_EQ(test, 0x60, buf[1]);
	KUNIT_ASSERT_EQ(test, 0, cma_hdr_decode(buf, &got_src, &got_dst));
	KUNIT_EXPECT_TRUE(test, cma_addr_equal(SA(src), SA(got_src)));
	KUNIT_EXPECT_TRUE(test, cma_addr_equal(SA(dst), SA(got_dst)));
	KUNIT_EXPECT_EQ(test, 40000, cma_addr_port(SA(got_src)));
	KUNIT_EXPECT_EQ(test, 0, cma_addr_port(SA(got_dst)));
}

static void cma_hdr_refuses_malformed(struct kunit *test)
{
	struct sockaddr_in src = v4("10.0.0.1", 1), dst = v4("10.0.0.2", 2);
	struct sockaddr_in6 dst6 = v6("fd00::2", 2, 0);
	struct sockaddr_storage s, d;
	u8 buf[CMA_HDR_SIZE];

	KUNIT_EXPECT_EQ(test, -EAFNOSUPPORT,
			cma_hdr_encode(buf, SA(src), SA(dst6)));

	KUNIT_ASSERT_EQ(test, 0, cma_hdr_encode(buf, SA(src), SA(dst)));
	buf[0] = 1;				/* unknown version */
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_hdr_decode(buf, &s, &d));
	buf[0] = 0;
	buf[1] = 0x50;				/* IP version 5 */
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_hdr_decode(buf, &s, &d));
	buf[1] = 0x40;
	buf[4] = 1;				/* IPv4 with junk in front */
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_hdr_decode(buf, &s, &d));
	buf[4] = 0;
	KUNIT_EXPECT_EQ(test, 0, cma_hdr_decode(buf, &s, &d));
}

static void cma_service_ids(struct kunit *test)
{
	enum rdma_ucm_port_space ps;
	__be64 sid;
	u16 port;

	KUNIT_EXPECT_EQ(test, cpu_to_be64(0x0000000001061d2fULL),
			cma_service_id(RDMA_PS_TCP, 7471));
	KUNIT_EXPECT_EQ(test, cpu_to_be64(RDMA_IB_IP_PS_UDP | 1),
			cma_service_id(RDMA_PS_UDP, 1));
	KUNIT_EXPECT_EQ(test, cpu_to_be64(RDMA_IB_IP_PS_IB | 0xffff),
			cma_service_id(RDMA_PS_IB, 0xffff));

	sid = cma_service_id(RDMA_PS_IPOIB, 42);
	KUNIT_ASSERT_EQ(test, 0, cma_service_id_split(sid, &ps, &port));
	KUNIT_EXPECT_EQ(test, RDMA_PS_IPOIB, ps);
	KUNIT_EXPECT_EQ(test, 42, port);

	sid = cpu_to_be64(0x0000000012340001ULL);	/* no such space */
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_service_id_split(sid, &ps, &port));
	sid = cpu_to_be64(0x1000000001060001ULL);	/* high bits set */
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_service_id_split(sid, &ps, &port));
}

static void cma_addr_helpers(struct kunit *test)
{
	struct sockaddr_in any4 = v4("0.0.0.0", 0), lo4 = v4("127.0.0.1", 0);
	struct sockaddr_in a = v4("10.0.0.1", 5), b = v4("10.0.0.1", 6);
	struct sockaddr_in6 any6 = v6("::", 0, 0), lo6 = v6("::1", 0, 0);
	struct sockaddr_in6 ll1 = v6("fe80::1", 0, 1), ll2 = v6("fe80::1", 0, 2);
	struct sockaddr_in6 ll0 = v6("fe80::1", 0, 0), g = v6("fd00::1", 0, 0);
	struct sockaddr bad = { .sa_family = AF_UNIX };

	KUNIT_EXPECT_TRUE(test, cma_addr_any(SA(any4)));
	KUNIT_EXPECT_TRUE(test, cma_addr_any(SA(lo4)));
	KUNIT_EXPECT_TRUE(test, cma_addr_any(SA(any6)));
	KUNIT_EXPECT_TRUE(test, cma_addr_any(SA(lo6)));
	KUNIT_EXPECT_FALSE(test, cma_addr_any(SA(a)));
	KUNIT_EXPECT_FALSE(test, cma_addr_any(SA(g)));

	/* Ports do not matter; scopes do for link-local. */
	KUNIT_EXPECT_TRUE(test, cma_addr_equal(SA(a), SA(b)));
	KUNIT_EXPECT_FALSE(test, cma_addr_equal(SA(ll1), SA(ll2)));
	KUNIT_EXPECT_FALSE(test, cma_addr_equal(SA(a), SA(g)));

	KUNIT_EXPECT_EQ(test, 5, cma_addr_port(SA(a)));
	cma_addr_set_port(SA(g), 7471);
	KUNIT_EXPECT_EQ(test, 7471, cma_addr_port(SA(g)));

	KUNIT_EXPECT_EQ(test, sizeof(struct sockaddr_in), cma_addr_size(SA(a)));
	KUNIT_EXPECT_EQ(test, sizeof(struct sockaddr_in6), cma_addr_size(SA(g)));
	KUNIT_EXPECT_EQ(test, 0, cma_addr_size(&bad));
	KUNIT_EXPECT_EQ(test, 0, cma_addr_check(SA(ll1)));
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_addr_check(SA(ll0)));
	KUNIT_EXPECT_EQ(test, -EAFNOSUPPORT, cma_addr_check(&bad));
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_addr_check(NULL));
}

/* Multicast GIDs of IP groups on RoCE, as the in-box CM maps them. */
static void cma_mc_mgids(struct kunit *test)
{
	static const u8 v2[16] = { [10] = 0xff, 0xff, 239, 1, 2, 3 };
	static const u8 v1[16] = { 0xff, 0x0e, [10] = 0xff, 0xff, 239, 1, 2, 3 };
	struct sockaddr_in6 g6 = v6("ff0e::1:2:3", 0, 0);
	struct sockaddr_in g4 = v4("239.1.2.3", 0);
	union ib_gid mgid;

	cma_mc_mgid(SA(g4), IB_GID_TYPE_ROCE_UDP_ENCAP, &mgid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(v2, mgid.raw, 16));
	cma_mc_mgid(SA(g4), IB_GID_TYPE_ROCE, &mgid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(v1, mgid.raw, 16));
	cma_mc_mgid(SA(g6), IB_GID_TYPE_ROCE_UDP_ENCAP, &mgid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&g6.sin6_addr, mgid.raw, 16));
}

static struct kunit_case cma_wire_cases[] = {
	KUNIT_CASE(cma_hdr_ipv4_bytes),
	KUNIT_CASE(cma_hdr_round_trip),
	KUNIT_CASE(cma_hdr_refuses_malformed),
	KUNIT_CASE(cma_service_ids),
	KUNIT_CASE(cma_addr_helpers),
	KUNIT_CASE(cma_mc_mgids),
	{}
};

static struct kunit_suite cma_wire_suite = {
	.name = "rdma_cm_wire",
	.test_cases = cma_wire_cases,
};

kunit_test_suite(cma_wire_suite);
