// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_land: the landing buffers a peer advertised are kept up to
 * XRDMA_LANDS and used oldest first, each once; and only memory in the
 * kernel's linear map is pushed from.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "xrdma.h"
#include "xrdma_kunit.h"

static void land_peer_list(struct kunit *test)
{
	struct xrdma_remote lands[XRDMA_LANDS], got;
	struct xrdma_remote a = { .addr = 0x1000, .rkey = 1,
				  .len = XRDMA_MAX_SEND };
	struct xrdma_remote b = { .addr = 0x2000, .rkey = 2,
				  .len = XRDMA_MAX_SEND };
	struct xrdma_remote c = { .addr = 0x3000, .rkey = 3,
				  .len = XRDMA_MAX_SEND };
	unsigned int nr = 0;

	KUNIT_EXPECT_FALSE(test, xrdma_peer_land_take(lands, &nr, &got));
	KUNIT_EXPECT_TRUE(test, xrdma_peer_land_add(lands, &nr, &a));
	KUNIT_EXPECT_TRUE(test, xrdma_peer_land_add(lands, &nr, &b));
	/* One more than the peer may have out is dropped. */
	KUNIT_EXPECT_FALSE(test, xrdma_peer_land_add(lands, &nr, &c));
	KUNIT_EXPECT_EQ(test, nr, (unsigned int)XRDMA_LANDS);

	/* Oldest first, each once. */
	KUNIT_ASSERT_TRUE(test, xrdma_peer_land_take(lands, &nr, &got));
	KUNIT_EXPECT_EQ(test, got.rkey, 1U);
	KUNIT_EXPECT_EQ(test, got.addr, 0x1000ULL);
	KUNIT_EXPECT_TRUE(test, xrdma_peer_land_add(lands, &nr, &c));
	KUNIT_ASSERT_TRUE(test, xrdma_peer_land_take(lands, &nr, &got));
	KUNIT_EXPECT_EQ(test, got.rkey, 2U);
	KUNIT_ASSERT_TRUE(test, xrdma_peer_land_take(lands, &nr, &got));
	KUNIT_EXPECT_EQ(test, got.rkey, 3U);
	KUNIT_EXPECT_EQ(test, got.len, (u32)XRDMA_MAX_SEND);
	KUNIT_EXPECT_FALSE(test, xrdma_peer_land_take(lands, &nr, &got));
	KUNIT_EXPECT_EQ(test, nr, 0U);
}

static void land_push_source(struct kunit *test)
{
	void *k = kunit_kmalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	void *v = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, k);
	KUNIT_EXPECT_TRUE(test, xrdma_push_source_ok(k, 1));
	KUNIT_EXPECT_TRUE(test, xrdma_push_source_ok(k, 2 * PAGE_SIZE));
	if (v) {
		/* vmalloc'ed memory is no single DMA-mappable span. */
		KUNIT_EXPECT_FALSE(test, xrdma_push_source_ok(v, 1));
		vfree(v);
	}
}

static struct kunit_case xrdma_land_cases[] = {
	KUNIT_CASE(land_peer_list),
	KUNIT_CASE(land_push_source),
	{}
};

struct kunit_suite xrdma_land_suite = {
	.name = "xrdma_land",
	.test_cases = xrdma_land_cases,
};
