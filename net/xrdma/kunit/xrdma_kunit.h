/* SPDX-License-Identifier: GPL-2.0 */
/* The suites of xrdma_kunit.ko, one per file but xrdma_cq_test.c's two. */
#ifndef _XRDMA_KUNIT_H
#define _XRDMA_KUNIT_H

#include <kunit/test.h>

#include "xrdma.h"

extern struct kunit_suite xrdma_ring_suite;
extern struct kunit_suite xrdma_credits_suite;
extern struct kunit_suite xrdma_pool_suite;
extern struct kunit_suite xrdma_frwr_suite;
extern struct kunit_suite xrdma_hdr_suite;
extern struct kunit_suite xrdma_land_suite;
extern struct kunit_suite xrdma_rdma_suite;
extern struct kunit_suite xrdma_wr_wait_suite;
extern struct kunit_suite xrdma_send_cq_suite;
extern struct kunit_suite xrdma_recv_cq_suite;
extern struct kunit_suite xrdma_reconnect_suite;
extern struct kunit_suite xrdma_established_suite;
extern struct kunit_suite xrdma_done_suite;

/* Would the send CQ's work item arm the CQ now? As it asks, under the
 * send lock.
 */
static inline bool xrdma_kunit_send_cq_wanted(struct xrdma_xprt *xprt,
					      struct xrdma_ep *ep)
{
	bool wanted;

	spin_lock(&xprt->send_lock);
	wanted = xrdma_send_cq_wanted(xprt, ep);
	spin_unlock(&xprt->send_lock);
	return wanted;
}

#endif /* _XRDMA_KUNIT_H */
