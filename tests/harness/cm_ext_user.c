// SPDX-License-Identifier: GPL-2.0
/*
 * A consumer built with our extensions header and nothing else: it must
 * load on our rdma_cm and refuse to load on the in-box one, naming the
 * reason (tests/e2e/ext_needs_ours.sh).
 */

#include <linux/module.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ext.h>

static int __init cm_ext_user_init(void)
{
	return 0;
}
module_init(cm_ext_user_init);

static void __exit cm_ext_user_exit(void)
{
}
module_exit(cm_ext_user_exit);

MODULE_DESCRIPTION("A user of the rdma_cm extensions, for the load test");
MODULE_LICENSE("GPL");
