// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma.ko: an RDMA message transport in the style of xprtrdma, on the
 * exported RDMA CM API and ib_core verbs only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "xrdma.h"

/* Disconnects, reconnects and listener chores run here. */
struct workqueue_struct *xrdma_wq;

static int __init xrdma_init(void)
{
	int rc;

	xrdma_wq = alloc_workqueue("xrdma", WQ_MEM_RECLAIM, 0);
	if (!xrdma_wq)
		return -ENOMEM;
	rc = xrdma_cq_init();
	if (rc)
		destroy_workqueue(xrdma_wq);
	return rc;
}

static void __exit xrdma_exit(void)
{
	xrdma_cq_exit();
	destroy_workqueue(xrdma_wq);
}

module_init(xrdma_init);
module_exit(xrdma_exit);
MODULE_DESCRIPTION("xrdma: an xprtrdma-style RDMA message transport");
MODULE_LICENSE("GPL");
