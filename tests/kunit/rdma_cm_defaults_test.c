// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the per-port defaults (cma_defaults.c): the strings configfs
 * gets from user space (RoCE mode, type of service), and which modes a
 * port takes, on fake devices of each kind of port.
 */

#include <linux/string.h>

#include "cma_test.h"

static int mode(const char *s)
{
	return cma_roce_mode_parse(s, strlen(s));
}

static void cma_defaults_mode_strings(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_IB, mode("IB/RoCE v1"));
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_IB, mode("IB/RoCE v1\n"));
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_ROCE_UDP_ENCAP, mode("RoCE v2"));
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_ROCE_UDP_ENCAP, mode("RoCE v2\n"));
}

static void cma_defaults_mode_refused(struct kunit *test)
{
	static const char * const bad[] = {
		"", "\n", "RoCE v2\n\n", "roce v2", "RoCE v1", "RoCE v", "RoCE v22",
		" RoCE v2", "RoCE v2 ", "IB", "IB/RoCE v2", "2",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, -EINVAL, mode(bad[i]),
				    "mode '%s'", bad[i]);
}

/* configfs passes the length written: nothing past it counts. */
static void cma_defaults_mode_length(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_ROCE_UDP_ENCAP,
			cma_roce_mode_parse("RoCE v2XYZ", 7));
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_roce_mode_parse("RoCE v2", 6));
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_roce_mode_parse("RoCE v2", 0));
}

/* What is shown reads back as what was set. */
static void cma_defaults_mode_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, "IB/RoCE v1",
			   cma_roce_mode_name(IB_GID_TYPE_IB));
	KUNIT_EXPECT_STREQ(test, "IB/RoCE v1",
			   cma_roce_mode_name(IB_GID_TYPE_ROCE));
	KUNIT_EXPECT_STREQ(test, "RoCE v2",
			   cma_roce_mode_name(IB_GID_TYPE_ROCE_UDP_ENCAP));
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_ROCE_UDP_ENCAP,
			mode(cma_roce_mode_name(IB_GID_TYPE_ROCE_UDP_ENCAP)));
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_IB,
			mode(cma_roce_mode_name(IB_GID_TYPE_ROCE)));
}

static void cma_defaults_tos(struct kunit *test)
{
	static const struct {
		const char *s;
		int ret;
		u8 tos;
	} cases[] = {
		{ "0", 0, 0 }, { "255", 0, 255 }, { "96\n", 0, 96 },
		{ "0x60", 0, 0x60 }, { "010", 0, 8 }, { "+5", 0, 5 },
		{ "256", -ERANGE, 0 }, { "1000", -ERANGE, 0 },
		{ "-1", -EINVAL, 0 }, { "abc", -EINVAL, 0 }, { "", -EINVAL, 0 },
		{ "1 2", -EINVAL, 0 }, { "96\n\n", -EINVAL, 0 },
	};
	unsigned int i;
	u8 tos;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		tos = 0;
		KUNIT_EXPECT_EQ_MSG(test, cases[i].ret,
				    cma_roce_tos_parse(cases[i].s, &tos),
				    "tos '%s'", cases[i].s);
		if (!cases[i].ret)
			KUNIT_EXPECT_EQ_MSG(test, cases[i].tos, tos, "tos '%s'",
					    cases[i].s);
	}
}

/* A device with one port of the given capabilities, not registered. */
static struct cma_device *fake_device(struct kunit *test, u32 caps)
{
	struct cma_device *cma_dev;
	struct ib_device *device;

	device = kunit_kzalloc(test, sizeof(*device), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, device);
	device->phys_port_cnt = 1;
	device->port_data = kunit_kcalloc(test, 2, sizeof(*device->port_data),
					  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, device->port_data);
	device->port_data[1].immutable.core_cap_flags = caps;
	cma_dev = kunit_kzalloc(test, sizeof(*cma_dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cma_dev);
	cma_dev->device = device;
	KUNIT_ASSERT_EQ(test, 0, cma_defaults_alloc(cma_dev));
	return cma_dev;
}

static int set_mode(struct cma_device *cma_dev, u32 port, const char *s)
{
	int ret = mode(s);

	if (ret < 0)
		return ret;
	mutex_lock(&cma_lock);
	ret = cma_set_default_gid_type(cma_dev, port, ret);
	mutex_unlock(&cma_lock);
	return ret;
}

/* A port with RoCEv1 and RoCEv2: v2 at first; "IB/RoCE v1" means v1. */
static void cma_defaults_mode_roce_v1_v2(struct kunit *test)
{
	struct cma_device *cma_dev;

	cma_dev = fake_device(test, RDMA_CORE_PORT_IBA_ROCE |
				    RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP);
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_ROCE_UDP_ENCAP,
			cma_default_gid_type(cma_dev, 1));
	KUNIT_EXPECT_EQ(test, 0U, cma_default_roce_tos(cma_dev, 1));
	KUNIT_EXPECT_EQ(test, 0, set_mode(cma_dev, 1, "IB/RoCE v1"));
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_ROCE,
			cma_default_gid_type(cma_dev, 1));
	KUNIT_EXPECT_EQ(test, 0, set_mode(cma_dev, 1, "RoCE v2\n"));
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_ROCE_UDP_ENCAP,
			cma_default_gid_type(cma_dev, 1));
	/* No port 2, nor 0. */
	KUNIT_EXPECT_EQ(test, -EINVAL, set_mode(cma_dev, 2, "RoCE v2"));
	KUNIT_EXPECT_EQ(test, -EINVAL, set_mode(cma_dev, 0, "RoCE v2"));
	cma_defaults_free(cma_dev);
}

/* RoCEv1 only (old hardware): v1 from the start, no v2. */
static void cma_defaults_mode_roce_v1_only(struct kunit *test)
{
	struct cma_device *cma_dev;

	cma_dev = fake_device(test, RDMA_CORE_PORT_IBA_ROCE);
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_ROCE,
			cma_default_gid_type(cma_dev, 1));
	KUNIT_EXPECT_EQ(test, -EINVAL, set_mode(cma_dev, 1, "RoCE v2"));
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_ROCE,
			cma_default_gid_type(cma_dev, 1));
	cma_defaults_free(cma_dev);
}

/* RoCEv2 only (rxe): no v1; and the tos of a port. */
static void cma_defaults_mode_roce_v2_only(struct kunit *test)
{
	struct cma_device *cma_dev;

	cma_dev = fake_device(test, RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP);
	KUNIT_EXPECT_EQ(test, -EINVAL, set_mode(cma_dev, 1, "IB/RoCE v1"));
	KUNIT_EXPECT_EQ(test, IB_GID_TYPE_ROCE_UDP_ENCAP,
			cma_default_gid_type(cma_dev, 1));
	mutex_lock(&cma_lock);
	KUNIT_EXPECT_EQ(test, 0, cma_set_default_roce_tos(cma_dev, 1, 184));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cma_set_default_roce_tos(cma_dev, 2, 1));
	mutex_unlock(&cma_lock);
	KUNIT_EXPECT_EQ(test, 184U, cma_default_roce_tos(cma_dev, 1));
	cma_defaults_free(cma_dev);
}

/* InfiniBand and iWARP ports have IB GIDs only. */
static void cma_defaults_mode_not_roce(struct kunit *test)
{
	struct cma_device *cma_dev;
	u32 caps[] = { RDMA_CORE_PORT_IBA_IB, RDMA_CORE_PORT_IWARP };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		cma_dev = fake_device(test, caps[i]);
		KUNIT_EXPECT_EQ(test, IB_GID_TYPE_IB,
				cma_default_gid_type(cma_dev, 1));
		KUNIT_EXPECT_EQ(test, 0, set_mode(cma_dev, 1, "IB/RoCE v1"));
		KUNIT_EXPECT_EQ(test, -EINVAL, set_mode(cma_dev, 1, "RoCE v2"));
		KUNIT_EXPECT_EQ(test, IB_GID_TYPE_IB,
				cma_default_gid_type(cma_dev, 1));
		cma_defaults_free(cma_dev);
	}
}

static struct kunit_case cma_defaults_cases[] = {
	KUNIT_CASE(cma_defaults_mode_strings),
	KUNIT_CASE(cma_defaults_mode_refused),
	KUNIT_CASE(cma_defaults_mode_length),
	KUNIT_CASE(cma_defaults_mode_names),
	KUNIT_CASE(cma_defaults_tos),
	KUNIT_CASE(cma_defaults_mode_roce_v1_v2),
	KUNIT_CASE(cma_defaults_mode_roce_v1_only),
	KUNIT_CASE(cma_defaults_mode_roce_v2_only),
	KUNIT_CASE(cma_defaults_mode_not_roce),
	{}
};

static struct kunit_suite cma_defaults_suite = {
	.name = "rdma_cm_defaults",
	.test_cases = cma_defaults_cases,
};

kunit_test_suite(cma_defaults_suite);
