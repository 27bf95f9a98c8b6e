// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: AF_IB addresses. The pure parts (the address functions, the port
 * space a service ID names, the service ID and header of a connection,
 * the path record, a headerless request's addresses, the MGID, the
 * listing), then binding and address and route resolution against the
 * fake InfiniBand device (cma_test_ibdev.c; there is no InfiniBand port
 * here), with the SA's path query faked as well.
 */

#include <linux/if_arp.h>
#include <linux/in.h>
#include <linux/string.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_verbs.h>
#include <net/ipv6.h>

#include "cma_test.h"

static struct ib_device *fake_ibdev;

static int afib_suite_init(struct kunit_suite *suite)
{
	fake_ibdev = cma_test_ibdev_add();
	return PTR_ERR_OR_ZERO(fake_ibdev);
}

static void afib_suite_exit(struct kunit_suite *suite)
{
	cma_test_ibdev_remove(fake_ibdev);
}

static struct sockaddr_ib ib_addr(u64 subnet, u64 guid, u16 pkey, u64 sid,
				  u64 sid_mask)
{
	struct sockaddr_ib sib = {
		.sib_family = AF_IB,
		.sib_pkey = htons(pkey),
		.sib_sid = cpu_to_be64(sid),
		.sib_sid_mask = cpu_to_be64(sid_mask),
	};

	cma_test_set_gid(&sib.sib_addr, subnet, guid);
	return sib;
}

/* The SA's path query, faked: it keeps what it was asked. */

static struct {
	struct cma_id *cid;
	struct sa_path_rec rec;
	ib_sa_comp_mask mask;
} fake_sa;

static int fake_path_query(struct cma_id *cid, struct sa_path_rec *rec,
			   ib_sa_comp_mask mask, unsigned long timeout_ms)
{
	fake_sa.cid = cid;
	fake_sa.rec = *rec;
	fake_sa.mask = mask;
	return 0;
}

static void fake_path_cancel(struct cma_id *cid)
{
	cma_path_done(cid, -EINTR, NULL);
}

static const struct cma_path_ops fake_path_ops = {
	.query	= fake_path_query,
	.cancel	= fake_path_cancel,
};

static int afib_init(struct kunit *test)
{
	memset(&fake_sa, 0, sizeof(fake_sa));
	cma_set_path_ops(&fake_path_ops);
	return 0;
}

static void afib_exit(struct kunit *test)
{
	cma_set_path_ops(NULL);
}

/* The pure parts. */

static void afib_addr_functions(struct kunit *test)
{
	struct sockaddr_ib a = ib_addr(IBDEV_SUBNET_LOCAL, IBDEV_GUID, IBDEV_PKEY_DEFAULT,
				       RDMA_IB_IP_PS_TCP | 7471, ~0ULL);
	struct sockaddr_ib b = ib_addr(IBDEV_SUBNET_LOCAL, IBDEV_GUID, IBDEV_PKEY_LIMITED,
				       RDMA_IB_IP_PS_UDP | 1, ~0ULL);
	struct sockaddr_ib any = { .sib_family = AF_IB };
	struct sockaddr *sa = (struct sockaddr *)&a;

	KUNIT_EXPECT_EQ(test, sizeof(struct sockaddr_ib), cma_addr_size(sa));
	KUNIT_EXPECT_EQ(test, 0, cma_addr_check(sa));
	KUNIT_EXPECT_FALSE(test, cma_addr_any(sa));
	KUNIT_EXPECT_TRUE(test, cma_addr_any((struct sockaddr *)&any));
	ib_addr_set(&any.sib_addr, 0, 0, 0, htonl(1));
	KUNIT_EXPECT_TRUE(test, cma_addr_any((struct sockaddr *)&any));

	/* The GID is the address: P_Key and service ID do not count. */
	KUNIT_EXPECT_TRUE(test, cma_addr_equal(sa, (struct sockaddr *)&b));
	b.sib_addr.sib_interface_id = cpu_to_be64(IBDEV_GUID + 1);
	KUNIT_EXPECT_FALSE(test, cma_addr_equal(sa, (struct sockaddr *)&b));

	/* The port is the service ID's low 16 bits, where the mask says. */
	KUNIT_EXPECT_EQ(test, 7471, cma_addr_port(sa));
	a.sib_sid_mask = cpu_to_be64(RDMA_IB_IP_PS_MASK);
	KUNIT_EXPECT_EQ(test, 0, cma_addr_port(sa));
	cma_addr_set_port(sa, 18515);
	KUNIT_EXPECT_EQ(test, cpu_to_be64(RDMA_IB_IP_PS_TCP | 18515),
			a.sib_sid);
	KUNIT_EXPECT_EQ(test, cpu_to_be64(~0ULL), a.sib_sid_mask);
	KUNIT_EXPECT_EQ(test, 18515, cma_addr_port(sa));
}

struct ps_case {
	enum rdma_ucm_port_space id_ps;
	u64 sid, mask;
	int ret;
	u64 want_sid;
	enum rdma_ucm_port_space want_ps;
};

static const struct ps_case ps_cases[] = {
	/* No mask: the id's own port space, the port left open. */
	{ RDMA_PS_TCP, 0, 0, 0, RDMA_IB_IP_PS_TCP, RDMA_PS_TCP },
	{ RDMA_PS_UDP, 0, 0, 0, RDMA_IB_IP_PS_UDP, RDMA_PS_UDP },
	{ RDMA_PS_IB, 0, 0, 0, RDMA_IB_IP_PS_IB, RDMA_PS_IB },
	/* A full service ID of the id's port space is kept as it is. */
	{ RDMA_PS_TCP, RDMA_IB_IP_PS_TCP | 5000, ~0ULL, 0,
	  RDMA_IB_IP_PS_TCP | 5000, RDMA_PS_TCP },
	/* An RDMA_PS_IB id may take the TCP and UDP ones too. */
	{ RDMA_PS_IB, RDMA_IB_IP_PS_TCP | 7, ~0ULL, 0,
	  RDMA_IB_IP_PS_TCP | 7, RDMA_PS_TCP },
	{ RDMA_PS_IB, RDMA_IB_IP_PS_UDP | 7, ~0ULL, 0,
	  RDMA_IB_IP_PS_UDP | 7, RDMA_PS_UDP },
	/* Other port spaces, and service IDs outside the CM's, are refused. */
	{ RDMA_PS_TCP, RDMA_IB_IP_PS_UDP | 1, ~0ULL, -EPROTONOSUPPORT },
	{ RDMA_PS_UDP, RDMA_IB_IP_PS_IB | 1, ~0ULL, -EPROTONOSUPPORT },
	{ RDMA_PS_IPOIB, 0, 0, -EPROTONOSUPPORT },
	{ RDMA_PS_TCP, 0x1234567800000001ULL, ~0ULL, -EPROTONOSUPPORT },
};

static void afib_port_space(struct kunit *test)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	int i;

	for (i = 0; i < ARRAY_SIZE(ps_cases); i++) {
		const struct ps_case *pc = &ps_cases[i];
		struct sockaddr_ib sib = ib_addr(0, 0, IBDEV_PKEY_DEFAULT, pc->sid,
						 pc->mask);
		int ret = cma_ib_claim_port_space(&sib, pc->id_ps);

		KUNIT_EXPECT_EQ_MSG(test, pc->ret, ret, "case %d", i);
		if (ret)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, cpu_to_be64(pc->want_sid),
				    sib.sib_sid, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, pc->want_ps,
				    cma_addr_port_space((struct sockaddr *)&sib,
							pc->id_ps),
				    "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, RDMA_IB_IP_PS_MASK,
				    be64_to_cpu(sib.sib_sid_mask) &
				    RDMA_IB_IP_PS_MASK, "case %d", i);
	}
	KUNIT_EXPECT_EQ(test, RDMA_PS_UDP,
			cma_addr_port_space((struct sockaddr *)&in,
					    RDMA_PS_UDP));
}

/* An AF_IB connection carries its own service ID and no CM header. */
static void afib_service_id_and_header(struct kunit *test)
{
	struct sockaddr_ib sib = ib_addr(IBDEV_SUBNET_LOCAL, IBDEV_GUID, IBDEV_PKEY_DEFAULT,
					 0x0123456789abcdefULL, ~0ULL);
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = htons(7471) };
	struct cma_test_consumer c;
	struct rdma_cm_id *id;

	KUNIT_EXPECT_EQ(test, sib.sib_sid,
			cma_addr_service_id(RDMA_PS_TCP,
					    (struct sockaddr *)&sib));
	KUNIT_EXPECT_EQ(test, cpu_to_be64(RDMA_IB_IP_PS_TCP | 7471),
			cma_addr_service_id(RDMA_PS_TCP,
					    (struct sockaddr *)&in));
	KUNIT_EXPECT_EQ(test, 0, cma_hdr_len((struct sockaddr *)&sib));
	KUNIT_EXPECT_EQ(test, CMA_HDR_SIZE, cma_hdr_len((struct sockaddr *)&in));

	id = cma_test_new_id(test, &c, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, sib.sib_sid,
			rdma_get_service_id(id, (struct sockaddr *)&sib));
	rdma_destroy_id(id);
}

/* The consumer's private data alone, header-free, for an AF_IB peer. */
static void afib_request_private_data(struct kunit *test)
{
	struct sockaddr_ib dst = ib_addr(IBDEV_SUBNET_LOCAL, IBDEV_GUID, IBDEV_PKEY_DEFAULT,
					 RDMA_IB_IP_PS_TCP | 1, ~0ULL);
	static const char data[] = "no header";
	struct rdma_conn_param param = {
		.private_data = data,
		.private_data_len = sizeof(data),
	};
	struct cma_test_consumer c;
	struct rdma_cm_id *id;
	u8 len = 0;
	void *buf;

	id = cma_test_new_id(test, &c, RDMA_PS_TCP, IB_QPT_RC);
	memcpy(&id->route.addr.src_addr, &dst, sizeof(dst));
	memcpy(&id->route.addr.dst_addr, &dst, sizeof(dst));

	buf = cma_hdr_with_data(to_cma_id(id), &param,
				IB_CM_REQ_PRIVATE_DATA_SIZE, &len);
	KUNIT_ASSERT_FALSE(test, IS_ERR(buf));
	KUNIT_EXPECT_EQ(test, sizeof(data), len);
	KUNIT_EXPECT_EQ(test, 0, memcmp(buf, data, sizeof(data)));
	kfree(buf);

	/* All of the request's private data is the consumer's. */
	param.private_data_len = IB_CM_REQ_PRIVATE_DATA_SIZE;
	param.private_data = kunit_kzalloc(test, param.private_data_len,
					   GFP_KERNEL);
	buf = cma_hdr_with_data(to_cma_id(id), &param,
				IB_CM_REQ_PRIVATE_DATA_SIZE, &len);
	KUNIT_ASSERT_FALSE(test, IS_ERR(buf));
	KUNIT_EXPECT_EQ(test, IB_CM_REQ_PRIVATE_DATA_SIZE, len);
	kfree(buf);

	param.private_data_len = 0;
	buf = cma_hdr_with_data(to_cma_id(id), &param,
				IB_CM_REQ_PRIVATE_DATA_SIZE, &len);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(buf));
	KUNIT_EXPECT_EQ(test, 0, len);
	kfree(buf);
	rdma_destroy_id(id);
}

static void afib_path_request(struct kunit *test)
{
	struct sockaddr_ib dst = ib_addr(IBDEV_SUBNET_LOCAL, IBDEV_GUID + 1, IBDEV_PKEY_LIMITED,
					 0x0000000001060457ULL, ~0ULL);
	struct rdma_dev_addr dev_addr = {};
	struct sa_path_rec rec;
	ib_sa_comp_mask mask;

	dst.sib_flowinfo = htonl(0x0c712345);
	rdma_addr_set_dgid(&dev_addr, (union ib_gid *)&dst.sib_addr);
	ib_addr_set_pkey(&dev_addr, IBDEV_PKEY_LIMITED);
	mask = cma_path_request(&dev_addr, (struct sockaddr *)&dst,
				RDMA_PS_UDP, 0x20, &rec);
	KUNIT_EXPECT_TRUE(test, mask & IB_SA_PATH_REC_SERVICE_ID);
	KUNIT_EXPECT_TRUE(test, mask & IB_SA_PATH_REC_TRAFFIC_CLASS);
	KUNIT_EXPECT_FALSE(test, mask & IB_SA_PATH_REC_QOS_CLASS);
	KUNIT_EXPECT_EQ(test, dst.sib_sid, rec.service_id);
	KUNIT_EXPECT_EQ(test, 0xc7, rec.traffic_class);
	KUNIT_EXPECT_EQ(test, cpu_to_be16(IBDEV_PKEY_LIMITED), rec.pkey);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&rec.dgid, &dst.sib_addr, 16));
}

/* A request without a CM header: the addresses come from its path. */
static void afib_request_addresses(struct kunit *test)
{
	__be64 sid = cpu_to_be64(RDMA_IB_IP_PS_TCP | 4791);
	struct sockaddr_storage src, dst;
	struct sockaddr_ib *peer = (struct sockaddr_ib *)&src;
	struct sockaddr_ib *self = (struct sockaddr_ib *)&dst;
	struct sa_path_rec path = {
		.pkey = htons(IBDEV_PKEY_LIMITED),
		.flow_label = htonl(0x12345),
	};

	cma_test_set_gid((struct ib_addr *)&path.sgid, IBDEV_SUBNET_LOCAL, IBDEV_GUID);
	cma_test_set_gid((struct ib_addr *)&path.dgid, IBDEV_SUBNET_LOCAL, IBDEV_GUID + 9);
	cma_ib_req_addrs(&path, sid, &src, &dst);
	KUNIT_EXPECT_EQ(test, AF_IB, peer->sib_family);
	KUNIT_EXPECT_EQ(test, AF_IB, self->sib_family);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&self->sib_addr, &path.sgid, 16));
	KUNIT_EXPECT_EQ(test, 0, memcmp(&peer->sib_addr, &path.dgid, 16));
	KUNIT_EXPECT_EQ(test, path.pkey, self->sib_pkey);
	KUNIT_EXPECT_EQ(test, path.pkey, peer->sib_pkey);
	KUNIT_EXPECT_EQ(test, path.flow_label, self->sib_flowinfo);
	KUNIT_EXPECT_EQ(test, sid, self->sib_sid);
	KUNIT_EXPECT_EQ(test, cpu_to_be64(~0ULL), self->sib_sid_mask);
	KUNIT_EXPECT_EQ(test, 4791, cma_addr_port((struct sockaddr *)&dst));
	KUNIT_EXPECT_EQ(test, 0ULL, be64_to_cpu(peer->sib_sid));

	/* A SIDR REQ has no path: only the service ID is known here. */
	cma_ib_req_addrs(NULL, sid, &src, &dst);
	KUNIT_EXPECT_EQ(test, AF_IB, self->sib_family);
	KUNIT_EXPECT_EQ(test, sid, self->sib_sid);
	KUNIT_EXPECT_TRUE(test, cma_addr_any((struct sockaddr *)&dst));
	KUNIT_EXPECT_TRUE(test, cma_addr_any((struct sockaddr *)&src));
}

static void afib_mgid_and_listing(struct kunit *test)
{
	struct sockaddr_ib group = ib_addr(0xff12401bffff0000ULL, 0x1234,
					   IBDEV_PKEY_DEFAULT, 0, 0);
	struct sockaddr_ib *src;
	union ib_gid mgid;
	struct cma_id_view v = {};
	char line[384];

	cma_mc_ib_mgid((struct sockaddr *)&group, NULL, RDMA_PS_UDP, &mgid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&mgid, &group.sib_addr, 16));

	src = (struct sockaddr_ib *)&v.src;
	*src = ib_addr(IBDEV_SUBNET_LOCAL, IBDEV_GUID, IBDEV_PKEY_DEFAULT,
		       RDMA_IB_IP_PS_TCP | 5001, ~0ULL);
	v.state = RDMA_CM_LISTEN;
	v.ps = RDMA_PS_TCP;
	cma_id_view_format(line, sizeof(line), &v);
	KUNIT_EXPECT_NOT_NULL(test,
			      strstr(line, " src=[fe80::2:c903:0:1]:0x0000000001061389 dst=- "));
}

/* Against the fake device. */

static struct rdma_cm_id *afib_id(struct kunit *test,
				  struct cma_test_consumer *c,
				  enum rdma_ucm_port_space ps)
{
	return cma_test_new_id(test, c, ps,
			       ps == RDMA_PS_UDP ? IB_QPT_UD : IB_QPT_RC);
}

static void afib_bind(struct kunit *test)
{
	struct sockaddr_ib sib = ib_addr(IBDEV_SUBNET_LOCAL, IBDEV_GUID, IBDEV_PKEY_DEFAULT,
					 0, 0);
	struct sockaddr_ib *src;
	struct cma_test_consumer c, c2;
	struct rdma_cm_id *id, *id2;
	union ib_gid gid;

	id = afib_id(test, &c, RDMA_PS_TCP);
	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(id, (struct sockaddr *)&sib));
	KUNIT_EXPECT_PTR_EQ(test, fake_ibdev, id->device);
	KUNIT_EXPECT_EQ(test, 1U, id->port_num);
	rdma_addr_get_sgid(&id->route.addr.dev_addr, &gid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&gid, &sib.sib_addr, 16));
	KUNIT_EXPECT_EQ(test, IBDEV_PKEY_DEFAULT,
			ib_addr_get_pkey(&id->route.addr.dev_addr));
	src = (struct sockaddr_ib *)&id->route.addr.src_addr;
	KUNIT_EXPECT_NE(test, 0, cma_addr_port((struct sockaddr *)src));
	KUNIT_EXPECT_EQ(test, RDMA_IB_IP_PS_TCP,
			be64_to_cpu(src->sib_sid) & RDMA_IB_IP_PS_MASK);

	/* Its full service ID is taken now. */
	id2 = afib_id(test, &c2, RDMA_PS_TCP);
	KUNIT_EXPECT_EQ(test, -EADDRINUSE,
			rdma_bind_addr(id2, (struct sockaddr *)src));
	/* Not a GID of any port, or not with that P_Key: as in-box. */
	sib.sib_addr.sib_interface_id = cpu_to_be64(IBDEV_GUID + 1);
	KUNIT_EXPECT_EQ(test, -ENODEV,
			rdma_bind_addr(id2, (struct sockaddr *)&sib));
	sib = ib_addr(IBDEV_SUBNET_SITE, IBDEV_GUID, 0x7777, 0, 0);
	KUNIT_EXPECT_EQ(test, -ENODEV,
			rdma_bind_addr(id2, (struct sockaddr *)&sib));
	/* A UDP service ID for a TCP id. */
	sib = ib_addr(IBDEV_SUBNET_SITE, IBDEV_GUID, IBDEV_PKEY_LIMITED,
		      RDMA_IB_IP_PS_UDP | 9, ~0ULL);
	KUNIT_EXPECT_EQ(test, -EPROTONOSUPPORT,
			rdma_bind_addr(id2, (struct sockaddr *)&sib));
	/* Every failure left it IDLE and usable. */
	sib.sib_sid = cpu_to_be64(RDMA_IB_IP_PS_TCP | 9);
	KUNIT_EXPECT_EQ(test, 0, rdma_bind_addr(id2, (struct sockaddr *)&sib));
	KUNIT_EXPECT_PTR_EQ(test, fake_ibdev, id2->device);
	rdma_destroy_id(id2);
	rdma_destroy_id(id);
}

/* Resolve @dst on a fresh TCP id and wait for the event. */
static struct rdma_cm_id *afib_resolved(struct kunit *test,
					struct cma_test_consumer *c,
					struct sockaddr_ib *dst)
{
	struct rdma_cm_id *id = afib_id(test, c, RDMA_PS_TCP);

	KUNIT_ASSERT_EQ(test, 0, rdma_resolve_addr(id, NULL,
						   (struct sockaddr *)dst,
						   1000));
	KUNIT_ASSERT_TRUE(test, cma_test_wait(&c->entered));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ADDR_RESOLVED, c->event.event);
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_RESOLVED, c->state);
	KUNIT_EXPECT_PTR_EQ(test, fake_ibdev, id->device);
	return id;
}

static void expect_src_gid(struct kunit *test, struct rdma_cm_id *id,
			   u64 subnet)
{
	struct sockaddr_ib *src = (struct sockaddr_ib *)&id->route.addr.src_addr;
	struct ib_addr want;
	union ib_gid gid;

	cma_test_set_gid(&want, subnet, IBDEV_GUID);
	KUNIT_EXPECT_EQ(test, AF_IB, src->sib_family);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&src->sib_addr, &want, 16));
	rdma_addr_get_sgid(&id->route.addr.dev_addr, &gid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&gid, &want, 16));
}

/*
 * A GID on a subnet of the port: the port's GID there is the source.
 * Then the route: the SA is asked with the destination's own service ID
 * and traffic class, and its answer is the route.
 */
static void afib_resolve_addr_and_route(struct kunit *test)
{
	struct sockaddr_ib dst = ib_addr(IBDEV_SUBNET_SITE, 0x99, IBDEV_PKEY_LIMITED,
					 RDMA_IB_IP_PS_TCP | 7471, ~0ULL);
	struct cma_test_consumer c;
	struct rdma_cm_id *id;
	union ib_gid gid;

	dst.sib_flowinfo = htonl(0x02000000);
	id = afib_resolved(test, &c, &dst);
	expect_src_gid(test, id, IBDEV_SUBNET_SITE);
	rdma_addr_get_dgid(&id->route.addr.dev_addr, &gid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&gid, &dst.sib_addr, 16));
	KUNIT_EXPECT_EQ(test, IBDEV_PKEY_LIMITED,
			ib_addr_get_pkey(&id->route.addr.dev_addr));

	reinit_completion(&c.entered);
	KUNIT_ASSERT_EQ(test, 0, rdma_resolve_route(id, 1000));
	KUNIT_ASSERT_PTR_EQ(test, to_cma_id(id), fake_sa.cid);
	KUNIT_EXPECT_EQ(test, dst.sib_sid, fake_sa.rec.service_id);
	KUNIT_EXPECT_EQ(test, 0x20, fake_sa.rec.traffic_class);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&fake_sa.rec.dgid, &dst.sib_addr, 16));
	cma_path_done(fake_sa.cid, 0, &fake_sa.rec);
	KUNIT_ASSERT_TRUE(test, cma_test_wait(&c.entered));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ROUTE_RESOLVED, c.event.event);
	KUNIT_EXPECT_EQ(test, RDMA_CM_ROUTE_RESOLVED, c.state);
	rdma_destroy_id(id);
}

/* The port's own GID, and the loopback GID, resolve to the port. */
static void afib_resolve_loopback(struct kunit *test)
{
	struct sockaddr_ib dst = ib_addr(IBDEV_SUBNET_LOCAL, IBDEV_GUID, IBDEV_PKEY_DEFAULT,
					 RDMA_IB_IP_PS_TCP | 1, ~0ULL);
	struct sockaddr_ib *rdst;
	struct cma_test_consumer c;
	struct rdma_cm_id *id;

	id = afib_resolved(test, &c, &dst);
	expect_src_gid(test, id, IBDEV_SUBNET_LOCAL);
	rdma_destroy_id(id);

	dst = ib_addr(0, 0, IBDEV_PKEY_DEFAULT, RDMA_IB_IP_PS_TCP | 1, ~0ULL);
	ib_addr_set(&dst.sib_addr, 0, 0, 0, htonl(1));
	id = afib_resolved(test, &c, &dst);
	rdst = (struct sockaddr_ib *)&id->route.addr.dst_addr;
	KUNIT_EXPECT_EQ(test, 0, memcmp(&rdst->sib_addr,
					&((struct sockaddr_ib *)
					  &id->route.addr.src_addr)->sib_addr,
					16));
	rdma_destroy_id(id);
}

/* No port on the subnet, or none with the P_Key: refused at once. */
static void afib_resolve_unreachable(struct kunit *test)
{
	struct sockaddr_ib dst = ib_addr(0xfec0000000020000ULL, 0x99,
					 IBDEV_PKEY_DEFAULT, RDMA_IB_IP_PS_TCP | 1,
					 ~0ULL);
	struct sockaddr_in in = { .sin_family = AF_INET };
	struct cma_test_consumer c;
	struct rdma_cm_id *id = afib_id(test, &c, RDMA_PS_TCP);

	KUNIT_EXPECT_EQ(test, -ENODEV,
			rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
					  1000));
	KUNIT_EXPECT_EQ(test, RDMA_CM_ADDR_BOUND, cma_state(to_cma_id(id)));
	dst = ib_addr(IBDEV_SUBNET_LOCAL, 0x99, 0x7777, RDMA_IB_IP_PS_TCP | 1, ~0ULL);
	KUNIT_EXPECT_EQ(test, -ENODEV,
			rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
					  1000));
	/* Bound to AF_IB: an IP destination is of another family. */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			rdma_resolve_addr(id, NULL, (struct sockaddr *)&in,
					  1000));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c.calls));
	KUNIT_EXPECT_NULL(test, id->device);
	rdma_destroy_id(id);
}

/*
 * A listener bound to its device holds, in-box, that device's CM listen as
 * its CM id: rdma_disconnect() tries a DREQ and a DREP on it, both
 * refused, and returns 0; rdma_init_qp_attr() asks the IB CM, which has
 * no attributes for a listen (-EINVAL), unless the id is UD. The fake
 * device has no IB CM to listen with: the ids are moved to LISTEN by hand.
 */
static void afib_dev_listener_calls(struct kunit *test)
{
	struct sockaddr_ib sib = ib_addr(IBDEV_SUBNET_LOCAL, IBDEV_GUID, IBDEV_PKEY_DEFAULT,
					 0, 0);
	struct ib_qp_attr attr = {};
	struct cma_test_consumer c, c2;
	struct rdma_cm_id *id, *ud;
	int mask = 0;

	id = afib_id(test, &c, RDMA_PS_TCP);
	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(id, (struct sockaddr *)&sib));
	KUNIT_ASSERT_TRUE(test, cma_transition(to_cma_id(id), RDMA_CM_ADDR_BOUND,
					       RDMA_CM_LISTEN));
	KUNIT_EXPECT_EQ(test, 0, rdma_disconnect(id));
	KUNIT_EXPECT_EQ(test, RDMA_CM_LISTEN, cma_state(to_cma_id(id)));
	attr.qp_state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_init_qp_attr(id, &attr, &mask));
	attr.qp_state = IB_QPS_RTR;
	KUNIT_EXPECT_EQ(test, -EINVAL, rdma_init_qp_attr(id, &attr, &mask));

	ud = afib_id(test, &c2, RDMA_PS_UDP);
	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(ud, (struct sockaddr *)&sib));
	KUNIT_ASSERT_TRUE(test, cma_transition(to_cma_id(ud), RDMA_CM_ADDR_BOUND,
					       RDMA_CM_LISTEN));
	attr.qp_state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, 0, rdma_init_qp_attr(ud, &attr, &mask));
	rdma_destroy_id(ud);
	rdma_destroy_id(id);
}

/*
 * In-box, the IPoIB port space takes InfiniBand addresses only: a source
 * address on an Ethernet (RoCE or iWARP) device does not get its device.
 */
static void afib_ipoib_needs_infiniband(struct kunit *test)
{
	struct cma_test_consumer c;
	struct rdma_cm_id *id;

	id = cma_test_new_id(test, &c, RDMA_PS_IPOIB, IB_QPT_UD);
	id->route.addr.dev_addr.dev_type = ARPHRD_ETHER;
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_acquire_dev(to_cma_id(id)));
	KUNIT_EXPECT_NULL(test, id->device);
	rdma_destroy_id(id);
}

/*
 * An IP id resolving a wildcard destination gets a device (here the fake
 * one, or any other) with no neighbour; in-box its destination stays the
 * wildcard it was given, port included.
 */
static void afib_ip_resolve_wildcard(struct kunit *test)
{
	struct sockaddr_in any4 = { .sin_family = AF_INET,
				    .sin_port = htons(7471) };
	struct sockaddr_in6 any6 = { .sin6_family = AF_INET6,
				     .sin6_port = htons(7472) };
	struct sockaddr_in *dst4;
	struct sockaddr_in6 *dst6;
	struct cma_test_consumer c, c6;
	struct rdma_cm_id *id, *id6;

	id = cma_test_new_id(test, &c, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, 0, rdma_resolve_addr(id, NULL,
						   (struct sockaddr *)&any4,
						   1000));
	KUNIT_EXPECT_TRUE(test, cma_test_wait(&c.entered));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ADDR_RESOLVED, c.event.event);
	dst4 = (struct sockaddr_in *)&id->route.addr.dst_addr;
	KUNIT_EXPECT_EQ(test, AF_INET, dst4->sin_family);
	KUNIT_EXPECT_EQ(test, htonl(INADDR_ANY), dst4->sin_addr.s_addr);
	KUNIT_EXPECT_EQ(test, htons(7471), dst4->sin_port);
	rdma_destroy_id(id);

	id6 = cma_test_new_id(test, &c6, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, 0, rdma_resolve_addr(id6, NULL,
						   (struct sockaddr *)&any6,
						   1000));
	KUNIT_EXPECT_TRUE(test, cma_test_wait(&c6.entered));
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ADDR_RESOLVED, c6.event.event);
	dst6 = (struct sockaddr_in6 *)&id6->route.addr.dst_addr;
	KUNIT_EXPECT_EQ(test, AF_INET6, dst6->sin6_family);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_any(&dst6->sin6_addr));
	KUNIT_EXPECT_EQ(test, htons(7472), dst6->sin6_port);
	rdma_destroy_id(id6);
}

static struct kunit_case cma_afib_cases[] = {
	KUNIT_CASE(afib_addr_functions),
	KUNIT_CASE(afib_port_space),
	KUNIT_CASE(afib_service_id_and_header),
	KUNIT_CASE(afib_request_private_data),
	KUNIT_CASE(afib_path_request),
	KUNIT_CASE(afib_request_addresses),
	KUNIT_CASE(afib_mgid_and_listing),
	KUNIT_CASE(afib_bind),
	KUNIT_CASE(afib_resolve_addr_and_route),
	KUNIT_CASE(afib_resolve_loopback),
	KUNIT_CASE(afib_resolve_unreachable),
	KUNIT_CASE(afib_dev_listener_calls),
	KUNIT_CASE(afib_ipoib_needs_infiniband),
	KUNIT_CASE(afib_ip_resolve_wildcard),
	{}
};

static struct kunit_suite cma_afib_suite = {
	.name = "rdma_cm_afib",
	.suite_init = afib_suite_init,
	.suite_exit = afib_suite_exit,
	.init = afib_init,
	.exit = afib_exit,
	.test_cases = cma_afib_cases,
};

kunit_test_suite(cma_afib_suite);
