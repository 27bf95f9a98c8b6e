// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA connection manager: module entry and exit, and the state that
 * every part of it shares.
 */

#include <linux/module.h>
#include <linux/rtnetlink.h>

#include "cma_priv.h"

/*
 * Protects the device list and each device's ids, the port tables, the
 * listens and the wildcard listeners, and reuseaddr/afonly. Taken after
 * rtnl and any handler mutex; never held while a handler runs.
 */
struct mutex cma_lock = __MUTEX_INITIALIZER(cma_lock);
EXPORT_SYMBOL_IF_KUNIT(cma_lock);

/*
 * Events born outside process context are delivered from here. Ordered,
 * so two events queued for one id arrive in the order they were queued.
 */
struct workqueue_struct *cma_wq;
EXPORT_SYMBOL_IF_KUNIT(cma_wq);

/*
 * Referenced by every module built with <rdma/rdma_cm_ext.h>: against
 * the in-box CM such a module fails to load naming this symbol, which
 * says what is missing. Its value is the version of the extensions.
 */
const unsigned int rdma_cm_ext_requires_out_of_tree_rdma_cm = 1;
EXPORT_SYMBOL(rdma_cm_ext_requires_out_of_tree_rdma_cm);

/*
 * rtnl comes before cma_lock: the netdev notifier walks the devices' ids
 * under cma_lock with rtnl held. That only happens on a bonding failover;
 * take the two in that order once, so that lockdep knows the order from
 * the start and reports a path that takes rtnl under cma_lock (an iWARP
 * provider's listen, say) in any run, bonding or not.
 */
static void cma_lockdep_prime(void)
{
	if (!IS_ENABLED(CONFIG_LOCKDEP))
		return;
	rtnl_lock();
	mutex_lock(&cma_lock);
	mutex_unlock(&cma_lock);
	rtnl_unlock();
}

static int __init cma_init(void)
{
	int ret;

	cma_lockdep_prime();
	cma_wq = alloc_ordered_workqueue("rdma_cm", WQ_MEM_RECLAIM);
	if (!cma_wq)
		return -ENOMEM;
	cma_path_init();

	ret = cma_ids_init();
	if (ret)
		goto err_destroy_wq;

	ret = cma_ports_init();
	if (ret)
		goto err_ids;

	ret = cma_netevent_init();
	if (ret)
		goto err_ports;

	ret = cma_devices_init();
	if (ret)
		goto err_netevent;

	ret = cma_configfs_init();
	if (ret)
		goto err_devices;

	cma_debugfs_init();
	return 0;

err_devices:
	cma_devices_exit();
err_netevent:
	cma_netevent_exit();
err_ports:
	cma_ports_exit();
err_ids:
	cma_ids_exit();
err_destroy_wq:
	cma_path_exit();
	destroy_workqueue(cma_wq);
	return ret;
}

static void __exit cma_exit(void)
{
	cma_debugfs_exit();
	cma_configfs_exit();
	cma_devices_exit();
	cma_netevent_exit();
	destroy_workqueue(cma_wq);
	cma_ids_exit();
	cma_ports_exit();
	cma_path_exit();
}

module_init(cma_init);
module_exit(cma_exit);

MODULE_DESCRIPTION("RDMA connection manager");
MODULE_LICENSE("GPL");
