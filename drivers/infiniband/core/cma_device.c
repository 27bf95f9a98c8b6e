// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA devices the CM can use, as ib_core reports them coming and
 * going. A device is usable when one of its ports speaks the IB CM
 * (InfiniBand, RoCE) or the iWARP CM.
 */

#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "cma_priv.h"

static LIST_HEAD(cma_devices);

static int cma_add_device(struct ib_device *device);
static void cma_remove_device(struct ib_device *device, void *client_data);

static struct ib_client cma_client = {
	.name	= "cma",
	.add	= cma_add_device,
	.remove	= cma_remove_device,
};

static bool cma_device_usable(struct ib_device *device)
{
	u32 port;

	rdma_for_each_port(device, port)
		if (rdma_cap_ib_cm(device, port) || rdma_cap_iw_cm(device, port))
			return true;
	return false;
}

/**
 * cma_device_put - drop a reference on a device
 * @cma_dev: the device
 *
 * The last reference lets the removal of the device finish.
 *
 * Context: any.
 */
void cma_device_put(struct cma_device *cma_dev)
{
	if (refcount_dec_and_test(&cma_dev->refcount))
		complete(&cma_dev->released);
}

/* ib_client .add: runs for every device, present and future. */
static int cma_add_device(struct ib_device *device)
{
	struct cma_device *cma_dev;

	/* ib_core's convention for "this client does not apply". */
	if (!cma_device_usable(device))
		return -EOPNOTSUPP;

	cma_dev = kzalloc(sizeof(*cma_dev), GFP_KERNEL);
	if (!cma_dev)
		return -ENOMEM;

	cma_dev->device = device;
	refcount_set(&cma_dev->refcount, 1);
	init_completion(&cma_dev->released);
	ib_set_client_data(device, &cma_client, cma_dev);

	mutex_lock(&cma_lock);
	list_add_tail(&cma_dev->list, &cma_devices);
	mutex_unlock(&cma_lock);
	return 0;
}

/*
 * ib_client .remove: the device is being unregistered. Once it is off the
 * list nothing new can bind to it; wait for every id bound to it to let
 * go before ib_core tears the device down.
 */
static void cma_remove_device(struct ib_device *device, void *client_data)
{
	struct cma_device *cma_dev = client_data;

	mutex_lock(&cma_lock);
	list_del(&cma_dev->list);
	mutex_unlock(&cma_lock);

	cma_device_put(cma_dev);
	wait_for_completion(&cma_dev->released);
	kfree(cma_dev);
}

static const char *cma_port_transport(struct ib_device *device, u32 port)
{
	if (rdma_protocol_roce(device, port))
		return "roce";
	if (rdma_protocol_ib(device, port))
		return "ib";
	if (rdma_protocol_iwarp(device, port))
		return "iwarp";
	return "other";
}

/**
 * cma_devices_show - list the devices the CM uses, one line per port
 * @m: where to print
 *
 * Each line reads "<device> <port> <transport>", the transport one of
 * ib, roce, iwarp or other.
 *
 * Context: process context; takes cma_lock.
 */
void cma_devices_show(struct seq_file *m)
{
	struct cma_device *cma_dev;
	u32 port;

	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list)
		rdma_for_each_port(cma_dev->device, port)
			seq_printf(m, "%s %u %s\n",
				   dev_name(&cma_dev->device->dev), port,
				   cma_port_transport(cma_dev->device, port));
	mutex_unlock(&cma_lock);
}

/**
 * cma_devices_init - start tracking RDMA devices
 *
 * Context: process context, module init.
 * Return: 0 or the error of ib_register_client().
 */
int cma_devices_init(void)
{
	return ib_register_client(&cma_client);
}

/**
 * cma_devices_exit - stop tracking RDMA devices, forgetting every one
 *
 * Context: process context, module exit; no id may be alive.
 */
void cma_devices_exit(void)
{
	ib_unregister_client(&cma_client);
}
