// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_kunit.ko: the KUnit suites of xrdma's ring, credit, pool and
 * FRWR logic, of its message header, of its landing buffer
 * bookkeeping, of the checks before an RDMA READ or WRITE is posted,
 * of the work requests waited for, of the CQs' arming, of the
 * reconnect work, of a connection coming up and of the DONEs owed
 * for pulled chunks, which need no RDMA device.
 */
#include <linux/module.h>

#include "xrdma_kunit.h"

kunit_test_suites(&xrdma_ring_suite, &xrdma_credits_suite,
		  &xrdma_pool_suite, &xrdma_frwr_suite, &xrdma_hdr_suite,
		  &xrdma_land_suite, &xrdma_rdma_suite, &xrdma_wr_wait_suite,
		  &xrdma_send_cq_suite, &xrdma_recv_cq_suite,
		  &xrdma_reconnect_suite, &xrdma_established_suite,
		  &xrdma_done_suite);

MODULE_DESCRIPTION("KUnit tests of xrdma");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
